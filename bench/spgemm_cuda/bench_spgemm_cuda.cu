// bench/spgemm_cuda/bench_spgemm_cuda.cu: gMAGNUS vs cuSPARSE SpGEMM (best of ALG1/ALG2/ALG3) on R-MAT and A² of the shared matrices.
//
// Usage: bench_spgemm_cuda OUTDIR [--scales LO HI] [--big-from S] [--repeats N] [--max-nnz N] [--time-budget SECONDS] [--multisplit-threads 256|512|1024] [--outer-threads N] [--block-light-rows] [--warp-row-products N] [--light-streams N] [--wide-hash-blocks] [--two-pass-light-rows] [--smem-sort] [--bitonic-sort] [--split-tables] [--hashed-light-rows] [--resident-blocks N] [--heavy-threshold N] [--no-dense-wide-rows] [--dense-wide-windows N] [--dense-wide-walk N] [--fixed-dense-wide-walk] [--no-small-products] [--small-row-products N] [--epr N] [--gigasparse-only]
// Cases not started within the time budget are listed as skipped; the outputs are rewritten after
// every case. Shared matrices come from $GIGASPARSE_MATRIX_DIR, else the configured directory.
// Writes OUTDIR/spgemm_cuda.json and OUTDIR/spgemm_cuda_summary.txt and prints the summary table.
// Times are end to end on device-resident inputs and output, by the host's clock from the call to
// the device's end (parameters, allocations, host waits and launches included), best of N after one
// warm-up, gigasparse's without its phase-time events; the device's own event times are kept beside
// them (`*_device_ms`: cuSPARSE's from the same runs, gigasparse's from one more product with its
// phases timed, whose host time is `gigasparse_phases_ms`). cuSPARSE (ALG1, ALG2,
// ALG3 with chunk fractions 0.2 and 0.5; best taken; buffers from a memory pool kept between its
// runs, as gigasparse's is) output is compared with gigasparse's (pattern exact, values 1e-3 of the
// row's largest) when C fits cuSPARSE's 32-bit offsets and an eighth of the host's memory.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <cuda_runtime.h>
#include <cusparse.h>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/timer.hpp>
#include <gigasparse/cuda/device.hpp>
#include <gigasparse/cuda/device_matrix.hpp>
#include <gigasparse/cuda/spgemm.hpp>
#include <gigasparse/cuda/spgemm_plan.hpp>
#include <gigasparse/gen/generators.hpp>
#include <gigasparse/io/matrix_market.hpp>

#include "bench_output.hpp"

namespace gs = gigasparse;
using V = float;
using I = std::int32_t;
using Mat = gs::Csr<V, I>;

namespace {

using gs::bench_cuda::Context;
using gs::bench_cuda::Result;
using gs::bench_cuda::write_outputs;

std::string compare(const Mat& ours, const Mat& other) { return gs::bench_cuda::compare_products(ours, other); }

bool cu_ok(cudaError_t e) { return e == cudaSuccess; }

// cuSPARSE's work buffers and C come from the device's default memory pool, kept between calls
// (release threshold unlimited), on the legacy default stream its handle uses: its repeated runs
// reuse memory as gigasparse's pool lets ours, instead of paying cudaMalloc/cudaFree each time.
// trim_cusparse_pool() hands the memory back between the libraries' turns.
cudaMemPool_t cusparse_pool() {
    static cudaMemPool_t pool = [] {
        cudaMemPool_t p = nullptr;
        if (cu_ok(cudaDeviceGetDefaultMemPool(&p, 0))) {
            std::uint64_t unlimited = ~std::uint64_t(0);
            (void)cudaMemPoolSetAttribute(p, cudaMemPoolAttrReleaseThreshold, &unlimited);
        }
        (void)cudaGetLastError();
        return p;
    }();
    return pool;
}
cudaError_t pool_alloc(void** p, std::size_t bytes) {
    cusparse_pool();
    return cudaMallocAsync(p, std::max<std::size_t>(bytes, 1), cudaStream_t{});
}
void pool_free(void* p) {
    if (p) (void)cudaFreeAsync(p, cudaStream_t{});
}
void trim_cusparse_pool() {
    (void)cudaDeviceSynchronize();
    if (cudaMemPool_t p = cusparse_pool()) (void)cudaMemPoolTrimTo(p, 0);
    (void)cudaGetLastError();
}

// A and B uploaded once per case (32-bit row offsets for cuSPARSE); freed by the destructor.
struct DevCsr {
    std::int64_t nrows = 0, ncols = 0, nnz = 0;
    int *ptr = nullptr, *col = nullptr;
    float* val = nullptr;
    bool ok = false;
    explicit DevCsr(const Mat& a) : nrows(a.nrows), ncols(a.ncols), nnz(a.nnz()) {
        if (nnz > std::numeric_limits<int>::max()) return;  // cuSPARSE with 32-bit offsets
        std::vector<int> p(a.row_ptr.begin(), a.row_ptr.end());
        const auto n1 = std::max<std::int64_t>(nnz, 1);
        ok = cu_ok(cudaMalloc(&ptr, p.size() * sizeof(int))) && cu_ok(cudaMalloc(&col, n1 * sizeof(int))) && cu_ok(cudaMalloc(&val, n1 * sizeof(float))) &&
             cu_ok(cudaMemcpy(ptr, p.data(), p.size() * sizeof(int), cudaMemcpyHostToDevice)) &&
             cu_ok(cudaMemcpy(col, a.col_idx.data(), nnz * sizeof(int), cudaMemcpyHostToDevice)) &&
             cu_ok(cudaMemcpy(val, a.values.data(), nnz * sizeof(float), cudaMemcpyHostToDevice));
        (void)cudaGetLastError();
    }
    ~DevCsr() {
        for (void* q : {static_cast<void*>(ptr), static_cast<void*>(col), static_cast<void*>(val)})
            if (q) cudaFree(q);
    }
    DevCsr(const DevCsr&) = delete;
    DevCsr& operator=(const DevCsr&) = delete;
};

// The objects of one cuSPARSE SpGEMM: A and B described, C described empty with its row offsets
// allocated, a SpGEMM descriptor and two events; work buffers and C's arrays allocated through it.
// Everything is freed with it. sp()/cu() check a call and keep the failure in `why`; `ok` is false
// from the first failure on, and every later step is skipped.
struct CusparseSpgemm {
    std::string& why;
    bool ok = true;
    cusparseSpMatDescr_t ma = nullptr, mb = nullptr, mc = nullptr;
    cusparseSpGEMMDescr_t d = nullptr;
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    gs::Timer wall;  // from construction: C's row offsets are allocated there
    double device_ms = -1;  // event time of the last start()..stop()
    int *dcp = nullptr, *dci = nullptr;
    float* dcv = nullptr;
    std::int64_t nnz_c = 0;
    std::vector<void*> buffers;

    CusparseSpgemm(const DevCsr& a, const DevCsr& b, std::string& w) : why(w) {
        if (!a.ok || !b.ok) fail("inputs not on the device");
        check_cu(pool_alloc(reinterpret_cast<void**>(&dcp), (a.nrows + 1) * sizeof(int)), "cudaMallocAsync C.rowptr") && check_cu(cudaEventCreate(&e0), "event") &&
            check_cu(cudaEventCreate(&e1), "event");
        sp(cusparseCreateCsr(&ma, a.nrows, a.ncols, a.nnz, a.ptr, a.col, a.val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                             CUDA_R_32F),
           "createCsr A");
        sp(cusparseCreateCsr(&mb, b.nrows, b.ncols, b.nnz, b.ptr, b.col, b.val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                             CUDA_R_32F),
           "createCsr B");
        sp(cusparseCreateCsr(&mc, a.nrows, b.ncols, 0, nullptr, nullptr, nullptr, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                             CUDA_R_32F),
           "createCsr C");
        sp(cusparseSpGEMM_createDescr(&d), "SpGEMM_createDescr");
    }
    ~CusparseSpgemm() {
        (void)cudaGetLastError();
        if (d) cusparseSpGEMM_destroyDescr(d);
        for (cusparseSpMatDescr_t m : {ma, mb, mc})
            if (m) cusparseDestroySpMat(m);
        for (void* p : {static_cast<void*>(dcp), static_cast<void*>(dci), static_cast<void*>(dcv)}) pool_free(p);
        for (void* p : buffers) pool_free(p);
        if (e0) cudaEventDestroy(e0);
        if (e1) cudaEventDestroy(e1);
        (void)cudaGetLastError();
    }
    CusparseSpgemm(const CusparseSpgemm&) = delete;
    CusparseSpgemm& operator=(const CusparseSpgemm&) = delete;

    bool fail(const std::string& what) {
        if (ok) why = what;
        ok = false;
        return false;
    }
    bool sp(cusparseStatus_t st, const char* what) {
        if (ok && st != CUSPARSE_STATUS_SUCCESS) fail(std::string(what) + ": " + cusparseGetErrorString(st));
        return ok;
    }
    bool check_cu(cudaError_t st, const char* what) {
        if (ok && st != cudaSuccess) fail(std::string(what) + ": " + cudaGetErrorString(st));
        return ok;
    }
    // A work buffer of `bytes` (at least 1), freed with this object (or at once with release()).
    void* buffer(std::size_t bytes, const char* what) {
        void* p = nullptr;
        if (ok && check_cu(pool_alloc(&p, bytes), what)) buffers.push_back(p);
        return p;
    }
    void release(void* p) {
        for (void*& q : buffers)
            if (q == p && p) {
                pool_free(p);
                q = nullptr;
            }
    }
    // C's size from cuSPARSE, its columns and values allocated and set.
    bool allocate_c() {
        std::int64_t rows = 0, cols = 0;
        return sp(cusparseSpMatGetSize(mc, &rows, &cols, &nnz_c), "SpMatGetSize") &&
               check_cu(pool_alloc(reinterpret_cast<void**>(&dci), std::max<std::int64_t>(nnz_c, 1) * sizeof(int)), "cudaMallocAsync C.col") &&
               check_cu(pool_alloc(reinterpret_cast<void**>(&dcv), std::max<std::int64_t>(nnz_c, 1) * sizeof(float)), "cudaMallocAsync C.val") &&
               sp(cusparseCsrSetPointers(mc, dcp, dci, dcv), "CsrSetPointers");
    }
    void start() {
        wall.reset();
        if (ok) cudaEventRecord(e0);
    }
    // Host milliseconds since start() (or construction), after the device finished (-1 after a
    // failure); device_ms gets the events' time.
    double stop() {
        if (!ok) return -1;
        cudaEventRecord(e1);
        if (!check_cu(cudaEventSynchronize(e1), "cudaEventSynchronize")) return -1;
        const double ms = wall.seconds() * 1e3;
        float t = 0;
        cudaEventElapsedTime(&t, e0, e1);
        device_ms = t;
        return ms;
    }
    // C to the host (32-bit row offsets widened).
    bool download(std::int64_t nrows, std::int64_t ncols, Mat& out) {
        std::vector<int> cp(nrows + 1);
        out.nrows = nrows;
        out.ncols = ncols;
        out.col_idx.resize(nnz_c);
        out.values.resize(nnz_c);
        const bool done = check_cu(cudaMemcpy(cp.data(), dcp, cp.size() * sizeof(int), cudaMemcpyDeviceToHost), "D2H") &&
                          check_cu(cudaMemcpy(out.col_idx.data(), dci, nnz_c * sizeof(int), cudaMemcpyDeviceToHost), "D2H") &&
                          check_cu(cudaMemcpy(out.values.data(), dcv, nnz_c * sizeof(float), cudaMemcpyDeviceToHost), "D2H");
        out.row_ptr.assign(cp.begin(), cp.end());
        return done;
    }
};

// One cuSPARSE SpGEMM (the generic API's documented sequence): workEstimation (size query, then
// with buffer1); ALG2/ALG3: estimateMemory (size query of buffer3, then with buffer3, which gives
// bufferSize2; chunk_fraction is read by ALG3 only, ALG2 gets a valid 1.0); ALG1: compute as the
// size query of buffer2; then compute with buffer2, GetSize, allocate C, SetPointers, copy (compute
// alone does not fill C's row offsets). Timed by the host's clock from the descriptors' creation
// to the end of the copy, allocations of the work buffers and of C included, like ours. Returns ms
// (*device_ms: the events' time from the first call), or -1 with `why` set.
double cusparse_run(cusparseHandle_t h, const DevCsr& a, const DevCsr& b, cusparseSpGEMMAlg_t alg, float chunk_fraction, Mat* out, std::string& why,
                    double* device_ms) {
    CusparseSpgemm g(a, b, why);
    const float alpha = 1, beta = 0;
    const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    if (g.ok) cudaEventRecord(g.e0);  // g.wall runs from the construction
    std::size_t s1 = 0, s2 = 0, s3 = 0;
    g.sp(cusparseSpGEMM_workEstimation(h, op, op, &alpha, g.ma, g.mb, &beta, g.mc, CUDA_R_32F, alg, g.d, &s1, nullptr), "workEstimation(size)");
    void* b1 = g.buffer(s1, "cudaMallocAsync buffer1");
    g.sp(cusparseSpGEMM_workEstimation(h, op, op, &alpha, g.ma, g.mb, &beta, g.mc, CUDA_R_32F, alg, g.d, &s1, b1), "workEstimation");
    if (alg != CUSPARSE_SPGEMM_ALG1) {
        g.sp(cusparseSpGEMM_estimateMemory(h, op, op, &alpha, g.ma, g.mb, &beta, g.mc, CUDA_R_32F, alg, g.d, chunk_fraction, &s3, nullptr, nullptr),
             "estimateMemory(size)");
        void* b3 = g.buffer(s3, "cudaMallocAsync buffer3");
        g.sp(cusparseSpGEMM_estimateMemory(h, op, op, &alpha, g.ma, g.mb, &beta, g.mc, CUDA_R_32F, alg, g.d, chunk_fraction, &s3, b3, &s2),
             "estimateMemory");
        g.release(b3);  // may be freed once estimateMemory returned (cuSPARSE sample spgemm_mem)
    } else {
        g.sp(cusparseSpGEMM_compute(h, op, op, &alpha, g.ma, g.mb, &beta, g.mc, CUDA_R_32F, alg, g.d, &s2, nullptr), "compute(size)");
    }
    void* b2 = g.buffer(s2, "cudaMallocAsync buffer2");
    g.sp(cusparseSpGEMM_compute(h, op, op, &alpha, g.ma, g.mb, &beta, g.mc, CUDA_R_32F, alg, g.d, &s2, b2), "compute");
    g.allocate_c();
    g.sp(cusparseSpGEMM_copy(h, op, op, &alpha, g.ma, g.mb, &beta, g.mc, CUDA_R_32F, alg, g.d), "SpGEMM_copy");
    const double ms = g.stop();
    *device_ms = g.device_ms;
    if (ms >= 0 && out && !g.download(a.nrows, b.ncols, *out)) return -1;
    return ms;
}

// cuSPARSE's numeric reuse (the documented sequence of the reuse API, CUSPARSE_SPGEMM_DEFAULT):
// reuse_workEstimation, reuse_nnz, C allocated, reuse_copy (pattern, untimed), then
// reuse_compute timed alone (host clock to the device's end), best of `repeats` after a warm-up.
// Returns ms, or -1 with `why`.
double cusparse_reuse(cusparseHandle_t h, const DevCsr& a, const DevCsr& b, int repeats, std::string& why) {
    CusparseSpgemm g(a, b, why);
    const float alpha = 1, beta = 0;
    const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    const auto alg = CUSPARSE_SPGEMM_DEFAULT;
    std::size_t s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0;
    g.sp(cusparseSpGEMMreuse_workEstimation(h, op, op, g.ma, g.mb, g.mc, alg, g.d, &s1, nullptr), "reuse_workEstimation(size)");
    void* b1 = g.buffer(s1, "cudaMallocAsync buffer1");
    g.sp(cusparseSpGEMMreuse_workEstimation(h, op, op, g.ma, g.mb, g.mc, alg, g.d, &s1, b1), "reuse_workEstimation");
    g.sp(cusparseSpGEMMreuse_nnz(h, op, op, g.ma, g.mb, g.mc, alg, g.d, &s2, nullptr, &s3, nullptr, &s4, nullptr), "reuse_nnz(size)");
    void* b2 = g.buffer(s2, "cudaMallocAsync buffer2");
    void* b3 = g.buffer(s3, "cudaMallocAsync buffer3");
    void* b4 = g.buffer(s4, "cudaMallocAsync buffer4");
    g.sp(cusparseSpGEMMreuse_nnz(h, op, op, g.ma, g.mb, g.mc, alg, g.d, &s2, b2, &s3, b3, &s4, b4), "reuse_nnz");
    g.allocate_c();
    g.sp(cusparseSpGEMMreuse_copy(h, op, op, g.ma, g.mb, g.mc, alg, g.d, &s5, nullptr), "reuse_copy(size)");
    void* b5 = g.buffer(s5, "cudaMallocAsync buffer5");
    g.sp(cusparseSpGEMMreuse_copy(h, op, op, g.ma, g.mb, g.mc, alg, g.d, &s5, b5), "reuse_copy");
    double best = -1;
    for (int k = 0; g.ok && k <= repeats; ++k) {
        g.start();
        g.sp(cusparseSpGEMMreuse_compute(h, op, op, &alpha, g.ma, g.mb, &beta, g.mc, CUDA_R_32F, alg, g.d), "reuse_compute");
        const double ms = g.stop();
        if (ms >= 0 && (k > 0 || repeats == 0) && (best < 0 || ms < best)) best = ms;
    }
    return g.ok ? best : -1;
}

double copy_bandwidth() {
    const std::size_t bytes = std::size_t(1) << 30;
    void *x = nullptr, *y = nullptr;
    if (!cu_ok(cudaMalloc(&x, bytes)) || !cu_ok(cudaMalloc(&y, bytes))) {
        if (x) cudaFree(x);
        (void)cudaGetLastError();
        return 0;
    }
    cudaMemset(x, 1, bytes);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    float best = 1e30f;
    for (int r = 0; r < 6; ++r) {
        cudaEventRecord(e0);
        cudaMemcpy(y, x, bytes, cudaMemcpyDeviceToDevice);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float t = 0;
        cudaEventElapsedTime(&t, e0, e1);
        if (r > 0) best = std::min(best, t);
    }
    cudaFree(x);
    cudaFree(y);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return 2.0 * double(bytes) / (best * 1e-3);  // read + write bytes per second
}

// Whether C (nnz entries) is downloaded for the checks: cuSPARSE's 32-bit offsets cannot hold more
// than INT_MAX entries (nothing to compare with), and a C above an eighth of the host's memory would
// risk the process (ours, the plan's and cuSPARSE's copies at once).
bool checkable(std::int64_t nnz) {
    const double host = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
    return nnz <= std::numeric_limits<int>::max() && double(nnz) * double(sizeof(I) + sizeof(V)) <= host / 8;
}
const char* const too_large = "n/a: C too large to check on the host";

// Empties gigasparse's memory pool (its release threshold is unlimited) before cuSPARSE's turn, as
// cuSPARSE's pool is emptied before each of ours. A failure here is left to the next call to report.
void release_gigasparse_pool() {
    try {
        gs::cuda::release_cached_memory();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "release_cached_memory: %s\n", e.what());
    }
}

// only: gigasparse's one-call product alone (timed, then once with its phases), without cuSPARSE,
// the numeric-reuse plans or the checks (--gigasparse-only: the sweeps of scripts/device-check,
// which compare gigasparse with itself; report.py takes cuSPARSE's times from the main run).
void run_case(Result& r, const Mat& a, const Mat& b, int repeats, const gs::cuda::GpuSpgemmOptions& opt, cusparseHandle_t h, bool only) {
    const gs::Timer wall;
    r.m = a.nrows;
    r.nnz_a = a.nnz();
    r.nnz_b = b.nnz();
    Mat ours;
    using DevMat = gs::cuda::DeviceMatrix<V, I>;
    DevMat ga, gb;  // gigasparse's operands on the device (uploaded once, like cuSPARSE's)
    try {
        ga = DevMat::upload(a.view());
        gb = DevMat::upload(b.view());
        double best = 1e300;
        for (int k = 0; k <= repeats; ++k) {
            const gs::Timer t;
            const DevMat c = gs::cuda::spgemm(ga, gb, opt);  // returns after the device finished; no statistics: no phase-time events
            const double ms = t.seconds() * 1e3;
            if (k == 0) {
                r.nnz_c = c.nnz();
                if (!only && checkable(c.nnz())) ours = c.download();
            }
            if (k > 0 || repeats == 0) best = std::min(best, ms);
        }
        r.ours_ms = best;
        // the statistics and phase times (CUDA events, whose records are host work the timed runs
        // leave out): one more product
        const gs::Timer t;
        (void)gs::cuda::spgemm(ga, gb, opt, &r.st);
        r.ours_phases_ms = t.seconds() * 1e3;
        r.ours_device_ms = r.st.total_ms;
        r.products = r.st.products;
    } catch (const std::exception& e) {
        r.ours_status = std::string("failed: ") + e.what();
    }
    release_gigasparse_pool();
    if (only) {
        r.cusparse_best = "not run";
        r.check = r.reuse_check = "n/a: --gigasparse-only";
        r.wall_s = wall.seconds();
        return;
    }
    const bool check = r.ours_status == "ok" && checkable(r.nnz_c);
    if (r.ours_status == "ok" && !check) r.check = r.reuse_check = too_large;
    struct Cfg {
        cusparseSpGEMMAlg_t alg;
        float frac;
        const char* name;
    };
    const Cfg cfgs[] = {{CUSPARSE_SPGEMM_ALG1, 1.0f, "ALG1"}, {CUSPARSE_SPGEMM_ALG2, 1.0f, "ALG2"}, {CUSPARSE_SPGEMM_ALG3, 0.2f, "ALG3/0.2"},
                        {CUSPARSE_SPGEMM_ALG3, 0.5f, "ALG3/0.5"}};
    const DevCsr da(a), db(b);
    for (const Cfg& c : cfgs) {
        trim_cusparse_pool();  // each algorithm starts from an empty pool (what a failed one left included)
        Mat cs;
        double best = 1e300, best_device = -1;
        std::string why;
        bool failed = false;
        for (int k = 0; k <= repeats && !failed; ++k) {
            double device_ms = -1;
            const double ms = cusparse_run(h, da, db, c.alg, c.frac, k == 0 && check ? &cs : nullptr, why, &device_ms);
            if (ms < 0) {
                failed = true;
            } else if ((k > 0 || repeats == 0) && ms < best) {
                best = ms;
                best_device = device_ms;
            }
        }
        if (failed) {
            r.cusparse_failures += std::string(r.cusparse_failures.empty() ? "" : "; ") + c.name + ": " + why;
            continue;
        }
        if (r.check == "n/a" && check) r.check = compare(ours, cs);
        if (r.cusparse_ms < 0 || best < r.cusparse_ms) {
            r.cusparse_ms = best;
            r.cusparse_device_ms = best_device;
            r.cusparse_best = c.name;
        }
    }
    trim_cusparse_pool();
    // numeric reuse: one symbolic phase, then numeric phases with the values already on the device (the
    // first keeps C's columns, the timed ones after it accumulate into them)
    // (then the same without the light rows' product map: their known tables, for comparison)
    if (r.ours_status == "ok") {
        for (const bool map : {true, false}) {
            try {
                gs::cuda::GpuSpgemmOptions untimed = opt;  // no phase-time events (their records are host work)
                untimed.time_phases = false;
                untimed.light_product_map = map;
                gs::cuda::GpuSpgemmPlan<V, I> plan(untimed);
                plan.symbolic(ga, gb);
                Mat c;
                double best = 1e300;
                for (int k = 0; k <= repeats; ++k) {
                    const gs::Timer t;
                    const DevMat dc = plan.numeric(ga, gb);  // returns after the device finished
                    const double ms = t.seconds() * 1e3;
                    if (k == repeats && check) c = dc.download();  // the last: from C's kept pattern (GpuSpgemmOptions::keep_c_pattern)
                    if (k > 0 || repeats == 0) best = std::min(best, ms);
                }
                (map ? r.ours_reuse_ms : r.ours_reuse_tables_ms) = best;
                if (check) {
                    const std::string got = compare(ours, c);
                    if (map) r.reuse_check = got;
                    else if (got != "match" && r.reuse_check == "match") r.reuse_check = "known tables: " + got;
                }
            } catch (const std::exception& e) {
                if (map) r.reuse_check = std::string("failed: ") + e.what();
                else if (r.reuse_check == "match") r.reuse_check = std::string("failed: known tables: ") + e.what();
            }
            release_gigasparse_pool();
        }
    }
    std::string why;
    r.cusparse_reuse_ms = cusparse_reuse(h, da, db, repeats, why);
    trim_cusparse_pool();
    if (r.cusparse_reuse_ms < 0) r.cusparse_failures += std::string(r.cusparse_failures.empty() ? "" : "; ") + "reuse: " + why;
    r.wall_s = wall.seconds();
}

struct CaseSpec {
    int scale = 0, epr = 0;      // R-MAT: A with epr edges per row, B with 8
    std::string file, name;      // shared matrix (A² )
};

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s OUTDIR [--scales LO HI] [--big-from S] [--repeats N] [--max-nnz N] [--time-budget SECONDS] [--multisplit-threads 256|512|1024] [--outer-threads N] [--block-light-rows] [--warp-row-products N] [--light-streams N] [--wide-hash-blocks] [--two-pass-light-rows] [--smem-sort] [--bitonic-sort] [--split-tables] [--hashed-light-rows] [--resident-blocks N] [--heavy-threshold N] [--no-dense-wide-rows] [--dense-wide-windows N] [--dense-wide-walk N] [--fixed-dense-wide-walk] [--no-small-products] [--small-row-products N] [--epr N] [--gigasparse-only]\n", argv[0]);
        return 2;
    }
    Context cx;
    cx.outdir = argv[1];
    int lo = 15, hi = 20, big_from = 19;
    int only_epr = 0;  // --epr N: only the R-MAT cases whose A has N nonzeros per row (a profiler's one case)
    cx.repeats = 3;
    std::int64_t max_nnz = 5'000'000;
    cx.time_budget = 1e9;
    const gs::Timer clock;
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--scales" && i + 2 < argc) {
            lo = std::stoi(argv[++i]);
            hi = std::stoi(argv[++i]);
        } else if (a == "--big-from" && i + 1 < argc) {
            big_from = std::stoi(argv[++i]);
        } else if (a == "--repeats" && i + 1 < argc) {
            cx.repeats = std::stoi(argv[++i]);
        } else if (a == "--max-nnz" && i + 1 < argc) {
            max_nnz = std::stoll(argv[++i]);
        } else if (a == "--time-budget" && i + 1 < argc) {
            cx.time_budget = std::stod(argv[++i]);
        } else if (a == "--multisplit-threads" && i + 1 < argc) {
            cx.gpu.multisplit_threads = std::stoi(argv[++i]);
        } else if (a == "--outer-threads" && i + 1 < argc) {
            cx.gpu.outer_threads = std::stoi(argv[++i]);
        } else if (a == "--resident-blocks" && i + 1 < argc) {
            cx.gpu.resident_blocks = std::stoi(argv[++i]);
        } else if (a == "--heavy-threshold" && i + 1 < argc) {
            cx.gpu.heavy_threshold = std::stoll(argv[++i]);
        } else if (a == "--epr" && i + 1 < argc) {
            only_epr = std::stoi(argv[++i]);
        } else if (a == "--wide-hash-blocks") {
            cx.gpu.fit_hash_blocks = false;
        } else if (a == "--light-streams" && i + 1 < argc) {
            cx.gpu.light_streams = std::stoi(argv[++i]);
        } else if (a == "--warp-row-products" && i + 1 < argc) {
            cx.gpu.warp_row_products = std::stoll(argv[++i]);
        } else if (a == "--block-light-rows") {
            cx.gpu.warp_light_rows = false;
        } else if (a == "--two-pass-light-rows") {
            cx.gpu.one_pass_light_rows = false;
        } else if (a == "--bitonic-sort") {
            cx.gpu.rank_sort = false;
        } else if (a == "--split-tables") {
            cx.gpu.packed_tables = false;
        } else if (a == "--smem-sort") {
            cx.gpu.warp_sort_steps = false;
        } else if (a == "--hashed-light-rows") {
            cx.gpu.dense_light_rows = false;
        } else if (a == "--no-dense-wide-rows") {
            cx.gpu.dense_wide_rows = false;
        } else if (a == "--dense-wide-windows" && i + 1 < argc) {
            cx.gpu.dense_wide_windows = std::stoi(argv[++i]);
        } else if (a == "--dense-wide-walk" && i + 1 < argc) {
            cx.gpu.dense_wide_walk = std::stoll(argv[++i]);
        } else if (a == "--fixed-dense-wide-walk") {
            cx.gpu.dense_wide_walk_adaptive = false;
        } else if (a == "--small-row-products" && i + 1 < argc) {
            cx.gpu.small_row_products = std::stoll(argv[++i]);
        } else if (a == "--no-small-products") {
            cx.gpu.small_products = false;
        } else if (a == "--gigasparse-only") {
            cx.gigasparse_only = true;
        } else {
            std::fprintf(stderr, "bench_spgemm_cuda: unknown argument %s\n", a.c_str());
            return 2;
        }
    }
    if (gs::cuda::device_count() == 0) {
        std::fprintf(stderr, "bench_spgemm_cuda: %s\n", gs::cuda::device_summary().c_str());
        return 1;
    }
    cx.device = gs::cuda::device_summary();
    if (const char* rev = std::getenv("GIGASPARSE_GIT_REV")) cx.git = rev;
    cudaDriverGetVersion(&cx.driver);
    cx.bw = copy_bandwidth();
    cusparseHandle_t h = nullptr;
    if (cusparseCreate(&h) != CUSPARSE_STATUS_SUCCESS) {
        std::fprintf(stderr, "bench_spgemm_cuda: cusparseCreate failed\n");
        return 1;
    }
    // Order: R-MAT below --big-from, the shared matrices, then the big R-MAT scales (a time budget
    // cut then drops the slowest cases, not a whole set).
    std::vector<CaseSpec> cases;
    auto add_rmat = [&](int s0, int s1) {
        for (int s = s0; s <= s1; ++s)
            for (int epr : {4, 8, 16, 32})
                if (only_epr == 0 || epr == only_epr) cases.push_back({s, epr, "", ""});
    };
    add_rmat(lo, std::min(hi, big_from - 1));
    const char* env_dir = std::getenv("GIGASPARSE_MATRIX_DIR");
    const std::string mdir = env_dir && *env_dir ? env_dir : GIGASPARSE_MATRIX_DIR;
    {
        std::ifstream manifest(mdir + "/MANIFEST.tsv");
        if (!manifest) std::fprintf(stderr, "no %s/MANIFEST.tsv: shared matrices skipped\n", mdir.c_str());
        std::string line;
        std::getline(manifest, line);
        while (std::getline(manifest, line)) {
            std::istringstream ss(line);
            std::string file, name, group, rows, cols, nnz, sym, field;
            std::getline(ss, file, '\t');
            std::getline(ss, name, '\t');
            std::getline(ss, group, '\t');
            std::getline(ss, rows, '\t');
            std::getline(ss, cols, '\t');
            std::getline(ss, nnz, '\t');
            std::getline(ss, sym, '\t');
            std::getline(ss, field, '\t');
            try {
                if (rows != cols || field == "complex" || std::stoll(nnz) > max_nnz) continue;
            } catch (const std::exception&) {
                continue;
            }
            cases.push_back({0, 0, file, name});
        }
    }
    add_rmat(std::max(lo, big_from), hi);
    std::vector<Result> results;
    int b_scale = -1;  // B of the last R-MAT scale, reused by its four cases
    Mat b_rmat;
    for (const CaseSpec& c : cases) {
        if (clock.seconds() > cx.time_budget) {
            ++cx.skipped;
            continue;
        }
        Result r;
        try {
            if (c.file.empty()) {
                gs::gen::RmatOptions ob;
                ob.scale = c.scale;
                ob.edge_factor = 8;
                ob.seed = 1000 + c.scale;
                if (b_scale != c.scale) {
                    b_rmat = gs::gen::rmat<V, I>(ob);
                    b_scale = c.scale;
                }
                const Mat& b = b_rmat;
                gs::gen::RmatOptions oa = ob;
                oa.edge_factor = c.epr;
                oa.seed = 2000 + 100 * c.scale + c.epr;
                const Mat a = gs::gen::rmat<V, I>(oa);
                r.set = "rmat";
                r.name = "rmat" + std::to_string(c.scale) + "_a" + std::to_string(c.epr) + "_b8";
                run_case(r, a, b, cx.repeats, cx.gpu, h, cx.gigasparse_only);
            } else {
                const Mat a = gs::io::read_mtx<V, I>(mdir + "/" + c.file);
                r.set = "shared";
                r.name = c.name;
                run_case(r, a, a, cx.repeats, cx.gpu, h, cx.gigasparse_only);
            }
        } catch (const std::exception& e) {
            std::fprintf(stderr, "skipping %s: %s\n", c.file.empty() ? ("rmat" + std::to_string(c.scale)).c_str() : c.name.c_str(), e.what());
            continue;
        }
        std::fprintf(stderr, "%8.1f s  %s done (%.1f s): ours %.3f ms, cuSPARSE %.3f ms (%s), check %s%s%s\n", clock.seconds(), r.name.c_str(), r.wall_s,
                     r.ours_ms, r.cusparse_ms, r.cusparse_best.c_str(), r.check.c_str(), r.ours_status == "ok" ? "" : ", ours ",
                     r.ours_status == "ok" ? "" : r.ours_status.c_str());
        results.push_back(r);
        write_outputs(cx, results, false);
    }
    cusparseDestroy(h);
    write_outputs(cx, results, true);
    return 0;
}
