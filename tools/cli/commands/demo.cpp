// tools/cli/commands/demo.cpp: `gigasparse demo` — the main job on embedded defaults: generate, multiply, solve, check.
#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <gigasparse/core/timer.hpp>
#include <gigasparse/direct/solver.hpp>
#include <gigasparse/gen/generators.hpp>
#include <gigasparse/iterative/krylov.hpp>
#include <gigasparse/iterative/preconditioner.hpp>
#include <gigasparse/reference/kernels.hpp>
#include <gigasparse/spgemm.hpp>

#include "cli.hpp"

namespace gigasparse::cli {
namespace {

using Matrix = Csr<double, std::int32_t>;

// The human-readable report, printed at the end unless --json.
std::string report;

[[gnu::format(printf, 1, 2)]] void say(const char* format, ...) {
    char buf[512];
    va_list args;
    va_start(args, format);
    std::vsnprintf(buf, sizeof buf, format, args);
    va_end(args);
    report += buf;
}

std::int64_t max_row_length(const Matrix& a) {
    std::int64_t m = 0;
    for (std::int64_t i = 0; i < a.nrows; ++i) m = std::max<std::int64_t>(m, a.row_ptr[i + 1] - a.row_ptr[i]);
    return m;
}

// Largest |x - y| relative to the largest |y| (0 for empty vectors).
double relative_difference(std::span<const double> x, std::span<const double> y) {
    double diff = 0, scale = 0;
    for (std::size_t i = 0; i < y.size(); ++i) {
        diff = std::max(diff, std::abs(x[i] - y[i]));
        scale = std::max(scale, std::abs(y[i]));
    }
    return scale > 0 ? diff / scale : diff;
}

struct SpgemmPart {
    Json json;
    bool ok = true;
};

SpgemmPart run_spgemm(int scale, double edge_factor, std::uint64_t seed, Progress& progress) {
    progress.step("generating R-MAT graph");
    Timer t;
    const auto a = gen::rmat<double, std::int32_t>({.scale = scale, .edge_factor = edge_factor, .seed = seed});
    const double t_gen = t.lap();
    progress.step("C = A*A with MAGNUS (cpu)");
    SpgemmStats stats;
    const auto c = multiply<double, std::int32_t>(a.view(), a.view(), {}, &stats);
    const double t_mul = t.lap();
    progress.step("C = A*A with the reference backend (check)");
    const auto ref = reference::spgemm<double, std::int32_t>(a.view(), a.view());
    const double t_ref = t.lap();
    const bool same_pattern = c.row_ptr == ref.row_ptr && c.col_idx == ref.col_idx;
    const double diff = same_pattern ? relative_difference(c.values, ref.values) : INFINITY;
    SpgemmPart part;
    part.ok = same_pattern && diff <= 1e-12;
    const double gflops = 2.0 * static_cast<double>(stats.products) / std::max(stats.total_seconds(), 1e-12) * 1e-9;
    say("SpGEMM  C = A*A, A = R-MAT scale %d, edge factor %g (Graph500 a=0.57 b=c=0.19, seed %llu)\n", scale, edge_factor,
                static_cast<unsigned long long>(seed));
    say("  A          %s x %s, nnz %s, max row %s (generated in %s)\n", format_count(a.nrows).c_str(), format_count(a.ncols).c_str(),
                format_count(a.nnz()).c_str(), format_count(max_row_length(a)).c_str(), format_seconds(t_gen).c_str());
    say("  C          nnz %s, %s products (%.2f GFLOP/s)\n", format_count(c.nnz()).c_str(), format_count(stats.products).c_str(), gflops);
    say("  MAGNUS     %s on %d threads (setup %s, symbolic %s, numeric %s)\n", format_seconds(t_mul).c_str(), stats.threads,
                format_seconds(stats.setup_seconds).c_str(), format_seconds(stats.symbolic_seconds).c_str(),
                format_seconds(stats.numeric_seconds).c_str());
    say("  rows by category: sort %s, dense %s, fine %s, coarse %s\n", format_count(stats.category_rows[0]).c_str(),
                format_count(stats.category_rows[1]).c_str(), format_count(stats.category_rows[2]).c_str(),
                format_count(stats.category_rows[3]).c_str());
    say("  reference  %s (MAGNUS speedup %.1fx); check: %s (max relative difference %.1e)\n\n", format_seconds(t_ref).c_str(),
                t_ref / std::max(t_mul, 1e-12), part.ok ? "PASS, same pattern" : "FAIL", diff);
    Json times;
    times.set("generate", t_gen).set("multiply", t_mul).set("reference", t_ref).set("total", t_gen + t_mul + t_ref);
    part.json.set("a_rows", a.nrows).set("a_nnz", a.nnz()).set("c_nnz", c.nnz()).set("products", stats.products);
    part.json.set("gflops", gflops).set("threads", stats.threads).set("max_relative_difference", diff).set("check", part.ok).set("times", times);
    return part;
}

struct SolvePart {
    Json json;
    bool ok = true;
};

SolvePart run_solvers(std::int64_t n, Progress& progress) {
    progress.step("generating 3D Poisson problem");
    Timer t;
    const Matrix a = gen::poisson3d<double, std::int32_t>(n, n, n, 7);
    const std::vector<double> ones(static_cast<std::size_t>(a.nrows), 1.0);
    std::vector<double> b(ones.size());
    reference::spmv<double, std::int32_t>(a.view(), ones, b);  // b = A * ones, so x = ones
    const double t_gen = t.lap();

    progress.step("IC(0)-preconditioned CG");
    iterative::PrecondOptions popt;
    popt.kind = iterative::PrecondKind::ic0;
    popt.ordering.kind = iterative::OrderingKind::multicolor;
    const auto m = iterative::make_preconditioner<double, std::int32_t>(a.view(), popt);
    const double t_setup = t.lap();
    std::vector<double> x_cg(ones.size(), 0.0);
    iterative::SolverOptions sopt;
    sopt.tol = 1e-10;
    const auto op = iterative::csr_operator<double, std::int32_t>(a.view(), iterative::Backend::omp);
    const auto result = iterative::cg<double>(op, b, x_cg, m.get(), sopt);
    const double t_cg = t.lap();
    const double res_cg = true_residual<double>(a, b, x_cg);

    progress.step("multifrontal Cholesky");
    direct::DirectSolver<double, std::int32_t> solver(direct::Structure::spd);
    solver.analyze(a.view());
    const double t_analyze = t.lap();
    const auto status = solver.factorize(a.view());
    const double t_factor = t.lap();
    std::vector<double> x_direct(ones.size(), 0.0);
    direct::SolveInfo info;
    if (status == direct::Status::success) info = solver.solve(b, x_direct);
    const double t_solve = t.lap();
    const double res_direct = true_residual<double>(a, b, x_direct);
    const double err_cg = relative_difference(x_cg, ones), err_direct = relative_difference(x_direct, ones);

    SolvePart part;
    part.ok = result.converged && status == direct::Status::success && res_cg <= 1e-9 && res_direct <= 1e-12 && err_cg <= 1e-6 &&
              err_direct <= 1e-10;
    say("Solve   A x = b, A = 3D Poisson %lldx%lldx%lld (7-point), %s unknowns, nnz %s, b = A*ones\n", static_cast<long long>(n),
                static_cast<long long>(n), static_cast<long long>(n), format_count(a.nrows).c_str(), format_count(a.nnz()).c_str());
    say("  IC(0)-PCG  multicolor ordering, depth %lld: %lld iterations, setup %s, solve %s, residual %.1e, max error %.1e\n",
                static_cast<long long>(m->info().depth), static_cast<long long>(result.iterations), format_seconds(t_setup).c_str(),
                format_seconds(t_cg).c_str(), res_cg, err_cg);
    say("  Cholesky   %s ordering, nnz(L) %s, %.3g Gflop: analyze %s, factorize %s, solve %s, residual %.1e, max error %.1e\n",
                solver.ordering_used().c_str(), format_count(static_cast<std::int64_t>(solver.result("nnz_L"))).c_str(),
                solver.result("flops") * 1e-9, format_seconds(t_analyze).c_str(), format_seconds(t_factor).c_str(),
                format_seconds(t_solve).c_str(), res_direct, err_direct);
    say("  check: %s (residuals from the reference SpMV; exact solution is all ones)\n", part.ok ? "PASS" : "FAIL");
    Json cg;
    cg.set("iterations", result.iterations).set("converged", result.converged).set("residual", res_cg).set("depth", m->info().depth);
    cg.set("times", Json().set("setup", t_setup).set("solve", t_cg).set("total", t_setup + t_cg));
    Json chol;
    chol.set("status", direct::to_string(status)).set("ordering", solver.ordering_used()).set("nnz_L", solver.result("nnz_L"));
    chol.set("residual", res_direct).set("times", Json().set("analyze", t_analyze).set("factorize", t_factor).set("solve", t_solve).set("total", t_analyze + t_factor + t_solve));
    part.json.set("n", a.nrows).set("nnz", a.nnz()).set("pcg", cg).set("cholesky", chol).set("check", part.ok);
    part.json.set("times", Json().set("generate", t_gen).set("total", t_gen + t_setup + t_cg + t_analyze + t_factor + t_solve));
    return part;
}

int run_demo(const Args& args) {
    args.expect_only({"scale", "edge-factor", "n", "seed"});
    const auto scale = static_cast<int>(args.get_int("scale", 14));
    const double edge_factor = args.get_double("edge-factor", 16);
    const std::int64_t n = args.get_int("n", 40);
    const auto seed = static_cast<std::uint64_t>(args.get_int("seed", 1));
    if (scale < 1 || scale > 24) throw UsageError("--scale must be in [1, 24]");
    if (n < 2 || n > 200) throw UsageError("--n must be in [2, 200]");
    const bool json = args.flag("json");
    Progress progress(!json);
    Timer total;
    const auto sp = run_spgemm(scale, edge_factor, seed, progress);
    const auto so = run_solvers(n, progress);
    progress.done();
    const bool ok = sp.ok && so.ok;
    if (json) {
        std::cout << Json().set("spgemm", sp.json).set("solve", so.json).set("check", ok).set("times", Json().set("total", total.seconds())).str()
                  << "\n";
    } else {
        say("\ndemo %s in %s\n", ok ? "passed" : "FAILED", format_seconds(total.seconds()).c_str());
        std::cout << report;
    }
    return ok ? exit_ok : exit_numerical;
}

const bool registered = register_command(
    {"demo", "generate an R-MAT graph and a 3D Poisson problem, multiply, solve, and check against the reference",
     "usage: gigasparse demo [--scale S] [--edge-factor E] [--n N] [--seed K] [--json]\n\n"
     "Generates an R-MAT graph (2^S vertices, default S=14, E=16) and computes C = A*A with MAGNUS on all\n"
     "threads, checked against the reference backend; then generates a 3D Poisson problem (N^3 unknowns,\n"
     "default N=40) with exact solution ones and solves it with IC(0)-preconditioned CG and with the\n"
     "multifrontal Cholesky solver, checking residuals with the reference SpMV. Exit code 1 when a check fails.\n",
     {},
     run_demo});

}  // namespace
}  // namespace gigasparse::cli
