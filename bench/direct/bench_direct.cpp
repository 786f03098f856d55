// bench/direct/bench_direct.cpp: gigasparse DirectSolver vs CHOLMOD, MUMPS and MKL PARDISO on generated and
// shared SPD matrices (JSON).
#include <dlfcn.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <ctime>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <omp.h>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/timer.hpp>
#include <gigasparse/direct/batch.hpp>
#include <gigasparse/direct/solver.hpp>
#include <gigasparse/gen/generators.hpp>
#include <gigasparse/io/matrix_market.hpp>

#include <cblas.h>

#include "cholmod_adapter.hpp"
#include "competitors.hpp"
#include "common/blas_kernels.hpp"
#include "common/context.hpp"
#include "common/json.hpp"

using namespace gigasparse;

namespace {

// "lap2d:300", "lap3d:40", "convdiff3d:40" (upwind convection-diffusion, unsymmetric), "helm3d:40" (3D Laplacian minus 0.7 I: indefinite, regular), "kkt:N:M" (the
// generator's [H Aᵀ; A -1e-8 I], seed 1) or a Matrix Market path (symmetric files expanded).
Csr<double, std::int64_t> load(const std::string& spec) {
    if (spec.rfind("helm3d:", 0) == 0) {
        auto k = std::stoll(spec.substr(7));
        auto a = gen::poisson3d<double, std::int64_t>(k, k, k);
        for (std::int64_t i = 0; i < a.nrows; ++i)
            for (auto q = a.row_ptr[i]; q < a.row_ptr[i + 1]; ++q)
                if (a.col_idx[q] == i) a.values[q] -= 0.7;
        return a;
    }
    if (spec.rfind("convdiff3d:", 0) == 0) {  // -Δu + (40, 10, 5)·∇u, upwind: unsymmetric
        auto k = std::stoll(spec.substr(11));
        return gen::convection_diffusion<double, std::int64_t>(k, k, k, 40.0, 10.0, 5.0);
    }
    if (spec.rfind("kkt:", 0) == 0) {
        gen::KktOptions o;
        const auto c = spec.find(':', 4);
        o.n = std::stoll(spec.substr(4, c - 4));
        o.m = c == std::string::npos ? o.n / 3 : std::stoll(spec.substr(c + 1));
        return gen::kkt<double, std::int64_t>(o);
    }
    if (spec.rfind("lap2d:", 0) == 0) {
        auto k = std::stoll(spec.substr(6));
        return gen::poisson2d<double, std::int64_t>(k, k);
    }
    if (spec.rfind("lap3d:", 0) == 0) {
        auto k = std::stoll(spec.substr(6));
        return gen::poisson3d<double, std::int64_t>(k, k, k);
    }
    return io::read_mtx<double, std::int64_t>(spec);
}

// schur (optional): the Schur complement of these variables is computed (refactorize + schur_complement() timed
// together, as MUMPS and PARDISO return it from their factorization), its diagonal stored in *schur_diag; no solve.
tools::Json run_gigasparse(const Csr<double, std::int64_t>& a, const std::string& ordering, int repeats,
                           const std::vector<std::int64_t>* user_perm, direct::Structure structure,
                           const std::vector<std::int64_t>* schur = nullptr, std::vector<double>* schur_diag = nullptr,
                           const char* factor_precision = "full") {
    direct::DirectSolver<double, std::int64_t> s(structure);
    s.set_option("factor_precision", factor_precision);
    const bool indefinite = structure == direct::Structure::symmetric;
    s.set_option("ordering", ordering);
    // Extra options "name=value;name=value" from GIGASPARSE_DIRECT_OPTIONS (tuning experiments).
    if (const char* env = std::getenv("GIGASPARSE_DIRECT_OPTIONS")) {
        std::string opts = env;
        for (std::size_t p = 0; p < opts.size();) {
            std::size_t e = opts.find(';', p);
            if (e == std::string::npos) e = opts.size();
            std::string kv = opts.substr(p, e - p);
            std::size_t eq = kv.find('=');
            if (eq != std::string::npos) s.set_option(kv.substr(0, eq), kv.substr(eq + 1));
            p = e + 1;
        }
    }
    if (user_perm) s.set_user_permutation(*user_perm);
    const bool with_schur = schur && !schur->empty();
    if (with_schur) s.set_schur_indices(*schur);
    DenseMatrix<double> S;
    Timer t;
    s.analyze(a);
    double analyze = t.lap();
    auto st = s.factorize(a);
    double factorize = t.lap();
    double refactorize = 1e300, cpu = 1e300;
    for (int k = 0; k < repeats; ++k) {
        t.reset();
        std::clock_t c0 = std::clock();
        s.refactorize(a.values);
        if (with_schur) S = s.schur_complement();
        const double wall = t.seconds(), used = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
        if (wall < refactorize) refactorize = wall, cpu = used;  // CPU time of the best repetition
    }
    std::vector<double> b(static_cast<std::size_t>(a.nrows), 1.0), x(b.size());
    direct::SolveInfo info;
    double solve = 0;
    if (with_schur && st == direct::Status::success) {
        if (S.nrows == 0) S = s.schur_complement();
        for (std::int64_t i = 0; i < S.nrows; ++i) schur_diag->push_back(S(i, i));
    } else if (st == direct::Status::success) {
        t.reset();
        info = s.solve(b, x);
        solve = t.seconds();
    }
    tools::Json j, times;
    times.set("analyze", analyze).set("factorize", factorize).set("refactorize", refactorize).set("solve", solve);
    times.set("refactorize_cpu", cpu);
    j.set("ordering", s.ordering_used())
        .set("status", direct::to_string(st))
        .set("nnz_L", s.result("nnz_L"))
        .set("flops", s.result("flops"))
        .set("supernodes", s.result("supernodes"))
        .set("levels", s.result("levels"))
        .set("gflops_per_s", s.result("flops") / refactorize * 1e-9)
        .set("residual", info.residual)
        .set("backward_error", info.backward_error)
        .set("refinement_steps", info.refinement_steps)
        .set("krylov_iterations", info.krylov_iterations)
        .set("factor_precision", s.result("single_factor") != 0 ? "single" : "full")
        .set("factor_bytes", s.result("factor_bytes"))
        .set("times", times);
    if (with_schur) j.set("schur_size", static_cast<std::int64_t>(schur->size()));
    if (indefinite && st == direct::Status::success) {
        j.set("perturbed_pivots", s.result("perturbed_pivots")).set("two_by_two_pivots", s.result("two_by_two_pivots"));
        j.set("negative_pivots", s.result("negative_pivots"));
    }
    if (structure == direct::Structure::general && st == direct::Status::success)
        j.set("perturbed_pivots", s.result("perturbed_pivots"))
            .set("delayed_pivots", s.result("delayed_pivots"))
            .set("unmatched_columns", s.result("unmatched_columns"))
            .set("nnz_LU", 2 * s.result("nnz_L") - static_cast<double>(a.nrows));  // as MUMPS and PARDISO count
    return j;
}

// max_i |d_i - ref_i| / max_i |ref_i|: how far a competitor's Schur complement diagonal is from gigasparse's.
double diag_difference(const std::vector<double>& d, const std::vector<double>& ref) {
    if (d.size() != ref.size() || ref.empty()) return -1;
    double m = 0, diff = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) m = std::max(m, std::abs(ref[i])), diff = std::max(diff, std::abs(d[i] - ref[i]));
    return m > 0 ? diff / m : diff;
}

// A uniform batch of `count` matrices on a's pattern: item t scales the off-diagonal entries by
// 0.75 + 0.25 sin(t + i + 7j) (i <= j: symmetric stays symmetric; no entry grows, so a diagonally dominant
// matrix stays so and the Laplacians stay definite).
std::vector<double> batch_values(const Csr<double, std::int64_t>& a, std::int64_t count) {
    std::vector<double> v;
    v.reserve(static_cast<std::size_t>(count * a.nnz()));
    for (std::int64_t t = 0; t < count; ++t)
        for (std::int64_t i = 0; i < a.nrows; ++i)
            for (auto k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
                const std::int64_t j = a.col_idx[k], lo = std::min(i, j), hi = std::max(i, j);
                v.push_back(a.values[k] * (i == j ? 1.0 : 0.75 + 0.25 * std::sin(static_cast<double>(t + lo + 7 * hi))));
            }
    return v;
}

// gigasparse on a batch: BatchDirectSolver (best of `repeats` factorizations of the whole batch, then one batch
// solve) and, for comparison, one DirectSolver refactorized and solved item by item (what a caller without the
// batch API does).
tools::Json run_gigasparse_batch(const Csr<double, std::int64_t>& a, const std::vector<double>& values, std::int64_t count,
                                 int repeats, direct::Structure structure) {
    tools::Json j;
    direct::BatchDirectSolver<double, std::int64_t> batch(structure);
    Timer t;
    batch.analyze(a);
    const double analyze = t.lap();
    std::vector<direct::Status> st = batch.factorize(values, count);
    const double first = t.lap();
    double best = first;
    for (int k = 0; k < repeats; ++k) {
        t.reset();
        st = batch.factorize(values, count);
        best = std::min(best, t.seconds());
    }
    const std::size_t n = static_cast<std::size_t>(a.nrows);
    std::vector<double> b(n * static_cast<std::size_t>(count), 1.0), x(b.size());
    t.reset();
    const auto info = batch.solve(b, x);
    const double solve = t.seconds();
    double worst = 0;
    std::int64_t failed = 0;
    for (std::int64_t k = 0; k < count; ++k) {
        failed += st[k] != direct::Status::success;
        worst = std::max(worst, info[k].backward_error);
    }
    // Item by item with one solver: refactorize + solve each.
    direct::DirectSolver<double, std::int64_t> one(structure);
    one.analyze(a);
    Csr<double, std::int64_t> a0 = a;
    std::copy(values.begin(), values.begin() + a.nnz(), a0.values.begin());
    one.factorize(a0);
    double loop_factor = 0, loop_solve = 0;
    std::vector<double> xo(n);
    for (std::int64_t k = 0; k < count; ++k) {
        t.reset();
        one.refactorize(std::span<const double>(values.data() + k * a.nnz(), static_cast<std::size_t>(a.nnz())));
        loop_factor += t.lap();
        one.solve(std::span<const double>(b.data(), n), xo);
        loop_solve += t.lap();
    }
    tools::Json times, loop;
    times.set("analyze", analyze).set("factorize_first", first).set("factorize", best).set("solve", solve);
    loop.set("factorize", loop_factor).set("solve", loop_solve);
    j.set("status", failed == 0 ? "success" : "failed")
        .set("failed_items", failed)
        .set("side_by_side", batch.ran_in_parallel())
        .set("flops_per_item", batch.prototype().result("flops"))
        .set("max_backward_error", worst)
        .set("times", times)
        .set("item_by_item", loop);
    return j;
}

tools::Json to_json(const bench::BatchResult& r) {
    tools::Json j, t;
    if (!r.available) return j.set("status", "not built");
    if (!r.ok) return j.set("status", "failed").set("error", r.error);
    t.set("analyze", r.analyze).set("factorize", r.factorize).set("solve", r.solve);
    return j.set("status", "success").set("max_residual", r.max_residual).set("times", t);
}

tools::Json to_json(const bench::DirectResult& r, const std::vector<double>* schur_ref = nullptr) {
    tools::Json j, t;
    if (!r.available) return j.set("status", "not built");
    if (!r.ok) return j.set("status", "failed").set("error", r.error);
    t.set("analyze", r.analyze).set("factorize", r.factorize).set("refactorize", r.refactorize).set("solve", r.solve);
    t.set("refactorize_cpu", r.refactorize_cpu);
    j.set("status", "success").set("ordering", r.ordering).set("nnz_L", r.nnz_L).set("flops", r.flops);
    j.set("residual", r.residual).set("times", t);
    if (r.perturbed >= 0) j.set("perturbed_or_delayed_pivots", r.perturbed);
    if (r.negative >= 0) j.set("negative_pivots", r.negative);
    if (schur_ref && !r.schur_diag.empty()) j.set("schur_diag_vs_gigasparse", diag_difference(r.schur_diag, *schur_ref));
    return j;
}

// The shared object that provides a symbol (which BLAS the process really calls).
std::string provider(void* sym) {
    Dl_info info{};
    if (sym && dladdr(sym, &info) && info.dli_fname) return info.dli_fname;
    return "unknown";
}

std::string first_line(const char* path) {
    std::ifstream f(path);
    std::string line;
    std::getline(f, line);
    return line;
}

bool cpu_has_avx512() {
    std::ifstream f("/proc/cpuinfo");
    std::string l;
    while (std::getline(f, l))
        if (l.rfind("flags", 0) == 0) return l.find(" avx512f") != std::string::npos;
    return false;
}

// OpenBLAS 0.3.21 does not know this VM's CPU (family 6 model 207) and falls back to its generic
// "Prescott" kernels: 12 GF/s per core instead of 60-70 with the SkylakeX kernels. CHOLMOD, MUMPS and
// gigasparse all call it, so the driver records the kernel set and warns.
tools::Json blas_context() {
    tools::Json j;
    std::string core = openblas_get_corename();
    const char* forced = std::getenv("OPENBLAS_CORETYPE");
    j.set("openblas_core", core).set("openblas_coretype_env", forced ? forced : "");
    j.set("cblas_dgemm_from", provider(reinterpret_cast<void*>(&cblas_dgemm)));
    j.set("dpotrf_from", provider(dlsym(RTLD_DEFAULT, "dpotrf_")));
    j.set("loadavg", first_line("/proc/loadavg"));
    if (core == "Prescott" && cpu_has_avx512())
        std::cerr << "bench_direct: warning: OpenBLAS runs its generic Prescott kernels on an AVX-512 CPU; "
                     "set OPENBLAS_CORETYPE=SkylakeX for its real speed\n";
    return j;
}

}  // namespace

int main(int argc, char** argv) {
    tools::use_native_blas_kernels(argv);  // re-executes with OPENBLAS_CORETYPE when OpenBLAS fell back
    std::vector<std::string> specs;
    int repeats = 2;
    std::string ordering = "auto";
    std::string solvers = "gigasparse,cholmod,mumps,pardiso";
    direct::Structure structure = direct::Structure::spd;
    std::int64_t schur_size = 0, batch_count = 0;
    bool inverse_diagonal = false, mixed = false;
    const char* usage =
        "usage: bench_direct [--repeats R] [--ordering auto|amd|nd] [--solvers gigasparse,cholmod,mumps,pardiso]\n"
        "                    [--structure spd|symmetric|general] lap2d:300 lap3d:40 file.mtx ...\n"
        "--structure symmetric: LDLᵀ of symmetric indefinite input (gigasparse, MUMPS SYM=2, PARDISO mtype -2; no CHOLMOD)\n"
        "--structure general: LU (gigasparse, MUMPS SYM=0, PARDISO mtype 11; no CHOLMOD)\n"
        "--schur K: the Schur complement of the last K variables (lap3d:k with K = k*k: the last grid plane; kkt:n:m\n"
        "           with K = m: the constraint block); refactorize times include its extraction; no solve; no CHOLMOD\n"
        "--batch C: a uniform batch of C matrices on each input's pattern (off-diagonals scaled by 0.5..1 per item):\n"
        "           BatchDirectSolver vs item-by-item DirectSolver, MUMPS and PARDISO (one analysis, then factor +\n"
        "           solve per matrix); times summed over the batch; no CHOLMOD\n"
        "--inverse-diagonal: diag(A⁻¹) (of --structure's factorization: LLᵀ, LDLᵀ or LU) — gigasparse's selected inversion against MUMPS's selected\n"
        "           entries of A⁻¹ (ICNTL(30)); times of analysis, factorization and the inverse; the largest\n"
        "           relative difference of the two diagonals\n"
        "--mixed:   also gigasparse with factor_precision = single (float factor, refinement in double) and\n"
        "           PARDISO's single-precision mode (iparm[27] = 1: float throughout) beside the double runs\n";
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--help" || a == "-h") {
            std::cout << usage;
            return 0;
        }
        if (a == "--structure" && i + 1 < argc) {
            std::string v = argv[++i];
            if (v != "spd" && v != "symmetric" && v != "general") {
                std::cerr << usage;
                return 2;
            }
            structure = direct::parse_structure(v);
        } else if (a == "--repeats" && i + 1 < argc) repeats = std::stoi(argv[++i]);
        else if (a == "--ordering" && i + 1 < argc) ordering = argv[++i];
        else if (a == "--solvers" && i + 1 < argc) solvers = argv[++i];
        else if (a == "--schur" && i + 1 < argc) schur_size = std::stoll(argv[++i]);
        else if (a == "--batch" && i + 1 < argc) batch_count = std::stoll(argv[++i]);
        else if (a == "--inverse-diagonal") inverse_diagonal = true;
        else if (a == "--mixed") mixed = true;
        else specs.push_back(a);
    }
    if (specs.empty()) {
        std::cerr << usage;
        return 2;
    }
    auto wanted = [&](const char* name) { return ("," + solvers + ",").find(std::string(",") + name + ",") != std::string::npos; };
    int threads = omp_get_max_threads();
    tools::Json ctx = tools::run_context();
    ctx.set("blas", blas_context());
    std::string out = "{\"context\":" + ctx.str() + ",\"results\":[";
    for (std::size_t k = 0; k < specs.size(); ++k) {
        auto a = load(specs[k]);
        tools::Json row;
        row.set("matrix", specs[k]).set("n", a.nrows).set("nnz", static_cast<std::int64_t>(a.nnz()));
        row.set("loadavg_before", first_line("/proc/loadavg"));
        if (batch_count > 0) {
            const auto values = batch_values(a, batch_count);
            const int kind = structure == direct::Structure::spd ? 0 : structure == direct::Structure::symmetric ? 1 : 2;
            row.set("batch", batch_count).set("kind", kind == 0 ? "LLᵀ" : kind == 1 ? "LDLᵀ" : "LU");
            if (wanted("gigasparse")) row.set("gigasparse", run_gigasparse_batch(a, values, batch_count, repeats, structure));
            if (wanted("mumps")) row.set("mumps", to_json(bench::run_mumps_batch(a, values, batch_count, kind)));
            if (wanted("pardiso")) row.set("pardiso", to_json(bench::run_pardiso_batch(a, values, batch_count, threads, kind)));
            row.set("loadavg_after", first_line("/proc/loadavg"));
            if (k) out += ",";
            out += row.str();
            std::cerr << row.str() << "\n";
            continue;
        }
        if (inverse_diagonal) {
            row.set("inverse_diagonal", true);
            std::vector<double> ours;
            if (wanted("gigasparse")) {
                direct::DirectSolver<double, std::int64_t> s(structure);
                s.set_option("ordering", ordering);
                Timer t;
                s.analyze(a);
                const double analyze = t.lap();
                const bool ok = s.factorize(a) == direct::Status::success;
                const double factorize = t.lap();
                if (ok) ours = s.inverse_diagonal();
                const double inverse = t.lap();
                tools::Json g, gt;
                gt.set("analyze", analyze).set("factorize", factorize).set("inverse", inverse);
                g.set("ok", ok).set("ordering", s.ordering_used()).set("nnz_L", s.result("nnz_L")).set("times", gt);
                row.set("gigasparse", g);
            }
            if (wanted("mumps")) {
                const int kind = structure == direct::Structure::spd ? 0 : structure == direct::Structure::symmetric ? 1 : 2;
                const auto m = bench::run_mumps_inverse_diagonal(a, kind);
                tools::Json mj, mt;
                mt.set("analyze", m.analyze).set("factorize", m.factorize).set("inverse", m.inverse);
                mj.set("available", m.available).set("ok", m.ok).set("times", mt);
                if (!m.error.empty()) mj.set("error", m.error);
                if (m.ok && !ours.empty()) mj.set("diagonal_vs_gigasparse", diag_difference(m.diagonal, ours));
                row.set("mumps", mj);
            }
            row.set("loadavg_after", first_line("/proc/loadavg"));
            if (k) out += ",";
            out += row.str();
            std::cerr << row.str() << "\n";
            continue;
        }
        std::vector<std::int64_t> schur;
        for (std::int64_t v = std::max<std::int64_t>(a.nrows - schur_size, 0); schur_size > 0 && v < a.nrows; ++v) schur.push_back(v);
        const std::vector<std::int64_t>* sp = schur.empty() ? nullptr : &schur;
        if (sp) row.set("schur_size", static_cast<std::int64_t>(schur.size()));
        std::vector<double> schur_diag;
        if (wanted("cholmod") && structure == direct::Structure::spd && !sp) {
            bench::CholmodResult c = bench::run_cholmod(a, "default", repeats);
            tools::Json cj, ct;
            ct.set("analyze", c.analyze).set("factorize", c.factorize).set("refactorize", c.refactorize).set("solve", c.solve);
            ct.set("refactorize_cpu", c.refactorize_cpu);
            cj.set("ordering", c.ordering).set("nnz_L", c.nnz_L).set("flops", c.flops).set("residual", c.residual)
                .set("gflops_per_s", c.flops / c.refactorize * 1e-9).set("times", ct);
            row.set("cholmod", cj);
            std::cerr << specs[k] << " cholmod " << c.refactorize << " s\n";
            if (wanted("gigasparse"))  // CHOLMOD's ordering: nnz(L) comparison
                row.set("gigasparse_cholmod_ordering", run_gigasparse(a, "user", 0, &c.perm, direct::Structure::spd));
        }
        if (wanted("gigasparse"))
            row.set("gigasparse", run_gigasparse(a, ordering, repeats, nullptr, structure, sp, &schur_diag));
        if (wanted("gigasparse") && mixed)
            row.set("gigasparse_single", run_gigasparse(a, ordering, repeats, nullptr, structure, sp, nullptr, "single"));
        const int kind = structure == direct::Structure::spd ? 0 : structure == direct::Structure::symmetric ? 1 : 2;
        const std::vector<double>* ref = sp && !schur_diag.empty() ? &schur_diag : nullptr;
        if (wanted("mumps")) row.set("mumps", to_json(bench::run_mumps(a, repeats, kind, sp), ref));
        if (wanted("pardiso")) row.set("pardiso", to_json(bench::run_pardiso(a, repeats, threads, kind, sp), ref));
        if (wanted("pardiso") && mixed)
            row.set("pardiso_single", to_json(bench::run_pardiso(a, repeats, threads, kind, sp, true), ref));
        row.set("loadavg_after", first_line("/proc/loadavg"));
        if (k) out += ",";
        out += row.str();
        std::cerr << row.str() << "\n";
    }
    out += "]}";
    std::cout << out << "\n";
    return 0;
}
