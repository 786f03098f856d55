// tests/iterative/test_lusgs.cpp: the 5x5-block CFD proxy and LU-SGS sweeps: structure, equivalence with SGS, orderings, parallel = sequential.
#include <gtest/gtest.h>

#include <cmath>

#include <gigasparse/iterative/krylov.hpp>
#include <gigasparse/iterative/lusgs.hpp>

#include "utils/test_utils.hpp"

namespace gi = gigasparse::iterative;
using Bsr = gi::Bsr<double, std::int32_t>;

namespace {

Bsr proxy(std::int64_t n, int block, bool renumber) {
    gi::CfdProxyOptions o;
    o.nx = o.ny = o.nz = n;
    o.block = block;
    o.renumber = renumber;
    return gi::cfd_proxy<double, std::int32_t>(o);
}

gi::OrderingOptions ordering(gi::OrderingKind k) {
    gi::OrderingOptions o;
    o.kind = k;
    o.dc_min_leaf = 64;
    return o;
}

}  // namespace

TEST(IterativeLuSgs, ProxyHasSevenPointBlockStructure) {
    const Bsr a = proxy(6, 5, false);
    EXPECT_EQ(a.nbrows, 216);
    EXPECT_EQ(a.block, 5);
    EXPECT_EQ(a.nnzb(), 216 + 2 * 3 * 6 * 6 * 5);  // diagonal + two blocks per interior face
    const Bsr r = proxy(6, 5, true);
    EXPECT_EQ(r.nnzb(), a.nnzb());
    EXPECT_NE(r.col_idx, a.col_idx);  // renumbered
}

TEST(IterativeLuSgs, BlockSizeOneNaturalEqualsPointSgs) {
    const Bsr a = proxy(8, 1, false);
    const auto point = gi::bsr_to_csr(a);
    gi::PrecondOptions po;
    po.kind = gi::PrecondKind::sgs;
    const auto sgs = gi::make_preconditioner(point.view(), po);
    const gi::LuSgs<double, std::int32_t> lusgs(a, ordering(gi::OrderingKind::natural), gi::ScheduleOptions{});
    std::vector<double> r(point.nrows), z0(point.nrows), z1(point.nrows);
    for (std::size_t i = 0; i < r.size(); ++i) r[i] = std::sin(double(i));
    sgs->apply(r, z0);
    lusgs.apply(r, z1);
    for (std::size_t i = 0; i < r.size(); ++i) ASSERT_NEAR(z0[i], z1[i], 1e-12 * (1 + std::abs(z0[i])));
}

TEST(IterativeLuSgs, SweepsReduceTheResidualUnderEveryOrderingAndMatchSequential) {
    const Bsr a = proxy(12, 5, true);
    const std::int64_t n = a.nrows();
    std::vector<double> b(n, 1.0);
    for (const auto k : {gi::OrderingKind::natural, gi::OrderingKind::rcm, gi::OrderingKind::multicolor, gi::OrderingKind::abmc,
                         gi::OrderingKind::dc}) {
        const gi::LuSgs<double, std::int32_t> par(a, ordering(k), gi::ScheduleOptions{gi::Backend::omp, gi::SyncKind::point_to_point, 2, 64});
        const gi::LuSgs<double, std::int32_t> seq(a, ordering(k), gi::ScheduleOptions{gi::Backend::reference});
        ASSERT_TRUE(par.info().status.ok);
        std::vector<double> xp(n, 0.0), xs(n, 0.0);
        const auto dp = par.iterate(b, xp, 8), ds = seq.iterate(b, xs, 8);
        for (std::size_t s = 1; s < dp.size(); ++s) EXPECT_LT(dp[s], dp[s - 1]) << gi::to_string(k) << " sweep " << s;
        EXPECT_LT(dp.back(), 1e-2) << gi::to_string(k);
        for (std::int64_t i = 0; i < n; ++i) ASSERT_NEAR(xp[i], xs[i], 1e-12 * (1 + std::abs(xs[i]))) << gi::to_string(k);
        if (k == gi::OrderingKind::multicolor) {  // greedy coloring of a renumbered 7-point graph: <= degree + 1 colors
            EXPECT_LE(par.info().depth, 7);
        }
    }
}

TEST(IterativeLuSgs, PreconditionsGmres) {
    const Bsr a = proxy(10, 5, false);
    const auto point = gi::bsr_to_csr(a);
    const gi::LuSgs<double, std::int32_t> m(a, ordering(gi::OrderingKind::dc), gi::ScheduleOptions{});
    std::vector<double> b(point.nrows, 1.0), x(point.nrows, 0.0), x0(point.nrows, 0.0);
    gi::SolverOptions so;
    so.method = gi::Method::gmres;
    const auto r = gi::solve<double>(gi::csr_operator(point.view(), gi::Backend::omp), b, x, &m, so);
    const auto r0 = gi::solve<double>(gi::csr_operator(point.view(), gi::Backend::omp), b, x0, nullptr, so);
    EXPECT_TRUE(r.converged) << r.message;
    EXPECT_LT(r.iterations, r0.iterations);
}
