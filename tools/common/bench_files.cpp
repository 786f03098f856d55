// tools/common/bench_files.cpp: whole-file output, the matrices' manifest and the driver's version for the benchmarks.
#include "common/bench_files.hpp"

#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace gigasparse::tools {

bool write_file_atomic(const std::string& path, const std::string& text, const char* who) {
    const std::string tmp = path + ".tmp";
    {
        std::ofstream f(tmp);
        f << text;
        if (!f) {
            std::fprintf(stderr, "%s: cannot write %s\n", who, tmp.c_str());
            return false;
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::fprintf(stderr, "%s: cannot rename %s to %s\n", who, tmp.c_str(), path.c_str());
        return false;
    }
    return true;
}

std::string nvidia_driver_version() {
    // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  ..."
    std::ifstream f("/proc/driver/nvidia/version");
    std::string line;
    if (!std::getline(f, line)) return "unknown";
    std::istringstream ss(line);
    std::string w;
    while (ss >> w)
        if (!w.empty() && std::isdigit(static_cast<unsigned char>(w[0])) && w.find('.') != std::string::npos) return w;
    return "unknown";
}

std::string cuda_version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

std::vector<std::vector<std::string>> read_manifest_rows(const std::string& dir, const char* who) {
    std::vector<std::vector<std::string>> rows;
    std::ifstream manifest(dir + "/MANIFEST.tsv");
    if (!manifest) {
        std::fprintf(stderr, "%s: no %s/MANIFEST.tsv: shared matrices skipped\n", who, dir.c_str());
        return rows;
    }
    std::string line;
    std::getline(manifest, line);  // the header
    while (std::getline(manifest, line)) {
        std::vector<std::string> f;
        std::istringstream ss(line);
        std::string x;
        while (std::getline(ss, x, '\t')) f.push_back(x);
        rows.push_back(std::move(f));
    }
    return rows;
}

bool parse_bench_args(int argc, char** argv, const char* who, BenchArgs& args) {
    const auto usage = [&] { std::fprintf(stderr, "usage: %s OUTDIR [--repeats N] [--time-budget SECONDS] [--quick]\n", argv[0]); };
    if (argc < 2 || argv[1][0] == '-') {
        usage();
        return false;
    }
    args.outdir = argv[1];
    try {
        for (int i = 2; i < argc; ++i) {
            const std::string a = argv[i];
            if (a == "--repeats" && i + 1 < argc) args.repeats = std::stoi(argv[++i]);
            else if (a == "--time-budget" && i + 1 < argc) args.time_budget = std::stod(argv[++i]);
            else if (a == "--quick") args.quick = true;
            else throw std::invalid_argument("unknown argument " + a);
        }
        if (args.repeats < 1) throw std::invalid_argument("--repeats must be at least 1");
        if (!(args.time_budget >= 0)) throw std::invalid_argument("--time-budget must be at least 0");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", who, e.what());
        usage();
        return false;
    }
    return true;
}

}  // namespace gigasparse::tools
