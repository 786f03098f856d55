// tools/common/context.cpp: collects the run context for benchmark reports.
#include "common/context.hpp"

#include <omp.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>
#include <thread>

#include <gigasparse/config.hpp>
#include <gigasparse/core/blas.hpp>
#include <gigasparse/cuda/device.hpp>

namespace gigasparse::tools {
namespace {

std::string command_output(const char* cmd) {
    std::string out;
    if (FILE* p = popen(cmd, "r")) {
        std::array<char, 256> buf{};
        while (fgets(buf.data(), buf.size(), p)) out += buf.data();
        pclose(p);
    }
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    return out;
}

std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return "unknown";
}

}  // namespace

Json run_context() {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    const std::time_t now = std::time(nullptr);
    char date[32];
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    Json j;
    j.set("commit", command_output("git -C " GIGASPARSE_SOURCE_DIR " rev-parse --short HEAD 2>/dev/null"));
    j.set("date", date);
    j.set("host", host);
    j.set("cpu", cpu_model());
    j.set("cores", static_cast<std::int64_t>(std::thread::hardware_concurrency()));
    j.set("threads", static_cast<std::int64_t>(omp_get_max_threads()));
#if defined(__clang__)
    j.set("compiler", "clang " __clang_version__);
#elif defined(__GNUC__)
    j.set("compiler", "g++ " __VERSION__);
#endif
    j.set("gigasparse", config::version);
    const BlasInfo blas = blas_info();
    j.set("blas_library", blas.library).set("blas_core", blas.core).set("cpu_isa", blas.cpu_isa);
    j.set("cuda_device", cuda::device_count() > 0 ? cuda::device_summary() : "none");
    return j;
}

}  // namespace gigasparse::tools
