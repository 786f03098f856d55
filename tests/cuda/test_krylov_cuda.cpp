// tests/cuda/test_krylov_cuda.cpp: the GPU iterative backend (cuda::spmv, cuda::solve) against the reference
// SpMV and the host Krylov solvers. Built twice: for the GPU (tests/cuda, label cuda, skipped without a
// device) and on the CPU simulator of tests/cuda_sim (GIGASPARSE_CUDA_SIM: the same kernels and dispatch on
// fibers; label unit).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <gigasparse/core/error.hpp>
#include <gigasparse/cuda/device_matrix.hpp>
#include <gigasparse/cuda/iterative.hpp>
#include <gigasparse/gen/generators.hpp>
#include <gigasparse/iterative/krylov.hpp>
#include <gigasparse/iterative/preconditioner.hpp>
#include <gigasparse/reference/kernels.hpp>

#include "cuda/gpu_test_support.hpp"
#include "spgemm_cuda_host/power_law.hpp"
#include "utils/test_utils.hpp"

#ifdef GIGASPARSE_CUDA_SIM
#include "iterative/cuda/krylov_dispatch.cuh"
#endif

namespace gs = gigasparse;
namespace it = gigasparse::iterative;
using gs::cuda::GpuPrecond;
using gs::cuda::GpuSolveOptions;
using gs::cuda::GpuSolveStats;
using gs::cuda::GpuSpmvOptions;

namespace {

template <class V, class I>
using DevMat = gs::cuda::DeviceMatrix<V, I>;

// Runs f (which uploads and computes) and, in the simulator, checks it left a clean device.
template <class F>
auto checked(const char* what, F&& f) {
#ifdef GIGASPARSE_CUDA_SIM
    const SimulatedRunChecks checks;
    auto r = f();
    checks.expect_clean(what);
    return r;
#else
    (void)what;
    return f();
#endif
}

template <class V, class I>
std::vector<V> gpu_spmv(const gs::Csr<V, I>& a, const std::vector<V>& x, std::vector<V> y, V alpha, V beta, GpuSpmvOptions o = {},
                        GpuSolveStats* st = nullptr) {
    return checked("an SpMV", [&] {
        const auto d = DevMat<V, I>::upload(a.view());
        gs::cuda::spmv<V, I>(d, x, y, alpha, beta, o, st);
        return y;
    });
}

template <class V, class I>
void expect_spmv_matches(const gs::Csr<V, I>& a, const std::string& what, GpuSpmvOptions o = {}, std::int64_t want_long_rows = -1) {
    SCOPED_TRACE(what);
    const auto x = gs::test::random_vector<V>(a.ncols, 11);
    const auto y0 = gs::test::random_vector<V>(a.nrows, 12);
    const double tol = std::is_same_v<gs::real_t<V>, float> ? 1e-4 : 1e-12;
    for (const auto& [alpha, beta] : {std::pair<V, V>{V(1), V(0)}, {V(2), V(-0.5)}}) {
        std::vector<V> expected = y0;
        gs::reference::spmv<V, I>(a.view(), x, expected, alpha, beta);
        GpuSolveStats st;
        const auto actual = gpu_spmv(a, x, y0, alpha, beta, o, &st);
        ASSERT_EQ(actual.size(), expected.size());
        double worst = 0, scale = 1;
        for (std::size_t i = 0; i < expected.size(); ++i) {
            worst = std::max(worst, static_cast<double>(std::abs(actual[i] - expected[i])));
            scale = std::max(scale, static_cast<double>(std::abs(expected[i])));
        }
        EXPECT_LE(worst, tol * scale) << "alpha " << alpha << " beta " << beta << ", lanes per row " << st.threads_per_row;
        if (want_long_rows >= 0) {
            EXPECT_EQ(st.long_rows, want_long_rows);
        }
    }
}

// ||b - A x|| / ||b|| from the reference SpMV (real or complex values).
template <class V, class I>
double true_residual(const gs::Csr<V, I>& a, const std::vector<V>& b, const std::vector<V>& x) {
    std::vector<V> r = b;
    gs::reference::spmv<V, I>(a.view(), x, r, V(-1), V(1));
    double rr = 0, bb = 0;
    for (std::size_t i = 0; i < b.size(); ++i) {
        rr += static_cast<double>(std::norm(r[i]));
        bb += static_cast<double>(std::norm(b[i]));
    }
    return std::sqrt(rr / bb);
}

GpuSolveOptions options(it::Method method = it::Method::cg, GpuPrecond precond = GpuPrecond::jacobi, double tol = 1e-8, std::int64_t maxit = 1000) {
    GpuSolveOptions o;
    o.method = method;
    o.precond = precond;
    o.tol = tol;
    o.maxit = maxit;
    return o;
}

template <class V, class I>
it::SolveResult gpu_solve(const gs::Csr<V, I>& a, const std::vector<V>& b, std::vector<V>& x, const GpuSolveOptions& o, GpuSolveStats* st = nullptr) {
    return checked("a solve", [&] {
        const auto d = DevMat<V, I>::upload(a.view());
        return gs::cuda::solve<V, I>(d, b, x, o, st);
    });
}

// A - sigma I (A with every diagonal entry present).
gs::Csr<double, std::int32_t> shifted(const gs::Csr<double, std::int32_t>& a, double sigma) {
    return gs::test::coupled<double>(a, [sigma](std::int64_t) { return -sigma; });
}

// P + shift I + i c K, P a real pattern, K the Hermitian coupling of each row to the next (+i above, -i below the
// diagonal): Hermitian; with c = 0 and a complex shift, complex symmetric instead.
template <class C, class I>
gs::Csr<C, I> complexified(const gs::Csr<double, I>& p, C shift, double c) {
    return gs::test::coupled<C>(p, [shift](std::int64_t) { return shift; }, c);
}

// The solve of options o (graphs on) gave r, x and st: launched kernel by kernel it gives the same bits.
void expect_same_without_graphs(const gs::Csr<double, std::int32_t>& a, const std::vector<double>& b, GpuSolveOptions o,
                                const it::SolveResult& r, const std::vector<double>& x, const GpuSolveStats& st) {
    o.graphs = false;
    std::vector<double> xk(b.size(), 0.0);
    GpuSolveStats sk;
    const auto rk = gpu_solve(a, b, xk, o, &sk);
    EXPECT_EQ(rk.residual_history, r.residual_history);
    EXPECT_EQ(xk, x);
    EXPECT_EQ(sk.graph_launches, 0);
    EXPECT_EQ(sk.spmv_calls, st.spmv_calls);
}


template <class V, class I>
it::SolveResult host_solve(const gs::Csr<V, I>& a, const std::vector<V>& b, std::vector<V>& x, it::Method method, it::PrecondKind kind, double tol,
                           it::OrderingKind ordering = it::OrderingKind::natural) {
    it::PrecondOptions po;
    po.kind = kind;
    po.ordering.kind = ordering;
    const auto m = it::make_preconditioner(a.view(), po);
    it::SolverOptions so;
    so.method = method;
    so.tol = tol;
    so.maxit = 5000;
    so.backend = it::Backend::reference;
    return it::solve<V>(it::csr_operator(a.view(), it::Backend::reference), b, x, m.get(), so);
}

}  // namespace

TEST(CudaKrylov, BuiltWithoutCudaThrowsNotSupported) {
    if (gs::config::with_cuda || simulated) GTEST_SKIP() << "built with CUDA";
    const auto a = gs::test::random_csr<double, std::int32_t>(10, 10, 2, 1);
    EXPECT_THROW((DevMat<double, std::int32_t>::upload(a.view())), gs::NotSupported);
}

TEST(CudaKrylov, SpmvSizesAcrossWarpAndBlockBoundaries) {
    SKIP_WITHOUT_GPU();
    for (std::int64_t n : {1, 31, 33, 255, 257, 1025}) {
        for (double per_row : {0.5, 3.0, 12.0, 40.0}) {  // 1, 4, 16 and 32 lanes per row
            const auto a = gs::test::random_csr<double, std::int32_t>(n, n, per_row, static_cast<std::uint64_t>(n * 10 + per_row));
            expect_spmv_matches(a, "random n=" + std::to_string(n) + " per row " + std::to_string(per_row));
        }
    }
}

TEST(CudaKrylov, SpmvEmptyRowsRectangularAndLongRows) {
    SKIP_WITHOUT_GPU();
    const auto empty = gs::test::random_csr<double, std::int32_t>(sim_or(700, 50000), sim_or(900, 60000), 6, 3, 0.4);
    expect_spmv_matches(empty, "40% empty rows, rectangular");
    const auto wide = gs::test::random_csr<double, std::int32_t>(sim_or(40, 400), sim_or(3000, 200000), 300, 4);
    expect_spmv_matches(wide, "short and wide");
    const auto tall = gs::test::random_csr<double, std::int32_t>(sim_or(2000, 200000), 5, 2, 5);
    expect_spmv_matches(tall, "tall and narrow");
    // an R-MAT matrix: its hubs pass the automatic threshold; a forced low threshold sends most rows
    // through the block-per-row kernel
    const auto rmat = gs::test::rmat_like<double, std::int32_t>(static_cast<int>(sim_or(11, 18)), static_cast<int>(sim_or(11, 18)), 8, 6);
    GpuSolveStats st;
    const auto x = gs::test::random_vector<double>(rmat.ncols, 1);
    (void)gpu_spmv(rmat, x, std::vector<double>(static_cast<std::size_t>(rmat.nrows)), 1.0, 0.0, {}, &st);
    std::int64_t longer = 0;
    for (std::int64_t r = 0; r < rmat.nrows; ++r) longer += rmat.row_ptr[r + 1] - rmat.row_ptr[r] > st.long_row_threshold;
    EXPECT_GT(longer, 0) << "the R-MAT case must reach the long-row kernel";
    expect_spmv_matches(rmat, "rmat automatic threshold", {}, longer);
    std::int64_t over4 = 0;
    for (std::int64_t r = 0; r < rmat.nrows; ++r) over4 += rmat.row_ptr[r + 1] - rmat.row_ptr[r] > 4;
    expect_spmv_matches(rmat, "rmat threshold 4", GpuSpmvOptions{.long_row = 4}, over4);
}

TEST(CudaKrylov, SpmvFloatInt64UnsortedAndBetaZeroIgnoresNaN) {
    SKIP_WITHOUT_GPU();
    const auto a = gs::test::unsort_rows(gs::test::random_csr<float, std::int64_t>(sim_or(500, 20000), sim_or(500, 20000), 9, 7), 8);
    expect_spmv_matches(a, "float, int64, unsorted rows");
    const auto b = gs::test::random_csr<double, std::int32_t>(300, 300, 5, 9);
    const auto x = gs::test::random_vector<double>(300, 2);
    std::vector<double> expected(300);
    gs::reference::spmv<double, std::int32_t>(b.view(), x, expected, 1.0, 0.0);
    const auto actual = gpu_spmv(b, x, std::vector<double>(300, std::numeric_limits<double>::quiet_NaN()), 1.0, 0.0);
    for (std::size_t i = 0; i < 300; ++i) ASSERT_NEAR(actual[i], expected[i], 1e-12) << "row " << i;
}

TEST(CudaKrylov, SpmvMisuseThrows) {
    SKIP_WITHOUT_GPU();
    const auto a = gs::test::random_csr<double, std::int32_t>(20, 30, 3, 1);
    const auto d = DevMat<double, std::int32_t>::upload(a.view());
    std::vector<double> x(20), y(20);
    EXPECT_THROW((gs::cuda::spmv<double, std::int32_t>(d, x, y)), gs::DimensionMismatch);
    EXPECT_THROW((gs::cuda::spmv<double, std::int32_t>(DevMat<double, std::int32_t>(), x, y)), gs::InvalidArgument);
}

// The GPU CG follows the host's recurrence: the same iteration count up to rounding (±2) and the
// same final accuracy, with and without Jacobi.
TEST(CudaKrylov, CgMatchesTheHostSolver) {
    SKIP_WITHOUT_GPU();
    const std::int64_t m = sim_or(12, 64);
    const auto a = gs::gen::poisson3d<double, std::int32_t>(m, m, m);
    // a varying diagonal, so that Jacobi changes the iteration
    auto scaled = a;
    for (std::int64_t r = 0; r < scaled.nrows; ++r)
        for (gs::offset_t k = scaled.row_ptr[r]; k < scaled.row_ptr[r + 1]; ++k)
            if (scaled.col_idx[k] == r) scaled.values[k] *= 1.0 + static_cast<double>(r % 7);
    for (const gs::Csr<double, std::int32_t>* mat : {&a, static_cast<const gs::Csr<double, std::int32_t>*>(&scaled)}) {
        const auto b = gs::test::random_vector<double>(mat->nrows, 3);
        for (const auto& [gpc, hpc] : {std::pair{GpuPrecond::none, it::PrecondKind::none}, std::pair{GpuPrecond::jacobi, it::PrecondKind::jacobi}}) {
            SCOPED_TRACE(std::string(mat == &a ? "poisson" : "scaled poisson") + ", " + gs::cuda::to_string(gpc));
            std::vector<double> xh(b.size(), 0.0), xg(b.size(), 0.0);
            const auto rh = host_solve(*mat, b, xh, it::Method::cg, hpc, 1e-10);
            GpuSolveStats st;
            const auto rg = gpu_solve(*mat, b, xg, options(it::Method::cg, gpc, 1e-10, 5000), &st);
            ASSERT_TRUE(rh.converged) << rh.message;
            ASSERT_TRUE(rg.converged) << rg.message;
            EXPECT_NEAR(static_cast<double>(rg.iterations), static_cast<double>(rh.iterations), 2.0);
            EXPECT_LE(true_residual(*mat, b, xg), 1e-9);
            ASSERT_EQ(rg.residual_history.size(), static_cast<std::size_t>(rg.iterations + 1));
            EXPECT_DOUBLE_EQ(rg.residual_history.back(), rg.residual);
            // the first residual, one per iteration, and those queued after the stop in the last batch (they only launch)
            EXPECT_GE(st.spmv_calls, rg.iterations + 1);
            EXPECT_LE(st.spmv_calls, rg.iterations + GpuSolveOptions{}.check_every);
            EXPECT_EQ(st.threads_per_row, 8);             // 7-point rows
        }
    }
}

TEST(CudaKrylov, BicgstabOnConvectionDiffusion) {
    SKIP_WITHOUT_GPU();
    const std::int64_t m = sim_or(10, 48);
    const auto a = gs::gen::convection_diffusion<double, std::int32_t>(m, m, m, 20.0, -10.0, 5.0);
    const auto b = gs::test::random_vector<double>(a.nrows, 4);
    for (const auto& [gpc, hpc] : {std::pair{GpuPrecond::none, it::PrecondKind::none}, std::pair{GpuPrecond::jacobi, it::PrecondKind::jacobi}}) {
        SCOPED_TRACE(gs::cuda::to_string(gpc));
        std::vector<double> xh(b.size(), 0.0), xg(b.size(), 0.0);
        const auto rh = host_solve(a, b, xh, it::Method::bicgstab, hpc, 1e-9);
        const auto rg = gpu_solve(a, b, xg, options(it::Method::bicgstab, gpc, 1e-9, 5000));
        ASSERT_TRUE(rh.converged) << rh.message;
        ASSERT_TRUE(rg.converged) << rg.message;
        // BiCGStab amplifies rounding differences more than CG: within 10% (and 3) of the host's count
        EXPECT_LE(std::abs(static_cast<double>(rg.iterations - rh.iterations)), 3.0 + 0.1 * static_cast<double>(rh.iterations));
        EXPECT_LE(true_residual(a, b, xg), 1e-8);
    }
}

// GMRES(m) and FGMRES: classical Gram–Schmidt twice on the device against the host's modified Gram–Schmidt — the
// same iterate in exact arithmetic, so the same iteration count to rounding; with restarts (m = 8) and without,
// with each preconditioner kind (none, Jacobi, ILU(0) sweeps on the device).
TEST(CudaKrylov, GmresMatchesTheHostSolver) {
    SKIP_WITHOUT_GPU();
    const std::int64_t m = sim_or(8, 40);
    const auto a = gs::gen::convection_diffusion<double, std::int32_t>(m, m, m, 20.0, -10.0, 5.0);
    const auto b = gs::test::random_vector<double>(a.nrows, 31);
    struct Case {
        it::Method method;
        GpuPrecond gpu;
        it::PrecondKind host;
        int restart;
    };
    for (const Case& c : {Case{it::Method::gmres, GpuPrecond::none, it::PrecondKind::none, 8}, Case{it::Method::gmres, GpuPrecond::jacobi, it::PrecondKind::jacobi, 8},
                          Case{it::Method::gmres, GpuPrecond::ilu0, it::PrecondKind::ilu0, 30}, Case{it::Method::fgmres, GpuPrecond::ilu0, it::PrecondKind::ilu0, 8},
                          Case{it::Method::fgmres, GpuPrecond::none, it::PrecondKind::none, 30}}) {
        SCOPED_TRACE(std::string(it::to_string(c.method)) + " " + gs::cuda::to_string(c.gpu) + " restart " + std::to_string(c.restart));
        // the host solver on the GPU's ordering of the sweeps (multicolor)
        it::PrecondOptions po;
        po.kind = c.host;
        po.ordering.kind = it::OrderingKind::multicolor;
        const auto pm = it::make_preconditioner(a.view(), po);
        it::SolverOptions so;
        so.method = c.method;
        so.tol = 1e-9;
        so.maxit = 5000;
        so.restart = c.restart;
        so.backend = it::Backend::reference;
        std::vector<double> xh(b.size(), 0.0), xg(b.size(), 0.0);
        const auto rh = it::solve<double>(it::csr_operator(a.view(), it::Backend::reference), b, xh, pm.get(), so);
        auto o = options(c.method, c.gpu, 1e-9, 5000);
        o.restart = c.restart;
        GpuSolveStats st;
        const auto rg = gpu_solve(a, b, xg, o, &st);
        ASSERT_TRUE(rh.converged) << rh.message;
        ASSERT_TRUE(rg.converged) << rg.message;
        EXPECT_LE(std::abs(static_cast<double>(rg.iterations - rh.iterations)), 2.0 + 0.02 * static_cast<double>(rh.iterations));
        EXPECT_LE(true_residual(a, b, xg), 1e-8);
        ASSERT_EQ(rg.residual_history.size(), static_cast<std::size_t>(rg.iterations + 1));
        // one SpMV per iteration, one per cycle's residual (the first, and each restart's), and the steps queued
        // after the stop in its batch (check_every 8: at most 7)
        const std::int64_t cycles = (rg.iterations + c.restart - 1) / c.restart;
        EXPECT_GE(st.spmv_calls, rg.iterations + 1);
        EXPECT_LE(st.spmv_calls, rg.iterations + cycles + 1 + std::min(c.restart, 8) - 1);
        EXPECT_GT(st.graph_launches, 0);
    }
    // maxit inside a cycle, and a matrix whose Krylov space is exhausted (a diagonal with three distinct values:
    // converged after three steps, within the first cycle)
    std::vector<double> x(b.size(), 0.0);
    auto o = options(it::Method::gmres, GpuPrecond::none, 1e-12, 5);
    o.restart = 4;
    auto r = gpu_solve(a, b, x, o);
    EXPECT_EQ(r.reason, it::StopReason::max_iterations);
    EXPECT_EQ(r.iterations, 5);
    gs::Csr<double, std::int32_t> diag(6, 6);
    diag.row_ptr = {0, 1, 2, 3, 4, 5, 6};
    diag.col_idx = {0, 1, 2, 3, 4, 5};
    diag.values = {1.0, 2.0, 3.0, 1.0, 2.0, 3.0};
    std::vector<double> b6(6, 1.0), x6(6, 0.0);
    r = gpu_solve(diag, b6, x6, options(it::Method::gmres, GpuPrecond::none, 1e-12, 100));
    EXPECT_TRUE(r.converged) << r.message;
    EXPECT_LE(r.iterations, 3);
    for (int i = 0; i < 6; ++i) EXPECT_NEAR(x6[i], 1.0 / diag.values[i], 1e-12);
}

// MINRES: the host solver's recurrence (iterative::minres_rotate) on the device. On a symmetric indefinite matrix with
// no preconditioner, Jacobi and SGS (positive definite: the diagonal stays positive), and on an SPD one with IC(0):
// the host's iterations within 2 + 2%, the same residual history to rounding over the first 30 iterations (down to
// 1e-5), a true
// residual at the tolerance; statuses for an indefinite preconditioner, a singular system and maxit.
TEST(CudaKrylov, MinresMatchesTheHostSolver) {
    SKIP_WITHOUT_GPU();
    const std::int64_t m = sim_or(8, 40);
    const auto spd = gs::gen::poisson3d<double, std::int32_t>(m, m, m);
    const auto ind = shifted(spd, 1.3);  // eigenvalues of the 7-point Laplacian fill (0, 12): indefinite
    const auto b = gs::test::random_vector<double>(spd.nrows, 41);
    struct Case {
        const gs::Csr<double, std::int32_t>* a;
        GpuPrecond gpu;
        it::PrecondKind host;
    };
    for (const Case& c : {Case{&ind, GpuPrecond::none, it::PrecondKind::none}, Case{&ind, GpuPrecond::jacobi, it::PrecondKind::jacobi},
                          Case{&ind, GpuPrecond::sgs, it::PrecondKind::sgs}, Case{&spd, GpuPrecond::ic0, it::PrecondKind::ic0}}) {
        SCOPED_TRACE(std::string(gs::cuda::to_string(c.gpu)) + (c.a == &spd ? " spd" : " indefinite"));
        std::vector<double> xh(b.size(), 0.0), xg(b.size(), 0.0);
        const auto rh = host_solve(*c.a, b, xh, it::Method::minres, c.host, 1e-9, it::OrderingKind::multicolor);
        GpuSolveStats st;
        const auto rg = gpu_solve(*c.a, b, xg, options(it::Method::minres, c.gpu, 1e-9, 5000), &st);
        ASSERT_TRUE(rh.converged) << rh.message;
        ASSERT_TRUE(rg.converged) << rg.message;
        EXPECT_LE(std::abs(static_cast<double>(rg.iterations - rh.iterations)), 2.0 + 0.02 * static_cast<double>(rh.iterations));
        EXPECT_LE(true_residual(*c.a, b, xg), c.gpu == GpuPrecond::none ? 2e-9 : 1e-7);
        ASSERT_EQ(rg.residual_history.size(), static_cast<std::size_t>(rg.iterations + 1));
        // (below 1e-5 the two reduction orders' rounding, amplified by the Lanczos vectors' loss of orthogonality, is
        // no longer small against the residual: measured 1e-4 relative at 5e-7 with SGS, a factor 2 at 1e-8)
        for (std::size_t i = 0; i < 30 && i < rh.residual_history.size() && i < rg.residual_history.size() && rh.residual_history[i] > 1e-5; ++i)
            EXPECT_NEAR(rg.residual_history[i], rh.residual_history[i], 1e-6 * rh.residual_history[i]) << "iteration " << i;
        EXPECT_GT(st.graph_launches, 0);
    }
    // maxit; a Jacobi of a negative diagonal is not positive definite (breakdown before the first iteration, as the
    // host's); a diagonal with three distinct values converges in three iterations
    std::vector<double> x(b.size(), 0.0);
    auto r = gpu_solve(ind, b, x, options(it::Method::minres, GpuPrecond::none, 1e-12, 5));
    EXPECT_EQ(r.reason, it::StopReason::max_iterations);
    EXPECT_EQ(r.iterations, 5);
    gs::Csr<double, std::int32_t> diag(6, 6);
    diag.row_ptr = {0, 1, 2, 3, 4, 5, 6};
    diag.col_idx = {0, 1, 2, 3, 4, 5};
    diag.values = {1.0, -2.0, 3.0, 1.0, -2.0, 3.0};
    std::vector<double> b6 = {0.0, 1.0, 0.0, 0.0, 1.0, 0.0}, x6(6, 0.0), xh6(6, 0.0);
    r = gpu_solve(diag, b6, x6, options(it::Method::minres, GpuPrecond::jacobi));
    const auto rh = host_solve(diag, b6, xh6, it::Method::minres, it::PrecondKind::jacobi, 1e-8);
    EXPECT_EQ(r.reason, it::StopReason::breakdown) << r.message;
    EXPECT_EQ(rh.reason, it::StopReason::breakdown) << rh.message;
    EXPECT_NE(r.message.find("positive definite"), std::string::npos) << r.message;
    std::fill(b6.begin(), b6.end(), 1.0);
    r = gpu_solve(diag, b6, x6, options(it::Method::minres, GpuPrecond::none, 1e-12, 100));
    EXPECT_TRUE(r.converged) << r.message;
    EXPECT_LE(r.iterations, 3);
    for (int i = 0; i < 6; ++i) EXPECT_NEAR(x6[i], 1.0 / diag.values[i], 1e-12);
    // ILU(0) is refused, as on the host
    const auto d = DevMat<double, std::int32_t>::upload(ind.view());
    EXPECT_THROW((gs::cuda::solve<double, std::int32_t>(d, b, x, options(it::Method::minres, GpuPrecond::ilu0))), gs::InvalidArgument);
}

// Complex values: the SpMV (lanes per row, long rows) against the reference, and every method against the host's
// solver on the same complex system (Hermitian inner products xᴴy on both): CG with none, Jacobi and IC(0) = L Lᴴ on a
// Hermitian positive definite matrix, MINRES on a Hermitian indefinite one, BiCGStab, GMRES(30) and FGMRES on a lossy
// shifted Laplacian (complex symmetric); the host's iterations within 2 + 2% (BiCGStab 3 + 10%), the history to 1e-6
// down to 1e-5, a true residual at the tolerance; complex<float> with int64 columns.
TEST(CudaKrylov, ComplexValuesMatchTheHost) {
    SKIP_WITHOUT_GPU();
    using C = std::complex<double>;
    const std::int64_t m = sim_or(8, 32);
    const auto p = gs::gen::poisson3d<double, std::int32_t>(m, m, m);
    const auto herm = complexified<C>(p, C(0.1), 0.05);
    // the indefinite one on a smaller grid: the shifted Laplacian's eigenvalues near 0 crowd as the grid grows, and
    // unpreconditioned MINRES on the host needed 254 (12³), 621 (16³), 2551 (24³) iterations, and more than 5000 on
    // 32³ (the first H200 run stopped there, on the host's solve)
    const std::int64_t mi = sim_or(8, 16);
    const auto hind = complexified<C>(gs::gen::poisson3d<double, std::int32_t>(mi, mi, mi), C(-1.3), 0.05);
    const auto bi = gs::test::random_vector<C>(hind.nrows, 53);
    const auto helm = complexified<C>(p, C(-0.3, -0.03), 0.0);
    const auto b = gs::test::random_vector<C>(p.nrows, 51);
    {  // SpMV: a complex R-MAT-like matrix with long rows, and the Hermitian one
        auto rm = gs::test::rmat_like<double, std::int32_t>(7, 7, 6, 52);
        const auto rc = complexified<C>(rm, C(0.5, 0.25), 0.0);
        expect_spmv_matches(rc, "complex rmat, long rows over 4", GpuSpmvOptions{.long_row = 4});
        expect_spmv_matches(herm, "complex hermitian 7-point");
    }
    struct Case {
        const gs::Csr<C, std::int32_t>* a;
        it::Method method;
        GpuPrecond gpu;
        it::PrecondKind host;
        double slack;  // allowed iteration difference: slack * host iterations + 2 (BiCGStab: + 3)
    };
    for (const Case& c : {Case{&herm, it::Method::cg, GpuPrecond::none, it::PrecondKind::none, 0.02},
                          Case{&herm, it::Method::cg, GpuPrecond::jacobi, it::PrecondKind::jacobi, 0.02},
                          Case{&herm, it::Method::cg, GpuPrecond::ic0, it::PrecondKind::ic0, 0.02},
                          Case{&hind, it::Method::minres, GpuPrecond::none, it::PrecondKind::none, 0.02},
                          Case{&hind, it::Method::minres, GpuPrecond::jacobi, it::PrecondKind::jacobi, 0.02},
                          Case{&helm, it::Method::bicgstab, GpuPrecond::none, it::PrecondKind::none, 0.1},
                          Case{&helm, it::Method::bicgstab, GpuPrecond::ilu0, it::PrecondKind::ilu0, 0.1},
                          Case{&helm, it::Method::gmres, GpuPrecond::jacobi, it::PrecondKind::jacobi, 0.02},
                          Case{&helm, it::Method::gmres, GpuPrecond::ilu0, it::PrecondKind::ilu0, 0.02},
                          Case{&helm, it::Method::fgmres, GpuPrecond::ilu0, it::PrecondKind::ilu0, 0.02}}) {
        SCOPED_TRACE(std::string(it::to_string(c.method)) + " " + gs::cuda::to_string(c.gpu) +
                     (c.a == &herm ? " hermitian" : c.a == &hind ? " hermitian indefinite" : " helmholtz"));
        const std::vector<C>& rhs = c.a == &hind ? bi : b;
        std::vector<C> xh(rhs.size(), C(0)), xg(rhs.size(), C(0));
        const auto rh = host_solve(*c.a, rhs, xh, c.method, c.host, 1e-9, it::OrderingKind::multicolor);
        GpuSolveStats st;
        const auto rg = gpu_solve(*c.a, rhs, xg, options(c.method, c.gpu, 1e-9, 5000), &st);
        ASSERT_TRUE(rh.converged) << rh.message;
        ASSERT_TRUE(rg.converged) << rg.message;
        const double extra = c.method == it::Method::bicgstab ? 3.0 : 2.0;
        EXPECT_LE(std::abs(static_cast<double>(rg.iterations - rh.iterations)), extra + c.slack * static_cast<double>(rh.iterations))
            << "host " << rh.iterations << ", gpu " << rg.iterations;
        EXPECT_LE(true_residual(*c.a, rhs, xg), c.method == it::Method::minres && c.gpu != GpuPrecond::none ? 1e-7 : 2e-9);
        for (std::size_t i = 0; i < 30 && i < rh.residual_history.size() && i < rg.residual_history.size() && rh.residual_history[i] > 1e-5; ++i)
            EXPECT_NEAR(rg.residual_history[i], rh.residual_history[i], 1e-6 * rh.residual_history[i]) << "iteration " << i;
        EXPECT_GT(st.graph_launches, 0);
    }
    // complex<float>, int64 columns: CG with Jacobi to single precision
    using F = std::complex<float>;
    gs::Csr<F, std::int64_t> hf(herm.nrows, herm.ncols);
    hf.row_ptr = herm.row_ptr;
    hf.col_idx.assign(herm.col_idx.begin(), herm.col_idx.end());
    for (const C v : herm.values) hf.values.push_back(F(v));
    std::vector<F> bf(b.begin(), b.end()), xf(b.size(), F(0));
    const auto rf = gpu_solve(hf, bf, xf, options(it::Method::cg, GpuPrecond::jacobi, 1e-5, 5000));
    ASSERT_TRUE(rf.converged) << rf.message;
    EXPECT_LE(true_residual(hf, bf, xf), 1e-4);
    // NaN in b is misuse, as for real values
    std::vector<C> bad = b, x(b.size(), C(0));
    bad[3] = C(0, std::numeric_limits<double>::quiet_NaN());
    const auto d = DevMat<C, std::int32_t>::upload(herm.view());
    EXPECT_THROW((gs::cuda::solve<C, std::int32_t>(d, bad, x)), gs::InvalidStructure);
}

// float values, int64 columns: CG with Jacobi against the host's float CG (reference backend). In float, CG's
// recurrence residual drifts from the true one as the condition number grows: both stop at 1e-5 on the recurrence,
// and on the 512² Laplacian the host's true residual is 4.3e-2 (1.8e-5 at 24², 1.1e-3 at 128²; the first H200
// run measured 2.6e-2 on the GPU). So the GPU must match the host's iterations and be at least as accurate.
TEST(CudaKrylov, FloatAndInt64) {
    SKIP_WITHOUT_GPU();
    const std::int64_t m = sim_or(24, 512);
    const auto a = gs::gen::poisson2d<float, std::int64_t>(m, m);
    std::vector<float> b(static_cast<std::size_t>(a.nrows), 1.0f), x(b.size(), 0.0f), xh(b.size(), 0.0f);
    const auto rh = host_solve(a, b, xh, it::Method::cg, it::PrecondKind::jacobi, 1e-5);
    const auto r = gpu_solve(a, b, x, options(it::Method::cg, GpuPrecond::jacobi, 1e-5, 5000));
    ASSERT_TRUE(rh.converged) << rh.message;
    ASSERT_TRUE(r.converged) << r.message;
    EXPECT_LE(std::abs(static_cast<double>(r.iterations - rh.iterations)), 2.0 + 0.05 * static_cast<double>(rh.iterations))
        << "host " << rh.iterations << ", gpu " << r.iterations;
    const double host_res = true_residual(a, b, xh);
    EXPECT_LE(true_residual(a, b, x), std::max(1e-4, 2.0 * host_res)) << "host's true residual " << host_res;
}

TEST(CudaKrylov, NumericalOutcomesAreStatusesNotExceptions) {
    SKIP_WITHOUT_GPU();
    const auto p = gs::gen::poisson2d<double, std::int32_t>(sim_or(10, 100), sim_or(10, 100));
    const auto b = gs::test::random_vector<double>(p.nrows, 5);
    std::vector<double> x(b.size(), 0.0);
    // maxit reached
    auto r = gpu_solve(p, b, x, options(it::Method::cg, GpuPrecond::jacobi, 1e-8, 3));
    EXPECT_EQ(r.reason, it::StopReason::max_iterations);
    EXPECT_EQ(r.iterations, 3);
    EXPECT_FALSE(r.converged);
    // b = 0 gives x = 0 without an iteration
    std::vector<double> zero(b.size(), 0.0), x1(b.size(), 1.0);
    r = gpu_solve(p, zero, x1, options());
    EXPECT_TRUE(r.converged);
    EXPECT_EQ(r.iterations, 0);
    for (const double v : x1) ASSERT_EQ(v, 0.0);
    // an initial guess that already solves it: converged at iteration 0 (x kept)
    std::vector<double> ones(b.size(), 1.0), ab(b.size());
    gs::reference::spmv<double, std::int32_t>(p.view(), ones, ab);
    std::vector<double> x2 = ones;
    r = gpu_solve(p, ab, x2, options());
    EXPECT_TRUE(r.converged);
    EXPECT_EQ(r.iterations, 0);
    // a zero diagonal: Jacobi fails at that row; without Jacobi the solve runs
    auto holed = p;
    const std::int64_t bad = p.nrows / 2;
    for (gs::offset_t k = holed.row_ptr[bad]; k < holed.row_ptr[bad + 1]; ++k)
        if (holed.col_idx[k] == bad) holed.values[k] = 0;
    std::fill(x.begin(), x.end(), 0.0);
    r = gpu_solve(holed, b, x, options());
    EXPECT_EQ(r.reason, it::StopReason::preconditioner_failed);
    EXPECT_NE(r.message.find("row " + std::to_string(bad)), std::string::npos) << r.message;
    // an indefinite matrix: CG breaks down (pᵀAp <= 0)
    gs::Csr<double, std::int32_t> indef(4, 4);
    indef.row_ptr = {0, 1, 2, 3, 4};
    indef.col_idx = {0, 1, 2, 3};
    indef.values = {1.0, -1.0, 2.0, -3.0};
    std::vector<double> b4 = {0.0, 1.0, 0.0, 0.0}, x4(4, 0.0);
    r = gpu_solve(indef, b4, x4, options(it::Method::cg, GpuPrecond::none));
    EXPECT_EQ(r.reason, it::StopReason::breakdown) << r.message;
    // NaN in A: non-finite (every method)
    auto nan = p;
    nan.values[3] = std::numeric_limits<double>::quiet_NaN();
    for (const auto method : {it::Method::cg, it::Method::bicgstab, it::Method::gmres, it::Method::fgmres, it::Method::minres}) {
        std::fill(x.begin(), x.end(), 0.0);
        r = gpu_solve(nan, b, x, options(method, GpuPrecond::none));
        EXPECT_EQ(r.reason, it::StopReason::non_finite) << it::to_string(method) << ": " << r.message;
    }
}

TEST(CudaKrylov, MisuseThrows) {
    SKIP_WITHOUT_GPU();
    const auto p = gs::gen::poisson2d<double, std::int32_t>(8, 8);
    const auto d = DevMat<double, std::int32_t>::upload(p.view());
    std::vector<double> b(64, 1.0), x(64, 0.0), shorter(63, 0.0);
    EXPECT_THROW((gs::cuda::solve<double, std::int32_t>(d, b, shorter)), gs::DimensionMismatch);
    b[5] = std::numeric_limits<double>::infinity();
    EXPECT_THROW((gs::cuda::solve<double, std::int32_t>(d, b, x)), gs::InvalidStructure);
    b[5] = 1.0;
    auto no_restart = options(it::Method::gmres);
    no_restart.restart = 0;
    EXPECT_THROW((gs::cuda::solve<double, std::int32_t>(d, b, x, no_restart)), gs::InvalidArgument);
    EXPECT_THROW((gs::cuda::solve<double, std::int32_t>(d, b, x, options(it::Method::cg, GpuPrecond::jacobi, -1))), gs::InvalidArgument);
    const auto rect = gs::test::random_csr<double, std::int32_t>(8, 9, 2, 1);
    const auto dr = DevMat<double, std::int32_t>::upload(rect.view());
    std::vector<double> b8(8, 1.0), x8(8, 0.0);
    EXPECT_THROW((gs::cuda::solve<double, std::int32_t>(dr, b8, x8)), gs::DimensionMismatch);
    EXPECT_EQ(gs::cuda::parse_gpu_precond("jacobi"), GpuPrecond::jacobi);
    EXPECT_EQ(gs::cuda::parse_gpu_precond("ic0"), GpuPrecond::ic0);
    EXPECT_THROW(gs::cuda::parse_gpu_precond("amg"), gs::InvalidArgument);
}

// ILU(0), IC(0) and SGS: the host's factors applied by level sets on the device give the host solver's
// iterations (±2 for CG, 10% for BiCGStab), on multicolor (2 levels per sweep on a 7-point grid) and on
// natural order (3m - 2 levels).
TEST(CudaKrylov, SweepPreconditionersMatchTheHost) {
    SKIP_WITHOUT_GPU();
    const std::int64_t m = sim_or(10, 48);
    const auto a = gs::gen::poisson3d<double, std::int32_t>(m, m, m);
    const auto b = gs::test::random_vector<double>(a.nrows, 8);
    struct Case {
        GpuPrecond gpu;
        it::PrecondKind host;
        it::OrderingKind ordering;
    };
    for (const Case& c : {Case{GpuPrecond::ic0, it::PrecondKind::ic0, it::OrderingKind::multicolor},
                          Case{GpuPrecond::ilu0, it::PrecondKind::ilu0, it::OrderingKind::natural},
                          Case{GpuPrecond::sgs, it::PrecondKind::sgs, it::OrderingKind::multicolor}}) {
        SCOPED_TRACE(std::string(gs::cuda::to_string(c.gpu)) + " " + it::to_string(c.ordering));
        std::vector<double> xh(b.size(), 0.0), xg(b.size(), 0.0);
        const auto rh = host_solve(a, b, xh, it::Method::cg, c.host, 1e-10, c.ordering);
        auto o = options(it::Method::cg, c.gpu, 1e-10, 5000);
        o.ordering.kind = c.ordering;
        GpuSolveStats st;
        const auto rg = gpu_solve(a, b, xg, o, &st);
        ASSERT_TRUE(rh.converged) << rh.message;
        ASSERT_TRUE(rg.converged) << rg.message;
        EXPECT_NEAR(static_cast<double>(rg.iterations), static_cast<double>(rh.iterations), 2.0);
        EXPECT_LE(true_residual(a, b, xg), 1e-9);
        if (c.ordering == it::OrderingKind::natural) {
            EXPECT_EQ(st.sweep_levels, 2 * (3 * m - 2));
        } else {
            EXPECT_EQ(st.sweep_levels, 4);  // two colors, two sweeps
        }
        EXPECT_FALSE(st.ordering.empty());
    }
    // BiCGStab with ILU(0) on an unsymmetric problem
    const auto cd = gs::gen::convection_diffusion<double, std::int32_t>(m, m, m, 20.0, -10.0, 5.0);
    std::vector<double> xh(b.size(), 0.0), xg(b.size(), 0.0);
    const auto rh = host_solve(cd, b, xh, it::Method::bicgstab, it::PrecondKind::ilu0, 1e-9, it::OrderingKind::multicolor);
    const auto rg = gpu_solve(cd, b, xg, options(it::Method::bicgstab, GpuPrecond::ilu0, 1e-9, 5000));
    ASSERT_TRUE(rh.converged) << rh.message;
    ASSERT_TRUE(rg.converged) << rg.message;
    EXPECT_LE(std::abs(static_cast<double>(rg.iterations - rh.iterations)), 3.0 + 0.1 * static_cast<double>(rh.iterations));
    EXPECT_LE(true_residual(cd, b, xg), 1e-8);
}

TEST(CudaKrylov, SweepFactorizationFailureIsAStatus) {
    SKIP_WITHOUT_GPU();
    // a 2D Laplacian shifted to indefinite: IC(0) meets a non-positive pivot
    auto a = gs::gen::poisson2d<double, std::int32_t>(sim_or(12, 64), sim_or(12, 64));
    for (std::int64_t r = 0; r < a.nrows; ++r)
        for (gs::offset_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
            if (a.col_idx[k] == r) a.values[k] -= 6.0;
    const auto b = gs::test::random_vector<double>(a.nrows, 9);
    std::vector<double> x(b.size(), 0.0);
    const auto r = gpu_solve(a, b, x, options(it::Method::cg, GpuPrecond::ic0));
    EXPECT_EQ(r.reason, it::StopReason::preconditioner_failed) << r.message;
    EXPECT_NE(r.message.find("IC(0)"), std::string::npos) << r.message;
}

// Small cases through every kernel of the backend: in the simulator's racecheck build (ThreadSanitizer told
// CUDA's ordering; cuda_sim_racecheck_krylov_tests) a race between threads, blocks, launches or the host fails.
TEST(CudaKrylov, RacecheckSmallSolves) {
    SKIP_WITHOUT_GPU();
#ifdef GIGASPARSE_CUDA_SIM
    const std::int64_t races_before = cuda_sim::race_reports();
    std::set<std::string> kernels;
    const auto note_kernels = [&] {
        for (const auto& [name, n] : cuda_sim::stats().kernels) kernels.insert(name);
    };
#else
    const auto note_kernels = [] {};
#endif
    const auto rmat = gs::test::rmat_like<double, std::int32_t>(7, 7, 6, 61);
    expect_spmv_matches(rmat, "rmat, long rows over 4", GpuSpmvOptions{.long_row = 4});
    note_kernels();
    const auto p = gs::gen::poisson2d<double, std::int32_t>(7, 7);
    const auto b = gs::test::random_vector<double>(p.nrows, 62);
    for (const GpuPrecond pc : {GpuPrecond::jacobi, GpuPrecond::sgs}) {
        std::vector<double> x(b.size(), 0.0);
        const auto r = gpu_solve(p, b, x, options(it::Method::cg, pc, 1e-10));
        note_kernels();
        EXPECT_TRUE(r.converged) << r.message;
        EXPECT_LE(true_residual(p, b, x), 1e-9);
    }
    const auto cd = gs::gen::convection_diffusion<double, std::int32_t>(4, 4, 4, 5.0, -2.0, 1.0);
    const auto bc = gs::test::random_vector<double>(cd.nrows, 63);
    std::vector<double> x(bc.size(), 0.0);
    auto o = options(it::Method::bicgstab, GpuPrecond::ilu0, 1e-10);
    o.ordering.kind = it::OrderingKind::rcm;  // a permutation, and levels of several rows
    const auto r = gpu_solve(cd, bc, x, o);
    note_kernels();
    EXPECT_TRUE(r.converged) << r.message;
    EXPECT_LE(true_residual(cd, bc, x), 1e-9);
    for (const auto method : {it::Method::gmres, it::Method::fgmres}) {  // restarts, the basis kernels, Jacobi's apply, the rotations
        std::vector<double> xg(bc.size(), 0.0);
        auto og = options(method, GpuPrecond::jacobi, 1e-10);
        og.restart = 5;
        const auto rg = gpu_solve(cd, bc, xg, og);
        note_kernels();
        EXPECT_TRUE(rg.converged) << rg.message;
        EXPECT_LE(true_residual(cd, bc, xg), 1e-9);
    }
    for (const GpuPrecond pc : {GpuPrecond::none, GpuPrecond::jacobi, GpuPrecond::sgs}) {  // MINRES: its kernels, fused Jacobi or sweeps
        const auto ind = shifted(p, 0.5);
        std::vector<double> xm(b.size(), 0.0);
        const auto rm = gpu_solve(ind, b, xm, options(it::Method::minres, pc, 1e-10));
        note_kernels();
        EXPECT_TRUE(rm.converged) << rm.message;
        EXPECT_LE(true_residual(ind, b, xm), 1e-8);
    }
    {  // complex values: the split shuffles of the SpMV, complex partial sums, IC(0) = L Lᴴ sweeps, GMRES's complex rotations
        using C = std::complex<double>;
        const auto herm = complexified<C>(p, C(0.1), 0.05);
        const auto bz = gs::test::random_vector<C>(herm.nrows, 64);
        for (const auto& [method, pc] : {std::pair{it::Method::cg, GpuPrecond::ic0}, std::pair{it::Method::gmres, GpuPrecond::jacobi}}) {
            std::vector<C> xz(bz.size(), C(0));
            auto oz = options(method, pc, 1e-10);
            oz.restart = 5;
            const auto rz = gpu_solve(herm, bz, xz, oz);
            note_kernels();
            EXPECT_TRUE(rz.converged) << rz.message;
            EXPECT_LE(true_residual(herm, bz, xz), 1e-9);
        }
    }
#ifdef GIGASPARSE_CUDA_SIM
    EXPECT_EQ(cuda_sim::race_reports(), races_before) << "ThreadSanitizer reported a race (above)";
    for (const char* k : {"spmv_vector_kernel", "long_rows_kernel", "spmv_long_rows_kernel", "jacobi_kernel", "dot_kernel", "dot2_kernel",
                          "sum_kernel", "precond_dots_kernel", "cg_alpha_kernel", "cg_update_kernel", "cg_beta_kernel",
                          "cg_direction_kernel", "sweep_level_kernel", "permute_kernel", "scale_kernel", "bicg_rho_kernel",
                          "bicg_direction_kernel", "bicg_alpha_kernel", "bicg_s_kernel", "bicg_snorm_kernel", "bicg_omega_kernel",
                          "bicg_update_kernel", "bicg_finish_kernel", "multi_dot_kernel", "multi_sum_kernel", "multi_axpby_kernel", "axpby_kernel",
                          "diag_apply_kernel", "gmres_start_kernel", "gmres_rotate_kernel", "gmres_next_kernel", "gmres_solve_kernel",
                          "minres_v_kernel", "minres_lanczos_kernel", "minres_alfa_kernel", "minres_shift_kernel", "minres_step_kernel",
                          "minres_update_kernel"})
        EXPECT_TRUE(kernels.count(std::string("gigasparse::krylov::") + k)) << k << " did not run";
#endif
}

// GMRES and FGMRES queue a cycle's steps in batches of check_every (the batches restart with each cycle, and the
// same batch of every cycle replays one graph); the Givens rotations and the stop are on the device, and a stop
// freezes the cycle, so the iterate, the count, the history and the status do not depend on the batch size.
TEST(CudaKrylov, GmresResultDoesNotDependOnCheckEvery) {
    SKIP_WITHOUT_GPU();
    const auto a = gs::gen::convection_diffusion<double, std::int32_t>(sim_or(6, 24), sim_or(6, 24), sim_or(6, 24), 20.0, -10.0, 5.0);
    const auto b = gs::test::random_vector<double>(a.nrows, 23);
    constexpr int restart = 7;
    struct Case {
        it::Method method;
        GpuPrecond pc;
    };
    for (const Case& c : {Case{it::Method::gmres, GpuPrecond::jacobi}, Case{it::Method::gmres, GpuPrecond::none}, Case{it::Method::fgmres, GpuPrecond::ilu0}}) {
        const std::string name = std::string(it::to_string(c.method)) + " " + gs::cuda::to_string(c.pc);
        auto o = options(c.method, c.pc, 1e-9, 5000);
        o.restart = restart;
        o.check_every = 1;
        std::vector<double> x1(b.size(), 0.0);
        const auto r1 = gpu_solve(a, b, x1, o);
        ASSERT_TRUE(r1.converged) << name << ": " << r1.message;
        ASSERT_GT(r1.iterations, 2 * restart) << name << ": restarts wanted";
        for (const std::int64_t every : {3, 1000}) {  // 1000: a whole cycle (7 steps) per batch
            SCOPED_TRACE(name + " check_every " + std::to_string(every));
            o.check_every = every;
            std::vector<double> x(b.size(), 0.0);
            GpuSolveStats st;
            const auto r = gpu_solve(a, b, x, o, &st);
            EXPECT_EQ(r.iterations, r1.iterations);
            EXPECT_EQ(r.reason, r1.reason);
            EXPECT_EQ(r.message, r1.message);
            EXPECT_EQ(r.residual_history, r1.residual_history);
            EXPECT_EQ(x, x1) << "the steps queued after the stop moved x";
            // cycles before the last: each its steps and its restart's residual; the last: its batches whole
            const std::int64_t q = std::min<std::int64_t>(every, restart), full = (r.iterations - 1) / restart, last = r.iterations - full * restart;
            const std::int64_t last_batches = (last + q - 1) / q, per_cycle = (restart + q - 1) / q;
            const std::int64_t spmvs = 1 + full * (restart + 1) + std::min<std::int64_t>(last_batches * q, restart);
            EXPECT_GE(st.spmv_calls, spmvs);
            EXPECT_LE(st.spmv_calls, spmvs + 1) << "one more only for a restart's residual at the end";
            EXPECT_EQ(st.graph_launches, full * per_cycle + last_batches) << "every batch whole: one graph launch each";
            if (every != 3) continue;
            expect_same_without_graphs(a, b, o, r, x, st);
        }
        // maxit inside a batch (the cut batch kernel by kernel), before and after a restart
        SCOPED_TRACE(name);
        o.check_every = 3;
        for (const auto& [maxit, graphs] : {std::pair<std::int64_t, std::int64_t>{5, 1}, {9, 3}}) {
            o.maxit = maxit;
            std::vector<double> x(b.size(), 0.0);
            GpuSolveStats st;
            const auto r = gpu_solve(a, b, x, o, &st);
            EXPECT_EQ(r.reason, it::StopReason::max_iterations);
            EXPECT_EQ(r.iterations, maxit);
            EXPECT_EQ(r.residual_history.size(), static_cast<std::size_t>(maxit + 1));
            EXPECT_EQ(st.graph_launches, graphs) << "maxit " << maxit;
        }
    }
}

// Degenerate shapes: an empty matrix, a 1 x 1 system, a matrix of empty rows.
TEST(CudaKrylov, EmptyAndTinySystems) {
    SKIP_WITHOUT_GPU();
    const gs::Csr<double, std::int32_t> empty(0, 0);
    std::vector<double> none;
    EXPECT_TRUE(gpu_spmv(empty, none, none, 1.0, 0.0).empty());
    std::vector<double> x0;
    auto r = gpu_solve(empty, none, x0, options());
    EXPECT_TRUE(r.converged);
    EXPECT_EQ(r.iterations, 0);
    gs::Csr<double, std::int32_t> one(1, 1);
    one.row_ptr = {0, 1};
    one.col_idx = {0};
    one.values = {4.0};
    for (const auto method : {it::Method::cg, it::Method::bicgstab, it::Method::gmres})
        for (const GpuPrecond pc : {GpuPrecond::none, GpuPrecond::jacobi, GpuPrecond::ic0}) {
            std::vector<double> b = {2.0}, x = {0.0};
            r = gpu_solve(one, b, x, options(method, pc));
            EXPECT_TRUE(r.converged) << r.message;
            EXPECT_NEAR(x[0], 0.5, 1e-15);
        }
    // rows without entries: y is alpha * 0 + beta * y
    gs::Csr<double, std::int32_t> hollow(5, 3);
    hollow.row_ptr = {0, 0, 0, 0, 0, 0};
    const auto y = gpu_spmv(hollow, std::vector<double>{1, 2, 3}, std::vector<double>{1, 1, 1, 1, 1}, 2.0, 3.0);
    for (const double v : y) EXPECT_EQ(v, 3.0);
}

// CG, BiCGStab and MINRES queue check_every iterations between two reads; the stop is decided on the device and
// freezes the solve, so the iterate, the count, the history and the status do not depend on it.
TEST(CudaKrylov, ResultDoesNotDependOnCheckEvery) {
    SKIP_WITHOUT_GPU();
    const auto a = gs::gen::poisson2d<double, std::int32_t>(sim_or(16, 96), sim_or(16, 96));
    const auto cd = gs::gen::convection_diffusion<double, std::int32_t>(sim_or(6, 24), sim_or(6, 24), sim_or(6, 24), 20.0, -10.0, 5.0);
    const auto b = gs::test::random_vector<double>(a.nrows, 21);
    const auto bc = gs::test::random_vector<double>(cd.nrows, 22);
    const auto ind = shifted(a, 0.5);  // symmetric indefinite (MINRES), SGS still positive definite (diagonal 3.5)
    struct Case {
        it::Method method;
        GpuPrecond pc;
        const gs::Csr<double, std::int32_t>* a;
        const std::vector<double>* b;
    };
    for (const Case& c : {Case{it::Method::cg, GpuPrecond::jacobi, &a, &b}, Case{it::Method::cg, GpuPrecond::ic0, &a, &b},
                          Case{it::Method::bicgstab, GpuPrecond::jacobi, &cd, &bc}, Case{it::Method::bicgstab, GpuPrecond::ilu0, &cd, &bc},
                          Case{it::Method::bicgstab, GpuPrecond::none, &a, &b}, Case{it::Method::minres, GpuPrecond::none, &ind, &b},
                          Case{it::Method::minres, GpuPrecond::sgs, &ind, &b}}) {
        const std::string name = std::string(it::to_string(c.method)) + " " + gs::cuda::to_string(c.pc);
        std::vector<double> x1(c.b->size(), 0.0);
        auto o = options(c.method, c.pc, 1e-9, 5000);
        o.check_every = 1;
        const auto r1 = gpu_solve(*c.a, *c.b, x1, o);
        ASSERT_TRUE(r1.converged) << name << ": " << r1.message;
        ASSERT_GT(r1.iterations, 3) << name;
        for (const std::int64_t every : {3, 1000}) {  // 1000: the ring's 64 slots
            SCOPED_TRACE(name + " check_every " + std::to_string(every));
            std::vector<double> x(c.b->size(), 0.0);
            o.check_every = every;
            GpuSolveStats st;
            const auto r = gpu_solve(*c.a, *c.b, x, o, &st);
            EXPECT_EQ(r.iterations, r1.iterations);
            EXPECT_EQ(r.reason, r1.reason);
            EXPECT_EQ(r.message, r1.message);
            EXPECT_EQ(r.residual_history, r1.residual_history);
            EXPECT_EQ(x, x1) << "the iterations queued after the stop moved x";
            // the residual's SpMV, then one (CG) or two (BiCGStab) per queued iteration, the last batch whole
            const std::int64_t per = c.method == it::Method::bicgstab ? 2 : 1, queued = std::min<std::int64_t>(every, 64);
            const std::int64_t batches = (r.iterations + queued - 1) / queued;
            EXPECT_EQ(st.spmv_calls, 1 + per * std::min<std::int64_t>(batches * queued, o.maxit)) << "iterations " << r.iterations;
            EXPECT_EQ(st.graph_launches, batches) << "each batch (all whole: no maxit cut) one graph launch";
            if (every != 3) continue;
            expect_same_without_graphs(*c.a, *c.b, o, r, x, st);
        }
        // maxit inside a batch: exactly maxit iterations (the cut batch kernel by kernel)
        SCOPED_TRACE(name);
        std::vector<double> x(c.b->size(), 0.0);
        o.check_every = 2;
        o.maxit = 3;
        GpuSolveStats st;
        const auto r = gpu_solve(*c.a, *c.b, x, o, &st);
        EXPECT_EQ(r.reason, it::StopReason::max_iterations);
        EXPECT_EQ(r.iterations, 3);
        EXPECT_EQ(r.residual_history.size(), 4u);
        EXPECT_EQ(st.graph_launches, 1);
    }
#ifdef GIGASPARSE_CUDA_SIM
    // a runtime that will not capture: the batches are launched kernel by kernel, with the same result
    std::vector<double> x1(b.size(), 0.0), x2(b.size(), 0.0);
    const auto o = options(it::Method::cg, GpuPrecond::ic0, 1e-9, 5000);
    GpuSolveStats s1, s2;
    const auto r1 = gpu_solve(a, b, x1, o, &s1);
    cuda_sim::config().stream_capture = false;
    const auto r2 = gpu_solve(a, b, x2, o, &s2);
    cuda_sim::config().stream_capture = true;
    EXPECT_GT(s1.graph_launches, 0);
    EXPECT_EQ(s2.graph_launches, 0);
    EXPECT_EQ(r1.residual_history, r2.residual_history);
    EXPECT_EQ(x1, x2);
#endif
    std::vector<double> x(b.size(), 0.0);
    auto bad = options();
    bad.check_every = 0;
    EXPECT_THROW((gs::cuda::solve<double, std::int32_t>(DevMat<double, std::int32_t>::upload(a.view()), b, x, bad)), gs::InvalidArgument);
}
