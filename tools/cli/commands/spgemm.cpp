// tools/cli/commands/spgemm.cpp: `gigasparse spgemm A.mtx [B.mtx]`: C = A·B (A·A without B) with the MAGNUS CPU
// backend, gMAGNUS on the GPU or the reference; prints shapes, nnz, flops, the phase breakdown, the row
// categories and, on the GPU, the device's own phase times.
#include <cmath>
#include <complex>
#include <iostream>
#include <limits>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>
#include <gigasparse/core/timer.hpp>
#include <gigasparse/cuda/device.hpp>
#include <gigasparse/io/matrix_market.hpp>
#include <gigasparse/reference/kernels.hpp>
#include <gigasparse/spgemm.hpp>

#include "cli.hpp"

namespace gigasparse::cli {
namespace {

Json stats_json(const SpgemmStats& s) {
    Json cats, prods, chunks;
    for (int c = 0; c < spgemm_category_count; ++c) {
        cats.set(to_string(static_cast<SpgemmCategory>(c)), s.category_rows[c]);
        prods.set(to_string(static_cast<SpgemmCategory>(c)), s.category_products[c]);
    }
    chunks.set("l2_bytes", s.l2_bytes).set("cache_line_bytes", s.cache_line_bytes).set("ncols_pow2", s.ncols_pow2);
    chunks.set("fine_chunk_cols", s.fine_chunk_cols).set("fine_chunks", s.fine_chunks).set("symbolic_fine_chunk_cols", s.symbolic_fine_chunk_cols);
    chunks.set("coarse_chunk_cols", s.coarse_chunk_cols).set("coarse_chunks", s.coarse_chunks).set("coarse_batches", s.coarse_batches);
    chunks.set("dense_max_cols", s.dense_max_cols);
    Json j;
    j.set("backend", to_string(s.backend)).set("threads", s.threads).set("fused", s.fused).set("products", s.products).set("max_row_products", s.max_row_products);
    j.set("wide_rows", s.wide_rows).set("spa_rows", s.spa_rows).set("window_rows", s.window_rows).set("category_rows", cats).set("category_products", prods).set("chunks", chunks);
    return j;
}

Json gpu_json(const cuda::GpuSpgemmStats& g, int device) {
    Json ms, p;
    ms.set("upload", g.upload_ms).set("setup", g.setup_ms).set("csr_to_csc", g.csc_ms).set("outer_product", g.outer_ms).set("multisplit", g.multisplit_ms);
    ms.set("light_rows", g.light_ms).set("symbolic", g.symbolic_ms).set("numeric", g.numeric_ms).set("total", g.total_ms).set("download", g.download_ms);
    p.set("tau", g.tau).set("hash_capacity", g.hash_capacity).set("dense_columns", g.dense_columns).set("levels", g.nlevels);
    Json j;
    j.set("device", cuda::device_summary(device)).set("heavy_rows", g.heavy_rows).set("light_rows", g.light_rows).set("wide_dense_rows", g.wide_dense_rows).set("wide_walk_cap", g.wide_walk_cap);
    j.set("small_product", g.small_product).set("small_long_rows", g.small_long_rows).set("small_rows_back", g.small_rows_back);
    j.set("heavy_products", g.heavy_products).set("levels_run", g.levels_run).set("batches", g.batches).set("replanned", g.replanned);
    j.set("device_bytes_peak", g.device_bytes_peak).set("light_stage_bytes", g.light_stage_bytes).set("milliseconds", ms).set("params", p);
    return j;
}

// The GPU's own account of the last product (CUDA events; the host-side times above include the transfers).
void print_gpu(const cuda::GpuSpgemmStats& g, int device) {
    std::cout << "gpu: " << cuda::device_summary(device) << "\n"
              << "  rows: heavy " << format_count(g.heavy_rows) << " (" << format_count(g.heavy_products) << " products), light "
              << format_count(g.light_rows)
              << (g.wide_dense_rows > 0 ? " (" + format_count(g.wide_dense_rows) + " of them above tau, dense)" : std::string()) << "; multisplit levels " << g.levels_run << " of " << g.nlevels << ", batches " << g.batches << (g.replanned ? " (cut again to fit beside C)" : "")
              << "; device memory peak " << format_count(g.device_bytes_peak) << " B"
              << (g.light_stage_bytes > 0 ? " (light rows in one pass, staged in " + format_count(g.light_stage_bytes) + " B)" : std::string()) << "\n"
              << "  device ms: setup " << g.setup_ms << ", symbolic " << g.symbolic_ms << ", numeric " << g.numeric_ms << ", total " << g.total_ms
              << " (inside symbolic + numeric: CSR->CSC " << g.csc_ms << ", outer product " << g.outer_ms << ", multisplit " << g.multisplit_ms << "; light rows "
              << g.light_ms << ", beside the heavy rows)\n"
              << "  transfers ms: up " << g.upload_ms << ", down " << g.download_ms << "\n";
}

// "ok" or what differs from the reference (pattern exact, values within 1e-10 of the row maximum).
template <class V, class I>
std::string check_against_reference(const Csr<V, I>& a, const Csr<V, I>& b, const Csr<V, I>& c) {
    const Csr<V, I> r = reference::spgemm<V, I>(a, b);
    if (r.row_ptr != c.row_ptr || r.col_idx != c.col_idx) return "pattern differs from the reference";
    for (std::int64_t i = 0; i < r.nrows; ++i) {
        double scale = 0;
        for (offset_t p = r.row_ptr[i]; p < r.row_ptr[i + 1]; ++p) scale = std::max(scale, std::abs(r.values[p]));
        for (offset_t p = r.row_ptr[i]; p < r.row_ptr[i + 1]; ++p)
            if (!(std::abs(r.values[p] - c.values[p]) <= 1e-10 * scale)) return "values differ from the reference in row " + std::to_string(i);
    }
    return "ok";
}

void print_text(const SpgemmStats& s, std::int64_t ar, std::int64_t ac, std::int64_t br,
                std::int64_t bc, offset_t nnz_a, offset_t nnz_b) {
    std::cout << "A: " << format_count(ar) << " x " << format_count(ac) << ", " << format_count(nnz_a) << " nnz\n"
              << "B: " << format_count(br) << " x " << format_count(bc) << ", " << format_count(nnz_b) << " nnz\n"
              << "C: " << format_count(ar) << " x " << format_count(bc) << ", " << format_count(s.nnz_c) << " nnz\n"
              << "products: " << format_count(s.products) << " (flops " << format_count(2 * s.products) << "), backend " << to_string(s.backend)
              << ", " << s.threads << " thread(s)\n"
              << "time: setup " << format_seconds(s.setup_seconds)
              << (s.fused ? ", symbolic + numeric in one fused pass " : ", symbolic " + format_seconds(s.symbolic_seconds) + ", numeric ")
              << format_seconds(s.numeric_seconds) << ", total " << format_seconds(s.total_seconds()) << " ("
              << (s.total_seconds() > 0 ? 2.0 * static_cast<double>(s.products) / s.total_seconds() * 1e-9 : 0.0) << " GFLOP/s)\n";
}

void print_stats(const SpgemmStats& s) {
    std::cout << "categories (rows / products):";
    for (int c = 0; c < spgemm_category_count; ++c)
        std::cout << " " << to_string(static_cast<SpgemmCategory>(c)) << " " << format_count(s.category_rows[c]) << " / "
                  << format_count(s.category_products[c]) << (c + 1 < spgemm_category_count ? "," : "\n");
    std::cout << "accumulators: sort rows on the sparse accumulator " << format_count(s.spa_rows) << ", dense rows on the window "
              << format_count(s.window_rows) << "\n";
    std::cout << "chunks: L2 " << format_count(s.l2_bytes) << " B, line " << s.cache_line_bytes << " B, fine " << format_count(s.fine_chunks)
              << " x " << format_count(s.fine_chunk_cols) << " columns (symbolic " << format_count(s.symbolic_fine_chunk_cols)
              << "), coarse " << format_count(s.coarse_chunks) << " x " << format_count(s.coarse_chunk_cols) << " columns in "
              << format_count(s.coarse_batches) << " batches, dense up to " << format_count(s.dense_max_cols) << " columns\n"
              << "max row products: " << format_count(s.max_row_products) << ", rows with 64-bit local indices: " << format_count(s.wide_rows) << "\n";
}

// V: double, or complex<double> when either file is complex (the other one read as complex too)
template <class V, class I>
int run_spgemm(const Args& args) {
    const auto& pos = args.positional();
    const Csr<V, I> a = io::read_mtx<V, I>(pos[0]);
    const Csr<V, I> b = pos.size() > 1 ? io::read_mtx<V, I>(pos[1]) : Csr<V, I>();
    const Csr<V, I>& bb = pos.size() > 1 ? b : a;
    SpgemmOptions o;
    o.backend = parse_spgemm_backend(args.get("backend", "cpu"));
    o.threads = static_cast<int>(args.get_int("threads", 0));
    o.gpu.device = static_cast<int>(args.get_int("device", 0));
    const bool gpu = o.backend == SpgemmBackend::cuda;
    SpgemmStats s;
    const Csr<V, I> c = multiply<V, I>(a, bb, o, &s);
    const std::string check = args.flag("check") ? check_against_reference(a, bb, c) : std::string();
    if (auto out = args.get("output")) io::write_mtx<V, I>(*out, c);
    if (args.flag("json")) {
        Json times;
        times.set("setup", s.setup_seconds).set("symbolic", s.symbolic_seconds).set("numeric", s.numeric_seconds).set("total", s.total_seconds());
        Json j;
        j.set("rows", c.nrows).set("cols", c.ncols).set("nnz", c.nnz()).set("nnz_a", a.nnz()).set("nnz_b", bb.nnz()).set("values", type_name<V>());
        j.set("flops", 2 * s.products).set("times", times).set("stats", stats_json(s));
        if (gpu) j.set("gpu", gpu_json(s.gpu, o.gpu.device));
        if (!check.empty()) j.set("check", check);
        std::cout << j.str() << "\n";
    } else {
        print_text(s, a.nrows, a.ncols, bb.nrows, bb.ncols, a.nnz(), bb.nnz());
        if (gpu) print_gpu(s.gpu, o.gpu.device);
        if (args.flag("stats")) print_stats(s);
        if (!check.empty()) std::cout << "check against the reference: " << check << "\n";
        if (auto out = args.get("output")) std::cout << "wrote " << *out << "\n";
    }
    return check.empty() || check == "ok" ? exit_ok : exit_numerical;
}

int spgemm(const Args& args) {
    args.expect_only({"backend", "threads", "output", "device"});
    const auto& pos = args.positional();
    if (pos.empty() || pos.size() > 2) throw UsageError("spgemm expects A.mtx and optionally B.mtx");
    std::int64_t dim = 0;
    bool complex = false;
    for (const auto& p : pos) {
        const io::MmHeader h = io::read_mtx_header(p);
        dim = std::max({dim, h.nrows, h.ncols});
        complex = complex || h.field == io::MmField::complex;
    }
    const bool narrow = dim < std::numeric_limits<std::int32_t>::max();
    if (complex) return narrow ? run_spgemm<std::complex<double>, std::int32_t>(args) : run_spgemm<std::complex<double>, std::int64_t>(args);
    return narrow ? run_spgemm<double, std::int32_t>(args) : run_spgemm<double, std::int64_t>(args);
}

const bool registered = register_command({
    "spgemm",
    "sparse matrix product C = A*B (MAGNUS on the CPU, gMAGNUS on the GPU), with phase times and row categories",
    "usage: gigasparse spgemm A.mtx [B.mtx] [-o C.mtx] [--backend cpu|cuda|reference] [--device N] [--threads N] [--stats] [--check] [--json]\n\n"
    "Computes C = A*B (A*A when B is omitted) in double precision, complex<double> when a file is complex (cpu and\n"
    "reference backends); file reading and writing are not timed.\n"
    "  --backend B  cpu (default: MAGNUS, OpenMP), cuda (gMAGNUS on the GPU; also prints the device's phase\n"
    "               times, heavy/light rows, multisplit levels, batches and device memory) or reference\n"
    "               (sequential oracle). cuda without a GPU fails with exit code 4 and the reason.\n"
    "  --device N   CUDA device for --backend cuda (default 0).\n"
    "  --threads N  OpenMP threads (default: OMP_NUM_THREADS or all cores).\n"
    "  --stats      also print the row categories (sort/dense/fine/coarse) and the chunk parameters.\n"
    "  --check      compare C with the reference product (exit 1 when they differ).\n"
    "  -o C.mtx     write C (Matrix Market, gzip when the name ends in .gz), atomically.\n"
    "  --json       one JSON object: rows, cols, nnz, flops, times{setup,symbolic,numeric,total}, stats{...}[, gpu{...}][, check].\n"
    "exit codes: 0 ok, 1 check failed, 2 usage error, 3 unreadable input or shapes that do not match, 4 failure\n",
    {"stats", "check"},
    spgemm,
});

}  // namespace
}  // namespace gigasparse::cli
