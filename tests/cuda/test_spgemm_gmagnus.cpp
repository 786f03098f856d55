// tests/cuda/test_spgemm_gmagnus.cpp: gMAGNUS against reference::spgemm. Built twice: for the GPU
// (tests/cuda, label cuda, skipped without a device) and on the CPU simulator of tests/cuda_sim
// (GIGASPARSE_CUDA_SIM: the same kernels and dispatch run on fibers; label unit).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <set>
#include <string>
#include <tuple>

#include <gigasparse/config.hpp>
#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>
#include <gigasparse/cuda/device.hpp>
#include <gigasparse/cuda/device_matrix.hpp>
#include <gigasparse/cuda/spgemm.hpp>
#include <gigasparse/cuda/spgemm_plan.hpp>
#include <gigasparse/io/matrix_market.hpp>
#include <gigasparse/reference/kernels.hpp>
#include <gigasparse/spgemm.hpp>

#include "cuda/gpu_test_support.hpp"
#include "spgemm/cuda/gmagnus_math.hpp"
#include "spgemm_cuda_host/power_law.hpp"
#include "utils/test_utils.hpp"

#ifdef GIGASPARSE_CUDA_SIM
#include "cuda_sim/runtime.hpp"
#include "spgemm/cuda/device_matrix.cuh"
#include "spgemm/cuda/gmagnus_dispatch.cuh"
#include "spgemm/cuda/plan.cuh"
#endif

namespace gs = gigasparse;
using gs::cuda::GpuSpgemmOptions;
using gs::cuda::GpuSpgemmStats;

namespace {

#ifdef GIGASPARSE_CUDA_SIM
// Kernels run so far: the names of what the simulator launched.
std::set<std::string> kernels_run;

template <class V, class I>
gs::Csr<V, I> gpu_spgemm(gs::CsrView<V, I> a, gs::CsrView<V, I> b, const GpuSpgemmOptions& o = {}, GpuSpgemmStats* st = nullptr) {
    const SimulatedRunChecks checks;
    auto c = gs::cuda::gmagnus::multiply(a, b, o, st);
    checks.expect_clean("a product");
    for (const auto& [name, n] : cuda_sim::stats().kernels) kernels_run.insert(name);
    return c;
}
#else
template <class V, class I>
gs::Csr<V, I> gpu_spgemm(gs::CsrView<V, I> a, gs::CsrView<V, I> b, const GpuSpgemmOptions& o = {}, GpuSpgemmStats* st = nullptr) {
    return gs::cuda::spgemm(a, b, o, st);
}
#endif

// A·B with options o against the reference; its statistics (and, on the simulator, the run's
// counts in cuda_sim::stats()). A product small enough for the small-product path
// (GpuSpgemmOptions::small_products) is first also run on the binned path: the tests' small
// matrices cover both.
template <class V, class I>
GpuSpgemmStats expect_matches(const gs::Csr<V, I>& a, const gs::Csr<V, I>& b, const GpuSpgemmOptions& o, const std::string& what) {
    SCOPED_TRACE(what + " smem=" + std::to_string(o.shared_memory_bytes));
    const auto expected = gs::reference::spgemm(a.view(), b.view());
    const double tol = std::is_same_v<V, float> ? 1e-4 : 1e-10;
    GpuSpgemmStats binned_st;
    const bool both = o.small_products && gs::cuda::gmagnus::small_product_eligible(a.nrows, a.nnz(), b.nnz());
    if (both) {
        GpuSpgemmOptions binned = o;
        binned.small_products = false;
        EXPECT_TRUE(gs::test::csr_near(expected.view(), gpu_spgemm(a.view(), b.view(), binned, &binned_st).view(), tol)) << "the binned path";
        EXPECT_FALSE(binned_st.small_product);
    }
    GpuSpgemmStats st;
    const auto actual = gpu_spgemm(a.view(), b.view(), o, &st);
    EXPECT_TRUE(gs::test::csr_near(expected.view(), actual.view(), tol));
    if (both) {
        EXPECT_EQ(st.nnz_c, binned_st.nnz_c);
        EXPECT_EQ(st.products, binned_st.products);
    }
    return st;
}

// The binned path (light rows by hash bins, heavy rows, wide dense rows) whatever the size: tests
// of its kernels and counts on small matrices.
GpuSpgemmOptions binned() {
    GpuSpgemmOptions o;
    o.small_products = false;
    return o;
}

// A of 3 rows times B of k rows of `per` entries: row 0 over all of B (k·per products, B's row j
// over columns j·per .. j·per + per - 1 modulo ncols: min(ncols, k·per) distinct), row 1 over B's
// first row, row 2 empty.
template <class V, class I>
std::pair<gs::Csr<V, I>, gs::Csr<V, I>> one_long_row(std::int64_t k, std::int64_t per, std::int64_t ncols) {
    gs::Coo<V, I> ca, cb;
    ca.nrows = 3;
    ca.ncols = cb.nrows = k;
    cb.ncols = ncols;
    for (std::int64_t j = 0; j < k; ++j) {
        ca.row.push_back(0);
        ca.col.push_back(static_cast<I>(j));
        ca.val.push_back(V(1 + j % 3));
        for (std::int64_t t = 0; t < per; ++t) {
            cb.row.push_back(static_cast<I>(j));
            cb.col.push_back(static_cast<I>((j * per + t) % ncols));
            cb.val.push_back(V(0.5) + V((j + t) % 4));
        }
    }
    ca.row.push_back(1);
    ca.col.push_back(0);
    ca.val.push_back(V(2));
    return {gs::coo_to_csr(ca), gs::coo_to_csr(cb)};
}

// A lower shared-memory (and intermediate) budget: more heavy rows, multisplit levels (and batches)
// on small matrices. Every row above τ takes the heavy path (no wide dense rows: the test matrices'
// few columns would let most of them accumulate densely; DenseWideRows tests those), and small
// products too (no small-product path).
GpuSpgemmOptions budget(std::int64_t smem, std::int64_t inter = 0) {
    GpuSpgemmOptions o;
    o.shared_memory_bytes = smem;
    o.intermediate_budget_bytes = inter;
    o.dense_wide_rows = false;
    o.small_products = false;
    return o;
}

template <class V, class I>
void expect_product_and_plan(gs::Csr<V, I> a, gs::Csr<V, I> b, const GpuSpgemmOptions& o, const std::string& what);  // below

}  // namespace

TEST(CudaSpgemm, BuiltWithoutCudaThrowsNotSupported) {
    if (gs::config::with_cuda || simulated) GTEST_SKIP() << "built with CUDA";
    const auto a = gs::test::random_csr<double, std::int32_t>(10, 10, 2, 1);
    EXPECT_THROW(gs::cuda::spgemm(a.view(), a.view()), gs::NotSupported);
    EXPECT_THROW((gs::cuda::DeviceMatrix<double, std::int32_t>::upload(a.view())), gs::NotSupported);
}

TEST(CudaSpgemm, RandomSizesAcrossWarpAndBlockBoundaries) {
    SKIP_WITHOUT_GPU();
    for (std::int64_t n : {1, 31, 32, 33, 255, 256, 257, 1023, 4097}) {
        const auto a = gs::test::random_csr<double, std::int32_t>(n, n, 7, static_cast<std::uint64_t>(n));
        expect_matches(a, a, {}, "random n=" + std::to_string(n));
        expect_matches(a, a, budget(8192), "random n=" + std::to_string(n));
    }
}

TEST(CudaSpgemm, RmatHeavyRowsAndLevels) {
    SKIP_WITHOUT_GPU();
    const int s = static_cast<int>(sim_or(10, 14));
    const auto a = gs::test::rmat_like<float, std::int32_t>(s, s, 16, 3);
    const auto st = expect_matches(a, a, {}, "rmat^2");
    std::cout << "rmat" << s << "^2: heavy " << st.heavy_rows << " levels " << st.levels_run << " batches " << st.batches << "\n";
    // at 3 KiB a level holds 64 chunks of 256 columns: the simulator needs B wider than 2^14 for two levels
    const int r = static_cast<int>(sim_or(10, 14)), c = static_cast<int>(sim_or(16, 14));
    const auto a_low = gs::test::rmat_like<float, std::int32_t>(r, c, 16, 3);
    const auto b_low = gs::test::rmat_like<float, std::int32_t>(c, c, 16, 3);
    const auto st2 = expect_matches(a_low, b_low, budget(3072), "rmat low smem");
    EXPECT_GT(st2.heavy_rows, 0);
    EXPECT_GE(st2.levels_run, 2) << "a low shared-memory budget must force a multi-level multisplit";
    const int w = static_cast<int>(sim_or(16, 20));
    const auto wide = gs::test::rmat_like<double, std::int32_t>(static_cast<int>(sim_or(8, 10)), w, 16, 4);
    const auto b = gs::test::rmat_like<double, std::int32_t>(w, w, 8, 5);
    const auto st3 = expect_matches(wide, b, budget(8192), "wide rmat times square rmat");
    EXPECT_GE(st3.nlevels, 2);
}

TEST(CudaSpgemm, BandedEmptyRowsRectangular) {
    SKIP_WITHOUT_GPU();
    const auto band = gs::test::banded<double, std::int32_t>(sim_or(1500, 5000), 20, 1);
    expect_matches(band, band, {}, "banded");
    expect_matches(band, band, budget(4096), "banded low smem");
    const std::int64_t k = sim_or(500, 1300);
    const auto a = gs::test::random_csr<double, std::int32_t>(sim_or(300, 777), k, 25, 2, 0.4);
    const auto b = gs::test::random_csr<double, std::int32_t>(k, sim_or(30001, 90001), 40, 3, 0.3);
    expect_matches(a, b, {}, "rectangular");
    expect_matches(a, b, budget(4096), "rectangular low smem");
    const gs::Csr<double, std::int32_t> z(0, 0), e(50, 60), f(60, 0);
    expect_matches(z, z, {}, "0x0");
    expect_matches(e, gs::test::random_csr<double, std::int32_t>(60, 70, 3, 9), {}, "empty A");
    expect_matches(gs::test::random_csr<double, std::int32_t>(50, 60, 3, 9), f, {}, "B with no columns");
}

TEST(CudaSpgemm, Int64IndicesAndBatches) {
    SKIP_WITHOUT_GPU();
    const int s = static_cast<int>(sim_or(10, 12));
    const auto a = gs::test::rmat_like<double, std::int64_t>(s, s, 16, 8);
    expect_matches(a, a, {}, "int64 rmat^2");
    const auto st = expect_matches(a, a, budget(8192, sim_or(1 << 14, 1 << 16)), "int64 batched");
    EXPECT_GT(st.batches, 1);
    const auto af = gs::test::rmat_like<float, std::int64_t>(s, s, 8, 9);
    expect_matches(af, af, budget(4096, sim_or(1 << 12, 1 << 14)), "float int64 batched low smem");
}

// B with more than 2^32 columns (int64 indices): 64-bit column spans through the levels, chunk bases
// and the segment sort. The reference runs on B with its used columns renumbered 0..k-1.
TEST(CudaSpgemm, Int64ColumnsBeyond32Bits) {
    SKIP_WITHOUT_GPU();
    const std::int64_t wide = (std::int64_t(3) << 31) + 12345;  // about 6.4e9 columns
    const auto a = gs::test::rmat_like<double, std::int64_t>(9, 9, 12, 61);
    auto narrow = gs::test::random_csr<double, std::int64_t>(a.ncols, 5000, 6, 62);
    std::vector<std::int64_t> map(5000);
    for (std::int64_t c = 0; c < 5000; ++c) map[c] = c * (wide / 5000) + (c % 7);  // spread over all of [0, wide)
    gs::Csr<double, std::int64_t> b(narrow.nrows, wide);
    b.row_ptr = narrow.row_ptr;
    b.values = narrow.values;
    for (auto c : narrow.col_idx) b.col_idx.push_back(map[c]);
    const auto expected_narrow = gs::reference::spgemm(a.view(), narrow.view());
    gs::Csr<double, std::int64_t> expected(a.nrows, wide);
    expected.row_ptr = expected_narrow.row_ptr;
    expected.values = expected_narrow.values;
    for (auto c : expected_narrow.col_idx) expected.col_idx.push_back(map[c]);  // map is increasing: rows stay sorted
    GpuSpgemmStats st;
    const auto c = gpu_spgemm(a.view(), b.view(), {}, &st);  // all rows light: 64-bit hash keys
    EXPECT_TRUE(gs::test::csr_near(expected.view(), c.view(), 1e-10));
    const auto c2 = gpu_spgemm(a.view(), b.view(), budget(16384), &st);  // heavy rows through several levels
    EXPECT_TRUE(gs::test::csr_near(expected.view(), c2.view(), 1e-10));
    EXPECT_GT(st.heavy_rows, 0);
    EXPECT_GE(st.nlevels, 2);
    EXPECT_GE(st.levels_run, 1);  // sparse rows: no level-0 chunk is dense enough to split again
    EXPECT_THROW(gpu_spgemm(a.view(), b.view(), budget(4096), &st), gs::NotSupported) << "4 KiB cannot split 2^33 columns in 8 levels";
}

// Device-resident operands: C = A·A and D = C·A without a host round trip, then one download.
TEST(CudaSpgemm, DeviceResidentChainOfProducts) {
    SKIP_WITHOUT_GPU();
    using DM = gs::cuda::DeviceMatrix<double, std::int32_t>;
    const auto a = gs::test::rmat_like<double, std::int32_t>(static_cast<int>(sim_or(9, 12)), static_cast<int>(sim_or(9, 12)), 8, 71);
    const DM da = DM::upload(a.view());
    EXPECT_EQ(da.nrows(), a.nrows);
    EXPECT_EQ(da.nnz(), a.nnz());
    EXPECT_GT(da.bytes(), 0);
    EXPECT_TRUE(gs::test::csr_near(a.view(), da.download().view(), 0.0));
    GpuSpgemmStats st;
    DM dc = gs::cuda::spgemm(da, da, budget(8192), &st);
    EXPECT_GT(st.heavy_rows, 0);
    EXPECT_GE(st.device_bytes_peak, da.bytes() + dc.bytes()) << "the peak counts the resident inputs and the output";
    const DM dd = gs::cuda::spgemm(dc, da);
    const auto c = gs::reference::spgemm(a.view(), a.view());
    EXPECT_TRUE(gs::test::csr_near(c.view(), dc.download().view(), 1e-10));
    EXPECT_TRUE(gs::test::csr_near(gs::reference::spgemm(c.view(), a.view()).view(), dd.download().view(), 1e-9));
#ifdef GIGASPARSE_CUDA_SIM
    EXPECT_TRUE(cuda_sim::is_device_pointer(dd.col_idx()) && dd.col_idx() != nullptr);
#endif
    DM moved = std::move(dc);
    EXPECT_EQ(dc.nnz(), 0);
    EXPECT_EQ(dc.download().nnz(), 0);
    EXPECT_THROW(gs::cuda::spgemm(dc, da), gs::InvalidArgument) << "moved-from operand";
    const auto rect = gs::test::random_csr<double, std::int32_t>(10, 7, 2, 3);
    const DM dr = DM::upload(rect.view());
    EXPECT_THROW(gs::cuda::spgemm(da, dr), gs::DimensionMismatch);
    auto bad = rect;
    bad.col_idx[0] = 99;
    EXPECT_THROW(DM::upload(bad.view()), gs::InvalidStructure);
}

#ifndef GIGASPARSE_CUDA_SIM  // the simulator's version: SimulatedMemoryPoolIsReusedAndReleased
// The stream-ordered pool keeps a product's memory for the next one until it is released.
TEST(CudaSpgemm, MemoryPoolKeepsAndReleases) {
    SKIP_WITHOUT_GPU();
    const auto a = gs::test::rmat_like<double, std::int32_t>(12, 12, 8, 72);
    const auto st = expect_matches(a, a, {}, "pool");
    EXPECT_GE(gs::cuda::cached_memory_bytes(), st.device_bytes_peak) << "kept for the next product";
    gs::cuda::release_cached_memory();
    EXPECT_EQ(gs::cuda::cached_memory_bytes(), 0);
}
#endif

TEST(CudaSpgemm, RealMatricesSquared) {
    SKIP_WITHOUT_GPU();
    const auto manifest = gs::test::read_manifest();
    if (manifest.empty()) GTEST_SKIP() << "no shared matrices";
    int done = 0;
    for (const auto& m : manifest) {
        if (m.nrows != m.ncols || m.nnz_stored > sim_or(40000, 400000) || m.field == "complex" || done >= sim_or(3, 4)) continue;
        const auto mat = gs::io::read_mtx<double, std::int32_t>(gs::test::matrix_dir() + "/" + m.file);
        expect_matches(mat, mat, {}, m.name);
        ++done;
    }
}

TEST(CudaSpgemm, PlanBackendNumericReuse) {
    if (simulated) GTEST_SKIP() << "SpgemmPlan calls the library's GPU backend, not the simulator";
    SKIP_WITHOUT_GPU();
    auto a = gs::test::rmat_like<double, std::int32_t>(12, 12, 10, 12);
    gs::SpgemmOptions o;
    o.backend = gs::SpgemmBackend::cuda;
    gs::SpgemmPlan<double, std::int32_t> plan(o);
    plan.symbolic(a, a);
    const auto c1 = plan.numeric(a, a);
    EXPECT_TRUE(gs::test::csr_near(gs::reference::spgemm(a.view(), a.view()).view(), c1.view(), 1e-10));
    for (auto& v : a.values) v = 2 * v + 0.5;
    const auto c2 = plan.numeric(a, a);
    EXPECT_EQ(c2.row_ptr, c1.row_ptr);
    EXPECT_TRUE(gs::test::csr_near(gs::reference::spgemm(a.view(), a.view()).view(), c2.view(), 1e-10));
}

// New values, same patterns: deterministic and different each round.
template <class V, class I>
void new_values(gs::Csr<V, I>& m, int round) {
    for (std::size_t k = 0; k < m.values.size(); ++k) m.values[k] = V(0.5) + V(0.25) * V((k * 7 + static_cast<std::size_t>(round) * 3) % 11) - V(round);
}

// A plan of M·M: symbolic() once, then `rounds` numeric phases with new values (the second and
// later on C's kept columns), each against the reference.
template <class V, class I>
void expect_square_plan(gs::Csr<V, I> m, const GpuSpgemmOptions& o, int rounds, const std::string& what) {
    gs::cuda::GpuSpgemmPlan<V, I> plan(o);
    plan.symbolic(m.view(), m.view());
    for (int round = 0; round < rounds; ++round) {
        new_values(m, round);
        const auto got = plan.numeric(m.view(), m.view());
        EXPECT_TRUE(gs::test::csr_near(gs::reference::spgemm(m.view(), m.view()).view(), got.view(), 1e-10)) << what << ", round " << round;
    }
}

// The two-phase plan: symbolic() once, then numeric() with new values of A and B gives the product
// of those values, with one batch of heavy rows and with several. On the simulator: the numeric
// phase runs no pattern kernel (no histogram, CSC sort, bins, offsets: the plan kept their
// results) and waits for the device only at its end and for the download.
TEST(CudaSpgemm, PlanNumericWithNewValues) {
    SKIP_WITHOUT_GPU();
    auto a = gs::test::rmat_like<double, std::int32_t>(8, 16, 12, 61);
    auto b = gs::test::rmat_like<double, std::int32_t>(16, 16, 3, 62);
    // (one batch, the product map), (batches, the map), (one batch, no map: the light rows' known tables)
    for (const auto& [inter, map] : {std::pair{std::int64_t{0}, true}, std::pair{std::int64_t{1} << 15, true}, std::pair{std::int64_t{0}, false}}) {
        SCOPED_TRACE(std::string(inter == 0 ? "one batch" : "batches") + (map ? ", product map" : ", no product map"));
#ifdef GIGASPARSE_CUDA_SIM
        cuda_sim::reset();
#endif
        {
            GpuSpgemmOptions o = budget(4096, inter);
            o.light_product_map = map;
            gs::cuda::GpuSpgemmPlan<double, std::int32_t> plan(o);
            EXPECT_FALSE(plan.has_symbolic());
            EXPECT_THROW(plan.numeric(a.view(), b.view()), gs::PhaseError);
            plan.symbolic(a.view(), b.view());
            const auto ref0 = gs::reference::spgemm(a.view(), b.view());
            EXPECT_EQ(plan.row_ptr(), ref0.row_ptr);
            EXPECT_EQ(plan.nnz(), ref0.nnz());
            const GpuSpgemmStats sym = plan.stats();
            EXPECT_GT(sym.heavy_rows, 0);
            EXPECT_GE(sym.levels_run, 2);
            EXPECT_EQ(sym.batches > 1, inter != 0);
            EXPECT_EQ(sym.numeric_ms, 0);
            EXPECT_GT(plan.device_bytes(), 0);
            for (int round = 0; round < 2; ++round) {
                new_values(a, round);
                new_values(b, round + 5);
#ifdef GIGASPARSE_CUDA_SIM
                const cuda_sim::Stats before = cuda_sim::stats();
#endif
                const auto c = plan.numeric(a.view(), b.view());
                EXPECT_TRUE(gs::test::csr_near(gs::reference::spgemm(a.view(), b.view()).view(), c.view(), 1e-10)) << "round " << round;
                const GpuSpgemmStats& st = plan.stats();
                EXPECT_GT(st.numeric_ms, 0);
                EXPECT_EQ(st.known_pattern_bytes, plan.nnz() * 4) << "C's columns kept for the later numeric phases";
                // the product map: a word per light product of the hash bins, an offset per such row
                if (map) {
                    EXPECT_GT(st.product_map_bytes, 0);
                    EXPECT_LE(st.product_map_bytes, (st.products - st.heavy_products) * 2 + st.light_rows * 8);
                } else {
                    EXPECT_EQ(st.product_map_bytes, 0);
                }
                EXPECT_EQ(st.symbolic_ms, sym.symbolic_ms) << "the symbolic phase's figures stay";
                EXPECT_EQ(st.levels_run, sym.levels_run);
                EXPECT_NEAR(st.total_ms, st.setup_ms + st.symbolic_ms + st.numeric_ms, 1e-6 * st.total_ms + 1e-6);
#ifdef GIGASPARSE_CUDA_SIM
                const cuda_sim::Stats after = cuda_sim::stats();
                EXPECT_EQ(after.host_waits - before.host_waits, 2) << "the end of the product and the download";
                EXPECT_EQ(after.malloc_calls + after.free_calls, 0);
                const auto launched = [&](const char* k) {
                    const auto x = after.kernels.find(k), y = before.kernels.find(k);
                    return (x == after.kernels.end() ? 0 : x->second) - (y == before.kernels.end() ? 0 : y->second);
                };
                for (const char* k : {"row_products_kernel", "histogram_kernel", "heavy_entries_kernel", "csc_gather_kernel", "segment_bin_keys_kernel",
                                      "segment_keys_kernel", "segment_offsets_kernel", "level_order_kernel", "row_classes_kernel",
                                      "small_scan_kernel (inclusive)"})
                    EXPECT_EQ(launched(k), 0) << k << " ran in the numeric phase";
                // the first numeric phase scans the map's row offsets and builds it; the later ones use it
                EXPECT_EQ(launched("small_scan_kernel (exclusive)"), map && round == 0 ? 1 : 0);
                const int built = launched("product_map_kernel") + launched("product_map_warp_kernel");
                const int mapped = launched("mapped_rows_kernel") + launched("mapped_rows_warp_kernel");
                EXPECT_EQ(built > 0, map && round == 0) << built << " product map launches";
                EXPECT_EQ(mapped > 0, map && round > 0) << mapped << " mapped light-row launches";
                for (const char* k : {"gather_values_kernel", "outer_product_kernel", "multisplit_kernel"})
                    EXPECT_GT(launched(k), 0) << k << " did not run in the numeric phase";
                const auto ops = [&](const char* call) {
                    const auto x = after.stream_ops_by_call.find(call), y = before.stream_ops_by_call.find(call);
                    return (x == after.stream_ops_by_call.end() ? 0 : x->second) - (y == before.stream_ops_by_call.end() ? 0 : y->second);
                };
                // each rebuilt batch zeroes one array of cursors (the outer product's and every
                // level's); no copy per batch or level (the cursors were copies of the row starts)
                EXPECT_EQ(ops("cudaMemsetAsync"), sym.batches);
                EXPECT_LE(ops("cudaMemcpyAsync"), 6) << "A's and B's values, C's row offsets, the download; " << sym.batches << " batches";
                // the first numeric phase hashes and sorts and keeps C's columns; the later ones fill their
                // tables with them (the light rows: without the product map)
                for (const char* k : {"hash_rows_kernel", "hash_rows_warp_kernel", "hash_segments_kernel", "dense_segments_kernel"}) {
                    const std::string known = std::string(k) + " (known)";
                    const bool light = std::string(k) != "hash_segments_kernel" && std::string(k) != "dense_segments_kernel";
                    if (std::string(k) != "dense_segments_kernel" && !(light && map && round > 0)) {
                        EXPECT_GT(launched(round == 0 ? k : known.c_str()), 0) << (round == 0 ? k : known) << " did not run in numeric phase " << round;
                    }
                    EXPECT_EQ(launched(round == 0 ? known.c_str() : k), 0) << (round == 0 ? known : k) << " ran in numeric phase " << round;
                    if (light && map && round > 0) {
                        EXPECT_EQ(launched(known.c_str()), 0) << known << " ran beside the product map";
                    }
                }
                EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess) << cuda_sim::last_error_detail();
#endif
            }
        }
#ifdef GIGASPARSE_CUDA_SIM
        EXPECT_EQ(live_allocations(), 0) << "the plan left device memory behind";
#endif
    }
}

// keep_c_pattern = false: every numeric phase hashes and sorts, with the same products; none of C's
// columns is kept.
TEST(CudaSpgemm, PlanWithoutKeptPattern) {
    SKIP_WITHOUT_GPU();
    auto a = gs::test::rmat_like<double, std::int32_t>(8, 16, 12, 66);
    auto b = gs::test::rmat_like<double, std::int32_t>(16, 16, 3, 67);
    GpuSpgemmOptions o = budget(4096);
    o.keep_c_pattern = false;
    gs::cuda::GpuSpgemmPlan<double, std::int32_t> plan(o), kept(budget(4096));
    plan.symbolic(a.view(), b.view());
    kept.symbolic(a.view(), b.view());
    for (int round = 0; round < 3; ++round) {
        new_values(a, round);
        kept.numeric(a.view(), b.view());
#ifdef GIGASPARSE_CUDA_SIM
        cuda_sim::reset();  // this plan's launches only
#endif
        const auto c = plan.numeric(a.view(), b.view());
        EXPECT_TRUE(gs::test::csr_near(gs::reference::spgemm(a.view(), b.view()).view(), c.view(), 1e-10)) << "round " << round;
        EXPECT_EQ(plan.stats().known_pattern_bytes, 0);
#ifdef GIGASPARSE_CUDA_SIM
        for (const auto& [name, n] : cuda_sim::stats().kernels) EXPECT_EQ(name.find("(known)"), std::string::npos) << name;
#endif
    }
    // the kept plan holds C's columns and its chunks' lengths beyond this one
    EXPECT_GE(kept.device_bytes() - plan.device_bytes(), plan.nnz() * 4);
    EXPECT_LE(kept.device_bytes() - plan.device_bytes(), plan.nnz() * 4 + plan.stats().heavy_products * 8);
}

// A·A is uploaded once; a later numeric() with a B of its own (same pattern, other values) gets a
// device copy of the pattern for it. Shapes or entry counts other than symbolic()'s: InvalidArgument.
TEST(CudaSpgemm, PlanSquareThenSeparateOperands) {
    SKIP_WITHOUT_GPU();
    auto a = gs::test::rmat_like<double, std::int32_t>(9, 9, 16, 63);
    gs::cuda::GpuSpgemmPlan<double, std::int32_t> plan(budget(4096));
    plan.symbolic(a.view(), a.view());
    const std::int64_t square_bytes = plan.device_bytes();
    auto c = plan.numeric(a.view(), a.view());
    EXPECT_TRUE(gs::test::csr_near(gs::reference::spgemm(a.view(), a.view()).view(), c.view(), 1e-10));
    auto b = a;
    new_values(b, 3);
    c = plan.numeric(a.view(), b.view());
    EXPECT_TRUE(gs::test::csr_near(gs::reference::spgemm(a.view(), b.view()).view(), c.view(), 1e-10));
    EXPECT_GT(plan.device_bytes(), square_bytes) << "B's own copy";
    new_values(a, 4);
    plan.numeric(a.view(), b.view(), c);
    EXPECT_TRUE(gs::test::csr_near(gs::reference::spgemm(a.view(), b.view()).view(), c.view(), 1e-10));
    const auto other = gs::test::rmat_like<double, std::int32_t>(9, 9, 8, 64);
    EXPECT_THROW(plan.numeric(other.view(), b.view()), gs::InvalidArgument);
    const auto tall = gs::test::random_csr<double, std::int32_t>(a.ncols + 1, a.ncols, 2, 65);
    EXPECT_THROW(plan.symbolic(a.view(), tall.view()), gs::DimensionMismatch);
}

// The plan on device-resident operands: the patterns are the plan's own copies (the operands of
// symbolic() may go away), numeric() reads the values of the matrices it gets and returns C on the
// device, waiting for the device once, at its end. Host and device calls mix.
TEST(CudaSpgemm, PlanWithDeviceMatrices) {
    SKIP_WITHOUT_GPU();
    using DM = gs::cuda::DeviceMatrix<double, std::int32_t>;
    auto a = gs::test::rmat_like<double, std::int32_t>(8, 16, 12, 66);
    auto b = gs::test::rmat_like<double, std::int32_t>(16, 16, 3, 67);
    gs::cuda::GpuSpgemmPlan<double, std::int32_t> plan(budget(4096, std::int64_t{1} << 15));
    {
        const DM da = DM::upload(a.view()), db = DM::upload(b.view());
        plan.symbolic(da, db);
        EXPECT_TRUE(gs::test::csr_near(gs::reference::spgemm(a.view(), b.view()).view(), plan.numeric(da, db).download().view(), 1e-10));
    }  // the operands of symbolic() are gone
    EXPECT_GT(plan.stats().batches, 1);
    new_values(a, 7);
    new_values(b, 8);
    const DM da = DM::upload(a.view()), db = DM::upload(b.view());
#ifdef GIGASPARSE_CUDA_SIM
    const cuda_sim::Stats before = cuda_sim::stats();
#endif
    const DM dc = plan.numeric(da, db);
#ifdef GIGASPARSE_CUDA_SIM
    EXPECT_EQ(cuda_sim::stats().host_waits - before.host_waits, 1) << "only the end of the product";
#endif
    const auto expected = gs::reference::spgemm(a.view(), b.view());
    EXPECT_TRUE(gs::test::csr_near(expected.view(), dc.download().view(), 1e-10));
    EXPECT_TRUE(gs::test::csr_near(expected.view(), plan.numeric(a.view(), b.view()).view(), 1e-10)) << "host operands after device ones";
    EXPECT_THROW(plan.numeric(DM{}, db), gs::InvalidArgument);
    EXPECT_THROW(plan.numeric(db, db), gs::InvalidArgument) << "B's shape is not A's";
    // S·S on the device
    const auto sq = gs::test::rmat_like<double, std::int32_t>(9, 9, 16, 68);
    const DM ds = DM::upload(sq.view());
    plan.symbolic(ds, ds);
    EXPECT_TRUE(gs::test::csr_near(gs::reference::spgemm(sq.view(), sq.view()).view(), plan.numeric(ds, ds).download().view(), 1e-10));
}

// Every light row hashed: no row accumulates densely (short spans would).
GpuSpgemmOptions hashed_tables() {
    GpuSpgemmOptions o = binned();
    o.dense_light_rows = false;
    return o;
}

// check(a, b, options, what) on the products of the hash tables' tests, values of type V and int32
// columns, from `seed`: a band (short spans, rows of a warp), rows over 40000 columns (wide spans),
// and heavy rows' light chunks (hash_segments_kernel) at 4 KiB of shared memory.
template <class V, class Check>
void hashed_table_products(std::uint64_t seed, Check check) {
    const auto band = gs::test::banded<V, std::int32_t>(600, 12, seed);
    check(band, band, hashed_tables(), "band");
    const auto ra = gs::test::random_csr<V, std::int32_t>(300, 400, 12, seed + 1, 0.3);
    const auto rb = gs::test::random_csr<V, std::int32_t>(400, 40000, 20, seed + 2, 0.2);
    check(ra, rb, hashed_tables(), "rows over 40000 columns");
    const auto ha = gs::test::rmat_like<V, std::int32_t>(8, 16, 12, seed + 4);
    const auto hb = gs::test::rmat_like<V, std::int32_t>(16, 16, 3, seed + 5);
    GpuSpgemmOptions heavy = budget(4096);
    heavy.dense_light_rows = false;
    check(ha, hb, heavy, "heavy rows' chunks");
}

// GpuSpgemmOptions::rank_sort: the hash accumulators write their entries in column order by rank
// (a bitmap over their span in the table's free slots, a window of columns at a time) instead of
// the bitonic sort, where the span takes at most rank_sort_max_windows windows. Hashed rows of
// short spans (a band: one window; block and warp rows), rows spanning 40000 columns (more windows
// than that in the small tables: the bitonic sort; up to 8 in the larger), float with int64 columns,
// and the light chunks of heavy rows; one and two passes and a plan, against the reference; and with
// dense light rows on, where the hashed rows take their keys' bounds from the setup's column spans.
TEST(CudaSpgemm, RankSortWritesInOrder) {
    SKIP_WITHOUT_GPU();
    const auto expect_ranked = [](const auto& a, const auto& b, GpuSpgemmOptions o, const std::string& what) {
        o.rank_sort = false;
#ifdef GIGASPARSE_CUDA_SIM
        cuda_sim::reset();
#endif
        const auto sorted = expect_matches(a, b, o, what + ", bitonic sort");
#ifdef GIGASPARSE_CUDA_SIM
        const std::int64_t sorted_barriers = cuda_sim::stats().barriers + cuda_sim::stats().warp_collectives;
        cuda_sim::reset();
#endif
        o.rank_sort = true;
        const auto ranked = expect_matches(a, b, o, what + ", by rank");
        EXPECT_EQ(ranked.nnz_c, sorted.nnz_c) << what;
#ifdef GIGASPARSE_CUDA_SIM
        EXPECT_NE(cuda_sim::stats().barriers + cuda_sim::stats().warp_collectives, sorted_barriers) << what << ": no table was ranked";
#endif
        expect_product_and_plan(a, b, o, what + ", by rank");
        GpuSpgemmOptions spans = o;  // the hashed rows' key bounds from the setup's spans (dense rows of short spans beside them)
        spans.dense_light_rows = true;
        expect_matches(a, b, spans, what + ", by rank, spans from the setup");
        o.one_pass_light_rows = false;
        expect_matches(a, b, o, what + ", by rank, two passes");
        spans.one_pass_light_rows = false;
        expect_matches(a, b, spans, what + ", by rank, spans from the setup, two passes");
        o.warp_light_rows = false;
        expect_matches(a, b, o, what + ", by rank, a block a row");
    };
    hashed_table_products<double>(71, expect_ranked);
    const auto fband = gs::test::banded<float, std::int64_t>(500, 20, 74);
    expect_ranked(fband, fband, hashed_tables(), "band, float, int64");
}

// GpuSpgemmOptions::packed_tables: float values with int32 columns hash into tables of 64-bit
// (column, value) words, which the compaction, the bitonic sort and the output by rank read. Each
// product with split tables, then packed, against the reference: light rows of a block and of a
// warp (one pass, two passes, by rank), rows over 40000 columns, the light chunks of heavy rows (at
// 4 KiB of shared memory), a small product's rows, and a plan. On the simulator only the packed run
// makes 64-bit compare-and-swaps (the packed inserts: a run that never packed fails), and double
// values ignore the option.
TEST(CudaSpgemm, PackedTablesMatchSplitTables) {
    SKIP_WITHOUT_GPU();
    const auto expect_packed = [](const auto& a, const auto& b, GpuSpgemmOptions o, const std::string& what) {
        constexpr bool packs = std::is_same_v<std::decay_t<decltype(a.values[0])>, float>;
        o.packed_tables = false;
#ifdef GIGASPARSE_CUDA_SIM
        cuda_sim::reset();
#endif
        const auto split = expect_matches(a, b, o, what + ", split tables");
#ifdef GIGASPARSE_CUDA_SIM
        EXPECT_EQ(cuda_sim::stats().atomic_cas64, 0) << what << ", split tables";
#endif
        for (const bool rank : {false, true})
            for (const bool one_pass : {true, false}) {
                o.packed_tables = true;
                o.rank_sort = rank;
                o.one_pass_light_rows = one_pass;
                const std::string how = what + (rank ? ", by rank" : ", sorted") + (one_pass ? ", one pass" : ", two passes");
#ifdef GIGASPARSE_CUDA_SIM
                cuda_sim::reset();
#endif
                const auto packed = expect_matches(a, b, o, how);
                EXPECT_EQ(packed.nnz_c, split.nnz_c) << how;
#ifdef GIGASPARSE_CUDA_SIM
                if (packs) {
                    EXPECT_GT(cuda_sim::stats().atomic_cas64, 0) << how << ": no table was packed";
                } else {
                    EXPECT_EQ(cuda_sim::stats().atomic_cas64, 0) << how << ": double values packed";
                }
#else
                (void)packs;
#endif
            }
        o.rank_sort = false;
        o.one_pass_light_rows = true;
        expect_product_and_plan(a, b, o, what + ", packed");
    };
    hashed_table_products<float>(81, expect_packed);
    GpuSpgemmOptions blocks = hashed_tables();
    blocks.warp_light_rows = false;
    const auto band = gs::test::banded<float, std::int32_t>(600, 12, 81);
    expect_packed(band, band, blocks, "band, block rows");
    GpuSpgemmOptions small;  // the small-product path's rows (and, in expect_matches, the binned path)
    small.dense_light_rows = false;
    const auto sa = gs::test::random_csr<float, std::int32_t>(500, 700, 10, 86, 0.2);
    const auto sb = gs::test::random_csr<float, std::int32_t>(700, 3000, 12, 87, 0.2);
    expect_packed(sa, sb, small, "small product");
    const auto dband = gs::test::banded<double, std::int32_t>(300, 12, 88);
    expect_packed(dband, dband, hashed_tables(), "band, double");
}

#ifdef GIGASPARSE_CUDA_SIM
// A block of dense_segments_kernel takes a run of consecutive dense chunks (dense_chunks_per_block:
// its shared memory cleared once, each chunk's entries and bitmap words zeroed behind it for the
// next): one chunk a block on 132 SMs, runs on one SM. Symbolic, numeric and known (a plan's later
// numeric phases) against the reference; a word or value not zeroed behind would add to the next
// chunk of the run.
TEST(CudaSpgemm, DenseChunksInRuns) {
    namespace gm = gs::cuda::gmagnus;
    auto a = gs::test::rmat_like<double, std::int32_t>(8, 16, 12, 61);
    auto b = gs::test::rmat_like<double, std::int32_t>(16, 16, 3, 62);
    const GpuSpgemmOptions o = budget(4096);
    const auto blocks = [](const char* k) {
        const auto s = cuda_sim::stats();
        const auto it = s.kernel_blocks.find(k);
        return it == s.kernel_blocks.end() ? std::int64_t{0} : it->second;
    };
    cuda_sim::reset();
    const auto st = expect_matches(a, b, o, "132 SMs");
    ASSERT_EQ(st.batches, 1);
    const std::int64_t chunks = blocks("dense_segments_kernel") / 2;  // symbolic and numeric, a block a chunk
    ASSERT_EQ(gm::dense_chunks_per_block(chunks, 2 * 132), 1);
    ASSERT_GE(chunks, 16) << "too few dense chunks for runs on one SM";
    const std::int64_t per = gm::dense_chunks_per_block(chunks, 2);
    EXPECT_GE(per, 2);
    cuda_sim::config().sm_count = 1;
    cuda_sim::reset();
    expect_matches(a, b, o, "one SM");
    EXPECT_EQ(blocks("dense_segments_kernel"), 2 * gm::ceil_div(chunks, per));
    {
        gs::cuda::GpuSpgemmPlan<double, std::int32_t> plan(o);
        plan.symbolic(a.view(), b.view());
        for (int round = 0; round < 3; ++round) {
            new_values(a, round);
            new_values(b, round + 5);
            cuda_sim::reset();
            const auto got = plan.numeric(a.view(), b.view());
            EXPECT_TRUE(gs::test::csr_near(gs::reference::spgemm(a.view(), b.view()).view(), got.view(), 1e-10)) << "one SM, plan round " << round;
            EXPECT_EQ(blocks(round == 0 ? "dense_segments_kernel" : "dense_segments_kernel (known)"), gm::ceil_div(chunks, per)) << "round " << round;
        }
    }
    cuda_sim::config() = cuda_sim::default_config();
}
#endif

// Small product that reaches every kernel (light hash rows, outer product, two multisplit levels,
// hash and dense chunks, two batches): the case compute-sanitizer runs in scripts/device-check.
TEST(CudaSpgemm, SanitizerSmall) {
    SKIP_WITHOUT_GPU();
    const auto a = gs::test::rmat_like<double, std::int32_t>(8, 16, 12, 31);
    const auto b = gs::test::rmat_like<double, std::int32_t>(16, 16, 3, 32);
    const auto st = expect_matches(a, b, budget(4096, 1 << 15), "sanitizer case");
    EXPECT_GT(st.heavy_rows, 0);
    EXPECT_GT(st.light_rows, 0);
    EXPECT_GE(st.levels_run, 2);
    EXPECT_GT(st.batches, 1);
    // what the benchmark's speed-of-light fractions divide: each build of Ĉ writes it once (columns
    // and values) in the outer product and moves it (3 column + 2 value accesses) at level 0
    EXPECT_GE(st.outer_bytes, st.heavy_products * 12);
    EXPECT_GE(st.multisplit_bytes, st.heavy_products * (3 * 4 + 2 * 8));
    EXPECT_GT(st.outer_ms, 0);
    EXPECT_GT(st.multisplit_kernels_ms, 0);
    EXPECT_LE(st.multisplit_kernels_ms, st.multisplit_ms * 1.001);
    EXPECT_GT(st.light_ms, 0);
    EXPECT_LE(st.light_ms, (st.symbolic_ms + st.numeric_ms) * 1.001) << "the light rows run inside the two phases";
    EXPECT_NEAR(st.setup_ms + st.symbolic_ms + st.numeric_ms, st.total_ms, 1e-3 * st.total_ms + 1e-3);
    EXPECT_GT(st.upload_ms + st.download_ms, 0);
}

// The tuning knobs: every multisplit block size and a small outer-product block give the same
// product through heavy rows and the multisplit; invalid sizes are InvalidArgument.
// Small products through every gMAGNUS kernel, with small blocks. The racecheck build of the
// simulator (tests/cuda_sim: ThreadSanitizer told CUDA's happens-before order, about 80 times
// slower) runs only this test: no race between the threads of a block, the blocks of a kernel,
// the two streams, or the device and the host.
TEST(CudaSpgemm, RacecheckSmallProducts) {
    SKIP_WITHOUT_GPU();
#ifdef GIGASPARSE_CUDA_SIM
    kernels_run.clear();
    const std::int64_t races_before = cuda_sim::race_reports();
#endif
    GpuSpgemmOptions o = budget(4096, 1 << 13);
    o.multisplit_threads = 256;
    o.outer_threads = 64;
    o.rank_sort = false;  // the hash tables sorted here, written by rank below
    const auto a = gs::test::rmat_like<double, std::int32_t>(6, 12, 8, 51);
    const auto b = gs::test::rmat_like<double, std::int32_t>(12, 12, 3, 52);
    const auto st = expect_matches(a, b, o, "heavy and light rows, two levels, batches");
    EXPECT_GT(st.heavy_rows, 0);
    EXPECT_GT(st.light_rows, 0);
    EXPECT_GE(st.levels_run, 2);
    EXPECT_GT(st.batches, 1);
    {
        // the plan's numeric phase with new values of both operands (values uploaded on the heavy
        // stream, read by both; batches rebuilt without the pattern kernels)
        gs::cuda::GpuSpgemmPlan<double, std::int32_t> plan(o);
        plan.symbolic(a.view(), b.view());
        auto a2 = a, b2 = b;
        for (int round = 0; round < 2; ++round) {  // the second accumulates into the columns the first kept
            new_values(a2, 1 + 2 * round);
            new_values(b2, 2 + 2 * round);
            const auto c = plan.numeric(a2.view(), b2.view());
            EXPECT_TRUE(gs::test::csr_near(gs::reference::spgemm(a2.view(), b2.view()).view(), c.view(), 1e-10)) << "plan, numeric phase " << round;
        }
    }
#ifdef GIGASPARSE_CUDA_SIM
    EXPECT_EQ(cuda_sim::race_reports(), races_before) << "ThreadSanitizer reported a race in the plan (above)";
    for (const auto& [name, n] : cuda_sim::stats().kernels) kernels_run.insert(name);  // the plan's two passes over the light rows
    {
        // one batch on one SM: its 71 dense chunks a phase in runs of 8 a block (DenseChunksInRuns),
        // each chunk's entries zeroed behind it while the next one's products are still to come;
        // the light rows and chunks hashed write by rank
        cuda_sim::config().sm_count = 1;
        cuda_sim::reset();
        GpuSpgemmOptions one = o;
        one.intermediate_budget_bytes = 0;
        one.rank_sort = true;  // and the hash tables' output by rank (RankSortWritesInOrder)
        one.light_product_map = false;  // the light rows' known tables (the plan above: the product map)
        expect_matches(a, b, one, "one batch, one SM, by rank");
        const auto runs = cuda_sim::stats();
        EXPECT_LT(runs.kernel_blocks.at("dense_segments_kernel"), 2 * 71 / 4) << "runs of dense chunks";
        gs::cuda::GpuSpgemmPlan<double, std::int32_t> plan(one);
        plan.symbolic(a.view(), b.view());
        auto a2 = a;
        for (int round = 0; round < 2; ++round) {
            new_values(a2, 3 + round);
            const auto c = plan.numeric(a2.view(), b.view());
            EXPECT_TRUE(gs::test::csr_near(gs::reference::spgemm(a2.view(), b.view()).view(), c.view(), 1e-10)) << "one SM, plan, numeric phase " << round;
        }
        for (const auto& [name, n] : cuda_sim::stats().kernels) kernels_run.insert(name);  // (the known tables' light rows)
        cuda_sim::config() = cuda_sim::default_config();
    }
#endif
    const auto af = gs::test::rmat_like<float, std::int64_t>(6, 6, 6, 53);
    expect_matches(af, af, {}, "float, int64, light rows");
    {
        // light rows of some 1100 products spanning 65 columns: a block each, accumulated densely,
        // in one pass, then in a plan's phases (the second numeric phase on the kept columns)
        const auto band = gs::test::banded<double, std::int32_t>(120, 16, 55);
        expect_matches(band, band, {}, "dense light rows");  // and the small-product path
        GpuSpgemmOptions tables = binned();  // the later numeric phases' dense rows in their known tables
        tables.light_product_map = false;
        expect_square_plan(band, tables, 2, "dense light rows, plan");
        expect_square_plan(band, binned(), 2, "dense light rows, plan, product map");  // blocks of the product map
#ifdef GIGASPARSE_CUDA_SIM
        for (const auto& [name, n] : cuda_sim::stats().kernels) kernels_run.insert(name);  // the plans' (not a gpu_spgemm call)
#endif
        expect_square_plan(band, {}, 2, "small product, plan");
        GpuSpgemmOptions ranked = binned();  // hashed rows of short spans written by rank: warps, then blocks
        ranked.dense_light_rows = false;
        ranked.rank_sort = true;
        expect_matches(band, band, ranked, "hashed light rows by rank, warps");
        ranked.warp_light_rows = false;
        expect_matches(band, band, ranked, "hashed light rows by rank, blocks");
        // rows of 625 products (τ = 512 at 16 KiB) over 49 columns: wide dense rows, 512 threads a row
        GpuSpgemmOptions wide = binned();
        wide.shared_memory_bytes = 16384;
        const auto wband = gs::test::banded<double, std::int32_t>(80, 12, 56);
        EXPECT_GT(expect_matches(wband, wband, wide, "wide dense rows").wide_dense_rows, 0);
        expect_square_plan(wband, wide, 2, "wide dense rows, plan");
        // a row of 600 products over 2880 of B's 3000 columns: a wide dense row in 2 windows of 1500
        gs::Coo<double, std::int32_t> ca, cb;
        ca.nrows = 2;
        ca.ncols = cb.nrows = 20;
        cb.ncols = 3000;
        for (std::int32_t j = 0; j < 20; ++j) {
            for (std::int32_t t = 0; t < 30; ++t) {
                cb.row.push_back(j);
                cb.col.push_back(150 * j + t);
                cb.val.push_back(0.5 + (j + t) % 4);
            }
            ca.row.push_back(0);
            ca.col.push_back(j);
            ca.val.push_back(1.0 + j % 3);
            if (j % 2 == 0) {
                ca.row.push_back(1);
                ca.col.push_back(j);
                ca.val.push_back(2.0);
            }
        }
        const auto wa = gs::coo_to_csr(ca), wb = gs::coo_to_csr(cb);
        EXPECT_EQ(expect_matches(wa, wb, wide, "wide dense row in 2 windows").wide_dense_rows, 1);
        expect_product_and_plan(wa, wb, wide, "wide dense row in 2 windows");
#ifdef GIGASPARSE_CUDA_SIM
        for (const auto& [name, n] : cuda_sim::stats().kernels) kernels_run.insert(name);  // the plan's (not a gpu_spgemm call)
#endif
        // small products whose long rows take a block each: 3000 products over 1500 columns (past
        // a double warp's table of 512), one window; 8200 products over 8200 columns, two (float)
        const auto [la, lb] = one_long_row<double, std::int32_t>(1500, 2, 1500);
        EXPECT_EQ(expect_matches(la, lb, {}, "small product, a long row").small_long_rows, 1);
        expect_product_and_plan(la, lb, {}, "small product, a long row");
        const auto [fa, fb] = one_long_row<float, std::int32_t>(4100, 2, 8200);
        EXPECT_EQ(expect_matches(fa, fb, {}, "small product, a long row in 2 windows").small_long_rows, 1);
#ifdef GIGASPARSE_CUDA_SIM
        EXPECT_EQ(cuda_sim::race_reports(), races_before) << "ThreadSanitizer reported a race in the dense light rows or the long rows (above)";
        for (const auto& [name, n] : cuda_sim::stats().kernels) kernels_run.insert(name);
#endif
    }
    GpuSpgemmOptions big = budget(1 << 14, 1 << 13);
    big.multisplit_threads = 1024;
    const auto a2 = gs::test::rmat_like<double, std::int32_t>(6, 12, 12, 54);
    const auto st2 = expect_matches(a2, b, big, "1024-thread blocks");
    EXPECT_GT(st2.heavy_rows, 0);
    EXPECT_GE(st2.levels_run, 2);
#ifdef GIGASPARSE_CUDA_SIM
    for (const char* k : {"col_range_kernel", "row_products_kernel", "row_classes_kernel", "hash_rows_kernel", "hash_rows_warp_kernel", "hash_rows_kernel (once)",
                          "hash_rows_warp_kernel (once)", "dense_wide_rows_kernel", "dense_wide_rows_kernel (once)", "dense_wide_rows_kernel (known)",
                          "unstage_rows_kernel", "hash_rows_kernel (known)", "hash_rows_warp_kernel (known)", "product_map_kernel",
                          "product_map_warp_kernel", "mapped_rows_kernel", "mapped_rows_warp_kernel",
                          "hash_segments_kernel (known)", "dense_segments_kernel (known)", "gather_kernel",
                          "row_lengths_kernel", "heavy_entries_kernel", "csc_colptr_kernel", "csc_gather_kernel", "gather_values_kernel", "slice_sizes_kernel", "level_split_kernel",
                          "outer_product_kernel", "make_segments_kernel", "histogram_kernel", "split_flags_kernel", "level_order_kernel",
                          "multisplit_kernel", "segment_bin_keys_kernel", "hash_segments_kernel", "dense_segments_kernel",
                          "segment_row_nnz_kernel", "segment_keys_kernel", "segment_offsets_kernel",
                          "small_scan_kernel (inclusive)", "small_scan_kernel (exclusive)", "small_rows_kernel", "small_finish_kernel",
                          "small_long_rows_kernel", "small_finish_kernel (after long rows)"})
        EXPECT_TRUE(kernels_run.count(k)) << k << " did not run";
#endif
}

TEST(CudaSpgemm, BlockSizeOptions) {
    SKIP_WITHOUT_GPU();
    const auto a = gs::test::rmat_like<double, std::int32_t>(7, 15, 12, 33);
    const auto b = gs::test::rmat_like<double, std::int32_t>(15, 15, 3, 34);
    for (const auto& [ms, outer, smem] : {std::tuple{512, 64, 16384}, std::tuple{1024, 1024, 65536}, std::tuple{256, 32, 8192}}) {
        GpuSpgemmOptions o = budget(smem, 1 << 15);
        o.multisplit_threads = ms;
        o.outer_threads = outer;
        const auto st = expect_matches(a, b, o, "multisplit " + std::to_string(ms) + " outer " + std::to_string(outer));
        EXPECT_GT(st.heavy_rows, 0);
        EXPECT_GE(st.levels_run, 1);
    }
    // outer-product and multisplit groups sized for several blocks per SM (the simulator's SM holds one opt-in block
    // and 1 KiB): under a 64 KiB budget 8 resident blocks give them about 28 KiB, smaller groups, the same product
    {
        GpuSpgemmOptions o = budget(65536, 1 << 15);
        const auto one = expect_matches(a, b, o, "one resident block");
        o.resident_blocks = 8;
        const auto eight = expect_matches(a, b, o, "8 resident blocks");
        EXPECT_GT(eight.heavy_rows, 0);
        EXPECT_GE(eight.levels_run, 1);
        EXPECT_LT(eight.chunks_max, one.chunks_max);  // the histograms fit a smaller group
        EXPECT_EQ(eight.tau, one.tau);  // the accumulators keep the whole budget
    }
    // short light rows on a 32-thread block each instead of a warp each: the same product
    const auto light = gs::test::rmat_like<double, std::int32_t>(9, 9, 4, 35);
    GpuSpgemmOptions block_rows = binned();
    block_rows.warp_light_rows = false;
#ifdef GIGASPARSE_CUDA_SIM
    kernels_run.clear();
#endif
    expect_matches(light, light, block_rows, "block per light row");
#ifdef GIGASPARSE_CUDA_SIM
    EXPECT_FALSE(kernels_run.count("hash_rows_warp_kernel (once)"));
    EXPECT_TRUE(kernels_run.count("hash_rows_kernel (once)"));
    kernels_run.clear();
    expect_matches(light, light, binned(), "warp per light row");
    EXPECT_TRUE(kernels_run.count("hash_rows_warp_kernel (once)"));
#endif
    // hash blocks of half the table (up to 1024 threads) instead of sized for residency: the same product,
    // light rows and heavy rows' chunks
    {
        GpuSpgemmOptions o = budget(16384, 1 << 15);
        const auto fit = expect_matches(a, b, o, "hash blocks sized for residency");
        o.fit_hash_blocks = false;
        const auto wide = expect_matches(a, b, o, "hash blocks of half the table");
        EXPECT_GT(wide.heavy_rows, 0);
        EXPECT_EQ(wide.nnz_c, fit.nnz_c);
    }
    // the light bins one after the other on the light stream, and in turn on 8 streams: the same product
    for (const int streams : {1, 8}) {
        GpuSpgemmOptions o = binned();
        o.light_streams = streams;
        expect_matches(light, light, o, std::to_string(streams) + " light streams");
        o.one_pass_light_rows = false;
        expect_matches(light, light, o, std::to_string(streams) + " light streams, two passes");
    }
    // the bitonic sort with every step in shared memory (every table sorted, none written by rank):
    // the same product, in one and two passes
    GpuSpgemmOptions smem_sort = budget(4096);
    smem_sort.warp_sort_steps = false;
    smem_sort.rank_sort = false;
    expect_matches(a, b, smem_sort, "sort steps in shared memory");
    smem_sort.one_pass_light_rows = false;
    expect_matches(a, b, smem_sort, "sort steps in shared memory, two passes");
    // a lower heavy threshold: rows and chunks past it take the heavy path, the same product; above τ it is τ
    {
        GpuSpgemmOptions o = binned();
        o.dense_wide_rows = false;  // the rows past the threshold span few columns: they would accumulate densely
        const auto paper = expect_matches(light, light, o, "heavy threshold τ");
        o.heavy_threshold = 48;
        const auto low = expect_matches(light, light, o, "heavy threshold 48");
        EXPECT_EQ(low.tau, 48);
        EXPECT_GT(low.heavy_rows, paper.heavy_rows);
        EXPECT_EQ(low.nnz_c, paper.nnz_c);
        o.heavy_threshold = std::int64_t{1} << 40;
        EXPECT_EQ(expect_matches(light, light, o, "heavy threshold above τ").tau, paper.tau);
        GpuSpgemmOptions chunks = budget(16384, 1 << 15);
        const auto paper_chunks = expect_matches(a, b, chunks, "chunks, τ");
        chunks.heavy_threshold = 64;
        const auto low_chunks = expect_matches(a, b, chunks, "chunks, heavy threshold 64");
        EXPECT_GE(low_chunks.heavy_rows, paper_chunks.heavy_rows);
        EXPECT_GE(low_chunks.levels_run, 1);
        // a threshold too small for the budget's multisplit histograms is raised to the smallest
        // feasible τ (HeavyThresholdRaisedToFeasible), not a failure
        GpuSpgemmOptions tiny = budget(4096);
        tiny.heavy_threshold = 1;
        const auto raised = expect_matches(a, b, tiny, "heavy threshold 1 under 4 KiB");
        EXPECT_GT(raised.tau, 1);
        EXPECT_GT(raised.heavy_rows, 0);
    }
    GpuSpgemmOptions bad;
    bad.heavy_threshold = -1;
    EXPECT_THROW(gpu_spgemm(a.view(), b.view(), bad), gs::InvalidArgument);
    bad = {};
    bad.multisplit_threads = 128;
    EXPECT_THROW(gpu_spgemm(a.view(), b.view(), bad), gs::InvalidArgument);
    bad = {};
    bad.outer_threads = 48;
    EXPECT_THROW(gpu_spgemm(a.view(), b.view(), bad), gs::InvalidArgument);
    bad = {};
    bad.resident_blocks = 9;
    EXPECT_THROW(gpu_spgemm(a.view(), b.view(), bad), gs::InvalidArgument);
    bad = {};
    bad.light_streams = 9;
    EXPECT_THROW(gpu_spgemm(a.view(), b.view(), bad), gs::InvalidArgument);
}

#ifdef GIGASPARSE_CUDA_SIM
// Launches of the warp-per-row light kernel in phase `suffix` ("" or " (once)", " (known)") by the last call.
std::int64_t warp_row_launches(const std::string& suffix) {
    const auto& k = cuda_sim::stats().kernels;
    const auto it = k.find("hash_rows_warp_kernel" + suffix);
    return it == k.end() ? 0 : it->second;
}
#endif

// Light rows of up to GpuSpgemmOptions::warp_row_products products (512 by default) take a warp each
// in the bins that hold a block of rows (8) for every SM — one SM here, so this product's bins of
// 33-512 products do: tables of 128-1024 entries on one warp, their sort's shared-memory steps on
// warp barriers. The same product as with only the one-warp bins on warps (warp_row_products 32) and
// as a block per row, in one pass, in two, and from a plan (numeric, then on its kept columns).
TEST(CudaSpgemm, WarpPerLongerLightRow) {
    SKIP_WITHOUT_GPU();
    if (!simulated) GTEST_SKIP() << "the simulator's SM count makes the test's small bins full";
#ifdef GIGASPARSE_CUDA_SIM
    cuda_sim::config().sm_count = 1;
    const auto a = gs::test::rmat_like<double, std::int32_t>(10, 10, 8, 61);
    const auto st = expect_matches(a, a, binned(), "a warp per light row of up to 512 products");
    EXPECT_EQ(st.heavy_rows, 0);
    const std::int64_t longer = warp_row_launches(" (once)");
    GpuSpgemmOptions o = binned();  // (the product's long rows would take the small-product path's blocks)
    o.warp_row_products = 32;
    expect_matches(a, a, o, "a warp per light row of up to 32 products");
    const std::int64_t short_only = warp_row_launches(" (once)");
    EXPECT_LE(short_only, 2);             // the one-warp bins (tables of 32 and 64 entries)
    EXPECT_GE(longer, short_only + 3);    // and the bins of 128-1024 entries
    o = binned();
    o.warp_light_rows = false;
    expect_matches(a, a, o, "a block per light row");
    EXPECT_EQ(warp_row_launches(" (once)"), 0);
    o = binned();
    o.one_pass_light_rows = false;
    expect_matches(a, a, o, "two passes");
    EXPECT_EQ(warp_row_launches(""), 2 * longer);  // counted, then accumulated
    o.warp_sort_steps = false;
    o.rank_sort = false;
    expect_matches(a, a, o, "two passes, every table sorted, every sort step in shared memory");
    o = budget(16384);  // a smaller budget: fewer tables a block, some rows heavy
    expect_matches(a, a, o, "a smaller budget");
    o.warp_row_products = 100000;  // every light bin on warps, up to the budget's largest table
    expect_matches(a, a, o, "a smaller budget, every light bin on warps");
    // double values with 64-bit indices (two rounds of loads in flight instead of four)
    const auto a64 = gs::test::rmat_like<double, std::int64_t>(10, 10, 8, 62);
    expect_matches(a64, a64, binned(), "double, int64");
    EXPECT_GE(warp_row_launches(" (once)"), short_only + 3);
    const auto af = gs::test::rmat_like<float, std::int32_t>(10, 10, 8, 63);
    expect_matches(af, af, binned(), "float, int32");
    // a plan: symbolic, numeric, then numeric on the kept columns (the known phase; its light rows
    // in the known tables, not the product map)
    auto ap = a;
    GpuSpgemmOptions tables = binned();
    tables.light_product_map = false;
    gs::cuda::GpuSpgemmPlan<double, std::int32_t> plan(tables);
    plan.symbolic(ap.view(), ap.view());
    for (int round = 0; round < 2; ++round) {
        new_values(ap, round);
        cuda_sim::reset();
        const auto c = plan.numeric(ap.view(), ap.view());
        EXPECT_TRUE(gs::test::csr_near(gs::reference::spgemm(ap.view(), ap.view()).view(), c.view(), 1e-10)) << "round " << round;
        EXPECT_GE(warp_row_launches(round == 0 ? "" : " (known)"), short_only + 3) << "round " << round;
    }
    GpuSpgemmOptions bad;
    bad.warp_row_products = -1;
    EXPECT_THROW(gpu_spgemm(a.view(), a.view(), bad), gs::InvalidArgument);
#endif
}

// Rows in any order, duplicates summed (the SpgemmPlan contract): heavy rows go through the CSC
// sort and the outer product, light rows through the hash.
TEST(CudaSpgemm, UnsortedRowsWithDuplicates) {
    SKIP_WITHOUT_GPU();
    const int s = static_cast<int>(sim_or(9, 11));
    auto a = gs::test::unsort_rows(gs::test::rmat_like<double, std::int32_t>(s, s, 12, 41), 7);
    a.col_idx.push_back(a.col_idx.back());  // a duplicate in the last nonempty row
    a.values.push_back(0.25);
    a.row_ptr.back() += 1;
    const auto b = gs::test::unsort_rows(gs::test::rmat_like<double, std::int32_t>(s, s, 6, 42), 8);
    expect_matches(a, b, {}, "unsorted");
    expect_matches(a, b, budget(4096), "unsorted low smem");
}

// The small-product path's limits. A row of more than small_max_row_products (4096) products, or
// one of more products than its warp's table has entries (1024 for float values and int32 indices,
// 512 for double and int64) whose columns reach the table's limit (32 short of its size), takes a
// block (small_long_rows_kernel: dense over its span, in windows of 7936 columns for float, 4032 for
// double; GpuSpgemmStats::small_long_rows); a row of many products over fewer columns stays with
// its warp (its inserts bounded). A long row whose span takes more than 8 windows sends the product
// to the binned path (GpuSpgemmStats::small_rows_back). The same product either way, from one call
// and from a plan (whose numeric phases launch the long rows' kernel again).
struct SmallCase {
    std::int64_t k, per, ncols;
    int long_rows;  // rows of the product that take a block
    bool back;      // the product goes to the binned path
    const char* what;
};
template <class V, class I>
void expect_small_case(const SmallCase& c) {
    SCOPED_TRACE(c.what);
    const auto [a, b] = one_long_row<V, I>(c.k, c.per, c.ncols);
    const auto st = expect_matches(a, b, {}, c.what);
    EXPECT_EQ(st.small_product, !c.back);
    EXPECT_EQ(st.small_rows_back, c.back ? 1 : 0);
    EXPECT_EQ(st.small_long_rows, c.back ? 0 : c.long_rows);
    EXPECT_EQ(st.products, c.k * c.per + c.per);
    if (!c.back) expect_product_and_plan(a, b, {}, c.what);
}

TEST(CudaSpgemm, SmallProductLimits) {
    SKIP_WITHOUT_GPU();
    namespace gm = gs::cuda::gmagnus;
    ASSERT_EQ(gm::small_max_row_products, 4096);
    ASSERT_EQ(gm::small_long_max_windows, 8);
    ASSERT_EQ(gm::small_long_window({4, 4}, true), 7936);
    ASSERT_EQ(gm::small_long_window({8, 8}, true), 4032);
    for (const SmallCase& c : {SmallCase{1000, 2, 500, 0, false, "2000 products over 500 columns"},
                               SmallCase{1000, 2, 1500, 1, false, "2000 products over 1500 columns: a block"},
                               SmallCase{4096, 1, 100, 0, false, "4096 products over 100 columns"},
                               SmallCase{4097, 1, 100, 1, false, "4097 products: a block"},
                               SmallCase{300, 3, 900, 0, false, "900 products over 900 columns (a table of 1024)"},
                               SmallCase{2000, 10, 20000, 1, false, "20000 products over 20000 columns: a block, 3 windows"},
                               SmallCase{3968, 16, 63488, 1, false, "a span of 63488 columns: 8 windows"},
                               SmallCase{3969, 16, 63489, 1, true, "a span of 63489 columns: 9 windows, binned"}})
        expect_small_case<float, std::int32_t>(c);
    for (const SmallCase& c : {SmallCase{600, 2, 400, 0, false, "double, int64: 1200 products over 400 columns"},
                               SmallCase{600, 2, 490, 1, false, "double, int64: 1200 products over 490 columns (a limit of 480): a block"},
                               SmallCase{2016, 16, 32256, 1, false, "double, int64: a span of 32256 columns: 8 windows"},
                               SmallCase{2017, 16, 32257, 1, true, "double, int64: a span of 32257 columns: 9 windows, binned"}})
        expect_small_case<double, std::int64_t>(c);
    // GpuSpgemmOptions::small_row_products: rows of more products take a block (2000 products over
    // 500 columns, a warp's row above, with 1024: a block; 1024 products stay with their warp)
    GpuSpgemmOptions lower;
    lower.small_row_products = 1024;
    for (const auto& [k, long_rows] : {std::pair{std::int64_t{1000}, 1}, std::pair{std::int64_t{512}, 0}}) {
        const auto [la, lb] = one_long_row<float, std::int32_t>(k, 2, 500);
        const std::string what = std::to_string(2 * k) + " products, small_row_products 1024";
        const auto st = expect_matches(la, lb, lower, what);
        EXPECT_TRUE(st.small_product) << what;
        EXPECT_EQ(st.small_long_rows, long_rows) << what;
        expect_product_and_plan(la, lb, lower, what);
    }
    for (const std::int64_t bad : {std::int64_t{-1}, gm::small_max_row_products + 1}) {
        GpuSpgemmOptions o;
        o.small_row_products = bad;
        const auto [la, lb] = one_long_row<float, std::int32_t>(10, 2, 50);
        EXPECT_THROW(gpu_spgemm(la.view(), lb.view(), o), gs::InvalidArgument) << bad;
    }
    // off: never tried
    const auto [a, b] = one_long_row<float, std::int32_t>(100, 2, 50);
    const auto off = expect_matches(a, b, binned(), "small products off");
    EXPECT_FALSE(off.small_product);
    EXPECT_EQ(off.small_rows_back, 0);
    EXPECT_EQ(off.small_long_rows, 0);
}

// Light rows whose A entries span several chunks of the block-wide product walk (256 entries each): 700 and 1300
// entries, many pointing at empty rows of B (zero-length runs inside a chunk, a whole chunk without products), the
// rest at B rows of 1-3 entries, so every row stays light; also a row whose only products come after 600 empty ones.
// Numeric and symbolic phases, in the simulator's reverse thread order too.
TEST(CudaSpgemm, LightRowsWithManyEntriesSpanWalkChunks) {
    SKIP_WITHOUT_GPU();
    const std::int64_t n = 2048;
    gs::Csr<double, std::int32_t> b(n, n);
    b.row_ptr.assign(n + 1, 0);
    for (std::int64_t r = 0; r < n; ++r) {
        const int len = r % 3 == 0 ? 0 : static_cast<int>(r % 4);  // rows 0, 3, 6, ... empty
        for (int t = 0; t < len; ++t) {
            b.col_idx.push_back(static_cast<std::int32_t>((r * 37 + t * 101) % n));
            b.values.push_back(1.0 + 0.001 * static_cast<double>(r + t));
        }
        b.row_ptr[r + 1] = static_cast<gs::offset_t>(b.col_idx.size());
    }
    gs::Csr<double, std::int32_t> a(4, n);
    a.row_ptr.assign(5, 0);
    auto add_row = [&](std::int64_t row, std::int64_t entries, std::int64_t first, std::int64_t step) {
        for (std::int64_t k = 0; k < entries; ++k) {
            a.col_idx.push_back(static_cast<std::int32_t>((first + k * step) % n));
            a.values.push_back(0.5 + 0.01 * static_cast<double>(k % 17));
        }
        a.row_ptr[row + 1] = static_cast<gs::offset_t>(a.col_idx.size());
    };
    add_row(0, 700, 1, 1);     // mixed lengths, three chunks
    add_row(1, 1300, 0, 1);    // six chunks
    add_row(2, 600, 0, 3);     // columns 0, 3, ..., 1797: empty B rows only (three chunks without products) ...
    for (std::int64_t k = 0; k < 30; ++k) {  // ... then columns 1801, 1804, ...: rows of B with entries
        a.col_idx.push_back(static_cast<std::int32_t>(1801 + 3 * k));
        a.values.push_back(2.0);
    }
    a.row_ptr[3] = static_cast<gs::offset_t>(a.col_idx.size());
    add_row(3, 5, 7, 5);
    for (std::int64_t r = 0; r < 4; ++r) std::sort(a.col_idx.begin() + a.row_ptr[r], a.col_idx.begin() + a.row_ptr[r + 1]);
    const auto st = expect_matches(a, b, {}, "light rows over several walk chunks");
    EXPECT_EQ(st.heavy_rows, 0);
    EXPECT_EQ(st.light_rows, 4);
#ifdef GIGASPARSE_CUDA_SIM
    cuda_sim::config().order = cuda_sim::Order::reverse;
    expect_matches(a, b, {}, "reverse thread order");
    cuda_sim::config() = cuda_sim::default_config();
#endif
}

// A one-call product accumulates its light rows in one pass, staging their sorted entries until
// C's row offsets are known (GpuSpgemmStats::light_stage_bytes: a column and a value per light
// product and an offset per row); without the option, or beyond the staging budget, a counting
// pass and a numeric pass give the same product.
TEST(CudaSpgemm, OnePassLightRows) {
    SKIP_WITHOUT_GPU();
    const auto a = gs::test::rmat_like<double, std::int32_t>(8, 16, 12, 71);
    const auto b = gs::test::rmat_like<double, std::int32_t>(16, 16, 3, 72);
    const auto count_once = [] {
#ifdef GIGASPARSE_CUDA_SIM
        const auto k = cuda_sim::stats().kernels;
        std::int64_t n = 0;
        for (const char* name : {"hash_rows_kernel (once)", "hash_rows_warp_kernel (once)", "unstage_rows_kernel"})
            n += k.count(name) ? k.at(name) : 0;
        return n;
#else
        return std::int64_t{-1};
#endif
    };
    const auto once = expect_matches(a, b, budget(4096), "one pass");
    EXPECT_GT(once.heavy_rows, 0);
    EXPECT_GT(once.light_rows, 0);
    EXPECT_GE(once.light_stage_bytes, (once.products - once.heavy_products) * 12);
    if (simulated) {
        EXPECT_GT(count_once(), 0);
    }
    GpuSpgemmOptions two = budget(4096);
    two.one_pass_light_rows = false;
    const auto st2 = expect_matches(a, b, two, "two passes");
    EXPECT_EQ(st2.light_stage_bytes, 0);
    EXPECT_EQ(st2.nnz_c, once.nnz_c);
    if (simulated) {
        EXPECT_EQ(count_once(), 0);
    }
    GpuSpgemmOptions small = budget(4096);
    small.light_stage_budget_bytes = 64;
    EXPECT_EQ(expect_matches(a, b, small, "staging over its budget").light_stage_bytes, 0);
    if (simulated) {
        EXPECT_EQ(count_once(), 0);
    }
    // float values, int64 columns, light rows only: the warp-per-row and block-per-row bins
    const auto af = gs::test::rmat_like<float, std::int64_t>(9, 9, 6, 73);
    const auto stf = expect_matches(af, af, binned(), "float, int64");
    EXPECT_EQ(stf.heavy_rows, 0);
    EXPECT_GT(stf.light_stage_bytes, 0);
#ifdef GIGASPARSE_CUDA_SIM
    EXPECT_GT(cuda_sim::stats().kernels.count("hash_rows_warp_kernel (once)"), 0);
    EXPECT_GT(cuda_sim::stats().kernels.count("hash_rows_kernel (once)"), 0);
#endif
    // more light rows than one block scans (small_scan_max, 8192): the staging's offsets and C's row
    // offsets by a gather and CUB's scans
    const auto many = gs::test::banded<float, std::int32_t>(9000, 1, 74);
    EXPECT_GT(expect_matches(many, many, binned(), "9000 light rows").light_stage_bytes, 0);
#ifdef GIGASPARSE_CUDA_SIM
    EXPECT_GT(cuda_sim::stats().kernels.count("gather_kernel"), 0) << "the staging's offsets: gathered, then CUB's scan";
    EXPECT_EQ(cuda_sim::stats().kernels.count("small_scan_kernel (exclusive)"), 0);
#endif
}

// The one-block scans in tiles of 4096 counts (small_scan_kernel, small_finish_kernel): 6000 light
// rows, one small_scan_kernel launch of two tiles; 9000 rows on the small-product path, C's row
// offsets in three tiles; long rows listed from two tiles.
TEST(CudaSpgemm, ScansInTiles) {
    SKIP_WITHOUT_GPU();
    const auto many = gs::test::banded<float, std::int32_t>(9000, 1, 74);
    const auto two_tiles = gs::test::banded<float, std::int32_t>(6000, 1, 75);
    expect_matches(two_tiles, two_tiles, binned(), "6000 light rows");
#ifdef GIGASPARSE_CUDA_SIM
    EXPECT_GT(cuda_sim::stats().kernels.count("small_scan_kernel (exclusive)"), 0);
#endif
    EXPECT_TRUE(expect_matches(many, many, GpuSpgemmOptions{}, "9000 rows, small-product path").small_product);
    // long rows on both sides of the first tile of small_finish_kernel's list: rows 100 and 4500 of
    // a band full, so rows 99-101 and 4499-4501 of A² have more than 4096 products
    gs::Coo<float, std::int32_t> coo;
    coo.nrows = coo.ncols = 5000;
    for (std::int32_t i = 0; i < 5000; ++i)
        for (std::int32_t j = 0; j < 5000; ++j)
            if (i == 100 || i == 4500 || (j >= i - 1 && j <= i + 1)) {
                coo.row.push_back(i);
                coo.col.push_back(j);
                coo.val.push_back(0.5f + static_cast<float>((i + 3 * j) % 5));
            }
    const auto two_long = gs::coo_to_csr(coo);
    const auto lst = expect_matches(two_long, two_long, GpuSpgemmOptions{}, "long rows in two tiles");
    EXPECT_TRUE(lst.small_product);
    EXPECT_EQ(lst.small_long_rows, 6);
}

// Light rows whose products span few columns accumulate densely (GpuSpgemmOptions::
// dense_light_rows): banded rows of some 1700 products (a block each, spans of 81 columns) and of
// some 170 (a warp each, spans of 25), rows of a random square (spans of the whole width, which
// their tables still hold), in one pass, in two and in a plan's numeric phases (the kept pattern's too), float and double, int32 and
// int64 — the same products as with every row hashed. Wide rectangular rows stay hashed. The
// simulator counts the barriers and warp collectives: a dense row takes its walk's and a few, a
// hashed one also its compaction's and its sort's.
TEST(CudaSpgemm, DenseLightRows) {
    SKIP_WITHOUT_GPU();
    GpuSpgemmOptions hashed = binned();
    hashed.dense_light_rows = false;
    const auto band = gs::test::banded<double, std::int32_t>(sim_or(600, 5000), 20, 7);
    const auto dense_st = expect_matches(band, band, binned(), "banded, dense");
#ifdef GIGASPARSE_CUDA_SIM
    const std::int64_t dense_barriers = cuda_sim::stats().barriers;
#endif
    const auto hashed_st = expect_matches(band, band, hashed, "banded, hashed");
    EXPECT_EQ(dense_st.nnz_c, hashed_st.nnz_c);
    EXPECT_EQ(dense_st.heavy_rows, 0);
#ifdef GIGASPARSE_CUDA_SIM
    EXPECT_LT(2 * dense_barriers, cuda_sim::stats().barriers) << "the banded rows were hashed and sorted";
#endif
    // rows of some 170 products: a warp each (hash_rows_warp_kernel), dense in the warp's table
    const auto narrow = gs::test::banded<double, std::int32_t>(sim_or(600, 5000), 6, 11);
    expect_matches(narrow, narrow, binned(), "narrow band, dense warps");
#ifdef GIGASPARSE_CUDA_SIM
    const std::int64_t dense_collectives = cuda_sim::stats().warp_collectives;
#endif
    expect_matches(narrow, narrow, hashed, "narrow band, hashed warps");
#ifdef GIGASPARSE_CUDA_SIM
    // (the product walk's shuffles remain: 1.9 against 4.1 million when this was written)
    EXPECT_LT(3 * dense_collectives, 2 * cuda_sim::stats().warp_collectives) << "the warps' rows were hashed and sorted";
    std::cout << "narrow band: " << dense_collectives << " warp collectives dense, " << cuda_sim::stats().warp_collectives << " hashed\n";
#endif
    GpuSpgemmOptions two = binned();
    two.one_pass_light_rows = false;
    expect_matches(band, band, two, "banded, dense, two passes");
    expect_matches(narrow, narrow, two, "narrow band, dense warps, two passes");
    const auto sq = gs::test::random_csr<float, std::int64_t>(sim_or(700, 3000), sim_or(700, 3000), 40, 8);
    expect_matches(sq, sq, binned(), "random square, float, int64");
    const std::int64_t k = sim_or(300, 1300);
    const auto a = gs::test::random_csr<double, std::int32_t>(sim_or(200, 777), k, 25, 9, 0.4);
    const auto b = gs::test::random_csr<double, std::int32_t>(k, sim_or(30001, 90001), 40, 10, 0.3);
    expect_matches(a, b, binned(), "wide rows, hashed");
    expect_square_plan(band, binned(), 3, "banded, plan");
}

// Wide dense rows (GpuSpgemmOptions::dense_wide_rows, row_is_dense_wide): rows of more than τ
// products whose products span few columns accumulate densely, a block each, in the shared-memory
// budget, in windows of B's columns when they span more; rows of more than 4 windows, or with more
// than the walk cap of products walked (products times windows: 2^19, or the walk of all such rows
// over the SMs when more: GpuSpgemmOptions::dense_wide_walk), stay heavy. At 16 KiB (double
// values, int32 indices) the largest hash table holds 1024 entries: τ = 512; windows of up to some
// 2000 columns fit the budget.
TEST(CudaSpgemm, DenseWideRows) {
    SKIP_WITHOUT_GPU();
    GpuSpgemmOptions wide = binned();
    wide.shared_memory_bytes = 16384;
    GpuSpgemmOptions heavy = wide;
    heavy.dense_wide_rows = false;
    // a band of 25 entries a row: 625 products a row (more than τ) over 49 columns
    const std::int64_t n = sim_or(600, 5000);
    const auto band = gs::test::banded<double, std::int32_t>(n, 12, 21);
    const auto w = expect_matches(band, band, wide, "band, wide dense rows");
    ASSERT_EQ(w.tau, 512);
    EXPECT_EQ(w.heavy_rows, 0);
    EXPECT_GT(w.wide_dense_rows, n / 2);
    EXPECT_EQ(w.light_rows, n);
    const auto h = expect_matches(band, band, heavy, "band, heavy rows");
    EXPECT_EQ(h.heavy_rows, w.wide_dense_rows);
    EXPECT_EQ(h.wide_dense_rows, 0);
    EXPECT_EQ(h.nnz_c, w.nnz_c);
    GpuSpgemmOptions two = wide;
    two.one_pass_light_rows = false;
    expect_matches(band, band, two, "band, wide dense rows, two passes");
    GpuSpgemmOptions hashed = wide;
    hashed.dense_light_rows = false;  // no spans: no wide dense rows either
    EXPECT_EQ(expect_matches(band, band, hashed, "band, hashed").wide_dense_rows, 0);
    expect_square_plan(band, wide, 3, "band, wide dense rows, plan");
#ifdef GIGASPARSE_CUDA_SIM
    {
        // a bin of wide dense rows that fills every SM takes the block of the most rows in flight
        // (dense_wide_launch; the hash bins keep a block a row whatever the SMs: warp_light_rows off)
        GpuSpgemmOptions blocks = wide;
        blocks.warp_light_rows = false;
        cuda_sim::reset();
        expect_matches(band, band, blocks, "band, wide dense rows, 132 SMs");
        const std::int64_t threads_many = cuda_sim::stats().threads;
        cuda_sim::config().sm_count = 1;
        cuda_sim::reset();
        expect_matches(band, band, blocks, "band, wide dense rows, one SM");
        const std::int64_t threads_one = cuda_sim::stats().threads;
        cuda_sim::config() = cuda_sim::default_config();
        EXPECT_LT(threads_one, threads_many) << "one SM: the wide dense rows fill it with smaller blocks";
    }
#endif

    // the band and 5 rows whose products span the whole width, float and int64: at 8 KiB a largest
    // table of 512 entries, τ = 256, windows of up to some 1980 columns: the rows of a whole span
    // (and those that reach them) take 2 (simulator: 2400 columns) or 3 (5000) windows
    GpuSpgemmOptions wide8 = wide;
    wide8.shared_memory_bytes = 8192;
    const std::int64_t n2 = sim_or(2400, 5000);
    gs::Coo<float, std::int64_t> coo;
    coo.nrows = coo.ncols = n2;
    const auto ab = gs::test::banded<float, std::int64_t>(n2, 12, 22);
    for (std::int64_t r = 0; r < n2; ++r)
        for (std::int64_t q = ab.row_ptr[r]; q < ab.row_ptr[r + 1]; ++q) {
            coo.row.push_back(r);
            coo.col.push_back(ab.col_idx[q]);
            coo.val.push_back(ab.values[q]);
        }
    for (std::int64_t r = 100; r < 105; ++r)
        for (std::int64_t c = r % 7; c < n2; c += n2 / 40) {
            coo.row.push_back(r);
            coo.col.push_back(c);
            coo.val.push_back(0.5f + static_cast<float>(c % 5));
        }
    const auto mixed = gs::coo_to_csr(coo);
    const auto m = expect_matches(mixed, mixed, wide8, "band and rows of a whole span, float, int64");
    ASSERT_EQ(m.tau, 256);
    EXPECT_GT(m.wide_dense_rows, n2 / 2);
    EXPECT_EQ(m.heavy_rows, 0) << "the rows of a whole span (and those that reach them) in windows";
    GpuSpgemmOptions heavy8 = wide8;
    heavy8.dense_wide_rows = false;
    EXPECT_EQ(expect_matches(mixed, mixed, heavy8, "band and rows of a whole span, heavy").heavy_rows, m.wide_dense_rows);
    expect_square_plan(mixed, wide8, 2, "mixed, plan");

    // windows: B of 30k columns, its row j over columns [30j, 30j + 45) (neighbours overlap: sums);
    // at 8 KiB windows of 1800 (simulator: 9000 columns in 5) or 1875 (30000 in 16). Rows of A over
    // 10 consecutive rows of B (450 products, a span of 315: one window), over 9 rows 20 apart (405
    // products, a span of 4845: 3 windows), over 9 rows 37 apart (a span of 8925: 5 windows, heavy),
    // over one row (light) and none. One call, device-resident, a plan (its second numeric phase on
    // C's kept columns: each known column written by its window) and two passes.
    {
        const std::int64_t kb = sim_or(300, 1000), na = sim_or(40, 400);
        gs::Coo<float, std::int64_t> cb, ca;
        cb.nrows = kb;
        cb.ncols = 30 * kb;
        for (std::int64_t j = 0; j < kb; ++j)
            for (std::int64_t t = 0; t < 45 && 30 * j + t < cb.ncols; ++t) {
                cb.row.push_back(j);
                cb.col.push_back(30 * j + t);
                cb.val.push_back(0.25f * static_cast<float>((j + t) % 9) - 1.0f);
            }
        ca.nrows = na;
        ca.ncols = kb;
        std::int64_t expect_wide = 0, expect_heavy = 0;
        for (std::int64_t i = 0; i < na; ++i) {
            std::vector<std::int64_t> rows;
            switch (i % 5) {
                case 0: for (std::int64_t t = 0; t < 10; ++t) rows.push_back((i * 13) % (kb - 10) + t); ++expect_wide; break;
                case 1: for (std::int64_t t = 0; t < 9; ++t) rows.push_back((i * 7) % (kb - 170) + 20 * t); ++expect_wide; break;
                case 2: for (std::int64_t t = 0; t < 9; ++t) rows.push_back(i % 4 + 37 * t); ++expect_heavy; break;
                case 3: rows.push_back((i * 11) % kb); break;
                default: break;  // no products
            }
            for (const std::int64_t j : rows) {
                ca.row.push_back(i);
                ca.col.push_back(j);
                ca.val.push_back(1.0f + static_cast<float>((i + j) % 3));
            }
        }
        const auto wa = gs::coo_to_csr(ca), wb = gs::coo_to_csr(cb);
        const auto w5 = expect_matches(wa, wb, wide8, "windows");
        EXPECT_EQ(w5.wide_dense_rows, expect_wide);
        EXPECT_EQ(w5.heavy_rows, expect_heavy) << "5 windows: heavy";
        expect_product_and_plan(wa, wb, wide8, "windows");
        GpuSpgemmOptions two = wide8;
        two.one_pass_light_rows = false;
        expect_matches(wa, wb, two, "windows, two passes");
        // dense_wide_windows: 5 takes the rows of 5 windows too; 1 leaves only the rows of one
        GpuSpgemmOptions five = wide8, one = wide8;
        five.dense_wide_windows = 5;
        one.dense_wide_windows = 1;
        const auto w5b = expect_matches(wa, wb, five, "up to 5 windows");
        EXPECT_EQ(w5b.wide_dense_rows, expect_wide + expect_heavy);
        EXPECT_EQ(w5b.heavy_rows, 0);
        expect_product_and_plan(wa, wb, five, "up to 5 windows");
        const auto w1 = expect_matches(wa, wb, one, "one window");
        EXPECT_EQ(w1.wide_dense_rows, (na + 4) / 5) << "the rows of 10 consecutive rows of B (i % 5 == 0)";
        GpuSpgemmOptions bad = wide8;
        bad.dense_wide_windows = 65;
        EXPECT_THROW(gpu_spgemm(wa.view(), wb.view(), bad), gs::InvalidArgument);
    }

    // rows of up to dense_wide_max_walk (2^19 = 524288) products walked: A's rows over 100 or 130 rows of B, each
    // over all of its 2100 columns (210000 and 273000 products; at 16 KiB 2 windows of 1050: 420000 and
    // 546000 walked)
    const std::int32_t kr = 130, kc = 2100;
    gs::Coo<double, std::int32_t> ca, cb;
    ca.nrows = 2;
    ca.ncols = cb.nrows = kr;
    cb.ncols = kc;
    for (std::int32_t r = 0; r < kr; ++r) {
        if (r < 100) {
            ca.row.push_back(0);
            ca.col.push_back(r);
            ca.val.push_back(1.0 + r % 3);
        }
        ca.row.push_back(1);
        ca.col.push_back(r);
        ca.val.push_back(2.0 - r % 2);
        for (std::int32_t j = 0; j < kc; ++j) {
            cb.row.push_back(r);
            cb.col.push_back(j);
            cb.val.push_back(0.25 * ((r + j) % 7) - 0.5);
        }
    }
    const auto ka = gs::coo_to_csr(ca), kb = gs::coo_to_csr(cb);
    const auto cap = expect_matches(ka, kb, wide, "rows of 210000 and 273000 products in 2 windows");
    EXPECT_EQ(cap.wide_dense_rows, 1) << "the row of 210000 products (420000 walked)";
    EXPECT_EQ(cap.heavy_rows, 1) << "the row of 273000 products (546000 walked)";
    EXPECT_EQ(cap.wide_walk_cap, std::int64_t{1} << 19) << "966000 walked over the device's SMs: below the floor";
    // a fixed cap of the option's: both rows, or neither
    GpuSpgemmOptions fixed = wide;
    fixed.dense_wide_walk_adaptive = false;
    fixed.dense_wide_walk = 546000;
    const auto both = expect_matches(ka, kb, fixed, "a fixed cap of 546000");
    EXPECT_EQ(both.wide_dense_rows, 2);
    EXPECT_EQ(both.heavy_rows, 0);
    EXPECT_EQ(both.wide_walk_cap, 546000);
    fixed.dense_wide_walk = 419999;
    EXPECT_EQ(expect_matches(ka, kb, fixed, "a fixed cap of 419999").heavy_rows, 2);
#ifdef GIGASPARSE_CUDA_SIM
    {
        // on one SM the adaptive cap is the rows' whole walk: both rows wide dense
        cuda_sim::config().sm_count = 1;
        const auto one = expect_matches(ka, kb, wide, "the adaptive cap on one SM");
        cuda_sim::config() = cuda_sim::default_config();
        EXPECT_EQ(one.wide_walk_cap, 966000);
        EXPECT_EQ(one.wide_dense_rows, 2);
        EXPECT_EQ(one.heavy_rows, 0);
    }
#endif
    // the adaptive cap over every SM: the band's rows walk at most 625 products each, and some
    // n x 600 in all, over the SMs far more than a floor of 600, which alone keeps the rows of 625
    // products heavy
    GpuSpgemmOptions floor600 = wide;
    floor600.dense_wide_walk = 600;
    const auto adaptive = expect_matches(band, band, floor600, "band, floor 600, adaptive");
    EXPECT_EQ(adaptive.heavy_rows, 0);
    EXPECT_EQ(adaptive.wide_dense_rows, w.wide_dense_rows);
    EXPECT_GT(adaptive.wide_walk_cap, 625);
    floor600.dense_wide_walk_adaptive = false;
    const auto fixed600 = expect_matches(band, band, floor600, "band, a fixed cap of 600");
    EXPECT_EQ(fixed600.wide_walk_cap, 600);
    EXPECT_GT(fixed600.heavy_rows, n / 2) << "the rows of 625 products";
    EXPECT_EQ(fixed600.heavy_rows + fixed600.wide_dense_rows, w.wide_dense_rows);
    expect_square_plan(band, floor600, 2, "band, a fixed cap of 600, plan");
    GpuSpgemmOptions bad = wide;
    bad.dense_wide_walk = -1;
    EXPECT_THROW(gpu_spgemm(band.view(), band.view(), bad), gs::InvalidArgument);
    bad.dense_wide_walk = (std::int64_t{1} << 31) + 1;
    EXPECT_THROW(gpu_spgemm(band.view(), band.view(), bad), gs::InvalidArgument);
    EXPECT_EQ(expect_matches(band, band, heavy, "band, heavy rows").wide_walk_cap, 0) << "no wide dense rows";
}

namespace {

// Options drawn at random (fixed seeds): every knob of GpuSpgemmOptions in combinations no other
// test picks, each draw feasible for elements (column and value) of elem_bytes: multisplit blocks of
// 512 and 1024 threads with budgets of 16 KiB and more (8 KiB is too small for 512 threads'
// histograms; 1024 threads with 16-byte elements from 32 KiB), 4 KiB only for elements of up to 12 bytes (not a 64-bit column with a double), several
// resident blocks with 32 KiB and more (GmagnusMath.DeviceTestBudgetsAreFeasible pins these).
GpuSpgemmOptions random_options(std::mt19937_64& rng, int elem_bytes, std::string& text) {
    const auto pick = [&](std::initializer_list<std::int64_t> xs) { return *(xs.begin() + static_cast<std::ptrdiff_t>(rng() % xs.size())); };
    const auto coin = [&] { return rng() % 2 == 0; };
    GpuSpgemmOptions o;
    o.shared_memory_bytes = elem_bytes <= 12 ? pick({0, 4096, 8192, 16384, 32768}) : pick({0, 8192, 16384, 32768});
    o.intermediate_budget_bytes = pick({0, 0, std::int64_t{1} << 13, std::int64_t{1} << 16});
    const std::int64_t smem = o.shared_memory_bytes == 0 ? std::int64_t{1} << 20 : o.shared_memory_bytes;
    o.multisplit_threads = static_cast<int>(smem >= (elem_bytes > 12 ? 32768 : 16384) ? pick({0, 256, 512, 1024})
                                             : smem >= 16384                         ? pick({0, 256, 512})
                                                                                     : pick({0, 256}));
    o.outer_threads = static_cast<int>(pick({0, 32, 128, 1024}));
    o.resident_blocks = static_cast<int>(smem >= 32768 ? pick({0, 1, 2, 4}) : pick({0, 1}));
    o.heavy_threshold = pick({0, 0, 16, 64, 300});
    o.warp_light_rows = coin();
    o.warp_row_products = pick({0, 32, 100, 512});
    o.dense_light_rows = coin();
    o.dense_wide_rows = coin();
    o.light_streams = static_cast<int>(pick({0, 1, 2, 5}));
    o.fit_hash_blocks = coin();
    o.one_pass_light_rows = coin();
    o.light_stage_budget_bytes = pick({0, 0, 2048});
    o.keep_c_pattern = coin();
    o.light_product_map = coin();
    o.warp_sort_steps = coin();
    o.time_phases = coin();
    o.dense_wide_windows = static_cast<int>(pick({0, 0, 1, 2, 8}));
    o.dense_wide_walk = pick({0, 0, 1, 1000, 100000});
    o.dense_wide_walk_adaptive = coin();
    o.small_products = rng() % 4 == 0;  // (most of these products are small enough: the binned path's knobs need it off)
    o.small_row_products = pick({0, 0, 32, 100, 1024});
    o.rank_sort = coin();
    o.packed_tables = coin();
    text = "smem " + std::to_string(o.shared_memory_bytes) + " inter " + std::to_string(o.intermediate_budget_bytes) + " ms " +
           std::to_string(o.multisplit_threads) + " outer " + std::to_string(o.outer_threads) + " resident " + std::to_string(o.resident_blocks) +
           " tau " + std::to_string(o.heavy_threshold) + " warp " + std::to_string(o.warp_light_rows) + "/" + std::to_string(o.warp_row_products) +
           " dense " + std::to_string(o.dense_light_rows) + "/" + std::to_string(o.dense_wide_rows) + " streams " + std::to_string(o.light_streams) + " fit " + std::to_string(o.fit_hash_blocks) +
           " once " + std::to_string(o.one_pass_light_rows) + "/" + std::to_string(o.light_stage_budget_bytes) + " keep " +
           std::to_string(o.keep_c_pattern) + "/" + std::to_string(o.light_product_map) + " warp_sort " + std::to_string(o.warp_sort_steps) + " timed " + std::to_string(o.time_phases) +
           " windows " + std::to_string(o.dense_wide_windows) + " walk " + std::to_string(o.dense_wide_walk) + "/" +
           std::to_string(o.dense_wide_walk_adaptive) + " small " + std::to_string(o.small_products) + "/" + std::to_string(o.small_row_products) +
           " rank " + std::to_string(o.rank_sort) + " packed " + std::to_string(o.packed_tables);
    return o;
}

// A·B with options o: one call on host operands and one on device-resident ones (C sized by its
// products where that path applies), and a plan (symbolic, then two numeric phases with new values:
// the second on C's kept columns when o keeps them), each against the reference.
template <class V, class I>
void expect_product_and_plan(gs::Csr<V, I> a, gs::Csr<V, I> b, const GpuSpgemmOptions& o, const std::string& what) {
    const double tol = std::is_same_v<V, float> ? 1e-4 : 1e-10;
    const GpuSpgemmStats st = expect_matches(a, b, o, what + ", one call");
    if (!o.time_phases) {
        EXPECT_EQ(st.total_ms, 0.0) << what;
    } else if (st.products > 0) {
        EXPECT_GT(st.total_ms, 0.0) << what;  // (an empty product's events may coincide on a GPU)
    }
    {
        using DM = gs::cuda::DeviceMatrix<V, I>;
        const DM da = DM::upload(a.view()), db = DM::upload(b.view());
        GpuSpgemmStats dst;
        const DM dc = gs::cuda::spgemm(da, db, o, &dst);
        EXPECT_EQ(dc.nnz(), st.nnz_c) << what;
        EXPECT_TRUE(gs::test::csr_near(gs::reference::spgemm(a.view(), b.view()).view(), dc.download().view(), tol)) << what << ", device-resident";
    }
    gs::cuda::GpuSpgemmPlan<V, I> plan(o);
    plan.symbolic(a.view(), b.view());
    for (int round = 0; round < 2; ++round) {
        new_values(a, round);
        new_values(b, round + 3);
        const auto got = plan.numeric(a.view(), b.view());
        EXPECT_TRUE(gs::test::csr_near(gs::reference::spgemm(a.view(), b.view()).view(), got.view(), tol)) << what << ", plan round " << round;
    }
}

template <class V, class I>
void random_combination(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::string opts;
    const GpuSpgemmOptions o = random_options(rng, static_cast<int>(sizeof(V) + sizeof(I)), opts);
    const auto draw = [&](std::int64_t lo, std::int64_t hi) { return lo + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(hi - lo + 1)); };
#ifdef GIGASPARSE_CUDA_SIM
    // the device's SM count too (its own generator: the other draws stay those of the seed): the
    // choices made for the SMs — warps or blocks a light row, wide dense blocks, runs of dense
    // chunks a block — in the same mixes
    struct RestoreConfig {
        ~RestoreConfig() { cuda_sim::config() = cuda_sim::default_config(); }
    } restore_config;
    {
        std::mt19937_64 sm_rng(seed ^ 0x5e3dc0de5eedULL);
        constexpr int sm_counts[] = {132, 132, 16, 2, 1};
        cuda_sim::config().sm_count = sm_counts[sm_rng() % std::size(sm_counts)];
        opts += " sms=" + std::to_string(cuda_sim::config().sm_count);
    }
#endif
    const std::string what = "seed " + std::to_string(seed) + ": " + opts;
    SCOPED_TRACE(what);
    try {
    switch (seed % 6) {
        case 0: {  // skewed square, A²: heavy rows under the small budgets
            const auto a = gs::test::rmat_like<V, I>(static_cast<int>(draw(7, 9)), static_cast<int>(draw(7, 9)), static_cast<double>(draw(6, 16)), seed);
            const auto sq = a.nrows == a.ncols ? a : gs::test::rmat_like<V, I>(8, 8, 10, seed);
            expect_product_and_plan(sq, sq, o, "rmat A², " + what);
            break;
        }
        case 1: {  // skewed rectangular A times a sparser B
            const int k = static_cast<int>(draw(9, 12));
            expect_product_and_plan(gs::test::rmat_like<V, I>(static_cast<int>(draw(6, 8)), k, static_cast<double>(draw(8, 14)), seed),
                                    gs::test::rmat_like<V, I>(k, static_cast<int>(draw(8, 12)), 3, seed + 1), o, "rmat A·B, " + what);
            break;
        }
        case 2: {  // banded: dense light rows
            const auto band = gs::test::banded<V, I>(draw(200, 700), draw(2, 24), seed);
            expect_product_and_plan(band, band, o, "banded, " + what);
            break;
        }
        case 3: {  // rectangular with empty rows, possibly wide
            const std::int64_t m = draw(100, 400), k = draw(150, 500), n = rng() % 2 ? draw(100, 600) : draw(20000, 40000);
            expect_product_and_plan(gs::test::random_csr<V, I>(m, k, static_cast<double>(draw(4, 30)), seed, 0.3),
                                    gs::test::random_csr<V, I>(k, n, static_cast<double>(draw(4, 40)), seed + 1, 0.2), o, "random rectangular, " + what);
            break;
        }
        case 5: {  // degenerate shapes: no rows, no columns, no inner dimension, no entries
            const std::int64_t m = draw(1, 300), k = draw(1, 300), n = draw(1, 300);
            switch (draw(0, 4)) {
                case 0: expect_product_and_plan(gs::Csr<V, I>(0, 0), gs::Csr<V, I>(0, 0), o, "0x0, " + what); break;
                case 1: expect_product_and_plan(gs::Csr<V, I>(m, k), gs::test::random_csr<V, I>(k, n, 3, seed), o, "A without entries, " + what); break;
                case 2: expect_product_and_plan(gs::test::random_csr<V, I>(m, k, 3, seed), gs::Csr<V, I>(k, 0), o, "B without columns, " + what); break;
                case 3: expect_product_and_plan(gs::Csr<V, I>(m, 0), gs::Csr<V, I>(0, n), o, "no inner dimension, " + what); break;
                default: expect_product_and_plan(gs::Csr<V, I>(0, k), gs::test::random_csr<V, I>(k, n, 3, seed), o, "A without rows, " + what);
            }
            break;
        }
        default: {  // unsorted rows of a random square
            const auto r = gs::test::unsort_rows(gs::test::random_csr<V, I>(draw(200, 500), draw(200, 500), static_cast<double>(draw(5, 25)), seed), seed);
            const auto sq = r.nrows == r.ncols ? r : gs::test::unsort_rows(gs::test::random_csr<V, I>(300, 300, 12, seed), seed);
            expect_product_and_plan(sq, sq, o, "unsorted square, " + what);
        }
    }
    } catch (const std::exception& e) {
        ADD_FAILURE() << what << ": " << e.what();
    }
}

}  // namespace

// Every option in random combinations (fixed seeds), float and double, 32- and 64-bit columns,
// on skewed, banded, rectangular, wide, unsorted and degenerate products (no rows, columns, inner
// dimension or entries): one call (host and device-resident operands) and a plan against the reference. The knobs the next GPU run sweeps (τ, dense or hashed light rows, one or two passes,
// streams, block sizes) must give the same product in any mix.
TEST(CudaSpgemm, RandomOptionCombinations) {
    SKIP_WITHOUT_GPU();
    // GIGASPARSE_OPTION_SEEDS=N draws N combinations instead, from seed GIGASPARSE_OPTION_FIRST_SEED
    // (default 1): a longer hunt, by hand, past the seeds already run
    const char* env = std::getenv("GIGASPARSE_OPTION_SEEDS");
    const char* first_env = std::getenv("GIGASPARSE_OPTION_FIRST_SEED");
    const std::uint64_t seeds = env ? std::strtoull(env, nullptr, 10) : static_cast<std::uint64_t>(sim_or(20, 60));
    const std::uint64_t first = first_env ? std::strtoull(first_env, nullptr, 10) : 1;
    for (std::uint64_t seed = first; seed < first + seeds; ++seed) {
        switch (seed % 4) {
            case 0: random_combination<double, std::int32_t>(seed); break;
            case 1: random_combination<float, std::int32_t>(seed); break;
            case 2: random_combination<double, std::int64_t>(seed); break;
            default: random_combination<float, std::int64_t>(seed);
        }
        if (::testing::Test::HasFailure()) break;  // the first failing draw is the one to read
    }
}

#ifdef GIGASPARSE_CUDA_SIM
// Simulator only: threads between barriers in reverse and random order (a race or a missing
// barrier changes the product), device memory too small for one heavy batch (the automatic budget
// must batch), too small for C (OutOfMemory, nothing leaked), and a shared-memory budget too small.
TEST(CudaSpgemm, SimulatedThreadOrdersGiveTheSameProduct) {
    const auto a = gs::test::rmat_like<double, std::int32_t>(8, 16, 12, 31);
    const auto b = gs::test::rmat_like<double, std::int32_t>(16, 16, 3, 32);
    for (cuda_sim::Order o : {cuda_sim::Order::reverse, cuda_sim::Order::random}) {
        cuda_sim::config().order = o;
        cuda_sim::config().seed = 17;
        const auto st = expect_matches(a, b, budget(4096, 1 << 15), o == cuda_sim::Order::reverse ? "reverse order" : "random order");
        EXPECT_GE(st.levels_run, 2);
    }
    cuda_sim::config() = cuda_sim::default_config();
}

TEST(CudaSpgemm, SimulatedSmallDeviceBatchesHeavyRowsOrReportsOutOfMemory) {
    const auto a = gs::test::rmat_like<double, std::int32_t>(9, 9, 16, 51);
    GpuSpgemmStats whole;
    expect_matches(a, a, budget(4096), "unlimited device");
    const auto c = gs::reference::spgemm(a.view(), a.view());
    // room for A, C and a fraction of the heavy intermediate: the free-memory budget must batch
    const std::int64_t csr_bytes = (a.nrows + 1) * 8 + a.nnz() * 12, c_bytes = (c.nrows + 1) * 8 + c.nnz() * 12;
    cuda_sim::config().device_memory = static_cast<std::size_t>(2 * csr_bytes + 2 * c_bytes + 64 * a.nrows * 8 + (1 << 20));
    const auto st = expect_matches(a, a, budget(4096), "small device");
    EXPECT_GT(st.batches, 1);
    EXPECT_LE(st.device_bytes_peak, static_cast<std::int64_t>(cuda_sim::config().device_memory));
    cuda_sim::config().device_memory = static_cast<std::size_t>(csr_bytes + c_bytes / 4);
    cuda_sim::reset();
    EXPECT_THROW(gs::cuda::gmagnus::multiply(a.view(), a.view(), budget(4096), &whole), gs::OutOfMemory);
    EXPECT_EQ(live_allocations(), 0) << "device memory leaked on the error path";
    cuda_sim::config() = cuda_sim::default_config();
    cuda_sim::reset();
}

// The heavy rows' batches are cut before C's size is known, and the numeric phase rebuilds them
// beside C: on a device of A, 1.8 C and nothing more, the symbolic phase's first batches would
// not fit beside C (the products failed below 2.2 C before), so it cuts them again with C's bytes
// set aside (GpuSpgemmStats::replanned), for a one-call product and for a plan's numeric phases.
TEST(CudaSpgemm, SimulatedTightDeviceCutsTheBatchesBesideC) {
    auto a = gs::test::rmat_like<double, std::int32_t>(9, 9, 16, 51);
    const auto c = gs::reference::spgemm(a.view(), a.view());
    const std::int64_t csr_bytes = (a.nrows + 1) * 8 + a.nnz() * 12, c_bytes = (c.nrows + 1) * 8 + c.nnz() * 12;
    for (const double room : {3.0, 1.8}) {
        SCOPED_TRACE("device of A and " + std::to_string(room) + " C");
        cuda_sim::config() = cuda_sim::default_config();
        cuda_sim::config().device_memory = static_cast<std::size_t>(static_cast<double>(csr_bytes) + room * static_cast<double>(c_bytes));
        const auto st = expect_matches(a, a, budget(4096), "one call");
        EXPECT_GT(st.batches, 1);
        EXPECT_EQ(st.replanned, room < 2);
        EXPECT_LE(st.device_bytes_peak, static_cast<std::int64_t>(cuda_sim::config().device_memory));
        // tried on the small path first, then cut again beside C without a second try: B is A with
        // its columns 125 apart (the same C, its columns spread), so the rows of more than 4096
        // products, which take a block each, span more than 8 of its windows and send it back. Its
        // heavy rows need more room beside C (the multisplit's levels over 64000 columns: it fails
        // below 2.4 C): a device of A, B and 2.6 C cuts its batches again, one of 4 C does not.
        GpuSpgemmOptions small = budget(4096);
        small.small_products = true;
        auto spread = a;
        spread.ncols = a.ncols * 125;
        for (auto& j : spread.col_idx) j *= 125;
        cuda_sim::config().device_memory = static_cast<std::size_t>(static_cast<double>(2 * csr_bytes) + (room < 2 ? 2.6 : 4.0) * static_cast<double>(c_bytes));
        cuda_sim::reset();
        GpuSpgemmStats sst;
        EXPECT_TRUE(gs::test::csr_near(gs::reference::spgemm(a.view(), spread.view()).view(), gpu_spgemm(a.view(), spread.view(), small, &sst).view(), 1e-10));
        EXPECT_GT(sst.small_rows_back, 0);
        EXPECT_FALSE(sst.small_product);
        EXPECT_EQ(sst.replanned, room < 2);
        EXPECT_EQ(cuda_sim::stats().kernels.at("small_finish_kernel"), 1) << "one try";
        EXPECT_EQ(cuda_sim::stats().kernels.at("small_long_rows_kernel"), 1);
        cuda_sim::config().device_memory = static_cast<std::size_t>(static_cast<double>(csr_bytes) + room * static_cast<double>(c_bytes));
        cuda_sim::reset();
        {
            gs::cuda::GpuSpgemmPlan<double, std::int32_t> plan(budget(4096));
            plan.symbolic(a.view(), a.view());
            EXPECT_EQ(plan.stats().replanned, room < 2);
            for (int round = 0; round < 2; ++round) {
                new_values(a, round);
                const auto got = plan.numeric(a.view(), a.view());
                EXPECT_TRUE(gs::test::csr_near(gs::reference::spgemm(a.view(), a.view()).view(), got.view(), 1e-10)) << "plan, round " << round;
            }
        }
        EXPECT_EQ(live_allocations(), 0);
    }
    cuda_sim::config() = cuda_sim::default_config();
    cuda_sim::reset();
}

// A small product with long rows (GpuSpgemmStats::small_long_rows): one_long_row's row 0, 10000
// products over 10000 columns, takes a block in two numeric windows (float: 7936 columns), beside two warps'
// rows. Over the path without long rows: one more read of the counts (their list), the block's
// allocation of the rows and spans, the long rows' launch and a second scan in the symbolic phase,
// one launch in the numeric. A plan's numeric phases launch it again.
TEST(CudaSpgemm, SimulatedSmallProductLongRows) {
    using DM = gs::cuda::DeviceMatrix<float, std::int32_t>;
    const auto [a, b] = one_long_row<float, std::int32_t>(5000, 2, 10000);
    const auto expected = gs::reference::spgemm(a.view(), b.view());
    const DM da = DM::upload(a.view()), db = DM::upload(b.view());
    (void)gs::cuda::spgemm(da, db);  // fills the caches
    const std::int64_t live = live_allocations();
    GpuSpgemmOptions o;
    o.time_phases = false;
    cuda_sim::reset();
    GpuSpgemmStats st;
    const DM dc = gs::cuda::spgemm(da, db, o, &st);
    const cuda_sim::Stats s = cuda_sim::stats();
    EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess) << cuda_sim::last_error_detail();
    EXPECT_TRUE(st.small_product);
    EXPECT_EQ(st.small_long_rows, 1);
    EXPECT_EQ(st.small_rows_back, 0);
    EXPECT_EQ(st.products, 5000 * 2 + 2);
    EXPECT_EQ(st.nnz_c, expected.nnz());
    EXPECT_TRUE(gs::test::csr_near(expected.view(), dc.download().view(), 1e-5));
    EXPECT_EQ(live_allocations(), live + 3) << "only C's arrays stay";
    const auto n = [&](const char* call) { return s.stream_ops_by_call.count(call) ? s.stream_ops_by_call.at(call) : std::int64_t{0}; };
    EXPECT_EQ(s.launches, 6);
    EXPECT_EQ(s.kernels.at("small_rows_kernel"), 2);
    EXPECT_EQ(s.kernels.at("small_long_rows_kernel"), 2);
    EXPECT_EQ(s.kernels.at("small_finish_kernel"), 1);
    EXPECT_EQ(s.kernels.at("small_finish_kernel (after long rows)"), 1);
    EXPECT_EQ(n("cudaMallocFromPoolAsync"), 5);
    EXPECT_EQ(n("cudaMemcpyAsync"), 2) << "the counts, before and after the long rows";
    EXPECT_EQ(n("cudaEventRecord") + n("cudaStreamWaitEvent") + n("cudaMemsetAsync"), 0);
    EXPECT_EQ(s.stream_ops, 15);
    EXPECT_EQ(s.host_waits, 3) << "the long rows' count, nnz(C) and the end";
    // a plan: its numeric phases launch the long rows' kernel again, with new values
    auto av = a;
    gs::cuda::GpuSpgemmPlan<float, std::int32_t> plan(GpuSpgemmOptions{});
    plan.symbolic(av.view(), b.view());
    EXPECT_EQ(plan.stats().small_long_rows, 1);
    for (int round = 0; round < 2; ++round) {
        for (std::size_t i = 0; i < av.values.size(); ++i) av.values[i] = static_cast<float>(1 + (i * 7 + static_cast<std::size_t>(round)) % 5);
        cuda_sim::reset();
        const auto c = plan.numeric(av.view(), b.view());
        EXPECT_EQ(cuda_sim::stats().kernels.at("small_long_rows_kernel"), 1) << "round " << round;
        EXPECT_TRUE(gs::test::csr_near(gs::reference::spgemm(av.view(), b.view()).view(), c.view(), 1e-5)) << "round " << round;
    }
}

// A counting warp stops walking a row of more products than its table (a bounded row) once its
// columns reach the table's limit: the row takes a block anyway. Row 0 of A walks B's 1000 rows of
// two entries each (2000 products, 1000 distinct columns: past the limit of 992); with the distinct
// columns first it reaches the limit halfway and stops within a group of 4 rounds, with them last it
// walks every product. Everything else (the block's dense row, the other rows, the numeric phase)
// is the same work: the first product takes fewer warp collectives.
TEST(CudaSpgemm, SimulatedBoundedRowStopsAtItsLimit) {
    const auto product = [](bool distinct_first) {
        gs::Coo<float, std::int32_t> ca, cb;
        ca.nrows = 2;
        ca.ncols = cb.nrows = 1000;
        cb.ncols = 1000;
        for (std::int32_t j = 0; j < 1000; ++j) {
            ca.row.push_back(0);
            ca.col.push_back(j);
            ca.val.push_back(1.0f + static_cast<float>(j % 3));
            const bool distinct = distinct_first ? j < 500 : j >= 500;
            for (std::int32_t t = 0; t < 2; ++t) {
                cb.row.push_back(j);
                cb.col.push_back(distinct ? 2 * (j % 500) + t : t);
                cb.val.push_back(0.5f + static_cast<float>((j + t) % 4));
            }
        }
        ca.row.push_back(1);
        ca.col.push_back(7);
        ca.val.push_back(2.0f);
        return std::pair{gs::coo_to_csr(ca), gs::coo_to_csr(cb)};
    };
    std::int64_t collectives[2] = {};
    for (const bool first : {true, false}) {
        SCOPED_TRACE(first ? "distinct columns first" : "distinct columns last");
        const auto [a, b] = product(first);
        cuda_sim::reset();
        GpuSpgemmStats st;
        const auto c = gpu_spgemm(a.view(), b.view(), {}, &st);
        collectives[first ? 0 : 1] = cuda_sim::stats().warp_collectives;
        EXPECT_TRUE(gs::test::csr_near(gs::reference::spgemm(a.view(), b.view()).view(), c.view(), 1e-5));
        EXPECT_TRUE(st.small_product);
        EXPECT_EQ(st.small_long_rows, 1);
        EXPECT_EQ(st.nnz_c, 1000 + 2);
    }
    EXPECT_LT(collectives[0], collectives[1]) << "the warp walked past its limit";
    std::cout << "bounded row: " << collectives[0] << " warp collectives with its distinct columns first, " << collectives[1] << " last\n";
}

// The kernels' attributes are queried and their dynamic shared memory allowed once a process: a
// later product makes one runtime call for them (the read-back that notices a device reset), where
// each made 34; after a reset (simulated) they are set again and the product runs.
TEST(CudaSpgemm, SimulatedKernelAttributesOncePerProcess) {
    const auto a = gs::test::random_csr<double, std::int32_t>(300, 300, 6, 5);
    (void)gs::cuda::gmagnus::multiply(a.view(), a.view(), {}, nullptr);
    cuda_sim::reset();
    const auto c = gs::cuda::gmagnus::multiply(a.view(), a.view(), {}, nullptr);
    EXPECT_EQ(cuda_sim::stats().func_attribute_calls, 1);
    cuda_sim::clear_function_attributes();
    cuda_sim::reset();
    const auto again = gs::cuda::gmagnus::multiply(a.view(), a.view(), {}, nullptr);
    EXPECT_GT(cuda_sim::stats().func_attribute_calls, 1);
    const auto ref = gs::reference::spgemm(a.view(), a.view());
    EXPECT_TRUE(gs::test::csr_near(ref.view(), c.view(), 1e-12));
    EXPECT_TRUE(gs::test::csr_near(ref.view(), again.view(), 1e-12));
}

// Light rows of about 1500 products in tables of 3/4 of their bin's power of two: on a device of
// 100 KiB of shared memory a block (the simulator has no register limit, so its thread slots decide
// elsewhere), an SM holds two of the 3072-entry tables where it held one of 4096
// (hash_table_capacity); in one pass, two passes and a plan's numeric phases on C's kept columns.
// A plan keeps C's columns while they take at most a fifth of the free device memory, and the light
// rows' product map while it takes at most a fifth of what is left after them: on a device sized
// between the two, the later numeric phases take the light rows' known tables, with the same
// product; on the default device, the map.
TEST(CudaSpgemm, SimulatedPlanWithoutRoomForTheProductMap) {
    auto a = gs::test::rmat_like<double, std::int32_t>(11, 11, 8, 91);
    const auto run = [&](const char* what) {
        cuda_sim::reset();
        gs::cuda::GpuSpgemmPlan<double, std::int32_t> plan(binned());
        plan.symbolic(a.view(), a.view());
        std::int64_t live_after_first = 0;
        for (int round = 0; round < 3; ++round) {
            new_values(a, round);
            const auto c = plan.numeric(a.view(), a.view());
            EXPECT_TRUE(gs::test::csr_near(gs::reference::spgemm(a.view(), a.view()).view(), c.view(), 1e-10)) << what << ", round " << round;
            if (round == 0) live_after_first = cuda_sim::stats().device_bytes_live;
        }
        const auto& k = cuda_sim::stats().kernels;
        const bool mapped = k.count("mapped_rows_kernel") + k.count("mapped_rows_warp_kernel") > 0;
        const bool tables = k.count("hash_rows_kernel (known)") + k.count("hash_rows_warp_kernel (known)") > 0;
        EXPECT_NE(mapped, tables) << what << ": the light rows take the map or their known tables";
        EXPECT_EQ(mapped, plan.stats().product_map_bytes > 0) << what;
        return std::tuple{plan.stats(), live_after_first, plan.nnz()};
    };
    cuda_sim::config() = cuda_sim::default_config();
    const auto [ample, live, nnz] = run("default device");
    const std::int64_t map = ample.product_map_bytes, known = ample.known_pattern_bytes;
    ASSERT_GT(map, 0);
    ASSERT_EQ(known, nnz * 4);
    ASSERT_GT(5 * map + known, 5 * known) << "a device between the two budgets exists";
    // what the device held when the first numeric phase measured the free memory for C's columns:
    // the plan (less the columns and the map, allocated after) and C (its columns and values, and
    // its row offsets); free memory then halfway between the two budgets' needs
    const std::int64_t held = live - map - known + nnz * 12 + (a.nrows + 1) * 8;
    cuda_sim::config().device_memory = static_cast<std::size_t>(held + (5 * known + 5 * map + known) / 2);
    const auto [tight, tight_live, tight_nnz] = run("a device with room for C's columns, not the map");
    EXPECT_EQ(tight.known_pattern_bytes, known);
    EXPECT_EQ(tight.product_map_bytes, 0);
    (void)tight_live;
    (void)tight_nnz;
    EXPECT_EQ(live_allocations(), 0);
    cuda_sim::config() = cuda_sim::default_config();
    cuda_sim::reset();
}

TEST(CudaSpgemm, SimulatedShrunkHashTables) {
    namespace gm = gs::cuda::gmagnus;
    using gm::count_t;
    cuda_sim::config().shared_optin = 102400;
    const auto& cfg = cuda_sim::config();
    const gm::ElementSizes sizes{4, 8, 8, 4};
    const auto sim_cap = [&](count_t products) {
        return gm::hash_table_capacity(gm::hash_bin(products), sizes, true, static_cast<count_t>(cfg.static_shared_bytes), 0,
                                       static_cast<count_t>(cfg.shared_optin) + 1024, 1024);
    };
    ASSERT_EQ(sim_cap(1500), 3072);
    auto a = gs::test::random_csr<double, std::int32_t>(48, 500, 50, 81);
    auto b = gs::test::random_csr<double, std::int32_t>(500, 6000, 30, 82);
    const auto one = expect_matches(a, b, {}, "shrunk tables, one pass");
    EXPECT_EQ(one.tau, 4096);
    EXPECT_LT(one.heavy_rows, 48);
    GpuSpgemmOptions two;
    two.one_pass_light_rows = false;
    expect_matches(a, b, two, "shrunk tables, two passes");
    {
        gs::cuda::GpuSpgemmPlan<double, std::int32_t> plan(binned());  // (a small product's plan rehashes)
        plan.symbolic(a.view(), b.view());
        for (int round = 0; round < 2; ++round) {
            new_values(a, round);
            const auto c = plan.numeric(a.view(), b.view());
            EXPECT_TRUE(gs::test::csr_near(gs::reference::spgemm(a.view(), b.view()).view(), c.view(), 1e-10)) << "round " << round;
        }
        // rows of some 1500 products: the product map's block per row (tables of 4096 entries)
        EXPECT_GT(plan.stats().product_map_bytes, 0);
        const auto& launched = cuda_sim::stats().kernels;
        for (const char* k : {"product_map_kernel", "mapped_rows_kernel"}) EXPECT_TRUE(launched.count(k) > 0) << k << " did not run";
    }
    cuda_sim::config() = cuda_sim::default_config();
}

TEST(CudaSpgemm, SimulatedSharedMemoryTooSmallIsNotSupported) {
    const auto a = gs::test::random_csr<double, std::int32_t>(50, 50, 4, 3);
    cuda_sim::reset();
    EXPECT_THROW(gs::cuda::gmagnus::multiply(a.view(), a.view(), budget(64), nullptr), gs::NotSupported);
    EXPECT_EQ(live_allocations(), 0);
    cuda_sim::config().shared_optin = 8192;  // a smaller device: the default budget follows it
    GpuSpgemmStats st;
    const auto c = gs::cuda::gmagnus::multiply(a.view(), a.view(), {}, &st);
    EXPECT_TRUE(gs::test::csr_near(gs::reference::spgemm(a.view(), a.view()).view(), c.view(), 1e-12));
    EXPECT_LE(st.hash_capacity * 12, 8192);
    cuda_sim::config() = cuda_sim::default_config();
}

// A grid beyond the hardware's 2^31 - 1 blocks (or an empty one) is refused before any launch: a
// narrowing cast would have launched 1 block for 2^32 + 1.
TEST(CudaSpgemm, SimulatedLaunchRefusesGridsBeyondTheHardware) {
    namespace gc = gs::cuda;
    cuda_sim::reset();
    gc::DeviceBuffer<gc::gmagnus::count_t> split(2, gc::Placement{});
    for (const std::int64_t blocks : {std::int64_t(0), gc::max_grid_blocks + 1, (std::int64_t(1) << 32) + 1}) {
        try {
            gc::launch("level_split_kernel", &gc::gmagnus::level_split_kernel, blocks, 1, 0, nullptr, split.data(), split.data());
            ADD_FAILURE() << "a grid of " << blocks << " blocks was launched";
        } catch (const gs::NotSupported& e) {
            EXPECT_NE(std::string(e.what()).find("level_split_kernel: a grid of " + std::to_string(blocks) + " blocks"), std::string::npos) << e.what();
        }
    }
    EXPECT_EQ(cuda_sim::stats().launches, 0);
    ASSERT_EQ(cudaMemsetAsync(split.data(), 0, 2 * sizeof(gc::gmagnus::count_t), nullptr), cudaSuccess);  // split[1] = out_ptr[split[0]] reads split[0]
    gc::launch("level_split_kernel", &gc::gmagnus::level_split_kernel, 1, 1, 0, nullptr, split.data(), split.data());
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(cuda_sim::stats().launches, 1) << "one block is a valid grid";
}

// Device memory comes from gigasparse's stream-ordered pool, which keeps what a product reserved
// for the next one (no growth when it repeats) until it is released.
TEST(CudaSpgemm, SimulatedMemoryPoolIsReusedAndReleased) {
    const auto a = gs::test::rmat_like<double, std::int32_t>(9, 9, 16, 51);
    const cudaMemPool_t pool = gs::cuda::current_memory_pool();
    ASSERT_NE(pool, nullptr);
    gs::cuda::trim_memory_pool(pool);
    EXPECT_EQ(cuda_sim::stats().pool_bytes_reserved, 0);
    const auto st = expect_matches(a, a, budget(4096), "first product");
    const std::int64_t reserved = cuda_sim::stats().pool_bytes_reserved;
    EXPECT_GE(reserved, st.device_bytes_peak) << "the pool keeps what the product used";
    EXPECT_EQ(gs::cuda::pool_cached_bytes(pool), reserved) << "none of it in use";
    expect_matches(a, a, budget(4096), "second product");
    EXPECT_EQ(cuda_sim::stats().pool_bytes_reserved, reserved) << "the second product reused the reserve";
    gs::cuda::trim_memory_pool(pool);
    EXPECT_EQ(cuda_sim::stats().pool_bytes_reserved, 0);
}

// The host waits for the device only for counts that size buffers or launches. With one batch:
// the setup's row classes (light rows' bins, heavy rows, products and A entries of the heavy rows,
// which also plan the batch), then building the heavy intermediate (one per split level for the
// next level's size, the segments' bins), C's nnz, the end of the product (the heavy stream, which
// waited for the light one), and the host call's download (copy, then the event that times it).
// Several batches add one (the prefix sums that cut them) and the segments' bins of each batch.
// The stream operations (launches, copies, memsets, allocations, frees, events) are bounded too:
// each costs the host time a small product's device may wait for.
TEST(CudaSpgemm, SimulatedHostWaitsPerProduct) {
    const auto a = gs::test::rmat_like<double, std::int32_t>(8, 16, 12, 31);
    const auto b = gs::test::rmat_like<double, std::int32_t>(16, 16, 3, 32);
    const auto st = expect_matches(a, b, budget(4096), "host waits");
    ASSERT_EQ(st.batches, 1);
    ASSERT_GE(st.levels_run, 2);
    const std::int64_t build = (st.levels_run - 1) + 1;
    EXPECT_EQ(cuda_sim::stats().host_waits, 1 + build + 1 + 1 + 2) << "levels " << st.levels_run;
    std::cout << "one product, " << st.levels_run << " levels: " << cuda_sim::stats().launches << " launches, " << cuda_sim::stats().stream_ops
              << " stream operations, " << cuda_sim::stats().host_waits << " host waits, " << cuda_sim::stats().barriers << " barriers, "
              << cuda_sim::stats().warp_collectives << " warp collectives\n";
    for (const auto& [call, n] : cuda_sim::stats().stream_ops_by_call) std::cout << "  " << call << " " << n << "\n";
    EXPECT_LE(cuda_sim::stats().stream_ops, 207) << "310 before the transient arrays of the CSC, the levels and the segments' bins took one "
                                                     "allocation each and their first offsets were zeroed by kernels; 246 before the "
                                                     "gathers went into the small scans and CSR→CSC's end became the outer product's start; "
                                                     "242 before the cursors counted from zero (zeroed with the counts, not copied from "
                                                     "the row starts) and the segments were written into one array (not copied there); "
                                                     "217 before the CSC's two pairs of arrays and each level's chunk order and starts took "
                                                     "one allocation each";

    // heavy rows into 256 columns: dense chunks without a split level, so a batch's build waits
    // only for its segments' bins
    cuda_sim::reset();
    const auto a2 = gs::test::rmat_like<double, std::int32_t>(6, 8, 16, 33);
    const auto b2 = gs::test::rmat_like<double, std::int32_t>(8, 8, 12, 34);
    const auto st2 = expect_matches(a2, b2, budget(4096, 1 << 14), "host waits, batches");
    ASSERT_GE(st2.batches, 2);
    ASSERT_EQ(st2.nlevels, 0);
    EXPECT_EQ(cuda_sim::stats().host_waits, 1 + 1 + st2.batches + 1 + 1 + 2) << "batches " << st2.batches;
}

// A product with one heavy row pays the whole heavy path's host work: hangGlider_2² (1647 rows,
// float, device-resident, after a first product) has one row of 13840 products (τ = 8192) over
// 1647 columns. As a wide dense row (dense_wide_rows) it accumulates like the light rows: no CSC,
// outer product, multisplit or segments, and the light-only product's 2 host waits: 41 stream
// operations and 2 host waits where the heavy row took 111 and 4.
TEST(CudaSpgemm, SimulatedWideDenseRowSavesTheHeavyPath) {
    std::string file;
    for (const auto& m : gs::test::read_manifest())
        if (m.name == "hangGlider_2") file = gs::test::matrix_dir() + "/" + m.file;
    if (file.empty()) GTEST_SKIP() << "hangGlider_2 not among the shared matrices";
    using DM = gs::cuda::DeviceMatrix<float, std::int32_t>;
    const auto a = gs::io::read_mtx<float, std::int32_t>(file);
    const DM da = DM::upload(a.view());
    const auto expected = gs::reference::spgemm(a.view(), a.view());
    std::int64_t ops[2] = {}, waits[2] = {};
    for (const bool wide : {true, false}) {
        SCOPED_TRACE(wide ? "wide dense row" : "heavy row");
        GpuSpgemmOptions o = binned();
        o.dense_wide_rows = wide;
        (void)gs::cuda::spgemm(da, da, o);  // fills the caches
        cuda_sim::reset();
        GpuSpgemmStats st;
        const DM dc = gs::cuda::spgemm(da, da, o, &st);
        const cuda_sim::Stats s = cuda_sim::stats();
        EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess) << cuda_sim::last_error_detail();
        ASSERT_EQ(st.tau, 8192);
        EXPECT_EQ(st.heavy_rows, wide ? 0 : 1);
        EXPECT_EQ(st.wide_dense_rows, wide ? 1 : 0);
        EXPECT_TRUE(gs::test::csr_near(expected.view(), dc.download().view(), 1e-4));
        ops[wide ? 0 : 1] = s.stream_ops;
        waits[wide ? 0 : 1] = s.host_waits;
        if (wide) {
            for (const auto& [call, k] : s.stream_ops_by_call) std::cout << "  " << call << " " << k << "\n";
            for (const auto& [kernel, k] : s.kernels) std::cout << "    " << kernel << " " << k << "\n";
        }
    }
    std::cout << "hangGlider_2 squared: " << ops[0] << " stream operations and " << waits[0] << " host waits with the row dense, " << ops[1]
              << " and " << waits[1] << " with it heavy\n";
    EXPECT_EQ(waits[0], 2) << "the setup's tallies and the end";
    EXPECT_EQ(waits[1], 4) << "the setup's tallies, the segments' bins, nnz(C) and the end (1647 columns: no multisplit level)";
    EXPECT_LE(2 * ops[0], ops[1]) << "41 against 111 when this was written, 107 since";
}

// The light rows staged in the symbolic phase hold memory that C may need: when C does not fit
// beside the staging, the staging is dropped and the light rows take the numeric pass.
TEST(CudaSpgemm, SimulatedStagedLightRowsGiveWayToC) {
    const auto a = gs::test::rmat_like<double, std::int32_t>(10, 10, 8, 74);
    GpuSpgemmOptions o = binned();  // (its long rows would take the small-product path's blocks)
    o.light_stage_budget_bytes = std::int64_t{1} << 40;  // staged whatever the device holds
    const auto roomy = expect_matches(a, a, o, "staged");
    ASSERT_EQ(roomy.heavy_rows, 0);
    ASSERT_GT(roomy.light_stage_bytes, 0);
    const std::int64_t csr_bytes = (a.nrows + 1) * 8 + a.nnz() * 12, c_bytes = (a.nrows + 1) * 8 + roomy.nnz_c * 12;
    // the inputs, C, the row arrays and half of the staging: it fits the symbolic phase, then C does not fit beside it
    cuda_sim::config().device_memory = static_cast<std::size_t>(csr_bytes + c_bytes + 64 * a.nrows * 8 + roomy.light_stage_bytes / 2 + (1 << 16));
    ASSERT_LT(cuda_sim::config().device_memory, static_cast<std::size_t>(csr_bytes + c_bytes + roomy.light_stage_bytes));
    cuda_sim::reset();
    const auto tight = expect_matches(a, a, o, "C in place of the staging");
    EXPECT_EQ(tight.light_stage_bytes, 0);
    EXPECT_GT(cuda_sim::stats().kernels.count("hash_rows_kernel (once)") + cuda_sim::stats().kernels.count("hash_rows_warp_kernel (once)"), 0)
        << "the symbolic phase staged the light rows";
    EXPECT_EQ(cuda_sim::stats().kernels.count("unstage_rows_kernel"), 0);
    EXPECT_GT(cuda_sim::stats().kernels.count("hash_rows_kernel") + cuda_sim::stats().kernels.count("hash_rows_warp_kernel"), 0)
        << "the numeric pass ran instead";
    cuda_sim::config() = cuda_sim::default_config();
    cuda_sim::reset();
}

// A device without the stream-ordered allocator: cudaMalloc/cudaFree instead, same product.
TEST(CudaSpgemm, SimulatedDeviceWithoutMemoryPools) {
    const auto a = gs::test::rmat_like<double, std::int32_t>(9, 9, 16, 51);
    cuda_sim::config().memory_pools = false;
    const auto st = expect_matches(a, a, budget(4096), "no memory pools");
    EXPECT_GT(st.heavy_rows, 0);
    EXPECT_GT(cuda_sim::stats().malloc_calls, 0);
    EXPECT_EQ(cuda_sim::stats().pool_allocs, 0);
    cuda_sim::config() = cuda_sim::default_config();
}
#endif

#ifdef GIGASPARSE_CUDA_SIM
// A small product's time is mostly what the host puts on the streams and how often it waits (some
// 150 µs for the shared matrices' A² on the H200, against a few µs a launch or allocation). A
// light-only product, device-resident, after a first one: its streams and events come from the
// cache (none created), the setup zeroes its counters in its first kernel (no memset), the light
// rows run on the heavy stream (no fork or join but the light bins' own streams), C gets the row
// offsets (no copy), the host waits twice: the setup's tallies and the end, where nnz(C) is read
// (C sized by the products), and never asks what memory is free (the staging is small). A product
// with heavy rows takes no new stream or event either.
TEST(CudaSpgemm, SimulatedSmallProductStreamWork) {
    using DM = gs::cuda::DeviceMatrix<float, std::int32_t>;
    const auto band = gs::test::banded<float, std::int32_t>(500, 6, 1);
    const DM da = DM::upload(band.view());
    (void)gs::cuda::spgemm(da, da, binned());  // fills the caches
    const std::int64_t live = live_allocations();  // A's arrays
    cuda_sim::reset();
    GpuSpgemmStats st;
    const DM dc = gs::cuda::spgemm(da, da, binned(), &st);
    const cuda_sim::Stats s = cuda_sim::stats();
    EXPECT_EQ(live_allocations(), live + 3) << "only C's arrays stay";
    EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess) << cuda_sim::last_error_detail();
    ASSERT_EQ(st.heavy_rows, 0);
    ASSERT_GT(st.light_stage_bytes, 0) << "the light rows in one pass";
    std::cout << "light-only product: " << s.launches << " launches, " << s.stream_ops << " stream operations, " << s.host_waits << " host waits\n";
    for (const auto& [call, n] : s.stream_ops_by_call) std::cout << "  " << call << " " << n << "\n";
    EXPECT_EQ(s.streams_created, 0);
    EXPECT_EQ(s.events_created, 0);
    EXPECT_EQ(s.host_waits, 2);
    EXPECT_EQ(s.mem_info_calls, 0) << "the small staging is allocated without asking what is free";
    const auto ops = [&](const char* call) { return s.stream_ops_by_call.count(call) ? s.stream_ops_by_call.at(call) : std::int64_t{0}; };
    EXPECT_EQ(ops("cudaMemsetAsync"), 0);
    const auto launched = [&](const char* k) { return s.kernels.count(k) ? s.kernels.at(k) : std::int64_t{0}; };
    const std::int64_t bins = launched("hash_rows_kernel (once)") + launched("hash_rows_warp_kernel (once)");  // a launch a nonempty bin
    ASSERT_GE(bins, 2);
    EXPECT_EQ(ops("cudaStreamWaitEvent"), 2 * (std::min<std::int64_t>(bins, gs::cuda::gmagnus::default_light_streams) - 1))
        << "only the light bins' streams fork and join";
    EXPECT_LE(s.stream_ops, 35) << "67 before the caches, the setup's and the staging's single allocations and the light rows on the heavy stream; "
                                   "36 before the staging's gather went into its scan";
    EXPECT_EQ(st.nnz_c, dc.nnz());
    EXPECT_GT(st.total_ms, 0.0);
    EXPECT_GT(st.light_ms, 0.0);
    EXPECT_TRUE(gs::test::csr_near(gs::reference::spgemm(band.view(), band.view()).view(), dc.download().view(), 1e-5));

    // Untimed (no statistics asked for, or GpuSpgemmOptions::time_phases off): only the events that
    // order the light bins' streams are recorded (one fork, a join per helper stream).
    const std::int64_t ordering_records = 1 + ops("cudaStreamWaitEvent") / 2;
    GpuSpgemmOptions untimed = binned();
    untimed.time_phases = false;
    for (const bool with_stats : {false, true}) {
        SCOPED_TRACE(with_stats ? "time_phases off" : "no statistics");
        cuda_sim::reset();
        GpuSpgemmStats su;
        const DM du = with_stats ? gs::cuda::spgemm(da, da, untimed, &su) : gs::cuda::spgemm(da, da, binned());
        const cuda_sim::Stats t = cuda_sim::stats();
        EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess) << cuda_sim::last_error_detail();
        const auto n = [&](const char* call) { return t.stream_ops_by_call.count(call) ? t.stream_ops_by_call.at(call) : std::int64_t{0}; };
        EXPECT_EQ(n("cudaEventRecord"), ordering_records);
        EXPECT_EQ(t.stream_ops, s.stream_ops - (ops("cudaEventRecord") - ordering_records));
        EXPECT_EQ(t.host_waits, 2);
        if (with_stats) {
            EXPECT_EQ(su.nnz_c, du.nnz());
            EXPECT_EQ(su.products, st.products);
            EXPECT_EQ(su.total_ms, 0.0);
            EXPECT_EQ(su.light_ms, 0.0);
        }
        // the same pattern; the values to float rounding (the accumulators' atomics add in any order:
        // on a GPU, and on the simulator in random thread order)
        EXPECT_TRUE(gs::test::csr_near(dc.download().view(), du.download().view(), 1e-5));
    }

    const auto r = gs::test::rmat_like<float, std::int32_t>(9, 9, 16, 31);
    const DM dr = DM::upload(r.view());
    (void)gs::cuda::spgemm(dr, dr, budget(4096));
    const std::int64_t live_r = live_allocations();
    cuda_sim::reset();
    const DM dh = gs::cuda::spgemm(dr, dr, budget(4096), &st);
    EXPECT_EQ(live_allocations(), live_r + 3) << "only C's arrays stay";
    ASSERT_GT(st.heavy_rows, 0);
    EXPECT_EQ(cuda_sim::stats().streams_created, 0);
    EXPECT_EQ(cuda_sim::stats().events_created, 0);
    EXPECT_GT(st.outer_ms, 0.0);
    EXPECT_TRUE(gs::test::csr_near(gs::reference::spgemm(r.view(), r.view()).view(), dh.download().view(), 1e-4));
    // untimed, the heavy rows' phases record nothing either: the fork and join of the light stream
    // and of the bins' streams are the only records
    const std::int64_t timed_records = cuda_sim::stats().stream_ops_by_call.at("cudaEventRecord");
    cuda_sim::reset();
    const DM du = gs::cuda::spgemm(dr, dr, budget(4096));
    const cuda_sim::Stats t = cuda_sim::stats();
    EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess) << cuda_sim::last_error_detail();
    const std::int64_t waits = t.stream_ops_by_call.count("cudaStreamWaitEvent") ? t.stream_ops_by_call.at("cudaStreamWaitEvent") : 0;
    const std::int64_t records = t.stream_ops_by_call.count("cudaEventRecord") ? t.stream_ops_by_call.at("cudaEventRecord") : 0;
    // each phase forks the light stream and joins it (a record and a wait each: 4 and 4); the
    // symbolic phase's bins fork to h helper streams (a record, h waits) and join (h records, h waits)
    const std::int64_t helpers = (waits - 4) / 2;
    EXPECT_EQ(records, 4 + 1 + helpers) << waits << " waits";
    std::cout << "three-level heavy product: " << timed_records << " event records timed, " << records << " untimed\n";
    EXPECT_TRUE(gs::test::csr_near(dh.download().view(), du.download().view(), 1e-5));  // float rounding: as above
}

// The small-product path (GpuSpgemmOptions::small_products) on the same light-only product: two
// allocations (C's row offsets, the blocks' partials), the counting launch and the scan, one read
// of nnz(C); then C's two arrays and the launch that writes them, and the wait for the end. No
// event, memset, stream fork or cudaMemGetInfo; C's arrays the only allocations left.
TEST(CudaSpgemm, SimulatedSmallProductPath) {
    using DM = gs::cuda::DeviceMatrix<float, std::int32_t>;
    const auto band = gs::test::banded<float, std::int32_t>(500, 6, 1);
    const auto expected = gs::reference::spgemm(band.view(), band.view());
    std::int64_t products = 0;  // Σ over A's entries of their B row's length
    for (const auto j : band.col_idx) products += band.row_ptr[j + 1] - band.row_ptr[j];
    const DM da = DM::upload(band.view());
    (void)gs::cuda::spgemm(da, da);  // fills the caches
    const std::int64_t live = live_allocations();
    std::int64_t ops[2] = {}, waits[2] = {};
    for (const bool small : {true, false}) {
        SCOPED_TRACE(small ? "small-product path" : "binned path");
        GpuSpgemmOptions o;
        o.small_products = small;
        o.time_phases = false;
        cuda_sim::reset();
        GpuSpgemmStats st;
        const DM dc = gs::cuda::spgemm(da, da, o, &st);
        const cuda_sim::Stats s = cuda_sim::stats();
        EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess) << cuda_sim::last_error_detail();
        EXPECT_EQ(st.small_product, small);
        EXPECT_EQ(st.small_rows_back, 0);
        EXPECT_EQ(st.nnz_c, dc.nnz());
        EXPECT_EQ(st.products, products);
        EXPECT_EQ(live_allocations(), live + 3) << "only C's arrays stay";
        EXPECT_TRUE(gs::test::csr_near(expected.view(), dc.download().view(), 1e-5));
        ops[small ? 0 : 1] = s.stream_ops;
        waits[small ? 0 : 1] = s.host_waits;
        if (!small) continue;
        std::cout << "small product: " << s.launches << " launches, " << s.stream_ops << " stream operations, " << s.host_waits << " host waits\n";
        for (const auto& [call, n] : s.stream_ops_by_call) std::cout << "  " << call << " " << n << "\n";
        const auto n = [&](const char* call) { return s.stream_ops_by_call.count(call) ? s.stream_ops_by_call.at(call) : std::int64_t{0}; };
        EXPECT_EQ(s.launches, 3);
        EXPECT_EQ(s.kernels.at("small_rows_kernel"), 2);
        EXPECT_EQ(s.kernels.at("small_finish_kernel"), 1);
        EXPECT_EQ(n("cudaMallocFromPoolAsync"), 4);
        EXPECT_EQ(n("cudaMemcpyAsync"), 1) << "nnz(C), the products and the rows sent back in one read";
        EXPECT_EQ(n("cudaEventRecord") + n("cudaStreamWaitEvent") + n("cudaMemsetAsync"), 0);
        EXPECT_EQ(s.streams_created + s.events_created + s.mem_info_calls, 0);
        EXPECT_EQ(s.stream_ops, 9);
    }
    EXPECT_EQ(waits[0], 2) << "nnz(C) and the end";
    EXPECT_EQ(waits[1], 2);
    EXPECT_LE(3 * ops[0], ops[1]) << "9 against 27 (untimed) when this was written";
    std::cout << "band squared: " << ops[0] << " stream operations small, " << ops[1] << " binned\n";
    // timed: the phases' events (the setup ends where the count starts)
    GpuSpgemmStats ts;
    const DM dt = gs::cuda::spgemm(da, da, {}, &ts);
    EXPECT_TRUE(ts.small_product);
    EXPECT_GT(ts.symbolic_ms, 0.0);
    EXPECT_GT(ts.numeric_ms, 0.0);
    EXPECT_GT(ts.light_ms, 0.0);
    EXPECT_NEAR(ts.total_ms, ts.setup_ms + ts.symbolic_ms + ts.numeric_ms, 1e-9);
    EXPECT_TRUE(gs::test::csr_near(expected.view(), dt.download().view(), 1e-5));
}
#endif
