// tools/cli/commands/generate.cpp: `gigasparse generate KIND ... -o FILE`: writes a generated matrix as Matrix Market.
#include <cstdint>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <gigasparse/core/timer.hpp>
#include <gigasparse/gen/generators.hpp>
#include <gigasparse/io/matrix_market.hpp>

#include "cli.hpp"

namespace gigasparse::cli {
namespace {

using Matrix = Csr<double, std::int64_t>;

// One generator kind: the options it accepts (besides --symmetry, --precision) and how to build it.
struct Kind {
    std::vector<std::string> options;
    std::function<Matrix(const Args&)> make;
    bool symmetric;  // A == Aᵀ, so --symmetry symmetric is allowed
};

std::uint64_t seed_of(const Args& a) { return static_cast<std::uint64_t>(a.get_int("seed", 1)); }

// --nx/--ny/--nz default to --n, which defaults to `fallback`.
std::int64_t side(const Args& a, const std::string& name, std::int64_t fallback) { return a.get_int(name, a.get_int("n", fallback)); }

Matrix make_rmat(const Args& a) {
    gen::RmatOptions o;
    o.scale = static_cast<int>(a.get_int("scale", o.scale));
    o.edge_factor = a.get_double("edge-factor", o.edge_factor);
    o.a = a.get_double("a", o.a);
    o.b = a.get_double("b", o.b);
    o.c = a.get_double("c", o.c);
    o.symmetrize = a.flag("symmetrize");
    o.permute_vertices = a.flag("permute");
    o.seed = seed_of(a);
    return gen::rmat<double, std::int64_t>(o);
}

Matrix make_er(const Args& a) {
    const std::int64_t n = a.get_int("n", 1000);
    return gen::erdos_renyi<double, std::int64_t>(n, a.get_int("ncols", n), a.get_double("nnz-per-row", 8), seed_of(a));
}

Matrix make_random(const Args& a) {
    const std::int64_t n = a.get_int("n", 1000);
    return gen::random_sparse<double, std::int64_t>(n, a.get_int("ncols", n), a.get_double("nnz-per-row", 8), seed_of(a));
}

Matrix make_kkt(const Args& a) {
    gen::KktOptions o;
    o.n = a.get_int("n", o.n);
    o.m = a.get_int("m", o.m);
    o.h_nnz_per_row = a.get_double("h-nnz-per-row", o.h_nnz_per_row);
    o.a_nnz_per_row = a.get_double("a-nnz-per-row", o.a_nnz_per_row);
    o.delta = a.get_double("delta", o.delta);
    o.seed = seed_of(a);
    return gen::kkt<double, std::int64_t>(o);
}

const std::map<std::string, Kind>& kinds() {
    static const std::map<std::string, Kind> k{
        {"rmat", {{"scale", "edge-factor", "a", "b", "c", "seed"}, make_rmat, false}},
        {"er", {{"n", "ncols", "nnz-per-row", "seed"}, make_er, false}},
        {"random", {{"n", "ncols", "nnz-per-row", "seed"}, make_random, false}},
        {"poisson2d",
         {{"n", "nx", "ny", "points"},
          [](const Args& a) { return gen::poisson2d<double, std::int64_t>(side(a, "nx", 64), side(a, "ny", 64), static_cast<int>(a.get_int("points", 5))); },
          true}},
        {"poisson3d",
         {{"n", "nx", "ny", "nz", "points"},
          [](const Args& a) {
              return gen::poisson3d<double, std::int64_t>(side(a, "nx", 16), side(a, "ny", 16), side(a, "nz", 16), static_cast<int>(a.get_int("points", 7)));
          },
          true}},
        {"aniso2d",
         {{"n", "nx", "ny", "eps"},
          [](const Args& a) { return gen::anisotropic2d<double, std::int64_t>(side(a, "nx", 64), side(a, "ny", 64), a.get_double("eps", 0.01)); },
          true}},
        {"convdiff",
         {{"n", "nx", "ny", "nz", "bx", "by", "bz"},
          [](const Args& a) {
              return gen::convection_diffusion<double, std::int64_t>(side(a, "nx", 64), side(a, "ny", 64), a.get_int("nz", 0), a.get_double("bx", 100),
                                                                     a.get_double("by", 100), a.get_double("bz", 0));
          },
          false}},
        {"kkt", {{"n", "m", "h-nnz-per-row", "a-nnz-per-row", "delta", "seed"}, make_kkt, true}},
    };
    return k;
}

std::string kind_list() {
    std::string s;
    for (const auto& [name, kind] : kinds()) s += (s.empty() ? "" : ", ") + name;
    return s;
}

// The --symmetry option: general (default) or symmetric (lower triangle only, symmetric kinds only).
Symmetry output_symmetry(const Args& args, const std::string& name, const Kind& kind, bool symmetrized) {
    const std::string s = args.get("symmetry", "general");
    if (s == "general") return Symmetry::general;
    if (s != "symmetric") throw UsageError("--symmetry must be general or symmetric, got '" + s + "'");
    if (!kind.symmetric && !symmetrized) throw UsageError("--symmetry symmetric: '" + name + "' matrices are not symmetric");
    return Symmetry::symmetric;
}

void print_result(const Args& args, const std::string& name, const std::string& out, const Matrix& a, double generate_s, double write_s, double total_s) {
    if (args.flag("json")) {
        Json times;
        times.set("generate", generate_s).set("write", write_s).set("total", total_s);
        Json j;
        j.set("kind", name).set("output", out).set("rows", a.nrows).set("cols", a.ncols).set("nnz", a.nnz()).set("times", times);
        std::cout << j.str() << "\n";
        return;
    }
    std::cout << "generated " << name << ": " << format_count(a.nrows) << " x " << format_count(a.ncols) << ", " << format_count(a.nnz())
              << " nnz in " << format_seconds(generate_s) << "; wrote " << out << " in " << format_seconds(write_s) << "\n";
}

int generate(const Args& args) {
    if (args.positional().size() != 1) throw UsageError("generate expects one KIND (" + kind_list() + ")");
    const std::string& name = args.positional()[0];
    const auto it = kinds().find(name);
    if (it == kinds().end()) throw UsageError("unknown kind '" + name + "' (one of " + kind_list() + ")");
    const Kind& kind = it->second;
    std::vector<std::string> known = kind.options;
    known.insert(known.end(), {"output", "symmetry", "precision"});
    args.expect_only(known);
    if ((args.flag("symmetrize") || args.flag("permute")) && name != "rmat") throw UsageError("--symmetrize and --permute apply to rmat only");
    const auto out = args.get("output");
    if (!out) throw UsageError("generate needs an output file: -o FILE");
    io::MmWriteOptions options;
    options.symmetry = output_symmetry(args, name, kind, args.flag("symmetrize"));
    options.precision = static_cast<int>(args.get_int("precision", 17));
    options.comment = "generated by gigasparse generate " + name;
    Timer total, phase;
    const Matrix a = kind.make(args);
    const double generate_s = phase.lap();
    io::write_mtx<double, std::int64_t>(*out, a, options);
    const double write_s = phase.lap();
    print_result(args, name, *out, a, generate_s, write_s, total.seconds());
    return exit_ok;
}

const bool registered = register_command({
    "generate",
    "generate a test matrix (R-MAT, Erdős–Rényi, Poisson, convection–diffusion, KKT) as Matrix Market",
    "usage: gigasparse generate KIND [OPTIONS] -o FILE [--symmetry general|symmetric] [--precision N] [--json]\n\n"
    "Generates a matrix deterministically (same options and seed -> same file on any machine) and\n"
    "writes it atomically as a Matrix Market coordinate file (gzip when FILE ends in .gz).\n"
    "kinds and their options (defaults in brackets); docs/generators.md gives the exact forms:\n"
    "  rmat       --scale [16] --edge-factor [16] --a [0.57] --b [0.19] --c [0.19] --seed [1]\n"
    "             --symmetrize (A + Aᵀ pattern)  --permute (random vertex labels)\n"
    "             2^scale vertices, edge-factor * 2^scale edges drawn, duplicates removed, self-loops kept\n"
    "  er         --n [1000] --ncols [n] --nnz-per-row [8] --seed [1]   Erdős–Rényi pattern, values 1\n"
    "  random     --n [1000] --ncols [n] --nnz-per-row [8] --seed [1]   values uniform in [-1, 1]\n"
    "  poisson2d  --n [64] | --nx --ny, --points 5|9 [5]\n"
    "  poisson3d  --n [16] | --nx --ny --nz, --points 7|27 [7]\n"
    "  aniso2d    --n [64] | --nx --ny, --eps [0.01]                   -eps u_xx - u_yy, 5-point\n"
    "  convdiff   --n [64] | --nx --ny, --nz [0 = 2D], --bx [100] --by [100] --bz [0]   upwind, unsymmetric\n"
    "  kkt        --n [1000] --m [300] --h-nnz-per-row [5] --a-nnz-per-row [4] --delta [1e-8] --seed [1]\n"
    "             [H Aᵀ; A -delta I], H SPD: symmetric indefinite\n"
    "  -o FILE            output file (required)\n"
    "  --symmetry KIND    general (default) or symmetric (lower triangle only; symmetric kinds only)\n"
    "  --precision N      significant digits of values (default 17)\n"
    "  --json             print one JSON object: kind, output, rows, cols, nnz, times {generate, write, total} (s)\n"
    "exit codes: 0 ok, 2 usage error or invalid parameter, 3 FILE cannot be written, 4 out of memory\n",
    {"symmetrize", "permute"},
    generate,
});

}  // namespace
}  // namespace gigasparse::cli
