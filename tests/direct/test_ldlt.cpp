// tests/direct/test_ldlt.cpp: LDLᵀ / LDLᴴ with Bunch–Kaufman pivoting in the fronts — the factorization
// identity Q A Qᵀ = L D Lᴴ checked entrywise against a dense product, the inertia against LAPACK's
// eigenvalues, solves, pivot perturbation, failures as status, and thread-count independence.
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

extern "C" {
void dsyev_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w, double* work,
            const int* lwork, int* info, std::size_t, std::size_t);
void zheev_(const char* jobz, const char* uplo, const int* n, void* a, const int* lda, double* w, void* work,
            const int* lwork, double* rwork, int* info, std::size_t, std::size_t);
}

namespace gigasparse::direct {
namespace {

template <class V>
V cj(V x, bool herm) {
    if constexpr (is_complex_v<V>)
        return herm ? std::conj(x) : x;
    else
        return x;
}

// max_ij |(Q S A S Qᵀ - L D Lᴴ)_ij| / (|L| |D| |L|ᴴ)_ij (entries where the bound is 0 must match exactly).
template <class V, class I>
double factorization_error(const DirectSolver<V, I>& s, const Csr<V, I>& a, bool herm) {
    const std::int64_t n = a.nrows;
    const auto A = test::dense_of(a);
    const auto L = test::dense_of(s.factor_L());
    const auto D = test::dense_of(s.factor_D());
    const auto q = s.factor_permutation();
    std::vector<V> LD(static_cast<std::size_t>(n * n), V(0));
    std::vector<double> aLD(static_cast<std::size_t>(n * n), 0.0);
    for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t k = 0; k < n; ++k) {
            const V d = D[k + j * n];
            if (d == V(0)) continue;
            for (std::int64_t i = 0; i < n; ++i) {
                LD[i + j * n] += L[i + k * n] * d;
                aLD[i + j * n] += std::abs(L[i + k * n]) * std::abs(d);
            }
        }
    double worst = 0;
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j <= i; ++j) {
            V p(0);
            double bound = 0;
            for (std::int64_t k = 0; k <= j; ++k) {
                p += LD[i + k * n] * cj(L[j + k * n], herm);
                bound += aLD[i + k * n] * std::abs(L[j + k * n]);
            }
            const auto sc = s.scaling();
            const V aij = sc.empty() ? A[q[i] + q[j] * n]
                                     : A[q[i] + q[j] * n] * static_cast<real_t<V>>(sc[q[i]] * sc[q[j]]);
            const double e = std::abs(aij - p);
            if (bound == 0) {
                if (e != 0) return std::numeric_limits<double>::infinity();
                continue;
            }
            worst = std::max(worst, e / bound);
        }
    return worst;
}

template <class V>
constexpr double eps_of() {
    return static_cast<double>(std::numeric_limits<real_t<V>>::epsilon());
}

template <class V>
void check_identity(bool herm) {
    const Structure st = herm ? Structure::hermitian : Structure::symmetric;
    for (std::int64_t n : {1, 2, 7, 60, 250}) {
        for (const char* ord : {"amd", "nd", "natural"}) {
            for (const char* block : {"2", "3", "64"}) {
                SCOPED_TRACE("n " + std::to_string(n) + " " + ord + " block " + block);
                // No exact zero on the diagonal: a column eliminated alone with a zero pivot would fail (perturbation off).
                auto a = test::random_indefinite<V, std::int32_t>(n, 5.0, 11 + static_cast<std::uint64_t>(n), herm);
                DirectSolver<V, std::int32_t> s(st);
                s.set_option("ordering", ord);
                s.set_option("pivot_block", block);
                s.set_option("pivot_perturbation", "0");
                s.analyze(a);
                ASSERT_EQ(s.factorize(a), Status::success);
                EXPECT_LE(factorization_error(s, a, herm), 8.0 * static_cast<double>(n + 1) * eps_of<V>());
                if (n >= 250 && std::string(block) == "64") {
                    EXPECT_GT(s.result("two_by_two_pivots"), 0);
                }
                EXPECT_EQ(s.result("perturbed_pivots"), 0);
            }
        }
    }
}

TEST(Ldlt, FactorizationIdentityDouble) { check_identity<double>(true); }
TEST(Ldlt, FactorizationIdentityFloat) { check_identity<float>(true); }
TEST(Ldlt, FactorizationIdentityComplexHermitian) { check_identity<std::complex<double>>(true); }
TEST(Ldlt, FactorizationIdentityComplexSymmetric) { check_identity<std::complex<double>>(false); }
TEST(Ldlt, FactorizationIdentityComplexFloatSymmetric) { check_identity<std::complex<float>>(false); }

// Inertia of the dense matrix from LAPACK's eigenvalues.
Inertia lapack_inertia(std::vector<double> a, int n) {
    std::vector<double> w(static_cast<std::size_t>(n));
    int lwork = -1, info = 0;
    double q = 0;
    dsyev_("N", "L", &n, a.data(), &n, w.data(), &q, &lwork, &info, 1, 1);
    lwork = static_cast<int>(q);
    std::vector<double> work(static_cast<std::size_t>(lwork));
    dsyev_("N", "L", &n, a.data(), &n, w.data(), work.data(), &lwork, &info, 1, 1);
    EXPECT_EQ(info, 0);
    Inertia in;
    double wmax = 0;
    for (double e : w) wmax = std::max(wmax, std::abs(e));
    for (double e : w) (std::abs(e) <= 1e-12 * wmax ? in.zero : e > 0 ? in.positive : in.negative) += 1;
    return in;
}

Inertia lapack_inertia(std::vector<std::complex<double>> a, int n) {
    std::vector<double> w(static_cast<std::size_t>(n)), rwork(static_cast<std::size_t>(3 * n));
    int lwork = 4 * n, info = 0;
    std::vector<std::complex<double>> work(static_cast<std::size_t>(lwork));
    zheev_("N", "L", &n, a.data(), &n, w.data(), work.data(), &lwork, rwork.data(), &info, 1, 1);
    EXPECT_EQ(info, 0);
    Inertia in;
    for (double e : w) (e > 0 ? in.positive : in.negative) += 1;
    return in;
}

template <class V>
void check_inertia() {
    for (std::uint64_t seed : {1, 2, 3}) {
        for (std::int64_t n : {40, 200}) {
            SCOPED_TRACE("seed " + std::to_string(seed) + " n " + std::to_string(n));
            auto a = test::random_indefinite<V, std::int64_t>(n, 4.0, seed, true);
            DirectSolver<V, std::int64_t> s(Structure::hermitian);
            s.set_option("pivot_perturbation", "0");
            s.analyze(a);
            ASSERT_EQ(s.factorize(a), Status::success);
            const Inertia got = s.inertia(), want = lapack_inertia(test::dense_of(a), static_cast<int>(n));
            EXPECT_EQ(got.positive, want.positive);
            EXPECT_EQ(got.negative, want.negative);
            EXPECT_EQ(got.zero, 0);
            EXPECT_EQ(s.result("positive_pivots"), static_cast<double>(want.positive));
            EXPECT_EQ(s.result("negative_pivots"), static_cast<double>(want.negative));
        }
    }
}

TEST(Ldlt, InertiaMatchesLapackEigenvaluesReal) { check_inertia<double>(); }
TEST(Ldlt, InertiaMatchesLapackEigenvaluesComplex) { check_inertia<std::complex<double>>(); }

template <class V, class I>
SolveInfo solve_ones(DirectSolver<V, I>& s, std::int64_t n, std::vector<V>& x, std::int64_t nrhs = 1) {
    auto b = gigasparse::test::random_vector<V>(n * nrhs, 3);
    x.assign(static_cast<std::size_t>(n * nrhs), V(0));
    return s.solve(b, x, nrhs);
}

TEST(Ldlt, SolvesReachBackwardErrorForEveryValueAndIndexType) {
    auto run = [](auto tag, bool herm) {
        using V = decltype(tag);
        for (std::int64_t nrhs : {1, 3}) {
            auto a = test::random_indefinite<V, std::int64_t>(400, 6.0, 21, herm, 0.05);
            DirectSolver<V, std::int64_t> s(herm ? Structure::hermitian : Structure::symmetric);
            s.analyze(a);
            ASSERT_EQ(s.factorize(a), Status::success);
            std::vector<V> x;
            SolveInfo info = solve_ones(s, 400, x, nrhs);
            EXPECT_LE(info.backward_error, 64 * eps_of<V>()) << "nrhs " << nrhs;
        }
    };
    run(double{}, true);
    run(float{}, true);
    run(std::complex<double>{}, true);
    run(std::complex<double>{}, false);
    run(std::complex<float>{}, false);
}

TEST(Ldlt, SolvePartsComposeToTheSolve) {
    auto a = test::random_indefinite<double, std::int32_t>(150, 5.0, 4, true, 0.1);
    DirectSolver<double, std::int32_t> s(Structure::symmetric);
    s.set_option("refinement_steps", "0");
    s.analyze(a);
    ASSERT_EQ(s.factorize(a), Status::success);
    auto b = gigasparse::test::random_vector<double>(150, 9);
    std::vector<double> x(150), y(150), x2(150);
    s.solve(b, x);
    s.solve_permute(b, y, 1);
    s.solve_forward(y, 1);
    s.solve_diagonal(y, 1);
    s.solve_backward(y, 1);
    s.solve_unpermute(y, x2, 1);
    for (int i = 0; i < 150; ++i) EXPECT_EQ(x[i], x2[i]);
}

// [H Aᵀ; A 0] with H diagonal positive and A a random full-rank m x k: inertia (k, m, 0).
Csr<double, std::int32_t> kkt(std::int64_t k, std::int64_t m, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> val(0.5, 1.5);
    std::uniform_int_distribution<std::int64_t> pick(0, k - 1);
    Coo<double, std::int32_t> c;
    c.nrows = c.ncols = k + m;
    for (std::int64_t i = 0; i < k; ++i) c.row.push_back(static_cast<std::int32_t>(i)), c.col.push_back(static_cast<std::int32_t>(i)), c.val.push_back(val(rng));
    for (std::int64_t r = 0; r < m; ++r)
        for (std::int64_t t = 0; t < 3; ++t) {
            const std::int64_t j = t == 0 ? r % k : pick(rng);  // column r % k makes A full rank
            const double v = t == 0 ? 4.0 : val(rng) - 1.0;
            c.row.push_back(static_cast<std::int32_t>(k + r)), c.col.push_back(static_cast<std::int32_t>(j)), c.val.push_back(v);
            c.row.push_back(static_cast<std::int32_t>(j)), c.col.push_back(static_cast<std::int32_t>(k + r)), c.val.push_back(v);
        }
    return coo_to_csr(c);
}

TEST(Ldlt, KktSystemsSolveWithTheRightInertia) {
    for (const char* ord : {"amd", "nd"}) {
        SCOPED_TRACE(ord);
        auto a = kkt(300, 120, 5);
        DirectSolver<double, std::int32_t> s(Structure::symmetric);
        s.set_option("ordering", ord);
        s.analyze(a);
        ASSERT_EQ(s.factorize(a), Status::success);
        std::vector<double> x;
        SolveInfo info = solve_ones(s, 420, x);
        EXPECT_LE(info.backward_error, 1e-14);
        if (s.result("perturbed_pivots") == 0) {
            const Inertia in = s.inertia();
            EXPECT_EQ(in.positive, 300);
            EXPECT_EQ(in.negative, 120);
        }
    }
}

TEST(Ldlt, TwoByTwoPivotOfAZeroDiagonalPair) {
    // [[0, 2], [2, 0]]: no 1×1 pivot exists; one 2×2 pivot, inertia (1, 1, 0), exact solve.
    Csr<double, std::int32_t> a(2, 2);
    a.row_ptr = {0, 2, 4};
    a.col_idx = {0, 1, 0, 1};
    a.values = {0.0, 2.0, 2.0, 0.0};
    DirectSolver<double, std::int32_t> s(Structure::symmetric);
    s.set_option("ordering", "natural");
    s.set_option("pivot_perturbation", "0");
    s.analyze(a);
    ASSERT_EQ(s.factorize(a), Status::success);
    EXPECT_EQ(s.result("two_by_two_pivots"), 1);
    EXPECT_EQ(s.inertia().positive, 1);
    EXPECT_EQ(s.inertia().negative, 1);
    std::vector<double> b = {4.0, 6.0}, x(2);
    s.set_option("refinement_steps", "0");
    s.solve(b, x);
    EXPECT_DOUBLE_EQ(x[0], 3.0);
    EXPECT_DOUBLE_EQ(x[1], 2.0);
}

TEST(Ldlt, ZeroPivotIsStatusOrPerturbed) {
    // diag(1, 0, 1) with no off-diagonal: pivot 0 at original column 1.
    Csr<double, std::int32_t> a(3, 3);
    a.row_ptr = {0, 1, 2, 3};
    a.col_idx = {0, 1, 2};
    a.values = {1.0, 0.0, 1.0};
    {
        DirectSolver<double, std::int32_t> s(Structure::symmetric);
        s.set_option("pivot_perturbation", "0");
        s.analyze(a);
        EXPECT_EQ(s.factorize(a), Status::zero_pivot);
        EXPECT_EQ(s.result("failing_column"), 1);
        std::vector<double> b(3, 1.0), x(3);
        EXPECT_THROW(s.solve(b, x), PhaseError);
    }
    {
        DirectSolver<double, std::int32_t> s(Structure::symmetric);
        s.analyze(a);
        ASSERT_EQ(s.factorize(a), Status::success);
        EXPECT_EQ(s.result("perturbed_pivots"), 1);
        EXPECT_EQ(s.result("failing_column"), -1);
    }
}

TEST(Ldlt, NanValueIsAZeroPivotAtItsColumn) {
    auto a = test::random_indefinite<double, std::int32_t>(50, 4.0, 8, true);
    for (std::int64_t k = a.row_ptr[30]; k < a.row_ptr[31]; ++k)
        if (a.col_idx[k] == 30) a.values[k] = std::numeric_limits<double>::quiet_NaN();
    DirectSolver<double, std::int32_t> s(Structure::symmetric);
    s.analyze(a);
    EXPECT_EQ(s.factorize(a), Status::zero_pivot);
    EXPECT_EQ(s.result("failing_column"), 30);
    EXPECT_THROW(s.factor_L(), PhaseError);
}

TEST(Ldlt, ShiftedLaplacianIsIndefinite) {
    // 2D Laplacian minus 2.05 I: indefinite and regular (a shift of exactly 2 is an eigenvalue: singular).
    auto a = gen::poisson2d<double, std::int32_t>(20, 20);
    for (std::int64_t i = 0; i < a.nrows; ++i)
        for (auto k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
            if (a.col_idx[k] == i) a.values[k] -= 2.05;  // shift into the spectrum: indefinite, regular
    DirectSolver<double, std::int32_t> s(Structure::symmetric);
    s.analyze(a);
    ASSERT_EQ(s.factorize(a), Status::success);
    std::vector<double> x;
    SolveInfo info = solve_ones(s, a.nrows, x);
    EXPECT_LE(info.backward_error, 1e-14);
    const Inertia in = s.inertia();
    EXPECT_GT(in.positive, 0);
    EXPECT_GT(in.negative, 0);
    EXPECT_EQ(in.positive + in.negative + in.zero, a.nrows);
}

TEST(Ldlt, RefactorizeWithNewValuesAndTheSameBitsOnAnyThreadCount) {
    auto a = gen::poisson3d<double, std::int32_t>(24, 24, 24);
    for (std::int64_t i = 0; i < a.nrows; ++i)
        for (auto k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
            if (a.col_idx[k] == i) a.values[k] -= 3.1;  // indefinite
    auto v = a.values;
    for (auto& e : v) e *= 2.0;
    test::expect_thread_independent(a, Structure::symmetric, v, 1e-14);
}

TEST(Ldlt, ReferenceBackendRefusesClearly) {
    auto a = test::random_indefinite<double, std::int32_t>(30, 3.0, 2, true);
    DirectSolver<double, std::int32_t> s(Structure::symmetric);
    s.set_option("backend", "reference");
    s.analyze(a);
    EXPECT_THROW(s.factorize(a), NotSupported);
    DirectSolver<double, std::int32_t> g(Structure::general);
    g.set_option("backend", "reference");
    g.analyze(a);
    EXPECT_THROW(g.factorize(a), NotSupported);
    g.set_option("backend", "cpu");
    ASSERT_EQ(g.factorize(a), Status::success);
    EXPECT_THROW(g.inertia(), PhaseError);
    EXPECT_THROW(s.set_option("pivot_block", "1"), InvalidArgument);
}

TEST(Ldlt, SharedIndefiniteMatrices) {
    auto manifest = gigasparse::test::read_manifest();
    if (manifest.empty()) GTEST_SKIP() << "no ../shared/matrices";
    int done = 0;
    for (const auto& e : manifest) {
        if (e.kind != "indef" || e.field == "pattern") continue;
        SCOPED_TRACE(e.name);
        auto a = io::read_mtx<double, std::int32_t>(gigasparse::test::matrix_dir() + "/" + e.file);
        DirectSolver<double, std::int32_t> s(Structure::symmetric);
        s.set_option("refinement_steps", "10");
        s.analyze(a);
        ASSERT_EQ(s.factorize(a), Status::success);
        std::vector<double> x;
        SolveInfo info = solve_ones(s, a.nrows, x);
        EXPECT_LE(info.backward_error, 1e-12) << e.name << ": " << info.refinement_steps << " steps, "
                                              << s.result("perturbed_pivots") << " perturbed pivots";
        ++done;
    }
    EXPECT_GT(done, 0);
}

}  // namespace
}  // namespace gigasparse::direct

