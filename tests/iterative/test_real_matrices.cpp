// tests/iterative/test_real_matrices.cpp: preconditioned Krylov solves on real SPD and unsymmetric matrices of ../shared/matrices.
#include <gtest/gtest.h>

#include <cmath>

#include <gigasparse/io/matrix_market.hpp>
#include <gigasparse/iterative/krylov.hpp>
#include <gigasparse/reference/kernels.hpp>

#include "utils/test_utils.hpp"

namespace gi = gigasparse::iterative;
using Mat = gigasparse::Csr<double, std::int32_t>;

namespace {

// Solves A x = A·1 and returns the true relative residual (or -1 when it did not converge).
double solve_real(const std::string& file, gi::Method method, gi::PrecondKind pk, gi::OrderingKind ok, std::int64_t maxit) {
    const Mat a = gigasparse::io::read_mtx<double, std::int32_t>(gigasparse::test::matrix_dir() + "/" + file);
    std::vector<double> ones(a.nrows, 1.0), b(a.nrows), x(a.nrows, 0.0), r(a.nrows);
    gigasparse::reference::spmv<double, std::int32_t>(a.view(), ones, b);
    gi::PrecondOptions po;
    po.kind = pk;
    po.ordering.kind = ok;
    const auto m = gi::make_preconditioner(a.view(), po);
    gi::SolverOptions so;
    so.method = method;
    so.maxit = maxit;
    so.restart = 50;
    const auto res = gi::solve<double>(gi::csr_operator(a.view(), gi::Backend::omp), b, x, m.get(), so);
    if (!res.converged) return -1;
    gigasparse::reference::spmv<double, std::int32_t>(a.view(), x, r);
    double rn = 0, bn = 0;
    for (std::int64_t i = 0; i < a.nrows; ++i) rn += (b[i] - r[i]) * (b[i] - r[i]), bn += b[i] * b[i];
    return std::sqrt(rn / bn);
}

}  // namespace

TEST(IterativeRealMatrices, SpdWithIc0AndJacobiPcg) {
    if (gigasparse::test::matrix_dir().empty()) GTEST_SKIP() << "../shared/matrices not found";
    for (const auto ok : {gi::OrderingKind::natural, gi::OrderingKind::dc}) {
        const double r = solve_real("494_bus.mtx.gz", gi::Method::cg, gi::PrecondKind::ic0, ok, 2000);
        EXPECT_GE(r, 0) << "494_bus IC(0)-PCG did not converge, ordering " << gi::to_string(ok);
        EXPECT_LE(r, 1e-6);
    }
    const double r = solve_real("685_bus.mtx.gz", gi::Method::cg, gi::PrecondKind::jacobi, gi::OrderingKind::natural, 5000);
    EXPECT_GE(r, 0);
    EXPECT_LE(r, 1e-6);
}

TEST(IterativeRealMatrices, UnsymmetricWithIlu0) {
    if (gigasparse::test::matrix_dir().empty()) GTEST_SKIP() << "../shared/matrices not found";
    for (const auto m : {gi::Method::gmres, gi::Method::bicgstab}) {
        const double r = solve_real("cage8.mtx.gz", m, gi::PrecondKind::ilu0, gi::OrderingKind::natural, 2000);
        EXPECT_GE(r, 0) << "cage8 did not converge with " << gi::to_string(m);
        EXPECT_LE(r, 1e-6);
    }
    const double r = solve_real("cage8.mtx.gz", gi::Method::fgmres, gi::PrecondKind::ilu0, gi::OrderingKind::abmc, 2000);
    EXPECT_GE(r, 0);
    EXPECT_LE(r, 1e-6);
}
