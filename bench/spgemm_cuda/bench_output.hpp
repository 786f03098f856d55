// bench/spgemm_cuda/bench_output.hpp: the GPU SpGEMM benchmark's results and their two outputs,
// spgemm_cuda.json and spgemm_cuda_summary.txt (host code only: bench_spgemm_cuda writes them on the
// GPU machine; tests/spgemm_cuda_host/bench_output_sample.cpp writes a labelled synthetic sample so
// that bench/spgemm_cuda/report.py is tested against this writer without a GPU).
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gigasparse/core/matrix.hpp>
#include <gigasparse/cuda/spgemm.hpp>

namespace gigasparse::bench_cuda {

struct Result {
    std::string name, set;  // set: "rmat" or "shared"
    std::int64_t m = 0, nnz_a = 0, nnz_b = 0, products = 0, nnz_c = 0;
    double ours_ms = -1, cusparse_ms = -1;                // host clock, from the call to the device's end
    double ours_device_ms = -1, cusparse_device_ms = -1;  // CUDA events: cuSPARSE's same runs; gigasparse's run with its phases timed
    double ours_phases_ms = -1;                           // that run's host time (the phase events' records included)
    double wall_s = 0;                                    // the whole case (every run, checks included)
    // numeric reuse (patterns fixed, values on the device): GpuSpgemmPlan::numeric vs
    // cusparseSpGEMMreuse_compute, host clock; and the plan without the light rows' product map
    // (GpuSpgemmOptions::light_product_map = false: their known tables)
    double ours_reuse_ms = -1, cusparse_reuse_ms = -1, ours_reuse_tables_ms = -1;
    std::string cusparse_best = "failed", ours_status = "ok", check = "n/a", cusparse_failures, reuse_check = "n/a";
    cuda::GpuSpgemmStats st;
};

struct Context {
    std::string outdir, device, git;  // git: the sources' revision, if known ($GIGASPARSE_GIT_REV)
    int driver = 0, repeats = 0, skipped = 0;
    double bw = 0, time_budget = 0;
    bool gigasparse_only = false;  // --gigasparse-only: no cuSPARSE, no numeric reuse, no checks (the sweeps of scripts/device-check)
    cuda::GpuSpgemmOptions gpu;  // --multisplit-threads, --outer-threads (0: defaults), --block-light-rows, --warp-row-products, --light-streams, --wide-hash-blocks, --two-pass-light-rows, --smem-sort, --bitonic-sort, --hashed-light-rows, --resident-blocks, --heavy-threshold, --no-dense-wide-rows, --dense-wide-windows, --dense-wide-walk, --fixed-dense-wide-walk, --no-small-products
};

inline std::string json_escape(const std::string& s) {
    std::string o;
    for (char ch : s) {
        if (ch == '"' || ch == '\\') o += '\\';
        if (static_cast<unsigned char>(ch) >= 0x20) o += ch;
    }
    return o;
}

inline std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

// "match" when `other` holds ours' pattern — rows equal as sets of columns (ours has sorted rows;
// another library's rows are sorted here when they are not) — and values within 1e-3 of the row's
// largest magnitude in ours; else what differs first, in the lowest such row. Rows are split over
// `threads` threads (0: all the host's): C of a scale-18 R-MAT product holds about 10^9 entries.
template <class V, class I>
std::string compare_products(const Csr<V, I>& ours, const Csr<V, I>& other, unsigned threads = 0) {
    if (ours.nrows != other.nrows || ours.ncols != other.ncols || ours.row_ptr != other.row_ptr) return "row pointers differ";
    const std::int64_t n = ours.nrows;
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    threads = static_cast<unsigned>(std::clamp<std::int64_t>(n / 1024, 1, threads));
    std::atomic<std::int64_t> first_bad{n};
    std::vector<std::string> why(threads);
    auto check_rows = [&](unsigned t) {
        std::vector<std::pair<I, V>> row;
        for (std::int64_t r = n * t / threads; r < n * (t + 1) / threads && r < first_bad.load(std::memory_order_relaxed); ++r) {
            const offset_t b = ours.row_ptr[r], e = ours.row_ptr[r + 1];
            double mx = 0;
            for (offset_t j = b; j < e; ++j) mx = std::max(mx, std::abs(double(ours.values[j])));
            const double tol = 1e-3 * std::max(mx, 1e-30);
            row.clear();
            bool sorted = true;
            for (offset_t j = b + 1; j < e && sorted; ++j) sorted = other.col_idx[j - 1] < other.col_idx[j];
            if (!sorted) {
                for (offset_t j = b; j < e; ++j) row.push_back({other.col_idx[j], other.values[j]});
                std::sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
            }
            for (offset_t j = b; j < e; ++j) {
                const I col = sorted ? other.col_idx[j] : row[j - b].first;
                const V val = sorted ? other.values[j] : row[j - b].second;
                const char* what = col != ours.col_idx[j] ? "columns" : std::abs(double(val) - double(ours.values[j])) > tol ? "values" : nullptr;
                if (what) {
                    why[t] = std::string(what) + " differ in row " + std::to_string(r);
                    std::int64_t cur = first_bad.load();
                    while (r < cur && !first_bad.compare_exchange_weak(cur, r)) {
                    }
                    return;
                }
            }
        }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(check_rows, t);
    check_rows(0);
    for (std::thread& th : pool) th.join();
    // the lowest failing row: threads own increasing row ranges, each stops at its first failure
    for (const std::string& w : why)
        if (!w.empty()) return w;
    return "match";
}

// A check that did not run ("n/a", or "n/a: why"): neither a match nor a mismatch.
inline bool unchecked(const std::string& check) { return check.rfind("n/a", 0) == 0; }
// reuse_check of a GpuSpgemmPlan run that threw ("failed: " + what()): a failure, not a differing output
inline bool plan_failed(const std::string& check) { return check.rfind("failed", 0) == 0; }

// DRAM bytes over time as a fraction of the copy bandwidth (bytes/s); 0 when not timed.
inline double bandwidth_fraction(std::int64_t bytes, double ms, double bw) { return ms > 0 && bw > 0 ? double(bytes) / (ms * 1e-3) / bw : 0; }

// Rewritten after every case, so a run stopped by its time limit still leaves its results.
inline void write_outputs(const Context& cx, const std::vector<Result>& results, bool finished) {
    std::ofstream js(cx.outdir + "/spgemm_cuda.json");
    js << "{\n  \"date\": \"" << utc_now() << "\", \"git\": \"" << json_escape(cx.git) << "\", \"device\": \"" << json_escape(cx.device) << "\", \"driver\": " << cx.driver << ", \"copy_bandwidth_gbs\": " << cx.bw * 1e-9
       << ", \"finished\": " << (finished ? "true" : "false") << ", \"skipped_cases\": " << cx.skipped
       << ",\n  \"value_type\": \"float\", \"index_type\": \"int32\", \"repeats\": " << cx.repeats << ", \"multisplit_threads\": " << cx.gpu.multisplit_threads
       << ", \"outer_threads\": " << cx.gpu.outer_threads << ", \"resident_blocks\": " << cx.gpu.resident_blocks
       << ", \"heavy_threshold\": " << cx.gpu.heavy_threshold
       << ", \"warp_light_rows\": " << (cx.gpu.warp_light_rows ? "true" : "false") << ", \"warp_row_products\": " << cx.gpu.warp_row_products
       << ", \"light_streams\": " << cx.gpu.light_streams << ", \"fit_hash_blocks\": " << (cx.gpu.fit_hash_blocks ? "true" : "false")
       << ", \"one_pass_light_rows\": " << (cx.gpu.one_pass_light_rows ? "true" : "false")
       << ", \"warp_sort_steps\": " << (cx.gpu.warp_sort_steps ? "true" : "false")
       << ", \"rank_sort\": " << (cx.gpu.rank_sort ? "true" : "false")
       << ", \"packed_tables\": " << (cx.gpu.packed_tables ? "true" : "false")
       << ", \"dense_light_rows\": " << (cx.gpu.dense_light_rows ? "true" : "false")
       << ", \"dense_wide_rows\": " << (cx.gpu.dense_wide_rows && cx.gpu.dense_light_rows ? "true" : "false")
       << ", \"dense_wide_windows\": " << cx.gpu.dense_wide_windows << ", \"dense_wide_walk\": " << cx.gpu.dense_wide_walk
       << ", \"dense_wide_walk_adaptive\": " << (cx.gpu.dense_wide_walk_adaptive ? "true" : "false")
       << ", \"small_products\": " << (cx.gpu.small_products ? "true" : "false") << ", \"small_row_products\": " << cx.gpu.small_row_products << ", \"gigasparse_only\": " << (cx.gigasparse_only ? "true" : "false")
       << ",\n  \"cases\": [\n";
    for (std::size_t i = 0; i < results.size(); ++i) {
        const Result& r = results[i];
        const auto& st = r.st;
        const double outer_frac = bandwidth_fraction(st.outer_bytes, st.outer_ms, cx.bw);
        const double ms_frac = bandwidth_fraction(st.multisplit_bytes, st.multisplit_kernels_ms, cx.bw);
        js << "    {\"name\": \"" << json_escape(r.name) << "\", \"set\": \"" << json_escape(r.set) << "\", \"m\": " << r.m << ", \"nnz_a\": " << r.nnz_a << ", \"nnz_b\": " << r.nnz_b
           << ", \"products\": " << r.products << ", \"nnz_c\": " << r.nnz_c << ", \"gigasparse_ms\": " << r.ours_ms << ", \"gigasparse_status\": \""
           << json_escape(r.ours_status) << "\", \"gigasparse_device_ms\": " << r.ours_device_ms << ", \"gigasparse_phases_ms\": " << r.ours_phases_ms << ", \"cusparse_ms\": " << r.cusparse_ms
           << ", \"cusparse_device_ms\": " << r.cusparse_device_ms << ", \"cusparse_best\": \"" << r.cusparse_best
           << "\", \"cusparse_check\": \"" << json_escape(r.check) << "\", \"cusparse_failures\": \"" << json_escape(r.cusparse_failures)
           << "\", \"gigasparse_reuse_ms\": " << r.ours_reuse_ms << ", \"gigasparse_reuse_tables_ms\": " << r.ours_reuse_tables_ms << ", \"cusparse_reuse_ms\": " << r.cusparse_reuse_ms << ", \"reuse_check\": \""
           << json_escape(r.reuse_check) << "\", \"wall_s\": " << r.wall_s << ", \"heavy_rows\": " << st.heavy_rows << ", \"wide_dense_rows\": " << st.wide_dense_rows << ", \"wide_walk_cap\": " << st.wide_walk_cap << ", \"small_product\": " << (st.small_product ? "true" : "false") << ", \"small_long_rows\": " << st.small_long_rows << ", \"small_rows_back\": " << st.small_rows_back << ", \"heavy_products\": " << st.heavy_products
           << ", \"tau\": " << st.tau << ", \"nlevels\": " << st.nlevels << ", \"levels\": " << st.levels_run << ", \"batches\": " << st.batches << ", \"replanned\": " << (st.replanned ? "true" : "false")
           << ", \"device_bytes_peak\": " << st.device_bytes_peak << ", \"light_stage_bytes\": " << st.light_stage_bytes << ", \"phases_ms\": {\"setup\": " << st.setup_ms << ", \"csc\": " << st.csc_ms << ", \"outer\": " << st.outer_ms
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
    t << "times: ms by the host's clock from the call to the device's end, best of " << cx.repeats << " after a warm-up, device-resident inputs and output; ours_dev: the same run by CUDA events (setup to the end of numeric); phases (CUDA events): setup, then symb and numer, which contain csc (CSR->CSC of heavy rows), outer, msplit (phase) and, on their own stream, light (light rows); "
         "symb, numer; reuse_ms / cs_reuse: numeric phase alone with the pattern planned and the values on the device (GpuSpgemmPlan::numeric / cusparseSpGEMMreuse_compute; reuse_tbl: ours without the light rows' product map); op_bw / ms_bw: outer-product / multisplit-kernel DRAM bytes over time, as a fraction of the copy bandwidth\n";
    std::snprintf(buf, sizeof buf, "%-22s %10s %10s %10s %9s %8s %-9s %9s %9s %9s %6s %6s %6s %6s %6s %6s %6s %5s %5s %3s  %s\n", "case", "ours_ms", "ours_dev", "cusp_ms", "speedup",
                  "best", "check", "reuse_ms", "reuse_tbl", "cs_reuse", "setup", "csc", "outer", "msplit", "light", "symb", "numer", "op_bw", "ms_bw", "lvl", "status");
    t << buf;
    double lg[2] = {0, 0}, lg_ours[2] = {0, 0};
    int cnt[2] = {0, 0}, cnt_ours[2] = {0, 0}, ours_fail_only[2] = {0, 0}, mismatches = 0, cnt_reuse = 0, reuse_mismatches = 0, reuse_failures = 0;
    double lg_reuse = 0, lg_map = 0;
    int cnt_map = 0;
    for (const Result& r : results) {
        const auto& st = r.st;
        const double sp = r.ours_ms > 0 && r.cusparse_ms > 0 ? r.cusparse_ms / r.ours_ms : 0;
        const int k = r.set == "rmat" ? 0 : 1;
        if (sp > 0) {
            lg[k] += std::log(sp);
            ++cnt[k];
        }
        if (r.ours_ms > 0) {
            lg_ours[k] += std::log(r.ours_ms);
            ++cnt_ours[k];
        }
        if (r.ours_ms < 0 && r.cusparse_ms > 0) ++ours_fail_only[k];
        if (r.check != "match" && !unchecked(r.check)) ++mismatches;
        const double outer_frac = bandwidth_fraction(st.outer_bytes, st.outer_ms, cx.bw);
        const double ms_frac = bandwidth_fraction(st.multisplit_bytes, st.multisplit_kernels_ms, cx.bw);
        if (r.ours_reuse_ms > 0 && r.cusparse_reuse_ms > 0) {
            lg_reuse += std::log(r.cusparse_reuse_ms / r.ours_reuse_ms);
            ++cnt_reuse;
        }
        if (r.ours_reuse_ms > 0 && r.ours_reuse_tables_ms > 0) {
            lg_map += std::log(r.ours_reuse_tables_ms / r.ours_reuse_ms);
            ++cnt_map;
        }
        if (plan_failed(r.reuse_check)) ++reuse_failures;  // the plan threw (out of memory, say): no output to compare
        else if (r.reuse_check != "match" && !unchecked(r.reuse_check)) ++reuse_mismatches;
        std::snprintf(buf, sizeof buf, "%-22s %10.3f %10.3f %10.3f %9.2f %8s %-9s %9.3f %9.3f %9.3f %6.2f %6.2f %6.2f %6.2f %6.2f %6.2f %6.2f %5.2f %5.2f %3d  %s\n",
                      r.name.substr(0, 22).c_str(), r.ours_ms, r.ours_device_ms, r.cusparse_ms, sp, r.cusparse_best.c_str(), r.check.substr(0, 9).c_str(), r.ours_reuse_ms,
                      r.ours_reuse_tables_ms, r.cusparse_reuse_ms, st.setup_ms, st.csc_ms, st.outer_ms, st.multisplit_ms, st.light_ms,
                      st.symbolic_ms, st.numeric_ms, outer_frac, ms_frac, st.levels_run, r.ours_status.substr(0, 60).c_str());
        t << buf;
    }
    for (int k = 0; k < 2; ++k) {
        std::snprintf(buf, sizeof buf, "geomean speedup %-7s %.3f over %d cases; gigasparse failed where cuSPARSE succeeded: %d\n", k == 0 ? "rmat" : "shared",
                      cnt[k] ? std::exp(lg[k] / cnt[k]) : 0.0, cnt[k], ours_fail_only[k]);
        t << buf;
    }
    for (int k = 0; k < 2; ++k) {  // gigasparse's own times (a --gigasparse-only run has no speedups)
        std::snprintf(buf, sizeof buf, "geomean gigasparse_ms %-7s %.3f over %d cases%s\n", k == 0 ? "rmat" : "shared",
                      cnt_ours[k] ? std::exp(lg_ours[k] / cnt_ours[k]) : 0.0, cnt_ours[k], cx.gigasparse_only ? " (--gigasparse-only: no cuSPARSE, reuse or checks)" : "");
        t << buf;
    }
    std::snprintf(buf, sizeof buf, "geomean numeric-reuse speedup (cusparseSpGEMMreuse_compute / GpuSpgemmPlan::numeric) %.3f over %d cases\n",
                  cnt_reuse ? std::exp(lg_reuse / cnt_reuse) : 0.0, cnt_reuse);
    t << buf;
    std::snprintf(buf, sizeof buf, "geomean numeric-reuse speedup of the light rows' product map (reuse_tbl / reuse_ms) %.3f over %d cases\n",
                  cnt_map ? std::exp(lg_map / cnt_map) : 0.0, cnt_map);
    t << buf;
    t << "outputs differing from cuSPARSE: " << mismatches << "; plan outputs differing from the one-call product: " << reuse_mismatches
      << "; plans that failed where the one-call product succeeded: " << reuse_failures << "\n";
    if (cx.skipped > 0) t << cx.skipped << " cases skipped: time budget of " << cx.time_budget << " s exhausted\n";
    std::ofstream(cx.outdir + "/spgemm_cuda_summary.txt") << t.str();
    if (finished) std::printf("%s", t.str().c_str());
}

}  // namespace gigasparse::bench_cuda
