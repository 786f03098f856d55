// src/io/mm_header.cpp: the Matrix Market banner and size line: parsing, checks, read_mtx_header.
#include "io/mm_header.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <vector>

#include "io/mm_file.hpp"

namespace gigasparse::io {

const char* to_string(MmFormat f) { return f == MmFormat::coordinate ? "coordinate" : "array"; }

const char* to_string(MmField f) {
    switch (f) {
        case MmField::real: return "real";
        case MmField::integer: return "integer";
        case MmField::complex: return "complex";
        case MmField::pattern: return "pattern";
    }
    return "unknown";
}

namespace detail {
namespace {

constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();

// The blank-separated words of the cursor's line, lower-cased; the cursor moves to the next line.
std::vector<std::string> banner_words(Cursor& c) {
    std::vector<std::string> words;
    for (;;) {
        c.skip_blanks();
        if (c.at_end() || *c.p == '\n' || *c.p == '\r') break;
        std::string w;
        while (!c.at_end() && *c.p != ' ' && *c.p != '\t' && *c.p != '\n' && *c.p != '\r' && w.size() < 64)
            w += static_cast<char>(std::tolower(static_cast<unsigned char>(*c.p++)));
        words.push_back(w);
        if (words.size() > 5) break;
    }
    return words;
}

MmFormat parse_format(const Cursor& c, const std::string& w) {
    if (w == "coordinate") return MmFormat::coordinate;
    if (w == "array") return MmFormat::array;
    c.fail("unknown format '" + w + "' in the banner (expected coordinate or array)");
}

MmField parse_field(const Cursor& c, const std::string& w) {
    if (w == "real" || w == "double") return MmField::real;
    if (w == "integer") return MmField::integer;
    if (w == "complex") return MmField::complex;
    if (w == "pattern") return MmField::pattern;
    c.fail("unknown field '" + w + "' in the banner (expected real, integer, complex or pattern)");
}

Symmetry parse_symmetry(const Cursor& c, const std::string& w) {
    if (w == "general") return Symmetry::general;
    if (w == "symmetric") return Symmetry::symmetric;
    if (w == "skew-symmetric") return Symmetry::skew_symmetric;
    if (w == "hermitian") return Symmetry::hermitian;
    c.fail("unknown symmetry '" + w + "' in the banner (expected general, symmetric, skew-symmetric or hermitian)");
}

void parse_banner(Cursor& c, MmHeader& h) {
    static const std::string magic = "%%matrixmarket";
    const std::vector<std::string> w = banner_words(c);
    if (w.empty() || w[0] != magic)
        c.fail("missing banner: the first line must be '%%MatrixMarket matrix <format> <field> <symmetry>'");
    if (w.size() < 5) c.fail("incomplete banner: expected '%%MatrixMarket matrix <format> <field> <symmetry>'");
    if (w.size() > 5) c.fail("unexpected text after the symmetry in the banner");
    if (w[1] != "matrix") c.fail("unsupported object '" + w[1] + "' in the banner (only 'matrix')");
    h.format = parse_format(c, w[2]);
    h.field = parse_field(c, w[3]);
    h.symmetry = parse_symmetry(c, w[4]);
    if (h.format == MmFormat::array && h.field == MmField::pattern) c.fail("an array file cannot have the pattern field");
    if (h.field == MmField::pattern && h.symmetry == Symmetry::skew_symmetric)
        c.fail("a pattern file cannot be skew-symmetric");
    if (h.symmetry == Symmetry::hermitian && h.field != MmField::complex) c.fail("hermitian symmetry needs the complex field");
    c.end_line();
}

long long parse_size_line(Cursor& c, MmHeader& h) {
    if (!c.next_data_line()) c.fail("missing size line (rows columns" + std::string(h.format == MmFormat::coordinate ? " entries)" : ")"));
    const long long size_line = c.line;
    const auto fail = [&](const std::string& message) { throw ParseError(c.file(), size_line, message); };
    c.skip_blanks();
    h.nrows = c.count("the number of rows");
    c.separator("number of columns");
    h.ncols = c.count("the number of columns");
    if (h.format == MmFormat::coordinate) {
        c.separator("number of entries");
        h.nnz = c.count("the number of entries");
    }
    c.end_line();
    if (h.symmetry != Symmetry::general && h.nrows != h.ncols)
        fail(std::string("a ") + to_string(h.symmetry) + " matrix must be square, the size line says " + std::to_string(h.nrows) + " x " +
             std::to_string(h.ncols));
    const bool too_many = h.ncols == 0 ? h.nnz > 0 : h.nrows > int64_max / h.ncols ? false : h.nnz > h.nrows * h.ncols;
    if (h.format == MmFormat::coordinate && too_many)
        fail(std::to_string(h.nnz) + " entries declared for a " + std::to_string(h.nrows) + " x " + std::to_string(h.ncols) +
             " matrix, which has fewer positions");
    if (h.format == MmFormat::array) {
        if (h.ncols != 0 && h.nrows > int64_max / h.ncols)
            fail("an array of " + std::to_string(h.nrows) + " x " + std::to_string(h.ncols) + " entries is too large");
        h.nnz = array_entries(h);
    }
    return size_line;
}

}  // namespace

std::int64_t array_entries(const MmHeader& h) {
    const std::int64_t n = h.nrows;
    switch (h.symmetry) {
        case Symmetry::general: return h.nrows * h.ncols;
        case Symmetry::symmetric:
        case Symmetry::hermitian: return n % 2 == 0 ? (n / 2) * (n + 1) : n * ((n + 1) / 2);
        case Symmetry::skew_symmetric: return n == 0 ? 0 : n % 2 == 0 ? (n / 2) * (n - 1) : n * ((n - 1) / 2);
    }
    return 0;
}

MmHeader parse_header(Cursor& c, long long* size_line) {
    MmHeader h;
    parse_banner(c, h);
    const long long line = parse_size_line(c, h);
    if (size_line) *size_line = line;
    return h;
}

void check_fits(const Cursor& c, long long size_line, const MmHeader& h, std::int64_t index_max, const char* index_name, double bytes) {
    if (h.nrows > index_max || h.ncols > index_max)
        throw OutOfMemory(c.file() + ":" + std::to_string(size_line) + ": the matrix is " + std::to_string(h.nrows) + " x " +
                          std::to_string(h.ncols) + ", too large for " + index_name + " indices");
    const double memory = static_cast<double>(physical_memory_bytes());
    if (bytes > memory)
        throw OutOfMemory(c.file() + ":" + std::to_string(size_line) + ": a " + std::to_string(h.nrows) + " x " + std::to_string(h.ncols) +
                          " matrix needs about " + std::to_string(static_cast<long long>(bytes / 1e9)) + " GB, more than the " +
                          std::to_string(static_cast<long long>(memory / 1e9)) + " GB of memory available on this machine");
}

}  // namespace detail

MmHeader read_mtx_header(const std::string& path) {
    const std::string text = detail::load_header_text(path);
    detail::Cursor c(path, text.data(), text.data() + text.size());
    return detail::parse_header(c);
}

}  // namespace gigasparse::io
