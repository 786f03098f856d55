// tests/cli/test_spgemm.cpp: `gigasparse spgemm`: A·A and A·B, JSON fields, --check, -o output, errors.
#include <complex>
#include <fstream>

#include <gtest/gtest.h>

#include <gigasparse/cuda/device.hpp>
#include <gigasparse/io/matrix_market.hpp>
#include <gigasparse/reference/kernels.hpp>

#include "cli_runner.hpp"
#include "utils/test_utils.hpp"

namespace gigasparse::test {
namespace {

// A 3x3 and a 3x2 matrix written as Matrix Market files in a fresh folder.
struct Files {
    std::string dir = temp_dir("spgemm");
    std::string a = dir + "/a.mtx", b = dir + "/b.mtx", c = dir + "/c.mtx";
    Files() {
        std::ofstream(a) << "%%MatrixMarket matrix coordinate real general\n3 3 5\n1 1 1\n1 3 2\n2 2 3\n3 1 4\n3 3 5\n";
        std::ofstream(b) << "%%MatrixMarket matrix coordinate real general\n3 2 3\n1 1 1\n2 2 -1\n3 1 2\n";
    }
};

TEST(CliSpgemm, SquareWithJsonAndCheck) {
    Files f;
    const auto r = run_cli("spgemm '" + f.a + "' --json --check");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // A^2 = [9 0 12; 0 9 0; 24 0 33]
    for (const char* key : {"\"rows\":3", "\"cols\":3", "\"nnz\":5", "\"flops\":", "\"times\":{\"setup\":", "\"symbolic\":", "\"numeric\":",
                            "\"total\":", "\"stats\":{", "\"category_rows\":{\"sort\":", "\"check\":\"ok\""})
        EXPECT_NE(r.out.find(key), std::string::npos) << key << " missing in " << r.out;
}

TEST(CliSpgemm, RectangularProductWrittenToFile) {
    Files f;
    const auto r = run_cli("spgemm '" + f.a + "' '" + f.b + "' -o '" + f.c + "' --stats --backend cpu");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("C: 3 x 2, 3 nnz"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("categories (rows / products): sort"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("accumulators: sort rows on the sparse accumulator"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("symbolic"), std::string::npos);
    const auto a = io::read_mtx<double, std::int32_t>(f.a);
    const auto b = io::read_mtx<double, std::int32_t>(f.b);
    const auto c = io::read_mtx<double, std::int32_t>(f.c);
    using Matrix = Csr<double, std::int32_t>;
    const Matrix expected = reference::spgemm<double, std::int32_t>(a, b);
    EXPECT_TRUE((csr_near<double, std::int32_t>(expected, c, 1e-15)));
}

// A complex file makes the product complex<double> (the real file read as complex): checked against the reference,
// written complex; the GPU backend takes real values only (exit 4, the reason, device or not).
TEST(CliSpgemm, ComplexProduct) {
    Files f;
    const std::string z = f.dir + "/z.mtx";
    std::ofstream(z) << "%%MatrixMarket matrix coordinate complex general\n3 3 4\n1 1 1 1\n1 3 0 2\n2 2 3 -1\n3 1 4 0.5\n";
    const auto r = run_cli("spgemm '" + z + "' '" + f.b + "' -o '" + f.c + "' --json --check");
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    for (const char* key : {"\"values\":\"complex128\"", "\"check\":\"ok\"", "\"rows\":3", "\"cols\":2"})
        EXPECT_NE(r.out.find(key), std::string::npos) << key << " missing in " << r.out;
    using C = std::complex<double>;
    const auto a = io::read_mtx<C, std::int32_t>(z);
    const auto b = io::read_mtx<C, std::int32_t>(f.b);
    const auto c = io::read_mtx<C, std::int32_t>(f.c);
    EXPECT_EQ(io::read_mtx_header(f.c).field, io::MmField::complex);
    EXPECT_TRUE((csr_near<C, std::int32_t>(reference::spgemm<C, std::int32_t>(a, b), c, 1e-15)));
    // (row 1 of Z·B: 1+i times (1, 0) plus 2i times (2, 0): 1 + 5i in column 1)
    ASSERT_GE(c.nnz(), 1);
    EXPECT_EQ(c.values[0], C(1, 5));
    const auto gpu = run_cli("spgemm '" + z + "' --backend cuda");
    EXPECT_EQ(gpu.exit_code, 4) << gpu.out;
    EXPECT_NE(gpu.err.find("real values"), std::string::npos) << gpu.err;
}

TEST(CliSpgemm, ReferenceBackendAndErrors) {
    Files f;
    EXPECT_EQ(run_cli("spgemm '" + f.a + "' --backend reference --check").exit_code, 0);
    EXPECT_EQ(run_cli("spgemm '" + f.a + "' --backend gpu2").exit_code, 2);
    EXPECT_EQ(run_cli("spgemm").exit_code, 2);
    EXPECT_EQ(run_cli("spgemm '" + f.dir + "/missing.mtx'").exit_code, 3);
    const auto mismatch = run_cli("spgemm '" + f.b + "' '" + f.a + "' --json");  // (3x2)·(3x3)
    EXPECT_EQ(mismatch.exit_code, 3);
    EXPECT_NE(mismatch.out.find("\"error\""), std::string::npos);
}

// --backend cuda: without a device, exit code 4 and the reason; with one, the GPU's account in text and JSON.
TEST(CliSpgemm, CudaBackendRunsOrSaysWhyNot) {
    Files f;
    const auto r = run_cli("spgemm '" + f.a + "' --backend cuda --check");
    if (cuda::device_count() == 0) {
        EXPECT_EQ(r.exit_code, 4);
        EXPECT_NE(r.err.find("cuda backend needs a CUDA device"), std::string::npos) << r.err;
        return;
    }
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("gpu: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("device ms: setup"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("check against the reference: ok"), std::string::npos) << r.out;
    const auto j = run_cli("spgemm '" + f.a + "' --backend cuda --device 0 --json");
    ASSERT_EQ(j.exit_code, 0) << j.err;
    for (const char* key : {"\"gpu\":{\"device\":", "\"heavy_rows\":", "\"milliseconds\":{", "\"device_bytes_peak\":"})
        EXPECT_NE(j.out.find(key), std::string::npos) << key << " in " << j.out;
}

TEST(CliSpgemm, SharedMatrixChecksAgainstReference) {
    const std::string dir = matrix_dir();
    if (dir.empty()) GTEST_SKIP() << "no ../shared/matrices";
    const auto r = run_cli("spgemm '" + dir + "/bcsstk13.mtx.gz' --check --threads 2");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("check against the reference: ok"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace gigasparse::test
