// tests/spgemm_cuda_host/bench_output_sample.cpp: writes a SYNTHETIC spgemm_cuda.json and
// spgemm_cuda_summary.txt with the GPU benchmark's own writer (bench/spgemm_cuda/bench_output.hpp),
// so that bench/spgemm_cuda/report.py is tested against that writer on a machine without a GPU
// (test spgemm_cuda.report). Every figure below is made up for the test, and the device string says
// so; none is a measurement.
//
// Usage: spgemm_cuda_bench_sample OUTDIR [--multisplit-threads N] [--scale-ours F] [--gigasparse-only]
//   --scale-ours F multiplies gigasparse's times by F (a second file for the report's comparison table);
//   --gigasparse-only writes what bench_spgemm_cuda --gigasparse-only would: no cuSPARSE, reuse or checks.
#include <cstdio>
#include <string>
#include <vector>

#include "bench_output.hpp"

namespace bc = gigasparse::bench_cuda;

namespace {

bc::Result rmat(int scale, int epr, double ours_ms, double cusparse_ms, double scale_ours) {
    bc::Result r;
    r.name = "rmat" + std::to_string(scale) + "_a" + std::to_string(epr) + "_b8";
    r.set = "rmat";
    r.m = std::int64_t(1) << scale;
    r.nnz_a = r.m * epr;
    r.nnz_b = r.m * 8;
    r.products = r.nnz_a * 20;
    r.nnz_c = r.products / 2;
    r.ours_ms = ours_ms * scale_ours;
    r.ours_device_ms = 0.9 * r.ours_ms;
    r.cusparse_ms = cusparse_ms;
    r.cusparse_device_ms = 0.95 * cusparse_ms;
    r.cusparse_best = "ALG1";
    r.check = "match";
    r.ours_reuse_ms = 0.4 * r.ours_ms;
    r.ours_reuse_tables_ms = 0.6 * r.ours_ms;
    r.cusparse_reuse_ms = 0.8 * r.ours_ms;
    r.reuse_check = "match";
    r.wall_s = 1.5;
    auto& st = r.st;
    st.setup_ms = 0.1 * r.ours_device_ms;
    st.symbolic_ms = 0.5 * r.ours_device_ms;
    st.numeric_ms = 0.4 * r.ours_device_ms;
    st.total_ms = r.ours_device_ms;
    st.csc_ms = 0.05 * r.ours_device_ms;
    st.outer_ms = 0.1 * r.ours_device_ms;
    st.multisplit_ms = 0.2 * r.ours_device_ms;
    st.multisplit_kernels_ms = 0.15 * r.ours_device_ms;
    st.light_ms = 0.3 * r.ours_device_ms;
    st.heavy_rows = 100;
    st.heavy_products = r.products / 2;
    st.products = r.products;
    st.levels_run = scale >= 18 ? 2 : 1;
    st.nlevels = st.levels_run;
    st.batches = 1;
    st.tau = 8192;
    st.device_bytes_peak = r.products * 16;
    return r;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s OUTDIR [--multisplit-threads N] [--scale-ours F]\n", argv[0]);
        return 2;
    }
    bc::Context cx;
    cx.outdir = argv[1];
    double scale_ours = 1;
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--multisplit-threads" && i + 1 < argc) cx.gpu.multisplit_threads = std::stoi(argv[++i]);
        else if (a == "--scale-ours" && i + 1 < argc) scale_ours = std::stod(argv[++i]);
        else if (a == "--gigasparse-only") cx.gigasparse_only = true;
        else {
            std::fprintf(stderr, "unknown argument %s\n", a.c_str());
            return 2;
        }
    }
    cx.device = "SAMPLE \"synthetic\" figures (tests/spgemm_cuda_host/bench_output_sample.cpp), not a measurement";
    cx.git = "sample";
    cx.driver = 13000;
    cx.repeats = 2;
    cx.bw = 4.0e12;  // bytes/s
    std::vector<bc::Result> rs;
    // speedups 2 and 4 (R-MAT geomean sqrt(8) = 2.828 at scale_ours 1), 1.5 on the shared matrix
    rs.push_back(rmat(16, 8, 1.0, 2.0, scale_ours));
    rs.push_back(rmat(18, 16, 2.0, 8.0, scale_ours));
    // outer product and multisplit at scale 18: 0.8 and 0.6 of the copy bandwidth at scale_ours 1
    {
        auto& st = rs.back().st;
        st.outer_bytes = static_cast<std::int64_t>(0.8 * cx.bw * st.outer_ms * 1e-3);
        st.multisplit_bytes = static_cast<std::int64_t>(0.6 * cx.bw * st.multisplit_kernels_ms * 1e-3);
    }
    bc::Result sh = rmat(14, 4, 3.0, 4.5, scale_ours);
    sh.name = "sample \"quoted\"/matrix";
    sh.set = "shared";
    sh.reuse_check = "n/a: C too large to check on the host";  // a check that did not run
    sh.st.small_product = true;  // the small-product path (report.py's status column)
    rs.push_back(sh);
    rs[0].check = "columns differ in row 3";  // a mismatch
    // gigasparse failed where cuSPARSE succeeded; then cuSPARSE failed where gigasparse succeeded
    bc::Result f = rmat(17, 32, -1, 5.0, 1);
    f.ours_ms = f.ours_device_ms = -1;
    f.ours_status = "failed: out of memory (sample)";
    f.check = "n/a";
    f.reuse_check = "n/a";
    f.ours_reuse_ms = f.ours_reuse_tables_ms = -1;
    f.st = {};
    rs.push_back(f);
    bc::Result g = rmat(17, 4, 1.0, -1, scale_ours);
    g.cusparse_ms = g.cusparse_device_ms = g.cusparse_reuse_ms = -1;
    g.cusparse_best = "failed";
    g.check = "n/a";
    g.cusparse_failures = "ALG1: CUSPARSE_STATUS_INSUFFICIENT_RESOURCES (sample)";
    g.reuse_check = "failed: CUDA device allocation of 8 bytes failed (sample)";  // the plan failed, the one-call product did not
    g.ours_reuse_ms = g.ours_reuse_tables_ms = -1;
    rs.push_back(g);
    cx.skipped = 1;
    if (cx.gigasparse_only)
        for (bc::Result& r : rs) {
            r.cusparse_ms = r.cusparse_device_ms = r.cusparse_reuse_ms = r.ours_reuse_ms = r.ours_reuse_tables_ms = -1;
            r.cusparse_best = "not run";
            r.cusparse_failures.clear();
            r.check = r.reuse_check = "n/a: --gigasparse-only";
        }
    bc::write_outputs(cx, rs, true);
    return 0;
}
