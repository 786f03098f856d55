// tests/direct/test_solver.cpp: DirectSolver phases, views, refinement, refactorization and errors.
#include <random>

#include <gtest/gtest.h>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>
#include <gigasparse/direct/solver.hpp>
#include <gigasparse/gen/generators.hpp>

#include "direct_test_utils.hpp"
#include "utils/test_utils.hpp"

namespace gigasparse::direct {
namespace {

TEST(DirectSolver, Poisson2dAnd3dReachBackwardError) {
    for (int dim : {2, 3}) {
        auto a = dim == 2 ? gen::poisson2d<double, std::int32_t>(60, 60) : gen::poisson3d<double, std::int32_t>(14, 14, 14);
        for (const char* ord : {"auto", "amd", "nd"}) {
            SCOPED_TRACE(std::to_string(dim) + "D " + ord);
            DirectSolver<double, std::int32_t> s;
            s.set_option("ordering", ord);
            s.analyze(a);
            ASSERT_EQ(s.factorize(a), Status::success);
            const std::int64_t n = a.nrows, nrhs = 3;
            auto b = gigasparse::test::random_vector<double>(n * nrhs, 7);
            std::vector<double> x(static_cast<std::size_t>(n * nrhs));
            SolveInfo info = s.solve(b, x, nrhs);
            EXPECT_LE(info.backward_error, 1e-14);
            EXPECT_LE(info.refinement_steps, 2);
            EXPECT_LT(info.residual, 1e-12);
            EXPECT_GT(s.result("nnz_L"), static_cast<double>(n));
            EXPECT_GT(s.result("memory_estimate"), 8 * s.result("nnz_L"));
        }
    }
}

TEST(DirectSolver, ViewsBasesAndDuplicatesGiveTheSameSolution) {
    auto full = test::random_hpd<double, std::int64_t>(300, 4.0, 3);
    auto b = gigasparse::test::random_vector<double>(300, 4);
    std::vector<double> x_ref(300), x(300);
    DirectSolver<double, std::int64_t> ref;
    ref.analyze(full);
    ASSERT_EQ(ref.factorize(full), Status::success);
    ref.solve(b, x_ref);
    auto check = [&](const Csr<double, std::int64_t>& a, MatrixView v, int base) {
        DirectSolver<double, std::int64_t> s(Structure::spd, v);
        s.set_option("index_base", std::to_string(base));
        s.analyze(a);
        ASSERT_EQ(s.factorize(a), Status::success);
        s.solve(b, x);
        for (int i = 0; i < 300; ++i) EXPECT_NEAR(x[i], x_ref[i], 1e-12 * (1 + std::abs(x_ref[i])));
    };
    check(extract_triangle<double, std::int64_t>(full, Triangle::lower), MatrixView::lower, 0);
    check(extract_triangle<double, std::int64_t>(full, Triangle::upper), MatrixView::upper, 0);
    check(full, MatrixView::upper, 0);
    // One-based copy.
    auto one = full;
    for (auto& v : one.row_ptr) ++v;
    for (auto& v : one.col_idx) ++v;
    check(one, MatrixView::full, 1);
    // Duplicates: every entry split into two halves stored twice.
    Csr<double, std::int64_t> dup(300, 300);
    dup.row_ptr.assign(301, 0);
    for (int i = 0; i < 300; ++i) {
        for (offset_t k = full.row_ptr[i]; k < full.row_ptr[i + 1]; ++k)
            for (int t = 0; t < 2; ++t) {
                dup.col_idx.push_back(full.col_idx[k]);
                dup.values.push_back(full.values[k] * 0.5);
            }
        dup.row_ptr[i + 1] = static_cast<offset_t>(dup.col_idx.size());
    }
    check(dup, MatrixView::full, 0);
}

TEST(DirectSolver, ComplexHermitianSolve) {
    using C = std::complex<double>;
    auto a = test::random_hpd<C, std::int32_t>(400, 5.0, 12);
    for (MatrixView v : {MatrixView::full, MatrixView::upper}) {
        DirectSolver<C, std::int32_t> s(Structure::hpd, v);
        s.analyze(a);
        ASSERT_EQ(s.factorize(a), Status::success);
        auto b = gigasparse::test::random_vector<C>(400 * 2, 13);
        std::vector<C> x(800);
        SolveInfo info = s.solve(b, x, 2);
        EXPECT_LE(info.backward_error, 1e-14);
    }
}

// One right-hand side takes the loops (narrow supernodes on y, wider ones gathered); several take
// trsm/gemm. Without refinement both give the same solution, for supernodes of every width.
template <class V>
void one_rhs_matches_several() {
    auto a = test::random_hpd<V, std::int32_t>(500, 6.0, 17);
    DirectSolver<V, std::int32_t> s(is_complex_v<V> ? Structure::hpd : Structure::spd);
    s.set_option("ordering", "nd");
    s.set_option("refinement_steps", "0");
    s.set_option("amalgamation_max_width", "1000");
    s.analyze(a);
    ASSERT_EQ(s.factorize(a), Status::success);
    EXPECT_GT(s.symbolic().nsuper, 1);
    idx widest = 0;
    for (idx sn = 0; sn < s.symbolic().nsuper; ++sn) widest = std::max(widest, s.symbolic().width(sn));
    EXPECT_GT(widest, 16);  // both one-RHS paths run
    auto b = gigasparse::test::random_vector<V>(1000, 19);
    std::vector<V> x2(1000), x1(500);
    s.solve(b, x2, 2);
    for (int k = 0; k < 2; ++k) {
        s.solve(std::span<const V>(b.data() + 500 * k, 500), x1, 1);
        double diff = 0, norm = 0;
        for (int i = 0; i < 500; ++i) {
            diff = std::max(diff, static_cast<double>(std::abs(x1[i] - x2[500 * k + i])));
            norm = std::max(norm, static_cast<double>(std::abs(x2[500 * k + i])));
        }
        EXPECT_LT(diff, 1e-12 * norm) << "column " << k;
    }
}
TEST(DirectSolver, OneRightHandSideMatchesSeveral) {
    one_rhs_matches_several<double>();
    one_rhs_matches_several<std::complex<double>>();
}

// One right-hand side of a large factor runs over the subtrees on the solve's threads: the same bits
// for 1, 2 and 3 threads (subtree buffers summed in subtree order), accurate, and equal to the
// several-right-hand-side solve (BLAS per node, also over the subtrees) up to rounding.
TEST(DirectSolver, ParallelOneRhsSolveIsDeterministic) {
    auto a = gen::poisson3d<double, std::int32_t>(26, 26, 26);
    DirectSolver<double, std::int32_t> s;
    s.set_option("ordering", "nd");
    s.set_option("threads", "2");
    s.set_option("refinement_steps", "0");
    s.analyze(a);
    ASSERT_EQ(s.factorize(a), Status::success);
    ASSERT_GT(s.symbolic().subtree_root.size(), 1u);
    ASSERT_GE(s.symbolic().factor_entries, std::int64_t{1} << 20);  // the subtree path runs
    const std::int64_t n = a.nrows;
    auto b = gigasparse::test::random_vector<double>(2 * n, 23);
    std::vector<double> first;
    for (const char* threads : {"1", "2", "3"}) {
        SCOPED_TRACE(std::string("threads ") + threads);
        s.set_option("threads", threads);
        std::vector<double> x(static_cast<std::size_t>(n));
        SolveInfo info = s.solve(std::span<const double>(b.data(), static_cast<std::size_t>(n)), x, 1);
        EXPECT_LE(info.backward_error, 1e-14);
        if (first.empty()) first = x;
        EXPECT_TRUE(first == x);
    }
    // several right-hand sides run over the same subtrees (BLAS per node): the same bits for any thread count too
    std::vector<double> x2(static_cast<std::size_t>(2 * n)), x2_first;
    for (const char* threads : {"1", "2", "3"}) {
        SCOPED_TRACE(std::string("two right-hand sides, threads ") + threads);
        s.set_option("threads", threads);
        std::fill(x2.begin(), x2.end(), 0.0);
        EXPECT_LE(s.solve(b, x2, 2).backward_error, 1e-14);
        if (x2_first.empty()) x2_first = x2;
        EXPECT_TRUE(x2_first == x2);
    }
    double diff = 0, norm = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        diff = std::max(diff, std::abs(first[i] - x2[i]));
        norm = std::max(norm, std::abs(x2[i]));
    }
    EXPECT_LT(diff, 1e-12 * norm);
}

TEST(DirectSolver, RefactorizeWithNewValuesAllocatesNothing) {
    auto a = gen::poisson2d<double, std::int32_t>(40, 40);
    DirectSolver<double, std::int32_t> s;
    s.analyze(a);
    ASSERT_EQ(s.factorize(a), Status::success);
    const double* lx = s.numeric().lx.data();
    const std::size_t cap = s.numeric().lx.capacity();
    // New values: 3 A + 2 I (same pattern).
    std::vector<double> v = a.values;
    for (std::int64_t i = 0; i < a.nrows; ++i)
        for (offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) v[k] = 3 * v[k] + (a.col_idx[k] == i ? 2.0 : 0.0);
    ASSERT_EQ(s.refactorize(v), Status::success);
    EXPECT_EQ(s.numeric().lx.data(), lx);
    EXPECT_EQ(s.numeric().lx.capacity(), cap);
    auto b = gigasparse::test::random_vector<double>(a.nrows, 2);
    std::vector<double> x(b.size());
    SolveInfo info = s.solve(b, x);
    EXPECT_LE(info.backward_error, 1e-14);
    // Check against the new matrix explicitly: ||b - (3A + 2I) x|| small.
    double r = 0;
    for (std::int64_t i = 0; i < a.nrows; ++i) {
        double ax = 0;
        for (offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) ax += v[k] * x[a.col_idx[k]];
        r = std::max(r, std::abs(b[i] - ax));
    }
    EXPECT_LT(r, 1e-12);
}

TEST(DirectSolver, SolvePartsComposeToTheSolve) {
    auto a = test::random_hpd<double, std::int32_t>(500, 4.0, 17);
    DirectSolver<double, std::int32_t> s;
    s.set_option("refinement_steps", "0");
    s.analyze(a);
    ASSERT_EQ(s.factorize(a), Status::success);
    const std::int64_t nrhs = 4;
    auto b = gigasparse::test::random_vector<double>(500 * nrhs, 18);
    std::vector<double> x(b.size()), y(b.size()), z(b.size());
    SolveInfo info = s.solve(b, x, nrhs);
    EXPECT_EQ(info.refinement_steps, 0);
    s.solve_permute(b, y, nrhs);
    s.solve_forward(y, nrhs);
    s.solve_diagonal(y, nrhs);
    s.solve_backward(y, nrhs);
    s.solve_unpermute(y, z, nrhs);
    for (std::size_t i = 0; i < x.size(); ++i) EXPECT_DOUBLE_EQ(x[i], z[i]);
}

TEST(DirectSolver, MisuseIsATypedError) {
    auto a = test::random_hpd<double, std::int32_t>(50, 3.0, 1);
    DirectSolver<double, std::int32_t> s;
    std::vector<double> b(50, 1.0), x(50);
    EXPECT_THROW(s.factorize(a), PhaseError);
    EXPECT_THROW(s.refactorize(a.values), PhaseError);
    EXPECT_THROW(s.solve(b, x), PhaseError);
    EXPECT_THROW(s.result("nnz_L"), PhaseError);
    s.analyze(a);
    EXPECT_THROW(s.solve(b, x), PhaseError);
    EXPECT_THROW(s.refactorize(a.values), PhaseError);
    ASSERT_EQ(s.factorize(a), Status::success);
    std::vector<double> short_b(49);
    EXPECT_THROW(s.solve(short_b, x), DimensionMismatch);
    EXPECT_THROW(s.solve(b, x, 2), DimensionMismatch);
    EXPECT_THROW(s.refactorize(std::span<const double>(a.values).first(10)), DimensionMismatch);
    EXPECT_THROW(s.set_option("ordering", "colamd"), InvalidArgument);
    EXPECT_THROW(s.set_option("no_such_option", "1"), InvalidArgument);
    EXPECT_THROW(s.result("no_such_result"), InvalidArgument);
    EXPECT_THROW(s.set_option("refinement_steps", "x"), InvalidArgument);
    Csr<double, std::int32_t> rect(3, 4);
    EXPECT_THROW(s.analyze(rect), DimensionMismatch);
    auto other = test::random_hpd<double, std::int32_t>(50, 3.0, 2);
    EXPECT_THROW(s.factorize(other), InvalidArgument);  // another pattern
    EXPECT_EQ(s.get_option("ordering"), "auto");
    s.set_option("refinement_steps", "3");
    EXPECT_EQ(s.get_option("refinement_steps"), "3");
    EXPECT_EQ(s.get_option("gpu_assembly"), "auto");
    for (const char* where : {"host", "device", "auto"}) {
        s.set_option("gpu_assembly", where);
        EXPECT_EQ(s.get_option("gpu_assembly"), where);
    }
    EXPECT_THROW(s.set_option("gpu_assembly", "gpu"), InvalidArgument);
    EXPECT_THROW((DirectSolver<double, std::int32_t>(Structure::general, MatrixView::lower)), InvalidArgument);
}

TEST(DirectSolver, GeneralStructureFactorsWithLu) {
    // An SPD matrix given as general: LU (test_lu.cpp has the real coverage) agrees with Cholesky.
    auto a = test::random_hpd<double, std::int32_t>(80, 3.0, 5);
    DirectSolver<double, std::int32_t> g(Structure::general), c(Structure::spd);
    g.analyze(a);
    c.analyze(a);
    EXPECT_GT(g.result("nnz_L"), 80);
    ASSERT_EQ(g.factorize(a), Status::success);
    ASSERT_EQ(c.factorize(a), Status::success);
    std::vector<double> b(80, 1.0), xg(80), xc(80);
    g.solve(b, xg);
    c.solve(b, xc);
    for (int i = 0; i < 80; ++i) EXPECT_NEAR(xg[i], xc[i], 1e-12 * std::abs(xc[i]) + 1e-14);
}

TEST(DirectSolver, EmptyAndDiagonalMatrices) {
    Csr<double, std::int32_t> empty(0, 0);
    DirectSolver<double, std::int32_t> s;
    s.analyze(empty);
    EXPECT_EQ(s.factorize(empty), Status::success);
    std::vector<double> b, x;
    EXPECT_EQ(s.solve(b, x).status, Status::success);
    Csr<double, std::int32_t> d(5, 5);
    d.row_ptr = {0, 1, 2, 3, 4, 5};
    d.col_idx = {0, 1, 2, 3, 4};
    d.values = {1, 4, 9, 16, 25};
    DirectSolver<double, std::int32_t> t;
    t.analyze(d);
    ASSERT_EQ(t.factorize(d), Status::success);
    std::vector<double> bb{1, 4, 9, 16, 25}, xx(5);
    t.solve(bb, xx);
    for (double v : xx) EXPECT_DOUBLE_EQ(v, 1.0);
}

}  // namespace
}  // namespace gigasparse::direct
