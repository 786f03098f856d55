// tools/cli/commands/info.cpp: `gigasparse info FILE`: shape, symmetry, row lengths, bandwidth and structural properties.
#include <algorithm>
#include <complex>
#include <cstdio>
#include <iostream>
#include <sstream>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/timer.hpp>
#include <gigasparse/io/matrix_market.hpp>

#include "cli.hpp"

namespace gigasparse::cli {
namespace {

// What `info` measures on the full (expanded) matrix.
struct Properties {
    std::int64_t min_row = 0, max_row = 0, empty_rows = 0, empty_cols = 0;
    double mean_row = 0;
    std::vector<std::int64_t> histogram;  // [0]: empty rows; [b]: lengths in [2^(b-1), 2^b)
    std::int64_t lower_bandwidth = 0, upper_bandwidth = 0, diagonal = 0, explicit_zeros = 0;
    bool full_diagonal = false, structurally_symmetric = false, numerically_symmetric = false, hermitian = false;
};

int log2_bucket(std::int64_t len) {
    int b = 0;
    while (len > 0) {
        ++b;
        len >>= 1;
    }
    return b;
}

template <class V>
void row_statistics(const Csr<V, std::int64_t>& a, Properties& p) {
    p.min_row = a.nrows > 0 ? a.nnz() : 0;
    std::vector<char> col_used(static_cast<std::size_t>(a.ncols), 0);
    for (std::int64_t i = 0; i < a.nrows; ++i) {
        const std::int64_t len = a.row_ptr[i + 1] - a.row_ptr[i];
        p.min_row = std::min(p.min_row, len);
        p.max_row = std::max(p.max_row, len);
        const auto b = static_cast<std::size_t>(log2_bucket(len));
        if (p.histogram.size() <= b) p.histogram.resize(b + 1, 0);
        ++p.histogram[b];
        for (offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
            const std::int64_t j = a.col_idx[k];
            col_used[static_cast<std::size_t>(j)] = 1;
            p.lower_bandwidth = std::max(p.lower_bandwidth, i - j);
            p.upper_bandwidth = std::max(p.upper_bandwidth, j - i);
            p.diagonal += i == j;
            p.explicit_zeros += a.values[k] == V(0);
        }
    }
    p.empty_rows = p.histogram.empty() ? 0 : p.histogram[0];
    p.empty_cols = std::count(col_used.begin(), col_used.end(), 0);
    p.mean_row = a.nrows > 0 ? static_cast<double>(a.nnz()) / static_cast<double>(a.nrows) : 0.0;
    p.full_diagonal = p.diagonal == std::min(a.nrows, a.ncols);
}

template <class V>
void symmetry_properties(const Csr<V, std::int64_t>& a, Properties& p) {
    if (a.nrows != a.ncols) return;
    const Csr<V, std::int64_t> t = transpose<V, std::int64_t>(a);
    p.structurally_symmetric = t.row_ptr == a.row_ptr && t.col_idx == a.col_idx;
    p.numerically_symmetric = p.structurally_symmetric && t.values == a.values;
    if constexpr (is_complex_v<V>) {
        p.hermitian = p.structurally_symmetric;
        for (std::size_t k = 0; k < t.values.size() && p.hermitian; ++k) p.hermitian = std::conj(t.values[k]) == a.values[k];
    } else {
        p.hermitian = p.numerically_symmetric;
    }
}

Json properties_json(const Properties& p) {
    Json rows;
    rows.set("min", p.min_row).set("mean", p.mean_row).set("max", p.max_row).set("log2_histogram", p.histogram);
    Json j;
    j.set("row_length", rows)
        .set("bandwidth", std::max(p.lower_bandwidth, p.upper_bandwidth))
        .set("lower_bandwidth", p.lower_bandwidth)
        .set("upper_bandwidth", p.upper_bandwidth)
        .set("empty_rows", p.empty_rows)
        .set("empty_cols", p.empty_cols)
        .set("diagonal_entries", p.diagonal)
        .set("full_diagonal", p.full_diagonal)
        .set("explicit_zeros", p.explicit_zeros)
        .set("structurally_symmetric", p.structurally_symmetric)
        .set("numerically_symmetric", p.numerically_symmetric)
        .set("hermitian", p.hermitian);
    return j;
}

std::string histogram_text(const std::vector<std::int64_t>& h) {
    std::ostringstream s;
    for (std::size_t b = 0; b < h.size(); ++b) {
        if (h[b] == 0) continue;
        if (b == 0) s << "  0: " << format_count(h[b]);
        else s << "  [" << (std::int64_t(1) << (b - 1)) << "," << (std::int64_t(1) << b) << "): " << format_count(h[b]);
    }
    return s.str();
}

const char* yes(bool b) { return b ? "yes" : "no"; }

void print_human(const std::string& file, const io::MmHeader& h, offset_t stored, offset_t full, const Properties& p, double read_s,
                 double analyze_s) {
    char mean[32];
    std::snprintf(mean, sizeof mean, "%.2f", p.mean_row);
    std::cout << "file          " << file << "\n"
              << "format        " << io::to_string(h.format) << " " << io::to_string(h.field) << " " << to_string(h.symmetry) << "\n"
              << "size          " << format_count(h.nrows) << " x " << format_count(h.ncols) << "\n"
              << "entries       " << format_count(stored) << " stored, " << format_count(full) << " full ("
              << format_count(h.nnz - stored) << " duplicates summed, " << format_count(p.explicit_zeros) << " explicit zeros)\n"
              << "row length    min " << format_count(p.min_row) << ", mean " << mean << ", max " << format_count(p.max_row) << "\n"
              << "log2 buckets " << histogram_text(p.histogram) << "\n"
              << "bandwidth     " << format_count(std::max(p.lower_bandwidth, p.upper_bandwidth)) << " (lower "
              << format_count(p.lower_bandwidth) << ", upper " << format_count(p.upper_bandwidth) << ")\n"
              << "empty         " << format_count(p.empty_rows) << " rows, " << format_count(p.empty_cols) << " columns\n"
              << "diagonal      " << format_count(p.diagonal) << " stored, full diagonal: " << yes(p.full_diagonal) << "\n"
              << "symmetry      structurally symmetric: " << yes(p.structurally_symmetric)
              << ", numerically symmetric: " << yes(p.numerically_symmetric) << ", hermitian: " << yes(p.hermitian) << "\n"
              << "time          read " << format_seconds(read_s) << ", analyze " << format_seconds(analyze_s) << "\n";
}

template <class V>
int run_info(const std::string& file, bool json) {
    Timer timer;
    const io::MmMatrix<V, std::int64_t> m = io::read_mtx_stored<V, std::int64_t>(file);
    const double read_s = timer.lap();
    const Csr<V, std::int64_t> full =
        m.header.symmetry == Symmetry::general ? m.stored : expand_symmetric<V, std::int64_t>(m.stored, m.header.symmetry);
    Properties p;
    row_statistics(full, p);
    symmetry_properties(full, p);
    const double analyze_s = timer.lap();
    if (!json) {
        print_human(file, m.header, m.stored.nnz(), full.nnz(), p, read_s, analyze_s);
        return exit_ok;
    }
    Json times;
    times.set("read", read_s).set("analyze", analyze_s).set("total", analyze_s);
    Json out;
    out.set("file", file)
        .set("format", io::to_string(m.header.format))
        .set("field", io::to_string(m.header.field))
        .set("symmetry", to_string(m.header.symmetry))
        .set("nrows", m.header.nrows)
        .set("ncols", m.header.ncols)
        .set("entries_in_file", m.header.nnz)
        .set("nnz_stored", m.stored.nnz())
        .set("nnz_full", full.nnz());
    out.set_raw("properties", properties_json(p).str());
    out.set("times", times);
    std::cout << out.str() << "\n";
    return exit_ok;
}

int info(const Args& args) {
    args.expect_only({});
    if (args.positional().size() != 1) throw UsageError("info expects exactly one FILE");
    const std::string& file = args.positional()[0];
    const io::MmHeader h = io::read_mtx_header(file);
    return h.field == io::MmField::complex ? run_info<std::complex<double>>(file, args.flag("json")) : run_info<double>(file, args.flag("json"));
}

const bool registered = register_command({
    "info",
    "describe a Matrix Market file: shape, symmetry, row lengths, bandwidth, structure",
    "usage: gigasparse info FILE [--json]\n\n"
    "Reads FILE (Matrix Market coordinate or array, plain or gzip) and prints its format, field and\n"
    "symmetry, the dimensions, stored and full entry counts (symmetric kinds expanded; duplicates\n"
    "summed), row-length statistics with a log2 histogram (bucket 0: empty rows; bucket b: lengths in\n"
    "[2^(b-1), 2^b)), lower/upper bandwidth, empty rows and columns, the diagonal, and whether the\n"
    "matrix is structurally symmetric, numerically symmetric (A == A^T exactly) and hermitian.\n\n"
    "--json  print one JSON object; \"times\" holds read, analyze and total (total excludes reading\n"
    "        the file: it is the analysis time).\n"
    "exit codes: 0 ok, 2 usage error, 3 unreadable or malformed file\n",
    {},
    info,
});

}  // namespace
}  // namespace gigasparse::cli
