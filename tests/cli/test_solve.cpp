// tests/cli/test_solve.cpp: `gigasparse solve`: iterations and JSON fields, orderings, b from a file, exit codes.
#include <cmath>
#include <complex>
#include <cstdlib>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include <gigasparse/cuda/device.hpp>
#include <gigasparse/io/matrix_market.hpp>

#include "cli_runner.hpp"

using gigasparse::test::run_cli;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The integer after "key": in a one-line JSON object (-1 when absent).
long long json_int(const std::string& json, const std::string& key) {
    const auto p = json.find("\"" + key + "\":");
    return p == std::string::npos ? -1 : std::atoll(json.c_str() + p + key.size() + 3);
}

// A 2D Poisson matrix file made by `gigasparse generate` (cached per test binary run).
std::string poisson_file(int n) {
    setenv("OMP_WAIT_POLICY", "passive", 0);  // children inherit it: shared CI cores are oversubscribed
    const std::string f = gigasparse::test::temp_dir("solve") + "/p" + std::to_string(n) + ".mtx";
    const auto r = run_cli("generate poisson2d --n " + std::to_string(n) + " -o '" + f + "'");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return f;
}

// The number after "key": in a one-line JSON object (NaN when absent).
double json_double(const std::string& json, const std::string& key) {
    const auto p = json.find("\"" + key + "\":");
    return p == std::string::npos ? std::nan("") : std::atof(json.c_str() + p + key.size() + 3);
}

}  // namespace

TEST(CliSolve, JsonHasIterationsResidualDepthAndTimes) {
    const std::string f = poisson_file(64);
    const auto r = run_cli("solve '" + f + "' --method cg --precond ilu0 --ordering natural --json");
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    for (const char* key : {"\"iterations\":", "\"residual\":", "\"converged\":true", "\"depth\":127", "\"times\":{\"setup\":", "\"solve\":",
                            "\"total\":"})
        EXPECT_TRUE(contains(r.out, key)) << key << " in " << r.out;
    const long long it = json_int(r.out, "iterations");
    EXPECT_GE(it, 40);  // 64², b = A·1: about half the 2D scaling of §5 (52 for b = 1)
    EXPECT_LE(it, 60);
    // the true residual ||b - Ax||/||b|| of the returned x beside the solver's own (recurrence) residual: in double on
    // this system the two agree, both under the default tolerance 1e-8
    const double res = json_double(r.out, "residual"), true_res = json_double(r.out, "true_residual");
    EXPECT_GT(true_res, 0);
    EXPECT_LE(true_res, 1e-8);
    EXPECT_NEAR(true_res, res, 0.1 * res);
    const auto t = run_cli("solve '" + f + "' --method cg --precond ilu0 --ordering natural");
    EXPECT_TRUE(contains(t.out, "relative residual ") && contains(t.out, " (true ")) << t.out;
    EXPECT_FALSE(contains(t.out, "warning:")) << t.out;
}

TEST(CliSolve, EveryMethodPrecondAndOrderingRuns) {
    const std::string f = poisson_file(32);
    for (const std::string m : {"cg", "bicgstab", "gmres", "fgmres", "minres"}) {
        const auto r = run_cli("solve '" + f + "' --method " + m + " --precond jacobi");
        EXPECT_EQ(r.exit_code, 0) << m << r.err;
        EXPECT_TRUE(contains(r.out, "converged")) << r.out;
    }
    for (const std::string p : {"none", "ilu0", "ic0", "sgs"})
        for (const std::string o : {"natural", "rcm", "mc", "abmc", "dc", "auto"}) {
            const auto r = run_cli("solve '" + f + "' --precond " + p + " --ordering " + o + " --json --tol 1e-6 --maxit 500");
            EXPECT_EQ(r.exit_code, 0) << p << " " << o << r.err << r.out;
            if (p != "none" && o == "auto") {
                EXPECT_TRUE(contains(r.out, "\"auto_reason\":\"chose ")) << r.out;
            }
        }
    const auto mc = run_cli("solve '" + f + "' --precond ilu0 --ordering mc --json");
    EXPECT_EQ(json_int(mc.out, "depth"), 2) << mc.out;
    // MINRES takes a symmetric positive definite preconditioner only
    const auto bad = run_cli("solve '" + f + "' --method minres --precond ilu0");
    EXPECT_NE(bad.exit_code, 0);
    EXPECT_TRUE(contains(bad.err, "symmetric positive definite")) << bad.err;
}

TEST(CliSolve, DcSplitAndTwistFlags) {
    const std::string f = poisson_file(48);
    for (const std::string extra : {"--dc-split index", "--dc-split metis", "--dc-split auto --dc-untwisted", "--dc-leaf-rcm"}) {
        const auto r = run_cli("solve '" + f + "' --precond ic0 --ordering dc " + extra + " --json");
        EXPECT_EQ(r.exit_code, 0) << extra << r.err << r.out;
        EXPECT_EQ(json_int(r.out, "depth"), 2) << extra << r.out;  // two leaves, one sequential separator block
    }
    const auto bad = run_cli("solve '" + f + "' --precond ic0 --ordering dc --dc-split nd");
    EXPECT_EQ(bad.exit_code, 2) << bad.err;
    EXPECT_TRUE(contains(bad.err, "--dc-split")) << bad.err;
}

TEST(CliSolve, RightHandSideFromFile) {
    const std::string dir = gigasparse::test::temp_dir("solve_b");
    const std::string f = poisson_file(8);
    {
        std::ofstream b(dir + "/b.mtx");
        b << "%%MatrixMarket matrix array real general\n64 1\n";
        for (int i = 0; i < 64; ++i) b << (i % 3) << "\n";
    }
    const auto r = run_cli("solve '" + f + "' '" + dir + "/b.mtx' --precond ic0 --json");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "\"converged\":true")) << r.out;
    {
        std::ofstream b(dir + "/short.mtx");
        b << "%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n";
    }
    EXPECT_EQ(run_cli("solve '" + f + "' '" + dir + "/short.mtx'").exit_code, 3);
}

TEST(CliSolve, NotConvergedIsExitOneAndBadUsageIsTwo) {
    const std::string f = poisson_file(32);
    const auto r = run_cli("solve '" + f + "' --maxit 3 --json");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(contains(r.out, "\"converged\":false")) << r.out;
    EXPECT_TRUE(contains(r.out, "\"reason\":\"max_iterations\"")) << r.out;
    EXPECT_EQ(run_cli("solve '" + f + "' --method lsqr").exit_code, 2);
    EXPECT_EQ(run_cli("solve '" + f + "' --ordering spiral").exit_code, 2);
    EXPECT_EQ(run_cli("solve '" + f + "' --bogus 1").exit_code, 2);
    EXPECT_EQ(run_cli("solve").exit_code, 2);
    EXPECT_EQ(run_cli("solve /nonexistent/A.mtx").exit_code, 3);
}

TEST(CliSolve, ZeroDiagonalAndNanAreReported) {
    const std::string dir = gigasparse::test::temp_dir("solve_bad");
    {
        std::ofstream a(dir + "/zero.mtx");
        a << "%%MatrixMarket matrix coordinate real general\n3 3 5\n1 1 0\n1 2 1\n2 1 1\n2 2 2\n3 3 1\n";
    }
    const auto z = run_cli("solve '" + dir + "/zero.mtx' --precond ilu0 --method gmres --json");
    EXPECT_EQ(z.exit_code, 1) << z.out;
    EXPECT_TRUE(contains(z.out, "\"reason\":\"preconditioner_failed\"")) << z.out;
    EXPECT_TRUE(contains(z.out, "row 0")) << z.out;
    {
        std::ofstream a(dir + "/nan.mtx");
        a << "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 nan\n2 2 1\n";
    }
    const auto n = run_cli("solve '" + dir + "/nan.mtx'");
    EXPECT_EQ(n.exit_code, 3) << n.out << n.err;
    EXPECT_TRUE(contains(n.err, "non-finite")) << n.err;
}

// --backend cuda: usage errors before any device is needed; without a device, exit code 4 and the reason; with
// one, the same convergence as on the CPU and the GPU's account in text and JSON.
TEST(CliSolve, CudaBackendRunsOrSaysWhyNot) {
    const std::string f = poisson_file(32);
    EXPECT_EQ(run_cli("solve '" + f + "' --backend gpu").exit_code, 2);
    EXPECT_EQ(run_cli("solve '" + f + "' --backend cuda --method gmres --restart 0").exit_code, 2);
    const auto cpu_refusal = run_cli("solve '" + f + "' --method minres --precond ilu0");
    const auto gpu_refusal = run_cli("solve '" + f + "' --backend cuda --method minres --precond ilu0");
    EXPECT_EQ(gpu_refusal.exit_code, cpu_refusal.exit_code);  // misuse: the same answer as the CPU's, device or not
    EXPECT_TRUE(contains(gpu_refusal.err, "symmetric positive definite")) << gpu_refusal.err;
    const auto r = run_cli("solve '" + f + "' --backend cuda --precond jacobi");
    if (gigasparse::cuda::device_count() == 0) {
        EXPECT_EQ(r.exit_code, 4) << r.out;
        EXPECT_TRUE(contains(r.err, "cuda backend needs a CUDA device")) << r.err;
        return;
    }
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    for (const char* s : {"converged (converged)", "gpu: ", "lanes per row", "device ms: setup"}) EXPECT_TRUE(contains(r.out, s)) << s << " in " << r.out;
    const auto ic = run_cli("solve '" + f + "' --backend cuda --precond ic0");
    ASSERT_EQ(ic.exit_code, 0) << ic.err << ic.out;
    EXPECT_TRUE(contains(ic.out, "levels per application")) << ic.out;
    for (const char* method : {"bicgstab", "gmres", "fgmres", "minres"}) {
        const auto j = run_cli("solve '" + f + "' --backend cuda --method " + method + " --restart 10 --json");
        ASSERT_EQ(j.exit_code, 0) << method << j.err;
        for (const char* key : {"\"backend\":\"cuda\"", "\"gpu\":{\"device\":", "\"threads_per_row\":4", "\"milliseconds\":{", "\"converged\":true"})
            EXPECT_TRUE(contains(j.out, key)) << key << " in " << j.out;
    }
}

// -o writes x (n x 1 Matrix Market array): it is the solution, to the tolerance asked for.
TEST(CliSolve, SolutionWritten) {
    const std::string f = poisson_file(32), x = gigasparse::test::temp_dir("solve_xout") + "/x.mtx";
    const auto r = run_cli("solve '" + f + "' -o '" + x + "' --method cg --precond ic0 --tol 1e-10 --json");
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    EXPECT_TRUE(contains(r.out, "\"solution\":\"" + x + "\"")) << r.out;
    // b = A · ones: x is all ones to about the tolerance times the condition number
    const auto d = gigasparse::io::read_mtx_dense<double>(x);
    ASSERT_EQ(d.nrows, 1024);
    ASSERT_EQ(d.ncols, 1);
    for (double v : d.data) EXPECT_NEAR(v, 1.0, 1e-7);
    EXPECT_TRUE(contains(run_cli("solve '" + f + "' -o '" + x + "' --method cg").out, "solution written to " + x));
}

// A complex matrix file is solved in complex<double>: CG with IC(0) (L Lᴴ) on a Hermitian positive definite matrix,
// a complex b from a file, the complex solution written; on the GPU backend too.
TEST(CliSolve, ComplexMatrix) {
    using C = std::complex<double>;
    const std::string dir = gigasparse::test::temp_dir("solve_complex"), f = dir + "/h.mtx", bf = dir + "/b.mtx", x = dir + "/x.mtx";
    const std::int64_t n = 30;
    gigasparse::Csr<C, std::int32_t> h(n, n);  // tridiagonal: 3 on the diagonal, 1 + i above, 1 - i below
    h.row_ptr.assign(1, 0);
    for (std::int64_t i = 0; i < n; ++i) {
        if (i > 0) h.col_idx.push_back(static_cast<std::int32_t>(i - 1)), h.values.push_back(C(1, -1));
        h.col_idx.push_back(static_cast<std::int32_t>(i)), h.values.push_back(C(3, 0));
        if (i + 1 < n) h.col_idx.push_back(static_cast<std::int32_t>(i + 1)), h.values.push_back(C(1, 1));
        h.row_ptr.push_back(static_cast<gigasparse::offset_t>(h.col_idx.size()));
    }
    gigasparse::io::write_mtx(f, h.view());
    // b = H · (1 + i k / n)
    std::vector<C> xt(n), b(n, C(0));
    for (std::int64_t i = 0; i < n; ++i) xt[i] = C(1, static_cast<double>(i) / n);
    for (std::int64_t i = 0; i < n; ++i)
        for (gigasparse::offset_t k = h.row_ptr[i]; k < h.row_ptr[i + 1]; ++k) b[i] += h.values[k] * xt[h.col_idx[k]];
    gigasparse::DenseMatrix<C> bd(n, 1);
    std::copy(b.begin(), b.end(), bd.data.begin());
    gigasparse::io::write_mtx_dense(bf, bd);
    auto r = run_cli("solve '" + f + "' '" + bf + "' -o '" + x + "' --method cg --precond ic0 --tol 1e-12 --json");
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    EXPECT_TRUE(contains(r.out, "\"values\":\"complex128\"")) << r.out;
    EXPECT_EQ(json_int(r.out, "iterations"), 1) << "IC(0) of a tridiagonal matrix is exact: " << r.out;
    const auto d = gigasparse::io::read_mtx_dense<C>(x);
    ASSERT_EQ(d.nrows, n);
    for (std::int64_t i = 0; i < n; ++i) EXPECT_LE(std::abs(d.data[i] - xt[i]), 1e-10) << i;
    // GMRES without b (b = A · ones)
    r = run_cli("solve '" + f + "' --method gmres --precond jacobi --tol 1e-10");
    EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
    EXPECT_TRUE(contains(r.out, "converged")) << r.out;
    // the GPU backend solves it in complex<double> too (without a device: exit 4 and the reason)
    r = run_cli("solve '" + f + "' '" + bf + "' -o '" + x + "' --backend cuda --method cg --precond ic0 --tol 1e-12 --json");
    if (gigasparse::cuda::device_count() == 0) {
        EXPECT_EQ(r.exit_code, 4) << r.err << r.out;
        EXPECT_TRUE(contains(r.err, "needs a CUDA device")) << r.err;
        return;
    }
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    EXPECT_TRUE(contains(r.out, "\"values\":\"complex128\"")) << r.out;
    EXPECT_TRUE(contains(r.out, "\"backend\":\"cuda\"")) << r.out;
    const auto dg = gigasparse::io::read_mtx_dense<C>(x);
    for (std::int64_t i = 0; i < n; ++i) EXPECT_LE(std::abs(dg.data[i] - xt[i]), 1e-10) << i;
}
