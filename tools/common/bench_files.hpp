// tools/common/bench_files.hpp: what the GPU benchmark drivers share around their measurements: whole-file
// output, the shared matrices' manifest, the driver's version, a cheap SPD test.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <gigasparse/core/matrix.hpp>

namespace gigasparse::tools {

// Writes text to path.tmp and renames it over path, so a run stopped at any moment leaves whole files.
// False (and a message on stderr naming `who`) when it cannot.
bool write_file_atomic(const std::string& path, const std::string& text, const char* who);

// "580.95.05" from /proc/driver/nvidia/version, or "unknown".
std::string nvidia_driver_version();

// "12.6" from a CUDA library's version number (major * 1000 + minor * 10 + patch, as cudaRuntimeGetVersion).
std::string cuda_version_text(int v);

// The rows of dir/MANIFEST.tsv split at tabs (its header left out); empty, with a message on stderr naming
// `who`, when there is no manifest. Columns: file, name, group, rows, cols, stored entries, symmetry, field, kind.
std::vector<std::vector<std::string>> read_manifest_rows(const std::string& dir, const char* who);

// The command line every GPU benchmark driver takes: OUTDIR [--repeats N] [--time-budget SECONDS] [--quick].
struct BenchArgs {
    std::string outdir;
    int repeats = 3;
    double time_budget = 1e9;  // seconds: no case starts after it
    bool quick = false;
};
// Fills `args` (its fields hold the driver's defaults); false, with the usage and the reason on stderr naming
// `who`, on a bad command line (the driver then exits with 2).
bool parse_bench_args(int argc, char** argv, const char* who, BenchArgs& args);

// Square with every diagonal entry present and positive (duplicates summed): with a symmetric pattern and
// values, the cheap test a benchmark uses before calling a matrix SPD.
template <class V, class I>
bool positive_diagonal(CsrView<V, I> a) {
    if (a.nrows != a.ncols) return false;
    for (std::int64_t r = 0; r < a.nrows; ++r) {
        bool found = false;
        double d = 0;
        for (offset_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
            if (static_cast<std::int64_t>(a.col_idx[k]) == r) {
                found = true;
                d += static_cast<double>(a.values[k]);
            }
        if (!found || !(d > 0)) return false;
    }
    return true;
}

}  // namespace gigasparse::tools
