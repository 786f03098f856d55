// tests/gen/test_rmat.cpp: R-MAT generator: determinism (seeds, threads), structure, power law, options.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include <gtest/gtest.h>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>
#include <gigasparse/gen/generators.hpp>

#include "gen/checks.hpp"

namespace gs = gigasparse;
namespace gen = gigasparse::gen;

namespace {
gen::RmatOptions options(int scale, double edge_factor, std::uint64_t seed) {
    gen::RmatOptions o;
    o.scale = scale;
    o.edge_factor = edge_factor;
    o.seed = seed;
    return o;
}

// Sorted multiset of (out-degree, in-degree) pairs: invariant under vertex relabelling.
std::vector<std::pair<std::int64_t, std::int64_t>> degree_pairs(const gs::Csr<double, int>& a) {
    const auto out = gs::test::row_lengths(a);
    std::vector<std::int64_t> in(out.size(), 0);
    for (int j : a.col_idx) ++in[j];
    std::vector<std::pair<std::int64_t, std::int64_t>> d;
    for (std::size_t i = 0; i < out.size(); ++i) d.emplace_back(out[i], in[i]);
    std::sort(d.begin(), d.end());
    return d;
}
}  // namespace

TEST(Rmat, SameSeedSameMatrixDifferentSeedDifferent) {
    const auto a = gen::rmat<double, int>(options(12, 8, 42));
    const auto b = gen::rmat<double, int>(options(12, 8, 42));
    const auto c = gen::rmat<double, int>(options(12, 8, 43));
    EXPECT_TRUE(gs::equal(a.view(), b.view()));
    EXPECT_FALSE(gs::equal(a.view(), c.view()));
}

TEST(Rmat, IndependentOfThreadCount) {
    const int saved = omp_get_max_threads();
    for (bool symmetrize : {false, true}) {
        auto o = options(15, 4, 7);  // several 2^16-edge chunks and 4096 row blocks of 8 rows
        o.symmetrize = symmetrize;
        o.permute_vertices = symmetrize;
        omp_set_num_threads(1);
        const auto one = gen::rmat<double, int>(o);
        omp_set_num_threads(3);
        const auto three = gen::rmat<double, int>(o);
        EXPECT_TRUE(gs::equal(one.view(), three.view())) << "symmetrize = " << symmetrize;
    }
    omp_set_num_threads(saved);
}

TEST(Rmat, SortedUniqueRowsValuesOneAndEdgeCount) {
    const int scale = 12;
    const double ef = 16;
    const auto a = gen::rmat<float, int>(options(scale, ef, 1));
    EXPECT_EQ(a.nrows, 1 << scale);
    EXPECT_EQ(a.ncols, 1 << scale);
    EXPECT_NO_THROW(gs::validate(a.view(), {.sorted = true}));  // strictly increasing columns: no duplicates
    EXPECT_LE(a.nnz(), static_cast<gs::offset_t>(ef * (1 << scale)));
    EXPECT_GT(a.nnz(), static_cast<gs::offset_t>(0.5 * ef * (1 << scale)));
    for (float v : a.values) ASSERT_EQ(v, 1.0f);
}

TEST(Rmat, PowerLawAndSelfLoopsKept) {
    const auto a = gen::rmat<double, int>(options(14, 16, 3));
    const auto len = gs::test::row_lengths(a);
    const double mean = static_cast<double>(a.nnz()) / static_cast<double>(a.nrows);
    const auto max_len = *std::max_element(len.begin(), len.end());
    EXPECT_GT(static_cast<double>(max_len), 20 * mean);
    EXPECT_EQ(max_len, len[0]);  // no permutation: vertex 0 is the hub (top-left corner)
    std::int64_t loops = 0;
    for (std::int64_t i = 0; i < a.nrows; ++i) loops += gs::test::entry(a, i, i) != 0.0;
    EXPECT_GT(loops, 0);
    EXPECT_EQ(gs::test::entry(a, 0, 0), 1.0);
}

TEST(Rmat, QuadrantFractionsFollowParameters) {
    // Few duplicates at edge factor 1, so the top-level quadrant shares are close to a, b, c, d.
    const auto a = gen::rmat<double, int>(options(16, 1, 5));
    const std::int64_t half = a.nrows / 2;
    double q[2][2] = {{0, 0}, {0, 0}};
    for (std::int64_t i = 0; i < a.nrows; ++i)
        for (gs::offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) q[i >= half][a.col_idx[k] >= half] += 1;
    const double n = static_cast<double>(a.nnz());
    EXPECT_NEAR(q[0][0] / n, 0.57, 0.02);
    EXPECT_NEAR(q[0][1] / n, 0.19, 0.02);
    EXPECT_NEAR(q[1][0] / n, 0.19, 0.02);
    EXPECT_NEAR(q[1][1] / n, 0.05, 0.02);
}

TEST(Rmat, SymmetrizeGivesSymmetricPattern) {
    auto o = options(12, 8, 9);
    o.symmetrize = true;
    const auto s = gen::rmat<double, int>(o);
    EXPECT_TRUE(gs::test::exactly_symmetric(s));
    EXPECT_NO_THROW(gs::validate(s.view()));
    EXPECT_LE(s.nnz(), static_cast<gs::offset_t>(2 * 8 * (1 << 12)));
    const auto d = gen::rmat<double, int>(options(12, 8, 9));
    EXPECT_GE(s.nnz(), d.nnz());
}

TEST(Rmat, PermutationRelabelsButKeepsDegrees) {
    auto o = options(12, 8, 11);
    const auto plain = gen::rmat<double, int>(o);
    o.permute_vertices = true;
    const auto perm = gen::rmat<double, int>(o);
    EXPECT_EQ(plain.nnz(), perm.nnz());
    EXPECT_FALSE(gs::equal(plain.view(), perm.view()));
    EXPECT_EQ(degree_pairs(plain), degree_pairs(perm));
    EXPECT_NO_THROW(gs::validate(perm.view()));
}

TEST(Rmat, Int64MatchesInt32AndTinyCases) {
    const auto a32 = gen::rmat<double, std::int32_t>(options(10, 4, 2));
    const auto a64 = gen::rmat<double, std::int64_t>(options(10, 4, 2));
    EXPECT_TRUE(gs::equal(gs::convert_index<std::int64_t>(a32.view()).view(), a64.view()));
    const auto one = gen::rmat<double, int>(options(0, 3, 1));  // one vertex: the self-loop only
    EXPECT_EQ(one.nrows, 1);
    EXPECT_EQ(one.nnz(), 1);
    EXPECT_EQ((gen::rmat<double, int>(options(5, 0, 1)).nnz()), 0);
}

TEST(Rmat, RejectsBadArguments) {
    EXPECT_THROW((gen::rmat<double, int>(options(-1, 16, 1))), gs::InvalidArgument);
    EXPECT_THROW((gen::rmat<double, std::int64_t>(options(41, 16, 1))), gs::InvalidArgument);
    EXPECT_THROW((gen::rmat<double, int>(options(10, -1, 1))), gs::InvalidArgument);
    EXPECT_THROW((gen::rmat<double, int>(options(10, std::nan(""), 1))), gs::InvalidArgument);
    auto o = options(10, 16, 1);
    o.a = 0.7;  // a + b + c > 1
    EXPECT_THROW((gen::rmat<double, int>(o)), gs::InvalidArgument);
    o.a = -0.1;
    EXPECT_THROW((gen::rmat<double, int>(o)), gs::InvalidArgument);
    EXPECT_THROW((gen::rmat<double, std::int32_t>(options(32, 1, 1))), gs::OutOfMemory);  // 2^32 vertices
    EXPECT_THROW((gen::rmat<double, std::int64_t>(options(40, 1e9, 1))), gs::OutOfMemory);
}
