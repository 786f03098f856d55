// tests/spgemm/test_spgemm_api.cpp: cheap API checks: hand-computed products, phase order, misuse, edge shapes.
#include <gtest/gtest.h>

#include <gigasparse/core/error.hpp>
#include <gigasparse/cuda/device.hpp>

#include "spgemm_test_utils.hpp"

namespace gigasparse::test {
namespace {

Csr<double, std::int32_t> make(std::int64_t m, std::int64_t n, std::vector<offset_t> rp, std::vector<std::int32_t> ci, std::vector<double> v) {
    Csr<double, std::int32_t> a(m, n);
    a.row_ptr = std::move(rp);
    a.col_idx = std::move(ci);
    a.values = std::move(v);
    return a;
}

TEST(SpgemmApi, HandComputedProduct) {
    // A = [1 2; 0 3], B = [4 0; 5 6]  ->  C = [14 12; 15 18]
    const auto a = make(2, 2, {0, 2, 3}, {0, 1, 1}, {1, 2, 3});
    const auto b = make(2, 2, {0, 1, 3}, {0, 0, 1}, {4, 5, 6});
    for (auto backend : {SpgemmBackend::cpu, SpgemmBackend::reference}) {
        SpgemmOptions o;
        o.backend = backend;
        const auto c = multiply<double, std::int32_t>(a, b, o);
        EXPECT_EQ(c.row_ptr, (std::vector<offset_t>{0, 2, 4}));
        EXPECT_EQ(c.col_idx, (std::vector<std::int32_t>{0, 1, 0, 1}));
        EXPECT_EQ(c.values, (std::vector<double>{14, 12, 15, 18}));
    }
}

TEST(SpgemmApi, ComplexHandComputedProductAndPlanReuse) {
    // A = [1+i 2; 0 3i], B = [4 0; 5 -i]  ->  C = [14+4i -2i; 15i 3]
    using C = std::complex<double>;
    Csr<C, std::int32_t> a(2, 2), b(2, 2);
    a.row_ptr = {0, 2, 3};
    a.col_idx = {0, 1, 1};
    a.values = {C(1, 1), C(2, 0), C(0, 3)};
    b.row_ptr = {0, 1, 3};
    b.col_idx = {0, 0, 1};
    b.values = {C(4, 0), C(5, 0), C(0, -1)};
    for (auto backend : {SpgemmBackend::cpu, SpgemmBackend::reference}) {
        SpgemmOptions o;
        o.backend = backend;
        SpgemmPlan<C, std::int32_t> plan(o);
        plan.symbolic(a, b);
        auto c = plan.numeric(a, b);
        EXPECT_EQ(c.col_idx, (std::vector<std::int32_t>{0, 1, 0, 1}));
        EXPECT_EQ(c.values, (std::vector<C>{C(14, 4), C(0, -2), C(0, 15), C(3, 0)}));
        auto a2 = a;
        for (C& v : a2.values) v *= C(0, 1);  // new values, same pattern: i C
        c = plan.numeric(a2, b);
        EXPECT_EQ(c.values, (std::vector<C>{C(-4, 14), C(2, 0), C(-15, 0), C(0, 3)}));
    }
    SpgemmOptions gpu;
    gpu.backend = SpgemmBackend::cuda;
    EXPECT_THROW((multiply<C, std::int32_t>(a, b, gpu)), NotSupported);  // gMAGNUS takes real values, device or not
}

TEST(SpgemmApi, CancellationZerosAreKept) {
    // [1 1] * [1; -1] = [0]: the entry is structural and stays.
    const auto a = make(1, 2, {0, 2}, {0, 1}, {1, 1});
    const auto b = make(2, 1, {0, 1, 2}, {0, 0}, {1, -1});
    const auto c = multiply<double, std::int32_t>(a, b);
    ASSERT_EQ(c.nnz(), 1);
    EXPECT_EQ(c.values[0], 0.0);
}

TEST(SpgemmApi, PhaseOrderAndMisuse) {
    const auto a = make(2, 2, {0, 2, 3}, {0, 1, 1}, {1, 2, 3});
    SpgemmPlan<double, std::int32_t> plan;
    EXPECT_FALSE(plan.has_symbolic());
    EXPECT_THROW(plan.numeric(a, a), PhaseError);
    EXPECT_THROW(plan.nnz(), PhaseError);
    plan.symbolic(a, a);
    EXPECT_TRUE(plan.has_symbolic());
    EXPECT_EQ(plan.nnz(), 3);
    const auto other = make(2, 2, {0, 1, 3}, {0, 0, 1}, {4, 5, 6});  // same nnz, other pattern
    EXPECT_THROW(plan.numeric(other, a), InvalidArgument);
    const auto rect = make(2, 3, {0, 1, 1}, {2}, {1});
    EXPECT_THROW(plan.symbolic(rect, rect), DimensionMismatch);
    const auto bad = make(2, 2, {0, 1, 1}, {5}, {1});
    EXPECT_THROW(plan.symbolic(bad, a), InvalidStructure);
    EXPECT_THROW(plan.symbolic(a, bad), InvalidStructure);
    EXPECT_THROW(plan.symbolic(make(2, 2, {0, 2, 1}, {0}, {1}), a), InvalidStructure);        // row_ptr decreases
    EXPECT_THROW(plan.symbolic(make(2, 2, {0, 1, 2}, {0, -1}, {1, 2}), a), InvalidStructure);  // negative column
    EXPECT_THROW(plan.symbolic(make(2, 2, {0, 1, 2}, {0, 1}, {1}), a), InvalidStructure);      // values too short
    {  // large enough for the parallel check: one bad column near the end
        const std::int64_t n = 200000;
        std::vector<offset_t> rp(n + 1);
        std::vector<std::int32_t> ci(n);
        for (std::int64_t i = 0; i <= n; ++i) rp[i] = i;
        for (std::int64_t i = 0; i < n; ++i) ci[i] = static_cast<std::int32_t>(i);
        ci[n - 3] = static_cast<std::int32_t>(n);
        const auto big = make(n, n, rp, ci, std::vector<double>(n, 1.0));
        EXPECT_THROW(plan.symbolic(big, big), InvalidStructure);
    }
    SpgemmOptions cuda;
    cuda.backend = SpgemmBackend::cuda;
    SpgemmPlan<double, std::int32_t> gpu(cuda);
    if (gigasparse::cuda::device_count() == 0) {
        EXPECT_THROW(gpu.symbolic(a, a), NotSupported);  // no GPU (or built without CUDA): a clear refusal
    } else {
        gpu.symbolic(a, a);  // with a GPU the product runs (validated in tests/cuda)
        EXPECT_EQ(gpu.nnz(), plan.nnz());
    }
    SpgemmOptions neg;
    neg.sort_threshold = -1;
    EXPECT_THROW((multiply<double, std::int32_t>(a, a, neg)), InvalidArgument);
    for (int k = 0; k < 4; ++k) {  // the accumulator options
        SpgemmOptions bad;
        if (k == 3) bad.dense_l2_factor = 0;
        if (k == 0) bad.window_max_fill = -1;
        if (k == 1) bad.spa_max_cols = -2;
        if (k == 2) bad.spa_threshold = -1;
        EXPECT_THROW((multiply<double, std::int32_t>(a, a, bad)), InvalidArgument);
    }
    EXPECT_EQ(parse_spgemm_backend("cpu"), SpgemmBackend::cpu);
    EXPECT_THROW(parse_spgemm_backend("gpu2"), InvalidArgument);
}

TEST(SpgemmApi, EdgeShapes) {
    using C = Csr<double, std::int32_t>;
    const std::vector<std::pair<C, C>> cases = {
        {C(0, 0), C(0, 0)},  {C(0, 12), random_csr<double, std::int32_t>(12, 5, 2, 1)},
        {random_csr<double, std::int32_t>(10, 10, 3, 2), C(10, 0)}, {C(10, 10), C(10, 10)},
        {C(7, 0), C(0, 9)},  {random_csr<double, std::int32_t>(10, 10, 3, 3), C(10, 10)},
    };
    for (const auto& [a, b] : cases) {
        SCOPED_TRACE(std::to_string(a.nrows) + "x" + std::to_string(a.ncols) + " * " + std::to_string(b.nrows) + "x" + std::to_string(b.ncols));
        expect_matches_reference(a, b, SpgemmOptions{});
        const auto c = multiply<double, std::int32_t>(a, b);
        EXPECT_EQ(c.nrows, a.nrows);
        EXPECT_EQ(c.ncols, b.ncols);
        EXPECT_EQ(static_cast<std::int64_t>(c.row_ptr.size()), a.nrows + 1);
    }
}

TEST(SpgemmApi, StatsDescribeThePlan) {
    const auto a = random_csr<double, std::int32_t>(200, 200, 20, 7);
    SpgemmStats s;
    multiply<double, std::int32_t>(a, a, {}, &s);
    std::int64_t rows = 0;
    offset_t products = 0;
    for (int c = 0; c < spgemm_category_count; ++c) {
        rows += s.category_rows[c];
        products += s.category_products[c];
    }
    EXPECT_EQ(rows, 200);
    EXPECT_EQ(products, s.products);
    EXPECT_GT(s.l2_bytes, 0);
    EXPECT_GE(s.fine_chunk_cols, 1);
    EXPECT_EQ(s.ncols_pow2, 256);
    EXPECT_GE(s.total_seconds(), 0.0);
}

// multiply() computes small products in one fused pass (no symbolic phase) and larger ones, forced
// categories and C wider than the sparse accumulator through the plan; both give the reference's C.
TEST(SpgemmApi, FusedOnePassProduct) {
    const auto a = random_csr<double, std::int32_t>(300, 250, 12, 41);
    const auto b = random_csr<double, std::int32_t>(250, 400, 9, 42);
    const auto expected = reference::spgemm<double, std::int32_t>(a, b);
    for (int threads : {1, 2})
        for (std::int64_t serial : {std::int64_t(0), std::int64_t(1) << 20}) {
            SCOPED_TRACE("threads " + std::to_string(threads) + " serial_products " + std::to_string(serial));
            SpgemmOptions o;
            o.threads = threads;
            o.serial_products = serial;
            SpgemmStats s;
            const auto c = multiply<double, std::int32_t>(a, b, o, &s);
            EXPECT_TRUE(s.fused);
            EXPECT_EQ(s.symbolic_seconds, 0.0);
            EXPECT_EQ(s.threads, serial == 0 ? threads : 1);
            EXPECT_GT(s.workspace_bytes, 0);
            EXPECT_EQ(s.nnz_c, expected.nnz());
            EXPECT_TRUE(spgemm_near(expected, c));
            EXPECT_TRUE(sorted_rows(c));
        }
    SpgemmStats s;
    multiply<double, std::int32_t>(a, b, {}, &s);
    ASSERT_TRUE(s.fused);
    SpgemmOptions below;
    below.fused_products = s.products - 1;  // one multiplication too many: the plan's three phases
    SpgemmStats sb;
    EXPECT_TRUE(spgemm_near(expected, multiply<double, std::int32_t>(a, b, below, &sb)));
    EXPECT_FALSE(sb.fused);
    EXPECT_EQ(sb.products, s.products);
    EXPECT_EQ(sb.max_row_products, s.max_row_products);
    EXPECT_GT(s.max_row_products, 0);
    SpgemmOptions at;
    at.fused_products = s.products;
    multiply<double, std::int32_t>(a, b, at, &sb);
    EXPECT_TRUE(sb.fused);
    SpgemmOptions no_spa;
    no_spa.spa_max_cols = 0;  // no sparse accumulator over C's columns: not fused
    multiply<double, std::int32_t>(a, b, no_spa, &sb);
    EXPECT_FALSE(sb.fused);
    SpgemmOptions forced;
    forced.force_category = SpgemmCategory::dense;
    multiply<double, std::int32_t>(a, b, forced, &sb);
    EXPECT_FALSE(sb.fused);
    // Shapes without products: empty A, A without entries, rows of B without entries.
    const Csr<double, std::int32_t> empty(0, 250), none(300, 250);
    EXPECT_EQ((multiply<double, std::int32_t>(empty, b).nrows), 0);
    const auto z = multiply<double, std::int32_t>(none, b, {}, &sb);
    EXPECT_TRUE(sb.fused);
    EXPECT_EQ(z.nnz(), 0);
    EXPECT_EQ(static_cast<std::int64_t>(z.row_ptr.size()), 301);
    // Bad input is still refused before anything is computed.
    auto bad = a;
    bad.col_idx[5] = 250;
    EXPECT_THROW((multiply<double, std::int32_t>(bad, b)), InvalidStructure);
}

}  // namespace
}  // namespace gigasparse::test
