// tests/io/test_mm_malformed.cpp: every kind of bad input fails cleanly with the right exception, file name and line.
#include <gtest/gtest.h>

#include <complex>
#include <filesystem>
#include <string>
#include <vector>

#include <zlib.h>

#include <gigasparse/core/error.hpp>
#include <gigasparse/io/matrix_market.hpp>

#include "io/io_test_utils.hpp"
#include "utils/test_utils.hpp"

namespace gs = gigasparse;
namespace io = gigasparse::io;
using gs::test::TempDir;

namespace {

enum class Kind { parse, out_of_memory, not_supported };

struct Case {
    const char* name;
    std::string text;
    long long line;  // line the message must name
    Kind kind = Kind::parse;
    const char* says = "";  // a fragment the message must contain
};

const std::string coo_real = "%%MatrixMarket matrix coordinate real general\n";
const std::string coo_sym = "%%MatrixMarket matrix coordinate real symmetric\n";

std::vector<Case> cases() {
    return {
        {"empty", "", 1, Kind::parse, "banner"},
        {"no_banner", "3 3 1\n1 1 1\n", 1, Kind::parse, "banner"},
        {"misspelled_banner", "%%MatrixMarkt matrix coordinate real general\n1 1 1\n1 1 1\n", 1, Kind::parse, "banner"},
        {"incomplete_banner", "%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 1\n", 1, Kind::parse, "incomplete banner"},
        {"extra_banner_word", "%%MatrixMarket matrix coordinate real general extra\n1 1 1\n1 1 1\n", 1, Kind::parse, "after the symmetry"},
        {"unknown_object", "%%MatrixMarket vector coordinate real general\n1 1 1\n1 1 1\n", 1, Kind::parse, "object"},
        {"unknown_format", "%%MatrixMarket matrix sparse real general\n1 1 1\n1 1 1\n", 1, Kind::parse, "unknown format"},
        {"unknown_field", "%%MatrixMarket matrix coordinate float general\n1 1 1\n1 1 1\n", 1, Kind::parse, "unknown field"},
        {"unknown_symmetry", "%%MatrixMarket matrix coordinate real symmetrical\n1 1 1\n1 1 1\n", 1, Kind::parse, "unknown symmetry"},
        {"array_pattern", "%%MatrixMarket matrix array pattern general\n1 1\n", 1, Kind::parse, "pattern"},
        {"real_hermitian", "%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n", 1, Kind::parse, "hermitian"},
        {"pattern_skew", "%%MatrixMarket matrix coordinate pattern skew-symmetric\n2 2 1\n2 1\n", 1, Kind::parse, "skew"},
        {"missing_size_line", coo_real + "% only comments\n", 3, Kind::parse, "missing size line"},
        {"short_size_line", coo_real + "3 3\n1 1 1\n", 2, Kind::parse, "number of entries"},
        {"negative_size", coo_real + "-3 3 1\n1 1 1\n", 2, Kind::parse, "number of rows"},
        {"size_line_garbage", coo_real + "3 3 1 x\n1 1 1\n", 2, Kind::parse, "unexpected text"},
        {"non_square_symmetric", coo_sym + "3 4 1\n1 1 1\n", 2, Kind::parse, "square"},
        {"nnz_above_positions", coo_real + "2 2 5\n1 1 1\n1 2 1\n2 1 1\n2 2 1\n1 1 1\n", 2, Kind::parse, "fewer positions"},
        {"nnz_beyond_file_size", coo_real + "1000000 1000000 999999999999\n1 1 1\n", 2, Kind::parse, "can hold at most"},
        {"too_few_entries", coo_real + "3 3 2\n1 1 1.000000000000000\n", 4, Kind::parse, "ends after 1"},
        {"too_many_entries", coo_real + "3 3 1\n1 1 1\n2 2 2\n", 4, Kind::parse, "more entries"},
        {"row_index_zero", coo_real + "3 3 1\n0 1 1\n", 3, Kind::parse, "row index 0"},
        {"row_index_too_large", coo_real + "3 3 1\n4 1 1\n", 3, Kind::parse, "row index 4"},
        {"col_index_too_large", coo_real + "3 3 2\n1 1 1\n2 9 1\n", 4, Kind::parse, "column index 9"},
        {"index_overflow", coo_real + "3 3 1\n99999999999999999999999 1 1\n", 3, Kind::parse, "too large"},
        {"negative_index", coo_real + "3 3 1\n-1 1 1\n", 3, Kind::parse, "row index"},
        {"non_numeric_value", coo_real + "3 3 1\n1 1 abc\n", 3, Kind::parse, "'abc'"},
        {"non_numeric_index", coo_real + "3 3 1\nx 1 1\n", 3, Kind::parse, "row index"},
        {"missing_value", coo_real + "3 3 2\n1 1 1.0000000\n2 2\n", 4, Kind::parse, "value"},
        {"trailing_field", coo_real + "3 3 1\n1 1 1 2\n", 3, Kind::parse, "unexpected text"},
        {"trailing_garbage", coo_real + "3 3 1\n1 1 1.0x\n", 3, Kind::parse, "unexpected text"},
        {"glued_fields", coo_real + "3 3 1\n1,1 1\n", 3, Kind::parse, "column index"},
        {"integer_with_fraction", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n", 3, Kind::parse, "unexpected text"},
        {"complex_missing_imag", "%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 1.0\n", 3, Kind::parse, "imaginary"},
        {"upper_triangle_in_symmetric", coo_sym + "3 3 2\n2 1 1\n1 3 1\n", 4, Kind::parse, "above the diagonal"},
        {"skew_nonzero_diagonal", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n2 2 1\n", 3, Kind::parse, "diagonal"},
        {"hermitian_complex_diagonal", "%%MatrixMarket matrix coordinate complex hermitian\n2 2 1\n1 1 1 1\n", 3, Kind::parse, "not real"},
        {"array_too_few", "%%MatrixMarket matrix array real general\n2 2\n1.000000\n2.000000\n3.000000\n", 6, Kind::parse, "ends after 3"},
        {"array_too_many", "%%MatrixMarket matrix array real general\n1 2\n1\n2\n3\n", 5, Kind::parse, "more values"},
        {"array_bad_value", "%%MatrixMarket matrix array real general\n2 1\n1\nfoo\n", 4, Kind::parse, "'foo'"},
        {"binary_garbage", std::string("\x7f\x45\x4c\x46\x02\x01\x01\x00\xff\xfe", 10), 1, Kind::parse, "banner"},
        {"dims_too_large_for_memory", coo_real + "1000000000000 1000000000000 1\n1 1 1\n", 2, Kind::out_of_memory, "1000000000000"},
        {"complex_into_real", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 2\n", 1, Kind::not_supported, "complex"},
    };
}

// Complex files are read with a complex value type, except the case about that mismatch.
bool complex_reader(const Case& c) { return c.kind != Kind::not_supported && c.text.find(" complex ") != std::string::npos; }

// Runs `read` on the file and checks exception type, file name, line and message fragment.
template <class F>
void expect_failure(const Case& c, const std::string& path, F&& read) {
    SCOPED_TRACE(c.name);
    try {
        read(path);
        ADD_FAILURE() << c.name << ": no exception";
        return;
    } catch (const gs::ParseError& e) {
        EXPECT_EQ(c.kind, Kind::parse) << e.what();
        EXPECT_EQ(e.file(), path);
        EXPECT_EQ(e.line(), c.line) << e.what();
        EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << e.what();
        return;
    } catch (const gs::OutOfMemory& e) {
        EXPECT_EQ(c.kind, Kind::out_of_memory) << e.what();
        EXPECT_NE(std::string(e.what()).find(path + ":" + std::to_string(c.line) + ":"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << e.what();
    } catch (const gs::NotSupported& e) {
        EXPECT_EQ(c.kind, Kind::not_supported) << e.what();
        EXPECT_NE(std::string(e.what()).find(path + ":" + std::to_string(c.line) + ":"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << e.what();
    }
}

}  // namespace

TEST(MmMalformed, EveryCaseFailsWithFileAndLine) {
    TempDir dir("bad");
    for (const Case& c : cases()) {
        const std::string path = dir.file(std::string(c.name) + ".mtx");
        gs::test::write_text(path, c.text);
        if (complex_reader(c)) {
            expect_failure(c, path, [](const std::string& p) { io::read_mtx<std::complex<double>, std::int64_t>(p); });
            expect_failure(c, path, [](const std::string& p) { io::read_mtx_stored<std::complex<float>, std::int32_t>(p); });
        } else {
            expect_failure(c, path, [](const std::string& p) { io::read_mtx<double, std::int64_t>(p); });
            expect_failure(c, path, [](const std::string& p) { io::read_mtx_stored<float, std::int32_t>(p); });
        }
    }
}

// The same files gzip-compressed: the errors name the same lines.
TEST(MmMalformed, GzipCompressedCasesReportTheSameLines) {
    TempDir dir("bad_gz");
    for (const Case& c : cases()) {
        const std::string path = dir.file(std::string(c.name) + ".mtx.gz");
        gzFile g = gzopen(path.c_str(), "wb");
        ASSERT_NE(g, nullptr);
        if (!c.text.empty()) {
            ASSERT_EQ(gzwrite(g, c.text.data(), static_cast<unsigned>(c.text.size())), static_cast<int>(c.text.size()));
        }
        gzclose(g);
        if (complex_reader(c)) expect_failure(c, path, [](const std::string& p) { io::read_mtx<std::complex<float>, std::int64_t>(p); });
        else expect_failure(c, path, [](const std::string& p) { io::read_mtx<float, std::int64_t>(p); });
    }
}

TEST(MmMalformed, DenseReaderReportsLines) {
    TempDir dir("bad_dense");
    for (const Case& c : cases()) {
        const std::string text = c.text;
        if (text.find("array") == std::string::npos) continue;
        const std::string path = dir.file(std::string(c.name) + ".mtx");
        gs::test::write_text(path, text);
        expect_failure(c, path, [](const std::string& p) { io::read_mtx_dense<double>(p); });
    }
}

TEST(MmMalformed, DimensionsThatDoNotFitTheIndexType) {
    TempDir dir("idx");
    const std::string path = dir.file("big.mtx");
    gs::test::write_text(path, coo_real + "3000000000 3000000000 1\n1 1 1\n");
    try {
        io::read_mtx<double, std::int32_t>(path);
        FAIL() << "expected OutOfMemory";
    } catch (const gs::OutOfMemory& e) {
        EXPECT_NE(std::string(e.what()).find(path + ":2:"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("int32"), std::string::npos) << e.what();
    }
}

TEST(MmMalformed, TruncatedAndCorruptGzip) {
    TempDir dir("gz");
    const auto a = gs::test::random_csr<double, std::int32_t>(2000, 2000, 20.0, 3);
    const std::string good = dir.file("good.mtx.gz");
    io::write_mtx<double, std::int32_t>(good, a);
    const std::string bytes = gs::test::read_bytes(good);
    const std::string truncated = dir.file("truncated.mtx.gz");
    gs::test::write_text(truncated, bytes.substr(0, bytes.size() / 2));
    try {
        io::read_mtx<double, std::int32_t>(truncated);
        FAIL() << "expected ParseError";
    } catch (const gs::ParseError& e) {
        EXPECT_EQ(e.file(), truncated);
        EXPECT_GT(e.line(), 1);
        EXPECT_NE(std::string(e.what()).find(truncated + ":" + std::to_string(e.line()) + ": truncated gzip"), std::string::npos) << e.what();
    }
    std::string corrupt_bytes = bytes;
    for (std::size_t k = corrupt_bytes.size() / 3; k < corrupt_bytes.size() / 3 + 64; ++k) corrupt_bytes[k] = static_cast<char>(corrupt_bytes[k] ^ 0x5a);
    const std::string corrupt = dir.file("corrupt.mtx.gz");
    gs::test::write_text(corrupt, corrupt_bytes);
    try {
        io::read_mtx<double, std::int32_t>(corrupt);
        FAIL() << "expected ParseError";
    } catch (const gs::ParseError& e) {
        EXPECT_EQ(e.file(), corrupt);
        EXPECT_NE(std::string(e.what()).find(corrupt + ":" + std::to_string(e.line()) + ":"), std::string::npos) << e.what();
    }
    // Only the gzip header: nothing decompresses.
    const std::string stub = dir.file("stub.mtx.gz");
    gs::test::write_text(stub, bytes.substr(0, 12));
    EXPECT_THROW((io::read_mtx<double, std::int32_t>(stub)), gs::ParseError);
}

TEST(MmMalformed, UnreadablePaths) {
    TempDir dir("paths");
    for (const std::string& path : {dir.file("missing.mtx"), dir.path().string()}) {
        try {
            io::read_mtx<double, std::int32_t>(path);
            FAIL() << "expected IoError for " << path;
        } catch (const gs::ParseError& e) {
            FAIL() << "expected a plain IoError, got " << e.what();
        } catch (const gs::IoError& e) {
            EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
        }
        EXPECT_THROW(io::read_mtx_header(path), gs::IoError);
    }
}

// A large file without a newline (binary data) fails fast in the header reader and the reader.
TEST(MmMalformed, LongFileWithoutNewlines) {
    TempDir dir("long");
    const std::string path = dir.file("long.mtx");
    gs::test::write_text(path, "%%MatrixMarket matrix coordinate real general" + std::string(std::size_t(32) << 20, 'x'));
    EXPECT_THROW(io::read_mtx_header(path), gs::ParseError);
    EXPECT_THROW((io::read_mtx<double, std::int32_t>(path)), gs::ParseError);
    gs::test::write_text(path, std::string(std::size_t(32) << 20, '7'));
    EXPECT_THROW(io::read_mtx_header(path), gs::ParseError);
}
