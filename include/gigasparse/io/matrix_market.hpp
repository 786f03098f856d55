// include/gigasparse/io/matrix_market.hpp: Matrix Market read/write (coordinate and array, .gz).
#pragma once

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include <gigasparse/core/matrix.hpp>

namespace gigasparse::io {

enum class MmFormat { coordinate, array };
enum class MmField { real, integer, complex, pattern };

// The banner and size line of a Matrix Market file.
struct MmHeader {
    MmFormat format = MmFormat::coordinate;
    MmField field = MmField::real;
    Symmetry symmetry = Symmetry::general;
    std::int64_t nrows = 0;
    std::int64_t ncols = 0;
    std::int64_t nnz = 0;  // stored entries (coordinate) or nrows*ncols (array, general)
};

const char* to_string(MmFormat f);
const char* to_string(MmField f);

// Reads only the banner and size line (cheap; used by `gigasparse info` and for checks).
MmHeader read_mtx_header(const std::string& path);

// A sparse matrix as stored in the file: `stored` holds exactly the file's entries (duplicates
// summed, rows sorted); for symmetric/skew/hermitian files only the stored triangle.
template <class V, class I>
struct MmMatrix {
    MmHeader header;
    Csr<V, I> stored;
};

// Reads a coordinate file (transparently gunzipped when the content starts with the gzip magic
// bytes, whatever the name). Pattern files get value 1. Complex files need a complex V
// (NotSupported otherwise); real/integer/pattern files read into any V. Array files are accepted
// too: every stored value becomes an entry (zeros included). NaN and Inf values are read and kept
// as they are: checking finiteness is the caller's job (validate(..., {.finite = true})).
// Symmetric, skew-symmetric and hermitian files must store the lower triangle only; a skew
// diagonal must be zero and a hermitian diagonal real. Blank lines and '%' comment lines may
// appear anywhere. Errors: IoError (open/read), ParseError ("file:line: what is wrong"; also for
// corrupt or truncated gzip), OutOfMemory ("file:line: ..." for declared sizes that do not fit I
// or the machine's memory; nothing is allocated beyond what the input can hold).
template <class V, class I>
MmMatrix<V, I> read_mtx_stored(const std::string& path);

// Reads a coordinate file and returns the full matrix (symmetric kinds expanded).
template <class V, class I>
Csr<V, I> read_mtx(const std::string& path);

// Reads an array file (dense vector or column-major matrix); symmetric kinds expanded. A
// coordinate file is accepted too and scattered into a dense matrix.
template <class V>
DenseMatrix<V> read_mtx_dense(const std::string& path);

// Values are written with std::to_chars: precision >= max_digits10 of the type (17 for double,
// 9 for float) or <= 0 gives the shortest text that reads back to the same value; a smaller
// precision gives that many significant digits. NaN and Inf are written as nan, inf, -inf.
struct MmWriteOptions {
    Symmetry symmetry = Symmetry::general;  // when not general, only the lower triangle is written (not checked)
    bool pattern = false;                   // write "pattern" (no values)
    int precision = 17;                     // significant digits for values (see above)
    std::string comment{};                  // optional comment lines (without leading %; '\n' separates lines)
    int compression_level = 1;              // zlib level 0..9 for names ending in .gz (1: fastest)
};

// Writes a coordinate file atomically: to a temporary file beside `path`, then rename.
// A name ending in .gz is written gzip-compressed. A failed write leaves `path` untouched.
template <class V, class I>
void write_mtx(const std::string& path, CsrView<V, I> a, const MmWriteOptions& options = {});

// Writes a dense array file atomically.
template <class V>
void write_mtx_dense(const std::string& path, const DenseMatrix<V>& a, const MmWriteOptions& options = {});

}  // namespace gigasparse::io
