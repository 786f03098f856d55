// tests/direct/test_numeric.cpp: multifrontal Cholesky against the dense reference, not-PD status, determinism.
#include <cmath>

#include <gtest/gtest.h>

#include <gigasparse/core/error.hpp>
#include <gigasparse/direct/solver.hpp>

#include "direct_test_utils.hpp"

namespace gigasparse::direct {
namespace {

// L from the solver vs the dense oracle on P A Pᵀ (same permutation): max |ΔL| / max |L|.
template <class V, class I>
double factor_error(const Csr<V, I>& a, DirectSolver<V, I>& s) {
    const idx n = a.nrows;
    auto perm = s.permutation();
    std::vector<idx> iperm(static_cast<std::size_t>(n));
    for (idx k = 0; k < n; ++k) iperm[perm[k]] = k;
    std::vector<V> d(static_cast<std::size_t>(n * n), V(0));
    for (idx i = 0; i < n; ++i)
        for (offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) d[iperm[i] + iperm[a.col_idx[k]] * n] += a.values[k];
    EXPECT_EQ(test::dense_cholesky(d, n), -1);
    Csr<V, std::int64_t> l = s.factor_L();
    std::vector<V> got(static_cast<std::size_t>(n * n), V(0));
    for (idx i = 0; i < n; ++i)
        for (offset_t k = l.row_ptr[i]; k < l.row_ptr[i + 1]; ++k) got[i + l.col_idx[k] * n] = l.values[k];
    double err = 0, mx = 0;
    for (std::size_t k = 0; k < d.size(); ++k) {
        err = std::max(err, static_cast<double>(std::abs(d[k] - got[k])));
        mx = std::max(mx, static_cast<double>(std::abs(d[k])));
    }
    return err / mx;
}

// Extra options (name, value) applied to every solver of a check; e.g. the blocked front kernel forced.
using OptionList = std::vector<std::pair<const char*, const char*>>;

template <class V, class I>
void check_against_reference(Structure st, double tol, const OptionList& extra = {}) {
    for (std::uint64_t seed : {1u, 2u, 3u})
        for (const char* ord : {"natural", "amd", "nd", "auto"})
            for (const char* threads : {"1", "2"}) {
                SCOPED_TRACE(std::string("seed = ") + std::to_string(seed) + " ordering " + ord + " threads " + threads);
                auto a = test::random_hpd<V, I>(150 + 20 * static_cast<std::int64_t>(seed), 3.0, seed);
                DirectSolver<V, I> s(st);
                s.set_option("ordering", ord);
                s.set_option("threads", threads);
                s.set_option("amalgamation_max_width", "16");
                for (auto& [name, value] : extra) s.set_option(name, value);
                s.analyze(a);
                ASSERT_EQ(s.factorize(a), Status::success);
                EXPECT_LT(factor_error(a, s), tol);
            }
}

TEST(DirectNumeric, DoubleMatchesReference) { check_against_reference<double, std::int32_t>(Structure::spd, 1e-13); }
TEST(DirectNumeric, DoubleInt64MatchesReference) { check_against_reference<double, std::int64_t>(Structure::spd, 1e-13); }
TEST(DirectNumeric, FloatMatchesReference) { check_against_reference<float, std::int32_t>(Structure::spd, 1e-5); }
TEST(DirectNumeric, ComplexHpdMatchesReference) {
    check_against_reference<std::complex<double>, std::int32_t>(Structure::hpd, 1e-13);
}
TEST(DirectNumeric, ComplexFloatHpdMatchesReference) {
    check_against_reference<std::complex<float>, std::int64_t>(Structure::hpd, 1e-5);
}

// The reference numeric phase (sequential left-looking, no BLAS) against the dense oracle: every value
// type, both index types, every ordering.
const OptionList reference_backend = {{"backend", "reference"}};
TEST(DirectNumeric, ReferenceBackendMatchesDenseOracle) {
    check_against_reference<double, std::int32_t>(Structure::spd, 1e-13, reference_backend);
    check_against_reference<double, std::int64_t>(Structure::spd, 1e-13, reference_backend);
    check_against_reference<float, std::int32_t>(Structure::spd, 1e-5, reference_backend);
    check_against_reference<float, std::int64_t>(Structure::spd, 1e-5, reference_backend);
    check_against_reference<std::complex<double>, std::int32_t>(Structure::hpd, 1e-13, reference_backend);
    check_against_reference<std::complex<double>, std::int64_t>(Structure::hpd, 1e-13, reference_backend);
    check_against_reference<std::complex<float>, std::int32_t>(Structure::hpd, 1e-5, reference_backend);
    check_against_reference<std::complex<float>, std::int64_t>(Structure::hpd, 1e-5, reference_backend);
}

// One front path forced on every front, every value type and both index types against the oracle;
// `narrow` and `wide` differ in the amalgamation width (fronts of many shapes).
void check_path(const OptionList& narrow, const OptionList& wide) {
    check_against_reference<double, std::int32_t>(Structure::spd, 1e-13, narrow);
    check_against_reference<double, std::int64_t>(Structure::spd, 1e-13, wide);
    check_against_reference<float, std::int32_t>(Structure::spd, 1e-5, wide);
    check_against_reference<std::complex<double>, std::int32_t>(Structure::hpd, 1e-13, narrow);
    check_against_reference<std::complex<float>, std::int64_t>(Structure::hpd, 1e-5, wide);
}

// The blocked tile kernel (recursive potrf/trsm, gemm/herk tiles, parallel assembly), with blocks of 3
// and 8 columns so that fronts span many blocks and row tiles.
const OptionList blocked3 = {{"blocked_front_rows", "0"}, {"front_block", "3"}, {"amalgamation_max_width", "64"}};
const OptionList blocked8 = {{"blocked_front_rows", "0"}, {"front_block", "8"}, {"amalgamation_max_width", "1000"}};
TEST(DirectNumeric, BlockedKernelMatchesReference) { check_path(blocked3, blocked8); }

// The small-front loops (small_front.hpp), their panel loops with a BLAS herk, and the BLAS path
// (potrf/trsm/herk): the default sends fronts to one of the three by their row count.
const OptionList all_small = {{"small_front_rows", "1000000"}};
const OptionList all_small_wide = {{"small_front_rows", "1000000"}, {"amalgamation_max_width", "1000"}};
const OptionList all_loop_panels = {{"small_front_rows", "0"}, {"loop_panel_rows", "1000000"}};
const OptionList all_loop_panels_wide = {{"small_front_rows", "0"}, {"loop_panel_rows", "1000000"}, {"amalgamation_max_width", "1000"}};
const OptionList no_loops = {{"small_front_rows", "0"}, {"loop_panel_rows", "0"}};
const OptionList no_loops_wide = {{"small_front_rows", "0"}, {"loop_panel_rows", "0"}, {"amalgamation_max_width", "1000"}};
TEST(DirectNumeric, SmallFrontKernelMatchesReference) { check_path(all_small, all_small_wide); }
TEST(DirectNumeric, LoopPanelsWithBlasUpdateMatchReference) { check_path(all_loop_panels, all_loop_panels_wide); }
TEST(DirectNumeric, BlasFrontsMatchReference) { check_path(no_loops, no_loops_wide); }

TEST(DirectNumeric, SmallFrontKernelReportsTheOriginalColumn) {
    // A negative or NaN pivot anywhere, every front through the small-front loops, or every panel
    // through them (contribution blocks by herk).
    for (const char* ord : {"natural", "amd", "nd"})
        for (double bad_value : {-1.0, std::nan("")})
            for (std::int64_t bad : {0, 17, 123, 199}) {
                SCOPED_TRACE(std::string(ord) + " column " + std::to_string(bad) + " value " + std::to_string(bad_value));
                auto a = test::random_hpd<double, std::int32_t>(200, 4.0, 5);
                test::set_diagonal(a, bad, bad_value);
                DirectSolver<double, std::int32_t> s;
                s.set_option("ordering", ord);
                s.set_option("threads", "2");
                s.set_option("amalgamation_max_width", "1000");
                for (const auto& [small, panels] : {std::pair{"1000000", "0"}, std::pair{"0", "1000000"}}) {
                    SCOPED_TRACE(std::string("small_front_rows ") + small + " loop_panel_rows " + panels);
                    s.set_option("small_front_rows", small);
                    s.set_option("loop_panel_rows", panels);
                    s.analyze(a);
                    EXPECT_EQ(s.factorize(a), Status::not_positive_definite);
                    EXPECT_EQ(s.result("failing_column"), static_cast<double>(bad));
                    EXPECT_THROW(s.factor_L(), PhaseError);  // no partial factor
                }
            }
}

// Each front zeroes and fills its own panel: a refactorization after a failed one (stale panels past
// the failing front) and after a successful one with other values gives the factor of the new values.
TEST(DirectNumeric, RefactorizeAfterFailureFillsEveryPanel) {
    for (const char* small : {"0", "64", "1000000"}) {
        SCOPED_TRACE(std::string("small_front_rows ") + small);
        auto a = test::random_hpd<double, std::int32_t>(300, 4.0, 11);
        DirectSolver<double, std::int32_t> s;
        s.set_option("ordering", "nd");
        s.set_option("threads", "2");
        s.set_option("small_front_rows", small);
        s.analyze(a);
        auto bad = a;
        test::set_diagonal(bad, 150, -1.0);
        EXPECT_EQ(s.factorize(bad), Status::not_positive_definite);
        ASSERT_EQ(s.refactorize(a.values), Status::success);
        EXPECT_LT(factor_error(a, s), 1e-13);
        auto scaled = a;
        for (double& v : scaled.values) v *= 3.0;
        ASSERT_EQ(s.refactorize(scaled.values), Status::success);
        EXPECT_LT(factor_error(scaled, s), 1e-13);
    }
}

TEST(DirectNumeric, BlockedKernelReportsTheOriginalColumn) {
    for (const char* ord : {"natural", "nd"})
        for (std::int64_t bad : {0, 17, 123, 199}) {
            SCOPED_TRACE(std::string(ord) + " column " + std::to_string(bad));
            auto a = test::random_hpd<double, std::int32_t>(200, 4.0, 5);
            test::set_diagonal(a, bad, -1.0);
            DirectSolver<double, std::int32_t> s;
            s.set_option("ordering", ord);
            s.set_option("threads", "2");
            s.set_option("blocked_front_rows", "0");
            s.set_option("front_block", "5");
            s.set_option("amalgamation_max_width", "1000");
            s.analyze(a);
            EXPECT_EQ(s.factorize(a), Status::not_positive_definite);
            EXPECT_EQ(s.result("failing_column"), static_cast<double>(bad));
        }
}

// Both numeric phases (multifrontal and the reference column Cholesky) report the failing column in the
// user's numbering and then refuse to solve.
TEST(DirectNumeric, NotPositiveDefiniteReportsTheOriginalColumn) {
    for (const char* backend : {"cpu", "reference"})
        for (const char* ord : {"natural", "amd", "nd"})
            for (std::int64_t bad : {0, 17, 123, 199}) {
                SCOPED_TRACE(std::string(backend) + " " + ord + " column " + std::to_string(bad));
                auto a = test::random_hpd<double, std::int32_t>(200, 4.0, 5);
                // Row `bad` keeps its off-diagonals; a negative pivot makes every elimination order fail there.
                test::set_diagonal(a, bad, -1.0);
                DirectSolver<double, std::int32_t> s;
                s.set_option("backend", backend);
                s.set_option("ordering", ord);
                s.set_option("threads", "2");
                s.analyze(a);
                EXPECT_EQ(s.factorize(a), Status::not_positive_definite);
                EXPECT_EQ(s.result("failing_column"), static_cast<double>(bad));
                std::vector<double> b(200, 1.0), x(200);
                EXPECT_THROW(s.solve(b, x), PhaseError);
            }
}

TEST(DirectNumeric, NotPositiveDefiniteInsideParallelSubtrees) {
    for (std::int64_t bad : {5, 1234, 2999}) {
        SCOPED_TRACE("column " + std::to_string(bad));
        auto a = test::random_hpd<double, std::int32_t>(3000, 5.0, 9);
        test::set_diagonal(a, bad, -1.0);
        DirectSolver<double, std::int32_t> s;
        s.set_option("threads", "2");
        s.set_option("ordering", "nd");
        s.analyze(a);
        EXPECT_GT(s.result("subtrees"), 1);
        EXPECT_EQ(s.factorize(a), Status::not_positive_definite);
        EXPECT_EQ(s.result("failing_column"), static_cast<double>(bad));
    }
}

TEST(DirectNumeric, ParallelFactorIsDeterministic) {
    auto a = test::random_hpd<double, std::int32_t>(3000, 5.0, 9);
    DirectSolver<double, std::int32_t> s;
    s.set_option("threads", "2");
    s.set_option("ordering", "nd");
    s.analyze(a);
    ASSERT_EQ(s.factorize(a), Status::success);
    EXPECT_GT(s.result("subtrees"), 1);
    std::vector<double> first = s.numeric().lx;
    for (int t = 0; t < 3; ++t) {
        ASSERT_EQ(s.refactorize(a.values), Status::success);
        EXPECT_TRUE(first == s.numeric().lx);
    }
    // Every BLAS call is single-threaded and the tiling does not depend on the thread count, so the
    // factor is bitwise the same with 1, 2 or 3 threads.
    for (const char* threads : {"1", "3"}) {
        SCOPED_TRACE(std::string("threads ") + threads);
        DirectSolver<double, std::int32_t> q;
        q.set_option("threads", threads);
        q.set_option("ordering", "nd");
        q.analyze(a);
        ASSERT_EQ(q.factorize(a), Status::success);
        EXPECT_TRUE(first == q.numeric().lx);
    }
    std::vector<double> b(3000, 1.0), x(3000);
    EXPECT_LE(s.solve(b, x).backward_error, 1e-14);
}

TEST(DirectNumeric, BlockedKernelIsDeterministicAcrossThreadCounts) {
    // Large fronts (ND on a 3D grid) through the blocked kernel with small blocks: many tiles per
    // step, the top fronts on a pool of 1, 2 or 4 threads; same bits every time, solve accurate.
    auto a = test::random_hpd<double, std::int64_t>(2500, 12.0, 21);
    std::vector<double> first;
    for (const char* threads : {"1", "2", "4"}) {
        SCOPED_TRACE(std::string("threads ") + threads);
        DirectSolver<double, std::int64_t> s;
        s.set_option("threads", threads);
        s.set_option("ordering", "nd");
        s.set_option("blocked_front_rows", "64");
        s.set_option("front_block", "16");
        s.set_option("amalgamation_max_width", "100000");
        s.analyze(a);
        ASSERT_EQ(s.factorize(a), Status::success);
        if (first.empty()) first = s.numeric().lx;
        EXPECT_TRUE(first == s.numeric().lx);
        std::vector<double> b(2500, 1.0), x(2500);
        EXPECT_LE(s.solve(b, x).backward_error, 1e-14);
    }
}

}  // namespace
}  // namespace gigasparse::direct
