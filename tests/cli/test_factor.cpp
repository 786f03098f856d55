// tests/cli/test_factor.cpp: `gigasparse factor`: statistics, JSON fields, residual, not-SPD exit code, errors.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <gigasparse/cuda/device.hpp>
#include <gigasparse/direct/solver.hpp>
#include <gigasparse/gen/generators.hpp>
#include <gigasparse/io/matrix_market.hpp>

#include "cli_runner.hpp"

namespace gs = gigasparse;
using gs::test::run_cli;

namespace {

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string write_poisson(const std::string& tag, double shift) {
    auto a = gs::gen::poisson2d<double, std::int64_t>(20, 20);
    for (std::int64_t i = 0; i < a.nrows; ++i)
        for (auto k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
            if (a.col_idx[k] == i) a.values[k] += shift;
    const std::string f = gs::test::temp_dir(tag) + "/a.mtx";
    gs::io::write_mtx(f, a.view());
    return f;
}

}  // namespace

TEST(CliFactor, JsonReportsStatisticsTimesAndResidual) {
    const std::string f = write_poisson("factor_json", 0.0);
    for (const char* ord : {"auto", "amd", "nd", "natural"}) {
        const auto r = run_cli("factor '" + f + "' --ordering " + ord + " --json");
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_TRUE(has(r.out, "\"nnz_L\":")) << r.out;
        EXPECT_TRUE(has(r.out, "\"status\":\"success\"")) << r.out;
        EXPECT_TRUE(has(r.out, "\"times\":{")) << r.out;
        for (const char* t : {"\"analyze\":", "\"factorize\":", "\"solve\":", "\"total\":"}) EXPECT_TRUE(has(r.out, t)) << r.out;
        const auto pos = r.out.find("\"residual\":");
        ASSERT_NE(pos, std::string::npos);
        EXPECT_LT(std::stod(r.out.substr(pos + 11)), 1e-12) << r.out;
    }
}

TEST(CliFactor, HumanOutputAndRightHandSideFile) {
    const std::string f = write_poisson("factor_human", 0.0);
    gs::DenseMatrix<double> b(400, 1);
    for (int i = 0; i < 400; ++i) b(i, 0) = i % 7 - 3.0;
    const std::string bf = gs::test::temp_dir("factor_b") + "/b.mtx";
    gs::io::write_mtx_dense(bf, b);
    const auto r = run_cli("factor '" + f + "' '" + bf + "' --refine 1");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const char* s : {"ordering", "nnz(L)", "flops", "supernodes", "analyze", "factorize", "solve", "residual"})
        EXPECT_TRUE(has(r.out, s)) << r.out;
}

TEST(CliFactor, NotPositiveDefiniteExitsWithOne) {
    const std::string f = write_poisson("factor_notspd", -10.0);
    const auto r = run_cli("factor '" + f + "' --json");
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_TRUE(has(r.out, "\"status\":\"not_positive_definite\"")) << r.out;
}

TEST(CliFactor, NonFiniteValueIsNamedAsTheCause) {
    // a NaN or Inf value fails the factorization at its column (exit 1); the output names the entry instead of
    // suggesting another structure, for every structure
    auto a = gs::gen::poisson2d<double, std::int64_t>(6, 6);
    for (auto k = a.row_ptr[4]; k < a.row_ptr[5]; ++k)
        if (a.col_idx[k] == 3) a.values[k] = std::numeric_limits<double>::quiet_NaN();
    const std::string f = gs::test::temp_dir("factor_nan") + "/a.mtx";
    gs::io::write_mtx(f, a.view());
    for (const char* structure : {"spd", "symmetric", "general"}) {
        SCOPED_TRACE(structure);
        const auto r = run_cli("factor '" + f + "' --structure " + structure);
        EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
        EXPECT_TRUE(has(r.out, "the matrix has a non-finite value (NaN or Inf) at row 5, column 4 of the file")) << r.out;
        EXPECT_FALSE(has(r.out, "--structure symmetric, LDL^T")) << r.out;
        const auto j = run_cli("factor '" + f + "' --structure " + structure + " --json");
        EXPECT_EQ(j.exit_code, 1) << j.out << j.err;
        EXPECT_TRUE(has(j.out, "\"non_finite_value\":\"the matrix has a non-finite value (NaN or Inf) at row 5, column 4")) << j.out;
    }
    // a finite matrix that is not SPD keeps the hint, and no non-finite value is named
    const auto r = run_cli("factor '" + write_poisson("factor_nan_hint", -10.0) + "'");
    EXPECT_TRUE(has(r.out, "--structure symmetric, LDL^T")) << r.out;
    EXPECT_FALSE(has(r.out, "non-finite")) << r.out;
}

TEST(CliFactor, BadArgumentsAreUsageErrors) {
    const std::string f = write_poisson("factor_bad", 0.0);
    EXPECT_EQ(run_cli("factor").exit_code, 2);
    EXPECT_EQ(run_cli("factor '" + f + "' --ordering colamd").exit_code, 2);
    EXPECT_EQ(run_cli("factor '" + f + "' --bogus 1").exit_code, 2);
    EXPECT_EQ(run_cli("factor /nonexistent/a.mtx").exit_code, 3);
}

TEST(CliFactor, SolveMethodDirectIsTheDirectSolver) {
    const std::string f = write_poisson("solve_direct", 0.0);
    const auto r = run_cli("solve '" + f + "' --method direct --structure spd --ordering nd --json");
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_TRUE(has(r.out, "\"status\":\"success\"")) << r.out;
    EXPECT_TRUE(has(r.out, "\"ordering\":\"nd\"")) << r.out;
    for (const char* t : {"\"residual\":", "\"analyze\":", "\"factorize\":", "\"solve\":", "\"total\":"}) EXPECT_TRUE(has(r.out, t)) << r.out;
    const auto text = run_cli("solve '" + f + "' --method direct");
    EXPECT_EQ(text.exit_code, 0) << text.err;
    EXPECT_TRUE(has(text.out, "nnz(L)")) << text.out;
    const auto not_spd = run_cli("solve '" + write_poisson("solve_direct_indef", -10.0) + "' --method direct");
    EXPECT_EQ(not_spd.exit_code, 1) << not_spd.out << not_spd.err;  // not positive definite: a numerical outcome
    EXPECT_EQ(run_cli("factor '" + f + "' --method cg").exit_code, 2);
    EXPECT_EQ(run_cli("solve '" + f + "' --method direct --precond ilu0").exit_code, 2);  // Krylov-only option
}

TEST(CliFactor, ReferenceBackend) {
    const std::string f = write_poisson("factor_reference", 0.0);
    const auto r = run_cli("factor '" + f + "' --backend reference --ordering nd --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(has(r.out, "\"backend\":\"reference\"")) << r.out;
    EXPECT_TRUE(has(r.out, "\"status\":\"success\"")) << r.out;
    const auto pos = r.out.find("\"residual\":");
    ASSERT_NE(pos, std::string::npos);
    EXPECT_LT(std::stod(r.out.substr(pos + 11)), 1e-12) << r.out;
    const auto cpu = run_cli("factor '" + f + "' --json");
    EXPECT_TRUE(has(cpu.out, "\"backend\":\"cpu\"")) << cpu.out;
    const auto indef = run_cli("factor '" + write_poisson("factor_reference_indef", -10.0) + "' --backend reference --json");
    EXPECT_EQ(indef.exit_code, 1) << indef.out << indef.err;
    EXPECT_TRUE(has(indef.out, "\"status\":\"not_positive_definite\"")) << indef.out;
    EXPECT_EQ(run_cli("factor '" + f + "' --backend gpu").exit_code, 2);
}

TEST(CliFactor, IndefiniteAndGeneralStructuresWithOptions) {
    // 2D Laplacian shifted by -2.05: indefinite. LDLᵀ reports pivots and the inertia; LU solves it too.
    const std::string f = write_poisson("factor_indef", -2.05);
    const auto l = run_cli("factor '" + f + "' --structure symmetric --json");
    ASSERT_EQ(l.exit_code, 0) << l.err;
    EXPECT_TRUE(has(l.out, "\"pivots\":{")) << l.out;
    EXPECT_TRUE(has(l.out, "\"negative\":")) << l.out;
    const auto h = run_cli("factor '" + f + "' --structure symmetric");
    EXPECT_TRUE(has(h.out, "inertia")) << h.out;
    const auto g = run_cli("factor '" + f + "' --structure general --options pivot_perturbation=0,matching=0 --json");
    ASSERT_EQ(g.exit_code, 0) << g.err;
    EXPECT_TRUE(has(g.out, "\"unmatched\":0")) << g.out;
    EXPECT_TRUE(has(g.out, "\"delayed\":0")) << g.out;
    const auto spd = run_cli("factor '" + f + "'");
    EXPECT_EQ(spd.exit_code, 1);
    EXPECT_TRUE(has(spd.out, "--structure symmetric")) << spd.out;
    EXPECT_EQ(run_cli("factor '" + f + "' --options bogus=1").exit_code, 2);
    EXPECT_EQ(run_cli("factor '" + f + "' --options pivot_block").exit_code, 2);
}

TEST(CliFactor, SchurComplementWrittenInTheGivenOrder) {
    const std::string f = write_poisson("factor_schur", 0.0);
    const std::string out = gs::test::temp_dir("factor_schur_out") + "/S.mtx";
    const auto r = run_cli("factor '" + f + "' --schur 400,1-20 --schur-out '" + out + "' --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(has(r.out, "\"schur\":{\"size\":21")) << r.out;
    const auto pos = r.out.find("\"residual\":");
    ASSERT_NE(pos, std::string::npos);
    EXPECT_LT(std::stod(r.out.substr(pos + 11)), 1e-12) << r.out;  // the solve goes through S
    const auto S = gs::io::read_mtx_dense<double>(out);
    ASSERT_EQ(S.nrows, 21);
    ASSERT_EQ(S.ncols, 21);
    // The same complement from the library, variables 399, 0..19 (0-based) in that order.
    auto a = gs::gen::poisson2d<double, std::int64_t>(20, 20);
    gs::direct::DirectSolver<double, std::int64_t> s(gs::direct::Structure::spd);
    std::vector<std::int64_t> schur{399};
    for (std::int64_t v = 0; v < 20; ++v) schur.push_back(v);
    s.set_schur_indices(schur);
    s.analyze(a);
    ASSERT_EQ(s.factorize(a), gs::direct::Status::success);
    const auto ref = s.schur_complement();
    for (std::int64_t j = 0; j < 21; ++j)
        for (std::int64_t i = 0; i < 21; ++i) EXPECT_NEAR(S(i, j), ref(i, j), 1e-12 * std::abs(ref(0, 0)));
    EXPECT_GT(S(0, 0), 0);  // S of an SPD matrix is SPD
    const auto h = run_cli("factor '" + f + "' --schur 5-7");
    ASSERT_EQ(h.exit_code, 0) << h.err;
    EXPECT_TRUE(has(h.out, "schur           3 x 3 dense complement")) << h.out;
}

TEST(CliFactor, SchurListErrorsAreUsageErrors) {
    const std::string f = write_poisson("factor_schur_bad", 0.0);
    for (const char* bad : {"--schur 0", "--schur 401", "--schur 3,3", "--schur 1-2,2", "--schur 5-3", "--schur x",
                            "--schur-out /tmp/never.mtx"}) {
        const auto r = run_cli("factor '" + f + "' " + bad);
        EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
        EXPECT_TRUE(has(r.err, "schur")) << bad << ": " << r.err;
    }
}

TEST(CliFactor, LogDeterminantOfTheFactors) {
    const std::string f = write_poisson("factor_det", -10.0);  // indefinite: LDLᵀ
    const auto r = run_cli("factor '" + f + "' --structure symmetric --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string key = "\"determinant\":{\"log_abs\":";
    const auto pos = r.out.find(key);
    ASSERT_NE(pos, std::string::npos) << r.out;
    // The same from the library's factors: -10 shifts the 2D Laplacian (eigenvalues in (0, 8)) to (-10, -2).
    auto a = gs::gen::poisson2d<double, std::int64_t>(20, 20);
    for (std::int64_t i = 0; i < a.nrows; ++i)
        for (auto k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
            if (a.col_idx[k] == i) a.values[k] -= 10.0;
    gs::direct::DirectSolver<double, std::int64_t> s(gs::direct::Structure::symmetric);
    s.analyze(a);
    ASSERT_EQ(s.factorize(a), gs::direct::Status::success);
    const auto d = s.log_determinant();
    EXPECT_NEAR(std::stod(r.out.substr(pos + key.size())), d.log_abs, 1e-9 * std::abs(d.log_abs));
    EXPECT_EQ(d.sign, 1.0);  // 400 negative eigenvalues: an even count
    EXPECT_GT(d.log_abs, 400 * std::log(2.0));
    const auto h = run_cli("factor '" + f + "' --structure symmetric");
    EXPECT_TRUE(has(h.out, "log|det A|")) << h.out;
    EXPECT_TRUE(has(h.out, "(sign +1)")) << h.out;
}

TEST(CliFactor, TransposedSolvesReportTheResidualOfTheirSystem) {
    // Convection–diffusion (unsymmetric): the residual printed is that of op(A) x = b, so a solve of the
    // wrong system would show.
    auto a = gs::gen::convection_diffusion<double, std::int64_t>(12, 12, 1, 20.0, 5.0, 0.0);
    const std::string f = gs::test::temp_dir("factor_transpose") + "/a.mtx";
    gs::io::write_mtx(f, a.view());
    for (const char* t : {"N", "T", "H"}) {
        const auto r = run_cli("factor '" + f + "' --structure general --transpose " + t + " --json");
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_TRUE(has(r.out, std::string("\"transpose\":\"") + t + "\"")) << r.out;
        const auto pos = r.out.find("\"residual\":");
        ASSERT_NE(pos, std::string::npos);
        EXPECT_LT(std::stod(r.out.substr(pos + 11)), 1e-12) << r.out;
    }
    EXPECT_TRUE(has(run_cli("factor '" + f + "' --structure general --transpose T").out, "A^T x = b"));
    EXPECT_EQ(run_cli("factor '" + f + "' --structure general --transpose X").exit_code, 2);
}

TEST(CliFactor, InaccurateSolveExitsWithOneAndSaysSo) {
    // diag(0.005, 1) factored with the first pivot perturbed to 0.01 and no refinement: backward error ~0.3.
    gs::Csr<double, std::int64_t> a(2, 2);
    a.row_ptr = {0, 1, 2};
    a.col_idx = {0, 1};
    a.values = {0.005, 1.0};
    const std::string f = gs::test::temp_dir("factor_inaccurate") + "/a.mtx";
    gs::io::write_mtx(f, a.view());
    const std::string opts = " --structure general --options matching=0,pivot_perturbation=0.01";
    const auto j = run_cli("factor '" + f + "'" + opts + " --refine 0 --json");
    EXPECT_EQ(j.exit_code, 1) << j.out;
    EXPECT_TRUE(has(j.out, "\"solve_status\":\"not_converged\"")) << j.out;
    EXPECT_TRUE(has(run_cli("factor '" + f + "'" + opts + " --refine 0").out, "not_converged")) << j.out;
    const auto ok = run_cli("factor '" + f + "'" + opts + " --refine 80 --json");
    EXPECT_EQ(ok.exit_code, 0) << ok.out;
    EXPECT_TRUE(has(ok.out, "\"solve_status\":\"success\"")) << ok.out;
}

TEST(CliFactor, DelayedPivotsReported) {
    // [[0, 0, 1], [0, 1, 1], [1, 1, 1]] without matching, natural order: column 0 has a zero pivot in its own front
    // and is delayed into the front of column 2 (tests/direct/test_lu.cpp).
    gs::Csr<double, std::int64_t> a(3, 3);
    a.row_ptr = {0, 1, 3, 6};
    a.col_idx = {2, 1, 2, 0, 1, 2};
    a.values = {1.0, 1.0, 1.0, 1.0, 1.0, 1.0};
    const std::string f = gs::test::temp_dir("factor_delayed") + "/a.mtx";
    gs::io::write_mtx(f, a.view());
    const std::string opts = " --structure general --options matching=0,ordering=natural,amalgamation=0";
    const auto j = run_cli("factor '" + f + "'" + opts + " --json");
    ASSERT_EQ(j.exit_code, 0) << j.out << j.err;
    EXPECT_TRUE(has(j.out, "\"pivots\":{\"perturbed\":0,\"delayed\":1,\"delay_rounds\":1,")) << j.out;
    const auto h = run_cli("factor '" + f + "'" + opts);
    EXPECT_TRUE(has(h.out, "0 perturbed, 1 delayed in 1 round (matching")) << h.out;
    const auto off = run_cli("factor '" + f + "'" + opts + ",delayed_pivots=0 --json");
    EXPECT_TRUE(has(off.out, "\"pivots\":{\"perturbed\":1,\"delayed\":0,")) << off.out;
    EXPECT_TRUE(has(run_cli("factor '" + f + "'" + opts + ",delayed_pivots=0").out, "1 perturbed (matching")) << off.out;
}

TEST(CliFactor, ConditionEstimate) {
    // The estimate is printed, and in the JSON only when asked for.
    const std::string f = write_poisson("factor_condest", 0.0);
    const auto j = run_cli("factor '" + f + "' --condest --json");
    ASSERT_EQ(j.exit_code, 0) << j.err;
    const auto pos = j.out.find("\"one_norm\":");
    ASSERT_NE(pos, std::string::npos) << j.out;
    const double est = std::stod(j.out.substr(pos + 11));
    EXPECT_GT(est, 25.8) << j.out;   // 2D Laplacian 20 x 20: κ₁ = 258 (numpy.linalg.cond(A, 1))
    EXPECT_LT(est, 258.5) << j.out;
    EXPECT_TRUE(has(run_cli("factor '" + f + "' --condest").out, "condition")) << j.out;
    EXPECT_FALSE(has(run_cli("factor '" + f + "' --json").out, "condition_estimate"));
}

TEST(CliFactor, InverseDiagonalWritten) {
    const std::string f = write_poisson("factor_invdiag", 0.0);
    const std::string out = gs::test::temp_dir("factor_invdiag_out") + "/d.mtx";
    const auto r = run_cli("factor '" + f + "' --inverse-diagonal '" + out + "' --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(has(r.out, "\"inverse_diagonal\":{\"file\":")) << r.out;
    const auto d = gs::io::read_mtx_dense<double>(out);
    ASSERT_EQ(d.nrows, 400);
    ASSERT_EQ(d.ncols, 1);
    // the library's diagonal (tested against a dense inverse in tests/direct/test_condition.cpp)
    auto a = gs::gen::poisson2d<double, std::int64_t>(20, 20);
    gs::direct::DirectSolver<double, std::int64_t> s(gs::direct::Structure::spd);
    s.analyze(a);
    ASSERT_EQ(s.factorize(a), gs::direct::Status::success);
    const auto ref = s.inverse_diagonal();
    for (std::int64_t i = 0; i < 400; ++i) EXPECT_NEAR(d(i, 0), ref[i], 1e-15 * std::abs(ref[i])) << i;
    EXPECT_TRUE(has(run_cli("factor '" + f + "' --inverse-diagonal '" + out + "'").out, "diag(A^-1)"));
    EXPECT_EQ(run_cli("factor '" + f + "' --structure symmetric --inverse-diagonal '" + out + "'").exit_code, 0);
    // LU (its selected inversion through the matching): the same diagonal
    ASSERT_EQ(run_cli("factor '" + f + "' --structure general --inverse-diagonal '" + out + "'").exit_code, 0);
    const auto dg = gs::io::read_mtx_dense<double>(out);
    for (std::int64_t i = 0; i < 400; ++i) EXPECT_NEAR(dg(i, 0), ref[i], 1e-13 * std::abs(ref[i])) << i;
}

// --backend cuda: without a device, exit code 4 and the reason; with one, the GPU's fronts in text and JSON.
TEST(CliFactor, CudaBackendRunsOrSaysWhyNot) {
    const std::string f = write_poisson("factor_cuda", 0.0);
    const auto r = run_cli("factor '" + f + "' --backend cuda --options gpu_front_rows=32");
    if (gigasparse::cuda::device_count() == 0) {
        EXPECT_EQ(r.exit_code, 4) << r.out;
        EXPECT_TRUE(has(r.err, "backend cuda")) << r.err;
        return;
    }
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    EXPECT_TRUE(has(r.out, "gpu             ")) << r.out;
    const auto j = run_cli("factor '" + f + "' --backend cuda --options gpu_front_rows=32 --json");
    ASSERT_EQ(j.exit_code, 0) << j.err;
    for (const char* key : {"\"backend\":\"cuda\"", "\"gpu\":{\"fronts\":"}) EXPECT_TRUE(has(j.out, key)) << key << " in " << j.out;
    EXPECT_EQ(run_cli("factor '" + f + "' --backend cuda --structure symmetric").exit_code, 4);  // LDLᵀ stays on the cpu
}

// b with several columns is solved at once; -o writes the n x k solution (here of Aᵀ x = b, LU): each column
// satisfies its system, JSON names the file and the column count; a b of the wrong size is a usage error.
TEST(CliFactor, SeveralRightHandSidesAndTheSolutionWritten) {
    auto a = gs::gen::poisson2d<double, std::int64_t>(20, 20);
    for (std::int64_t i = 0; i < a.nrows; ++i)  // unsymmetric: the strict upper triangle x 1.5
        for (auto k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
            if (a.col_idx[k] > i) a.values[k] *= 1.5;
    const std::string dir = gs::test::temp_dir("factor_xout"), f = dir + "/a.mtx", bf = dir + "/b.mtx", xf = dir + "/x.mtx";
    gs::io::write_mtx(f, a.view());
    const std::int64_t n = a.nrows, k = 3;
    gs::DenseMatrix<double> b(n, k);
    for (std::int64_t j = 0; j < k; ++j)
        for (std::int64_t i = 0; i < n; ++i) b(i, j) = std::sin(static_cast<double>(i + 7 * j));
    gs::io::write_mtx_dense(bf, b);
    const auto r = run_cli("factor '" + f + "' '" + bf + "' -o '" + xf + "' --structure general --transpose T --json");
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    EXPECT_TRUE(has(r.out, "\"nrhs\":3")) << r.out;
    EXPECT_TRUE(has(r.out, "\"solution\":\"" + xf + "\"")) << r.out;
    const auto x = gs::io::read_mtx_dense<double>(xf);
    ASSERT_EQ(x.nrows, n);
    ASSERT_EQ(x.ncols, k);
    double a_norm = 0;  // ||Aᵀ||_inf (the column sums of |A|: the same as its row sums for this pattern; the larger taken)
    for (std::int64_t i = 0; i < n; ++i) {
        double row = 0;
        for (auto q = a.row_ptr[i]; q < a.row_ptr[i + 1]; ++q) row += std::abs(a.values[q]);
        a_norm = std::max(a_norm, 1.5 * row);
    }
    for (std::int64_t j = 0; j < k; ++j) {  // backward error ||b - Aᵀ x||_inf / (||Aᵀ|| ||x|| + ||b||) per column
        std::vector<double> r_col(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) r_col[i] = b(i, j);
        for (std::int64_t i = 0; i < n; ++i)
            for (auto q = a.row_ptr[i]; q < a.row_ptr[i + 1]; ++q) r_col[a.col_idx[q]] -= a.values[q] * x(i, j);
        double rmax = 0, xmax = 0;
        for (double v : r_col) rmax = std::max(rmax, std::abs(v));
        for (std::int64_t i = 0; i < n; ++i) xmax = std::max(xmax, std::abs(x(i, j)));
        EXPECT_GT(xmax, 0.0);
        EXPECT_LT(rmax / (a_norm * xmax + 1.0), 1e-14) << "column " << j;
    }
    const auto t = run_cli("factor '" + f + "' '" + bf + "' -o '" + xf + "' --structure general");
    EXPECT_EQ(t.exit_code, 0) << t.err;
    EXPECT_TRUE(has(t.out, "3 right-hand sides")) << t.out;
    EXPECT_TRUE(has(t.out, "solution        written to " + xf + " (400 x 3)")) << t.out;
    gs::io::write_mtx_dense(bf, gs::DenseMatrix<double>(n - 1, 2));
    const auto bad = run_cli("factor '" + f + "' '" + bf + "'");
    EXPECT_EQ(bad.exit_code, 2) << bad.out;
    EXPECT_TRUE(has(bad.err, "n x k")) << bad.err;
}
