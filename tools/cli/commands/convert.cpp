// tools/cli/commands/convert.cpp: `gigasparse convert IN OUT`: rewrites a Matrix Market file (symmetry, pattern, .gz).
#include <complex>
#include <iostream>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>
#include <gigasparse/core/timer.hpp>
#include <gigasparse/io/matrix_market.hpp>

#include "cli.hpp"

namespace gigasparse::cli {
namespace {

Symmetry parse_symmetry(const std::string& s) {
    if (s == "general") return Symmetry::general;
    if (s == "symmetric") return Symmetry::symmetric;
    if (s == "skew-symmetric" || s == "skew") return Symmetry::skew_symmetric;
    if (s == "hermitian") return Symmetry::hermitian;
    throw UsageError("--symmetry must be general, symmetric, skew-symmetric or hermitian, got '" + s + "'");
}

// True when a == op(a)^T for the symmetry kind (exact comparison; writing one triangle of a
// matrix that is not would lose data).
template <class V>
bool has_symmetry(const Csr<V, std::int64_t>& a, Symmetry kind) {
    if (a.nrows != a.ncols) return false;
    const Csr<V, std::int64_t> t = transpose<V, std::int64_t>(a, kind == Symmetry::hermitian);
    if (t.row_ptr != a.row_ptr || t.col_idx != a.col_idx) return false;
    for (std::size_t k = 0; k < t.values.size(); ++k)
        if ((kind == Symmetry::skew_symmetric ? -t.values[k] : t.values[k]) != a.values[k]) return false;
    return true;
}

template <class V>
int run_convert(const Args& args, const std::string& in, const std::string& out) {
    Timer total, phase;
    const io::MmMatrix<V, std::int64_t> m = io::read_mtx_stored<V, std::int64_t>(in);
    const double read_s = phase.lap();
    io::MmWriteOptions options;
    options.symmetry = args.get("symmetry") ? parse_symmetry(*args.get("symmetry")) : m.header.symmetry;
    options.pattern = args.flag("pattern") || m.header.field == io::MmField::pattern;  // a pattern stays a pattern
    options.precision = static_cast<int>(args.get_int("precision", 17));
    const Symmetry from = m.header.symmetry, to = options.symmetry;
    Csr<V, std::int64_t> converted;
    const Csr<V, std::int64_t>* source = &m.stored;  // the stored triangle is written as is when the kind is kept
    if (from != to) {
        converted = from == Symmetry::general ? m.stored : expand_symmetric<V, std::int64_t>(m.stored, from);
        if (to != Symmetry::general && !has_symmetry(converted, to))
            throw InvalidStructure(in + ": the matrix is not " + to_string(to) + " (A != " +
                                   (to == Symmetry::skew_symmetric ? "-A^T" : to == Symmetry::hermitian ? "A^H" : "A^T") +
                                   "); writing one triangle would lose entries (use --symmetry general)");
        source = &converted;
    }
    const double convert_s = phase.lap();
    io::write_mtx<V, std::int64_t>(out, *source, options);
    const double write_s = phase.lap();
    const io::MmHeader written = io::read_mtx_header(out);
    if (args.flag("json")) {
        Json times;
        times.set("read", read_s).set("convert", convert_s).set("write", write_s).set("total", total.seconds());
        Json j;
        j.set("input", in).set("output", out).set("nrows", written.nrows).set("ncols", written.ncols);
        j.set("symmetry_in", to_string(from)).set("symmetry_out", to_string(to)).set("field_in", io::to_string(m.header.field));
        j.set("field_out", io::to_string(written.field)).set("entries_written", written.nnz).set("times", times);
        std::cout << j.str() << "\n";
    } else {
        std::cout << "wrote " << out << ": " << format_count(written.nrows) << " x " << format_count(written.ncols) << ", "
                  << format_count(written.nnz) << " entries, " << io::to_string(written.field) << " " << to_string(to) << " (read "
                  << format_seconds(read_s) << ", write " << format_seconds(write_s) << ")\n";
    }
    return exit_ok;
}

int convert(const Args& args) {
    args.expect_only({"symmetry", "precision"});
    if (args.positional().size() != 2) throw UsageError("convert expects IN and OUT");
    const std::string& in = args.positional()[0];
    const std::string& out = args.positional()[1];
    const io::MmHeader h = io::read_mtx_header(in);
    return h.field == io::MmField::complex ? run_convert<std::complex<double>>(args, in, out) : run_convert<double>(args, in, out);
}

const bool registered = register_command({
    "convert",
    "rewrite a Matrix Market file (symmetry, pattern, gzip by extension)",
    "usage: gigasparse convert IN OUT [--symmetry general|symmetric|skew-symmetric|hermitian] [--pattern]\n"
    "                          [--precision N] [--json]\n\n"
    "Reads IN (coordinate or array, plain or gzip) and writes OUT as a coordinate file, atomically\n"
    "(OUT is gzip-compressed when its name ends in .gz).\n"
    "  --symmetry KIND  symmetry of OUT (default: that of IN). A kind other than general stores the\n"
    "                   lower triangle only and is refused (exit 3) unless the matrix has it exactly.\n"
    "  --pattern        write the pattern only (no values); a pattern IN always gives a pattern OUT.\n"
    "  --precision N    significant digits of values (default 17: shortest exact round trip).\n"
    "  --json           print one JSON object; \"times\" holds read, convert, write and total (all of it).\n"
    "exit codes: 0 ok, 2 usage error, 3 unreadable or malformed input, or a matrix without the symmetry asked\n",
    {"pattern"},
    convert,
});

}  // namespace
}  // namespace gigasparse::cli
