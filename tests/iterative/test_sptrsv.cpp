// tests/iterative/test_sptrsv.cpp: orderings, schedules and the TriangularSolve plan against the sequential reference solve.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>
#include <gigasparse/iterative/ordering.hpp>
#include <gigasparse/iterative/preconditioner.hpp>
#include <gigasparse/iterative/triangular_solve.hpp>
#include <gigasparse/reference/kernels.hpp>

#include "iterative/problems.hpp"
#include "utils/test_utils.hpp"

namespace gi = gigasparse::iterative;
using gigasparse::Csr;
using gigasparse::Triangle;
using Mat = Csr<double, std::int32_t>;

namespace {

const gi::OrderingKind all_orderings[] = {gi::OrderingKind::natural, gi::OrderingKind::rcm, gi::OrderingKind::multicolor,
                                          gi::OrderingKind::abmc, gi::OrderingKind::dc};

bool is_permutation_of_n(const std::vector<std::int64_t>& p, std::int64_t n) {
    std::vector<std::int64_t> s = p;
    std::sort(s.begin(), s.end());
    for (std::int64_t i = 0; i < n; ++i)
        if (s[i] != i) return false;
    return static_cast<std::int64_t>(p.size()) == n;
}

std::vector<double> rhs(std::int64_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> b(static_cast<std::size_t>(n));
    for (auto& v : b) v = u(rng);
    return b;
}

double rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
    double m = 0, s = 1e-300;
    for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i])), s = std::max(s, std::abs(a[i]));
    return m / s;
}

Mat permuted(const Mat& a, const gi::Ordering& o) { return o.perm.empty() ? a : gigasparse::permute_symmetric(a.view(), o.perm); }

// A diagonally dominant unsymmetric random matrix with a full diagonal.
Mat random_dominant(std::int64_t n, std::uint64_t seed) {
    auto r = gigasparse::test::random_csr<double, std::int32_t>(n, n, 6, seed);
    gigasparse::Csr<double, std::int32_t> d(n, n);
    d.row_ptr.resize(n + 1);
    for (std::int64_t i = 0; i < n; ++i) d.col_idx.push_back(static_cast<std::int32_t>(i)), d.values.push_back(20.0), d.row_ptr[i + 1] = i + 1;
    return gigasparse::reference::add<double, std::int32_t>(r.view(), d.view());
}

// Solves with the plan (given ordering's blocks) and with the sequential reference: same answer to round-off.
void check_plan(const Mat& t, Triangle part, bool unit, const gi::Ordering& o, gi::SyncKind sync, int threads) {
    gi::TriangularSolve<double, std::int32_t> plan;
    plan.analyze(t.view(), part, unit, gi::ScheduleOptions{gi::Backend::omp, sync, threads, 64}, o.block_ptr);
    const auto b = rhs(t.nrows, 3);
    auto x0 = b, x1 = b;
    ASSERT_EQ((gigasparse::reference::triangular_solve<double, std::int32_t>(t.view(), part, x0, unit)), -1);
    for (int rep = 0; rep < 3; ++rep) {  // the plan is reusable
        x1 = b;
        ASSERT_EQ(plan.solve(x1), -1);
        EXPECT_LE(rel_diff(x0, x1), 1e-12) << gi::to_string(o.kind) << " " << gi::to_string(sync) << " threads " << threads;
    }
    EXPECT_GE(plan.stats().depth, 1);
    EXPECT_LE(plan.stats().depth, plan.stats().row_depth);
}

}  // namespace

TEST(IterativeOrdering, EveryKindIsAPermutationWithConsistentBlocks) {
    const Mat a = gigasparse::test::poisson2d<double, std::int32_t>(40);
    for (const auto k : all_orderings) {
        gi::OrderingOptions oo;
        oo.kind = k;
        const gi::Ordering o = gi::compute_ordering(a.view(), oo);
        if (k == gi::OrderingKind::natural) {
            EXPECT_TRUE(o.perm.empty());
            continue;
        }
        EXPECT_TRUE(is_permutation_of_n(o.perm, a.nrows)) << gi::to_string(k);
        if (!o.block_ptr.empty()) {
            EXPECT_EQ(o.block_ptr.front(), 0);
            EXPECT_EQ(o.block_ptr.back(), a.nrows);
            EXPECT_TRUE(std::is_sorted(o.block_ptr.begin(), o.block_ptr.end()));
        }
    }
    EXPECT_EQ(gi::parse_ordering("mc"), gi::OrderingKind::multicolor);
    EXPECT_THROW(gi::parse_ordering("bogus"), gigasparse::InvalidArgument);
}

TEST(IterativeOrdering, MulticolorGivesRedBlackAnd8ColorsOn27Point) {
    gi::OrderingOptions oo;
    oo.kind = gi::OrderingKind::multicolor;
    EXPECT_EQ(gi::compute_ordering(gigasparse::test::poisson2d<double, std::int32_t>(16).view(), oo).colors, 2);
    EXPECT_EQ(gi::compute_ordering(gigasparse::test::poisson3d<double, std::int32_t>(6, 27).view(), oo).colors, 8);
}

TEST(IterativeSchedule, NaturalLevelSetDepthsOfModelProblems) {
    gi::TriangularSolve<double, std::int32_t> plan;
    const Mat p2 = gigasparse::test::poisson2d<double, std::int32_t>(32);
    plan.analyze(p2.view(), Triangle::lower, false);
    EXPECT_EQ(plan.stats().row_depth, 2 * 32 - 1);
    EXPECT_EQ(plan.stats().depth, 2 * 32 - 1);
    EXPECT_EQ(plan.stats().subgraphs, 32 * 32);
    plan.analyze(p2.view(), Triangle::upper, false);
    EXPECT_EQ(plan.stats().depth, 2 * 32 - 1);
    const Mat p3 = gigasparse::test::poisson3d<double, std::int32_t>(10, 7);
    plan.analyze(p3.view(), Triangle::lower, false);
    EXPECT_EQ(plan.stats().depth, 3 * 10 - 2);
    const Mat p27 = gigasparse::test::poisson3d<double, std::int32_t>(10, 27);
    plan.analyze(p27.view(), Triangle::lower, false);
    EXPECT_EQ(plan.stats().depth, 7 * 10 - 6);
    EXPECT_GT(plan.stats().parallelism, 1.0);
}

TEST(IterativeSchedule, ReorderingsCutTheDepth) {
    const Mat a = gigasparse::test::poisson2d<double, std::int32_t>(64);
    std::int64_t natural_depth = 0;
    for (const auto k : all_orderings) {
        gi::OrderingOptions oo;
        oo.kind = k;
        oo.threads = 2;
        const auto o = gi::compute_ordering(a.view(), oo);
        const Mat b = permuted(a, o);
        gi::TriangularSolve<double, std::int32_t> plan;
        plan.analyze(b.view(), Triangle::lower, false, gi::ScheduleOptions{gi::Backend::omp, gi::SyncKind::point_to_point, 2, 64}, o.block_ptr);
        const auto& s = plan.stats();
        if (k == gi::OrderingKind::natural) natural_depth = s.depth;
        if (k == gi::OrderingKind::multicolor) {
            EXPECT_EQ(s.depth, 2);
        }
        if (k == gi::OrderingKind::abmc) {
            EXPECT_LT(s.depth, natural_depth / 4) << o.description;
        }
        if (k == gi::OrderingKind::dc) {
            EXPECT_LT(s.depth, natural_depth) << o.description;
            EXPECT_LT(s.subgraphs, a.nrows);
            EXPECT_GT(o.separators, 0);
        }
        EXPECT_GT(s.critical_path, 0);
    }
}

TEST(IterativeTriangularSolve, ParallelMatchesSequentialForEveryOrderingAndSync) {
    const Mat a = gigasparse::test::poisson2d<double, std::int32_t>(48);
    for (const auto k : all_orderings) {
        gi::OrderingOptions oo;
        oo.kind = k;
        oo.threads = 3;
        oo.dc_min_leaf = 32;
        const auto o = gi::compute_ordering(a.view(), oo);
        Mat lu = permuted(a, o);
        gi::TriangularSolve<double, std::int32_t> seq;
        seq.analyze(lu.view(), Triangle::lower, true, gi::ScheduleOptions{gi::Backend::reference});
        ASSERT_EQ(gi::ilu0_factorize(lu, seq), -1);
        for (const auto sync : {gi::SyncKind::point_to_point, gi::SyncKind::barrier, gi::SyncKind::sequential})
            for (int threads : {2, 3}) {
                check_plan(lu, Triangle::lower, true, o, sync, threads);
                check_plan(lu, Triangle::upper, false, o, sync, threads);
            }
    }
}

TEST(IterativeTriangularSolve, UnsymmetricRandomAndRelaxedDcSeparators) {
    const Mat a = random_dominant(3000, 11);
    gi::OrderingOptions oo;
    oo.kind = gi::OrderingKind::dc;
    oo.dc_levels = 4;
    oo.dc_relax_from_level = 1;
    oo.dc_min_leaf = 16;
    const auto o = gi::compute_ordering(a.view(), oo);
    EXPECT_GT(o.colors, 0) << o.description;
    const Mat b = permuted(a, o);
    for (int threads : {1, 2, 4}) {
        check_plan(b, Triangle::lower, false, o, gi::SyncKind::point_to_point, threads);
        check_plan(b, Triangle::upper, false, o, gi::SyncKind::point_to_point, threads);
    }
}

TEST(IterativeTriangularSolve, ParallelIlu0AndIc0MatchSequentialFactorization) {
    const Mat a = gigasparse::test::poisson3d<double, std::int32_t>(14, 7);
    for (const auto k : {gi::OrderingKind::natural, gi::OrderingKind::abmc, gi::OrderingKind::dc}) {
        gi::OrderingOptions oo;
        oo.kind = k;
        const auto o = gi::compute_ordering(a.view(), oo);
        const Mat b = permuted(a, o);
        Mat seq = b, par = b;
        gi::TriangularSolve<double, std::int32_t> ps, pp;
        ps.analyze(seq.view(), Triangle::lower, true, gi::ScheduleOptions{gi::Backend::reference});
        pp.analyze(par.view(), Triangle::lower, true, gi::ScheduleOptions{gi::Backend::omp, gi::SyncKind::point_to_point, 2, 64}, o.block_ptr);
        ASSERT_EQ(gi::ilu0_factorize(seq, ps), -1);
        ASSERT_EQ(gi::ilu0_factorize(par, pp), -1);
        EXPECT_TRUE(gigasparse::test::csr_near(seq.view(), par.view(), 1e-14));
        Mat ls = gigasparse::extract_triangle(b.view(), Triangle::lower, true), lp = ls;
        ps.analyze(ls.view(), Triangle::lower, false, gi::ScheduleOptions{gi::Backend::reference});
        pp.analyze(lp.view(), Triangle::lower, false, gi::ScheduleOptions{gi::Backend::omp, gi::SyncKind::barrier, 2, 64}, o.block_ptr);
        ASSERT_EQ(gi::ic0_factorize(ls, ps), -1);
        ASSERT_EQ(gi::ic0_factorize(lp, pp), -1);
        EXPECT_TRUE(gigasparse::test::csr_near(ls.view(), lp.view(), 1e-14));
        // IC(0) = ILU(0) with U = D Lᵀ: l_ii² equals u_ii.
        for (std::int64_t i = 0; i < b.nrows; ++i) {
            const double lii = ls.values[ls.row_ptr[i + 1] - 1];
            double uii = 0;
            for (auto e = seq.row_ptr[i]; e < seq.row_ptr[i + 1]; ++e)
                if (seq.col_idx[e] == i) uii = seq.values[e];
            ASSERT_NEAR(lii * lii, uii, 1e-12 * uii);
        }
    }
}

TEST(IterativeTriangularSolve, ZeroAndMissingDiagonalAreReported) {
    Mat t = gigasparse::test::poisson2d<double, std::int32_t>(20);
    for (auto e = t.row_ptr[57]; e < t.row_ptr[58]; ++e)
        if (t.col_idx[e] == 57) t.values[e] = 0.0;
    for (const auto sync : {gi::SyncKind::point_to_point, gi::SyncKind::sequential}) {
        gi::TriangularSolve<double, std::int32_t> plan;
        plan.analyze(t.view(), Triangle::lower, false, gi::ScheduleOptions{gi::Backend::omp, sync, 2, 16});
        std::vector<double> x(t.nrows, 1.0);
        EXPECT_EQ(plan.solve(x), 57);
        plan.analyze(t.view(), Triangle::upper, false, gi::ScheduleOptions{gi::Backend::omp, sync, 2, 16});
        EXPECT_EQ(plan.solve(x), 57);
    }
    // Missing diagonal: drop the stored diagonal of row 5.
    Mat m = gigasparse::test::poisson2d<double, std::int32_t>(10);
    Mat cut(m.nrows, m.ncols);
    for (std::int64_t i = 0; i < m.nrows; ++i) {
        for (auto e = m.row_ptr[i]; e < m.row_ptr[i + 1]; ++e)
            if (!(i == 5 && m.col_idx[e] == 5)) cut.col_idx.push_back(m.col_idx[e]), cut.values.push_back(m.values[e]);
        cut.row_ptr[i + 1] = static_cast<std::int64_t>(cut.col_idx.size());
    }
    gi::TriangularSolve<double, std::int32_t> plan;
    plan.analyze(cut.view(), Triangle::lower, false);
    std::vector<double> x(cut.nrows, 1.0);
    EXPECT_EQ(plan.solve(x), 5);
    plan.analyze(cut.view(), Triangle::lower, true);  // unit diagonal: fine
    EXPECT_EQ(plan.solve(x), -1);
    for (const auto kind : {gi::PrecondKind::jacobi, gi::PrecondKind::ilu0, gi::PrecondKind::ic0, gi::PrecondKind::sgs}) {
        gi::PrecondOptions po;
        po.kind = kind;
        const auto pc = gi::make_preconditioner(cut.view(), po);
        EXPECT_FALSE(pc->info().status.ok) << gi::to_string(kind);
        EXPECT_EQ(pc->info().status.row, 5) << gi::to_string(kind) << ": " << pc->info().status.message;
    }
}

TEST(IterativeTriangularSolve, MisuseThrows) {
    gi::TriangularSolve<double, std::int32_t> plan;
    std::vector<double> x(4);
    EXPECT_THROW(plan.solve(x), gigasparse::PhaseError);
    const Mat a = gigasparse::test::poisson2d<double, std::int32_t>(4);
    plan.analyze(a.view(), Triangle::lower, false);
    std::vector<double> short_x(3);
    EXPECT_THROW(plan.solve(short_x), gigasparse::DimensionMismatch);
    EXPECT_THROW(plan.analyze(gigasparse::test::unsort_rows(a, 1).view(), Triangle::lower, false), gigasparse::InvalidStructure);
}

// DC on a lexicographic grid: the index split cuts along a straight plane (the separator is one
// full z-plane), the first half keeps the given order, the second runs in reverse toward the
// separator (twisted), and the small exact separator is one sequential subgraph.
TEST(IterativeOrdering, DcIndexSplitIsAStraightTwistedPlane) {
    const std::int64_t n = 20;  // separator 400 rows x 2 threads <= 1/8 of 8000 rows: one sequential block
    const Mat a = gigasparse::test::poisson3d<double, std::int32_t>(n, 7);
    gi::OrderingOptions oo;
    oo.kind = gi::OrderingKind::dc;
    oo.threads = 2;
    oo.dc_min_leaf = 16;
    const auto o = gi::compute_ordering(a.view(), oo);
    ASSERT_TRUE(is_permutation_of_n(o.perm, a.nrows));
    ASSERT_EQ(o.block_ptr.size(), 4u) << o.description;  // half, half, separator block
    EXPECT_EQ(o.separators, 1);
    EXPECT_NE(o.description.find("1 index"), std::string::npos) << o.description;
    const std::int64_t sep_begin = o.block_ptr[2], sep_size = o.block_ptr[3] - o.block_ptr[2];
    EXPECT_EQ(sep_size, n * n);
    const std::int64_t plane = o.perm[sep_begin] / (n * n);
    for (std::int64_t k = sep_begin; k < o.block_ptr[3]; ++k) EXPECT_EQ(o.perm[k] / (n * n), plane);
    EXPECT_TRUE(std::is_sorted(o.perm.begin(), o.perm.begin() + o.block_ptr[1]));
    EXPECT_TRUE(std::is_sorted(o.perm.begin() + o.block_ptr[1], o.perm.begin() + o.block_ptr[2], std::greater<>()));
    EXPECT_LT(o.perm[0], o.perm[o.block_ptr[1] - 1]);
    EXPECT_LT(o.perm[o.block_ptr[1] - 1], o.perm[sep_begin]);  // first half below the plane, second above
    EXPECT_GT(o.perm[o.block_ptr[1]], o.perm[sep_begin]);

    oo.dc_twisted = false;
    const auto untwisted = gi::compute_ordering(a.view(), oo);
    EXPECT_TRUE(std::is_sorted(untwisted.perm.begin() + untwisted.block_ptr[1], untwisted.perm.begin() + untwisted.block_ptr[2]));
    oo.dc_separator_block_fraction = 0;  // separator rows one subgraph each, leveled by the schedule
    EXPECT_EQ(gi::compute_ordering(a.view(), oo).block_ptr.size(), 3u + static_cast<std::size_t>(n * n));
}

// A random numbering has no straight index cut: automatic falls back to METIS, whose separator is
// far smaller; index forced keeps the index cut (valid, just larger).
TEST(IterativeOrdering, DcAutomaticSplitFallsBackToMetisOnScrambledNumbering) {
    const Mat grid = gigasparse::test::poisson2d<double, std::int32_t>(64);
    std::vector<std::int64_t> shuffle(static_cast<std::size_t>(grid.nrows));
    std::iota(shuffle.begin(), shuffle.end(), 0);
    std::shuffle(shuffle.begin(), shuffle.end(), std::mt19937_64(3));
    const Mat a = gigasparse::permute_symmetric(grid.view(), shuffle);
    gi::OrderingOptions oo;
    oo.kind = gi::OrderingKind::dc;
    oo.threads = 2;
    const auto automatic = gi::compute_ordering(a.view(), oo);
    EXPECT_NE(automatic.description.find("1 METIS"), std::string::npos) << automatic.description;
    oo.dc_split = gi::OrderingOptions::DcSplit::index;
    const auto by_index = gi::compute_ordering(a.view(), oo);
    EXPECT_NE(by_index.description.find("1 index"), std::string::npos) << by_index.description;
    EXPECT_TRUE(is_permutation_of_n(automatic.perm, a.nrows));
    EXPECT_TRUE(is_permutation_of_n(by_index.perm, a.nrows));
    const auto sep = [](const gi::Ordering& o) { return o.perm.size() - static_cast<std::size_t>(o.block_ptr[2]); };
    EXPECT_LT(sep(automatic), sep(by_index));
}

// Leaves renumbered by RCM rooted next to the separator: on a 7-point grid every edge keeps its
// direction (both orders run toward the separator along x + y + z), so IC(0) is the same
// preconditioner (same iterations), while consecutive rows of a leaf are rarely coupled (no
// dependency chain in the sweep).
TEST(IterativeOrdering, DcLeafRcmKeepsTheFactorAndBreaksTheChain) {
    const Mat a = gigasparse::test::poisson3d<double, std::int32_t>(20, 7);
    gi::OrderingOptions oo;
    oo.kind = gi::OrderingKind::dc;
    oo.threads = 2;
    oo.dc_min_leaf = 16;
    const auto given = gi::compute_ordering(a.view(), oo);
    oo.dc_leaf_rcm = true;
    const auto rcm = gi::compute_ordering(a.view(), oo);
    ASSERT_TRUE(is_permutation_of_n(rcm.perm, a.nrows));
    ASSERT_EQ(rcm.block_ptr, given.block_ptr);
    // Same rows in every block, and every edge points the same way in both orders.
    std::vector<std::int64_t> pos_g(a.nrows), pos_r(a.nrows);
    for (std::int64_t k = 0; k < a.nrows; ++k) pos_g[given.perm[k]] = k, pos_r[rcm.perm[k]] = k;
    std::int64_t flipped = 0;
    for (std::int64_t i = 0; i < a.nrows; ++i)
        for (auto k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
            if (const std::int64_t j = a.col_idx[k]; j != i && (pos_g[i] < pos_g[j]) != (pos_r[i] < pos_r[j])) ++flipped;
    EXPECT_EQ(flipped, 0);
    // Chain: rows coupled to the row just before them.
    const auto chain = [&](const gi::Ordering& o) {
        std::int64_t c = 0;
        for (std::int64_t k = 1; k < a.nrows; ++k)
            for (auto e = a.row_ptr[o.perm[k]]; e < a.row_ptr[o.perm[k] + 1]; ++e) c += a.col_idx[e] == o.perm[k - 1];
        return double(c) / double(a.nrows);
    };
    EXPECT_GT(chain(given), 0.9);
    EXPECT_LT(chain(rcm), 0.2);
}
