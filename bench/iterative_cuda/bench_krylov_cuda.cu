// bench/iterative_cuda/bench_krylov_cuda.cu: the GPU iterative backend against cuSPARSE and the host, double
// values and int32 columns: SpMV (gigasparse's SpmvPlan vs cusparseSpMV CSR ALG1 and ALG2) and CG with Jacobi
// and with IC(0), MINRES with Jacobi (Poisson), GMRES(30) with Jacobi and ILU(0) (cuda::solve vs iterative::solve on the
// host's cores).
//
// Usage: bench_krylov_cuda OUTDIR [--repeats N] [--time-budget SECONDS] [--quick]
//
// Inputs, smallest first (a time budget drops the largest; cases not started within it are listed as
// skipped; a case once started runs all its parts): Poisson 3D 7-point 64^3, R-MAT scale 18, the shared
// matrices, Poisson 128^3, R-MAT 20, Poisson 192^3, R-MAT 22 (R-MAT: 16 edges per row, values 1, SpMV
// only). Shared matrices: MANIFEST.tsv in $GIGASPARSE_MATRIX_DIR (else the configured folder), square, not
// complex, more than 100k nonzeros once symmetric halves are expanded. CG runs on Poisson and on the shared
// matrices whose header says symmetric and whose diagonal is present and positive (a cheap SPD test: a CG
// that does not converge, or an IC(0) that breaks down, is an outcome, not an error). GMRES(30) with Jacobi and with
// ILU(0) (the GPU on multicolor, the host on it and on dc) on convection-diffusion 64^3 (b = (20, -10, 5)), run
// third. --quick: Poisson 64^3, R-MAT 18 and convection-diffusion 64^3 only. Last (within the budget, also with --quick):
// complex<double> 64^3 problems, CG with IC(0) on a Hermitian positive definite one, BiCGStab with ILU(0) and GMRES(30)
// with Jacobi on a lossy Helmholtz one, the GPU against the host (JSON "complex", its own table).
//
// SpMV: y = A x, x (pseudo-random in [-1, 1)) and y in device memory, CUDA events on one stream; a warm-up,
// then N runs each after a write of twice the L2 cache (the matrix comes from DRAM), best and median;
// warm_ms (JSON): the mean of back-to-back runs without that write (what a solver's loop sees when the
// matrix fits in L2). cuSPARSE reads the same column and value arrays as ours with a 32-bit copy of the row
// offsets; its buffer from cusparseSpMV_bufferSize, prepared by cusparseSpMV_preprocess where the headers
// have it (cuSPARSE >= 12.3, CUDA 12.4; a failure there is reported and the runs go on without it); the
// setup of either library (our plan's long-row list, cuSPARSE's buffer and preprocessing) is not timed.
// Each library's y starts as NaN; cuSPARSE's is compared with ours, ours with the host's SpMV, row by row
// relative to sum_j |a_ij x_j| (flagged above 1e-10). GB/s: the least bytes a CSR SpMV with our 64-bit row
// offsets moves (values, columns and offsets once, x once, y written) over the time, and that as a fraction
// of the device-to-device copy bandwidth (1 GiB, read + write).
// CG: tol 1e-8, maxit 2000, b = A * ones, x0 = 0, with two preconditioners:
//   jacobi  GPU: GpuPrecond::jacobi (the diagonal on the device); host: PrecondKind::jacobi.
//   ic0     GPU: GpuPrecond::ic0 on the multicolor ordering (GpuSolveOptions' default): the host orders and
//           factors (iterative::sweep_factors), the device applies the two triangular sweeps level by level
//           (sweep_levels: kernel launches per application; setup_ms includes the host's factorization);
//           host: PrecondKind::ic0 on the same multicolor ordering (the same preconditioner: iterations
//           match within a few) and on dc (the CPU's own best ordering).
// GPU: a two-iteration warm-up (ic0: on a small grid, so that A is not factored once more), then the best
// of min(N, 3) solves by GpuSolveStats::solve_ms (the iterations, CUDA events); setup_ms of that solve.
// Host: Backend::omp, one solve per preconditioner and ordering, setup (ordering, factorization, sweep
// schedule) timed apart. True relative residual ||b - A x|| / ||b|| by the host's SpMV. JSON: case.cg.gpu
// and case.cg.host are lists tagged by precond and ordering; case.cg.comparisons pairs each GPU solve with
// the host's of the same preconditioner and ordering and with the fastest host solve of that preconditioner.
// Summary: a CG row per case and preconditioner. cg_gpu_failures counts GPU solves that failed (either
// preconditioner); cg_outcome_differs counts GPU solves whose host twin (same preconditioner and ordering)
// converged where it did not or the other way round, or took iterations more than 10% + 3 apart.
//
// Writes OUTDIR/krylov_cuda.json and OUTDIR/krylov_cuda_summary.txt after every case and prints the
// summary at the end. Every CUDA and cuSPARSE status is checked: a failure is recorded in the case (the
// library's part "failed: ..."), and the run goes on. Exit status: 0 after the run, 1 without a usable
// device, 2 for a usage error.
#include <omp.h>

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <cusparse.h>

#include <gigasparse/core/matrix.hpp>
#include <gigasparse/core/timer.hpp>
#include <gigasparse/cuda/device.hpp>
#include <gigasparse/cuda/device_matrix.hpp>
#include <gigasparse/cuda/iterative.hpp>
#include <gigasparse/gen/generators.hpp>
#include <gigasparse/io/matrix_market.hpp>
#include <gigasparse/iterative/kernels.hpp>
#include <gigasparse/iterative/krylov.hpp>
#include <gigasparse/iterative/ordering.hpp>
#include <gigasparse/iterative/preconditioner.hpp>

#include "common/bench_files.hpp"
#include "common/context.hpp"
#include "common/json.hpp"
#include "cuda/base/device_buffer.hpp"
#include "iterative/cuda/krylov_dispatch.cuh"

// cusparseSpMV_preprocess came with CUDA 12.4 (cuSPARSE 12.3).
#if defined(CUSPARSE_VERSION) && CUSPARSE_VERSION >= 12300
#define BENCH_HAVE_SPMV_PREPROCESS 1
#else
#define BENCH_HAVE_SPMV_PREPROCESS 0
#endif

namespace gs = gigasparse;
namespace gc = gigasparse::cuda;
namespace it = gigasparse::iterative;
using gs::tools::Json;
using V = double;
using I = std::int32_t;
using Mat = gs::Csr<V, I>;
using DevMat = gc::DeviceMatrix<V, I>;
template <class T>
using Buf = gc::DeviceBuffer<T>;

namespace {

constexpr double check_tol = 1e-10;         // SpMV outputs further apart than this (row-relative) are flagged
constexpr double cg_tol = 1e-8;
constexpr std::int64_t cg_maxit = 2000;
constexpr int gmres_restart = 30;  // GMRES(m) of the convection-diffusion cases (the GPU and the host)
constexpr int cg_max_runs = 3;              // GPU solves timed (at most)
constexpr std::int64_t min_shared_nnz = 100000;
constexpr double warm_batch_ms = 2.0;       // back-to-back SpMVs of about this long for warm_ms
constexpr std::size_t copy_bytes = std::size_t(1) << 30;
constexpr int copy_runs = 5;

// A cuSPARSE status other than success, as an exception (caught by the part of the case that called it).
void sp(cusparseStatus_t st, const char* what) {
    if (st != CUSPARSE_STATUS_SUCCESS)
        throw std::runtime_error(std::string(what) + ": " + cusparseGetErrorString(st) + " (status " + std::to_string(static_cast<int>(st)) + ")");
}

// After a failed part: clears a non-sticky error so that the next part starts clean (a sticky one, an
// illegal address, makes every later call fail and is reported there).
void clear_cuda_error(cudaStream_t s) {
    (void)cudaStreamSynchronize(s);
    (void)cudaGetLastError();
}

std::string failed(const std::exception& e) { return std::string("failed: ") + e.what(); }

// ---------------------------------------------------------------- results
struct SpmvRun {
    std::string status = "not run";
    double best_ms = -1, median_ms = -1, warm_ms = -1;
    int warm_batch = 0;
    std::vector<double> runs_ms;
    double check = -1;              // max row-relative difference to the reference (ours: the host's SpMV; cuSPARSE: ours)
    std::int64_t buffer_bytes = 0;  // cuSPARSE's work buffer
    std::string preprocess = "n/a";
    bool ok() const { return status == "ok"; }
};

// One Krylov solve setup: the method ("cg", or "gmres": GMRES(30) on the unsymmetric cases), the preconditioner
// ("jacobi", "ic0", "ilu0") and the ordering of its sweeps ("none" for Jacobi; "mc", "dc": it::to_string of the
// OrderingKind).
struct CgTag {
    std::string method = "cg", precond, ordering = "none";
    std::string label() const { return (method == "cg" ? "" : method + ":") + (ordering == "none" ? precond : precond + "/" + ordering); }
    bool operator==(const CgTag&) const = default;
};

struct GpuCg {
    CgTag tag;
    std::string status = "not run";  // "ok" (whatever the outcome) or "failed: ..."
    it::SolveResult res;
    gc::GpuSolveStats st;            // of the run with the least solve_ms (st.ordering: the sweeps' ordering, described)
    int runs = 0;
    std::vector<double> runs_setup_ms, runs_solve_ms;
    double true_residual = -1, error_inf = -1, wall_ms = -1;
    double solve_ms_kernels = -1;  // the same solve with GpuSolveOptions::graphs off (a launch per kernel), best of as many runs
    bool ok() const { return status == "ok"; }
};

struct HostCg {
    CgTag tag;
    std::string status = "not run";
    it::SolveResult res;
    std::string ordering_description;
    std::int64_t sweep_depth = 0;  // synchronization levels per sweep (PrecondInfo::depth; 0 for Jacobi)
    double setup_ms = -1, solve_ms = -1, true_residual = -1;
    int threads = 0;
    bool ok() const { return status == "ok"; }
};

struct Case {
    std::string name, set, source, kind;  // set: poisson, rmat, shared
    std::string status = "ok";            // "failed: ..." when the case could not be set up
    std::int64_t n = 0, ncols = 0, nnz = 0, max_row = 0;
    bool symmetric_header = false, spd_candidate = false, gmres_case = false;  // gmres_case: GMRES(30) instead of CG
    double load_s = 0, wall_s = 0;
    gc::GpuSolveStats shape;  // the SpMV plan's lanes per row and long rows
    SpmvRun ours, alg1, alg2;
    std::vector<GpuCg> gpu_cg;    // one per preconditioner (jacobi, ic0/mc)
    std::vector<HostCg> host_cg;  // one per preconditioner and ordering (jacobi, ic0/mc, ic0/dc)
    std::int64_t bytes_min() const { return nnz * std::int64_t(sizeof(V) + sizeof(I)) + (n + 1) * 8 + ncols * std::int64_t(sizeof(V)) + n * std::int64_t(sizeof(V)); }
    std::int64_t bytes_cusparse() const { return nnz * std::int64_t(sizeof(V) + sizeof(I)) + (n + 1) * 4 + ncols * std::int64_t(sizeof(V)) + n * std::int64_t(sizeof(V)); }
    const SpmvRun* best_cusparse() const {
        const SpmvRun* b = nullptr;
        for (const SpmvRun* r : {&alg1, &alg2})
            if (r->ok() && (!b || r->best_ms < b->best_ms)) b = r;
        return b;
    }
    const char* best_cusparse_name() const {
        const SpmvRun* b = best_cusparse();
        return b == &alg1 ? "ALG1" : b == &alg2 ? "ALG2" : "none";
    }
    double speedup() const {
        const SpmvRun* b = best_cusparse();
        return ours.ok() && b && ours.best_ms > 0 ? b->best_ms / ours.best_ms : 0;
    }
    // the worse check of the two algorithms against ours (-1: none ran)
    double cusparse_check() const {
        double w = -1;
        for (const SpmvRun* r : {&alg1, &alg2})
            if (r->ok() && r->check != -1) w = std::isnan(r->check) || std::isnan(w) ? std::numeric_limits<double>::quiet_NaN() : std::max(w, r->check);
        return w;
    }
};

bool flagged(double check) { return check != -1 && !(check <= check_tol); }

// The host solve with the GPU's preconditioner and ordering (null: none).
const HostCg* same_host(const Case& c, const GpuCg& g) {
    for (const HostCg& h : c.host_cg)
        if (h.tag == g.tag) return &h;
    return nullptr;
}
// The fastest host solve with g's preconditioner, any ordering: among those that converged, else among
// those that ran (null: none ran).
const HostCg* fastest_host(const Case& c, const GpuCg& g) {
    const HostCg* b = nullptr;
    for (const HostCg& h : c.host_cg) {
        if (!h.ok() || h.tag.precond != g.tag.precond || h.tag.method != g.tag.method) continue;
        if (!b || (h.res.converged && !b->res.converged) || (h.res.converged == b->res.converged && h.solve_ms < b->solve_ms)) b = &h;
    }
    return b;
}
// host solve / GPU solve (0: either missing)
double cg_speedup(const GpuCg& g, const HostCg* h) { return g.ok() && h && h->ok() && g.st.solve_ms > 0 && h->solve_ms > 0 ? h->solve_ms / g.st.solve_ms : 0; }
// The GPU and the host with the same preconditioner and ordering (both ran) disagree: converged or not,
// or iterations more than 10% (of the larger) + 3 apart.
bool outcome_differs(const GpuCg& g, const HostCg* h) {
    if (!g.ok() || !h || !h->ok()) return false;
    if (g.res.converged != h->res.converged) return true;
    const double gi = double(g.res.iterations), hi = double(h->res.iterations);
    return std::abs(gi - hi) > 0.1 * std::max(gi, hi) + 3;
}

// One complex solve (complex<double>, int32): the GPU (cuda::solve, best of cg_max_runs) against the host (omp).
struct ComplexRun {
    std::string problem, method, precond, ordering = "none";  // ordering: the host's (the GPU's sweeps: multicolor)
    std::string gpu_status = "not run", host_status = "not run";
    std::int64_t n = 0, nnz = 0, gpu_iterations = -1, host_iterations = -1;
    bool gpu_converged = false, host_converged = false;
    double gpu_setup_ms = -1, gpu_solve_ms = -1, gpu_true_residual = -1, host_setup_ms = -1, host_solve_ms = -1, host_true_residual = -1;
};

struct Run {
    gs::tools::BenchArgs args = {"", 5, 1e9, false};  // outdir, repeats, time budget (s), quick
    std::vector<ComplexRun> complex_runs;
    std::string matrix_dir;
    Json context;
    std::string device = "unknown", driver = "unknown", runtime = "unknown", cusparse = "unknown";
    double copy_bw = 0;  // bytes per second (read + write)
    std::string copy_status = "not measured";
    std::int64_t l2_bytes = 0, flush_bytes = 0;
    int host_threads = 0;
    std::vector<Case> cases;
    std::vector<std::string> skipped;
};

double gbs(std::int64_t bytes, double ms) { return ms > 0 ? double(bytes) / (ms * 1e-3) * 1e-9 : 0; }
double copy_fraction(const Run& run, std::int64_t bytes, double ms) { return ms > 0 && run.copy_bw > 0 ? double(bytes) / (ms * 1e-3) / run.copy_bw : 0; }

// ---------------------------------------------------------------- device helpers
// Writes of twice the L2 cache between timed runs, so that each finds the matrix in DRAM.
struct L2Flush {
    Buf<unsigned char> buf;
    int byte = 0;
    void run(cudaStream_t s) {
        if (buf.size() > 0) gc::check(cudaMemsetAsync(buf.data(), ++byte & 0xff, static_cast<std::size_t>(buf.size()), s), "cudaMemsetAsync (L2 flush)");
    }
};

struct Timing {
    double best_ms = -1, median_ms = -1, warm_ms = -1;
    int warm_batch = 0;
    std::vector<double> runs_ms;
};

// A warm-up, `repeats` runs after an L2 flush each (best, median), then back-to-back runs for warm_ms.
template <class Launch>
Timing time_spmv(cudaStream_t s, int repeats, L2Flush& flush, Launch&& launch) {
    Timing t;
    gc::Event e0, e1;
    launch();
    gc::check(cudaStreamSynchronize(s), "cudaStreamSynchronize (warm-up)");
    for (int r = 0; r < repeats; ++r) {
        flush.run(s);
        e0.record(s);
        launch();
        e1.record(s);
        gc::check(cudaEventSynchronize(e1.get()), "cudaEventSynchronize");
        t.runs_ms.push_back(e1.since(e0));
    }
    std::vector<double> sorted = t.runs_ms;
    std::sort(sorted.begin(), sorted.end());
    t.best_ms = sorted.front();
    const std::size_t m = sorted.size() / 2;
    t.median_ms = sorted.size() % 2 ? sorted[m] : 0.5 * (sorted[m - 1] + sorted[m]);
    t.warm_batch = static_cast<int>(std::clamp(std::ceil(warm_batch_ms / std::max(t.best_ms, 1e-4)), 1.0, 1000.0));
    e0.record(s);
    for (int k = 0; k < t.warm_batch; ++k) launch();
    e1.record(s);
    gc::check(cudaEventSynchronize(e1.get()), "cudaEventSynchronize");
    t.warm_ms = e1.since(e0) / t.warm_batch;
    gc::check(cudaGetLastError(), "after the timed SpMVs");
    return t;
}

void take(SpmvRun& r, const Timing& t) {
    r.best_ms = t.best_ms;
    r.median_ms = t.median_ms;
    r.warm_ms = t.warm_ms;
    r.warm_batch = t.warm_batch;
    r.runs_ms = t.runs_ms;
}

template <class T>
std::vector<T> download(const Buf<T>& d, std::int64_t n, cudaStream_t s) {
    std::vector<T> h(static_cast<std::size_t>(n));
    if (n > 0) gc::check(cudaMemcpyAsync(h.data(), d.data(), h.size() * sizeof(T), cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync D2H");
    gc::check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    return h;
}
template <class T>
void upload(Buf<T>& d, const std::vector<T>& h, cudaStream_t s) {
    d.allocate(static_cast<std::int64_t>(h.size()), gc::Placement{s, nullptr});
    if (!h.empty()) gc::check(cudaMemcpyAsync(d.data(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice, s), "cudaMemcpyAsync H2D");
    gc::check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
}
// y = NaN everywhere (all bits set), so that rows a library does not write fail the check.
void poison(Buf<V>& y, cudaStream_t s) {
    if (y.size() > 0) gc::check(cudaMemsetAsync(y.data(), 0xff, static_cast<std::size_t>(y.bytes()), s), "cudaMemsetAsync (y = NaN)");
}

// Device-to-device copy bandwidth (read + write bytes per second): best of copy_runs after a warm-up.
double copy_bandwidth(cudaStream_t s) {
    Buf<unsigned char> a(static_cast<std::int64_t>(copy_bytes), gc::Placement{s, nullptr});
    Buf<unsigned char> b(static_cast<std::int64_t>(copy_bytes), gc::Placement{s, nullptr});
    gc::check(cudaMemsetAsync(a.data(), 1, copy_bytes, s), "cudaMemsetAsync");
    gc::Event e0, e1;
    double best = 0;
    for (int r = 0; r <= copy_runs; ++r) {
        e0.record(s);
        gc::check(cudaMemcpyAsync(b.data(), a.data(), copy_bytes, cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync D2D");
        e1.record(s);
        gc::check(cudaEventSynchronize(e1.get()), "cudaEventSynchronize");
        const double ms = e1.since(e0);
        if (r > 0 && (best == 0 || ms < best)) best = ms;
    }
    if (!(best > 0)) throw std::runtime_error("copy bandwidth: no positive time measured");
    return 2.0 * double(copy_bytes) / (best * 1e-3);
}

// ---------------------------------------------------------------- host helpers
// Pseudo-random x in [-1, 1) (splitmix64 of the index): the same on every run.
std::vector<V> pseudo_random(std::int64_t n) {
    std::vector<V> x(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
        std::uint64_t z = static_cast<std::uint64_t>(i + 1) * 0x9E3779B97F4A7C15ull;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        x[static_cast<std::size_t>(i)] = static_cast<double>(z >> 11) * 0x1.0p-52 - 1.0;
    }
    return x;
}

// sum_j |a_ij x_j| per row: the scale of row i's rounding, whatever the order of the sum.
std::vector<double> row_scale(const Mat& a, const std::vector<V>& x) {
    std::vector<double> s(static_cast<std::size_t>(a.nrows));
    for (std::int64_t r = 0; r < a.nrows; ++r) {
        double t = 0;
        for (gs::offset_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) t += std::abs(a.values[k] * x[a.col_idx[k]]);
        s[static_cast<std::size_t>(r)] = t;
    }
    return s;
}

// max_i |y_i - ref_i| / scale_i (NaN when y or ref holds a NaN or an infinity)
double max_rel_diff(const std::vector<V>& y, const std::vector<V>& ref, const std::vector<double>& scale) {
    double w = 0;
    for (std::size_t i = 0; i < y.size(); ++i) {
        const double d = std::abs(y[i] - ref[i]);
        if (!std::isfinite(d)) return std::numeric_limits<double>::quiet_NaN();
        w = std::max(w, d / std::max(scale[i], DBL_MIN));
    }
    return w;
}

double nrm2(const std::vector<V>& v) {
    long double s = 0;
    for (const V x : v) s += static_cast<long double>(x) * x;
    return static_cast<double>(std::sqrt(s));
}

// ||b - A x|| / ||b|| by the host's SpMV
double true_residual(const Mat& a, const std::vector<V>& b, const std::vector<V>& x) {
    std::vector<V> r = b;
    it::spmv<V, I>(it::Backend::omp, a.view(), x, r, V(-1), V(1));
    const double bn = nrm2(b);
    return bn > 0 ? nrm2(r) / bn : nrm2(r);
}

// ---------------------------------------------------------------- one case
struct Gpu {
    cusparseHandle_t handle = nullptr;
    std::string handle_error;  // why there is no handle
    gc::Stream* stream = nullptr;
    L2Flush* flush = nullptr;
    int repeats = 5;
    cudaStream_t s() const { return stream->get(); }
};

// cuSPARSE's descriptors and buffer for one algorithm (a matrix descriptor each: the preprocessing is
// kept in it); freed with the object.
struct CusparseSpmv {
    cusparseConstSpMatDescr_t a = nullptr;
    cusparseConstDnVecDescr_t x = nullptr;
    cusparseDnVecDescr_t y = nullptr;
    Buf<unsigned char> work;
    CusparseSpmv() = default;
    CusparseSpmv(const CusparseSpmv&) = delete;
    CusparseSpmv& operator=(const CusparseSpmv&) = delete;
    ~CusparseSpmv() {
        if (y) (void)cusparseDestroyDnVec(y);
        if (x) (void)cusparseDestroyDnVec(x);
        if (a) (void)cusparseDestroySpMat(a);
    }
};

void run_cusparse(SpmvRun& r, cusparseSpMVAlg_t alg, const Gpu& g, const DevMat& dm, const Buf<int>& rp32, const Buf<V>& xd, Buf<V>& yd) {
    if (!g.handle) throw std::runtime_error("no cuSPARSE handle: " + g.handle_error);
    CusparseSpmv c;
    sp(cusparseCreateConstCsr(&c.a, dm.nrows(), dm.ncols(), dm.nnz(), rp32.data(), dm.col_idx(), dm.values(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                              CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
       "cusparseCreateConstCsr");
    sp(cusparseCreateConstDnVec(&c.x, dm.ncols(), xd.data(), CUDA_R_64F), "cusparseCreateConstDnVec");
    sp(cusparseCreateDnVec(&c.y, dm.nrows(), yd.data(), CUDA_R_64F), "cusparseCreateDnVec");
    const V one = 1, zero = 0;
    const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    std::size_t bytes = 0;
    sp(cusparseSpMV_bufferSize(g.handle, op, &one, c.a, c.x, &zero, c.y, CUDA_R_64F, alg, &bytes), "cusparseSpMV_bufferSize");
    r.buffer_bytes = static_cast<std::int64_t>(bytes);
    c.work.allocate(std::max<std::int64_t>(static_cast<std::int64_t>(bytes), 1), gc::Placement{g.s(), nullptr});
#if BENCH_HAVE_SPMV_PREPROCESS
    // an optional step: its failure is reported, and the runs go on without it
    const cusparseStatus_t pst = cusparseSpMV_preprocess(g.handle, op, &one, c.a, c.x, &zero, c.y, CUDA_R_64F, alg, c.work.data());
    r.preprocess = pst == CUSPARSE_STATUS_SUCCESS ? "done" : std::string("failed: ") + cusparseGetErrorString(pst);
    if (pst != CUSPARSE_STATUS_SUCCESS) clear_cuda_error(g.s());
#else
    r.preprocess = "not available (cuSPARSE < 12.3)";
#endif
    poison(yd, g.s());
    take(r, time_spmv(g.s(), g.repeats, *g.flush, [&] {
             sp(cusparseSpMV(g.handle, op, &one, c.a, c.x, &zero, c.y, CUDA_R_64F, alg, c.work.data()), "cusparseSpMV");
         }));
}

// The GPU's sweeps run on this ordering (GpuSolveOptions' default), and the host's IC(0) on it and on dc.
constexpr it::OrderingKind gpu_sweep_ordering = it::OrderingKind::multicolor;

GpuCg run_gpu_cg(const Mat& a, const DevMat& dm, const std::vector<V>& b, int repeats, gc::GpuPrecond precond, it::Method method = it::Method::cg) {
    GpuCg out;
    out.tag.method = it::to_string(method);
    out.tag.precond = gc::to_string(precond);
    gc::GpuSolveOptions o;
    o.method = method;
    o.restart = gmres_restart;
    o.precond = precond;
    if (precond != gc::GpuPrecond::jacobi && precond != gc::GpuPrecond::none) {
        o.ordering.kind = gpu_sweep_ordering;
        out.tag.ordering = it::to_string(gpu_sweep_ordering);
    }
    o.tol = cg_tol;
    o.maxit = cg_maxit;
    o.record_history = false;
    try {
        {  // warm-up: loads the solver's kernels (lazy module loading would land in the first timed solve)
            gc::GpuSolveOptions w = o;
            w.maxit = 2;
            std::vector<V> x(b.size(), V(0));
            if (o.precond == gc::GpuPrecond::jacobi) {
                (void)gc::solve<V, I>(dm, b, x, w, nullptr);
            } else {
                // the sweep kernels do not depend on the matrix: a small grid loads them without a second
                // host factorization of A (A's SpMV kernels were loaded by the Jacobi warm-up)
                const Mat small = gs::gen::poisson3d<V, I>(8, 8, 8);
                const DevMat ds = DevMat::upload(small.view());
                const std::vector<V> bs(static_cast<std::size_t>(small.nrows), V(1));
                std::vector<V> xs(bs.size(), V(0));
                (void)gc::solve<V, I>(ds, bs, xs, w, nullptr);
            }
        }
        std::vector<V> best_x;
        const int runs = std::max(1, std::min(repeats, cg_max_runs));
        for (int k = 0; k < runs; ++k) {
            std::vector<V> x(b.size(), V(0));
            gc::GpuSolveStats st;
            const gs::Timer t;
            it::SolveResult res = gc::solve<V, I>(dm, b, x, o, &st);
            const double wall = t.seconds() * 1e3;
            ++out.runs;
            out.runs_setup_ms.push_back(st.setup_ms);
            out.runs_solve_ms.push_back(st.solve_ms);
            const bool setup_failed = res.reason == it::StopReason::preconditioner_failed;
            if (k == 0 || st.solve_ms < out.st.solve_ms) {
                out.res = std::move(res);
                out.st = st;
                out.wall_ms = wall;
                best_x = std::move(x);
            }
            if (setup_failed) break;  // the same factorization fails again
        }
        if (out.res.reason != it::StopReason::preconditioner_failed) {  // the same solve without CUDA graphs
            gc::GpuSolveOptions k = o;
            k.graphs = false;
            for (int r = 0; r < runs; ++r) {
                std::vector<V> x(b.size(), V(0));
                gc::GpuSolveStats st;
                (void)gc::solve<V, I>(dm, b, x, k, &st);
                if (out.solve_ms_kernels < 0 || st.solve_ms < out.solve_ms_kernels) out.solve_ms_kernels = st.solve_ms;
            }
        }
        out.true_residual = true_residual(a, b, best_x);
        double e = 0;
        for (const V v : best_x) e = std::max(e, std::abs(v - 1.0));
        out.error_inf = std::isfinite(e) ? e : std::numeric_limits<double>::quiet_NaN();
        out.status = "ok";
    } catch (const std::exception& e) {
        out.status = failed(e);
        (void)cudaGetLastError();
    }
    return out;
}

// One host solve (omp) in T (double or complex); `ordering` is ignored for Jacobi. Setup (ordering, factorization,
// sweep schedule) and solve timed apart.
template <class T>
struct HostRun {
    it::SolveResult res;
    std::vector<T> x;
    double setup_ms = 0, solve_ms = 0;
    std::string ordering_description;
    std::int64_t depth = 0;
    it::PrecondStatus precond_status;
};
template <class T>
HostRun<T> host_run(const gs::Csr<T, I>& a, const std::vector<T>& b, it::PrecondKind kind, it::OrderingKind ordering, it::Method method) {
    HostRun<T> out;
    it::PrecondOptions po;
    po.kind = kind;
    po.ordering.kind = ordering;
    po.schedule.backend = it::Backend::omp;
    it::SolverOptions so;
    so.method = method;
    so.restart = gmres_restart;
    so.tol = cg_tol;
    so.maxit = cg_maxit;
    so.backend = it::Backend::omp;
    so.record_history = false;
    out.x.assign(b.size(), T(0));
    gs::Timer t;
    const auto m = it::make_preconditioner(a.view(), po);
    out.setup_ms = t.lap() * 1e3;
    out.res = it::solve<T>(it::csr_operator(a.view(), it::Backend::omp), b, out.x, m.get(), so);
    out.solve_ms = t.lap() * 1e3;
    out.ordering_description = m->info().ordering_description;
    out.depth = m->info().depth;
    out.precond_status = m->info().status;
    return out;
}

HostCg run_host_cg(const Mat& a, const std::vector<V>& b, it::PrecondKind kind, it::OrderingKind ordering, it::Method method = it::Method::cg) {
    HostCg out;
    out.tag.method = it::to_string(method);
    out.tag.precond = it::to_string(kind);
    if (kind != it::PrecondKind::jacobi && kind != it::PrecondKind::none) out.tag.ordering = it::to_string(ordering);
    out.threads = omp_get_max_threads();
    try {
        HostRun<V> h = host_run(a, b, kind, ordering, method);
        out.res = std::move(h.res);
        out.setup_ms = h.setup_ms;
        out.solve_ms = h.solve_ms;
        out.ordering_description = h.ordering_description;
        out.sweep_depth = h.depth;
        if (!h.precond_status.ok) out.res.message += " (" + out.tag.label() + " setup: " + h.precond_status.message + ")";
        out.true_residual = true_residual(a, b, h.x);
        out.status = "ok";
    } catch (const std::exception& e) {
        out.status = failed(e);
    }
    return out;
}

void run_case(Case& c, const Mat& a, const Gpu& g) {
    const gs::Timer wall;
    c.n = a.nrows;
    c.ncols = a.ncols;
    c.nnz = a.nnz();
    for (std::int64_t r = 0; r < a.nrows; ++r) c.max_row = std::max<std::int64_t>(c.max_row, a.row_ptr[r + 1] - a.row_ptr[r]);
    const cudaStream_t s = g.s();
    const std::vector<V> x = pseudo_random(a.ncols);
    std::vector<V> y_host(static_cast<std::size_t>(a.nrows));
    it::spmv<V, I>(it::Backend::omp, a.view(), x, y_host);
    const std::vector<double> scale = row_scale(a, x);
    DevMat dm;
    Buf<V> xd, yd;
    try {
        dm = DevMat::upload(a.view());
        upload(xd, x, s);
        yd.allocate(a.nrows, gc::Placement{s, nullptr});
    } catch (const std::exception& e) {
        c.status = "failed: upload: " + std::string(e.what());
        clear_cuda_error(s);
        c.wall_s = wall.seconds();
        return;
    }
    // ours
    std::vector<V> y_ours;
    try {
        gc::krylov::SpmvPlan<V, I> plan(dm, gc::GpuSpmvOptions{}, gc::Placement{s, nullptr});
        poison(yd, s);
        take(c.ours, time_spmv(s, g.repeats, *g.flush, [&] { plan.run(xd.data(), yd.data(), V(1), V(0), s); }));
        plan.fill(c.shape);
        y_ours = download(yd, a.nrows, s);
        c.ours.check = max_rel_diff(y_ours, y_host, scale);
        c.ours.status = "ok";
    } catch (const std::exception& e) {
        c.ours.status = failed(e);
        clear_cuda_error(s);
    }
    // cuSPARSE (32-bit row offsets)
    Buf<int> rp32;
    std::string rp32_error;
    if (c.nnz > std::numeric_limits<int>::max()) {
        rp32_error = "n/a: nnz beyond cuSPARSE's 32-bit row offsets";
    } else {
        try {
            upload(rp32, std::vector<int>(a.row_ptr.begin(), a.row_ptr.end()), s);
        } catch (const std::exception& e) {
            rp32_error = failed(e);
            clear_cuda_error(s);
        }
    }
    for (auto [r, alg] : {std::pair{&c.alg1, CUSPARSE_SPMV_CSR_ALG1}, std::pair{&c.alg2, CUSPARSE_SPMV_CSR_ALG2}}) {
        if (!rp32_error.empty()) {
            r->status = rp32_error;
            continue;
        }
        try {
            run_cusparse(*r, alg, g, dm, rp32, xd, yd);
            if (!y_ours.empty()) r->check = max_rel_diff(download(yd, a.nrows, s), y_ours, scale);
            r->status = "ok";
        } catch (const std::exception& e) {
            r->status = failed(e);
            clear_cuda_error(s);
        }
    }
    // CG with Jacobi, then with IC(0): the GPU on the multicolor ordering, the host on it and on dc
    if (c.spd_candidate) {
        const std::vector<V> ones(static_cast<std::size_t>(a.ncols), V(1));
        std::vector<V> b(static_cast<std::size_t>(a.nrows));
        it::spmv<V, I>(it::Backend::omp, a.view(), ones, b);
        c.gpu_cg.push_back(run_gpu_cg(a, dm, b, g.repeats, gc::GpuPrecond::jacobi));
        c.host_cg.push_back(run_host_cg(a, b, it::PrecondKind::jacobi, it::OrderingKind::natural));
        c.gpu_cg.push_back(run_gpu_cg(a, dm, b, g.repeats, gc::GpuPrecond::ic0));
        c.host_cg.push_back(run_host_cg(a, b, it::PrecondKind::ic0, gpu_sweep_ordering));
        c.host_cg.push_back(run_host_cg(a, b, it::PrecondKind::ic0, it::OrderingKind::dc));
        if (c.set == "poisson") {  // MINRES with Jacobi (symmetric; the Poisson cases only: the time budget)
            c.gpu_cg.push_back(run_gpu_cg(a, dm, b, g.repeats, gc::GpuPrecond::jacobi, it::Method::minres));
            c.host_cg.push_back(run_host_cg(a, b, it::PrecondKind::jacobi, it::OrderingKind::natural, it::Method::minres));
        }
    }
    // GMRES(30) with Jacobi, then with ILU(0) (the GPU on multicolor; the host on it and on dc)
    if (c.gmres_case) {
        const std::vector<V> ones(static_cast<std::size_t>(a.ncols), V(1));
        std::vector<V> b(static_cast<std::size_t>(a.nrows));
        it::spmv<V, I>(it::Backend::omp, a.view(), ones, b);
        c.gpu_cg.push_back(run_gpu_cg(a, dm, b, g.repeats, gc::GpuPrecond::jacobi, it::Method::gmres));
        c.host_cg.push_back(run_host_cg(a, b, it::PrecondKind::jacobi, it::OrderingKind::natural, it::Method::gmres));
        c.gpu_cg.push_back(run_gpu_cg(a, dm, b, g.repeats, gc::GpuPrecond::ilu0, it::Method::gmres));
        c.host_cg.push_back(run_host_cg(a, b, it::PrecondKind::ilu0, gpu_sweep_ordering, it::Method::gmres));
        c.host_cg.push_back(run_host_cg(a, b, it::PrecondKind::ilu0, it::OrderingKind::dc, it::Method::gmres));
    }
    c.wall_s = wall.seconds();
}

// ---------------------------------------------------------------- inputs
struct Spec {
    std::string set, name;
    int size = 0;      // poisson: grid points per side; rmat: scale
    std::string file;  // shared: file name in the matrix folder
    std::string kind;  // shared: the manifest's kind
};

// Square, not complex, possibly more than min_shared_nnz nonzeros (stored entries, twice that when only a
// triangle is stored; the exact count is checked after reading).
std::vector<Spec> shared_specs(const std::string& dir) {
    std::vector<Spec> out;
    for (const auto& f : gs::tools::read_manifest_rows(dir, "bench_krylov_cuda")) {
        if (f.size() < 8) continue;
        try {
            const std::int64_t stored = std::stoll(f[5]);
            const bool half = f[6] != "general";
            if (f[3] != f[4] || f[7] == "complex" || (half ? 2 * stored : stored) <= min_shared_nnz) continue;
        } catch (const std::exception&) {
            continue;
        }
        out.push_back({"shared", f[1], 0, f[0], f.size() > 8 ? f[8] : ""});
    }
    return out;
}

// Loads or generates the case's matrix; false when it is not a case after all (too few nonzeros).
bool load(const Spec& sp, const std::string& dir, Case& c, Mat& a) {
    const gs::Timer t;
    if (sp.set == "poisson") {
        a = gs::gen::poisson3d<V, I>(sp.size, sp.size, sp.size);
        c.source = "gen::poisson3d(" + std::to_string(sp.size) + "^3, 7-point)";
        c.symmetric_header = true;
        c.spd_candidate = true;
    } else if (sp.set == "convdiff") {
        a = gs::gen::convection_diffusion<V, I>(sp.size, sp.size, sp.size, 20.0, -10.0, 5.0);
        c.source = "gen::convection_diffusion(" + std::to_string(sp.size) + "^3, 7-point, b = (20, -10, 5))";
        c.gmres_case = true;
    } else if (sp.set == "rmat") {
        gs::gen::RmatOptions o;
        o.scale = sp.size;
        o.edge_factor = 16;
        a = gs::gen::rmat<V, I>(o);
        c.source = "gen::rmat(scale " + std::to_string(o.scale) + ", edge factor 16, a b c " + std::to_string(o.a).substr(0, 4) + " " +
                   std::to_string(o.b).substr(0, 4) + " " + std::to_string(o.c).substr(0, 4) + ", seed " + std::to_string(o.seed) + ", values 1)";
    } else {
        const std::string path = dir + "/" + sp.file;
        c.symmetric_header = gs::io::read_mtx_header(path).symmetry == gs::Symmetry::symmetric;
        a = gs::io::read_mtx<V, I>(path);
        c.source = sp.file;
        if (a.nnz() <= min_shared_nnz) {
            std::fprintf(stderr, "bench_krylov_cuda: %s has %lld nonzeros (not more than %lld): not a case\n", sp.name.c_str(), static_cast<long long>(a.nnz()),
                         static_cast<long long>(min_shared_nnz));
            return false;
        }
        c.spd_candidate = c.symmetric_header && gs::tools::positive_diagonal(a.view());
    }
    c.load_s = t.seconds();
    return true;
}

// ---------------------------------------------------------------- outputs
Json spmv_json(const Run& run, const Case& c, const SpmvRun& r, std::int64_t own_bytes) {
    Json j;
    j.set("status", r.status).set("best_ms", r.best_ms).set("median_ms", r.median_ms).set("warm_ms", r.warm_ms).set("warm_batch", r.warm_batch);
    j.set("runs_ms", r.runs_ms);
    j.set("gbs_min_bytes", gbs(c.bytes_min(), r.best_ms)).set("copy_fraction", copy_fraction(run, c.bytes_min(), r.best_ms));
    j.set("gbs_own_bytes", gbs(own_bytes, r.best_ms)).set("own_bytes", own_bytes);
    j.set("warm_gbs_min_bytes", gbs(c.bytes_min(), r.warm_ms));
    j.set("max_rel_diff", r.check).set("flagged", flagged(r.check));
    return j;
}

Json case_json(const Run& run, const Case& c) {
    Json j;
    j.set("name", c.name).set("set", c.set).set("source", c.source).set("kind", c.kind).set("status", c.status);
    j.set("n", c.n).set("ncols", c.ncols).set("nnz", c.nnz).set("max_row", c.max_row);
    j.set("symmetric_header", c.symmetric_header).set("spd_candidate", c.spd_candidate).set("load_s", c.load_s).set("wall_s", c.wall_s);
    Json s;
    s.set("bytes_min", c.bytes_min()).set("bytes_cusparse", c.bytes_cusparse());
    s.set("threads_per_row", c.shape.threads_per_row).set("long_row_threshold", c.shape.long_row_threshold).set("long_rows", c.shape.long_rows);
    Json ours = spmv_json(run, c, c.ours, c.bytes_min());
    ours.set("check_against", "host SpMV (omp)");
    s.set("gigasparse", ours);
    for (const auto& [key, r] : {std::pair{"cusparse_alg1", &c.alg1}, std::pair{"cusparse_alg2", &c.alg2}}) {
        Json cj = spmv_json(run, c, *r, c.bytes_cusparse());
        cj.set("check_against", "gigasparse").set("buffer_bytes", r->buffer_bytes).set("preprocess", r->preprocess);
        s.set(key, cj);
    }
    s.set("cusparse_best", c.best_cusparse_name()).set("speedup", c.speedup());
    const SpmvRun* b = c.best_cusparse();
    s.set("warm_speedup", b && c.ours.ok() && c.ours.warm_ms > 0 ? b->warm_ms / c.ours.warm_ms : 0.0);
    j.set("spmv", s);
    if (!c.gpu_cg.empty()) {
        Json cg;
        cg.set("about",
               "gpu: a solve per preconditioner (cuda::solve; ic0: factored on the host on the ordering, sweeps on the device by level sets; setup_ms "
               "includes that factorization; solve_ms, the iterations: the run with the least of runs_solve_ms); host: a solve per preconditioner and "
               "ordering (iterative::solve, omp; setup_ms: ordering, factorization, sweep schedule); comparisons: a GPU solve against the host with "
               "the same preconditioner and ordering (same_*) and against the fastest host solve of that preconditioner (converged ones first)");
        std::string gl = "[", hl = "[", cl = "[";
        for (const GpuCg& gpu : c.gpu_cg) {
            Json gj;
            gj.set("method", gpu.tag.method).set("precond", gpu.tag.precond).set("ordering", gpu.tag.ordering).set("label", gpu.tag.label());
            gj.set("status", gpu.status).set("runs", gpu.runs);
            if (gpu.ok()) {
                gj.set("ordering_description", gpu.st.ordering).set("sweep_levels", gpu.st.sweep_levels);
                gj.set("converged", gpu.res.converged).set("reason", it::to_string(gpu.res.reason)).set("message", gpu.res.message);
                gj.set("iterations", gpu.res.iterations).set("residual", gpu.res.residual).set("true_residual", gpu.true_residual);
                gj.set("error_inf", gpu.error_inf).set("setup_ms", gpu.st.setup_ms).set("solve_ms", gpu.st.solve_ms).set("download_ms", gpu.st.download_ms);
                gj.set("ms_per_iteration", gpu.res.iterations > 0 ? gpu.st.solve_ms / double(gpu.res.iterations) : 0.0).set("wall_ms", gpu.wall_ms);
                gj.set("runs_setup_ms", gpu.runs_setup_ms).set("runs_solve_ms", gpu.runs_solve_ms);
                gj.set("spmv_calls", gpu.st.spmv_calls).set("threads_per_row", gpu.st.threads_per_row).set("long_rows", gpu.st.long_rows);
                gj.set("device_bytes", gpu.st.device_bytes).set("graph_launches", gpu.st.graph_launches);
                gj.set("solve_ms_without_graphs", gpu.solve_ms_kernels);
            }
            gl += std::string(gl.size() > 1 ? "," : "") + gj.str();
            Json cj;
            const HostCg* same = same_host(c, gpu);
            const HostCg* best = fastest_host(c, gpu);
            cj.set("precond", gpu.tag.precond).set("gpu_ordering", gpu.tag.ordering).set("label", gpu.tag.label());
            cj.set("same_host", same ? same->tag.label() : std::string("none"));
            if (same && same->ok() && gpu.ok()) {
                cj.set("same_iterations_gpu", gpu.res.iterations).set("same_iterations_host", same->res.iterations);
                cj.set("same_outcome_differs", outcome_differs(gpu, same)).set("same_speedup_solve", cg_speedup(gpu, same));
            }
            cj.set("fastest_host", best ? best->tag.label() : std::string("none")).set("speedup_solve", cg_speedup(gpu, best));
            if (best && gpu.ok() && best->setup_ms + best->solve_ms > 0 && gpu.st.setup_ms + gpu.st.solve_ms > 0)
                cj.set("speedup_setup_and_solve", (best->setup_ms + best->solve_ms) / (gpu.st.setup_ms + gpu.st.solve_ms));
            cl += std::string(cl.size() > 1 ? "," : "") + cj.str();
        }
        for (const HostCg& host : c.host_cg) {
            Json hj;
            hj.set("method", host.tag.method).set("precond", host.tag.precond).set("ordering", host.tag.ordering).set("label", host.tag.label());
            hj.set("status", host.status).set("threads", host.threads);
            if (host.ok()) {
                hj.set("ordering_description", host.ordering_description).set("sweep_depth", host.sweep_depth);
                hj.set("converged", host.res.converged).set("reason", it::to_string(host.res.reason)).set("message", host.res.message);
                hj.set("iterations", host.res.iterations).set("residual", host.res.residual).set("true_residual", host.true_residual);
                hj.set("setup_ms", host.setup_ms).set("solve_ms", host.solve_ms);
                hj.set("ms_per_iteration", host.res.iterations > 0 ? host.solve_ms / double(host.res.iterations) : 0.0);
            }
            hl += std::string(hl.size() > 1 ? "," : "") + hj.str();
        }
        cg.set_raw("gpu", gl + "]").set_raw("host", hl + "]").set_raw("comparisons", cl + "]");
        j.set("cg", cg);
    }
    return j;
}

struct Tally {
    int mismatches = 0, host_mismatches = 0, ours_failed = 0, cusparse_failed = 0, case_failed = 0, cg_gpu_failed = 0, cg_disagree = 0;
    double log_speedup = 0;
    int speedups = 0;
};

Tally tally(const Run& run) {
    Tally t;
    for (const Case& c : run.cases) {
        if (c.status != "ok") {
            ++t.case_failed;
            continue;
        }
        if (!c.ours.ok()) ++t.ours_failed;
        if (c.ours.ok() && flagged(c.ours.check)) ++t.host_mismatches;
        for (const SpmvRun* r : {&c.alg1, &c.alg2}) {
            if (r->status.rfind("n/a", 0) == 0) continue;  // not applicable (offsets beyond 32 bits), not a failure
            if (!r->ok()) ++t.cusparse_failed;
            else if (flagged(r->check)) ++t.mismatches;
        }
        if (c.speedup() > 0) {
            t.log_speedup += std::log(c.speedup());
            ++t.speedups;
        }
        for (const GpuCg& g : c.gpu_cg) {
            if (!g.ok()) ++t.cg_gpu_failed;
            else if (outcome_differs(g, same_host(c, g))) ++t.cg_disagree;
        }
    }
    return t;
}

std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}
std::string ms_or_status(const SpmvRun& r) { return r.ok() ? fmt("%.4f", r.best_ms) : r.status.rfind("n/a", 0) == 0 ? "n/a" : "FAILED"; }
std::string check_text(double c) {
    if (c == -1) return "n/a";
    if (std::isnan(c)) return "NaN!";
    return fmt("%.1e", c) + (flagged(c) ? "!" : "");
}

// ---------------------------------------------------------------- complex values
using C = std::complex<double>;
using CMat = gs::Csr<C, I>;

// The 64³ complex problems: herm = P + 0.1 I + 0.05 i K (K: +i to the next row, -i to the previous: Hermitian positive
// definite), helm = P - (0.3 + 0.03 i) I (a lossy shifted Laplacian: complex symmetric); b = A (1 + i).
CMat complex_problem(const std::string& name, int m) {
    const Mat p = gs::gen::poisson3d<V, I>(m, m, m);
    CMat a(p.nrows, p.ncols);
    a.row_ptr = p.row_ptr;
    a.col_idx = p.col_idx;
    a.values.resize(p.values.size());
    const bool herm = name == "herm";
    for (std::int64_t r = 0; r < p.nrows; ++r)
        for (gs::offset_t k = p.row_ptr[r]; k < p.row_ptr[r + 1]; ++k) {
            const std::int64_t col = p.col_idx[k];
            C v(p.values[k]);
            if (col == r) v += herm ? C(0.1) : C(-0.3, -0.03);
            if (herm && col == r + 1) v += C(0, 0.05);
            if (herm && col == r - 1) v -= C(0, 0.05);
            a.values[k] = v;
        }
    return a;
}

double complex_residual(const CMat& a, const std::vector<C>& b, const std::vector<C>& x) {
    std::vector<C> r = b;
    it::spmv<C, I>(it::Backend::omp, a.view(), x, r, C(-1), C(1));
    double rr = 0, bb = 0;
    for (std::size_t i = 0; i < b.size(); ++i) rr += std::norm(r[i]), bb += std::norm(b[i]);
    return bb > 0 ? std::sqrt(rr / bb) : std::sqrt(rr);
}

ComplexRun run_complex(const std::string& problem, const CMat& a, const gc::DeviceMatrix<C, I>& dm, const std::vector<C>& b, it::Method method,
                       gc::GpuPrecond gpu_precond, it::PrecondKind host_precond, it::OrderingKind host_ordering, int repeats) {
    ComplexRun out;
    out.problem = problem;
    out.method = it::to_string(method);
    out.precond = it::to_string(host_precond);
    if (host_precond != it::PrecondKind::jacobi && host_precond != it::PrecondKind::none) out.ordering = it::to_string(host_ordering);
    out.n = a.nrows;
    out.nnz = a.nnz();
    gc::GpuSolveOptions o;
    o.method = method;
    o.restart = gmres_restart;
    o.precond = gpu_precond;
    o.ordering.kind = gpu_sweep_ordering;
    o.tol = cg_tol;
    o.maxit = cg_maxit;
    o.record_history = false;
    try {
        std::vector<C> best;
        const int runs = std::max(1, std::min(repeats, cg_max_runs)) + 1;  // the first loads the kernels: not timed
        for (int k = 0; k < runs; ++k) {
            std::vector<C> x(b.size(), C(0));
            gc::GpuSolveStats st;
            const it::SolveResult r = gc::solve<C, I>(dm, b, x, o, &st);
            if (k == 0) continue;
            if (out.gpu_solve_ms < 0 || st.solve_ms < out.gpu_solve_ms) {
                out.gpu_solve_ms = st.solve_ms;
                out.gpu_setup_ms = st.setup_ms;
                out.gpu_iterations = r.iterations;
                out.gpu_converged = r.converged;
                best = std::move(x);
            }
        }
        out.gpu_true_residual = complex_residual(a, b, best);
        out.gpu_status = "ok";
    } catch (const std::exception& e) {
        out.gpu_status = failed(e);
        (void)cudaGetLastError();
    }
    try {
        const HostRun<C> h = host_run(a, b, host_precond, host_ordering, method);
        out.host_setup_ms = h.setup_ms;
        out.host_solve_ms = h.solve_ms;
        out.host_iterations = h.res.iterations;
        out.host_converged = h.res.converged;
        out.host_true_residual = complex_residual(a, b, h.x);
        out.host_status = "ok";
    } catch (const std::exception& e) {
        out.host_status = failed(e);
    }
    return out;
}

// The complex part: CG with IC(0) on herm, BiCGStab with ILU(0) and GMRES(30) with Jacobi on helm (the GPU's sweeps on
// multicolor; the host on multicolor and on dc).
void complex_part(Run& run, int m) {
    for (const std::string problem : {"herm", "helm"}) {
        const CMat a = complex_problem(problem, m);
        const auto dm = gc::DeviceMatrix<C, I>::upload(a.view());
        const std::vector<C> ones(static_cast<std::size_t>(a.nrows), C(1, 1));
        std::vector<C> b(ones.size());
        it::spmv<C, I>(it::Backend::omp, a.view(), ones, b);
        const int r = run.args.repeats;
        if (problem == "herm") {
            for (const auto ord : {gpu_sweep_ordering, it::OrderingKind::dc})
                run.complex_runs.push_back(run_complex(problem, a, dm, b, it::Method::cg, gc::GpuPrecond::ic0, it::PrecondKind::ic0, ord, r));
        } else {
            for (const auto ord : {gpu_sweep_ordering, it::OrderingKind::dc})
                run.complex_runs.push_back(run_complex(problem, a, dm, b, it::Method::bicgstab, gc::GpuPrecond::ilu0, it::PrecondKind::ilu0, ord, r));
            run.complex_runs.push_back(run_complex(problem, a, dm, b, it::Method::gmres, gc::GpuPrecond::jacobi, it::PrecondKind::jacobi, gpu_sweep_ordering, r));
        }
        const ComplexRun& last = run.complex_runs.back();
        std::fprintf(stderr, "complex %s: n %lld, last %s %s gpu %lld it %.1f ms / host %lld it %.1f ms\n", problem.c_str(), static_cast<long long>(a.nrows),
                     last.method.c_str(), last.precond.c_str(), static_cast<long long>(last.gpu_iterations), last.gpu_solve_ms,
                     static_cast<long long>(last.host_iterations), last.host_solve_ms);
    }
}

std::string summary(const Run& run, bool finished) {
    std::ostringstream t;
    char buf[640];
    const Tally ty = tally(run);
    t << "gigasparse GPU SpMV and CG (double values, int32 columns) vs cuSPARSE " << run.cusparse << " on " << run.device << "; NVIDIA driver "
      << run.driver << ", CUDA runtime " << run.runtime << (finished ? "" : "  [PARTIAL: run still going or stopped]") << "\n";
    t << "copy bandwidth " << (run.copy_bw > 0 ? fmt("%.1f", run.copy_bw * 1e-9) + " GB/s" : run.copy_status)
      << " (cudaMemcpyAsync device to device of 1 GiB, read + write, best of " << copy_runs << ")\n";
    t << "SpMV y = A x (x, y on the device), ms by CUDA events: best of " << run.args.repeats << " after a warm-up, each after writing "
      << run.flush_bytes / (1 << 20) << " MiB (twice the L2: the matrix comes from DRAM); GB/s: the least bytes of a CSR SpMV with 64-bit "
      << "row offsets (nnz*12 + (n+1)*8 + x + y) over ours' time; %copy: of the copy bandwidth; speedup: best cuSPARSE time / ours; "
      << "check: max over rows of |y_cusparse - y_ours| / sum_j |a_ij x_j|, the worse of ALG1 and ALG2 (! above " << check_tol
      << "); host: ours against the host's SpMV\n";
    std::snprintf(buf, sizeof buf, "%-24s %9s %10s %10s %10s %10s %8s %7s %6s %9s %9s  %s\n", "case", "n", "nnz", "ours_ms", "ALG1_ms", "ALG2_ms", "speedup",
                  "GB/s", "%copy", "check", "host", "status");
    t << buf;
    for (const Case& c : run.cases) {
        if (c.status != "ok") {
            std::snprintf(buf, sizeof buf, "%-24s %9lld %10lld  %s\n", c.name.substr(0, 24).c_str(), static_cast<long long>(c.n), static_cast<long long>(c.nnz),
                          c.status.substr(0, 200).c_str());
            t << buf;
            continue;
        }
        std::string st;
        for (const auto& [label, r] : {std::pair{"ours", &c.ours}, std::pair{"ALG1", &c.alg1}, std::pair{"ALG2", &c.alg2}})
            if (!r->ok()) st += std::string(st.empty() ? "" : "; ") + label + " " + r->status.substr(0, 120);
        const double sp = c.speedup();
        std::snprintf(buf, sizeof buf, "%-24s %9lld %10lld %10s %10s %10s %8s %7.1f %6.1f %9s %9s  %s\n", c.name.substr(0, 24).c_str(),
                      static_cast<long long>(c.n), static_cast<long long>(c.nnz), ms_or_status(c.ours).c_str(), ms_or_status(c.alg1).c_str(),
                      ms_or_status(c.alg2).c_str(), sp > 0 ? fmt("%.2f", sp).c_str() : "-", c.ours.ok() ? gbs(c.bytes_min(), c.ours.best_ms) : 0.0,
                      c.ours.ok() ? 100 * copy_fraction(run, c.bytes_min(), c.ours.best_ms) : 0.0, check_text(c.cusparse_check()).c_str(),
                      check_text(c.ours.ok() ? c.ours.check : -1).c_str(), st.empty() ? "ok" : st.c_str());
        t << buf;
    }
    t << "geomean speedup over the best cuSPARSE algorithm: " << (ty.speedups ? fmt("%.3f", std::exp(ty.log_speedup / ty.speedups)) : std::string("-"))
      << " over " << ty.speedups << " cases";
    for (const char* set : {"poisson", "rmat", "shared"}) {
        double lg = 0;
        int k = 0;
        for (const Case& c : run.cases)
            if (c.set == set && c.status == "ok" && c.speedup() > 0) {
                lg += std::log(c.speedup());
                ++k;
            }
        if (k) t << "; " << set << " " << fmt("%.3f", std::exp(lg / k)) << " (" << k << ")";
    }
    t << "\n";
    bool any_cg = false;
    for (const Case& c : run.cases) any_cg = any_cg || (c.status == "ok" && !c.gpu_cg.empty());
    if (any_cg) {
        t << "\nCG (GMRES(" << gmres_restart << ") on the convection-diffusion cases: rows gmres:*; their ilu0 is factored and swept as ic0 is below), tol " << cg_tol
          << ", maxit " << cg_maxit << ", b = A*ones, x0 = 0, a row per case and preconditioner. GPU cuda::solve: jacobi "
          << "on the device; ic0: IC(0) factored on the host (the CPU backend's code) on the " << it::to_string(gpu_sweep_ordering)
          << " ordering, its two triangular sweeps on the device by level sets (lvls: kernel launches per application); gpu_setup: b and x up, "
          << "SpMV plan, preconditioner (ic0: the host's ordering and factorization and the factors' upload), first residual; gpu_ms: the "
          << "iterations by CUDA events, best of up to " << cg_max_runs << " after a warm-up (each batch of iterations one CUDA graph; kern_ms: "
          << "the same solve launched kernel by kernel). Host iterative::solve (omp, " << run.host_threads
          << " threads), one solve each, setup (ordering, factorization, sweep schedule) timed apart: host_* with the GPU's preconditioner and "
          << "ordering (iterations should match), alt_* the same preconditioner on the CPU's own ordering (alt). *_res: true residual "
          << "||b - A x|| / ||b||; speedup: the fastest host solve of the row (converged ones first) / gpu_ms; outcome: stop reasons other than "
          << "converged, DIFFERS where the GPU and host_* disagree (converged or not, iterations more than 10% + 3 apart)\n";
        std::snprintf(buf, sizeof buf, "%-24s %-16s %6s %9s %9s %9s %8s %8s %5s | %6s %9s %9s %8s | %-4s %6s %9s %9s %8s | %7s  %s\n", "case", "precond",
                      "gpu_it", "gpu_setup", "gpu_ms", "kern_ms", "ms/it", "gpu_res", "lvls", "host_it", "h_setup", "host_ms", "host_res", "alt", "alt_it", "a_setup", "alt_ms",
                      "alt_res", "speedup", "outcome");
        t << buf;
        struct HostCells {
            std::string iterations, setup, solve, residual;
        };
        const auto host_cells = [](const HostCg* h) {
            if (!h) return HostCells{"-", "-", "-", "-"};
            if (!h->ok()) return HostCells{"FAILED", "-", "-", "-"};
            return HostCells{std::to_string(h->res.iterations), fmt("%.2f", h->setup_ms), fmt("%.2f", h->solve_ms), fmt("%.1e", h->true_residual)};
        };
        std::vector<std::string> labels;
        std::vector<double> log_sp;
        std::vector<int> n_sp;
        for (const Case& c : run.cases) {
            if (c.status != "ok") continue;
            for (const GpuCg& g : c.gpu_cg) {
                const HostCg* same = same_host(c, g);
                const HostCg* alt = nullptr;
                for (const HostCg& h : c.host_cg)
                    if (h.tag.method == g.tag.method && h.tag.precond == g.tag.precond && !(h.tag == g.tag)) {
                        alt = &h;
                        break;
                    }
                const HostCg* best = fastest_host(c, g);
                const double sp = cg_speedup(g, best);
                std::string outcome = outcome_differs(g, same) ? "DIFFERS" : "";
                const auto add = [&](const std::string& who, const it::SolveResult& r) {
                    if (!r.converged) outcome += (outcome.empty() ? "" : "; ") + who + " " + it::to_string(r.reason);
                };
                if (g.ok()) add("gpu", g.res);
                for (const HostCg* h : {same, alt})
                    if (h && h->ok()) add("host " + h->tag.label(), h->res);
                if (outcome.empty()) outcome = g.ok() ? "converged" : "-";
                const HostCells hc = host_cells(same), ac = host_cells(alt);
                const bool gok = g.ok();
                std::snprintf(buf, sizeof buf, "%-24s %-16s %6s %9s %9s %9s %8s %8s %5s | %6s %9s %9s %8s | %-4s %6s %9s %9s %8s | %7s  %s\n",
                              c.name.substr(0, 24).c_str(), g.tag.label().substr(0, 16).c_str(), gok ? std::to_string(g.res.iterations).c_str() : "FAILED",
                              gok ? fmt("%.2f", g.st.setup_ms).c_str() : "-", gok ? fmt("%.2f", g.st.solve_ms).c_str() : "-",
                              gok && g.solve_ms_kernels >= 0 ? fmt("%.2f", g.solve_ms_kernels).c_str() : "-",
                              gok && g.res.iterations > 0 ? fmt("%.4f", g.st.solve_ms / double(g.res.iterations)).c_str() : "-",
                              gok ? fmt("%.1e", g.true_residual).c_str() : "-", gok && g.st.sweep_levels > 0 ? std::to_string(g.st.sweep_levels).c_str() : "-",
                              hc.iterations.c_str(), hc.setup.c_str(), hc.solve.c_str(), hc.residual.c_str(),
                              alt ? alt->tag.ordering.substr(0, 4).c_str() : "-", ac.iterations.c_str(), ac.setup.c_str(), ac.solve.c_str(),
                              ac.residual.c_str(), sp > 0 ? fmt("%.1f", sp).c_str() : "-", outcome.substr(0, 160).c_str());
                t << buf;
                if (!gok) t << "    gpu " << g.tag.label() << ": " << g.status.substr(0, 300) << "\n";
                for (const HostCg* h : {same, alt})
                    if (h && !h->ok()) t << "    host " << h->tag.label() << ": " << h->status.substr(0, 300) << "\n";
                if (sp > 0 && g.res.converged) {
                    const std::size_t k = static_cast<std::size_t>(std::find(labels.begin(), labels.end(), g.tag.label()) - labels.begin());
                    if (k == labels.size()) {
                        labels.push_back(g.tag.label());
                        log_sp.push_back(0);
                        n_sp.push_back(0);
                    }
                    log_sp[k] += std::log(sp);
                    ++n_sp[k];
                }
            }
        }
        t << "CG geomean speedup of the GPU solve over the fastest host solve (GPU converged):";
        for (std::size_t k = 0; k < labels.size(); ++k)
            t << (k ? "; " : " ") << labels[k] << " " << fmt("%.2f", std::exp(log_sp[k] / n_sp[k])) << " (" << n_sp[k] << " cases)";
        if (labels.empty()) t << " -";
        t << "\n";
    }
    if (!run.skipped.empty()) {
        t << "\n" << run.skipped.size() << " cases skipped (not started within the time budget of " << run.args.time_budget << " s):";
        for (const std::string& s : run.skipped) t << " " << s;
        t << "\n";
    }
    if (!run.complex_runs.empty()) {
        t << "\nComplex values (complex<double>, int32; herm: Hermitian positive definite, helm: lossy Helmholtz, 64^3), tol " << cg_tol
          << ", b = A (1 + i); the GPU's sweeps on multicolor, the host's on the ordering shown; solve ms (setup apart); speedup: host / GPU\n";
        std::snprintf(buf, sizeof buf, "%-6s %-9s %-7s %-12s %8s %10s %10s %8s %10s %10s %8s\n", "matrix", "method", "precond", "host order", "gpu_it",
                      "gpu_ms", "gpu_res", "host_it", "host_ms", "host_res", "speedup");
        t << buf;
        for (const ComplexRun& c : run.complex_runs) {
            std::snprintf(buf, sizeof buf, "%-6s %-9s %-7s %-12s %8lld %10.2f %10.1e %8lld %10.2f %10.1e %8.2f%s%s\n", c.problem.c_str(), c.method.c_str(),
                          c.precond.c_str(), c.ordering.c_str(), static_cast<long long>(c.gpu_iterations), c.gpu_solve_ms, c.gpu_true_residual,
                          static_cast<long long>(c.host_iterations), c.host_solve_ms, c.host_true_residual,
                          c.gpu_solve_ms > 0 && c.host_solve_ms > 0 ? c.host_solve_ms / c.gpu_solve_ms : 0.0,
                          c.gpu_status == "ok" ? "" : ("  GPU " + c.gpu_status).c_str(), c.host_status == "ok" ? "" : ("  host " + c.host_status).c_str());
            t << buf;
        }
    }
    t << "\nresult: mismatches=" << ty.mismatches << " host_mismatches=" << ty.host_mismatches << " gigasparse_failures=" << ty.ours_failed
      << " case_failures=" << ty.case_failed << " cg_gpu_failures=" << ty.cg_gpu_failed << " cg_outcome_differs=" << ty.cg_disagree
      << " cusparse_failures=" << ty.cusparse_failed << " cases=" << run.cases.size() << " skipped=" << run.skipped.size() << "\n";
    return t.str();
}

std::string json(const Run& run, bool finished) {
    const Tally ty = tally(run);
    Json j;
    j.set("benchmark", "krylov_cuda").set("finished", finished);
    j.set("context", run.context);
    Json o;
    o.set("repeats", run.args.repeats).set("time_budget_s", run.args.time_budget).set("quick", run.args.quick).set("value_type", "double").set("index_type", "int32");
    o.set("matrix_dir", run.matrix_dir).set("check_tol", check_tol).set("cg_tol", cg_tol).set("cg_maxit", cg_maxit).set("cg_max_runs", cg_max_runs);
    o.set("min_shared_nnz", min_shared_nnz).set("l2_flush_bytes", run.flush_bytes).set("warm_batch_ms", warm_batch_ms);
    j.set("options", o);
    std::string cases = "[";
    for (std::size_t i = 0; i < run.cases.size(); ++i) {
        cases += i ? ",\n  " : "\n  ";
        cases += case_json(run, run.cases[i]).str();
    }
    j.set_raw("cases", cases + "\n]");
    std::string skipped = "[";
    for (std::size_t i = 0; i < run.skipped.size(); ++i) {
        if (i) skipped += ',';
        skipped += gs::tools::json_escape(run.skipped[i]);
    }
    j.set_raw("skipped", skipped + "]");
    std::string cx = "[";
    for (std::size_t i = 0; i < run.complex_runs.size(); ++i) {
        const ComplexRun& c = run.complex_runs[i];
        Json e;
        e.set("problem", c.problem).set("method", c.method).set("precond", c.precond).set("host_ordering", c.ordering).set("n", c.n).set("nnz", c.nnz);
        e.set("gpu_status", c.gpu_status).set("gpu_iterations", c.gpu_iterations).set("gpu_converged", c.gpu_converged).set("gpu_setup_ms", c.gpu_setup_ms);
        e.set("gpu_solve_ms", c.gpu_solve_ms).set("gpu_true_residual", c.gpu_true_residual).set("host_status", c.host_status);
        e.set("host_iterations", c.host_iterations).set("host_converged", c.host_converged).set("host_setup_ms", c.host_setup_ms);
        e.set("host_solve_ms", c.host_solve_ms).set("host_true_residual", c.host_true_residual);
        e.set("speedup_solve", c.gpu_solve_ms > 0 && c.host_solve_ms > 0 ? c.host_solve_ms / c.gpu_solve_ms : 0.0);
        cx += (i ? ",\n  " : "\n  ") + e.str();
    }
    j.set_raw("complex", cx + "\n]");
    Json s;
    s.set("geomean_speedup", ty.speedups ? std::exp(ty.log_speedup / ty.speedups) : 0.0).set("speedup_cases", ty.speedups);
    s.set("mismatches", ty.mismatches).set("host_mismatches", ty.host_mismatches).set("gigasparse_failures", ty.ours_failed);
    s.set("case_failures", ty.case_failed).set("cg_gpu_failures", ty.cg_gpu_failed).set("cg_outcome_differs", ty.cg_disagree);
    s.set("cusparse_failures", ty.cusparse_failed);
    j.set("summary", s);
    return j.str() + "\n";
}

void write_outputs(const Run& run, bool finished) {
    gs::tools::write_file_atomic(run.args.outdir + "/krylov_cuda.json", json(run, finished), "bench_krylov_cuda");
    const std::string s = summary(run, finished);
    gs::tools::write_file_atomic(run.args.outdir + "/krylov_cuda_summary.txt", s, "bench_krylov_cuda");
    if (finished) std::printf("%s", s.c_str());
}

void collect_context(Run& run, cusparseHandle_t h) {
    run.context = gs::tools::run_context();
    if (const char* rev = std::getenv("GIGASPARSE_GIT_REV")) run.context.set("git", rev);
    run.device = gc::device_summary();
    run.driver = gs::tools::nvidia_driver_version();
    int v = 0;
    run.context.set("gpu", run.device);
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, 0) == cudaSuccess) {
        run.context.set("gpu_name", p.name).set("sm", std::to_string(p.major) + std::to_string(p.minor)).set("sms", p.multiProcessorCount);
        run.context.set("gpu_memory_bytes", static_cast<std::int64_t>(p.totalGlobalMem));
    }
    (void)cudaGetLastError();
    int l2 = 0;
    if (cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0) == cudaSuccess) run.l2_bytes = l2;
    (void)cudaGetLastError();
    run.context.set("l2_bytes", run.l2_bytes);
    run.context.set("nvidia_driver", run.driver);
    if (cudaDriverGetVersion(&v) == cudaSuccess) run.context.set("cuda_driver_api", gs::tools::cuda_version_text(v)).set("cuda_driver_api_int", v);
    if (cudaRuntimeGetVersion(&v) == cudaSuccess) {
        run.runtime = gs::tools::cuda_version_text(v);
        run.context.set("cuda_runtime", run.runtime).set("cuda_runtime_int", v);
    }
    (void)cudaGetLastError();
    if (h && cusparseGetVersion(h, &v) == CUSPARSE_STATUS_SUCCESS) {
        run.cusparse = std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 100) + "." + std::to_string(v % 100);
        run.context.set("cusparse_version", run.cusparse).set("cusparse_version_int", v);
    }
    run.context.set("cusparse_header_version", static_cast<std::int64_t>(CUSPARSE_VERSION)).set("cusparse_spmv_preprocess", BENCH_HAVE_SPMV_PREPROCESS != 0);
    run.host_threads = omp_get_max_threads();
}

}  // namespace

int main(int argc, char** argv) {
    Run run;
    if (!gs::tools::parse_bench_args(argc, argv, "bench_krylov_cuda", run.args)) return 2;
    const gs::Timer clock;
    std::error_code ec;
    std::filesystem::create_directories(run.args.outdir, ec);
    if (gc::device_count() == 0) {
        std::fprintf(stderr, "bench_krylov_cuda: %s\n", gc::device_summary().c_str());
        return 1;
    }
    const char* env_dir = std::getenv("GIGASPARSE_MATRIX_DIR");
    run.matrix_dir = env_dir && *env_dir ? env_dir : GIGASPARSE_MATRIX_DIR;

    Gpu g;
    g.repeats = run.args.repeats;
    cusparseHandle_t h = nullptr;
    if (const cusparseStatus_t st = cusparseCreate(&h); st != CUSPARSE_STATUS_SUCCESS) {
        g.handle_error = std::string("cusparseCreate: ") + cusparseGetErrorString(st);
        std::fprintf(stderr, "bench_krylov_cuda: %s (cuSPARSE parts fail)\n", g.handle_error.c_str());
        h = nullptr;
    }
    std::optional<gc::Stream> stream;  // outlives everything allocated on it; the handle is destroyed first
    try {
        collect_context(run, h);
        stream.emplace();
        const cudaStream_t s = stream->get();
        g.stream = &*stream;
        if (h) {
            if (const cusparseStatus_t st = cusparseSetStream(h, s); st != CUSPARSE_STATUS_SUCCESS) {
                g.handle_error = std::string("cusparseSetStream: ") + cusparseGetErrorString(st);
                (void)cusparseDestroy(h);
                h = nullptr;
            }
        }
        g.handle = h;
        try {
            run.copy_bw = copy_bandwidth(s);
            run.copy_status = "ok";
        } catch (const std::exception& e) {
            run.copy_status = failed(e);
            std::fprintf(stderr, "bench_krylov_cuda: copy bandwidth %s\n", run.copy_status.c_str());
            clear_cuda_error(s);
        }
        gc::release_cached_memory();
        run.context.set("copy_bandwidth_gbs", run.copy_bw * 1e-9).set("copy_bandwidth_status", run.copy_status);
        L2Flush flush;
        run.flush_bytes = run.l2_bytes > 0 ? 2 * run.l2_bytes : std::int64_t(256) << 20;
        try {
            flush.buf.allocate(run.flush_bytes, gc::Placement{s, nullptr});
        } catch (const std::exception& e) {
            std::fprintf(stderr, "bench_krylov_cuda: no L2 flush buffer (%s): timed runs may find the matrix in L2\n", e.what());
            run.flush_bytes = 0;
            clear_cuda_error(s);
        }
        g.flush = &flush;

        std::vector<Spec> specs{{"poisson", "poisson3d_64", 64, "", "spd"}, {"rmat", "rmat18_ef16", 18, "", "graph"}, {"convdiff", "convdiff3d_64", 64, "", "unsym"}};
        if (!run.args.quick) {
            for (Spec& sp : shared_specs(run.matrix_dir)) specs.push_back(sp);
            specs.push_back({"poisson", "poisson3d_128", 128, "", "spd"});
            specs.push_back({"rmat", "rmat20_ef16", 20, "", "graph"});
            specs.push_back({"poisson", "poisson3d_192", 192, "", "spd"});
            specs.push_back({"rmat", "rmat22_ef16", 22, "", "graph"});
        }
        write_outputs(run, false);
        for (const Spec& sp : specs) {
            if (clock.seconds() > run.args.time_budget) {
                run.skipped.push_back(sp.name);
                continue;
            }
            Case c;
            c.name = sp.name;
            c.set = sp.set;
            c.kind = sp.kind;
            try {
                Mat a;
                if (!load(sp, run.matrix_dir, c, a)) continue;
                std::fprintf(stderr, "%8.1f s  %s: n %lld, nnz %lld (loaded in %.1f s)\n", clock.seconds(), c.name.c_str(), static_cast<long long>(a.nrows),
                             static_cast<long long>(a.nnz()), c.load_s);
                run_case(c, a, g);
            } catch (const std::exception& e) {
                c.status = failed(e);
                clear_cuda_error(s);
            }
            std::string cg;  // ", CG jacobi gpu 12 it 3.1 ms / host 12 it 9.0 ms, ..."
            for (const GpuCg& gr : c.gpu_cg) {
                const HostCg* hc = same_host(c, gr);
                cg += std::string(cg.empty() ? ", CG " : ", ") + gr.tag.label() + " gpu " +
                      (gr.ok() ? std::to_string(gr.res.iterations) + " it " + fmt("%.1f", gr.st.solve_ms) + " ms" : std::string("FAILED")) + " / host " +
                      (hc && hc->ok() ? std::to_string(hc->res.iterations) + " it " + fmt("%.1f", hc->solve_ms) + " ms" : std::string(hc ? "FAILED" : "-"));
            }
            std::fprintf(stderr, "%8.1f s  %s done (%.1f s): ours %s ms, ALG1 %s, ALG2 %s, check %s%s%s%s\n", clock.seconds(), c.name.c_str(), c.wall_s,
                         ms_or_status(c.ours).c_str(), ms_or_status(c.alg1).c_str(), ms_or_status(c.alg2).c_str(), check_text(c.cusparse_check()).c_str(),
                         cg.c_str(), c.status == "ok" ? "" : ", ", c.status == "ok" ? "" : c.status.c_str());
            run.cases.push_back(std::move(c));
            try {
                gc::release_cached_memory();
            } catch (const std::exception& e) {
                std::fprintf(stderr, "bench_krylov_cuda: release_cached_memory: %s\n", e.what());
            }
            write_outputs(run, false);
        }
        if (clock.seconds() <= run.args.time_budget) {
            try {
                complex_part(run, 64);
            } catch (const std::exception& e) {
                std::fprintf(stderr, "bench_krylov_cuda: complex part: %s\n", e.what());
                run.context.set("complex_error", e.what());
                clear_cuda_error(s);
            }
        } else {
            run.skipped.push_back("complex64^3");
        }
        write_outputs(run, true);
    } catch (const std::exception& e) {
        // outside any case (context, stream): what was measured so far is kept
        std::fprintf(stderr, "bench_krylov_cuda: %s\n", e.what());
        run.context.set("fatal_error", e.what());
        write_outputs(run, true);
    }
    if (h) (void)cusparseDestroy(h);
    return 0;
}
