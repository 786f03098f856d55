// tests/io/test_mm_features.cpp: hand-checked files: duplicates, unsorted entries, integer field, NaN/Inf, odd number spellings.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>

#include <zlib.h>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>
#include <gigasparse/io/matrix_market.hpp>

#include "io/io_test_utils.hpp"
#include "utils/test_utils.hpp"

namespace gs = gigasparse;
namespace io = gigasparse::io;
using gs::test::TempDir;
using gs::test::write_text;

TEST(MmFeatures, DuplicatesSummedAndRowsSorted) {
    TempDir dir("dup");
    write_text(dir.file("d.mtx"),
               "%%MatrixMarket matrix coordinate real general\n3 4 6\n3 4 1\n1 2 2\n3 1 3\n1 2 0.5\n2 3 -1\n3 4 4\n");
    const auto m = io::read_mtx_stored<double, std::int32_t>(dir.file("d.mtx"));
    EXPECT_EQ(m.header.nnz, 6);
    const auto& a = m.stored;
    EXPECT_EQ(a.row_ptr, (std::vector<gs::offset_t>{0, 1, 2, 4}));
    EXPECT_EQ(a.col_idx, (std::vector<std::int32_t>{1, 2, 0, 3}));
    EXPECT_EQ(a.values, (std::vector<double>{2.5, -1, 3, 5}));
    gs::validate<double, std::int32_t>(a);
}

TEST(MmFeatures, IntegerFieldAndSpellings) {
    TempDir dir("int");
    write_text(dir.file("i.mtx"), "%%matrixmarket MATRIX Coordinate Integer General\n% comment\n\n  2 2 3  \r\n1 1 -7\r\n\n% mid comment\n2 2 +12\n 1\t2\t3 \n");
    const auto a = io::read_mtx<double, std::int64_t>(dir.file("i.mtx"));
    EXPECT_EQ(a.values, (std::vector<double>{-7, 3, 12}));
    write_text(dir.file("r.mtx"), "%%MatrixMarket matrix coordinate real general\n1 3 3\n1 1 1.5D+02\n1 2 +2.5e-1\n1 3 -.5\n");
    const auto b = io::read_mtx<float, std::int32_t>(dir.file("r.mtx"));
    EXPECT_EQ(b.values, (std::vector<float>{150.0f, 0.25f, -0.5f}));
}

TEST(MmFeatures, NanAndInfArePreserved) {
    TempDir dir("nan");
    write_text(dir.file("n.mtx"), "%%MatrixMarket matrix coordinate real general\n2 2 4\n1 1 nan\n1 2 inf\n2 1 -inf\n2 2 1e999\n");
    const auto a = io::read_mtx<double, std::int32_t>(dir.file("n.mtx"));
    EXPECT_TRUE(std::isnan(a.values[0]));
    EXPECT_EQ(a.values[1], std::numeric_limits<double>::infinity());
    EXPECT_EQ(a.values[2], -std::numeric_limits<double>::infinity());
    EXPECT_EQ(a.values[3], std::numeric_limits<double>::infinity());
    EXPECT_THROW((gs::validate<double, std::int32_t>(a, {.finite = true})), gs::InvalidStructure);
    io::write_mtx<double, std::int32_t>(dir.file("w.mtx"), a);
    const auto b = io::read_mtx<double, std::int32_t>(dir.file("w.mtx"));
    EXPECT_TRUE(std::isnan(b.values[0]));
    EXPECT_EQ(b.values[1], a.values[1]);
    EXPECT_EQ(b.values[2], a.values[2]);
}

TEST(MmFeatures, TinyValuesUnderflowWithoutError) {
    TempDir dir("tiny");
    write_text(dir.file("t.mtx"), "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1e-400\n");
    EXPECT_EQ((io::read_mtx<double, std::int32_t>(dir.file("t.mtx")).values[0]), 0.0);
    EXPECT_EQ((io::read_mtx<float, std::int32_t>(dir.file("t.mtx")).values[0]), 0.0f);
}

TEST(MmFeatures, RealFileIntoComplexAndComplexIntoRealFails) {
    TempDir dir("cplx");
    write_text(dir.file("r.mtx"), "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2\n");
    EXPECT_EQ((io::read_mtx<std::complex<double>, std::int32_t>(dir.file("r.mtx")).values[0]), std::complex<double>(2, 0));
    write_text(dir.file("c.mtx"), "%%MatrixMarket matrix coordinate complex hermitian\n2 2 2\n1 1 2 0\n2 1 1 -3\n");
    const auto h = io::read_mtx<std::complex<float>, std::int32_t>(dir.file("c.mtx"));
    EXPECT_EQ(h.values, (std::vector<std::complex<float>>{{2, 0}, {1, 3}, {1, -3}}));
    try {
        io::read_mtx<double, std::int32_t>(dir.file("c.mtx"));
        FAIL() << "expected NotSupported";
    } catch (const gs::NotSupported& e) {
        EXPECT_NE(std::string(e.what()).find(dir.file("c.mtx")), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("complex"), std::string::npos) << e.what();
    }
}

TEST(MmFeatures, ArrayFileAsSparseAndCoordinateAsDense) {
    TempDir dir("mix");
    write_text(dir.file("a.mtx"), "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n0\n4\n5\n6\n");
    const auto m = io::read_mtx_stored<double, std::int32_t>(dir.file("a.mtx"));
    EXPECT_EQ(m.header.format, io::MmFormat::array);
    EXPECT_EQ(m.stored.nnz(), 6);
    const auto full = io::read_mtx<double, std::int32_t>(dir.file("a.mtx"));
    const auto d = gs::test::to_dense<double, std::int32_t>(full);
    EXPECT_EQ(d, (std::vector<std::vector<double>>{{1, 2, 0}, {2, 4, 5}, {0, 5, 6}}));
    write_text(dir.file("c.mtx"), "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n3 1 2\n");
    const auto dense = io::read_mtx_dense<double>(dir.file("c.mtx"));
    EXPECT_EQ(dense(2, 0), 2.0);
    EXPECT_EQ(dense(0, 2), -2.0);
    EXPECT_EQ(dense(1, 1), 0.0);
}

TEST(MmFeatures, WriteOptionsPrecisionAndComment) {
    TempDir dir("opt");
    gs::Csr<double, std::int32_t> a(1, 1);
    a.row_ptr = {0, 1};
    a.col_idx = {0};
    a.values = {1.0 / 3.0};
    io::write_mtx<double, std::int32_t>(dir.file("p.mtx"), a, {.precision = 6, .comment = "first\nsecond"});
    const std::string text = gs::test::read_bytes(dir.file("p.mtx"));
    EXPECT_EQ(text, "%%MatrixMarket matrix coordinate real general\n%first\n%second\n1 1 1\n1 1 0.333333\n");
    io::write_mtx<double, std::int32_t>(dir.file("q.mtx"), a);
    EXPECT_EQ((io::read_mtx<double, std::int32_t>(dir.file("q.mtx")).values[0]), 1.0 / 3.0);
}

TEST(MmFeatures, WriteRejectsImpossibleOptions) {
    TempDir dir("bad");
    const auto a = gs::test::random_csr<double, std::int32_t>(3, 4, 2.0, 1);
    EXPECT_THROW((io::write_mtx<double, std::int32_t>(dir.file("x.mtx"), a, {.symmetry = gs::Symmetry::symmetric})), gs::DimensionMismatch);
    const auto s = gs::test::random_csr<double, std::int32_t>(4, 4, 2.0, 1);
    EXPECT_THROW((io::write_mtx<double, std::int32_t>(dir.file("x.mtx"), s, {.symmetry = gs::Symmetry::hermitian})), gs::InvalidArgument);
    EXPECT_EQ(gs::test::count_entries(dir.path()), 0);
}

TEST(MmFeatures, HeaderOnly) {
    TempDir dir("hdr");
    write_text(dir.file("h.mtx"), "%%MatrixMarket matrix coordinate pattern symmetric\n% c\n% d\n10 10 4\n1 1\n");
    const io::MmHeader h = io::read_mtx_header(dir.file("h.mtx"));
    EXPECT_EQ(h.format, io::MmFormat::coordinate);
    EXPECT_EQ(h.field, io::MmField::pattern);
    EXPECT_EQ(h.symmetry, gs::Symmetry::symmetric);
    EXPECT_EQ(h.nrows, 10);
    EXPECT_EQ(h.nnz, 4);
    EXPECT_STREQ(io::to_string(h.field), "pattern");
    EXPECT_STREQ(io::to_string(h.format), "coordinate");
}

TEST(MmFeatures, ConcatenatedGzipMembers) {
    TempDir dir("members");
    const std::string parts[] = {"%%MatrixMarket matrix coordinate real general\n2 2 2\n", "1 1 1\n", "2 2 2\n"};
    std::string bytes;
    for (const std::string& part : parts) {
        const std::string p = dir.file("part.gz");
        gzFile g = gzopen(p.c_str(), "wb");
        ASSERT_NE(g, nullptr);
        gzwrite(g, part.data(), static_cast<unsigned>(part.size()));
        gzclose(g);
        bytes += gs::test::read_bytes(p);
    }
    write_text(dir.file("m.mtx.gz"), bytes);
    const auto a = io::read_mtx<double, std::int32_t>(dir.file("m.mtx.gz"));
    EXPECT_EQ(a.values, (std::vector<double>{1, 2}));
}
