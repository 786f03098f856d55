// bench/direct_cuda/bench_direct_cuda.cpp: the direct solver's large fronts on the GPU (DirectSolver option
// backend = cuda: LLᵀ fronts of at least gpu_front_rows rows factored by cuSOLVER potrf, cuBLAS trsm and syrk;
// LU fronts by cuSOLVER getrf, cuBLAS trsm and gemm; LDLᵀ fronts in blocks (each block's Bunch–Kaufman tests on
// the host, cuBLAS trsm, gemm and syrkx); each front assembled on the host or on the device from A's entries, contribution
// blocks kept on the device for an offloaded parent) against backend cpu (all host threads), double
// values and int32 columns, ordering nd; structure spd, symmetric (LDLᵀ) for the indefinite cases, general
// (LU) for the unsymmetric ones.
//
// Usage: bench_direct_cuda OUTDIR [--repeats N] [--time-budget SECONDS] [--quick]
//        bench_direct_cuda --cudss-probe     (loads cuDSS as a run would: prints its version, exit 1 when unusable)
//
// Competitor: NVIDIA cuDSS (cudss.hpp), when it loads (GIGASPARSE_CUDSS_LIB, else libcudss.so.0; cuDSS 0.7, pinned
// by scripts/device-bundle): per case its analysis (its own reordering), a factorization, the same number of
// refactorizations (values already on the device: its best case) and a solve; matrix type SPD / SYMMETRIC (lower
// triangle) / GENERAL as our structure. vs cudss = cuDSS's best refactorization / the best cuda variant's; a cuDSS
// failure, nonzero info or residual above 1e-10 where cpu solved is a cudss mismatch (counted apart: a competitor's).
//
// Inputs, smallest first (by nonzeros): Poisson 3D 7-point 40^3, 60^3, 80^3, 100^3 (gen::poisson3d) and the
// shared SPD matrices: MANIFEST.tsv in $GIGASPARSE_MATRIX_DIR (else the configured folder), square, kind spd
// (without a kind column: a symmetric header and a positive diagonal, as bench_krylov_cuda's CG candidates),
// real values (pattern files are left out: their values 1 are not SPD), more than 200k nonzeros once the
// symmetric halves are expanded. Indefinite (structure symmetric, LDLᵀ with Bunch–Kaufman pivots in the
// fronts): Poisson 3D 40^3 and 60^3 shifted by -0.5 (indefinite, regular). Unsymmetric (structure general,
// LU): the same grids with the entries above the diagonal scaled by 1.5. --quick: Poisson 40^3 only. Cases not started within the time budget are
// listed as skipped; a case once started runs all its variants (after the budget, each remaining variant
// times one refactorization instead of N). After the analysis, a case's time is predicted from its flops at
// the seconds per flop of the last case of at least 1 GFLOP: when it would end more than 10 s after the
// budget, each variant times one refactorization, and when even that would, the case is skipped (listed with
// the predicted seconds); a larger Poisson grid is predicted before its analysis too (half the last grid's
// flops scaled by k^6: a lower bound).
//
// Per case: analyze once (ordering nd), then with the same solver the variants cpu and cuda with
// gpu_front_rows 1024, 2048 (also with gpu_assembly = host: cuda@2048/host) and 4096, in that order. Each: factorize (timed alone: first_s, which holds the
// allocation and, for the first cuda variant of the case, the cuBLAS/cuSOLVER set-up), then N refactorize
// calls with the same values (best of them: best_s); the solver's gpu_* results of the last one, nnz_L and
// flops (the analysis' Σ c_j², the count gpu_flops uses too: w³/3 + m w² + m² w per front); GFLOP/s =
// flops / best_s. expected_gpu_fronts: the analysis' fronts of at least gpu_front_rows rows (what the offload
// should get). Then one solve of b = A * ones with that factor (SolveInfo: status, refinement steps,
// residual ||b - A x||_2 / ||b||_2, backward error), the max error |x_i - 1| and, for cuda, the max
// difference to the cpu factor's x. Speedup: cpu best_s / the best cuda best_s over the thresholds.
// A mismatch is a cuda variant whose factorization status or solve status differs from cpu's, or whose solve
// residual is above 1e-10 (or not finite); a failure is an exception (loading, analysis, a variant's
// factorizations or its solve), recorded and the run goes on.
//
// Writes OUTDIR/direct_cuda.json and OUTDIR/direct_cuda_summary.txt (table; last line
// "result: failures=N mismatches=N ...") after every case and prints the summary at the end. Exit status: 0
// after the run, 1 without a CUDA device ("no CUDA device available"), 2 for a usage error.
#include <omp.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <gigasparse/core/matrix.hpp>
#include <gigasparse/core/timer.hpp>
#include <gigasparse/cuda/device.hpp>
#include <gigasparse/direct/solver.hpp>
#include <gigasparse/gen/generators.hpp>
#include <gigasparse/io/matrix_market.hpp>

#include "common/blas_kernels.hpp"
#include "common/bench_files.hpp"
#include "common/context.hpp"
#include "common/json.hpp"
#include "cudss.hpp"

namespace gs = gigasparse;
namespace dr = gigasparse::direct;
using gs::tools::Json;
using V = double;
using I = std::int32_t;
using Mat = gs::Csr<V, I>;
using Solver = dr::DirectSolver<V, I>;

namespace {

constexpr double residual_tol = 1e-10;  // a cuda factor's solve residual above this is a mismatch
constexpr std::int64_t min_shared_nnz = 200000;
constexpr std::array<std::int64_t, 3> thresholds{1024, 2048, 4096};
// and one more variant: thresholds[host_assembled] with option gpu_assembly = host (every front's panel assembled on
// the host and uploaded; the others: auto, mostly on the device): what the device assembly saves
constexpr std::size_t host_assembled = 1;
constexpr std::size_t cuda_variants = thresholds.size() + 1;
constexpr std::array<int, 4> poisson_sizes{40, 60, 80, 100};
constexpr std::array<int, 2> indefinite_sizes{40, 60};
constexpr double unsymmetric_scale = 1.5;
constexpr double indefinite_shift = 0.5;  // inside the 7-point Laplacian's spectrum (0.02 .. 12 at 40^3), on no eigenvalue
constexpr double prediction_min_flops = 1e9;  // smaller cases are overhead-dominated: no prediction from them
constexpr double prediction_slack_s = 10;     // a case predicted to end later than this past the budget is not run

__attribute__((format(printf, 1, 2))) std::string fmt(const char* f, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, f);
    std::vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    return buf;
}

std::string failed(const std::exception& e) { return std::string("failed: ") + e.what(); }

// ---------------------------------------------------------------- results
struct Variant {
    std::string backend;             // cpu or cuda
    std::int64_t gpu_front_rows = 0;  // cuda: the threshold
    std::string assembly = "auto";    // cuda: option gpu_assembly
    std::string status = "not run";   // "ok" (whatever the factorization's outcome) or "failed: ..."
    std::string factor_status;        // dr::to_string(Status) of the factorizations
    double first_s = -1, best_s = -1;
    std::vector<double> runs_s;       // the refactorizations
    double gpu_fronts = 0, gpu_flops = 0, gpu_bytes = 0, gpu_seconds = 0, gpu_kept_blocks = 0, gpu_kept_bytes = 0, gpu_peak_bytes = 0;
    double gpu_device_assembled = 0, gpu_too_large = 0;
    std::int64_t expected_gpu_fronts = 0;
    double expected_gpu_flops = 0;
    std::string solve_status = "not run";  // "ok", "failed: ...", or why there was no solve
    dr::SolveInfo info;
    double solve_s = -1, max_error = -1, diff_vs_cpu = -1;
    std::string mismatch;  // empty: none
    bool ok() const { return status == "ok"; }
    bool timed() const { return ok() && best_s > 0; }
    bool solved() const { return solve_status == "ok"; }
    std::string label() const {
        return backend == "cpu" ? std::string("cpu") : "cuda@" + std::to_string(gpu_front_rows) + (assembly == "auto" ? "" : "/" + assembly);
    }
};

struct Case {
    std::string name, set, source, structure = "spd";
    std::string status = "ok";  // "failed: ..." when loading or the analysis failed
    std::int64_t n = 0, nnz = 0, supernodes = 0, max_front_rows = 0;
    double nnz_L = 0, flops = 0, load_s = 0, analyze_s = 0, wall_s = 0;
    std::string ordering_used;
    int host_threads = 0, repeats = 0;  // repeats: the refactorizations per variant planned (1 when time was short)
    std::vector<Variant> variants;  // cpu, then cuda per threshold
    gs::bench::CudssRun cudss;      // NVIDIA cuDSS on the same matrix ("not run" without the library)
    double cudss_residual = -1, cudss_max_error = -1;
    std::string cudss_mismatch;  // cuDSS failed or solved worse than residual_tol where cpu succeeded (empty: none)
    bool cudss_timed() const { return cudss.ok() && cudss.info == 0 && cudss.best_s > 0; }
    // cuDSS's best refactorization over the best cuda variant's (> 1: gigasparse faster)
    double speedup_vs_cudss() const {
        const Variant* g = best_cuda();
        return g && cudss_timed() ? cudss.best_s / g->best_s : 0;
    }
    const Variant* cpu() const { return variants.empty() ? nullptr : &variants[0]; }
    // the cuda variant with the least best_s (null: none timed)
    const Variant* best_cuda() const {
        const Variant* b = nullptr;
        for (const Variant& v : variants)
            if (v.backend == "cuda" && v.timed() && (!b || v.best_s < b->best_s)) b = &v;
        return b;
    }
    double speedup() const {
        const Variant* c = cpu();
        const Variant* g = best_cuda();
        return c && g && c->timed() ? c->best_s / g->best_s : 0;
    }
};

struct Run {
    gs::tools::BenchArgs args = {"", 3, 1e9, false};  // outdir, repeats, time budget (s), quick
    std::string matrix_dir;
    Json context;
    std::string device = "unknown", driver = "unknown", runtime = "unknown", cublas = "unknown", cusolver = "unknown", cpu = "unknown";
    int host_threads = 0;
    // seconds per flop of one factorization (all variants' factorizations averaged) in the last finished case
    // of at least prediction_min_flops: a new case's time is predicted from its flops with it
    double seconds_per_flop = 0;
    int last_poisson = 0;  // the last analyzed Poisson grid (points per side) and its flops
    double last_poisson_flops = 0;
    std::vector<Case> cases;
    std::vector<std::string> skipped;
    gs::bench::CudssLibrary cudss;  // ok(): every case also runs cuDSS
};

struct Tally {
    std::int64_t failures = 0, mismatches = 0, front_count_differs = 0, speedups = 0;
    double log_speedup = 0;
    std::int64_t cudss_cases = 0, cudss_mismatches = 0;  // cases with a speedup vs cuDSS; cuDSS failures/inaccurate solves
    double log_speedup_vs_cudss = 0;
};

Tally tally(const Run& run) {
    Tally t;
    for (const Case& c : run.cases) {
        if (c.status != "ok") ++t.failures;
        for (const Variant& v : c.variants) {
            if (v.status.rfind("failed", 0) == 0) ++t.failures;
            if (v.solve_status.rfind("failed", 0) == 0) ++t.failures;
            if (!v.mismatch.empty()) ++t.mismatches;
            if (v.backend == "cuda" && v.ok() && static_cast<std::int64_t>(v.gpu_fronts) != v.expected_gpu_fronts) ++t.front_count_differs;
        }
        const Variant* g = c.best_cuda();
        if (c.speedup() > 0 && g && g->gpu_fronts > 0) {
            ++t.speedups;
            t.log_speedup += std::log(c.speedup());
        }
        if (c.speedup_vs_cudss() > 0) {
            ++t.cudss_cases;
            t.log_speedup_vs_cudss += std::log(c.speedup_vs_cudss());
        }
        if (!c.cudss_mismatch.empty()) ++t.cudss_mismatches;
    }
    return t;
}

// ---------------------------------------------------------------- inputs
struct Spec {
    std::string set, name;
    int size = 0;             // poisson: grid points per side
    std::string file;         // shared: file name in the matrix folder
    bool by_kind = false;     // shared: the manifest says spd (else: checked after reading)
    std::int64_t estimate = 0;  // nonzeros, for the order
    std::string structure = "spd";  // "spd" (LLᵀ), "sym" (LDLᵀ: the indefinite set), "gen" (LU: the unsymmetric set)
};

// Square, real, kind spd (or no kind column), possibly more than min_shared_nnz nonzeros (stored entries,
// twice that when a triangle is stored; the exact count is checked after reading).
std::vector<Spec> shared_specs(const std::string& dir) {
    std::vector<Spec> out;
    for (const auto& f : gs::tools::read_manifest_rows(dir, "bench_direct_cuda")) {
        if (f.size() < 8) continue;
        try {
            const std::int64_t stored = std::stoll(f[5]);
            const bool half = f[6] != "general";
            const std::int64_t estimate = half ? 2 * stored : stored;
            const bool has_kind = f.size() > 8 && !f[8].empty();
            if (f[3] != f[4] || f[7] == "complex" || f[7] == "pattern" || estimate <= min_shared_nnz) continue;
            if (has_kind && f[8] != "spd") continue;
            if (!has_kind && !half) continue;
            out.push_back({"shared", f[1], 0, f[0], has_kind, estimate});
        } catch (const std::exception&) {
            continue;
        }
    }
    return out;
}

// Loads or generates the case's matrix; false when it is not a case after all.
bool load(const Spec& sp, const std::string& dir, Case& c, Mat& a) {
    const gs::Timer t;
    if (sp.set == "poisson") {
        a = gs::gen::poisson3d<V, I>(sp.size, sp.size, sp.size);
        c.source = "gen::poisson3d(" + std::to_string(sp.size) + "^3, 7-point)";
    } else if (sp.set == "indefinite") {
        a = gs::gen::poisson3d<V, I>(sp.size, sp.size, sp.size);
        for (std::int64_t r = 0; r < a.nrows; ++r)
            for (gs::offset_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
                if (a.col_idx[k] == r) a.values[k] -= indefinite_shift;
        c.source = "gen::poisson3d(" + std::to_string(sp.size) + "^3, 7-point) - " + fmt("%g", indefinite_shift) + " I";
    } else if (sp.set == "unsymmetric") {
        a = gs::gen::poisson3d<V, I>(sp.size, sp.size, sp.size);
        for (std::int64_t r = 0; r < a.nrows; ++r)
            for (gs::offset_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
                if (a.col_idx[k] > r) a.values[k] *= unsymmetric_scale;
        c.source = "gen::poisson3d(" + std::to_string(sp.size) + "^3, 7-point), upper entries x " + fmt("%g", unsymmetric_scale);
    } else {
        const std::string path = dir + "/" + sp.file;
        const bool symmetric = gs::io::read_mtx_header(path).symmetry == gs::Symmetry::symmetric;
        a = gs::io::read_mtx<V, I>(path);
        c.source = sp.file;
        if (a.nnz() <= min_shared_nnz) {
            std::fprintf(stderr, "bench_direct_cuda: %s has %lld nonzeros (not more than %lld): not a case\n", sp.name.c_str(), static_cast<long long>(a.nnz()),
                         static_cast<long long>(min_shared_nnz));
            return false;
        }
        if (!sp.by_kind && !(symmetric && gs::tools::positive_diagonal(a.view()))) {
            std::fprintf(stderr, "bench_direct_cuda: %s is not symmetric with a positive diagonal: not a case\n", sp.name.c_str());
            return false;
        }
    }
    c.load_s = t.seconds();
    return true;
}

// ---------------------------------------------------------------- a case
std::vector<V> multiply_ones(const Mat& a) {
    std::vector<V> b(static_cast<std::size_t>(a.nrows));
    for (std::int64_t r = 0; r < a.nrows; ++r) {
        V s = 0;
        for (gs::offset_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) s += a.values[k];
        b[static_cast<std::size_t>(r)] = s;
    }
    return b;
}

double max_abs_diff(const std::vector<V>& x, const std::vector<V>& y) {
    double w = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double d = std::abs(x[i] - y[i]);
        if (!std::isfinite(d)) return std::numeric_limits<double>::quiet_NaN();
        w = std::max(w, d);
    }
    return w;
}

// ||b - A x||_2 / ||b||_2 (NaN when not finite)
double relative_residual(const Mat& a, const std::vector<V>& x, const std::vector<V>& b) {
    double rr = 0, bb = 0;
    for (std::int64_t r = 0; r < a.nrows; ++r) {
        V s = b[static_cast<std::size_t>(r)];
        for (gs::offset_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) s -= a.values[k] * x[static_cast<std::size_t>(a.col_idx[k])];
        rr += s * s;
        bb += b[static_cast<std::size_t>(r)] * b[static_cast<std::size_t>(r)];
    }
    const double res = std::sqrt(rr) / (bb > 0 ? std::sqrt(bb) : 1.0);
    return std::isfinite(res) ? res : std::numeric_limits<double>::quiet_NaN();
}

// The factorizations of one variant on the analyzed solver, then its solve (x: the solution, empty when none).
void run_variant(Solver& s, const Mat& a, const std::vector<V>& b, Variant& v, int repeats, std::vector<V>& x) {
    x.clear();
    try {
        s.set_option("backend", v.backend);
        if (v.backend == "cuda") {
            s.set_option("gpu_front_rows", std::to_string(v.gpu_front_rows));
            s.set_option("gpu_assembly", v.assembly);
        }
        gs::Timer t;
        dr::Status st = s.factorize(a.view());
        v.first_s = t.seconds();
        v.factor_status = dr::to_string(st);
        if (st == dr::Status::success) {
            for (int r = 0; r < repeats; ++r) {
                t.reset();
                const dr::Status st2 = s.refactorize(a.values);
                v.runs_s.push_back(t.seconds());
                if (st2 != st) {
                    v.factor_status += std::string(", then ") + dr::to_string(st2);
                    st = st2;
                    break;
                }
            }
        }
        // a failed factorization is not refactorized: its one time stands
        v.best_s = v.runs_s.empty() ? v.first_s : *std::min_element(v.runs_s.begin(), v.runs_s.end());
        if (v.backend == "cuda") {
            v.gpu_fronts = s.result("gpu_fronts");
            v.gpu_flops = s.result("gpu_flops");
            v.gpu_bytes = s.result("gpu_bytes");
            v.gpu_seconds = s.result("gpu_seconds");
            v.gpu_kept_blocks = s.result("gpu_kept_blocks");
            v.gpu_kept_bytes = s.result("gpu_kept_bytes");
            v.gpu_device_assembled = s.result("gpu_device_assembled");
            v.gpu_too_large = s.result("gpu_too_large");
            v.gpu_peak_bytes = s.result("gpu_peak_bytes");
        }
        v.status = "ok";
        if (st != dr::Status::success) {
            v.solve_status = std::string("no solve (") + dr::to_string(st) + ")";
            return;
        }
    } catch (const std::exception& e) {
        v.status = failed(e);
        v.solve_status = "no solve (no factor)";
        return;
    }
    try {
        std::vector<V> y(b.size(), 0.0);
        const gs::Timer t;
        v.info = s.solve(b, y);
        v.solve_s = t.seconds();
        double err = 0;
        for (const V xi : y) {
            const double d = std::abs(xi - 1.0);
            if (!std::isfinite(d)) {
                err = std::numeric_limits<double>::quiet_NaN();
                break;
            }
            err = std::max(err, d);
        }
        v.max_error = err;
        v.solve_status = "ok";
        x = std::move(y);
    } catch (const std::exception& e) {
        v.solve_status = failed(e);
    }
}

// cuda variant v against the cpu variant c: the mismatch text (empty: none).
std::string compare(const Variant& v, const Variant& c) {
    if (!v.ok()) return "";
    if (c.ok() && v.factor_status != c.factor_status) return "factorization status " + v.factor_status + " (cpu " + c.factor_status + ")";
    if (!v.solved()) return "";
    if (c.solved() && v.info.status != c.info.status)
        return std::string("solve status ") + dr::to_string(v.info.status) + " (cpu " + dr::to_string(c.info.status) + ")";
    if (!(v.info.residual <= residual_tol)) return fmt("solve residual %.2e above %.0e", v.info.residual, residual_tol);
    return "";
}

// Runs the case; false: skipped after its analysis (its predicted time does not fit; the reason in `why`).
bool run_case(Case& c, const Mat& a, Run& run, const gs::Timer& clock, std::string& why) {
    const gs::Timer wall;
    c.n = a.nrows;
    c.nnz = a.nnz();
    c.host_threads = run.host_threads;
    const bool ldlt = c.structure == "sym", lu = c.structure == "gen";
    Solver s(ldlt ? dr::Structure::symmetric : lu ? dr::Structure::general : dr::Structure::spd);
    s.set_option("ordering", "nd");
    s.set_option("threads", std::to_string(run.host_threads));
    const gs::Timer t;
    s.analyze(a.view());
    c.analyze_s = t.seconds();
    c.ordering_used = s.ordering_used();
    c.nnz_L = s.result("nnz_L");
    c.flops = s.result("flops");
    if (c.set == "poisson") {
        run.last_poisson = static_cast<int>(std::lround(std::cbrt(static_cast<double>(c.n))));
        run.last_poisson_flops = c.flops;
    }
    c.supernodes = static_cast<std::int64_t>(s.result("supernodes"));
    const dr::Symbolic& sym = s.symbolic();
    std::array<std::int64_t, thresholds.size()> fronts{};
    std::array<double, thresholds.size()> front_flops{};
    for (dr::idx sn = 0; sn < sym.nsuper; ++sn) {
        const std::int64_t f = sym.front_rows(sn), w = sym.width(sn), m = f - w;
        c.max_front_rows = std::max(c.max_front_rows, f);
        // LLᵀ and LDLᵀ: the whole front on the GPU (LDLᵀ's pivot tests on the host); LU: the whole front
        // (2 w³/3 + 2 m w² + 2 m² w; F11 comes back to the host only where a pivot needs perturbing)
        const double wd = static_cast<double>(w), below = static_cast<double>(m) * wd * static_cast<double>(f);
        const double fl = lu ? 2 * wd * wd * wd / 3 + 2 * below
                          : static_cast<std::size_t>(sn) < sym.sn_flops.size() ? sym.sn_flops[static_cast<std::size_t>(sn)]
                                                                                : 0.0;
        for (std::size_t k = 0; k < thresholds.size(); ++k)
            if (f >= thresholds[k]) {
                ++fronts[k];
                front_flops[k] += fl;
            }
    }
    std::fprintf(stderr, "%8.1f s  %s: analyzed in %.2f s (%s), nnz(L) %.3g, %.3g GFLOP, largest front %lld rows\n", clock.seconds(), c.name.c_str(), c.analyze_s,
                 c.ordering_used.c_str(), c.nnz_L, c.flops * 1e-9, static_cast<long long>(c.max_front_rows));
    // all factorizations of the case (4 variants, each 1 + repeats) at the rate of the last large case; when that
    // would end more than prediction_slack_s past the budget: one refactorization per variant, or not at all
    int repeats = run.args.repeats;
    if (run.seconds_per_flop > 0) {
        const double nvar = 1.0 + static_cast<double>(cuda_variants) + (run.cudss.ok() ? 1 : 0);
        const auto predicted = [&](int r) { return run.seconds_per_flop * c.flops * nvar * (1 + r); };
        const double end = run.args.time_budget + prediction_slack_s - clock.seconds();
        if (predicted(repeats) > end) repeats = 1;
        if (predicted(repeats) > end) {
            why = fmt("predicted %.0f s", predicted(repeats));
            std::fprintf(stderr, "%8.1f s  %s: skipped, %s (%.0f s left of the time budget)\n", clock.seconds(), c.name.c_str(), why.c_str(),
                         run.args.time_budget - clock.seconds());
            return false;
        }
        if (repeats != run.args.repeats)
            std::fprintf(stderr, "%8.1f s  %s: one refactorization per variant (predicted %.0f s with %d)\n", clock.seconds(), c.name.c_str(),
                         predicted(run.args.repeats), run.args.repeats);
    }
    c.repeats = repeats;
    const std::vector<V> b = multiply_ones(a);
    c.variants.clear();
    Variant cpu;
    cpu.backend = "cpu";
    c.variants.push_back(cpu);
    for (std::size_t k = 0; k < thresholds.size(); ++k) {
        Variant g;
        g.backend = "cuda";
        g.gpu_front_rows = thresholds[k];
        g.expected_gpu_fronts = fronts[k];
        g.expected_gpu_flops = front_flops[k];
        c.variants.push_back(g);
        if (k == host_assembled) {
            g.assembly = "host";
            c.variants.push_back(g);
        }
    }
    std::vector<V> x_cpu, x;
    for (std::size_t i = 0; i < c.variants.size(); ++i) {
        Variant& v = c.variants[i];
        run_variant(s, a, b, v, clock.seconds() > run.args.time_budget ? 1 : repeats, i == 0 ? x_cpu : x);
        if (i > 0) {
            if (!x.empty() && !x_cpu.empty()) v.diff_vs_cpu = max_abs_diff(x, x_cpu);
            v.mismatch = compare(v, c.variants[0]);
        }
        std::fprintf(stderr, "%8.1f s    %-10s %s: %s first %.3f s best %.3f s, %g GPU fronts (%.0f%% of flops), residual %.2e%s%s\n", clock.seconds(),
                     v.label().c_str(), v.status.c_str(), v.factor_status.c_str(), v.first_s, v.best_s, v.gpu_fronts,
                     c.flops > 0 ? 100.0 * v.gpu_flops / c.flops : 0.0, v.solved() ? v.info.residual : -1.0, v.mismatch.empty() ? "" : ", MISMATCH: ",
                     v.mismatch.c_str());
    }
    if (run.cudss.ok()) {
        // the competitor: its own analysis (reordering, symbolic), one factorization, the same refactorizations
        const auto st = ldlt ? gs::bench::CudssStructure::symmetric : lu ? gs::bench::CudssStructure::general : gs::bench::CudssStructure::spd;
        c.cudss = gs::bench::run_cudss(run.cudss, a.view(), st, b, clock.seconds() > run.args.time_budget ? 1 : repeats);
        const Variant& cp = c.variants[0];
        if (!c.cudss.x.empty()) {
            c.cudss_residual = relative_residual(a, c.cudss.x, b);
            double err = 0;
            for (const V xi : c.cudss.x) err = std::isfinite(xi) ? std::max(err, std::abs(xi - 1.0)) : std::numeric_limits<double>::quiet_NaN();
            c.cudss_max_error = err;
        }
        if (!c.cudss.ok()) c.cudss_mismatch = c.cudss.status;
        else if (cp.solved() && c.cudss.info != 0) c.cudss_mismatch = "cuDSS info " + std::to_string(c.cudss.info) + " where cpu factored";
        else if (cp.solved() && !(c.cudss_residual <= residual_tol)) c.cudss_mismatch = fmt("cuDSS residual %.2e above %.0e", c.cudss_residual, residual_tol);
        std::fprintf(stderr, "%8.1f s    %-10s %s: info %d, analysis %.3f s, first %.3f s best %.3f s, nnz(LU) %lld, residual %.2e%s%s\n", clock.seconds(), "cudss",
                     c.cudss.status.c_str(), c.cudss.info, c.cudss.analyze_s, c.cudss.first_s, c.cudss.best_s, static_cast<long long>(c.cudss.factor_nnz),
                     c.cudss_residual, c.cudss_mismatch.empty() ? "" : ", MISMATCH: ", c.cudss_mismatch.c_str());
    }
    c.wall_s = wall.seconds();
    double fact_s = 0;
    int nfact = 0;
    for (const Variant& v : c.variants)
        if (v.ok()) {
            fact_s += v.first_s;
            for (const double r : v.runs_s) fact_s += r;
            nfact += 1 + static_cast<int>(v.runs_s.size());
        }
    if (c.flops >= prediction_min_flops && nfact > 0) run.seconds_per_flop = fact_s / nfact / c.flops;
    return true;
}

// ---------------------------------------------------------------- outputs
std::string seconds_text(const Variant* v) {
    if (!v) return "-";
    if (!v->ok()) return "FAILED";
    if (v->factor_status != "success") return "npd";
    return fmt("%.3f", v->best_s);
}

std::string sci(double x) { return x < 0 ? std::string("-") : fmt("%.1e", x); }

std::string summary(const Run& run, bool finished) {
    const Tally ty = tally(run);
    std::ostringstream t;
    t << "direct solver backend cuda vs cpu (bench_direct_cuda" << (finished ? "" : ", partial") << "): LLT, double values, int32 columns, ordering nd, "
      << run.host_threads << " host threads; best of " << run.args.repeats << " refactorizations after a factorize\n";
    t << "gpu: " << run.device << "; driver " << run.driver << ", CUDA runtime " << run.runtime << ", cuBLAS " << run.cublas << ", cuSOLVER " << run.cusolver << "\n";
    t << "cpu: " << run.cpu << "\n";
    t << "cudss: " << (run.cudss.ok() ? "cuDSS " + run.cudss.version() + " (" + run.cudss.path() + "): its analysis, factorization, best of the same refactorizations (values on the device)"
                                      : "not run (" + run.cudss.error() + ")")
      << "\n";
    t << "columns: GFLOP = sum c_j^2 / 1e9; cpu / cuda@T: best factorization seconds (cuda@T: fronts of >= T rows on the GPU; npd: not positive definite);"
      << " fronts, %flops, GB bus (copied between host and GPU), kept (contribution blocks passed to their parent on the GPU): at the best T; res: solve residual ||b-Ax||/||b|| (cuda: the worst T); * mismatch; *_indef: LDL^T (structure"
      << " sym) of the Laplacian shifted by -" << fmt("%g", indefinite_shift) << ", *_unsym: LU (structure gen) of the Laplacian with its upper entries x "
      << fmt("%g", unsymmetric_scale) << "; LDL^T: the front on the GPU, each block's pivot tests on the host; LU: the whole front on the GPU\n";
    t << fmt("%-20s %9s %10s %9s %6s %8s", "case", "n", "nnz(L)", "GFLOP", "front", "cpu s");
    for (std::size_t k = 0; k < thresholds.size(); ++k) {
        t << fmt(" %9s", ("cuda@" + std::to_string(thresholds[k])).c_str());
        if (k == host_assembled) t << fmt(" %9s", (std::to_string(thresholds[k]) + "/host").c_str());
    }
    t << fmt(" %6s %6s %6s %7s %5s %8s %8s %8s %8s %8s %9s\n", "best", "fronts", "%flops", "GB bus", "kept", "speedup", "res cpu", "res cuda", "cudss s", "vs cudss", "res cudss");
    for (const Case& c : run.cases) {
        t << fmt("%-20s %9lld ", c.name.substr(0, 20).c_str(), static_cast<long long>(c.n));
        if (c.status != "ok") {
            t << "FAILED: " << c.status.substr(0, 160) << "\n";
            continue;
        }
        t << fmt("%10.4g %9.2f %6lld %8s", c.nnz_L, c.flops * 1e-9, static_cast<long long>(c.max_front_rows), seconds_text(c.cpu()).c_str());
        double worst = -1;
        bool any_mismatch = false;
        for (std::size_t k = 1; k < c.variants.size(); ++k) {
            const Variant& v = c.variants[k];
            t << fmt(" %9s", (seconds_text(&v) + (v.mismatch.empty() ? "" : "*")).c_str());
            if (v.solved()) worst = std::isnan(v.info.residual) || std::isnan(worst) ? std::numeric_limits<double>::quiet_NaN() : std::max(worst, v.info.residual);
            any_mismatch = any_mismatch || !v.mismatch.empty();
        }
        const Variant* g = c.best_cuda();
        const Variant* cp = c.cpu();
        const std::string cudss_s = !c.cudss.ok() ? (c.cudss.status == "not run" ? "-" : "FAILED") : c.cudss.info != 0 ? "info" + std::to_string(c.cudss.info) : fmt("%.3f", c.cudss.best_s);
        t << fmt(" %6s %6s %6s %7s %5s %8s %8s %8s %8s %8s %9s\n", g ? std::to_string(g->gpu_front_rows).c_str() : "-", g ? fmt("%.0f", g->gpu_fronts).c_str() : "-",
                 g && c.flops > 0 ? fmt("%.1f", 100.0 * g->gpu_flops / c.flops).c_str() : "-", g ? fmt("%.2f", g->gpu_bytes * 1e-9).c_str() : "-",
                 g ? fmt("%.0f", g->gpu_kept_blocks).c_str() : "-", c.speedup() > 0 ? fmt("%.2fx", c.speedup()).c_str() : "-",
                 cp && cp->solved() ? sci(cp->info.residual).c_str() : "-", worst == -1 ? "-" : (sci(worst) + (any_mismatch ? "*" : "")).c_str(),
                 (cudss_s + (c.cudss_mismatch.empty() ? "" : "*")).c_str(), c.speedup_vs_cudss() > 0 ? fmt("%.2fx", c.speedup_vs_cudss()).c_str() : "-",
                 c.cudss_residual < 0 ? "-" : sci(c.cudss_residual).c_str());
    }
    // details: failures, mismatches, unexpected front counts
    for (const Case& c : run.cases) {
        std::size_t fewest = static_cast<std::size_t>(run.args.repeats);
        for (const Variant& v : c.variants)
            if (v.ok() && v.factor_status == "success") fewest = std::min(fewest, v.runs_s.size());
        if (fewest < static_cast<std::size_t>(run.args.repeats)) t << c.name << ": some variants timed with " << fewest << " refactorization(s) only (time budget)\n";
        for (const Variant& v : c.variants) {
            if (!v.ok()) t << c.name << " " << v.label() << ": " << v.status.substr(0, 240) << "\n";
            else if (v.solve_status.rfind("failed", 0) == 0) t << c.name << " " << v.label() << " solve: " << v.solve_status.substr(0, 240) << "\n";
            if (!v.mismatch.empty()) t << c.name << " " << v.label() << ": MISMATCH: " << v.mismatch << "\n";
            if (v.backend == "cuda" && v.ok() && static_cast<std::int64_t>(v.gpu_fronts) != v.expected_gpu_fronts)
                t << c.name << " " << v.label() << ": " << fmt("%.0f", v.gpu_fronts) << " fronts on the GPU, the analysis has " << v.expected_gpu_fronts
                  << " of at least " << v.gpu_front_rows << " rows (" << fmt("%.0f", v.gpu_too_large) << " too large for the device)\n";
        }
        if (!c.cudss_mismatch.empty()) t << c.name << " cudss: " << c.cudss_mismatch.substr(0, 240) << "\n";
    }
    if (ty.speedups > 0)
        t << "\ngeomean speedup (cpu / best cuda, " << ty.speedups << " cases with fronts on the GPU): " << fmt("%.2fx", std::exp(ty.log_speedup / ty.speedups)) << "\n";
    if (ty.cudss_cases > 0)
        t << "geomean speedup vs cuDSS (cuDSS's best refactorization / the best cuda variant's, " << ty.cudss_cases
          << " cases): " << fmt("%.2fx", std::exp(ty.log_speedup_vs_cudss / ty.cudss_cases)) << "\n";
    if (!run.skipped.empty()) {
        t << "\n" << run.skipped.size() << " cases skipped (not started within the time budget of " << run.args.time_budget
          << " s, or predicted to end more than " << prediction_slack_s << " s after it):";
        for (const std::string& s : run.skipped) t << " " << s;
        t << "\n";
    }
    t << "\nresult: failures=" << ty.failures << " mismatches=" << ty.mismatches << " front_count_differs=" << ty.front_count_differs << " cases=" << run.cases.size()
      << " skipped=" << run.skipped.size() << " cudss_mismatches=" << ty.cudss_mismatches << " cudss_cases=" << ty.cudss_cases << "\n";
    return t.str();
}

Json variant_json(const Case& c, const Variant& v) {
    Json j;
    j.set("backend", v.backend).set("gpu_front_rows", v.gpu_front_rows).set("gpu_assembly", v.assembly).set("status", v.status).set("factor_status", v.factor_status);
    j.set("first_factorize_s", v.first_s).set("best_s", v.best_s).set("refactorize_s", v.runs_s);
    j.set("gflops_per_s", v.timed() && v.factor_status == "success" ? c.flops / v.best_s * 1e-9 : 0.0);
    if (v.backend == "cuda") {
        j.set("gpu_fronts", v.gpu_fronts).set("expected_gpu_fronts", v.expected_gpu_fronts).set("gpu_flops", v.gpu_flops);
        j.set("expected_gpu_flops", v.expected_gpu_flops).set("gpu_flop_fraction", c.flops > 0 ? v.gpu_flops / c.flops : 0.0);
        j.set("gpu_bytes", v.gpu_bytes).set("gpu_seconds", v.gpu_seconds).set("gpu_kept_blocks", v.gpu_kept_blocks);
        j.set("gpu_kept_bytes", v.gpu_kept_bytes).set("gpu_peak_bytes", v.gpu_peak_bytes);
        j.set("gpu_device_assembled", v.gpu_device_assembled).set("gpu_too_large", v.gpu_too_large);
        j.set("speedup_vs_cpu", c.cpu() && c.cpu()->timed() && v.timed() ? c.cpu()->best_s / v.best_s : 0.0);
    }
    Json s;
    s.set("status", v.solve_status);
    if (v.solved()) {
        s.set("solve_status", dr::to_string(v.info.status)).set("refinement_steps", v.info.refinement_steps).set("residual", v.info.residual);
        s.set("backward_error", v.info.backward_error).set("max_error_vs_ones", v.max_error).set("solve_s", v.solve_s);
        if (v.backend == "cuda") s.set("max_diff_vs_cpu", v.diff_vs_cpu);
    }
    j.set("solve", s);
    j.set("mismatch", v.mismatch);
    return j;
}

Json case_json(const Case& c) {
    Json j;
    j.set("name", c.name).set("set", c.set).set("structure", c.structure).set("source", c.source).set("status", c.status);
    j.set("n", c.n).set("nnz", c.nnz).set("load_s", c.load_s).set("analyze_s", c.analyze_s).set("ordering_used", c.ordering_used);
    j.set("nnz_L", c.nnz_L).set("flops", c.flops).set("supernodes", c.supernodes).set("max_front_rows", c.max_front_rows).set("threads", c.host_threads);
    j.set("repeats", c.repeats);
    std::string vs = "[";
    for (std::size_t i = 0; i < c.variants.size(); ++i) {
        vs += i ? ",\n    " : "\n    ";
        vs += variant_json(c, c.variants[i]).str();
    }
    j.set_raw("variants", vs + "\n  ]");
    const Variant* g = c.best_cuda();
    j.set("best_gpu_front_rows", g ? g->gpu_front_rows : std::int64_t(0)).set("speedup", c.speedup()).set("wall_s", c.wall_s);
    Json cu;
    cu.set("status", c.cudss.status).set("info", c.cudss.info).set("analyze_s", c.cudss.analyze_s).set("first_factorize_s", c.cudss.first_s);
    cu.set("best_s", c.cudss.best_s).set("refactorize_s", c.cudss.runs_s).set("factor_nnz", c.cudss.factor_nnz).set("solve_s", c.cudss.solve_s);
    cu.set("residual", c.cudss_residual).set("max_error_vs_ones", c.cudss_max_error).set("mismatch", c.cudss_mismatch);
    cu.set("gflops_per_s", c.cudss_timed() ? c.flops / c.cudss.best_s * 1e-9 : 0.0).set("speedup_vs_cudss", c.speedup_vs_cudss());
    j.set("cudss", cu);
    return j;
}

std::string json(const Run& run, bool finished) {
    const Tally ty = tally(run);
    Json j;
    j.set("benchmark", "direct_cuda").set("finished", finished);
    j.set("context", run.context);
    Json o;
    o.set("repeats", run.args.repeats).set("time_budget_s", run.args.time_budget).set("quick", run.args.quick).set("value_type", "double").set("index_type", "int32");
    o.set("structure", "spd; sym for the indefinite set; gen for the unsymmetric set").set("indefinite_shift", indefinite_shift)
        .set("unsymmetric_scale", unsymmetric_scale).set("ordering", "nd").set("threads", run.host_threads).set("matrix_dir", run.matrix_dir);
    o.set("gpu_front_rows", std::vector<std::int64_t>(thresholds.begin(), thresholds.end())).set("residual_tol", residual_tol).set("min_shared_nnz", min_shared_nnz);
    j.set("options", o);
    std::string cases = "[";
    for (std::size_t i = 0; i < run.cases.size(); ++i) {
        cases += i ? ",\n  " : "\n  ";
        cases += case_json(run.cases[i]).str();
    }
    j.set_raw("cases", cases + "\n]");
    std::string skipped = "[";
    for (std::size_t i = 0; i < run.skipped.size(); ++i) {
        if (i) skipped += ',';
        skipped += gs::tools::json_escape(run.skipped[i]);
    }
    j.set_raw("skipped", skipped + "]");
    Json s;
    s.set("failures", ty.failures).set("mismatches", ty.mismatches).set("front_count_differs", ty.front_count_differs);
    s.set("geomean_speedup", ty.speedups ? std::exp(ty.log_speedup / ty.speedups) : 0.0).set("speedup_cases", ty.speedups);
    s.set("geomean_speedup_vs_cudss", ty.cudss_cases ? std::exp(ty.log_speedup_vs_cudss / ty.cudss_cases) : 0.0).set("cudss_cases", ty.cudss_cases);
    s.set("cudss_mismatches", ty.cudss_mismatches);
    j.set("summary", s);
    return j.str() + "\n";
}

void write_outputs(const Run& run, bool finished) {
    gs::tools::write_file_atomic(run.args.outdir + "/direct_cuda.json", json(run, finished), "bench_direct_cuda");
    const std::string s = summary(run, finished);
    gs::tools::write_file_atomic(run.args.outdir + "/direct_cuda_summary.txt", s, "bench_direct_cuda");
    if (finished) std::printf("%s", s.c_str());
}

template <class F>
std::string library_version(F&& get) {
    int major = 0, minor = 0, patch = 0;
    if (!get(MAJOR_VERSION, &major) || !get(MINOR_VERSION, &minor) || !get(PATCH_LEVEL, &patch)) return "unknown";
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

void collect_context(Run& run) {
    run.context = gs::tools::run_context();
    if (const char* rev = std::getenv("GIGASPARSE_GIT_REV")) run.context.set("git", rev);
    run.device = gs::cuda::device_summary();
    run.driver = gs::tools::nvidia_driver_version();
    run.context.set("gpu", run.device).set("nvidia_driver", run.driver);
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, 0) == cudaSuccess) {
        run.context.set("gpu_name", p.name).set("sm", std::to_string(p.major) + std::to_string(p.minor)).set("sms", p.multiProcessorCount);
        run.context.set("gpu_memory_bytes", static_cast<std::int64_t>(p.totalGlobalMem));
    }
    int v = 0;
    if (cudaDriverGetVersion(&v) == cudaSuccess) run.context.set("cuda_driver_api", gs::tools::cuda_version_text(v)).set("cuda_driver_api_int", v);
    if (cudaRuntimeGetVersion(&v) == cudaSuccess) {
        run.runtime = gs::tools::cuda_version_text(v);
        run.context.set("cuda_runtime", run.runtime).set("cuda_runtime_int", v);
    }
    (void)cudaGetLastError();
    run.cublas = library_version([](libraryPropertyType t, int* out) { return cublasGetProperty(t, out) == CUBLAS_STATUS_SUCCESS; });
    run.cusolver = library_version([](libraryPropertyType t, int* out) { return cusolverGetProperty(t, out) == CUSOLVER_STATUS_SUCCESS; });
    run.context.set("cublas_version", run.cublas).set("cusolver_version", run.cusolver);
    run.context.set("cudss_version", run.cudss.ok() ? run.cudss.version() : std::string("not run: ") + run.cudss.error());
    run.host_threads = omp_get_max_threads();
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line))
        if (line.rfind("model name", 0) == 0) {
            run.cpu = line.substr(line.find(':') + 2);
            break;
        }
    run.cpu += " (" + std::to_string(run.host_threads) + " threads)";
}

}  // namespace

int main(int argc, char** argv) {
    gs::tools::use_native_blas_kernels(argv);  // re-executes with OPENBLAS_CORETYPE when OpenBLAS fell back
    if (argc == 2 && std::string(argv[1]) == "--cudss-probe") {
        // loads cuDSS as a run would (no GPU needed): its version, or why it cannot be used
        const gs::bench::CudssLibrary lib = gs::bench::CudssLibrary::open();
        if (!lib.ok()) {
            std::fprintf(stderr, "bench_direct_cuda: cuDSS not available: %s\n", lib.error().c_str());
            return 1;
        }
        std::printf("cuDSS %s from %s\n", lib.version().c_str(), lib.path().c_str());
        return 0;
    }
    Run run;
    if (!gs::tools::parse_bench_args(argc, argv, "bench_direct_cuda", run.args)) return 2;
    const gs::Timer clock;
    if (gs::cuda::device_count() == 0) {
        // device_summary() explains why (it may itself start with "no CUDA device available")
        const std::string why = gs::cuda::device_summary();
        if (why.rfind("no CUDA device available", 0) == 0) std::fprintf(stderr, "bench_direct_cuda: %s\n", why.c_str());
        else std::fprintf(stderr, "bench_direct_cuda: no CUDA device available (%s)\n", why.c_str());
        return 1;
    }
    std::error_code ec;
    std::filesystem::create_directories(run.args.outdir, ec);
    const char* env_dir = std::getenv("GIGASPARSE_MATRIX_DIR");
    run.matrix_dir = env_dir && *env_dir ? env_dir : GIGASPARSE_MATRIX_DIR;
    run.cudss = gs::bench::CudssLibrary::open();
    std::fprintf(stderr, "bench_direct_cuda: %s\n", run.cudss.ok() ? ("cuDSS " + run.cudss.version() + " from " + run.cudss.path()).c_str()
                                                                      : ("no cuDSS: " + run.cudss.error()).c_str());
    try {
        collect_context(run);
        std::vector<Spec> specs;
        for (const int k : poisson_sizes) {
            specs.push_back({"poisson", "poisson3d_" + std::to_string(k), k, "", true, 7LL * k * k * k - 6LL * k * k});
            if (run.args.quick) break;
        }
        if (!run.args.quick) {
            for (Spec& sp : shared_specs(run.matrix_dir)) specs.push_back(sp);
            for (const int k : indefinite_sizes) {
                specs.push_back({"indefinite", "poisson3d_" + std::to_string(k) + "_indef", k, "", true, 7LL * k * k * k - 6LL * k * k + 1, "sym"});
                specs.push_back({"unsymmetric", "poisson3d_" + std::to_string(k) + "_unsym", k, "", true, 7LL * k * k * k - 6LL * k * k + 2, "gen"});
            }
        }
        std::stable_sort(specs.begin(), specs.end(), [](const Spec& x, const Spec& y) { return x.estimate < y.estimate; });
        write_outputs(run, false);
        for (const Spec& sp : specs) {
            if (clock.seconds() > run.args.time_budget) {
                run.skipped.push_back(sp.name);
                continue;
            }
            // a larger Poisson grid, before its analysis: nested dissection's flops grow as k^6; half that as a
            // lower bound, at one refactorization per variant
            if (sp.set == "poisson" && run.seconds_per_flop > 0 && run.last_poisson > 0 && sp.size > run.last_poisson) {
                const double flops = 0.5 * run.last_poisson_flops * std::pow(double(sp.size) / run.last_poisson, 6);
                const double predicted = run.seconds_per_flop * flops * (1.0 + static_cast<double>(cuda_variants)) * 2;
                if (predicted > run.args.time_budget + prediction_slack_s - clock.seconds()) {
                    std::fprintf(stderr, "%8.1f s  %s: skipped, predicted at least %.0f s\n", clock.seconds(), sp.name.c_str(), predicted);
                    run.skipped.push_back(sp.name + fmt(" (predicted at least %.0f s)", predicted));
                    continue;
                }
            }
            Case c;
            c.name = sp.name;
            c.set = sp.set;
            c.structure = sp.structure;
            try {
                Mat a;
                if (!load(sp, run.matrix_dir, c, a)) continue;
                std::fprintf(stderr, "%8.1f s  %s: n %lld, nnz %lld (loaded in %.1f s)\n", clock.seconds(), c.name.c_str(), static_cast<long long>(a.nrows),
                             static_cast<long long>(a.nnz()), c.load_s);
                std::string why;
                if (!run_case(c, a, run, clock, why)) {
                    run.skipped.push_back(sp.name + " (" + why + ")");
                    write_outputs(run, false);
                    continue;
                }
            } catch (const std::exception& e) {
                c.status = failed(e);
                std::fprintf(stderr, "%8.1f s  %s: %s\n", clock.seconds(), c.name.c_str(), c.status.c_str());
            }
            run.cases.push_back(std::move(c));
            write_outputs(run, false);
        }
        write_outputs(run, true);
    } catch (const std::exception& e) {
        // outside any case (context): what was measured so far is kept
        std::fprintf(stderr, "bench_direct_cuda: %s\n", e.what());
        run.context.set("fatal_error", e.what());
        write_outputs(run, true);
    }
    return 0;
}
