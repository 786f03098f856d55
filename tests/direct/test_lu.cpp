// tests/direct/test_lu.cpp: LU of general matrices — the identity (Dr A Dc)(p, q) = L U checked entrywise
// against |L||U|, the maximum-product matching, solves on random, structurally tricky and real
// unsymmetric matrices, failures as status, and thread-count independence.
#include <cmath>
#include <complex>
#include <limits>
#include <random>
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

using test::random_general;

template <class V, class I>
double lu_error(const DirectSolver<V, I>& s, const Csr<V, I>& a) {
    const std::int64_t n = a.nrows;
    const auto A = test::dense_of(a), L = test::dense_of(s.factor_L()), U = test::dense_of(s.factor_U());
    const auto p = s.row_permutation(), q = s.factor_permutation();
    const auto dr = s.row_scaling(), dc = s.scaling();
    double worst = 0;
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            V prod(0);
            double bound = 0;
            for (std::int64_t k = 0; k <= std::min(i, j); ++k) {
                prod += L[i + k * n] * U[k + j * n];
                bound += std::abs(L[i + k * n]) * std::abs(U[k + j * n]);
            }
            V aij = A[p[i] + q[j] * n];
            if (!dr.empty()) aij *= static_cast<real_t<V>>(dr[p[i]] * dc[q[j]]);
            const double e = std::abs(aij - prod);
            if (bound == 0) {
                if (e != 0) return std::numeric_limits<double>::infinity();
                continue;
            }
            worst = std::max(worst, e / bound);
        }
    return worst;
}

template <class V>
void check_lu_identity() {
    for (std::int64_t n : {1, 3, 40, 200}) {
        for (const char* ord : {"amd", "nd", "natural"}) {
            for (const char* matching : {"1", "0"}) {
                SCOPED_TRACE("n " + std::to_string(n) + " " + ord + " matching " + matching);
                auto a = random_general<V>(n, 3, 7 + static_cast<std::uint64_t>(n), std::string(matching) == "1" ? 0.3 : 0.0);
                DirectSolver<V, std::int32_t> s(Structure::general);
                s.set_option("ordering", ord);
                s.set_option("matching", matching);
                s.set_option("pivot_perturbation", "0");
                s.set_option("pivot_block", "8");  // several blocks per front
                s.analyze(a);
                ASSERT_EQ(s.factorize(a), Status::success);
                const double eps = static_cast<double>(std::numeric_limits<real_t<V>>::epsilon());
                EXPECT_LE(lu_error(s, a), 8.0 * static_cast<double>(n + 1) * eps);
                EXPECT_EQ(s.result("perturbed_pivots"), 0);
            }
        }
    }
}

TEST(Lu, FactorizationIdentityDouble) { check_lu_identity<double>(); }
TEST(Lu, FactorizationIdentityFloat) { check_lu_identity<float>(); }
TEST(Lu, FactorizationIdentityComplex) { check_lu_identity<std::complex<double>>(); }

TEST(Lu, MatchingPutsTheLargestProductOnTheDiagonal) {
    // A permutation matrix times a diagonal, plus small noise: the matching recovers the permutation, and
    // the scaled matched entries are 1 with every other entry at most 1.
    const std::int64_t n = 60;
    auto a = random_general<double>(n, 2, 3, 1.0);  // no diagonal: entries 3 +- 1 on the permutation
    RowMatching m = max_product_matching<double, std::int32_t>(n, a.row_ptr, a.col_idx, a.values, 0);
    EXPECT_EQ(m.unmatched, 0);
    std::vector<char> used(static_cast<std::size_t>(n), 0);
    for (std::int64_t j = 0; j < n; ++j) {
        ASSERT_GE(m.row_of_col[j], 0);
        EXPECT_FALSE(used[m.row_of_col[j]]);
        used[m.row_of_col[j]] = 1;
    }
    for (std::int64_t i = 0; i < n; ++i)
        for (auto k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
            const auto j = a.col_idx[k];
            const double v = std::abs(a.values[k]) * m.row_scale[i] * m.col_scale[j];
            EXPECT_LE(v, 1.0 + 1e-12);
            if (m.row_of_col[j] == i) {
                EXPECT_NEAR(v, 1.0, 1e-12);
            }
        }
    // Structurally singular: a zero column leaves one column unmatched.
    Csr<double, std::int32_t> z(2, 2);
    z.row_ptr = {0, 2, 3};
    z.col_idx = {0, 1, 1};
    z.values = {1.0, 2.0, 3.0};
    Csr<double, std::int32_t> zs(2, 2);  // column 0 empty
    zs.row_ptr = {0, 1, 2};
    zs.col_idx = {1, 1};
    zs.values = {1.0, 2.0};
    EXPECT_EQ((max_product_matching<double, std::int32_t>(2, z.row_ptr, z.col_idx, z.values, 0).unmatched), 0);
    EXPECT_EQ((max_product_matching<double, std::int32_t>(2, zs.row_ptr, zs.col_idx, zs.values, 0).unmatched), 1);
}

TEST(Lu, SolvesReachBackwardErrorForEveryType) {
    auto run = [](auto tag) {
        using V = decltype(tag);
        for (std::int64_t nrhs : {1, 3}) {
            auto a = random_general<V>(500, 4, 11);
            DirectSolver<V, std::int32_t> s(Structure::general);
            s.analyze(a);
            ASSERT_EQ(s.factorize(a), Status::success);
            auto b = gigasparse::test::random_vector<V>(500 * nrhs, 5);
            std::vector<V> x(b.size());
            SolveInfo info = s.solve(b, x, nrhs);
            EXPECT_LE(info.backward_error, 64 * static_cast<double>(std::numeric_limits<real_t<V>>::epsilon()));
        }
    };
    run(double{});
    run(float{});
    run(std::complex<double>{});
    run(std::complex<float>{});
}

TEST(Lu, ConvectionDiffusionAndSameBitsOnAnyThreadCount) {
    auto a = gen::convection_diffusion<double, std::int32_t>(40, 40, 12, 40.0, 10.0, 5.0);
    test::expect_thread_independent(a, Structure::general, a.values, 1e-15);
}

TEST(Lu, SingularAndNanAreStatus) {
    // [[1, 1], [1, 1]]: singular; perturbation off -> zero_pivot, on -> success with a perturbed pivot.
    Csr<double, std::int32_t> a(2, 2);
    a.row_ptr = {0, 2, 4};
    a.col_idx = {0, 1, 0, 1};
    a.values = {1.0, 1.0, 1.0, 1.0};
    DirectSolver<double, std::int32_t> s(Structure::general);
    s.set_option("pivot_perturbation", "0");
    s.analyze(a);
    EXPECT_EQ(s.factorize(a), Status::zero_pivot);
    EXPECT_GE(s.result("failing_column"), 0);
    DirectSolver<double, std::int32_t> p(Structure::general);
    p.analyze(a);
    ASSERT_EQ(p.factorize(a), Status::success);
    EXPECT_EQ(p.result("perturbed_pivots"), 1);
    auto b = a;
    b.values[2] = std::numeric_limits<double>::quiet_NaN();
    EXPECT_EQ(p.refactorize(b.values), Status::zero_pivot);
    EXPECT_THROW(p.factor_U(), PhaseError);
}

TEST(Lu, InaccurateSolveIsNotConvergedStatus) {
    // diag(0.005, 1), no matching or scaling, perturbation threshold 0.01: the first pivot is factored as 0.01,
    // so the unrefined solution has backward error ~0.3 and each refinement step halves the error.
    Csr<double, std::int32_t> a(2, 2);
    a.row_ptr = {0, 1, 2};
    a.col_idx = {0, 1};
    a.values = {0.005, 1.0};
    DirectSolver<double, std::int32_t> s(Structure::general);
    s.set_option("matching", "0");
    s.set_option("pivot_perturbation", "0.01");
    s.analyze(a);
    ASSERT_EQ(s.factorize(a), Status::success);
    EXPECT_EQ(s.result("perturbed_pivots"), 1);
    std::vector<double> b = {1.0, 1.0}, x(2);
    for (const char* steps : {"0", "2", "10"}) {
        s.set_option("refinement_steps", steps);
        const SolveInfo info = s.solve(b, x);
        EXPECT_EQ(info.status, Status::not_converged) << steps << " steps: " << info.backward_error;
        EXPECT_GT(info.backward_error, 1.5e-8);
    }
    s.set_option("refinement_steps", "80");
    const SolveInfo info = s.solve(b, x);
    EXPECT_EQ(info.status, Status::success) << info.backward_error;
    EXPECT_NEAR(x[0], 200.0, 1e-10);
}

TEST(Lu, SharedUnsymmetricMatrices) {
    auto manifest = gigasparse::test::read_manifest();
    if (manifest.empty()) GTEST_SKIP() << "no ../shared/matrices";
    int done = 0;
    for (const auto& e : manifest) {
        if (e.kind != "unsym" || e.field == "pattern" || e.nrows != e.ncols || e.nrows > 20000) continue;
        SCOPED_TRACE(e.name);
        auto a = io::read_mtx<double, std::int32_t>(gigasparse::test::matrix_dir() + "/" + e.file);
        DirectSolver<double, std::int32_t> s(Structure::general);
        s.set_option("refinement_steps", "10");
        s.analyze(a);
        ASSERT_EQ(s.factorize(a), Status::success);
        std::vector<double> b(static_cast<std::size_t>(a.nrows), 1.0), x(b.size());
        SolveInfo info = s.solve(b, x);
        if (e.name == "nnc1374") {
            // κ ≈ 4e14 and a structure where pivoting inside the fronts meets exact zeros: 41 pivots are
            // perturbed and refinement does not converge (PARDISO perturbs 85 and its residual is 1e32,
            // MUMPS stops with an error; docs/performance/direct-cpu.md). Static pivoting's known limit.
            EXPECT_GT(s.result("perturbed_pivots"), 0);
            EXPECT_EQ(info.status, Status::not_converged) << info.backward_error;  // said, not hidden
            continue;
        }
        EXPECT_EQ(info.status, Status::success);
        EXPECT_LE(info.backward_error, 1e-13) << e.name << ": " << info.refinement_steps << " steps, "
                                              << s.result("perturbed_pivots") << " perturbed pivots";
        ++done;
    }
    EXPECT_GT(done, 0);
}

}  // namespace
}  // namespace gigasparse::direct
