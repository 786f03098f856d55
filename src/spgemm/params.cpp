// src/spgemm/params.cpp: cache detection (sysfs/sysconf) and the MAGNUS chunk-parameter formulas.
#include "spgemm/params.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>

#include <gigasparse/core/error.hpp>

namespace gigasparse::spgemm {
namespace {

std::string read_line(const std::string& path) {
    std::ifstream in(path);
    std::string s;
    std::getline(in, s);
    return s;
}

// "2048K" / "4M" / "65536" -> bytes; 0 when unreadable.
std::int64_t parse_size(const std::string& s) {
    if (s.empty()) return 0;
    std::size_t pos = 0;
    std::int64_t v = 0;
    try {
        v = std::stoll(s, &pos);
    } catch (...) {
        return 0;
    }
    const char unit = pos < s.size() ? s[pos] : ' ';
    if (unit == 'K' || unit == 'k') return v << 10;
    if (unit == 'M' || unit == 'm') return v << 20;
    return v;
}

CacheInfo detect_from_sysfs() {
    CacheInfo c;
    for (int idx = 0; idx < 8; ++idx) {
        const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(idx) + "/";
        const std::string level = read_line(dir + "level");
        if (level.empty()) break;
        const std::string type = read_line(dir + "type");
        if (level == "2" && type != "Instruction") {
            c.l2_bytes = parse_size(read_line(dir + "size"));
            c.line_bytes = parse_size(read_line(dir + "coherency_line_size"));
        }
    }
    return c;
}

}  // namespace

CacheInfo detect_cache() {
    static const CacheInfo cached = [] {
        CacheInfo c = detect_from_sysfs();
#ifdef _SC_LEVEL2_CACHE_SIZE
        if (c.l2_bytes <= 0) c.l2_bytes = sysconf(_SC_LEVEL2_CACHE_SIZE);
        if (c.line_bytes <= 0) c.line_bytes = sysconf(_SC_LEVEL2_CACHE_LINESIZE);
#endif
        if (c.l2_bytes <= 0) c.l2_bytes = std::int64_t(1) << 20;
        if (c.line_bytes <= 0) c.line_bytes = 64;
        return c;
    }();
    return cached;
}

std::int64_t next_pow2(std::int64_t x) {
    std::int64_t p = 1;
    while (p < x) p <<= 1;
    return p;
}

std::int64_t floor_pow2(std::int64_t x) {
    std::int64_t p = 1;
    while (p <= x / 2) p <<= 1;
    return p;
}

int log2_exact(std::int64_t pow2) {
    int s = 0;
    while ((std::int64_t(1) << s) < pow2) ++s;
    return s;
}

namespace {

// sqrt(cols * s_denseAccum / s_chunkFine) rounded to the nearest power of two in log scale: the storage
// a/n + b*n is symmetric in log2(n) around its optimum, so this is the best power of two. Within [1, cols].
std::int64_t optimal_fine_chunks(std::int64_t cols, const ChunkParams& p) {
    const double n = std::sqrt(static_cast<double>(cols) * static_cast<double>(p.dense_accum_bytes) / static_cast<double>(p.chunk_bytes));
    const int e = static_cast<int>(std::lround(std::log2(std::max(1.0, n))));
    return std::clamp<std::int64_t>(std::int64_t(1) << std::min(e, 62), 1, cols);
}

void check_pow2(std::int64_t v, const char* what) {
    if (v < 0 || (v > 0 && (v & (v - 1)) != 0))
        throw InvalidArgument(std::string("spgemm: ") + what + " must be a power of two (got " + std::to_string(v) + ")");
}

}  // namespace

ChunkParams chunk_params(std::int64_t ncols, std::int64_t l2_bytes, std::int64_t line_bytes, std::int64_t dense_accum_bytes,
                         ChunkOverrides overrides) {
    check_pow2(overrides.fine_chunk_cols, "fine_chunk_cols");
    check_pow2(overrides.coarse_chunk_cols, "coarse_chunk_cols");
    ChunkParams p;
    p.ncols_pow2 = next_pow2(ncols);
    p.dense_accum_bytes = dense_accum_bytes;
    p.chunk_bytes = 8 + 2 * line_bytes;
    const double l2 = static_cast<double>(l2_bytes);
    const double max_cols = l2 * l2 / (4.0 * static_cast<double>(dense_accum_bytes * p.chunk_bytes));
    p.max_l2_cols = floor_pow2(static_cast<std::int64_t>(std::min(max_cols, 4.0e18)));
    if (overrides.coarse_chunk_cols > 0) p.max_l2_cols = overrides.coarse_chunk_cols;
    p.dense_max_cols = std::max<std::int64_t>(1, l2_bytes / dense_accum_bytes);
    p.coarse = p.ncols_pow2 > p.max_l2_cols;
    const std::int64_t span = p.coarse ? p.max_l2_cols : p.ncols_pow2;  // columns the fine level splits
    if (p.coarse) {
        p.coarse_chunk_cols = p.max_l2_cols;
        p.coarse_shift = log2_exact(p.coarse_chunk_cols);
        p.coarse_chunks = p.ncols_pow2 / p.coarse_chunk_cols;
    }
    p.fine_chunks = optimal_fine_chunks(span, p);
    p.fine_chunk_cols = span / p.fine_chunks;
    if (overrides.fine_chunk_cols > 0) {
        p.fine_chunk_cols = std::min(overrides.fine_chunk_cols, span);
        p.fine_chunks = span / p.fine_chunk_cols;
    }
    p.fine_shift = log2_exact(p.fine_chunk_cols);
    return p;
}

}  // namespace gigasparse::spgemm
