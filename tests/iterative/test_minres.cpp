// tests/iterative/test_minres.cpp: MINRES on symmetric and Hermitian indefinite systems: without a preconditioner
// its residuals are GMRES's without restarts (both minimize ||b - A x|| over the same Krylov space), with a positive
// definite preconditioner it converges where CG breaks down, and a preconditioner that is not positive definite is a
// breakdown status.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <string>

#include <gigasparse/core/error.hpp>
#include <gigasparse/gen/generators.hpp>
#include <gigasparse/iterative/krylov.hpp>
#include <gigasparse/reference/kernels.hpp>

#include "utils/test_utils.hpp"

namespace gs = gigasparse;
namespace gi = gigasparse::iterative;

namespace {

// The 2D Laplacian (n x n grid) with diag_add(i) added to row i's diagonal and, for complex V, i·coupling on the
// x-neighbour couplings (+ above, − below: Hermitian).
template <class V, class F>
gs::Csr<V, std::int32_t> shifted(std::int64_t n, F diag_add, double coupling = 0.0) {
    return gs::test::coupled<V>(gs::gen::poisson2d<double, std::int32_t>(n, n), diag_add, coupling);
}

template <class V>
std::vector<V> rhs(std::int64_t n) {
    std::vector<V> b(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
        if constexpr (gs::is_complex_v<V>) b[i] = V(std::sin(0.37 * static_cast<double>(i)) + 0.5, std::cos(0.11 * static_cast<double>(i)));
        else b[i] = V(std::sin(0.37 * static_cast<double>(i)) + 0.5);
    }
    return b;
}

template <class V>
double true_residual(const gs::Csr<V, std::int32_t>& a, const std::vector<V>& b, const std::vector<V>& x) {
    std::vector<V> r = b;
    gs::reference::spmv<V, std::int32_t>(a.view(), x, r, V(-1), V(1));
    double rr = 0, bb = 0;
    for (std::size_t i = 0; i < b.size(); ++i) rr += std::norm(r[i]), bb += std::norm(b[i]);
    return std::sqrt(rr / bb);
}

template <class V>
gi::SolveResult run(const gs::Csr<V, std::int32_t>& a, const std::vector<V>& b, std::vector<V>& x, gi::Method method, gi::PrecondKind pk,
                    int restart = 30, double tol = 1e-10) {
    gi::PrecondOptions po;
    po.kind = pk;
    const auto m = gi::make_preconditioner(a.view(), po);
    gi::SolverOptions so;
    so.method = method;
    so.tol = tol;
    so.maxit = 4000;
    so.restart = restart;
    std::fill(x.begin(), x.end(), V(0));
    return gi::solve<V>(gi::csr_operator(a.view(), gi::Backend::omp), b, x, m.get(), so);
}

template <class V>
void expect_gmres_history(const gs::Csr<V, std::int32_t>& a, const std::string& what) {
    SCOPED_TRACE(what);
    const auto b = rhs<V>(a.nrows);
    std::vector<V> x(b.size());
    const auto rm = run(a, b, x, gi::Method::minres, gi::PrecondKind::none);
    ASSERT_TRUE(rm.converged) << rm.message;
    EXPECT_LE(true_residual(a, b, x), 1e-9);
    const auto rg = run(a, b, x, gi::Method::gmres, gi::PrecondKind::none, 2000);
    ASSERT_TRUE(rg.converged) << rg.message;
    EXPECT_GT(rm.iterations, 30);
    // GMRES is optimal: MINRES cannot take fewer steps (to rounding); its three-term recurrence loses orthogonality
    // in floating point, which delays it (measured: 135 against 130 real, 218 against 193 complex)
    EXPECT_GE(rm.iterations, rg.iterations - 2) << "minres " << rm.iterations << " gmres " << rg.iterations;
    EXPECT_LE(rm.iterations, 1.2 * static_cast<double>(rg.iterations) + 2) << "minres " << rm.iterations << " gmres " << rg.iterations;
    // the same minimal residual at every step while the short recurrence keeps its orthogonality (the first 30)
    for (std::size_t k = 0; k < 30; ++k)
        EXPECT_NEAR(rm.residual_history[k], rg.residual_history[k], 1e-8 * rg.residual_history[0] + 1e-6 * rg.residual_history[k]) << "step " << k;
}

}  // namespace

TEST(IterativeMinres, MatchesGmresWithoutRestartsOnIndefiniteSystems) {
    // the Laplacian shifted into its spectrum: symmetric indefinite; and a Hermitian indefinite complex one
    expect_gmres_history(shifted<double>(24, [](std::int64_t) { return -0.3; }), "real symmetric");
    expect_gmres_history(shifted<std::complex<double>>(24, [](std::int64_t) { return -0.3; }, 0.2), "complex Hermitian");
}

TEST(IterativeMinres, PreconditionedWhereCgBreaksDown) {
    // a positive but varying diagonal (Jacobi is symmetric positive definite and not a multiple of I), shifted
    // into the spectrum: CG breaks down, MINRES with Jacobi converges
    const auto a = shifted<double>(24, [](std::int64_t i) { return 3.0 * std::abs(std::sin(0.9 * static_cast<double>(i))) - 2.0; });
    const auto b = rhs<double>(a.nrows);
    std::vector<double> x(b.size());
    const auto cg = run(a, b, x, gi::Method::cg, gi::PrecondKind::none);
    EXPECT_FALSE(cg.converged) << cg.iterations << " " << cg.message;
    const auto plain = run(a, b, x, gi::Method::minres, gi::PrecondKind::none);
    ASSERT_TRUE(plain.converged) << plain.message;
    const auto jac = run(a, b, x, gi::Method::minres, gi::PrecondKind::jacobi);
    ASSERT_TRUE(jac.converged) << jac.message;
    // the test is in the M⁻¹ norm: the 2-norm residual is within sqrt(cond(D)) of it
    EXPECT_LE(true_residual(a, b, x), 1e-8);
    EXPECT_LT(jac.iterations, plain.iterations);
    // from x0 = 0 the recorded residual starts at 1: the M⁻¹ norm is scaled to b's 2-norm
    EXPECT_NEAR(jac.residual_history.front(), 1.0, 1e-12);
    // the reference backend: the same iterations
    gi::SolverOptions so;
    so.method = gi::Method::minres;
    so.tol = 1e-10;
    so.maxit = 4000;
    so.backend = gi::Backend::reference;
    std::vector<double> xr(b.size(), 0.0);
    const auto ref = gi::solve<double>(gi::csr_operator(a.view(), gi::Backend::reference), b, xr, nullptr, so);
    EXPECT_LE(std::abs(ref.iterations - plain.iterations), 1);
}

TEST(IterativeMinres, StatusesNotExceptions) {
    // negative definite A: fine without M; Jacobi is then negative definite, which MINRES cannot use: breakdown
    const auto neg = [] {
        auto a = shifted<double>(10, [](std::int64_t) { return 0.0; });
        for (auto& v : a.values) v = -v;
        return a;
    }();
    const auto b = rhs<double>(neg.nrows);
    std::vector<double> x(b.size());
    EXPECT_TRUE(run(neg, b, x, gi::Method::minres, gi::PrecondKind::none).converged);
    const auto r = run(neg, b, x, gi::Method::minres, gi::PrecondKind::jacobi);
    EXPECT_EQ(r.reason, gi::StopReason::breakdown) << r.message;
    EXPECT_NE(r.message.find("not positive definite"), std::string::npos) << r.message;
    // maxit, b = 0
    gi::SolverOptions so;
    so.method = gi::Method::minres;
    so.maxit = 3;
    const auto a = shifted<double>(10, [](std::int64_t) { return -0.3; });
    auto m3 = gi::solve<double>(gi::csr_operator(a.view(), gi::Backend::omp), b, x, nullptr, so);
    EXPECT_EQ(m3.reason, gi::StopReason::max_iterations);
    EXPECT_EQ(m3.iterations, 3);
    std::vector<double> zero(b.size(), 0.0);
    EXPECT_TRUE(gi::solve<double>(gi::csr_operator(a.view(), gi::Backend::omp), zero, x, nullptr, so).converged);
    // ILU(0) is not symmetric: misuse
    gi::PrecondOptions po;
    po.kind = gi::PrecondKind::ilu0;
    const auto ilu = gi::make_preconditioner(a.view(), po);
    EXPECT_THROW(gi::solve<double>(gi::csr_operator(a.view(), gi::Backend::omp), b, x, ilu.get(), so), gs::InvalidArgument);
    EXPECT_EQ(gi::parse_method("minres"), gi::Method::minres);
    EXPECT_STREQ(gi::to_string(gi::Method::minres), "minres");
}
