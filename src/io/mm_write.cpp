// src/io/mm_write.cpp: writing coordinate and array Matrix Market files (atomically, optionally gzip).
#include <charconv>
#include <limits>
#include <string>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>
#include <gigasparse/io/matrix_market.hpp>

#include "io/mm_file.hpp"

namespace gigasparse::io {
namespace {

constexpr std::size_t flush_bytes = std::size_t(4) << 20;

// Formats lines into a buffer and hands full buffers to the atomic file.
class LineWriter {
public:
    LineWriter(const std::string& path, const MmWriteOptions& o) : file_(path, detail::has_gz_suffix(path), o.compression_level), precision_(o.precision) {
        buf_.resize(flush_bytes + 4096);
    }

    void text(const std::string& s) {
        for (std::size_t k = 0; k < s.size(); k += 2048) {
            const std::size_t n = std::min<std::size_t>(2048, s.size() - k);
            s.copy(buf_.data() + used_, n, k);
            used_ += n;
            maybe_flush();
        }
    }
    void integer(std::int64_t v) { used_ = static_cast<std::size_t>(std::to_chars(buf_.data() + used_, buf_.data() + buf_.size(), v).ptr - buf_.data()); }
    void blank() { buf_[used_++] = ' '; }
    void newline() {
        buf_[used_++] = '\n';
        maybe_flush();
    }

    template <class R>
    void real(R v) {
        char* p = buf_.data() + used_;
        char* end = buf_.data() + buf_.size();
        // Shortest round-trip form when the precision asks for every digit of the type.
        const bool shortest = precision_ <= 0 || precision_ >= std::numeric_limits<R>::max_digits10;
        p = shortest ? std::to_chars(p, end, v).ptr : std::to_chars(p, end, v, std::chars_format::general, precision_).ptr;
        used_ = static_cast<std::size_t>(p - buf_.data());
    }

    template <class V>
    void value(const V& v) {
        if constexpr (is_complex_v<V>) {
            real(v.real());
            blank();
            real(v.imag());
        } else {
            real(v);
        }
    }

    void commit() {
        file_.write(buf_.data(), used_);
        used_ = 0;
        file_.commit();
    }

private:
    void maybe_flush() {
        if (used_ < flush_bytes) return;
        file_.write(buf_.data(), used_);
        used_ = 0;
    }

    detail::AtomicFile file_;
    int precision_;
    std::string buf_;
    std::size_t used_ = 0;
};

template <class V>
void check_options(const MmWriteOptions& o, std::int64_t nrows, std::int64_t ncols, bool array) {
    if (o.symmetry != Symmetry::general && nrows != ncols)
        throw DimensionMismatch(std::string("write_mtx: a ") + to_string(o.symmetry) + " file needs a square matrix");
    if (o.symmetry == Symmetry::hermitian && !is_complex_v<V>) throw InvalidArgument("write_mtx: hermitian symmetry needs complex values");
    if (o.pattern && array) throw InvalidArgument("write_mtx_dense: an array file cannot be pattern");
    if (o.pattern && (o.symmetry == Symmetry::skew_symmetric || o.symmetry == Symmetry::hermitian))
        throw InvalidArgument(std::string("write_mtx: a pattern file cannot be ") + to_string(o.symmetry));
    if (o.compression_level < 0 || o.compression_level > 9) throw InvalidArgument("write_mtx: compression_level must be 0..9");
}

template <class V>
std::string banner(const char* format, const MmWriteOptions& o) {
    const char* field = o.pattern ? "pattern" : is_complex_v<V> ? "complex" : "real";
    std::string s = std::string("%%MatrixMarket matrix ") + format + " " + field + " " + to_string(o.symmetry) + "\n";
    std::size_t start = 0;
    while (!o.comment.empty() && start <= o.comment.size()) {
        const std::size_t nl = std::min(o.comment.find('\n', start), o.comment.size());
        s.push_back('%');
        s.append(o.comment, start, nl - start);
        s.push_back('\n');
        start = nl + 1;
    }
    return s;
}

// Whether entry (i, j) is written: all for general, the lower triangle otherwise (strict for skew).
bool keep(Symmetry s, std::int64_t i, std::int64_t j) {
    return s == Symmetry::general || j < i || (j == i && s != Symmetry::skew_symmetric);
}

}  // namespace

template <class V, class I>
void write_mtx(const std::string& path, CsrView<V, I> a, const MmWriteOptions& options) {
    validate(a, {.sorted = false});
    check_options<V>(options, a.nrows, a.ncols, false);
    const Symmetry s = options.symmetry;
    offset_t count = 0;
    for (std::int64_t i = 0; i < a.nrows; ++i)
        for (offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) count += keep(s, i, a.col_idx[k]);
    LineWriter w(path, options);
    w.text(banner<V>("coordinate", options));
    w.integer(a.nrows);
    w.blank();
    w.integer(a.ncols);
    w.blank();
    w.integer(count);
    w.newline();
    for (std::int64_t i = 0; i < a.nrows; ++i)
        for (offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
            const std::int64_t j = a.col_idx[k];
            if (!keep(s, i, j)) continue;
            w.integer(i + 1);
            w.blank();
            w.integer(j + 1);
            if (!options.pattern) {
                w.blank();
                w.value(a.values[k]);
            }
            w.newline();
        }
    w.commit();
}

template <class V>
void write_mtx_dense(const std::string& path, const DenseMatrix<V>& a, const MmWriteOptions& options) {
    if (a.nrows < 0 || a.ncols < 0 || a.data.size() != static_cast<std::size_t>(a.nrows * a.ncols))
        throw InvalidArgument("write_mtx_dense: data size does not match nrows * ncols");
    check_options<V>(options, a.nrows, a.ncols, true);
    const Symmetry s = options.symmetry;
    LineWriter w(path, options);
    w.text(banner<V>("array", options));
    w.integer(a.nrows);
    w.blank();
    w.integer(a.ncols);
    w.newline();
    for (std::int64_t j = 0; j < a.ncols; ++j)
        for (std::int64_t i = 0; i < a.nrows; ++i) {
            if (!keep(s, i, j)) continue;
            w.value(a(i, j));
            w.newline();
        }
    w.commit();
}

#define GIGASPARSE_INSTANTIATE(V, I) template void write_mtx<V, I>(const std::string&, CsrView<V, I>, const MmWriteOptions&);
GIGASPARSE_FOR_EACH_VALUE_INDEX(GIGASPARSE_INSTANTIATE)
#undef GIGASPARSE_INSTANTIATE

#define GIGASPARSE_INSTANTIATE(V) template void write_mtx_dense<V>(const std::string&, const DenseMatrix<V>&, const MmWriteOptions&);
GIGASPARSE_FOR_EACH_VALUE(GIGASPARSE_INSTANTIATE)
#undef GIGASPARSE_INSTANTIATE

}  // namespace gigasparse::io
