// tests/direct/test_reference_backend.cpp: the multifrontal (cpu) numeric phase against the reference
// numeric phase (sequential left-looking, no BLAS) on generated and real SPD problems: same factor
// entries, same solutions, same not-PD status and failing column; refactorize on the reference backend.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include <gigasparse/core/error.hpp>
#include <gigasparse/direct/solver.hpp>
#include <gigasparse/gen/generators.hpp>
#include <gigasparse/io/matrix_market.hpp>

#include "direct_test_utils.hpp"
#include "utils/test_utils.hpp"

namespace gigasparse::direct {
namespace {

using OptionList = std::vector<std::pair<const char*, const char*>>;

template <class V, class I>
DirectSolver<V, I> make_solver(Structure st, const char* backend, const OptionList& opts) {
    DirectSolver<V, I> s(st);
    s.set_option("backend", backend);
    for (auto& [name, value] : opts) s.set_option(name, value);
    return s;
}

// max |L_cpu - L_ref| / max |L_ref| over the stored factor (same pattern required).
template <class V>
double factor_difference(const Csr<V, std::int64_t>& a, const Csr<V, std::int64_t>& b) {
    EXPECT_EQ(a.row_ptr, b.row_ptr);
    EXPECT_EQ(a.col_idx, b.col_idx);
    if (a.values.size() != b.values.size()) return 1e300;
    double err = 0, mx = 0;
    for (std::size_t k = 0; k < a.values.size(); ++k) {
        err = std::max(err, static_cast<double>(std::abs(a.values[k] - b.values[k])));
        mx = std::max(mx, static_cast<double>(std::abs(b.values[k])));
    }
    return err / mx;
}

// Factor `a` with both backends (same options, so the same analysis), compare L and the solutions
// of A x = 1; returns the factor difference. Both solves must reach `berr`.
template <class V, class I>
double compare_backends(const Csr<V, I>& a, Structure st, const OptionList& opts, double berr, double sol_tol) {
    auto cpu = make_solver<V, I>(st, "cpu", opts);
    auto ref = make_solver<V, I>(st, "reference", opts);
    cpu.analyze(a);
    ref.analyze(a);
    EXPECT_EQ(cpu.result("nnz_L"), ref.result("nnz_L"));
    EXPECT_EQ(cpu.factorize(a), Status::success);
    EXPECT_EQ(ref.factorize(a), Status::success);
    if (!cpu.factorized() || !ref.factorized()) return 1e300;
    double d = factor_difference(cpu.factor_L(), ref.factor_L());
    const std::size_t n = static_cast<std::size_t>(a.nrows);
    std::vector<V> b(n, V(1)), xc(n), xr(n);
    SolveInfo ic = cpu.solve(b, xc), ir = ref.solve(b, xr);
    EXPECT_LE(ic.backward_error, berr);
    EXPECT_LE(ir.backward_error, berr);
    double dx = 0, mx = 0;
    for (std::size_t k = 0; k < n; ++k) {
        dx = std::max(dx, static_cast<double>(std::abs(xc[k] - xr[k])));
        mx = std::max(mx, static_cast<double>(std::abs(xr[k])));
    }
    EXPECT_LE(dx / mx, sol_tol);
    return d;
}

TEST(DirectReference, BackendOptionByName) {
    DirectSolver<double, std::int32_t> s;
    EXPECT_EQ(s.get_option("backend"), "cpu");
    s.set_option("backend", "reference");
    EXPECT_EQ(s.get_option("backend"), "reference");
    EXPECT_EQ(s.options().backend, NumericBackend::reference);
    EXPECT_THROW(s.set_option("backend", "gpu"), InvalidArgument);
    EXPECT_THROW(s.set_option("backend", ""), InvalidArgument);
    EXPECT_EQ(s.get_option("backend"), "reference");
    s.set_option("backend", "cpu");
    EXPECT_EQ(s.options().backend, NumericBackend::cpu);
}

TEST(DirectReference, EmptyDiagonalAndNaN) {
    Csr<double, std::int32_t> empty(0, 0);
    auto e = make_solver<double, std::int32_t>(Structure::spd, "reference", {});
    e.analyze(empty);
    EXPECT_EQ(e.factorize(empty), Status::success);
    Csr<double, std::int32_t> d(5, 5);
    d.row_ptr = {0, 1, 2, 3, 4, 5};
    d.col_idx = {0, 1, 2, 3, 4};
    d.values = {1, 4, 9, 16, 25};
    auto t = make_solver<double, std::int32_t>(Structure::spd, "reference", {{"ordering", "natural"}});
    t.analyze(d);
    ASSERT_EQ(t.factorize(d), Status::success);
    std::vector<double> bb{1, 4, 9, 16, 25}, xx(5);
    t.solve(bb, xx);
    for (double v : xx) EXPECT_DOUBLE_EQ(v, 1.0);
    // A NaN pivot is not positive (as potrf): reported at its column, like the multifrontal phase.
    std::vector<double> bad = d.values;
    bad[3] = std::nan("");
    EXPECT_EQ(t.refactorize(bad), Status::not_positive_definite);
    EXPECT_EQ(t.result("failing_column"), 3.0);
    t.set_option("backend", "cpu");
    EXPECT_EQ(t.refactorize(bad), Status::not_positive_definite);
    EXPECT_EQ(t.result("failing_column"), 3.0);
    // NaN diagonals inside a sparse problem: the BLAS front path, the small-front loops (whole fronts or
    // panels) and the blocked kernel agree with the reference on the first failing column.
    auto p = gen::poisson2d<double, std::int32_t>(30, 30);
    for (std::int64_t col : {0, 451, 899}) {
        std::vector<double> v = p.values;
        for (offset_t k = p.row_ptr[col]; k < p.row_ptr[col + 1]; ++k)
            if (p.col_idx[k] == col) v[k] = std::nan("");
        struct Path {
            const char *blocked, *small, *panels;
        };
        for (const Path& path : {Path{"1024", "64", "192"}, Path{"1024", "0", "0"}, Path{"1024", "1000000", "0"}, Path{"1024", "0", "1000000"},
                                 Path{"0", "0", "0"}}) {
            SCOPED_TRACE(std::string("NaN at ") + std::to_string(col) + " blocked_front_rows " + path.blocked + " small_front_rows " + path.small +
                         " loop_panel_rows " + path.panels);
            const OptionList o = {{"ordering", "nd"}, {"blocked_front_rows", path.blocked}, {"front_block", "8"}, {"small_front_rows", path.small},
                                  {"loop_panel_rows", path.panels}};
            auto cpu = make_solver<double, std::int32_t>(Structure::spd, "cpu", o);
            auto ref = make_solver<double, std::int32_t>(Structure::spd, "reference", o);
            cpu.analyze(p);
            ref.analyze(p);
            ASSERT_EQ(cpu.factorize(p), Status::success);
            ASSERT_EQ(ref.factorize(p), Status::success);
            EXPECT_EQ(cpu.refactorize(v), Status::not_positive_definite);
            EXPECT_EQ(ref.refactorize(v), Status::not_positive_definite);
            EXPECT_EQ(ref.result("failing_column"), static_cast<double>(col));
            EXPECT_EQ(cpu.result("failing_column"), static_cast<double>(col));
        }
    }
}

TEST(DirectReference, Poisson2dAnd3dAgainstMultifrontal) {
    for (const char* ord : {"nd", "amd"}) {
        SCOPED_TRACE(ord);
        const OptionList o = {{"threads", "2"}, {"ordering", ord}};
        auto p2 = gen::poisson2d<double, std::int32_t>(70, 70);
        EXPECT_LT(compare_backends(p2, Structure::spd, o, 1e-14, 1e-12), 1e-13);
        auto p3 = gen::poisson3d<double, std::int64_t>(14, 14, 14);
        EXPECT_LT(compare_backends(p3, Structure::spd, o, 1e-14, 1e-12), 1e-13);
        auto p3f = gen::poisson3d<float, std::int32_t>(10, 10, 10);
        EXPECT_LT(compare_backends(p3f, Structure::spd, o, 1e-5, 1e-4), 1e-5);
    }
    // Large fronts through the blocked tile kernel on the cpu side.
    const OptionList blocked = {{"threads", "2"}, {"ordering", "nd"}, {"blocked_front_rows", "64"}, {"front_block", "16"}};
    auto p3 = gen::poisson3d<double, std::int32_t>(16, 16, 16, 27);
    EXPECT_LT(compare_backends(p3, Structure::spd, blocked, 1e-14, 1e-12), 1e-13);
}

TEST(DirectReference, ComplexHpdAgainstMultifrontal) {
    const OptionList o = {{"threads", "2"}, {"ordering", "nd"}};
    auto a = test::random_hpd<std::complex<double>, std::int64_t>(3000, 5.0, 9);
    EXPECT_LT(compare_backends(a, Structure::hpd, o, 1e-14, 1e-12), 1e-13);
    auto af = test::random_hpd<std::complex<float>, std::int32_t>(2000, 5.0, 4);
    EXPECT_LT(compare_backends(af, Structure::hpd, o, 1e-5, 1e-4), 1e-5);
}

// Real SPD matrices of ../shared/matrices (bcsstk08, bcsstk13, 494_bus, ...), those small enough for
// the sequential reference. These are ill-conditioned (κ up to ~1e10), so L from two summation orders
// differs by more than a unit roundoff; both solves must still reach the backward-error target.
TEST(DirectReference, SharedSpdMatricesAgainstMultifrontal) {
    auto manifest = gigasparse::test::read_manifest();
    if (manifest.empty()) GTEST_SKIP() << "no ../shared/matrices";
    int done = 0;
    for (const auto& e : manifest) {
        if (e.kind != "spd" || e.field == "pattern" || e.nnz_stored > 200000) continue;
        SCOPED_TRACE(e.name);
        auto a = io::read_mtx<double, std::int32_t>(gigasparse::test::matrix_dir() + "/" + e.file);
        double d = compare_backends(a, Structure::spd, {{"threads", "2"}}, 1e-14, 1e-6);
        std::printf("%-12s n=%-6lld max|dL|/max|L| = %.3g\n", e.name.c_str(), static_cast<long long>(a.nrows), d);
        EXPECT_LT(d, 1e-10) << e.name;
        ++done;
    }
    EXPECT_GT(done, 0);
}

// Factorizes `a` with the multifrontal and the reference numeric phases: both must find it not positive
// definite at the same column. Returns the reference solver for further checks.
DirectSolver<double, std::int32_t> expect_same_failing_column(const Csr<double, std::int32_t>& a, const OptionList& o) {
    auto cpu = make_solver<double, std::int32_t>(Structure::spd, "cpu", o);
    auto ref = make_solver<double, std::int32_t>(Structure::spd, "reference", o);
    cpu.analyze(a);
    ref.analyze(a);
    EXPECT_EQ(cpu.factorize(a), Status::not_positive_definite);
    EXPECT_EQ(ref.factorize(a), Status::not_positive_definite);
    EXPECT_GE(ref.result("failing_column"), 0);
    EXPECT_EQ(ref.result("failing_column"), cpu.result("failing_column"));
    return ref;
}

TEST(DirectReference, NotPositiveDefiniteSameColumnAsMultifrontal) {
    for (const char* ord : {"natural", "amd", "nd"})
        for (std::int64_t bad : {0, 5, 1234, 2999}) {
            SCOPED_TRACE(std::string(ord) + " column " + std::to_string(bad));
            auto a = test::random_hpd<double, std::int32_t>(3000, 5.0, 9);
            test::set_diagonal(a, bad, -1.0);
            auto ref = expect_same_failing_column(a, {{"threads", "2"}, {"ordering", ord}});
            EXPECT_EQ(ref.result("failing_column"), static_cast<double>(bad));
            std::vector<double> b(3000, 1.0), x(3000);
            EXPECT_THROW(ref.solve(b, x), PhaseError);
        }
    // A Poisson matrix shifted to indefinite: the first failing column comes from the numbers, not
    // from one planted entry; both phases must agree on it.
    auto p = gen::poisson2d<double, std::int32_t>(40, 40);
    for (auto& v : p.values)
        if (v == 4.0) v = 0.5;  // diagonal 0.5 with four -1 neighbours
    for (const char* ord : {"natural", "nd"}) {
        SCOPED_TRACE(ord);
        expect_same_failing_column(p, {{"threads", "2"}, {"ordering", ord}});
    }
}

TEST(DirectReference, RefactorizeOnTheReferenceBackend) {
    auto a = gen::poisson3d<double, std::int32_t>(12, 12, 12);
    const OptionList o = {{"threads", "2"}, {"ordering", "nd"}};
    auto cpu = make_solver<double, std::int32_t>(Structure::spd, "cpu", o);
    auto ref = make_solver<double, std::int32_t>(Structure::spd, "reference", o);
    cpu.analyze(a);
    ref.analyze(a);
    ASSERT_EQ(ref.factorize(a), Status::success);
    ASSERT_EQ(cpu.factorize(a), Status::success);
    const double* lx0 = ref.numeric().lx.data();
    // New values, same pattern (3 A): the panels are not reallocated.
    std::vector<double> v2(a.values);
    for (auto& v : v2) v *= 3.0;
    ASSERT_EQ(ref.refactorize(v2), Status::success);
    ASSERT_EQ(cpu.refactorize(v2), Status::success);
    EXPECT_EQ(ref.numeric().lx.data(), lx0);
    EXPECT_LT(factor_difference(cpu.factor_L(), ref.factor_L()), 1e-13);
    std::vector<double> b(a.nrows, 1.0), x(b.size());
    EXPECT_LE(ref.solve(b, x).backward_error, 1e-14);
    // A failing refactorize, then a good one again on the same solver.
    std::vector<double> bad(a.values);
    for (auto& v : bad) v = -v;
    EXPECT_EQ(ref.refactorize(bad), Status::not_positive_definite);
    EXPECT_EQ(ref.result("failing_column"), static_cast<double>(ref.permutation()[0]));
    EXPECT_FALSE(ref.factorized());
    ASSERT_EQ(ref.refactorize(a.values), Status::success);
    EXPECT_LE(ref.solve(b, x).backward_error, 1e-14);
    // Switching the backend between refactorizations keeps the same analysis and storage.
    ref.set_option("backend", "cpu");
    ASSERT_EQ(ref.refactorize(a.values), Status::success);
    cpu.set_option("backend", "reference");
    ASSERT_EQ(cpu.refactorize(a.values), Status::success);
    EXPECT_LT(factor_difference(cpu.factor_L(), ref.factor_L()), 1e-13);
}

}  // namespace
}  // namespace gigasparse::direct
