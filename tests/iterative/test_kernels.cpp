// tests/iterative/test_kernels.cpp: OpenMP SpMV (CSR, BSR) and vector operations against the sequential reference.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include <gigasparse/core/error.hpp>
#include <gigasparse/iterative/kernels.hpp>
#include <gigasparse/reference/kernels.hpp>

#include "utils/test_utils.hpp"

namespace gi = gigasparse::iterative;
using gigasparse::test::random_vector;
using gi::Backend;

namespace {

template <class V>
double max_rel_diff(const std::vector<V>& a, const std::vector<V>& b) {
    double m = 0, scale = 1e-30;
    for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, double(std::abs(a[i] - b[i]))), scale = std::max(scale, double(std::abs(a[i])));
    return m / scale;
}

template <class V, class I>
void check_spmv(std::int64_t m, std::int64_t n, double per_row, double empty, std::uint64_t seed) {
    SCOPED_TRACE(gigasparse::test::seed_trace(seed));
    const auto a = gigasparse::test::random_csr<V, I>(m, n, per_row, seed, empty);
    const auto x = random_vector<V>(n, seed + 1);
    auto y0 = random_vector<V>(m, seed + 2), y1 = y0, y2 = y0;
    gigasparse::reference::spmv<V, I>(a.view(), x, y0, V(2), V(0.5));
    gi::spmv<V, I>(Backend::reference, a.view(), x, y1, V(2), V(0.5));
    gi::spmv<V, I>(Backend::omp, a.view(), x, y2, V(2), V(0.5));
    const double tol = std::is_same_v<V, float> ? 1e-5 : 1e-13;
    EXPECT_LE(max_rel_diff(y0, y1), tol);
    EXPECT_LE(max_rel_diff(y0, y2), tol);
}

}  // namespace

TEST(IterativeKernels, SpmvOmpMatchesReferenceAllTypes) {
    for (std::uint64_t seed : {1u, 2u, 3u}) {
        check_spmv<double, std::int32_t>(20000, 15000, 7, 0.1, seed);
        check_spmv<double, std::int64_t>(3000, 5000, 3, 0.0, seed);
        check_spmv<float, std::int32_t>(20000, 20000, 5, 0.3, seed);
        check_spmv<float, std::int64_t>(17, 9, 2, 0.5, seed);
    }
}

TEST(IterativeKernels, SpmvBalancedOnSkewedRows) {
    // One dense row followed by many short ones: the nonzero-balanced split must still be exact.
    gigasparse::Csr<double, std::int32_t> a(50000, 50000);
    a.row_ptr.assign(1, 0);
    for (std::int64_t i = 0; i < a.nrows; ++i) {
        const std::int64_t len = i == 7 ? 40000 : 1 + i % 3;
        for (std::int64_t k = 0; k < len; ++k) a.col_idx.push_back(static_cast<std::int32_t>((i + k * 13) % a.ncols)), a.values.push_back(1.0 + k % 5);
        std::sort(a.col_idx.end() - len, a.col_idx.end());
        a.col_idx.erase(std::unique(a.col_idx.end() - len, a.col_idx.end()), a.col_idx.end());
        a.values.resize(a.col_idx.size());
        a.row_ptr.push_back(static_cast<std::int64_t>(a.col_idx.size()));
    }
    const auto x = random_vector<double>(a.ncols, 5);
    std::vector<double> y0(a.nrows), y1(a.nrows, std::nan(""));
    gigasparse::reference::spmv<double, std::int32_t>(a.view(), x, y0);
    gi::spmv<double, std::int32_t>(Backend::omp, a.view(), x, y1);  // beta = 0 ignores the NaN in y
    EXPECT_LE(max_rel_diff(y0, y1), 1e-13);
}

TEST(IterativeKernels, SpmvShapeMismatchThrows) {
    const auto a = gigasparse::test::random_csr<double, std::int32_t>(10, 8, 2, 1);
    std::vector<double> x(7), y(10);
    EXPECT_THROW((gi::spmv<double, std::int32_t>(Backend::omp, a.view(), x, y)), gigasparse::DimensionMismatch);
    x.resize(8);
    EXPECT_THROW((gi::spmv<double, std::int32_t>(Backend::cuda, a.view(), x, y)), gigasparse::NotSupported);
}

TEST(IterativeKernels, BsrSpmvBlockSizes1To5MatchPointSpmv) {
    for (int bs = 1; bs <= 5; ++bs)
        for (Backend be : {Backend::reference, Backend::omp}) {
            SCOPED_TRACE("block " + std::to_string(bs) + " " + gi::to_string(be));
            const std::int64_t nb = 3000;
            const auto a = gigasparse::test::random_csr<double, std::int32_t>(nb * bs, nb * bs, 6, 10 + bs, 0.05);
            const auto b = gi::csr_to_bsr<double, std::int32_t>(a.view(), bs);
            EXPECT_EQ(b.block, bs);
            const auto x = random_vector<double>(a.ncols, 7);
            auto y0 = random_vector<double>(a.nrows, 8), y1 = y0;
            gigasparse::reference::spmv<double, std::int32_t>(a.view(), x, y0, 1.5, -1.0);
            gi::bsr_spmv<double, std::int32_t>(be, b, x, y1, 1.5, -1.0);
            EXPECT_LE(max_rel_diff(y0, y1), 1e-13);
            // Round trip: expanding the blocks keeps every entry of A (plus explicit zeros).
            const auto c = gi::bsr_to_csr(b);
            std::vector<double> y2(a.nrows);
            gigasparse::reference::spmv<double, std::int32_t>(c.view(), x, y2);
            std::vector<double> y3(a.nrows);
            gigasparse::reference::spmv<double, std::int32_t>(a.view(), x, y3);
            EXPECT_LE(max_rel_diff(y3, y2), 1e-13);
        }
}

TEST(IterativeKernels, BsrFloatInt64AndBadBlock) {
    const auto a = gigasparse::test::random_csr<float, std::int64_t>(400, 400, 5, 3);
    const auto b = gi::csr_to_bsr<float, std::int64_t>(a.view(), 4);
    const auto x = random_vector<float>(400, 1);
    std::vector<float> y0(400), y1(400);
    gigasparse::reference::spmv<float, std::int64_t>(a.view(), x, y0);
    gi::bsr_spmv<float, std::int64_t>(Backend::omp, b, x, y1);
    EXPECT_LE(max_rel_diff(y0, y1), 1e-5);
    EXPECT_THROW((gi::csr_to_bsr<float, std::int64_t>(a.view(), 3)), gigasparse::DimensionMismatch);
    auto bad = b;
    bad.block = 6;
    EXPECT_THROW((gi::bsr_spmv<float, std::int64_t>(Backend::omp, bad, x, y1)), gigasparse::NotSupported);
}

TEST(IterativeKernels, VectorOpsOmpMatchReference) {
    for (std::int64_t n : {0, 5, 100000}) {
        const auto x = random_vector<double>(n, 1), y = random_vector<double>(n, 2);
        const double d0 = gi::dot<double>(Backend::reference, x, y), d1 = gi::dot<double>(Backend::omp, x, y);
        EXPECT_NEAR(d0, d1, 1e-12 * (1 + std::abs(d0)));
        EXPECT_NEAR(gi::nrm2<double>(Backend::reference, x), gi::nrm2<double>(Backend::omp, x), 1e-12 * (1 + std::sqrt(double(n))));
        EXPECT_EQ(gi::nrm_inf<double>(Backend::reference, x), gi::nrm_inf<double>(Backend::omp, x));
        for (Backend be : {Backend::reference, Backend::omp}) {
            auto z = y;
            gi::axpy<double>(be, 2.0, x, z);
            for (std::int64_t i = 0; i < n; ++i) ASSERT_DOUBLE_EQ(z[i], y[i] + 2.0 * x[i]);
            gi::axpby<double>(be, -1.0, x, 0.5, z);
            for (std::int64_t i = 0; i < n; ++i) ASSERT_DOUBLE_EQ(z[i], -x[i] + 0.5 * (y[i] + 2.0 * x[i]));
            gi::scal<double>(be, 3.0, z);
            gi::copy<double>(be, x, z);
            EXPECT_EQ(z, x);
            gi::fill<double>(be, 7.0, z);
            for (const double v : z) ASSERT_EQ(v, 7.0);
            gi::pointwise_mult<double>(be, x, y, z);
            for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(z[i], x[i] * y[i]);
        }
    }
}

TEST(IterativeKernels, FiniteChecksAndFloatDot) {
    for (Backend be : {Backend::reference, Backend::omp}) {
        std::vector<float> v(50000, 1.0f);
        EXPECT_TRUE(gi::all_finite<float>(be, v));
        EXPECT_FLOAT_EQ(gi::dot<float>(be, v, v), 50000.0f);
        v[31337] = std::nanf("");
        EXPECT_FALSE(gi::all_finite<float>(be, v));
        EXPECT_TRUE(std::isnan(gi::nrm_inf<float>(be, v)));
        v[31337] = INFINITY;
        EXPECT_FALSE(gi::all_finite<float>(be, v));
    }
    std::vector<double> a(3), b(4);
    EXPECT_THROW((gi::dot<double>(Backend::omp, a, b)), gigasparse::DimensionMismatch);
}
