// tests/gen/test_random_sparse.cpp: Erdős–Rényi and random_sparse: exact row lengths, ranges, determinism.
#include <cmath>
#include <complex>

#include <gtest/gtest.h>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>
#include <gigasparse/gen/generators.hpp>

#include "gen/checks.hpp"
#include "utils/test_utils.hpp"

namespace gs = gigasparse;
namespace gen = gigasparse::gen;

TEST(ErdosRenyi, IntegerDensityGivesExactRowLengths) {
    for (std::uint64_t seed : {1u, 2u, 99u}) {
        SCOPED_TRACE(gs::test::seed_trace(seed));
        const auto a = gen::erdos_renyi<double, int>(300, 200, 7, seed);
        EXPECT_NO_THROW(gs::validate(a.view()));  // sorted, distinct, in range
        for (auto len : gs::test::row_lengths(a)) ASSERT_EQ(len, 7);
        for (double v : a.values) ASSERT_EQ(v, 1.0);
    }
}

TEST(ErdosRenyi, FractionalDensityAndCap) {
    const auto a = gen::erdos_renyi<double, std::int64_t>(4000, 1000, 2.5, 3);
    const double mean = static_cast<double>(a.nnz()) / 4000.0;
    EXPECT_NEAR(mean, 2.5, 0.05);
    for (auto len : gs::test::row_lengths(a)) ASSERT_TRUE(len == 2 || len == 3);
    const auto full = gen::erdos_renyi<double, int>(20, 10, 15, 3);  // capped at ncols: dense rows
    EXPECT_EQ(full.nnz(), 200);
    EXPECT_NO_THROW(gs::validate(full.view()));
    const auto big = gen::erdos_renyi<double, int>(10, 5000, 2000, 4);  // large rows use the hashed path
    EXPECT_EQ(big.nnz(), 20000);
    EXPECT_NO_THROW(gs::validate(big.view()));
}

TEST(ErdosRenyi, ColumnsRoughlyUniform) {
    const auto a = gen::erdos_renyi<double, int>(2000, 100, 10, 5);  // 200 expected per column
    std::vector<int> count(100, 0);
    for (int j : a.col_idx) ++count[j];
    for (int c : count) EXPECT_TRUE(c > 120 && c < 280) << c;
}

TEST(ErdosRenyi, Determinism) {
    const auto a = gen::erdos_renyi<double, int>(500, 500, 5, 8);
    EXPECT_TRUE(gs::equal(a.view(), gen::erdos_renyi<double, int>(500, 500, 5, 8).view()));
    EXPECT_FALSE(gs::equal(a.view(), gen::erdos_renyi<double, int>(500, 500, 5, 9).view()));
    const auto a64 = gen::erdos_renyi<double, std::int64_t>(500, 500, 5, 8);
    EXPECT_TRUE(gs::equal(gs::convert_index<std::int64_t>(a.view()).view(), a64.view()));
}

TEST(RandomSparse, ValuesInRangeAndPatternMatchesErdosRenyi) {
    const auto a = gen::random_sparse<double, int>(100, 80, 6, 12);
    EXPECT_NO_THROW(gs::validate(a.view()));
    for (double v : a.values) ASSERT_TRUE(v >= -1 && v <= 1);
    const auto e = gen::erdos_renyi<double, int>(100, 80, 6, 12);
    EXPECT_EQ(a.row_ptr, e.row_ptr);
    EXPECT_EQ(a.col_idx, e.col_idx);
    const auto c = gen::random_sparse<std::complex<float>, int>(50, 50, 4, 12);
    bool has_imag = false;
    for (auto v : c.values) {
        ASSERT_TRUE(std::abs(v.real()) <= 1 && std::abs(v.imag()) <= 1);
        has_imag |= v.imag() != 0;
    }
    EXPECT_TRUE(has_imag);
    EXPECT_TRUE(gs::equal(a.view(), gen::random_sparse<double, int>(100, 80, 6, 12).view()));
}

TEST(RandomSparse, EmptyShapesAndBadArguments) {
    EXPECT_EQ((gen::random_sparse<double, int>(0, 5, 3, 1).nrows), 0);
    const auto n0 = gen::random_sparse<double, int>(5, 0, 3, 1);
    EXPECT_EQ(n0.nrows, 5);
    EXPECT_EQ(n0.nnz(), 0);
    EXPECT_THROW((gen::random_sparse<double, int>(-1, 5, 3, 1)), gs::InvalidArgument);
    EXPECT_THROW((gen::erdos_renyi<double, int>(5, 5, -3, 1)), gs::InvalidArgument);
    EXPECT_THROW((gen::erdos_renyi<double, int>(5, 5, std::nan(""), 1)), gs::InvalidArgument);
    EXPECT_THROW((gen::erdos_renyi<double, std::int32_t>(5, std::int64_t{1} << 32, 1, 1)), gs::OutOfMemory);
}
