// tests/iterative/test_complex.cpp: the Krylov solvers and preconditioners in complex values: CG on a Hermitian
// positive definite matrix against CG on its real equivalent [[Re, -Im], [Im, Re]] (the same iterates in exact
// arithmetic), every preconditioner and ordering, the non-Hermitian methods, both backends, bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>

#include <gigasparse/core/error.hpp>
#include <gigasparse/gen/generators.hpp>
#include <gigasparse/iterative/krylov.hpp>
#include <gigasparse/reference/kernels.hpp>

#include "utils/test_utils.hpp"

namespace gs = gigasparse;
namespace gi = gigasparse::iterative;
using C = std::complex<double>;

namespace {

// P + shift I + i·coupling·S on an n x n grid (P the 5-point Laplacian, S the real skew-symmetric ±1 of the
// x-neighbours): Hermitian, positive definite for shift > 2·coupling; shift may be complex (then not Hermitian).
gs::Csr<C, std::int32_t> grid_matrix(std::int64_t n, C shift, double coupling) {
    return gs::test::coupled<C>(gs::gen::poisson2d<double, std::int32_t>(n, n), [shift](std::int64_t) { return shift; }, coupling);
}

// [[Re A, -Im A], [Im A, Re A]]: (A x = b) ⇔ (this [Re x; Im x] = [Re b; Im b]), symmetric positive definite
// when A is Hermitian positive definite.
gs::Csr<double, std::int32_t> real_equivalent(const gs::Csr<C, std::int32_t>& a) {
    const std::int64_t n = a.nrows;
    gs::Csr<double, std::int32_t> r(2 * n, 2 * n);
    r.row_ptr.assign(1, 0);
    for (int half = 0; half < 2; ++half)
        for (std::int64_t i = 0; i < n; ++i) {
            for (int block = 0; block < 2; ++block)  // columns of the left block, then the right one: sorted
                for (gs::offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
                    const C v = a.values[k];
                    // row half 0: [Re, -Im]; row half 1: [Im, Re]
                    const double e = half == 0 ? (block == 0 ? v.real() : -v.imag()) : (block == 0 ? v.imag() : v.real());
                    if (e == 0.0) continue;
                    r.col_idx.push_back(static_cast<std::int32_t>(a.col_idx[k] + block * n));
                    r.values.push_back(e);
                }
            r.row_ptr.push_back(static_cast<gs::offset_t>(r.col_idx.size()));
        }
    return r;
}

std::vector<C> rhs(std::int64_t n) {
    std::vector<C> b(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) b[i] = C(std::sin(0.3 * static_cast<double>(i)) + 1.0, std::cos(0.7 * static_cast<double>(i)));
    return b;
}

// ||b - A x|| / ||b|| by the reference SpMV
double true_residual(const gs::Csr<C, std::int32_t>& a, const std::vector<C>& b, const std::vector<C>& x) {
    std::vector<C> r = b;
    gs::reference::spmv<C, std::int32_t>(a.view(), x, r, C(-1), C(1));
    double rr = 0, bb = 0;
    for (std::size_t i = 0; i < b.size(); ++i) rr += std::norm(r[i]), bb += std::norm(b[i]);
    return std::sqrt(rr / bb);
}

gi::SolveResult solve(const gs::Csr<C, std::int32_t>& a, const std::vector<C>& b, std::vector<C>& x, gi::Method method, gi::PrecondKind pk,
                      gi::OrderingKind ok = gi::OrderingKind::natural, gi::Backend be = gi::Backend::omp, double tol = 1e-10) {
    gi::PrecondOptions po;
    po.kind = pk;
    po.ordering.kind = ok;
    po.schedule.backend = be;
    const auto m = gi::make_preconditioner(a.view(), po);
    gi::SolverOptions so;
    so.method = method;
    so.tol = tol;
    so.maxit = 3000;
    so.backend = be;
    std::fill(x.begin(), x.end(), C(0));
    return gi::solve<C>(gi::csr_operator(a.view(), be), b, x, m.get(), so);
}

}  // namespace

// CG on a Hermitian positive definite matrix and on its real equivalent: the same Krylov iterates in exact
// arithmetic (the complex inner product's real part is the real one), so the same count to rounding and the same
// solution; unpreconditioned and with Jacobi (the real equivalent's diagonal is the complex one's, twice).
TEST(IterativeComplex, CgMatchesItsRealEquivalent) {
    const auto h = grid_matrix(24, C(0.5), 0.2);
    const auto r = real_equivalent(h);
    const auto b = rhs(h.nrows);
    std::vector<double> br(2 * b.size());
    for (std::size_t i = 0; i < b.size(); ++i) br[i] = b[i].real(), br[i + b.size()] = b[i].imag();
    for (const gi::Backend be : {gi::Backend::omp, gi::Backend::reference})
        for (const gi::PrecondKind pk : {gi::PrecondKind::none, gi::PrecondKind::jacobi}) {
            SCOPED_TRACE(std::string(gi::to_string(be)) + " " + gi::to_string(pk));
            std::vector<C> x(b.size());
            const auto rc = solve(h, b, x, gi::Method::cg, pk, gi::OrderingKind::natural, be);
            gi::PrecondOptions po;
            po.kind = pk;
            const auto m = gi::make_preconditioner(r.view(), po);
            gi::SolverOptions so;
            so.tol = 1e-10;
            so.maxit = 3000;
            so.backend = be;
            std::vector<double> xr(br.size(), 0.0);
            const auto rr = gi::solve<double>(gi::csr_operator(r.view(), be), br, xr, m.get(), so);
            ASSERT_TRUE(rc.converged) << rc.message;
            ASSERT_TRUE(rr.converged) << rr.message;
            EXPECT_GT(rc.iterations, 20);
            EXPECT_LE(std::abs(rc.iterations - rr.iterations), 1);
            for (std::size_t k = 0; k < 10 && k < rc.residual_history.size(); ++k)
                EXPECT_NEAR(rc.residual_history[k], rr.residual_history[k], 1e-9 * rr.residual_history[0]) << "step " << k;
            double worst = 0;
            for (std::size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::abs(x[i] - C(xr[i], xr[i + x.size()])));
            EXPECT_LE(worst, 1e-8);
            EXPECT_LE(true_residual(h, b, x), 1e-9);
        }
}

// Every preconditioner and ordering on the Hermitian matrix (CG), and the non-Hermitian methods with ILU(0) on a
// shifted Laplacian with loss (complex shift: indefinite real part).
TEST(IterativeComplex, EveryPreconditionerOrderingAndMethod) {
    const auto h = grid_matrix(24, C(0.5), 0.2);
    const auto b = rhs(h.nrows);
    std::vector<C> x(b.size());
    int none_iterations = 0;
    for (const gi::PrecondKind pk : {gi::PrecondKind::none, gi::PrecondKind::jacobi, gi::PrecondKind::ic0, gi::PrecondKind::sgs, gi::PrecondKind::ilu0})
        for (const gi::OrderingKind ok : {gi::OrderingKind::natural, gi::OrderingKind::rcm, gi::OrderingKind::multicolor, gi::OrderingKind::abmc,
                                          gi::OrderingKind::dc, gi::OrderingKind::automatic}) {
            SCOPED_TRACE(std::string(gi::to_string(pk)) + " " + gi::to_string(ok));
            const auto res = solve(h, b, x, gi::Method::cg, pk, ok);
            ASSERT_TRUE(res.converged) << res.message;
            EXPECT_LE(true_residual(h, b, x), 2e-10);
            if (pk == gi::PrecondKind::none) none_iterations = static_cast<int>(res.iterations);
            // IC(0) = L Lᴴ in natural order: far better than none (with Lᵀ in place of Lᴴ it is not even Hermitian;
            // multicolor orders cost IC(0) much of its strength, as for real matrices)
            if (pk == gi::PrecondKind::ic0 && ok == gi::OrderingKind::natural) {
                EXPECT_LT(res.iterations, none_iterations / 2);
            }
        }
    const auto a = grid_matrix(24, C(-0.5, -0.05), 0.0);
    for (const gi::Method method : {gi::Method::bicgstab, gi::Method::gmres, gi::Method::fgmres})
        for (const gi::Backend be : {gi::Backend::omp, gi::Backend::reference}) {
            SCOPED_TRACE(std::string(gi::to_string(method)) + " " + gi::to_string(be));
            const auto res = solve(a, b, x, method, gi::PrecondKind::ilu0, gi::OrderingKind::natural, be);
            ASSERT_TRUE(res.converged) << res.message;
            EXPECT_LE(true_residual(a, b, x), 5e-10);
        }
}

// GMRES(n) ends within n steps on an n x n system (finite termination: the complex Givens rotations and back
// substitution), the iterate exact to rounding.
TEST(IterativeComplex, GmresTerminatesWithinTheDimension) {
    const std::int64_t n = 16;
    gs::Csr<C, std::int32_t> a(n, n);
    a.row_ptr.assign(1, 0);
    for (std::int64_t i = 0; i < n; ++i) {
        for (std::int64_t j = 0; j < n; ++j) {
            a.col_idx.push_back(static_cast<std::int32_t>(j));
            a.values.push_back(C(std::sin(1.0 + static_cast<double>(i * n + j)), std::cos(2.0 * static_cast<double>(i + 3 * j))) + (i == j ? C(3) : C(0)));
        }
        a.row_ptr.push_back(static_cast<gs::offset_t>(a.col_idx.size()));
    }
    std::vector<C> xt(n), b(n);
    for (std::int64_t i = 0; i < n; ++i) xt[i] = C(1.0 + static_cast<double>(i), -0.5 * static_cast<double>(i));
    gs::reference::spmv<C, std::int32_t>(a.view(), xt, b);
    std::vector<C> x(n);
    gi::SolverOptions so;
    so.method = gi::Method::gmres;
    so.restart = static_cast<int>(n);
    so.maxit = n;
    so.tol = 1e-12;
    const auto res = gi::solve<C>(gi::csr_operator(a.view(), gi::Backend::omp), b, x, nullptr, so);
    ASSERT_TRUE(res.converged) << res.message;
    EXPECT_LE(res.iterations, n);
    for (std::int64_t i = 0; i < n; ++i) EXPECT_LE(std::abs(x[i] - xt[i]), 1e-9 * std::abs(xt[n - 1])) << i;
    // the recurrence's residual is the true one
    EXPECT_NEAR(true_residual(a, b, x), res.residual, 1e-10);
}

TEST(IterativeComplex, BadInputAndNumericalFailures) {
    const auto h = grid_matrix(8, C(0.5), 0.2);
    auto b = rhs(h.nrows);
    std::vector<C> x(b.size());
    b[3] = C(1.0, std::numeric_limits<double>::quiet_NaN());
    gi::SolverOptions so;
    EXPECT_THROW(gi::solve<C>(gi::csr_operator(h.view(), gi::Backend::omp), b, x, nullptr, so), gs::InvalidStructure);
    b = rhs(h.nrows);
    // IC(0) of a Hermitian matrix that is not positive definite: a status naming the row
    gi::PrecondOptions po;
    po.kind = gi::PrecondKind::ic0;
    const auto m = gi::make_preconditioner(grid_matrix(8, C(-6.0), 0.2).view(), po);
    EXPECT_FALSE(m->info().status.ok);
    EXPECT_GE(m->info().status.row, 0);
    const auto res = gi::solve<C>(gi::csr_operator(h.view(), gi::Backend::omp), b, x, m.get(), so);
    EXPECT_EQ(res.reason, gi::StopReason::preconditioner_failed);
    // CG on a Hermitian indefinite matrix: a breakdown (pᴴAp <= 0), not an exception
    const auto indef = grid_matrix(8, C(-4.0), 0.2);
    so.maxit = 500;
    const auto r2 = gi::solve<C>(gi::csr_operator(indef.view(), gi::Backend::omp), b, x, nullptr, so);
    EXPECT_FALSE(r2.converged);
}
