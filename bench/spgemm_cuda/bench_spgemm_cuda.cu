// bench/spgemm_cuda/bench_spgemm_cuda.cu: gMAGNUS vs cuSPARSE SpGEMM (best of ALG1/ALG2/ALG3) on R-MAT and A² of the shared matrices.
//
// Usage: bench_spgemm_cuda OUTDIR [--scales LO HI] [--big-from S] [--repeats N] [--max-nnz N] [--time-budget SECONDS] [--multisplit-threads 256|512|1024] [--outer-threads N] [--block-light-rows]
// Cases not started within the time budget are listed as skipped; the outputs are rewritten after
// every case. Shared matrices come from $GIGASPARSE_MATRIX_DIR, else the configured directory.
// Writes OUTDIR/spgemm_cuda.json and OUTDIR/spgemm_cuda_summary.txt and prints the summary table.
// Times are end to end on device-resident inputs (setup, symbolic, numeric, allocations), best of N
// after one warm-up. cuSPARSE (ALG1, ALG2, ALG3 with chunk fractions 0.2 and 0.5; best taken) output
// is compared with gigasparse's (pattern exact, values 1e-3 of the row's largest).
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

#include <cuda_runtime.h>
#include <cusparse.h>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/timer.hpp>
#include <gigasparse/cuda/device.hpp>
#include <gigasparse/cuda/spgemm.hpp>
#include <gigasparse/cuda/spgemm_plan.hpp>
#include <gigasparse/gen/generators.hpp>
#include <gigasparse/io/matrix_market.hpp>

namespace gs = gigasparse;
using V = float;
using I = std::int32_t;
using Mat = gs::Csr<V, I>;

namespace {

struct Result {
    std::string name, set;
    std::int64_t m = 0, nnz_a = 0, nnz_b = 0, products = 0, nnz_c = 0;
    double ours_ms = -1, cusparse_ms = -1, wall_s = 0;
    // numeric reuse (patterns fixed, values on the device): GpuSpgemmPlan::numeric's device time vs
    // cusparseSpGEMMreuse_compute
    double ours_reuse_ms = -1, cusparse_reuse_ms = -1;
    std::string cusparse_best = "failed", ours_status = "ok", check = "n/a", cusparse_failures, reuse_check = "n/a";
    gs::cuda::GpuSpgemmStats st;
};

bool cu_ok(cudaError_t e) { return e == cudaSuccess; }

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
    int *dcp = nullptr, *dci = nullptr;
    float* dcv = nullptr;
    std::int64_t nnz_c = 0;
    std::vector<void*> buffers;

    CusparseSpgemm(const DevCsr& a, const DevCsr& b, std::string& w) : why(w) {
        if (!a.ok || !b.ok) fail("inputs not on the device");
        check_cu(cudaMalloc(&dcp, (a.nrows + 1) * sizeof(int)), "cudaMalloc C.rowptr") && check_cu(cudaEventCreate(&e0), "event") &&
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
        for (void* p : {static_cast<void*>(dcp), static_cast<void*>(dci), static_cast<void*>(dcv)})
            if (p) cudaFree(p);
        for (void* p : buffers)
            if (p) cudaFree(p);
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
        if (ok && check_cu(cudaMalloc(&p, std::max<std::size_t>(bytes, 1)), what)) buffers.push_back(p);
        return p;
    }
    void release(void* p) {
        for (void*& q : buffers)
            if (q == p && p) {
                cudaFree(p);
                q = nullptr;
            }
    }
    // C's size from cuSPARSE, its columns and values allocated and set.
    bool allocate_c() {
        std::int64_t rows = 0, cols = 0;
        return sp(cusparseSpMatGetSize(mc, &rows, &cols, &nnz_c), "SpMatGetSize") &&
               check_cu(cudaMalloc(&dci, std::max<std::int64_t>(nnz_c, 1) * sizeof(int)), "cudaMalloc C.col") &&
               check_cu(cudaMalloc(&dcv, std::max<std::int64_t>(nnz_c, 1) * sizeof(float)), "cudaMalloc C.val") &&
               sp(cusparseCsrSetPointers(mc, dcp, dci, dcv), "CsrSetPointers");
    }
    void start() {
        if (ok) cudaEventRecord(e0);
    }
    // Milliseconds since start(), after the device finished (-1 after a failure).
    double stop() {
        if (!ok) return -1;
        cudaEventRecord(e1);
        if (!check_cu(cudaEventSynchronize(e1), "cudaEventSynchronize")) return -1;
        float t = 0;
        cudaEventElapsedTime(&t, e0, e1);
        return t;
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
// alone does not fill C's row offsets). Timed from the first call to the end of the copy,
// allocations of the work buffers and of C included, like ours. Returns ms, or -1 with `why` set.
double cusparse_run(cusparseHandle_t h, const DevCsr& a, const DevCsr& b, cusparseSpGEMMAlg_t alg, float chunk_fraction, Mat* out, std::string& why) {
    CusparseSpgemm g(a, b, why);
    const float alpha = 1, beta = 0;
    const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    g.start();
    std::size_t s1 = 0, s2 = 0, s3 = 0;
    g.sp(cusparseSpGEMM_workEstimation(h, op, op, &alpha, g.ma, g.mb, &beta, g.mc, CUDA_R_32F, alg, g.d, &s1, nullptr), "workEstimation(size)");
    void* b1 = g.buffer(s1, "cudaMalloc buffer1");
    g.sp(cusparseSpGEMM_workEstimation(h, op, op, &alpha, g.ma, g.mb, &beta, g.mc, CUDA_R_32F, alg, g.d, &s1, b1), "workEstimation");
    if (alg != CUSPARSE_SPGEMM_ALG1) {
        g.sp(cusparseSpGEMM_estimateMemory(h, op, op, &alpha, g.ma, g.mb, &beta, g.mc, CUDA_R_32F, alg, g.d, chunk_fraction, &s3, nullptr, nullptr),
             "estimateMemory(size)");
        void* b3 = g.buffer(s3, "cudaMalloc buffer3");
        g.sp(cusparseSpGEMM_estimateMemory(h, op, op, &alpha, g.ma, g.mb, &beta, g.mc, CUDA_R_32F, alg, g.d, chunk_fraction, &s3, b3, &s2),
             "estimateMemory");
        g.release(b3);  // may be freed once estimateMemory returned (cuSPARSE sample spgemm_mem)
    } else {
        g.sp(cusparseSpGEMM_compute(h, op, op, &alpha, g.ma, g.mb, &beta, g.mc, CUDA_R_32F, alg, g.d, &s2, nullptr), "compute(size)");
    }
    void* b2 = g.buffer(s2, "cudaMalloc buffer2");
    g.sp(cusparseSpGEMM_compute(h, op, op, &alpha, g.ma, g.mb, &beta, g.mc, CUDA_R_32F, alg, g.d, &s2, b2), "compute");
    g.allocate_c();
    g.sp(cusparseSpGEMM_copy(h, op, op, &alpha, g.ma, g.mb, &beta, g.mc, CUDA_R_32F, alg, g.d), "SpGEMM_copy");
    const double ms = g.stop();
    if (ms >= 0 && out && !g.download(a.nrows, b.ncols, *out)) return -1;
    return ms;
}

// cuSPARSE's numeric reuse (the documented sequence of the reuse API, CUSPARSE_SPGEMM_DEFAULT):
// reuse_workEstimation, reuse_nnz, C allocated, reuse_copy (pattern, untimed), then
// reuse_compute timed alone, best of `repeats` after a warm-up. Returns ms, or -1 with `why`.
double cusparse_reuse(cusparseHandle_t h, const DevCsr& a, const DevCsr& b, int repeats, std::string& why) {
    CusparseSpgemm g(a, b, why);
    const float alpha = 1, beta = 0;
    const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    const auto alg = CUSPARSE_SPGEMM_DEFAULT;
    std::size_t s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0;
    g.sp(cusparseSpGEMMreuse_workEstimation(h, op, op, g.ma, g.mb, g.mc, alg, g.d, &s1, nullptr), "reuse_workEstimation(size)");
    void* b1 = g.buffer(s1, "cudaMalloc buffer1");
    g.sp(cusparseSpGEMMreuse_workEstimation(h, op, op, g.ma, g.mb, g.mc, alg, g.d, &s1, b1), "reuse_workEstimation");
    g.sp(cusparseSpGEMMreuse_nnz(h, op, op, g.ma, g.mb, g.mc, alg, g.d, &s2, nullptr, &s3, nullptr, &s4, nullptr), "reuse_nnz(size)");
    void* b2 = g.buffer(s2, "cudaMalloc buffer2");
    void* b3 = g.buffer(s3, "cudaMalloc buffer3");
    void* b4 = g.buffer(s4, "cudaMalloc buffer4");
    g.sp(cusparseSpGEMMreuse_nnz(h, op, op, g.ma, g.mb, g.mc, alg, g.d, &s2, b2, &s3, b3, &s4, b4), "reuse_nnz");
    g.allocate_c();
    g.sp(cusparseSpGEMMreuse_copy(h, op, op, g.ma, g.mb, g.mc, alg, g.d, &s5, nullptr), "reuse_copy(size)");
    void* b5 = g.buffer(s5, "cudaMalloc buffer5");
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

// Pattern equal after sorting each row of `other`; values within rtol of the row's max magnitude.
std::string compare(const Mat& ours, Mat other) {
    if (ours.nrows != other.nrows || ours.row_ptr != other.row_ptr) return "row pointers differ";
    for (std::int64_t r = 0; r < other.nrows; ++r) {
        std::vector<std::pair<I, V>> row;
        for (auto j = other.row_ptr[r]; j < other.row_ptr[r + 1]; ++j) row.push_back({other.col_idx[j], other.values[j]});
        std::sort(row.begin(), row.end(), [](auto x, auto y) { return x.first < y.first; });
        double mx = 0;
        for (auto j = ours.row_ptr[r]; j < ours.row_ptr[r + 1]; ++j) mx = std::max(mx, std::abs(double(ours.values[j])));
        for (std::size_t k = 0; k < row.size(); ++k) {
            const auto j = ours.row_ptr[r] + static_cast<std::int64_t>(k);
            if (row[k].first != ours.col_idx[j]) return "columns differ in row " + std::to_string(r);
            if (std::abs(double(row[k].second) - double(ours.values[j])) > 1e-3 * std::max(mx, 1e-30))
                return "values differ in row " + std::to_string(r);
        }
    }
    return "match";
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

void run_case(Result& r, const Mat& a, const Mat& b, int repeats, const gs::cuda::GpuSpgemmOptions& opt, cusparseHandle_t h) {
    const gs::Timer wall;
    r.m = a.nrows;
    r.nnz_a = a.nnz();
    r.nnz_b = b.nnz();
    Mat ours;
    try {
        double best = 1e300;
        for (int k = 0; k <= repeats; ++k) {
            gs::cuda::GpuSpgemmStats st;
            ours = gs::cuda::spgemm<V, I>(a.view(), b.view(), opt, &st);
            if ((k > 0 || repeats == 0) && st.total_ms < best) {
                best = st.total_ms;
                r.st = st;
            }
        }
        r.ours_ms = best;
        r.products = r.st.products;
        r.nnz_c = ours.nnz();
    } catch (const std::exception& e) {
        r.ours_status = std::string("failed: ") + e.what();
    }
    struct Cfg {
        cusparseSpGEMMAlg_t alg;
        float frac;
        const char* name;
    };
    const Cfg cfgs[] = {{CUSPARSE_SPGEMM_ALG1, 1.0f, "ALG1"}, {CUSPARSE_SPGEMM_ALG2, 1.0f, "ALG2"}, {CUSPARSE_SPGEMM_ALG3, 0.2f, "ALG3/0.2"},
                        {CUSPARSE_SPGEMM_ALG3, 0.5f, "ALG3/0.5"}};
    const DevCsr da(a), db(b);
    for (const Cfg& c : cfgs) {
        Mat cs;
        double best = 1e300;
        std::string why;
        bool failed = false;
        for (int k = 0; k <= repeats && !failed; ++k) {
            const double ms = cusparse_run(h, da, db, c.alg, c.frac, k == 0 ? &cs : nullptr, why);
            if (ms < 0) failed = true;
            else if (k > 0 || repeats == 0) best = std::min(best, ms);
        }
        if (failed) {
            r.cusparse_failures += std::string(r.cusparse_failures.empty() ? "" : "; ") + c.name + ": " + why;
            continue;
        }
        if (r.check == "n/a" && r.ours_status == "ok") r.check = compare(ours, cs);
        if (r.cusparse_ms < 0 || best < r.cusparse_ms) {
            r.cusparse_ms = best;
            r.cusparse_best = c.name;
        }
    }
    // numeric reuse: one symbolic phase, then numeric phases with the values already on the device
    if (r.ours_status == "ok") {
        try {
            gs::cuda::GpuSpgemmPlan<V, I> plan(opt);
            plan.symbolic(a.view(), b.view());
            Mat c;
            double best = 1e300;
            for (int k = 0; k <= repeats; ++k) {
                plan.numeric(a.view(), b.view(), c);
                if (k > 0 || repeats == 0) best = std::min(best, plan.stats().numeric_ms);
            }
            r.ours_reuse_ms = best;
            r.reuse_check = compare(ours, c);
        } catch (const std::exception& e) {
            r.reuse_check = std::string("failed: ") + e.what();
        }
    }
    std::string why;
    r.cusparse_reuse_ms = cusparse_reuse(h, da, db, repeats, why);
    if (r.cusparse_reuse_ms < 0) r.cusparse_failures += std::string(r.cusparse_failures.empty() ? "" : "; ") + "reuse: " + why;
    r.wall_s = wall.seconds();
}

std::string json_escape(const std::string& s) {
    std::string o;
    for (char ch : s) {
        if (ch == '"' || ch == '\\') o += '\\';
        if (static_cast<unsigned char>(ch) >= 0x20) o += ch;
    }
    return o;
}

struct Context {
    std::string outdir, device;
    int driver = 0, repeats = 0, skipped = 0;
    double bw = 0, time_budget = 0;
    gs::cuda::GpuSpgemmOptions gpu;  // --multisplit-threads, --outer-threads (0: defaults), --block-light-rows
};

// Rewritten after every case, so a run stopped by its time limit still leaves its results.
void write_outputs(const Context& cx, const std::vector<Result>& results, bool finished) {
    std::ofstream js(cx.outdir + "/spgemm_cuda.json");
    js << "{\n  \"device\": \"" << json_escape(cx.device) << "\", \"driver\": " << cx.driver << ", \"copy_bandwidth_gbs\": " << cx.bw * 1e-9
       << ", \"finished\": " << (finished ? "true" : "false") << ", \"skipped_cases\": " << cx.skipped
       << ",\n  \"value_type\": \"float\", \"index_type\": \"int32\", \"repeats\": " << cx.repeats << ", \"multisplit_threads\": " << cx.gpu.multisplit_threads
       << ", \"outer_threads\": " << cx.gpu.outer_threads << ", \"warp_light_rows\": " << (cx.gpu.warp_light_rows ? "true" : "false")
       << ",\n  \"cases\": [\n";
    for (std::size_t i = 0; i < results.size(); ++i) {
        const Result& r = results[i];
        const auto& st = r.st;
        const double outer_frac = st.outer_ms > 0 && cx.bw > 0 ? double(st.outer_bytes) / (st.outer_ms * 1e-3) / cx.bw : 0;
        const double ms_frac = st.multisplit_kernels_ms > 0 && cx.bw > 0 ? double(st.multisplit_bytes) / (st.multisplit_kernels_ms * 1e-3) / cx.bw : 0;
        js << "    {\"name\": \"" << r.name << "\", \"set\": \"" << r.set << "\", \"m\": " << r.m << ", \"nnz_a\": " << r.nnz_a << ", \"nnz_b\": " << r.nnz_b
           << ", \"products\": " << r.products << ", \"nnz_c\": " << r.nnz_c << ", \"gigasparse_ms\": " << r.ours_ms << ", \"gigasparse_status\": \""
           << json_escape(r.ours_status) << "\", \"cusparse_ms\": " << r.cusparse_ms << ", \"cusparse_best\": \"" << r.cusparse_best
           << "\", \"cusparse_check\": \"" << json_escape(r.check) << "\", \"cusparse_failures\": \"" << json_escape(r.cusparse_failures)
           << "\", \"gigasparse_reuse_ms\": " << r.ours_reuse_ms << ", \"cusparse_reuse_ms\": " << r.cusparse_reuse_ms << ", \"reuse_check\": \""
           << json_escape(r.reuse_check) << "\", \"wall_s\": " << r.wall_s << ", \"heavy_rows\": " << st.heavy_rows << ", \"heavy_products\": " << st.heavy_products
           << ", \"tau\": " << st.tau << ", \"nlevels\": " << st.nlevels << ", \"levels\": " << st.levels_run << ", \"batches\": " << st.batches
           << ", \"device_bytes_peak\": " << st.device_bytes_peak << ", \"phases_ms\": {\"setup\": " << st.setup_ms << ", \"csc\": " << st.csc_ms << ", \"outer\": " << st.outer_ms
           << ", \"multisplit\": " << st.multisplit_ms << ", \"multisplit_kernels\": " << st.multisplit_kernels_ms << ", \"light\": " << st.light_ms << ", \"symbolic\": " << st.symbolic_ms
           << ", \"numeric\": " << st.numeric_ms << ", \"total\": " << st.total_ms << ", \"upload\": " << st.upload_ms << ", \"download\": " << st.download_ms
           << "}, \"outer_bytes\": " << st.outer_bytes << ", \"multisplit_bytes\": " << st.multisplit_bytes << ", \"outer_bw_fraction\": " << outer_frac
           << ", \"multisplit_bw_fraction\": " << ms_frac << "}" << (i + 1 < results.size() ? "," : "") << "\n";
    }
    js << "  ]\n}\n";
    std::ostringstream t;
    char buf[512];
    t << "gigasparse gMAGNUS vs cuSPARSE (float/int32) on " << cx.device << ", driver " << cx.driver << ", copy bandwidth " << cx.bw * 1e-9 << " GB/s"
      << (finished ? "" : " [PARTIAL: run still going or stopped]") << "\n";
    t << "times: ms, best of " << cx.repeats << " after a warm-up, device-resident inputs; phases: setup, then symb and numer, which contain csc (CSR->CSC of heavy rows), outer, msplit (phase) and, on their own stream, light (light rows); "
         "symb, numer; reuse_ms / cs_reuse: numeric phase alone with the pattern planned and the values on the device (GpuSpgemmPlan::numeric / cusparseSpGEMMreuse_compute); op_bw / ms_bw: outer-product / multisplit-kernel DRAM bytes over time, as a fraction of the copy bandwidth\n";
    std::snprintf(buf, sizeof buf, "%-22s %10s %10s %9s %8s %-9s %9s %9s %6s %6s %6s %6s %6s %6s %6s %5s %5s %3s  %s\n", "case", "ours_ms", "cusp_ms", "speedup",
                  "best", "check", "reuse_ms", "cs_reuse", "setup", "csc", "outer", "msplit", "light", "symb", "numer", "op_bw", "ms_bw", "lvl", "status");
    t << buf;
    double lg[2] = {0, 0};
    int cnt[2] = {0, 0}, ours_fail_only[2] = {0, 0}, mismatches = 0, cnt_reuse = 0, reuse_mismatches = 0;
    double lg_reuse = 0;
    for (const Result& r : results) {
        const auto& st = r.st;
        const double sp = r.ours_ms > 0 && r.cusparse_ms > 0 ? r.cusparse_ms / r.ours_ms : 0;
        const int k = r.set == "rmat" ? 0 : 1;
        if (sp > 0) {
            lg[k] += std::log(sp);
            ++cnt[k];
        }
        if (r.ours_ms < 0 && r.cusparse_ms > 0) ++ours_fail_only[k];
        if (r.check != "match" && r.check != "n/a") ++mismatches;
        const double outer_frac = st.outer_ms > 0 && cx.bw > 0 ? double(st.outer_bytes) / (st.outer_ms * 1e-3) / cx.bw : 0;
        const double ms_frac = st.multisplit_kernels_ms > 0 && cx.bw > 0 ? double(st.multisplit_bytes) / (st.multisplit_kernels_ms * 1e-3) / cx.bw : 0;
        if (r.ours_reuse_ms > 0 && r.cusparse_reuse_ms > 0) {
            lg_reuse += std::log(r.cusparse_reuse_ms / r.ours_reuse_ms);
            ++cnt_reuse;
        }
        if (r.reuse_check != "match" && r.reuse_check != "n/a") ++reuse_mismatches;
        std::snprintf(buf, sizeof buf, "%-22s %10.3f %10.3f %9.2f %8s %-9s %9.3f %9.3f %6.2f %6.2f %6.2f %6.2f %6.2f %6.2f %6.2f %5.2f %5.2f %3d  %s\n",
                      r.name.substr(0, 22).c_str(), r.ours_ms, r.cusparse_ms, sp, r.cusparse_best.c_str(), r.check.substr(0, 9).c_str(), r.ours_reuse_ms,
                      r.cusparse_reuse_ms, st.setup_ms, st.csc_ms, st.outer_ms, st.multisplit_ms, st.light_ms,
                      st.symbolic_ms, st.numeric_ms, outer_frac, ms_frac, st.levels_run, r.ours_status.substr(0, 60).c_str());
        t << buf;
    }
    for (int k = 0; k < 2; ++k) {
        std::snprintf(buf, sizeof buf, "geomean speedup %-7s %.3f over %d cases; gigasparse failed where cuSPARSE succeeded: %d\n", k == 0 ? "rmat" : "shared",
                      cnt[k] ? std::exp(lg[k] / cnt[k]) : 0.0, cnt[k], ours_fail_only[k]);
        t << buf;
    }
    std::snprintf(buf, sizeof buf, "geomean numeric-reuse speedup (cusparseSpGEMMreuse_compute / GpuSpgemmPlan::numeric) %.3f over %d cases\n",
                  cnt_reuse ? std::exp(lg_reuse / cnt_reuse) : 0.0, cnt_reuse);
    t << buf;
    t << "outputs differing from cuSPARSE: " << mismatches << "; plan outputs differing from the one-call product: " << reuse_mismatches << "\n";
    if (cx.skipped > 0) t << cx.skipped << " cases skipped: time budget of " << cx.time_budget << " s exhausted\n";
    std::ofstream(cx.outdir + "/spgemm_cuda_summary.txt") << t.str();
    if (finished) std::printf("%s", t.str().c_str());
}

struct CaseSpec {
    int scale = 0, epr = 0;      // R-MAT: A with epr edges per row, B with 8
    std::string file, name;      // shared matrix (A² )
};

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s OUTDIR [--scales LO HI] [--big-from S] [--repeats N] [--max-nnz N] [--time-budget SECONDS] [--multisplit-threads 256|512|1024] [--outer-threads N] [--block-light-rows]\n", argv[0]);
        return 2;
    }
    Context cx;
    cx.outdir = argv[1];
    int lo = 15, hi = 20, big_from = 19;
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
        } else if (a == "--block-light-rows") {
            cx.gpu.warp_light_rows = false;
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
            for (int epr : {4, 8, 16, 32}) cases.push_back({s, epr, "", ""});
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
                run_case(r, a, b, cx.repeats, cx.gpu, h);
            } else {
                const Mat a = gs::io::read_mtx<V, I>(mdir + "/" + c.file);
                r.set = "shared";
                r.name = c.name;
                run_case(r, a, a, cx.repeats, cx.gpu, h);
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
