// tests/direct/test_condition.cpp: what the factors tell about A⁻¹ — condition_estimate() (κ₁ through Higham and
// Tisseur's block estimator and solves with A and Aᴴ) against the exact ||A||_1 ||A⁻¹||_1, and the selected inverse / diagonal
// of A⁻¹ (Takahashi's equations) against the entries of A⁻¹, both from a dense Gauss–Jordan inverse.
#include <cmath>
#include <complex>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>
#include <gigasparse/direct/solver.hpp>
#include <gigasparse/gen/generators.hpp>
#include <gigasparse/io/matrix_market.hpp>

#include "direct_test_utils.hpp"
#include "utils/test_utils.hpp"

namespace gigasparse::direct {
namespace {

using C = std::complex<double>;

// Dense A⁻¹ (row-major, complex double) of the full CSR matrix by Gauss–Jordan with partial pivoting, and
// ||A||_1 in `anorm1`.
template <class V, class I>
std::vector<C> dense_inverse(const Csr<V, I>& a, double& anorm1) {
    const std::int64_t n = a.nrows;
    std::vector<C> m(static_cast<std::size_t>(n * n), C(0)), inv(m.size(), C(0));
    std::vector<double> colsum(static_cast<std::size_t>(n), 0.0);
    for (std::int64_t i = 0; i < n; ++i)
        for (auto k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
            m[i * n + a.col_idx[k]] += C(a.values[k]);
            colsum[a.col_idx[k]] += std::abs(a.values[k]);
        }
    for (std::int64_t i = 0; i < n; ++i) inv[i * n + i] = 1;
    for (std::int64_t c = 0; c < n; ++c) {
        std::int64_t p = c;
        for (std::int64_t r = c + 1; r < n; ++r)
            if (std::abs(m[r * n + c]) > std::abs(m[p * n + c])) p = r;
        for (std::int64_t j = 0; j < n; ++j) std::swap(m[c * n + j], m[p * n + j]), std::swap(inv[c * n + j], inv[p * n + j]);
        const C d = m[c * n + c];
        for (std::int64_t j = 0; j < n; ++j) m[c * n + j] /= d, inv[c * n + j] /= d;
        for (std::int64_t r = 0; r < n; ++r) {
            if (r == c) continue;
            const C f = m[r * n + c];
            if (f == C(0)) continue;
            for (std::int64_t j = 0; j < n; ++j) m[r * n + j] -= f * m[c * n + j], inv[r * n + j] -= f * inv[c * n + j];
        }
    }
    anorm1 = *std::max_element(colsum.begin(), colsum.end());
    return inv;
}

// Exact κ₁: ||A||_1 times the largest column sum of |A⁻¹|.
template <class V, class I>
double exact_condition(const Csr<V, I>& a) {
    const std::int64_t n = a.nrows;
    double anorm1 = 0;
    const std::vector<C> inv = dense_inverse(a, anorm1);
    double inv1 = 0;
    for (std::int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (std::int64_t i = 0; i < n; ++i) s += std::abs(inv[i * n + j]);
        inv1 = std::max(inv1, s);
    }
    return anorm1 * inv1;
}

template <class V>
void expect_estimate(const Csr<V, std::int32_t>& a, Structure st, MatrixView view, const std::string& what) {
    SCOPED_TRACE(what);
    DirectSolver<V, std::int32_t> s(st, view);
    EXPECT_THROW(s.condition_estimate(), PhaseError);
    s.analyze(a);
    ASSERT_EQ(s.factorize(a), Status::success);
    const double est = s.condition_estimate(), exact = exact_condition(a);
    // a lower bound of the exact value up to rounding, and within a factor of 10 of it
    const double slack = std::is_same_v<real_t<V>, float> ? 1e-3 : 1e-9;
    EXPECT_LE(est, exact * (1 + slack)) << est << " vs " << exact;
    EXPECT_GE(est, exact / 10) << est << " vs " << exact;
}

TEST(Condition, EveryStructureAndValueType) {
    const std::int64_t n = 90;
    expect_estimate(test::random_hpd<double, std::int32_t>(n, 5, 1), Structure::spd, MatrixView::lower, "spd double");
    expect_estimate(test::random_hpd<C, std::int32_t>(n, 5, 2), Structure::hpd, MatrixView::lower, "hpd complex");
    expect_estimate(test::random_indefinite<double, std::int32_t>(n, 5, 3, true, 0.2), Structure::symmetric, MatrixView::lower,
                    "symmetric indefinite double");
    expect_estimate(test::random_indefinite<C, std::int32_t>(n, 5, 4, true, 0.2), Structure::hermitian, MatrixView::lower,
                    "hermitian complex");
    expect_estimate(test::random_indefinite<C, std::int32_t>(n, 5, 15, false, 0.2), Structure::symmetric, MatrixView::lower,
                    "complex symmetric");
    expect_estimate(test::random_general<double>(n, 4, 6), Structure::general, MatrixView::full, "general double");
    expect_estimate(test::random_general<float>(n, 4, 7), Structure::general, MatrixView::full, "general float");
    expect_estimate(test::random_general<C>(n, 4, 8), Structure::general, MatrixView::full, "general complex");
    expect_estimate(test::random_general<std::complex<float>>(n, 4, 9), Structure::general, MatrixView::full, "general complex float");
}

TEST(Condition, IllConditionedAndSchur) {
    // A bidiagonal matrix with a large coupling: κ₁ grows like 1e8, and the estimate follows it.
    const std::int64_t n = 40;
    Csr<double, std::int32_t> a(n, n);
    for (std::int64_t i = 0; i < n; ++i) {
        a.col_idx.push_back(static_cast<std::int32_t>(i));
        a.values.push_back(i == n / 2 ? 1e-8 : 1.0);
        if (i + 1 < n) a.col_idx.push_back(static_cast<std::int32_t>(i + 1)), a.values.push_back(0.9);
        a.row_ptr[i + 1] = static_cast<std::int32_t>(a.values.size());
    }
    expect_estimate(a, Structure::general, MatrixView::full, "bidiagonal");
    DirectSolver<double, std::int32_t> s(Structure::general);
    s.set_schur_indices(std::vector<std::int64_t>{3, 17, 39});
    s.analyze(a);
    ASSERT_EQ(s.factorize(a), Status::success);
    const double exact = exact_condition(a), est = s.condition_estimate();
    EXPECT_GT(exact, 1e8);
    EXPECT_LE(est, exact * (1 + 1e-6));
    EXPECT_GE(est, exact / 10);
}

TEST(Condition, SharedNearlySingularMatrix) {
    // nnc1374: κ₂ ≈ 3.7e14 (numpy.linalg.cond); its static-pivoting factor cannot be refined (test_lu.cpp), and
    // the estimate tells the user why.
    auto manifest = gigasparse::test::read_manifest();
    if (manifest.empty()) GTEST_SKIP() << "no ../shared/matrices";
    auto a = io::read_mtx<double, std::int32_t>(gigasparse::test::matrix_dir() + "/nnc1374.mtx.gz");
    DirectSolver<double, std::int32_t> s(Structure::general);
    s.set_option("matching", "0");  // the factor whose solves refine to 1e-16
    s.analyze(a);
    ASSERT_EQ(s.factorize(a), Status::success);
    EXPECT_GT(s.condition_estimate(), 1e13);
}

TEST(Condition, TieOfTheOneVectorEstimator) {
    // cage8 is column-stochastic (A⁻ᵀ 1 = 1): LAPACK's one-vector xLACN2 met a tie in its second step and returned
    // 20.2 on our factor for κ₁ = 58.24; the block estimator's second column finds the exact value.
    auto manifest = gigasparse::test::read_manifest();
    if (manifest.empty()) GTEST_SKIP() << "no ../shared/matrices";
    auto a = io::read_mtx<double, std::int32_t>(gigasparse::test::matrix_dir() + "/cage8.mtx.gz");
    DirectSolver<double, std::int32_t> s(Structure::general);
    s.analyze(a);
    ASSERT_EQ(s.factorize(a), Status::success);
    // κ₁ = 58.23840962731686 by numpy.linalg.cond(A, 1) (dense LAPACK inverse; a dense inverse here would cost
    // seconds under the sanitizers)
    EXPECT_NEAR(s.condition_estimate(), 58.23840962731686, 1e-8 * 58.24);
}

std::int64_t two_by_two_seen = 0;  // 2×2 pivots met by check_selected_inverse

// The selected inverse equals A⁻¹ on the factor's pattern (which holds Aᵀ's), its diagonal is A⁻¹'s, for both
// orderings and with the blocked front kernel.
std::int64_t lu_diagonal_off_pattern = 0;  // LU: diagonal entries of A⁻¹ that inverse_diagonal() solved for
template <class V>
void check_selected_inverse(const Csr<V, std::int32_t>& a, Structure st, const char* ordering, const char* blocked_rows,
                            bool delays = false) {
    SCOPED_TRACE(std::string(ordering) + " blocked_front_rows " + blocked_rows + (delays ? " delayed pivots" : ""));
    const bool lu = st == Structure::general;
    DirectSolver<V, std::int32_t> s(st, lu ? MatrixView::full : MatrixView::lower);
    s.set_option("ordering", ordering);
    s.set_option("blocked_front_rows", blocked_rows);
    if (delays) s.set_option("matching", "0"), s.set_option("delayed_pivots", "8");  // zero diagonals unmatched
    s.analyze(a);
    ASSERT_EQ(s.factorize(a), Status::success);
    if (delays) {
        ASSERT_GT(s.result("delayed_pivots"), 0);  // the factor's structure is not the analysis'
    }
    const std::int64_t n = a.nrows;
    double anorm1 = 0;
    const std::vector<C> inv = dense_inverse(a, anorm1);
    double scale = 0;
    for (const C& v : inv) scale = std::max(scale, std::abs(v));
    const double tol = (std::is_same_v<real_t<V>, float> ? 1e-4 : 1e-11) * scale;
    const bool ldlt = st == Structure::symmetric || st == Structure::hermitian;
    SCOPED_TRACE("2x2 pivots " + std::to_string(ldlt ? s.result("two_by_two_pivots") : 0.0));
    if (ldlt || lu) {  // a perturbed pivot: the inverse of another matrix
        ASSERT_EQ(s.result("perturbed_pivots"), 0);
    }
    if (ldlt) two_by_two_seen += static_cast<std::int64_t>(s.result("two_by_two_pivots"));
    const Csr<V, std::int64_t> z = s.selected_inverse();
    ASSERT_EQ(z.nrows, n);
    ASSERT_TRUE((rows_sorted<V, std::int64_t>(z)));
    // the panels' pattern (L's entries and the explicit zeros amalgamation stored), both triangles (LU: the
    // diagonal blocks whole)
    std::int64_t entries = 0;
    for (idx sn = 0; sn < s.symbolic().nsuper; ++sn) {
        const std::int64_t w = s.symbolic().width(sn), f = s.symbolic().front_rows(sn);
        entries += w * w + 2 * (f - w) * w;
    }
    EXPECT_EQ(static_cast<std::int64_t>(z.values.size()), entries);
    double worst = 0;
    for (std::int64_t i = 0; i < n; ++i)
        for (auto k = z.row_ptr[i]; k < z.row_ptr[i + 1]; ++k)
            worst = std::max(worst, std::abs(C(z.values[k]) - inv[i * n + z.col_idx[k]]));
    EXPECT_LE(worst, tol);
    for (std::int64_t i = 0; i < n; ++i)  // Aᵀ's pattern is inside the selected one (A's for the symmetric structures)
        for (auto k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
            const auto j = a.col_idx[k];
            const auto* b = z.col_idx.data() + z.row_ptr[j];
            const auto* e = z.col_idx.data() + z.row_ptr[j + 1];
            EXPECT_TRUE(std::binary_search(b, e, i)) << j << " " << i;
        }
    for (std::int64_t i = 0; lu && i < n; ++i)
        lu_diagonal_off_pattern += !std::binary_search(z.col_idx.data() + z.row_ptr[i], z.col_idx.data() + z.row_ptr[i + 1], i);
    const std::vector<V> d = s.inverse_diagonal();
    ASSERT_EQ(static_cast<std::int64_t>(d.size()), n);
    double dworst = 0;
    for (std::int64_t i = 0; i < n; ++i) dworst = std::max(dworst, std::abs(C(d[i]) - inv[i * n + i]));
    EXPECT_LE(dworst, tol);
}

TEST(SelectedInverse, MatchesTheDenseInverse) {
    for (const char* ord : {"amd", "nd"})
        for (const char* blocked : {"1024", "0"}) {
            check_selected_inverse(test::random_hpd<double, std::int32_t>(150, 6, 21), Structure::spd, ord, blocked);
            check_selected_inverse(test::random_hpd<C, std::int32_t>(120, 5, 22), Structure::hpd, ord, blocked);
            check_selected_inverse(test::random_hpd<float, std::int32_t>(100, 5, 23), Structure::spd, ord, blocked);
        }
    auto lap = gen::poisson2d<double, std::int32_t>(14, 14);  // wide separator supernodes near the root
    check_selected_inverse(lap, Structure::spd, "nd", "1024");
}

TEST(SelectedInverse, IndefiniteWithPivotingInsideTheSupernodes) {
    // LDLᵀ / LDLᴴ: Bunch–Kaufman 1×1 and 2×2 pivots exchange the variables of a supernode; Z stays in the
    // analysis order the descendants' rows point to.
    two_by_two_seen = 0;
    for (const char* ord : {"amd", "nd"}) {
        auto sym = test::random_indefinite<double, std::int32_t>(150, 6, 31, true, 0.3);
        check_selected_inverse(sym, Structure::symmetric, ord, "1024");
        check_selected_inverse(test::random_indefinite<C, std::int32_t>(120, 5, 32, true, 0.15), Structure::hermitian, ord, "1024");
        check_selected_inverse(test::random_indefinite<C, std::int32_t>(120, 5, 33, false, 0.15), Structure::symmetric, ord, "0");
        check_selected_inverse(test::random_indefinite<float, std::int32_t>(100, 5, 34, true, 0.3), Structure::symmetric, ord, "1024");
    }
    gen::KktOptions o;
    o.n = 120, o.m = 40, o.delta = 0;  // a zero (2,2) block: 2×2 pivots of the analysis pairs
    auto kkt = gen::kkt<double, std::int32_t>(o);
    check_selected_inverse(kkt, Structure::symmetric, "amd", "1024");
    EXPECT_GT(two_by_two_seen, 20);
}

TEST(SelectedInverse, LuThroughTheMatchingAndThePivotingInsideTheSupernodes) {
    // M = R A C (the matching's row permutation, its scalings, the ordering) = L̃ U with rows pivoted inside
    // each supernode: Z = A⁻¹ through both; zero diagonals of A put some of A⁻¹'s diagonal off the pattern.
    lu_diagonal_off_pattern = 0;
    for (const char* ord : {"amd", "nd"}) {
        check_selected_inverse(test::random_general<double>(150, 5, 41, 0.3), Structure::general, ord, "1024");
        check_selected_inverse(test::random_general<double>(140, 6, 42, 0.0), Structure::general, ord, "0");
        auto cd = gen::convection_diffusion<double, std::int32_t>(12, 12, 1, 40.0, 10.0, 0.0);
        check_selected_inverse(cd, Structure::general, ord, "1024");
        check_selected_inverse(test::random_general<C>(120, 5, 43, 0.2), Structure::general, ord, "1024");
        check_selected_inverse(test::random_general<float>(100, 5, 44, 0.2), Structure::general, ord, "0");
        check_selected_inverse(test::random_general<double>(150, 2, 1, 0.85), Structure::general, ord, "1024", true);
    }
    EXPECT_GT(lu_diagonal_off_pattern, 0);
}

TEST(SelectedInverse, SubtreesSideBySideGiveTheSameInverse) {
    // The supernodes below the analysis' parallel subtrees run on several threads; the result must not change.
    for (Structure st : {Structure::spd, Structure::general}) {
        SCOPED_TRACE(to_string(st));
        auto a = st == Structure::spd ? gen::poisson3d<double, std::int32_t>(24, 24, 24)
                                      : gen::convection_diffusion<double, std::int32_t>(20, 20, 20, 5.0, 1.0, 0.5);
        std::vector<double> first;
        for (const char* threads : {"1", "2", "3"}) {
            DirectSolver<double, std::int32_t> s(st, st == Structure::spd ? MatrixView::lower : MatrixView::full);
            s.set_option("threads", "2");  // one analysis: the same subtrees for every run
            s.analyze(a);
            ASSERT_EQ(s.factorize(a), Status::success);
            ASSERT_GT(s.symbolic().subtree_root.size(), 1u);
            s.set_option("threads", threads);
            const std::vector<double> d = s.inverse_diagonal();
            if (first.empty()) first = d;
            double worst = 0;
            for (std::size_t i = 0; i < d.size(); ++i) worst = std::max(worst, std::abs(d[i] - first[i]) / std::abs(first[i]));
            EXPECT_LE(worst, 1e-13) << threads << " threads";
        }
    }
}

TEST(SelectedInverse, RefusesWhatItDoesNotCover) {
    auto a = test::random_general<double>(50, 4, 3);
    DirectSolver<double, std::int32_t> s(Structure::general);
    EXPECT_THROW(s.inverse_diagonal(), PhaseError);
    auto h = test::random_hpd<double, std::int32_t>(50, 4, 4);
    DirectSolver<double, std::int32_t> p(Structure::spd, MatrixView::lower);
    p.set_schur_indices(std::vector<std::int64_t>{1, 2});
    p.analyze(h);
    ASSERT_EQ(p.factorize(h), Status::success);
    EXPECT_THROW(p.selected_inverse(), NotSupported);
}

}  // namespace
}  // namespace gigasparse::direct
