// bench/io/bench_io.cpp: Matrix Market throughput: write/read of a generated random matrix, plain and gzip, one thread.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/timer.hpp>
#include <gigasparse/io/matrix_market.hpp>

#include "common/context.hpp"
#include "common/json.hpp"

namespace gs = gigasparse;
namespace io = gigasparse::io;
using gigasparse::tools::Json;

namespace {

struct Options {
    std::int64_t rows = 2'000'000;
    int per_row = 2;  // entries per row (columns drawn uniformly, duplicates removed)
    int repeats = 3;
    std::string dir = std::filesystem::temp_directory_path().string();
    std::string output = "bench_io.json";
};

Options parse(int argc, char** argv) {
    Options o;
    for (int k = 1; k + 1 < argc; k += 2) {
        const std::string a = argv[k], v = argv[k + 1];
        if (a == "--rows") o.rows = std::stoll(v);
        else if (a == "--per-row") o.per_row = std::stoi(v);
        else if (a == "--repeats") o.repeats = std::stoi(v);
        else if (a == "--dir") o.dir = v;
        else if (a == "--output") o.output = v;
        else throw std::invalid_argument("unknown option " + a + " (--rows N --per-row K --repeats R --dir DIR --output FILE)");
    }
    return o;
}

// A square random matrix with `per_row` entries per row at uniform columns, values in [-1, 1].
gs::Csr<double, std::int32_t> random_matrix(std::int64_t n, int per_row, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::int32_t> col(0, static_cast<std::int32_t>(n - 1));
    std::uniform_real_distribution<double> val(-1.0, 1.0);
    gs::Coo<double, std::int32_t> coo{n, n, {}, {}, {}};
    for (std::int64_t i = 0; i < n; ++i)
        for (int k = 0; k < per_row; ++k) {
            coo.row.push_back(static_cast<std::int32_t>(i));
            coo.col.push_back(col(rng));
            coo.val.push_back(val(rng));
        }
    return gs::coo_to_csr(coo);
}

double raw_read_seconds(const std::string& path) {
    return gigasparse::tools::best_time(1, [&] {
        std::ifstream in(path, std::ios::binary);
        std::vector<char> buf(std::size_t(16) << 20);
        while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
        }
    });
}

}  // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    const auto a = random_matrix(o.rows, o.per_row, 42);
    const std::string plain = o.dir + "/gigasparse_bench_io.mtx", gz = plain + ".gz";
    gs::Timer t;
    io::write_mtx<double, std::int32_t>(plain, a);
    const double write_plain = t.lap();
    io::write_mtx<double, std::int32_t>(gz, a);
    const double write_gz = t.lap();
    const double text_mb = static_cast<double>(std::filesystem::file_size(plain)) / 1e6;
    const double gz_mb = static_cast<double>(std::filesystem::file_size(gz)) / 1e6;
    const double raw = raw_read_seconds(plain);
    gs::offset_t nnz = 0;
    const double read_plain = gigasparse::tools::best_time(o.repeats, [&] { nnz = io::read_mtx<double, std::int32_t>(plain).nnz(); });
    const double read_gz = gigasparse::tools::best_time(o.repeats, [&] { nnz = io::read_mtx<double, std::int32_t>(gz).nnz(); });
    if (nnz != a.nnz()) {
        std::cerr << "bench_io: read back " << nnz << " entries, wrote " << a.nnz() << "\n";
        return 1;
    }
    std::printf("Matrix Market I/O, %lld x %lld, %lld entries, %.1f MB of text, %.1f MB gzip (level 1)\n",
                static_cast<long long>(o.rows), static_cast<long long>(o.rows), static_cast<long long>(a.nnz()), text_mb, gz_mb);
    std::printf("%-28s %10s %14s\n", "operation", "seconds", "MB/s of text");
    const auto row = [&](const char* what, double s) { std::printf("%-28s %10.3f %14.1f\n", what, s, text_mb / s); };
    row("raw file read (baseline)", raw);
    row("read_mtx plain (best of 3)", read_plain);
    row("read_mtx .gz (best of 3)", read_gz);
    row("write_mtx plain", write_plain);
    row("write_mtx .gz", write_gz);
    Json results;
    results.set("raw_read_s", raw).set("read_plain_s", read_plain).set("read_gz_s", read_gz);
    results.set("write_plain_s", write_plain).set("write_gz_s", write_gz);
    results.set("read_plain_mb_s", text_mb / read_plain).set("read_gz_mb_s", text_mb / read_gz);
    results.set("write_plain_mb_s", text_mb / write_plain).set("write_gz_mb_s", text_mb / write_gz);
    Json j;
    j.set("benchmark", "io").set("context", gigasparse::tools::run_context());
    j.set("rows", o.rows).set("entries", static_cast<std::int64_t>(a.nnz())).set("repeats", o.repeats);
    j.set("text_mb", text_mb).set("gz_mb", gz_mb).set("results", results);
    std::ofstream(o.output) << j.str() << "\n";
    std::printf("JSON written to %s\n", o.output.c_str());
    std::filesystem::remove(plain);
    std::filesystem::remove(gz);
    return 0;
}
