// bench/io/bench_io.cpp: Matrix Market throughput: write/read of a generated random matrix, plain and gzip, one thread.
#include <time.h>

#include <algorithm>
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

#include "common/blas_kernels.hpp"
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

// Best wall and best CPU (this thread) seconds of `repeats` runs after one warm-up run. The CPU
// time shows the cost of the work itself on a machine shared with other jobs.
struct Times {
    double wall = 1e300, cpu = 1e300;
};

double thread_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

template <class F>
Times best_times(int repeats, bool warm_up, F&& fn) {
    if (warm_up) fn();
    Times best;
    for (int r = 0; r < repeats; ++r) {
        const double c0 = thread_cpu_seconds();
        gs::Timer t;
        fn();
        best.wall = std::min(best.wall, t.seconds());
        best.cpu = std::min(best.cpu, thread_cpu_seconds() - c0);
    }
    return best;
}

Times raw_read_times(const std::string& path) {
    return best_times(1, true, [&] {
        std::ifstream in(path, std::ios::binary);
        std::vector<char> buf(std::size_t(16) << 20);
        while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
        }
    });
}

}  // namespace

int main(int argc, char** argv) {
    gigasparse::tools::use_native_blas_kernels(argv);  // OpenBLAS kernels as wide as the CPU (see core/blas.hpp)
    const Options o = parse(argc, argv);
    const auto a = random_matrix(o.rows, o.per_row, 42);
    const std::string plain = o.dir + "/gigasparse_bench_io.mtx", gz = plain + ".gz";
    const Times write_plain = best_times(1, false, [&] { io::write_mtx<double, std::int32_t>(plain, a); });
    const Times write_gz = best_times(1, false, [&] { io::write_mtx<double, std::int32_t>(gz, a); });
    const double text_mb = static_cast<double>(std::filesystem::file_size(plain)) / 1e6;
    const double gz_mb = static_cast<double>(std::filesystem::file_size(gz)) / 1e6;
    const Times raw = raw_read_times(plain);
    gs::offset_t nnz = 0;
    const Times read_plain = best_times(o.repeats, true, [&] { nnz = io::read_mtx<double, std::int32_t>(plain).nnz(); });
    const Times read_gz = best_times(o.repeats, true, [&] { nnz = io::read_mtx<double, std::int32_t>(gz).nnz(); });
    if (nnz != a.nnz()) {
        std::cerr << "bench_io: read back " << nnz << " entries, wrote " << a.nnz() << "\n";
        return 1;
    }
    std::printf("Matrix Market I/O, %lld x %lld, %lld entries, %.1f MB of text, %.1f MB gzip (level 1)\n",
                static_cast<long long>(o.rows), static_cast<long long>(o.rows), static_cast<long long>(a.nnz()), text_mb, gz_mb);
    std::printf("%-30s %9s %9s %12s %12s\n", "operation", "wall s", "cpu s", "MB/s (wall)", "MB/s (cpu)");
    Json results;
    const auto row = [&](const char* what, const char* key, const Times& x) {
        std::printf("%-30s %9.3f %9.3f %12.1f %12.1f\n", what, x.wall, x.cpu, text_mb / x.wall, text_mb / x.cpu);
        Json r;
        r.set("wall_s", x.wall).set("cpu_s", x.cpu).set("mb_s_wall", text_mb / x.wall).set("mb_s_cpu", text_mb / x.cpu);
        results.set(key, r);
    };
    row("raw file read (baseline)", "raw_read", raw);
    row("read_mtx plain (best of 3)", "read_plain", read_plain);
    row("read_mtx .gz (best of 3)", "read_gz", read_gz);
    row("write_mtx plain (incl. fsync)", "write_plain", write_plain);
    row("write_mtx .gz (incl. fsync)", "write_gz", write_gz);
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
