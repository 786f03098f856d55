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

// Reads a coordinate file (transparently gunzipped when the name ends in .gz or the content
// is gzip). Pattern files get value 1. Complex files need a complex V; real/integer/pattern
// files read into any V. Errors: IoError (open/read), ParseError (file:line: what is wrong),
// OutOfMemory (declared sizes that cannot be allocated or do not fit I).
template <class V, class I>
MmMatrix<V, I> read_mtx_stored(const std::string& path);

// Reads a coordinate file and returns the full matrix (symmetric kinds expanded).
template <class V, class I>
Csr<V, I> read_mtx(const std::string& path);

// Reads an array file (dense vector or column-major matrix); symmetric kinds expanded.
template <class V>
DenseMatrix<V> read_mtx_dense(const std::string& path);

struct MmWriteOptions {
    Symmetry symmetry = Symmetry::general;  // when not general, only the lower triangle is written
    bool pattern = false;                   // write "pattern" (no values)
    int precision = 17;                     // significant digits for values
    std::string comment;                    // optional comment lines (without leading %)
};

// Writes a coordinate file atomically: to a temporary file beside `path`, then rename.
// A name ending in .gz is written gzip-compressed. A failed write leaves `path` untouched.
template <class V, class I>
void write_mtx(const std::string& path, CsrView<V, I> a, const MmWriteOptions& options = {});

// Writes a dense array file atomically.
template <class V>
void write_mtx_dense(const std::string& path, const DenseMatrix<V>& a, const MmWriteOptions& options = {});

}  // namespace gigasparse::io
