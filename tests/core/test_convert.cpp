// tests/core/test_convert.cpp: conversions on hand-checkable matrices and seeded random properties.
#include <complex>
#include <numeric>
#include <random>

#include <gtest/gtest.h>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>

#include "utils/test_utils.hpp"

namespace gs = gigasparse;
using gs::test::random_csr;
using gs::test::to_dense;

TEST(Convert, CooToCsrSortsAndSumsDuplicates) {
    gs::Coo<double, int> coo{3, 3, {2, 0, 0, 2, 0}, {1, 2, 0, 1, 2}, {1, 2, 3, 4, 5}};
    auto a = gs::coo_to_csr(coo);
    EXPECT_EQ(a.row_ptr, (std::vector<gs::offset_t>{0, 2, 2, 3}));
    EXPECT_EQ(a.col_idx, (std::vector<int>{0, 2, 1}));
    EXPECT_EQ(a.values, (std::vector<double>{3, 7, 5}));
}

TEST(Convert, CooToCsrRejectsOutOfRange) {
    gs::Coo<double, int> coo{2, 2, {0, 2}, {0, 0}, {1, 1}};
    EXPECT_THROW(gs::coo_to_csr(coo), gs::InvalidStructure);
    coo = {2, 2, {0, 1}, {0, -1}, {1, 1}};
    EXPECT_THROW(gs::coo_to_csr(coo), gs::InvalidStructure);
}

TEST(Convert, CsrCooRoundTrip) {
    const auto a = random_csr<double, std::int64_t>(50, 30, 4, 7, 0.2);
    const auto b = gs::coo_to_csr(gs::csr_to_coo(a.view()));
    EXPECT_TRUE(gs::equal(a.view(), b.view()));
}

TEST(Convert, TransposeHandExample) {
    gs::Coo<double, int> coo{2, 3, {0, 0, 1}, {0, 2, 1}, {1, 2, 3}};
    const auto t = gs::transpose(gs::coo_to_csr(coo).view());
    EXPECT_EQ(t.nrows, 3);
    EXPECT_EQ(t.ncols, 2);
    EXPECT_EQ(t.row_ptr, (std::vector<gs::offset_t>{0, 1, 2, 3}));
    EXPECT_EQ(t.col_idx, (std::vector<int>{0, 1, 0}));
    EXPECT_EQ(t.values, (std::vector<double>{1, 3, 2}));
}

TEST(Convert, TransposeTwiceIsIdentityAndConjugates) {
    for (std::uint64_t seed : {1u, 2u, 3u}) {
        SCOPED_TRACE(gs::test::seed_trace(seed));
        const auto a = random_csr<std::complex<double>, int>(40, 70, 5, seed, 0.1);
        EXPECT_TRUE(gs::equal(a.view(), gs::transpose(gs::transpose(a.view()).view()).view()));
        const auto h = gs::transpose(a.view(), true);
        const auto da = to_dense(a.view());
        const auto dh = to_dense(h.view());
        for (std::int64_t i = 0; i < a.nrows; ++i)
            for (std::int64_t j = 0; j < a.ncols; ++j) ASSERT_EQ(dh[j][i], std::conj(da[i][j]));
    }
}

TEST(Convert, SortRowsMatchesSortedOriginal) {
    const auto a = random_csr<float, int>(100, 100, 6, 11);
    auto b = gs::test::unsort_rows(a, 5);
    gs::sort_rows(b);
    EXPECT_TRUE(gs::equal(a.view(), b.view()));
}

TEST(Convert, ExpandSymmetricKinds) {
    // stored lower triangle of [[4, 1-2i], [1+2i, 5]] plus a 3rd row
    gs::Coo<std::complex<double>, int> coo{3, 3, {0, 1, 1, 2}, {0, 0, 1, 0}, {{4, 0}, {1, 2}, {5, 0}, {0, 3}}};
    const auto l = gs::coo_to_csr(coo);
    const auto herm = to_dense(gs::expand_symmetric(l.view(), gs::Symmetry::hermitian).view());
    EXPECT_EQ(herm[0][1], std::complex<double>(1, -2));
    EXPECT_EQ(herm[0][2], std::complex<double>(0, -3));
    const auto sym = to_dense(gs::expand_symmetric(l.view(), gs::Symmetry::symmetric).view());
    EXPECT_EQ(sym[0][1], std::complex<double>(1, 2));
    gs::Coo<double, int> skew{2, 2, {1}, {0}, {3}};
    const auto sk = to_dense(gs::expand_symmetric(gs::coo_to_csr(skew).view(), gs::Symmetry::skew_symmetric).view());
    EXPECT_EQ(sk[0][1], -3);
    EXPECT_EQ(sk[1][0], 3);
}

TEST(Convert, ExpandSymmetricRejectsBothTriangles) {
    gs::Coo<double, int> coo{2, 2, {0, 1}, {1, 0}, {1, 1}};
    EXPECT_THROW(gs::expand_symmetric(gs::coo_to_csr(coo).view(), gs::Symmetry::symmetric), gs::InvalidStructure);
}

TEST(Convert, TrianglesAndDiagonalPartitionTheMatrix) {
    const auto a = random_csr<double, int>(60, 60, 8, 21);
    const auto lo = gs::extract_triangle(a.view(), gs::Triangle::lower, false);
    const auto up = gs::extract_triangle(a.view(), gs::Triangle::upper, true);
    EXPECT_EQ(lo.nnz() + up.nnz(), a.nnz());
    const auto d = gs::extract_diagonal(a.view());
    const auto dense = to_dense(a.view());
    for (int i = 0; i < 60; ++i) EXPECT_EQ(d[i], dense[i][i]);
    for (std::int64_t i = 0; i < lo.nrows; ++i)
        for (auto k = lo.row_ptr[i]; k < lo.row_ptr[i + 1]; ++k) EXPECT_LT(lo.col_idx[k], i);
}

TEST(Convert, PermuteSymmetricMatchesDefinition) {
    const auto a = random_csr<double, int>(30, 30, 5, 3);
    std::vector<std::int64_t> p(30);
    std::iota(p.begin(), p.end(), 0);
    std::shuffle(p.begin(), p.end(), std::mt19937_64(9));
    const auto b = gs::permute_symmetric(a.view(), p);
    EXPECT_TRUE(gs::rows_sorted(b.view()));
    const auto da = to_dense(a.view()), db = to_dense(b.view());
    for (int i = 0; i < 30; ++i)
        for (int j = 0; j < 30; ++j) ASSERT_EQ(db[i][j], da[p[i]][p[j]]);
}

TEST(Convert, InvalidPermutationIsRejected) {
    const auto a = random_csr<double, int>(3, 3, 2, 3);
    const std::vector<std::int64_t> dup{0, 0, 1}, range{0, 1, 3}, shorter{0, 1};
    EXPECT_THROW(gs::permute_symmetric(a.view(), dup), gs::InvalidArgument);
    EXPECT_THROW(gs::permute_symmetric(a.view(), range), gs::InvalidArgument);
    EXPECT_THROW(gs::permute_symmetric(a.view(), shorter), gs::DimensionMismatch);
}

TEST(Convert, IndexAndValueConversion) {
    const auto a = random_csr<double, std::int64_t>(20, 20, 3, 1);
    const auto b = gs::convert_index<int>(a.view());
    EXPECT_EQ(b.col_idx.size(), a.col_idx.size());
    const auto c = gs::convert_value<std::complex<float>>(b.view());
    EXPECT_EQ(c.values[0].real(), static_cast<float>(a.values[0]));
}
