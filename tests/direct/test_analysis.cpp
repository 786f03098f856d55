// tests/direct/test_analysis.cpp: golden tests of the symbolic analysis against brute-force elimination.
#include <algorithm>
#include <numeric>
#include <set>

#include <gtest/gtest.h>

#include <gigasparse/core/error.hpp>
#include <gigasparse/direct/solver.hpp>

#include "direct_test_utils.hpp"

namespace gigasparse::direct {
namespace {

SymmetricPattern pattern_of(const Csr<double, std::int32_t>& a) {
    return symmetric_pattern<std::int32_t>(a.nrows, a.row_ptr, a.col_idx, Structure::spd, MatrixView::full, 0);
}

struct Case {
    std::int64_t n;
    double per_row;
    std::uint64_t seed;
};
const Case cases[] = {{1, 0, 1}, {2, 1, 2}, {7, 2, 3}, {20, 1.5, 4}, {40, 3, 5}, {60, 0.8, 6}, {90, 4, 7}, {120, 2, 8}};

TEST(DirectAnalysis, EtreeAndCountsMatchBruteForce) {
    for (const Case& c : cases)
        for (OrderingAlg alg : {OrderingAlg::natural, OrderingAlg::amd, OrderingAlg::nd}) {
            SCOPED_TRACE("n = " + std::to_string(c.n) + " seed = " + std::to_string(c.seed) + " " + to_string(alg));
            auto a = test::random_hpd<double, std::int32_t>(c.n, c.per_row, c.seed);
            SymmetricPattern p = pattern_of(a);
            std::vector<idx> perm(static_cast<std::size_t>(c.n));
            std::iota(perm.begin(), perm.end(), idx{0});
            if (alg == OrderingAlg::amd) perm = order_amd(p);
            if (alg == OrderingAlg::nd) perm = order_nd(p);
            SymmetricPattern pp = permute_pattern(p, perm);
            auto l = test::brute_force_L(pp);
            std::vector<idx> parent = elimination_tree(pp);
            std::vector<idx> counts = column_counts(pp, parent, postorder(parent));
            for (idx j = 0; j < c.n; ++j) {
                idx expect_parent = -1, expect_count = 0;
                for (idx i = c.n - 1; i >= j; --i)
                    if (l[i][j]) {
                        ++expect_count;
                        if (i > j) expect_parent = i;
                    }
                EXPECT_EQ(parent[j], expect_parent) << "column " << j;
                EXPECT_EQ(counts[j], expect_count) << "column " << j;
            }
        }
}

TEST(DirectAnalysis, PostorderIsTopologicalAndContiguous) {
    auto a = test::random_hpd<double, std::int32_t>(80, 2, 11);
    SymmetricPattern p = pattern_of(a);
    std::vector<idx> parent = elimination_tree(p);
    std::vector<idx> post = postorder(parent);
    std::vector<idx> where(post.size());
    for (std::size_t k = 0; k < post.size(); ++k) where[post[k]] = static_cast<idx>(k);
    std::vector<idx> sorted = post;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t k = 0; k < sorted.size(); ++k) EXPECT_EQ(sorted[k], static_cast<idx>(k));
    for (std::size_t j = 0; j < parent.size(); ++j)
        if (parent[j] != -1) { EXPECT_LT(where[j], where[parent[j]]); }
}

// Checks the supernodal structure of a full analysis against brute-force elimination on P A Pᵀ.
void check_supernodal(const Csr<double, std::int32_t>& a, const DirectOptions& opt, bool fundamental) {
    SymmetricPattern p = pattern_of(a);
    Symbolic s = analyze_pattern(p, Structure::spd, opt, {}, 2);
    const idx n = s.n;
    SymmetricPattern pp = permute_pattern(p, s.perm);
    auto l = test::brute_force_L(pp);
    double nnz = 0;
    for (idx j = 0; j < n; ++j)
        for (idx i = j; i < n; ++i) nnz += l[i][j];
    EXPECT_EQ(s.nnz_L, nnz);
    for (idx j = 0; j < n; ++j) {  // etree and counts of the final numbering
        idx expect_parent = -1, expect_count = 0;
        for (idx i = n - 1; i >= j; --i)
            if (l[i][j]) {
                ++expect_count;
                if (i > j) expect_parent = i;
            }
        EXPECT_EQ(s.parent[j], expect_parent) << "column " << j;
        EXPECT_EQ(s.col_count[j], expect_count) << "column " << j;
    }
    ASSERT_EQ(s.super_ptr.back(), n);
    for (idx sn = 0; sn < s.nsuper; ++sn) {
        idx c0 = s.super_ptr[sn], c1 = s.super_ptr[sn + 1];
        std::set<idx> expect;
        for (idx j = c0; j < c1; ++j) {
            expect.insert(j);
            for (idx i = j; i < n; ++i)
                if (l[i][j]) expect.insert(i);
        }
        std::vector<idx> got(s.rows.begin() + s.rows_ptr[sn], s.rows.begin() + s.rows_ptr[sn + 1]);
        EXPECT_EQ(got, std::vector<idx>(expect.begin(), expect.end())) << "supernode " << sn;
        if (fundamental) {  // rows of a fundamental supernode = pattern of its first column
            idx cnt = 0;
            for (idx i = c0; i < n; ++i) cnt += l[i][c0];
            EXPECT_EQ(s.front_rows(sn), cnt);
        }
        // Parent = supernode of the first row below the columns.
        idx expect_parent = s.front_rows(sn) > s.width(sn) ? s.col_to_sn[got[s.width(sn)]] : -1;
        EXPECT_EQ(s.sn_parent[sn], expect_parent);
        if (s.sn_parent[sn] != -1) {
            idx pr = s.sn_parent[sn];
            for (idx k = 0; k < s.relind_ptr[sn + 1] - s.relind_ptr[sn]; ++k)
                EXPECT_EQ(s.rows[s.rows_ptr[pr] + s.relind[s.relind_ptr[sn] + k]], got[s.width(sn) + k]);
        }
    }
    // Levels and the subtree/top split cover every supernode exactly once.
    std::vector<int> seen(static_cast<std::size_t>(s.nsuper), 0);
    for (idx v : s.subtree_nodes) ++seen[v];
    for (idx v : s.top_nodes) ++seen[v];
    for (int v : seen) EXPECT_EQ(v, 1);
    for (idx sn = 0; sn < s.nsuper; ++sn)
        if (s.sn_parent[sn] != -1) { EXPECT_LT(s.level[sn], s.level[s.sn_parent[sn]]); }
}

TEST(DirectAnalysis, FundamentalSupernodesMatchBruteForce) {
    for (const Case& c : cases) {
        SCOPED_TRACE("n = " + std::to_string(c.n) + " seed = " + std::to_string(c.seed));
        DirectOptions opt;
        opt.ordering = OrderingAlg::amd;
        opt.amalgamation.enabled = false;
        check_supernodal(test::random_hpd<double, std::int32_t>(c.n, c.per_row, c.seed), opt, true);
    }
}

TEST(DirectAnalysis, AmalgamatedSupernodesMatchBruteForce) {
    for (const Case& c : cases)
        for (OrderingAlg alg : {OrderingAlg::amd, OrderingAlg::nd, OrderingAlg::automatic}) {
            SCOPED_TRACE("n = " + std::to_string(c.n) + " seed = " + std::to_string(c.seed));
            DirectOptions opt;
            opt.ordering = alg;
            opt.amalgamation = {8, 0.3, 4, true};
            check_supernodal(test::random_hpd<double, std::int32_t>(c.n, c.per_row, c.seed), opt, false);
        }
}

TEST(DirectAnalysis, AmalgamationRespectsWidthAndZeroBudget) {
    auto a = test::random_hpd<double, std::int32_t>(300, 3, 21);
    SymmetricPattern p = pattern_of(a);
    DirectOptions opt;
    opt.ordering = OrderingAlg::nd;
    opt.amalgamation = {6, 0.2, 2, true};
    Symbolic s = analyze_pattern(p, Structure::spd, opt, {}, 1);
    DirectOptions none = opt;
    none.amalgamation.enabled = false;
    Symbolic f = analyze_pattern(p, Structure::spd, none, {}, 1);
    EXPECT_LE(s.nsuper, f.nsuper);
    EXPECT_LE(static_cast<double>(s.explicit_zeros), 0.2 * s.nnz_L + 1);
    // Explicit zeros = trapezoidal panel entries - nnz(L), exactly.
    double trapezoid = 0;
    for (idx sn = 0; sn < s.nsuper; ++sn) {
        double w = static_cast<double>(s.width(sn)), fr = static_cast<double>(s.front_rows(sn));
        trapezoid += w * fr - w * (w - 1) / 2;
    }
    EXPECT_EQ(trapezoid - s.nnz_L, static_cast<double>(s.explicit_zeros));
}

TEST(DirectAnalysis, AutoChoosesTheCheaperCandidate) {
    auto a = test::random_hpd<double, std::int32_t>(400, 3, 31);
    SymmetricPattern p = pattern_of(a);
    DirectOptions opt;
    opt.auto_nd_ratio = 0;  // evaluate both candidates
    Symbolic s = analyze_pattern(p, Structure::spd, opt, {}, 1);
    ASSERT_EQ(s.candidates.size(), 2u);
    EXPECT_EQ(s.candidates[0].alg, OrderingAlg::amd);
    EXPECT_EQ(s.candidates[1].alg, OrderingAlg::nd);
    OrderingAlg expect = s.candidates[1].cost < s.candidates[0].cost ? OrderingAlg::nd : OrderingAlg::amd;
    EXPECT_EQ(s.ordering_used, expect);
    for (const auto& c : s.candidates)
        EXPECT_DOUBLE_EQ(c.cost, ordering_cost(c.flops, c.sdepth, opt.level_weight));
    // A huge level weight makes the shallower schedule win.
    opt.level_weight = 1e30;
    Symbolic d = analyze_pattern(p, Structure::spd, opt, {}, 1);
    OrderingAlg shallow = d.candidates[1].sdepth < d.candidates[0].sdepth ? OrderingAlg::nd : OrderingAlg::amd;
    EXPECT_EQ(d.ordering_used, shallow);
    // With the default ratio, AMD alone is kept when its flops per factor entry are below it.
    DirectOptions def;
    Symbolic e = analyze_pattern(p, Structure::spd, def, {}, 1);
    if (s.candidates[0].flops < def.auto_nd_ratio * s.candidates[0].nnz_L) {
        EXPECT_EQ(e.candidates.size(), 1u);
        EXPECT_EQ(e.ordering_used, OrderingAlg::amd);
    } else {
        EXPECT_EQ(e.ordering_used, s.ordering_used);
    }
}

TEST(DirectAnalysis, ViewRulesOfTheSymmetricPattern) {
    // A = [1 2 0; 0 3 4; 5 0 6] (stored as is): the entries read depend on structure and view.
    std::vector<std::int64_t> rp{0, 2, 4, 6};
    std::vector<std::int32_t> ci{0, 1, 1, 2, 0, 2};
    auto adj = [&](Structure s, MatrixView v) {
        SymmetricPattern p = symmetric_pattern<std::int32_t>(3, rp, ci, s, v, 0);
        std::vector<std::pair<idx, idx>> e;
        for (idx j = 0; j < 3; ++j)
            for (idx q = p.col_ptr[j]; q < p.col_ptr[j + 1]; ++q) e.push_back({p.row_idx[q], j});
        return e;
    };
    using E = std::vector<std::pair<idx, idx>>;
    EXPECT_EQ(adj(Structure::general, MatrixView::full), (E{{1, 0}, {2, 0}, {0, 1}, {2, 1}, {0, 2}, {1, 2}}));
    EXPECT_EQ(adj(Structure::spd, MatrixView::full), (E{{2, 0}, {0, 2}}));   // lower part: (2,0)
    EXPECT_EQ(adj(Structure::spd, MatrixView::lower), (E{{2, 0}, {0, 2}}));
    EXPECT_EQ(adj(Structure::spd, MatrixView::upper), (E{{1, 0}, {0, 1}, {2, 1}, {1, 2}}));  // (0,1), (1,2)
    // One-based input gives the same pattern.
    std::vector<std::int64_t> rp1{1, 3, 5, 7};
    std::vector<std::int32_t> ci1{1, 2, 2, 3, 1, 3};
    SymmetricPattern p0 = symmetric_pattern<std::int32_t>(3, rp, ci, Structure::general, MatrixView::full, 0);
    SymmetricPattern p1 = symmetric_pattern<std::int32_t>(3, rp1, ci1, Structure::general, MatrixView::full, 1);
    EXPECT_EQ(p0.row_idx, p1.row_idx);
    EXPECT_EQ(p0.col_ptr, p1.col_ptr);
}

TEST(DirectAnalysis, BadInputIsATypedError) {
    std::vector<std::int64_t> rp{0, 2, 3};
    std::vector<std::int32_t> ci{0, 5, 1};
    EXPECT_THROW(symmetric_pattern<std::int32_t>(2, rp, ci, Structure::spd, MatrixView::full, 0), InvalidStructure);
    std::vector<std::int64_t> perm{0, 0};
    EXPECT_THROW(validate_user_permutation(perm, 2, 0), InvalidArgument);
    std::vector<std::int64_t> perm1{2, 1};
    EXPECT_EQ(validate_user_permutation(perm1, 2, 1), (std::vector<idx>{1, 0}));
    EXPECT_THROW(validate_user_permutation(perm1, 3, 1), DimensionMismatch);
}

TEST(DirectAnalysis, UserPermutationIsHonoured) {
    auto a = test::random_hpd<double, std::int32_t>(50, 3, 41);
    std::vector<std::int64_t> perm(50);
    for (std::int64_t k = 0; k < 50; ++k) perm[k] = (k * 7) % 50 + 1;  // one-based
    DirectSolver<double, std::int32_t> s;
    s.set_option("index_base", "0");
    s.set_user_permutation(perm);
    EXPECT_THROW(s.analyze(a), InvalidArgument);  // 1-based perm with base 0: 50 is out of range
    for (auto& v : perm) --v;
    s.set_user_permutation(perm);
    s.analyze(a);
    EXPECT_EQ(s.ordering_used(), "user");
    // The final permutation is the user's up to the equivalent (postorder/amalgamation) renumbering:
    // the fill is that of the user's order.
    SymmetricPattern p = pattern_of(a);
    std::vector<idx> up(perm.begin(), perm.end());
    SymmetricPattern pp = permute_pattern(p, up);
    auto parent = elimination_tree(pp);
    auto counts = column_counts(pp, parent, postorder(parent));
    EXPECT_EQ(s.result("nnz_L"), static_cast<double>(std::accumulate(counts.begin(), counts.end(), idx{0})));
}

}  // namespace
}  // namespace gigasparse::direct
