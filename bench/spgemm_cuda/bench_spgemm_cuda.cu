// bench/spgemm_cuda/bench_spgemm_cuda.cu: gMAGNUS vs cuSPARSE SpGEMM (best of ALG1/ALG2/ALG3) on R-MAT and A² of the shared matrices.
//
// Usage: bench_spgemm_cuda OUTDIR [--scales LO HI] [--repeats N] [--max-nnz N] [--time-budget SECONDS]
// Cases not started within the time budget are listed as skipped (the outputs are always written).
// Writes OUTDIR/spgemm_cuda.json and OUTDIR/spgemm_cuda_summary.txt and prints the summary table.
// Times are end to end on device-resident inputs (setup, symbolic, numeric, allocations), best of N
// after one warm-up. cuSPARSE's output is compared with gigasparse's (pattern exact, values 1e-3).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
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
    double ours_ms = -1, cusparse_ms = -1;
    std::string cusparse_best = "failed", ours_status = "ok", check = "n/a";
    gs::cuda::GpuSpgemmStats st;
};

bool cu_ok(cudaError_t e) { return e == cudaSuccess; }

// One cuSPARSE SpGEMM run (alg, chunk_fraction for ALG3); returns ms or -1; C downloaded when out != nullptr.
double cusparse_run(cusparseHandle_t h, const Mat& a, const Mat& b, cusparseSpGEMMAlg_t alg, float chunk_fraction, Mat* out) {
    std::vector<int> ap(a.row_ptr.begin(), a.row_ptr.end()), bp(b.row_ptr.begin(), b.row_ptr.end());
    int *dap = nullptr, *dai = nullptr, *dbp = nullptr, *dbi = nullptr, *dcp = nullptr, *dci = nullptr;
    float *dav = nullptr, *dbv = nullptr, *dcv = nullptr;
    void *b1 = nullptr, *b2 = nullptr, *b3 = nullptr;
    double ms = -1;
    cusparseSpMatDescr_t ma = nullptr, mb = nullptr, mc = nullptr;
    cusparseSpGEMMDescr_t d = nullptr;
    const auto nnz_a = std::max<std::int64_t>(a.nnz(), 1), nnz_b = std::max<std::int64_t>(b.nnz(), 1);
    bool ok = cu_ok(cudaMalloc(&dap, ap.size() * 4)) && cu_ok(cudaMalloc(&dai, nnz_a * 4)) && cu_ok(cudaMalloc(&dav, nnz_a * 4)) &&
              cu_ok(cudaMalloc(&dbp, bp.size() * 4)) && cu_ok(cudaMalloc(&dbi, nnz_b * 4)) && cu_ok(cudaMalloc(&dbv, nnz_b * 4)) &&
              cu_ok(cudaMalloc(&dcp, (a.nrows + 1) * 4));
    if (ok) {
        cudaMemcpy(dap, ap.data(), ap.size() * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(dai, a.col_idx.data(), a.nnz() * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(dav, a.values.data(), a.nnz() * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(dbp, bp.data(), bp.size() * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(dbi, b.col_idx.data(), b.nnz() * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(dbv, b.values.data(), b.nnz() * 4, cudaMemcpyHostToDevice);
        cudaDeviceSynchronize();
    }
    const float alpha = 1, beta = 0;
    const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    ok = ok && cusparseCreateCsr(&ma, a.nrows, a.ncols, a.nnz(), dap, dai, dav, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                 CUDA_R_32F) == CUSPARSE_STATUS_SUCCESS;
    ok = ok && cusparseCreateCsr(&mb, b.nrows, b.ncols, b.nnz(), dbp, dbi, dbv, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                 CUDA_R_32F) == CUSPARSE_STATUS_SUCCESS;
    ok = ok && cusparseCreateCsr(&mc, a.nrows, b.ncols, 0, nullptr, nullptr, nullptr, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                 CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F) == CUSPARSE_STATUS_SUCCESS;
    ok = ok && cusparseSpGEMM_createDescr(&d) == CUSPARSE_STATUS_SUCCESS;
    cudaEventRecord(e0);
    std::size_t s1 = 0, s2 = 0, s3 = 0;
    ok = ok && cusparseSpGEMM_workEstimation(h, op, op, &alpha, ma, mb, &beta, mc, CUDA_R_32F, alg, d, &s1, nullptr) == CUSPARSE_STATUS_SUCCESS;
    ok = ok && cu_ok(cudaMalloc(&b1, std::max<std::size_t>(s1, 1)));
    ok = ok && cusparseSpGEMM_workEstimation(h, op, op, &alpha, ma, mb, &beta, mc, CUDA_R_32F, alg, d, &s1, b1) == CUSPARSE_STATUS_SUCCESS;
    if (ok && alg != CUSPARSE_SPGEMM_ALG1) {
        ok = cusparseSpGEMM_estimateMemory(h, op, op, &alpha, ma, mb, &beta, mc, CUDA_R_32F, alg, d, chunk_fraction, &s3, nullptr, nullptr) ==
             CUSPARSE_STATUS_SUCCESS;
        ok = ok && cu_ok(cudaMalloc(&b3, std::max<std::size_t>(s3, 1)));
        ok = ok && cusparseSpGEMM_estimateMemory(h, op, op, &alpha, ma, mb, &beta, mc, CUDA_R_32F, alg, d, chunk_fraction, &s3, b3, &s2) ==
                       CUSPARSE_STATUS_SUCCESS;
    } else if (ok) {
        ok = cusparseSpGEMM_compute(h, op, op, &alpha, ma, mb, &beta, mc, CUDA_R_32F, alg, d, &s2, nullptr) == CUSPARSE_STATUS_SUCCESS;
    }
    ok = ok && cu_ok(cudaMalloc(&b2, std::max<std::size_t>(s2, 1)));
    ok = ok && cusparseSpGEMM_compute(h, op, op, &alpha, ma, mb, &beta, mc, CUDA_R_32F, alg, d, &s2, b2) == CUSPARSE_STATUS_SUCCESS;
    std::int64_t rows = 0, cols = 0, nnz_c = 0;
    ok = ok && cusparseSpMatGetSize(mc, &rows, &cols, &nnz_c) == CUSPARSE_STATUS_SUCCESS;
    ok = ok && cu_ok(cudaMalloc(&dci, std::max<std::int64_t>(nnz_c, 1) * 4)) && cu_ok(cudaMalloc(&dcv, std::max<std::int64_t>(nnz_c, 1) * 4));
    ok = ok && cusparseCsrSetPointers(mc, dcp, dci, dcv) == CUSPARSE_STATUS_SUCCESS;
    ok = ok && cusparseSpGEMM_copy(h, op, op, &alpha, ma, mb, &beta, mc, CUDA_R_32F, alg, d) == CUSPARSE_STATUS_SUCCESS;
    cudaEventRecord(e1);
    ok = ok && cu_ok(cudaEventSynchronize(e1));
    if (ok) {
        float t = 0;
        cudaEventElapsedTime(&t, e0, e1);
        ms = t;
        if (out) {
            std::vector<int> cp(a.nrows + 1);
            out->nrows = a.nrows;
            out->ncols = b.ncols;
            out->col_idx.resize(nnz_c);
            out->values.resize(nnz_c);
            cudaMemcpy(cp.data(), dcp, cp.size() * 4, cudaMemcpyDeviceToHost);
            cudaMemcpy(out->col_idx.data(), dci, nnz_c * 4, cudaMemcpyDeviceToHost);
            cudaMemcpy(out->values.data(), dcv, nnz_c * 4, cudaMemcpyDeviceToHost);
            out->row_ptr.assign(cp.begin(), cp.end());
        }
    }
    (void)cudaGetLastError();
    if (d) cusparseSpGEMM_destroyDescr(d);
    if (ma) cusparseDestroySpMat(ma);
    if (mb) cusparseDestroySpMat(mb);
    if (mc) cusparseDestroySpMat(mc);
    for (void* p : {static_cast<void*>(dap), static_cast<void*>(dai), static_cast<void*>(dav), static_cast<void*>(dbp), static_cast<void*>(dbi),
                    static_cast<void*>(dbv), static_cast<void*>(dcp), static_cast<void*>(dci), static_cast<void*>(dcv), b1, b2, b3})
        if (p) cudaFree(p);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    (void)cudaGetLastError();
    return ms;
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
    if (!cu_ok(cudaMalloc(&x, bytes)) || !cu_ok(cudaMalloc(&y, bytes))) return 0;
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
    return 2.0 * double(bytes) / (best * 1e-3);  // read + write bytes per second
}

void run_case(Result& r, const Mat& a, const Mat& b, int repeats, cusparseHandle_t h) {
    r.m = a.nrows;
    r.nnz_a = a.nnz();
    r.nnz_b = b.nnz();
    Mat ours;
    try {
        double best = 1e300;
        for (int k = 0; k <= repeats; ++k) {
            gs::cuda::GpuSpgemmStats st;
            ours = gs::cuda::spgemm<V, I>(a.view(), b.view(), {}, &st);
            if (k > 0 && st.total_ms < best) {
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
    const Cfg cfgs[] = {{CUSPARSE_SPGEMM_ALG1, 0, "ALG1"},       {CUSPARSE_SPGEMM_ALG2, 0, "ALG2"},       {CUSPARSE_SPGEMM_ALG3, 0.1f, "ALG3/0.1"},
                        {CUSPARSE_SPGEMM_ALG3, 0.2f, "ALG3/0.2"}, {CUSPARSE_SPGEMM_ALG3, 0.3f, "ALG3/0.3"}, {CUSPARSE_SPGEMM_ALG3, 0.4f, "ALG3/0.4"},
                        {CUSPARSE_SPGEMM_ALG3, 0.5f, "ALG3/0.5"}};
    for (const Cfg& c : cfgs) {
        Mat cs;
        double best = 1e300;
        bool failed = false;
        for (int k = 0; k <= repeats && !failed; ++k) {
            const double ms = cusparse_run(h, a, b, c.alg, c.frac, k == 0 ? &cs : nullptr);
            if (ms < 0) failed = true;
            else if (k > 0) best = std::min(best, ms);
        }
        if (failed) continue;
        if (r.check == "n/a" && r.ours_status == "ok") r.check = compare(ours, cs);
        if (r.cusparse_ms < 0 || best < r.cusparse_ms) {
            r.cusparse_ms = best;
            r.cusparse_best = c.name;
        }
    }
}

std::string json_escape(const std::string& s) {
    std::string o;
    for (char ch : s) {
        if (ch == '"' || ch == '\\') o += '\\';
        if (static_cast<unsigned char>(ch) >= 0x20) o += ch;
    }
    return o;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s OUTDIR [--scales LO HI] [--repeats N] [--max-nnz N]\n", argv[0]);
        return 2;
    }
    const std::string outdir = argv[1];
    int lo = 15, hi = 20, repeats = 3;
    std::int64_t max_nnz = 5'000'000;
    double time_budget = 1e9;
    const gs::Timer clock;
    int skipped = 0;
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--scales" && i + 2 < argc) {
            lo = std::stoi(argv[++i]);
            hi = std::stoi(argv[++i]);
        } else if (a == "--repeats" && i + 1 < argc) {
            repeats = std::stoi(argv[++i]);
        } else if (a == "--max-nnz" && i + 1 < argc) {
            max_nnz = std::stoll(argv[++i]);
        } else if (a == "--time-budget" && i + 1 < argc) {
            time_budget = std::stod(argv[++i]);
        }
    }
    if (gs::cuda::device_count() == 0) {
        std::fprintf(stderr, "bench_spgemm_cuda: %s\n", gs::cuda::device_summary().c_str());
        return 1;
    }
    const std::string device = gs::cuda::device_summary();
    int driver = 0;
    cudaDriverGetVersion(&driver);
    const double bw = copy_bandwidth();
    cusparseHandle_t h;
    cusparseCreate(&h);
    std::vector<Result> results;
    for (int s = lo; s <= hi; ++s) {
        gs::gen::RmatOptions ob;
        ob.scale = s;
        ob.edge_factor = 8;
        ob.seed = 1000 + s;
        if (clock.seconds() > time_budget) {
            skipped += 4;
            continue;
        }
        const Mat b = gs::gen::rmat<V, I>(ob);
        for (int epr : {4, 8, 16, 32}) {
            if (clock.seconds() > time_budget) {
                ++skipped;
                continue;
            }
            gs::gen::RmatOptions oa = ob;
            oa.edge_factor = epr;
            oa.seed = 2000 + 100 * s + epr;
            const Mat a = gs::gen::rmat<V, I>(oa);
            Result r;
            r.set = "rmat";
            r.name = "rmat" + std::to_string(s) + "_a" + std::to_string(epr) + "_b8";
            run_case(r, a, b, repeats, h);
            std::fprintf(stderr, "%s done\n", r.name.c_str());
            results.push_back(r);
        }
    }
    const std::string mdir = GIGASPARSE_MATRIX_DIR;
    std::ifstream manifest(mdir + "/MANIFEST.tsv");
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
        if (rows != cols || field == "complex" || std::stoll(nnz) > max_nnz) continue;
        if (clock.seconds() > time_budget) {
            ++skipped;
            continue;
        }
        try {
            const Mat a = gs::io::read_mtx<V, I>(mdir + "/" + file);
            Result r;
            r.set = "shared";
            r.name = name;
            run_case(r, a, a, repeats, h);
            std::fprintf(stderr, "%s done\n", r.name.c_str());
            results.push_back(r);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "skipping %s: %s\n", name.c_str(), e.what());
        }
    }
    cusparseDestroy(h);
    // ---- JSON
    std::ofstream js(outdir + "/spgemm_cuda.json");
    js << "{\n  \"device\": \"" << json_escape(device) << "\", \"driver\": " << driver << ", \"copy_bandwidth_gbs\": " << bw * 1e-9
       << ", \"skipped_cases\": " << skipped << ",\n  \"value_type\": \"float\", \"index_type\": \"int32\", \"repeats\": " << repeats << ",\n  \"cases\": [\n";
    for (std::size_t i = 0; i < results.size(); ++i) {
        const Result& r = results[i];
        const auto& st = r.st;
        const double outer_frac = st.outer_ms > 0 && bw > 0 ? double(st.outer_bytes) / (st.outer_ms * 1e-3) / bw : 0;
        const double ms_frac = st.multisplit_kernels_ms > 0 && bw > 0 ? double(st.multisplit_bytes) / (st.multisplit_kernels_ms * 1e-3) / bw : 0;
        js << "    {\"name\": \"" << r.name << "\", \"set\": \"" << r.set << "\", \"m\": " << r.m << ", \"nnz_a\": " << r.nnz_a << ", \"nnz_b\": " << r.nnz_b
           << ", \"products\": " << r.products << ", \"nnz_c\": " << r.nnz_c << ", \"gigasparse_ms\": " << r.ours_ms << ", \"gigasparse_status\": \""
           << json_escape(r.ours_status) << "\", \"cusparse_ms\": " << r.cusparse_ms << ", \"cusparse_best\": \"" << r.cusparse_best
           << "\", \"cusparse_check\": \"" << json_escape(r.check) << "\", \"heavy_rows\": " << st.heavy_rows << ", \"heavy_products\": " << st.heavy_products
           << ", \"levels\": " << st.levels_run << ", \"batches\": " << st.batches << ", \"device_bytes_peak\": " << st.device_bytes_peak
           << ", \"phases_ms\": {\"setup\": " << st.setup_ms << ", \"outer\": " << st.outer_ms << ", \"multisplit\": " << st.multisplit_ms
           << ", \"multisplit_kernels\": " << st.multisplit_kernels_ms << ", \"symbolic\": " << st.symbolic_ms << ", \"numeric\": " << st.numeric_ms << "}, \"outer_bw_fraction\": " << outer_frac
           << ", \"multisplit_bw_fraction\": " << ms_frac << "}" << (i + 1 < results.size() ? "," : "") << "\n";
    }
    js << "  ]\n}\n";
    // ---- summary table
    std::ostringstream t;
    char buf[512];
    t << "gigasparse gMAGNUS vs cuSPARSE (float/int32) on " << device << ", driver " << driver << ", copy bandwidth " << bw * 1e-9 << " GB/s\n";
    std::snprintf(buf, sizeof buf, "%-22s %10s %10s %9s %8s %-9s %6s %6s %6s %6s %6s %6s %6s  %s\n", "case", "ours_ms", "cusp_ms", "speedup", "best",
                  "check", "setup", "outer", "msplit", "symb", "numer", "op_bw", "ms_bw", "status");
    t << buf;
    double lg[2] = {0, 0};
    int cnt[2] = {0, 0}, ours_fail_only[2] = {0, 0};
    for (const Result& r : results) {
        const auto& st = r.st;
        const double sp = r.ours_ms > 0 && r.cusparse_ms > 0 ? r.cusparse_ms / r.ours_ms : 0;
        const int k = r.set == "rmat" ? 0 : 1;
        if (sp > 0) {
            lg[k] += std::log(sp);
            ++cnt[k];
        }
        if (r.ours_ms < 0 && r.cusparse_ms > 0) ++ours_fail_only[k];
        const double outer_frac = st.outer_ms > 0 && bw > 0 ? double(st.outer_bytes) / (st.outer_ms * 1e-3) / bw : 0;
        const double ms_frac = st.multisplit_kernels_ms > 0 && bw > 0 ? double(st.multisplit_bytes) / (st.multisplit_kernels_ms * 1e-3) / bw : 0;
        std::snprintf(buf, sizeof buf, "%-22s %10.3f %10.3f %9.2f %8s %-9s %6.2f %6.2f %6.2f %6.2f %6.2f %6.2f %6.2f  %s\n", r.name.c_str(), r.ours_ms,
                      r.cusparse_ms, sp, r.cusparse_best.c_str(), r.check.substr(0, 9).c_str(), st.setup_ms, st.outer_ms, st.multisplit_ms,
                      st.symbolic_ms, st.numeric_ms, outer_frac, ms_frac, r.ours_status.substr(0, 40).c_str());
        t << buf;
    }
    for (int k = 0; k < 2; ++k) {
        std::snprintf(buf, sizeof buf, "geomean speedup %-7s %.3f over %d cases; gigasparse failed where cuSPARSE succeeded: %d\n", k == 0 ? "rmat" : "shared",
                      cnt[k] ? std::exp(lg[k] / cnt[k]) : 0.0, cnt[k], ours_fail_only[k]);
        t << buf;
    }
    if (skipped > 0) t << skipped << " cases skipped: time budget of " << time_budget << " s exhausted\n";
    std::ofstream(outdir + "/spgemm_cuda_summary.txt") << t.str();
    std::printf("%s", t.str().c_str());
    return 0;
}
