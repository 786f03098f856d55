// tests/direct/test_mixed_precision.cpp: factor_precision = single — the factor in float / complex<float>, the
// solve refining in double against the original matrix — for every structure: full accuracy where κ ε_single is
// small, half the factor memory, the factor's inspection functions, and full precision taking over where single
// cannot deliver (values beyond float's range, a breakdown of the rounded matrix, a refinement that stalls).
#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>
#include <gigasparse/direct/batch.hpp>
#include <gigasparse/direct/solver.hpp>
#include <gigasparse/gen/generators.hpp>
#include <gigasparse/io/matrix_market.hpp>

#include "direct_test_utils.hpp"
#include "utils/test_utils.hpp"

namespace gigasparse::direct {
namespace {

template <class V, class I>
struct Case {
    std::string name;
    Structure structure;
    Csr<V, I> a;
};

// Well-conditioned inputs of every structure (complex V: Hermitian and complex symmetric ones).
template <class V>
std::vector<Case<V, std::int32_t>> cases() {
    using I = std::int32_t;
    std::vector<Case<V, I>> c;
    c.push_back({"poisson3d spd", is_complex_v<V> ? Structure::hpd : Structure::spd, gen::poisson3d<V, I>(11, 10, 9)});
    c.push_back({"random hpd", is_complex_v<V> ? Structure::hpd : Structure::spd, test::random_hpd<V, I>(700, 6, 11)});
    c.push_back({"indefinite symmetric", Structure::symmetric, test::random_indefinite<V, I>(600, 5, 12, false, 0.2)});
    if constexpr (is_complex_v<V>)
        c.push_back({"indefinite hermitian", Structure::hermitian, test::random_indefinite<V, I>(600, 5, 23, true, 0.0)});
    c.push_back({"random general", Structure::general, test::random_general<V>(800, 4, 14)});
    c.push_back({"convection-diffusion", Structure::general, gen::convection_diffusion<V, I>(14, 13, 12, 40, -25, 10)});
    return c;
}

template <class V>
void solves_to_full_accuracy() {
    for (auto& c : cases<V>()) {
        SCOPED_TRACE(c.name);
        const std::int64_t n = c.a.nrows, nrhs = 2;
        const auto b = gigasparse::test::random_vector<V>(n * nrhs, 21);
        DirectSolver<V, std::int32_t> full(c.structure), single(c.structure);
        single.set_option("factor_precision", "single");
        EXPECT_EQ(single.get_option("factor_precision"), "single");
        for (auto* s : {&full, &single}) {
            s->analyze(c.a);
            ASSERT_EQ(s->factorize(c.a), Status::success);
        }
        EXPECT_EQ(single.result("single_factor"), 1.0);
        EXPECT_EQ(full.result("single_factor"), 0.0);
        // half the factor's bytes
        EXPECT_EQ(2 * single.result("factor_bytes"), full.result("factor_bytes"));
        EXPECT_EQ(2 * single.result("stack_bytes"), full.result("stack_bytes"));
        std::vector<V> xf(b.size()), xs(b.size());
        const SolveInfo inf = full.solve(b, xf, nrhs), ins = single.solve(b, xs, nrhs);
        EXPECT_EQ(ins.status, Status::success);
        EXPECT_EQ(single.result("single_factor"), 1.0);  // no fallback on these
        // the single factor's first solve has float accuracy only: refinement did the rest
        EXPECT_GE(ins.refinement_steps, 1);
        EXPECT_LE(ins.backward_error, 1e-15);
        EXPECT_LE(test::backward_error(c.a, Transpose::none, b, xs, nrhs), 1e-15);
        EXPECT_LE(inf.backward_error, 1e-15);
        double dmax = 0, xmax = 0;
        for (std::size_t i = 0; i < xs.size(); ++i)
            dmax = std::max(dmax, static_cast<double>(std::abs(xs[i] - xf[i]))), xmax = std::max(xmax, static_cast<double>(std::abs(xf[i])));
        EXPECT_LE(dmax, 1e-11 * xmax);
        // without refinement: the accuracy of a float factor (not 1e-16: the factor really is single precision)
        single.set_option("refinement_steps", "0");
        const SolveInfo raw = single.solve(b, xs, nrhs);
        EXPECT_EQ(raw.refinement_steps, 0);
        EXPECT_GT(raw.backward_error, 1e-12);
        EXPECT_LT(raw.backward_error, 1e-3);
        // transposed solves refine against op(A)
        single.set_option("refinement_steps", "auto");
        for (Transpose op : {Transpose::transpose, Transpose::conjugate_transpose}) {
            const SolveInfo it = single.solve(b, xs, nrhs, op);
            EXPECT_EQ(it.status, Status::success);
            EXPECT_LE(test::backward_error(c.a, op, b, xs, nrhs), 1e-15) << to_string(op);
        }
        // the condition estimate reads the single factor: within a factor 3 of the full one's
        const double kf = full.condition_estimate(), ks = single.condition_estimate();
        EXPECT_GT(ks, kf / 3);
        EXPECT_LT(ks, kf * 3);
    }
}

TEST(MixedPrecision, DoubleSolvesToFullAccuracy) { solves_to_full_accuracy<double>(); }
TEST(MixedPrecision, ComplexDoubleSolvesToFullAccuracy) { solves_to_full_accuracy<std::complex<double>>(); }

TEST(MixedPrecision, FloatValuesIgnoreTheOption) {
    // single_t<float> is float: the option changes nothing (bitwise the same solution)
    const auto a = gen::poisson3d<float, std::int32_t>(8, 8, 8);
    const auto b = gigasparse::test::random_vector<float>(a.nrows, 3);
    std::vector<float> x1(b.size()), x2(b.size());
    DirectSolver<float, std::int32_t> s1(Structure::spd), s2(Structure::spd);
    s2.set_option("factor_precision", "single");
    for (auto* s : {&s1, &s2}) {
        s->analyze(a);
        ASSERT_EQ(s->factorize(a), Status::success);
    }
    EXPECT_EQ(s2.result("single_factor"), 0.0);
    EXPECT_EQ(s1.result("factor_bytes"), s2.result("factor_bytes"));
    s1.solve(b, x1);
    s2.solve(b, x2);
    EXPECT_TRUE(x1 == x2);
}

TEST(MixedPrecision, InspectionReadsTheSingleFactor) {
    using V = double;
    // LDLᵀ: the inertia, the determinant and D; LU: L and U reproduce the scaled, permuted matrix to float accuracy.
    const auto sym = test::random_indefinite<V, std::int32_t>(400, 5, 31, false, 0.1);
    DirectSolver<V, std::int32_t> full(Structure::symmetric), single(Structure::symmetric);
    single.set_option("factor_precision", "single");
    for (auto* s : {&full, &single}) {
        s->analyze(sym);
        ASSERT_EQ(s->factorize(sym), Status::success);
    }
    const Inertia a = full.inertia(), b = single.inertia();
    EXPECT_EQ(a.positive, b.positive);
    EXPECT_EQ(a.negative, b.negative);
    EXPECT_EQ(a.zero, b.zero);
    const auto da = full.log_determinant(), db = single.log_determinant();
    EXPECT_EQ(da.sign, db.sign);
    EXPECT_NEAR(da.log_abs, db.log_abs, 1e-4 * std::abs(da.log_abs) + 1e-4);
    EXPECT_EQ(single.factor_D().nrows, sym.nrows);

    const auto gen = test::random_general<V>(300, 4, 32);
    DirectSolver<V, std::int32_t> lu(Structure::general);
    lu.set_option("factor_precision", "single");
    lu.analyze(gen);
    ASSERT_EQ(lu.factorize(gen), Status::success);
    const auto l = test::dense_of(lu.factor_L()), u = test::dense_of(lu.factor_U());
    const auto p = lu.row_permutation(), q = lu.factor_permutation();
    const auto dr = lu.row_scaling(), dc = lu.scaling();
    const auto ad = test::dense_of(gen);
    const std::int64_t n = gen.nrows;
    double err = 0;
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            V lu_ij = 0;
            for (std::int64_t k = 0; k < n; ++k) lu_ij += l[i + k * n] * u[k + j * n];
            const V m = ad[p[i] + q[j] * n] * (dr.empty() ? 1.0 : dr[p[i]]) * (dc.empty() ? 1.0 : dc[q[j]]);
            err = std::max(err, std::abs(m - lu_ij));
        }
    EXPECT_LT(err, 1e-5);  // float rounding of entries <= 1, not double's
    EXPECT_GT(err, 1e-12);
}

TEST(MixedPrecision, RefusesWhatNeedsAFullFactor) {
    const auto a = gen::poisson3d<double, std::int32_t>(6, 6, 6);
    DirectSolver<double, std::int32_t> s(Structure::spd);
    s.set_option("factor_precision", "single");
    s.analyze(a);
    ASSERT_EQ(s.factorize(a), Status::success);
    EXPECT_THROW(s.selected_inverse(), NotSupported);
    EXPECT_THROW(s.inverse_diagonal(), NotSupported);
    EXPECT_THROW(s.numeric(), NotSupported);
    std::vector<double> y(static_cast<std::size_t>(a.nrows), 1.0);
    EXPECT_THROW(s.solve_forward(y, 1), NotSupported);
    EXPECT_THROW(s.set_option("factor_precision", "half"), InvalidArgument);
    // a Schur complement needs a full factor
    DirectSolver<double, std::int32_t> sc(Structure::spd);
    sc.set_option("factor_precision", "single");
    const std::vector<std::int64_t> idx{0, 5, 17};
    sc.set_schur_indices(idx);
    sc.analyze(a);
    EXPECT_THROW(sc.factorize(a), NotSupported);
    // back to full precision: selected inversion again (refactorize switches the factor)
    s.set_option("factor_precision", "full");
    ASSERT_EQ(s.refactorize(a.values), Status::success);
    EXPECT_EQ(s.result("single_factor"), 0.0);
    EXPECT_EQ(s.inverse_diagonal().size(), static_cast<std::size_t>(a.nrows));
}

TEST(MixedPrecision, OutOfRangeValuesAreFactoredInFullPrecision) {
    auto a = gen::poisson3d<double, std::int32_t>(7, 7, 7);
    for (auto& v : a.values) v *= 1e35;  // beyond float's range once the factor's products are formed
    DirectSolver<double, std::int32_t> s(Structure::spd);
    s.set_option("factor_precision", "single");
    s.analyze(a);
    ASSERT_EQ(s.factorize(a), Status::success);
    EXPECT_EQ(s.result("single_factor"), 0.0);
    const auto b = gigasparse::test::random_vector<double>(a.nrows, 4);
    std::vector<double> x(b.size());
    EXPECT_EQ(s.solve(b, x).status, Status::success);
    EXPECT_LE(test::backward_error(a, Transpose::none, b, x, 1), 4e-16);
    // back in range: refactorize returns to single precision
    auto a2 = gen::poisson3d<double, std::int32_t>(7, 7, 7);
    ASSERT_EQ(s.refactorize(a2.values), Status::success);
    EXPECT_EQ(s.result("single_factor"), 1.0);
}

// 2×2 blocks [[1, 1-δ], [1-δ, 1]] chained weakly: SPD in double (pivot 2δ), singular once 1-δ rounds to float 1.
Csr<double, std::int32_t> rounding_singular_spd(std::int32_t blocks, double delta) {
    Coo<double, std::int32_t> c;
    c.nrows = c.ncols = 2 * blocks;
    auto add = [&](std::int32_t i, std::int32_t j, double v) {
        c.row.push_back(i), c.col.push_back(j), c.val.push_back(v);
    };
    for (std::int32_t k = 0; k < blocks; ++k) {
        add(2 * k, 2 * k, 1), add(2 * k + 1, 2 * k + 1, 1);
        add(2 * k, 2 * k + 1, 1 - delta), add(2 * k + 1, 2 * k, 1 - delta);
    }
    return coo_to_csr(c);
}

TEST(MixedPrecision, BreakdownOfTheRoundedMatrixFallsBackToFullPrecision) {
    const auto a = rounding_singular_spd(50, 1e-11);
    DirectSolver<double, std::int32_t> s(Structure::spd);
    s.set_option("factor_precision", "single");
    s.analyze(a);
    ASSERT_EQ(s.factorize(a), Status::success);  // not a spurious not_positive_definite
    EXPECT_EQ(s.result("single_factor"), 0.0);
    const auto b = gigasparse::test::random_vector<double>(a.nrows, 5);
    std::vector<double> x(b.size());
    EXPECT_EQ(s.solve(b, x).status, Status::success);
    EXPECT_LE(test::backward_error(a, Transpose::none, b, x, 1), 1e-15);
    // a genuinely indefinite matrix still fails, in full precision too
    auto bad = a;
    test::set_diagonal(bad, 7, -1.0);
    EXPECT_EQ(s.refactorize(bad.values), Status::not_positive_definite);
}

// Tridiagonal [-1 2 -1] with Neumann ends (rows summing to 0) plus σ on the diagonal, stored as a general matrix:
// κ ≈ 4/σ, far beyond 1/ε_single for σ = 1e-9 — the float LU factors it but the plain refinement cannot converge.
template <class V>
Csr<V, std::int32_t> shifted_neumann(std::int32_t n, double sigma) {
    Coo<V, std::int32_t> c;
    c.nrows = c.ncols = n;
    V off(-1);
    if constexpr (is_complex_v<V>) off = V(-0.6, -0.8);  // |off| = 1: Hermitian, still κ ≈ 4/σ
    for (std::int32_t i = 0; i < n; ++i) {
        const V d((i == 0 || i == n - 1 ? 1.0 : 2.0) + sigma);
        c.row.push_back(i), c.col.push_back(i), c.val.push_back(d);
        if (i > 0) c.row.push_back(i), c.col.push_back(i - 1), c.val.push_back(test::conj_of(off));
        if (i + 1 < n) c.row.push_back(i), c.col.push_back(i + 1), c.val.push_back(off);
    }
    return coo_to_csr(c);
}

// The 7-point Laplacian of a k³ grid with Neumann boundaries (each diagonal the sum of its row's off-diagonal
// magnitudes, so constants are its null space) plus σ I, as a general matrix: κ ≈ 12/σ, and its factorization costs
// far more than a solve (the GMRES-based refinement's budget).
Csr<double, std::int32_t> shifted_neumann3d(std::int32_t k, double sigma) {
    auto a = gen::poisson3d<double, std::int32_t>(k, k, k);
    for (std::int64_t i = 0; i < a.nrows; ++i) {
        double off = 0;
        for (auto q = a.row_ptr[i]; q < a.row_ptr[i + 1]; ++q)
            if (a.col_idx[q] != i) off += std::abs(a.values[q]);
        test::set_diagonal(a, i, off + sigma);
    }
    return a;
}

TEST(MixedPrecision, StalledRefinementContinuesWithGmres) {
    const auto a = shifted_neumann3d(14, 1e-9);
    const auto b = gigasparse::test::random_vector<double>(a.nrows, 6);
    std::vector<double> x(b.size()), x0(b.size());
    DirectSolver<double, std::int32_t> s(Structure::general);
    s.set_option("factor_precision", "single");
    s.analyze(a);
    ASSERT_EQ(s.factorize(a), Status::success);
    ASSERT_EQ(s.result("single_factor"), 1.0);
    // a fixed step count: plain refinement only, and x is never made worse by a diverging step
    s.set_option("refinement_steps", "0");
    const SolveInfo raw = s.solve(b, x0);
    s.set_option("refinement_steps", "10");
    const SolveInfo ten = s.solve(b, x);
    EXPECT_LE(ten.backward_error, raw.backward_error);
    EXPECT_GT(ten.backward_error, 1e-13);  // κ ε_single > 1: no convergence
    EXPECT_EQ(ten.krylov_iterations, 0);
    // the automatic step count: GMRES preconditioned by the single factor takes over and converges in double
    // (refinement = gmres: without the timing-based budget, which a loaded test machine would make flaky)
    s.set_option("refinement_steps", "auto");
    s.set_option("refinement", "gmres");
    EXPECT_EQ(s.get_option("refinement"), "gmres");
    EXPECT_THROW(s.set_option("refinement", "newton"), InvalidArgument);
    const SolveInfo info = s.solve(b, x);
    EXPECT_EQ(info.status, Status::success);
    EXPECT_GT(info.krylov_iterations, 0);
    EXPECT_EQ(s.result("single_factor"), 1.0);
    EXPECT_LE(test::backward_error(a, Transpose::none, b, x, 1), 1e-15);
    // refinement = plain: no GMRES, so full precision takes over
    s.set_option("refinement", "plain");
    ASSERT_EQ(s.refactorize(a.values), Status::success);
    ASSERT_EQ(s.result("single_factor"), 1.0);
    const SolveInfo plain = s.solve(b, x);
    EXPECT_EQ(plain.status, Status::success);
    EXPECT_EQ(plain.krylov_iterations, 0);
    EXPECT_EQ(s.result("single_factor"), 0.0);
    EXPECT_LE(test::backward_error(a, Transpose::none, b, x, 1), 1e-15);
}

TEST(MixedPrecision, StalledComplexRefinementRefactorsInFullPrecision) {
    // complex values: no GMRES-based refinement, so the solve factors again in full precision and returns its solution
    using V = std::complex<double>;
    const auto a = shifted_neumann<V>(400, 1e-9);
    const auto b = gigasparse::test::random_vector<V>(a.nrows, 6);
    std::vector<V> x(b.size());
    DirectSolver<V, std::int32_t> s(Structure::general);
    s.set_option("factor_precision", "single");
    s.analyze(a);
    ASSERT_EQ(s.factorize(a), Status::success);
    ASSERT_EQ(s.result("single_factor"), 1.0);
    const SolveInfo info = s.solve(b, x);
    EXPECT_EQ(info.status, Status::success);
    EXPECT_EQ(s.result("single_factor"), 0.0);
    EXPECT_LE(test::backward_error(a, Transpose::none, b, x, 1), 1e-15);
}

TEST(MixedPrecision, SharedIndefiniteMatrixStaysSingle) {
    // hangGlider_2 (LDLᵀ with pairs and scaling): the single factor's perturbation threshold (25 ε_single) leaves its
    // pivots alone and the plain refinement reaches 1e-16; √ε_single, the double rule, sent it back to full precision.
    if (gigasparse::test::read_manifest().empty()) GTEST_SKIP() << "no ../shared/matrices";
    const auto a = io::read_mtx<double, std::int32_t>(gigasparse::test::matrix_dir() + "/hangGlider_2.mtx.gz");
    DirectSolver<double, std::int32_t> s(Structure::symmetric);
    s.set_option("factor_precision", "single");
    s.analyze(a);
    ASSERT_EQ(s.factorize(a), Status::success);
    EXPECT_EQ(s.result("perturbed_pivots"), 0.0);
    std::vector<double> b(static_cast<std::size_t>(a.nrows), 1.0), x(b.size());
    const SolveInfo info = s.solve(b, x);
    EXPECT_EQ(info.status, Status::success);
    EXPECT_EQ(info.krylov_iterations, 0);
    EXPECT_EQ(s.result("single_factor"), 1.0);
    EXPECT_LE(test::backward_error(a, Transpose::none, b, x, 1), 1e-15);
}

TEST(MixedPrecision, BatchesAndRefactorization) {
    const auto a = gen::convection_diffusion<double, std::int32_t>(9, 9, 9, 30, 20, -10);
    const std::int64_t count = 3, nnz = static_cast<std::int64_t>(a.values.size());
    std::vector<double> values(static_cast<std::size_t>(count * nnz));
    for (std::int64_t t = 0; t < count; ++t)
        for (std::int64_t k = 0; k < nnz; ++k) values[t * nnz + k] = a.values[k] * (1.0 + 0.1 * static_cast<double>(t));
    BatchDirectSolver<double, std::int32_t> batch(Structure::general);
    batch.set_option("factor_precision", "single");
    batch.analyze(a);
    for (Status st : batch.factorize(values, count)) EXPECT_EQ(st, Status::success);
    const auto b = gigasparse::test::random_vector<double>(count * a.nrows, 7);
    std::vector<double> x(b.size());
    for (const SolveInfo& i : batch.solve(b, x, 1)) {
        EXPECT_EQ(i.status, Status::success);
        EXPECT_LE(i.backward_error, 1e-15);
    }
    for (std::int64_t t = 0; t < count; ++t) EXPECT_EQ(batch.item(t).result("single_factor"), 1.0);
}

}  // namespace
}  // namespace gigasparse::direct
