// src/core/blas.cpp: BLAS kernel-set introspection (see include/gigasparse/core/blas.hpp).
#include "gigasparse/core/blas.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <utility>

namespace gigasparse {
namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

int isa_rank(const std::string& isa) {
    if (isa == "sse") return 1;
    if (isa == "avx") return 2;
    if (isa == "avx2") return 3;
    if (isa == "avx512") return 4;
    return 0;
}

std::string detect_cpu_isa() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl"))
        return "avx512";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "avx2";
    if (__builtin_cpu_supports("avx")) return "avx";
    return "sse";
#else
    return "";
#endif
}

}  // namespace

std::string openblas_core_isa(const std::string& core) {
    static const std::array<std::pair<const char*, const char*>, 22> table{{
        {"katmai", "sse"},      {"coppermine", "sse"},  {"northwood", "sse"},    {"prescott", "sse"},  {"banias", "sse"},
        {"core2", "sse"},       {"penryn", "sse"},      {"dunnington", "sse"},   {"nehalem", "sse"},   {"atom", "sse"},
        {"barcelona", "sse"},   {"opteron", "sse"},     {"sandybridge", "avx"},  {"bulldozer", "avx"}, {"piledriver", "avx2"},
        {"steamroller", "avx2"}, {"excavator", "avx2"}, {"haswell", "avx2"},     {"zen", "avx2"},      {"skylakex", "avx512"},
        {"cooperlake", "avx512"}, {"sapphirerapids", "avx512"},
    }};
    const std::string c = lower(core);
    for (const auto& [name, isa] : table)
        if (c == name) return isa;
    return "";
}

std::string recommended_openblas_core(const std::string& core, const std::string& cpu_isa) {
    const std::string have = openblas_core_isa(core);
    if (have.empty() || isa_rank(cpu_isa) <= isa_rank(have)) return "";
    if (cpu_isa == "avx512") return "SkylakeX";
    if (cpu_isa == "avx2") return "Haswell";
    if (cpu_isa == "avx") return "Sandybridge";
    return "";
}

BlasInfo blas_info() {
    BlasInfo info;
    if (void* gemm = dlsym(RTLD_DEFAULT, "dgemm_")) {
        Dl_info dl{};
        if (dladdr(gemm, &dl) && dl.dli_fname) info.library = dl.dli_fname;
    }
    using CoreName = char* (*)();
    if (auto get = reinterpret_cast<CoreName>(dlsym(RTLD_DEFAULT, "openblas_get_corename")))
        if (const char* name = get()) info.core = name;
    if (const char* forced = std::getenv("OPENBLAS_CORETYPE")) info.forced_core = forced;
    info.cpu_isa = detect_cpu_isa();
    info.kernel_isa = openblas_core_isa(info.core);
    info.recommended = recommended_openblas_core(info.core, info.cpu_isa);
    return info;
}

}  // namespace gigasparse
