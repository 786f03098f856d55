// src/io/mm_read.cpp: reading coordinate and array Matrix Market files into CSR and dense matrices.
#include <algorithm>
#include <limits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>
#include <gigasparse/io/matrix_market.hpp>

#include "io/mm_file.hpp"
#include "io/mm_header.hpp"
#include "io/mm_lexer.hpp"

namespace gigasparse::io {
namespace {

using detail::Cursor;

std::string str(std::int64_t v) { return std::to_string(v); }

// The parsed header with the cursor at the first data line.
struct Parsed {
    MmHeader header;
    long long size_line = 0;
};

template <class V>
Parsed parse_prologue(Cursor& c) {
    Parsed p;
    p.header = detail::parse_header(c, &p.size_line);
    if (p.header.field == MmField::complex && !is_complex_v<V>)
        throw NotSupported(c.file() + ":1: the file holds complex values, which cannot be read into the real type " + type_name<V>() +
                           " (read it with a complex value type)");
    return p;
}

// Fails at the size line when the rest of the text cannot hold `entries` entries of at least
// `min_bytes` bytes each (so nothing is ever reserved beyond what the input can hold).
void check_entries_fit(const Cursor& c, long long size_line, std::int64_t entries, std::size_t min_bytes) {
    const auto most = static_cast<std::int64_t>((c.remaining() + 1) / min_bytes);
    if (entries > most)
        throw ParseError(c.file(), size_line, "the size line declares " + str(entries) + " entries but the remaining " + str(static_cast<std::int64_t>(c.remaining())) +
                                                  " bytes of the file can hold at most " + str(most));
}

// The data lines' error paths, out of line (see Cursor::fail_expected).
[[noreturn, gnu::cold, gnu::noinline]] void fail_ends_early(const Cursor& c, std::int64_t declared, const char* what, std::int64_t got) {
    c.fail("the size line declares " + str(declared) + " " + what + " but the file ends after " + str(got));
}
[[noreturn, gnu::cold, gnu::noinline]] void fail_too_many(const Cursor& c, const char* what, std::int64_t declared, const char* tail) {
    c.fail(std::string("more ") + what + " than the " + str(declared) + tail);
}
[[noreturn, gnu::cold, gnu::noinline]] void fail_index(const Cursor& c, const char* which, std::int64_t i, std::int64_t n) {
    c.fail(std::string(which) + " index " + str(i) + " out of range 1.." + str(n) + " (indices are 1-based)");
}
[[noreturn, gnu::cold, gnu::noinline]] void fail_above_diagonal(const Cursor& c, std::int64_t i, std::int64_t j, Symmetry s) {
    c.fail("entry (" + str(i) + ", " + str(j) + ") lies above the diagonal: a " + to_string(s) + " file stores the lower triangle only");
}
[[noreturn, gnu::cold, gnu::noinline]] void fail_diagonal(const Cursor& c, const char* head, std::int64_t i, const char* tail) {
    c.fail(head + str(i) + ", " + str(i) + tail);
}

// One value of a data line; `first` when it is the first field of the line (array files).
template <class V, MmField F>
V parse_value(Cursor& c, bool first) {
    using R = real_t<V>;
    if constexpr (F == MmField::pattern) {
        return V(1);
    } else {
        if (first) c.skip_blanks();
        else c.separator("value");
        if constexpr (F == MmField::integer) {
            return V(static_cast<R>(c.integer("an integer value")));
        } else if constexpr (F == MmField::real) {
            return V(c.real<R>("a value"));
        } else if constexpr (is_complex_v<V>) {
            const R re = c.real<R>("the real part");
            c.separator("imaginary part");
            return V(re, c.real<R>("the imaginary part"));
        } else {
            c.fail("complex value for a real type");
        }
    }
}

// Diagonal rules of the symmetric kinds: skew has a zero diagonal, hermitian a real one.
template <class V>
void check_diagonal(const Cursor& c, Symmetry s, std::int64_t i, const V& v) {
    if (s == Symmetry::skew_symmetric && v != V(0))
        fail_diagonal(c, "nonzero diagonal entry (", i, ") in a skew-symmetric file");
    if constexpr (is_complex_v<V>)
        if (s == Symmetry::hermitian && v.imag() != 0) fail_diagonal(c, "diagonal entry (", i, ") of a hermitian file is not real");
}

template <class V, class I>
struct Triplets {
    std::vector<I> row, col;
    std::vector<V> val;
};

template <class V, class I, MmField F>
void parse_entries(Cursor& c, const MmHeader& h, Triplets<V, I>& t) {
    const std::int64_t nnz = h.nnz;
    const bool general = h.symmetry == Symmetry::general;
    for (std::int64_t k = 0; k < nnz; ++k) {
        if (!c.next_data_line()) fail_ends_early(c, nnz, "entries", k);
        const std::int64_t i = c.count("a row index");
        c.separator("column index");
        const std::int64_t j = c.count("a column index");
        if (i < 1 || i > h.nrows) fail_index(c, "row", i, h.nrows);
        if (j < 1 || j > h.ncols) fail_index(c, "column", j, h.ncols);
        const V v = parse_value<V, F>(c, false);
        if (!general) {
            if (j > i) fail_above_diagonal(c, i, j, h.symmetry);
            if (i == j) check_diagonal(c, h.symmetry, i, v);
        }
        c.end_line();
        t.row.push_back(static_cast<I>(i - 1));
        t.col.push_back(static_cast<I>(j - 1));
        t.val.push_back(v);
    }
    if (c.next_data_line()) fail_too_many(c, "entries", nnz, " declared in the size line");
}

// True when the triplets are in row-major order with strictly increasing columns in each row.
template <class V, class I>
bool row_major_sorted(const Triplets<V, I>& t) {
    for (std::size_t k = 1; k < t.row.size(); ++k)
        if (t.row[k] < t.row[k - 1] || (t.row[k] == t.row[k - 1] && t.col[k] <= t.col[k - 1])) return false;
    return true;
}

// Sorts the columns of the rows that need it and sums duplicates (in file order), compacting.
template <class V, class I>
void sort_and_merge_rows(Csr<V, I>& a) {
    std::vector<std::pair<I, V>> buf;
    offset_t out = 0;
    for (std::int64_t i = 0; i < a.nrows; ++i) {
        const offset_t begin = a.row_ptr[i], end = a.row_ptr[i + 1];
        a.row_ptr[i] = out;
        bool sorted = true;
        for (offset_t k = begin + 1; k < end && sorted; ++k) sorted = a.col_idx[k - 1] < a.col_idx[k];
        if (sorted) {
            if (out != begin) {
                std::copy(a.col_idx.begin() + begin, a.col_idx.begin() + end, a.col_idx.begin() + out);
                std::copy(a.values.begin() + begin, a.values.begin() + end, a.values.begin() + out);
            }
            out += end - begin;
            continue;
        }
        buf.clear();
        for (offset_t k = begin; k < end; ++k) buf.emplace_back(a.col_idx[k], a.values[k]);
        std::stable_sort(buf.begin(), buf.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
        const offset_t row_start = out;
        for (const auto& [j, v] : buf) {
            if (out > row_start && a.col_idx[out - 1] == j) {
                a.values[out - 1] += v;
            } else {
                a.col_idx[out] = j;
                a.values[out] = v;
                ++out;
            }
        }
    }
    a.row_ptr[a.nrows] = out;
    a.col_idx.resize(static_cast<std::size_t>(out));
    a.values.resize(static_cast<std::size_t>(out));
}

// Triplets -> CSR: a counting sort by row (stable), or a move when already in row-major order.
template <class V, class I>
Csr<V, I> triplets_to_csr(std::int64_t nrows, std::int64_t ncols, Triplets<V, I>&& t) {
    Csr<V, I> a(nrows, ncols);
    for (const I r : t.row) ++a.row_ptr[static_cast<std::size_t>(r) + 1];
    std::partial_sum(a.row_ptr.begin(), a.row_ptr.end(), a.row_ptr.begin());
    if (row_major_sorted(t)) {
        a.col_idx = std::move(t.col);
        a.values = std::move(t.val);
        return a;
    }
    a.col_idx.resize(t.val.size());
    a.values.resize(t.val.size());
    std::vector<offset_t> next(a.row_ptr.begin(), a.row_ptr.end() - 1);
    for (std::size_t k = 0; k < t.val.size(); ++k) {
        const offset_t p = next[static_cast<std::size_t>(t.row[k])]++;
        a.col_idx[p] = t.col[k];
        a.values[p] = t.val[k];
    }
    t = {};
    sort_and_merge_rows(a);
    return a;
}

template <class V, class I>
Csr<V, I> parse_coordinate(Cursor& c, const Parsed& p) {
    const MmHeader& h = p.header;
    const std::size_t min_bytes = h.field == MmField::pattern ? 4 : h.field == MmField::complex ? 8 : 6;
    const double per_entry = 2.0 * (2 * sizeof(I) + sizeof(V));
    check_entries_fit(c, p.size_line, h.nnz, min_bytes);
    detail::check_fits(c, p.size_line, h, std::numeric_limits<I>::max(), type_name<I>(),
                       8.0 * (static_cast<double>(h.nrows) + 1) + per_entry * static_cast<double>(h.nnz));
    Triplets<V, I> t;
    t.row.reserve(static_cast<std::size_t>(h.nnz));
    t.col.reserve(static_cast<std::size_t>(h.nnz));
    t.val.reserve(static_cast<std::size_t>(h.nnz));
    switch (h.field) {
        case MmField::pattern: parse_entries<V, I, MmField::pattern>(c, h, t); break;
        case MmField::integer: parse_entries<V, I, MmField::integer>(c, h, t); break;
        case MmField::real: parse_entries<V, I, MmField::real>(c, h, t); break;
        case MmField::complex: parse_entries<V, I, MmField::complex>(c, h, t); break;
    }
    return triplets_to_csr(h.nrows, h.ncols, std::move(t));
}

template <class V, MmField F>
void parse_array_values(Cursor& c, const MmHeader& h, DenseMatrix<V>& d) {
    const Symmetry s = h.symmetry;
    std::int64_t k = 0;
    for (std::int64_t j = 0; j < h.ncols; ++j) {
        const std::int64_t first = s == Symmetry::general ? 0 : s == Symmetry::skew_symmetric ? j + 1 : j;
        for (std::int64_t i = first; i < h.nrows; ++i, ++k) {
            if (!c.next_data_line()) fail_ends_early(c, h.nnz, "values", k);
            const V v = parse_value<V, F>(c, true);
            if (i == j && s != Symmetry::general) check_diagonal(c, s, i + 1, v);
            c.end_line();
            d(i, j) = v;
            if (s == Symmetry::symmetric) d(j, i) = v;
            else if (s == Symmetry::skew_symmetric) d(j, i) = -v;
            else if (s == Symmetry::hermitian) d(j, i) = conj_if_complex(v);
        }
    }
    if (c.next_data_line()) fail_too_many(c, "values", h.nnz, " declared by the size line");
}

// An array file into a full dense matrix (symmetric kinds expanded).
template <class V>
DenseMatrix<V> parse_array(Cursor& c, const Parsed& p) {
    const MmHeader& h = p.header;
    check_entries_fit(c, p.size_line, h.nnz, h.field == MmField::complex ? 4 : 2);
    detail::check_fits(c, p.size_line, h, std::numeric_limits<std::int64_t>::max(), "int64",
                       static_cast<double>(h.nrows) * static_cast<double>(h.ncols) * sizeof(V));
    DenseMatrix<V> d(h.nrows, h.ncols);
    switch (h.field) {
        case MmField::integer: parse_array_values<V, MmField::integer>(c, h, d); break;
        case MmField::real: parse_array_values<V, MmField::real>(c, h, d); break;
        case MmField::complex: parse_array_values<V, MmField::complex>(c, h, d); break;
        case MmField::pattern: c.fail("an array file cannot have the pattern field");
    }
    return d;
}

// The entries an array file stores (all of them, or the lower triangle) as CSR, zeros included.
template <class V, class I>
Csr<V, I> dense_stored_to_csr(const DenseMatrix<V>& d, Symmetry s) {
    Csr<V, I> a(d.nrows, d.ncols);
    for (std::int64_t i = 0; i < d.nrows; ++i) {
        const std::int64_t last = s == Symmetry::general ? d.ncols : s == Symmetry::skew_symmetric ? i : i + 1;
        for (std::int64_t j = 0; j < last; ++j) {
            a.col_idx.push_back(static_cast<I>(j));
            a.values.push_back(d(i, j));
        }
        a.row_ptr[static_cast<std::size_t>(i) + 1] = static_cast<offset_t>(a.values.size());
    }
    return a;
}

}  // namespace

template <class V, class I>
MmMatrix<V, I> read_mtx_stored(const std::string& path) {
    const std::string text = detail::load_text(path);
    Cursor c(path, text.data(), text.data() + text.size());
    const Parsed p = parse_prologue<V>(c);
    MmMatrix<V, I> m;
    m.header = p.header;
    if (p.header.format == MmFormat::array) {
        detail::check_fits(c, p.size_line, p.header, std::numeric_limits<I>::max(), type_name<I>(), 0.0);
        m.stored = dense_stored_to_csr<V, I>(parse_array<V>(c, p), p.header.symmetry);
    } else {
        m.stored = parse_coordinate<V, I>(c, p);
    }
    return m;
}

template <class V, class I>
Csr<V, I> read_mtx(const std::string& path) {
    MmMatrix<V, I> m = read_mtx_stored<V, I>(path);
    if (m.header.symmetry == Symmetry::general) return std::move(m.stored);
    return expand_symmetric<V, I>(m.stored, m.header.symmetry);
}

template <class V>
DenseMatrix<V> read_mtx_dense(const std::string& path) {
    const MmHeader h = read_mtx_header(path);
    if (h.format == MmFormat::coordinate) {
        const double bytes = static_cast<double>(h.nrows) * static_cast<double>(h.ncols) * sizeof(V);
        if (bytes > static_cast<double>(detail::physical_memory_bytes()))
            throw OutOfMemory(path + ": a dense " + str(h.nrows) + " x " + str(h.ncols) + " matrix does not fit in memory");
        const Csr<V, std::int64_t> a = read_mtx<V, std::int64_t>(path);
        DenseMatrix<V> d(a.nrows, a.ncols);
        for (std::int64_t i = 0; i < a.nrows; ++i)
            for (offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) d(i, a.col_idx[k]) = a.values[k];
        return d;
    }
    const std::string text = detail::load_text(path);
    Cursor c(path, text.data(), text.data() + text.size());
    const Parsed p = parse_prologue<V>(c);
    return parse_array<V>(c, p);
}

#define GIGASPARSE_INSTANTIATE(V, I)                                         \
    template MmMatrix<V, I> read_mtx_stored<V, I>(const std::string&);       \
    template Csr<V, I> read_mtx<V, I>(const std::string&);
GIGASPARSE_FOR_EACH_VALUE_INDEX(GIGASPARSE_INSTANTIATE)
#undef GIGASPARSE_INSTANTIATE

#define GIGASPARSE_INSTANTIATE(V) template DenseMatrix<V> read_mtx_dense<V>(const std::string&);
GIGASPARSE_FOR_EACH_VALUE(GIGASPARSE_INSTANTIATE)
#undef GIGASPARSE_INSTANTIATE

}  // namespace gigasparse::io
