// src/spgemm/params.hpp: MAGNUS chunk parameters from the cache model (host code shared by every backend).
#pragma once

#include <cstdint>

namespace gigasparse::spgemm {

// Cache sizes of this machine: L2 bytes per core and the cache line (sysfs, then sysconf, then defaults).
struct CacheInfo {
    std::int64_t l2_bytes = 0;
    std::int64_t line_bytes = 0;
};
CacheInfo detect_cache();

// Chunk parameters of one phase (MAGNUS §1.5 of notes/spgemm.md). All lengths are powers of two.
struct ChunkParams {
    std::int64_t ncols_pow2 = 1;         // m_C rounded up to a power of two (>= 1)
    std::int64_t dense_accum_bytes = 1;  // s_denseAccum: value + 1-byte flag (numeric) or the flag (symbolic)
    std::int64_t chunk_bytes = 136;      // s_chunkFine: histogram + prefix + two open cache lines
    std::int64_t max_l2_cols = 1;        // m_CmaxL2: widest column range the fine level handles in L2
    int fine_shift = 0;                  // fine chunk = col >> fine_shift
    std::int64_t fine_chunk_cols = 1;
    std::int64_t fine_chunks = 1;        // fine chunks over ncols_pow2 (or over one coarse chunk)
    bool coarse = false;                 // the coarse level is needed (ncols_pow2 > max_l2_cols)
    int coarse_shift = 0;
    std::int64_t coarse_chunk_cols = 0;
    std::int64_t coarse_chunks = 0;
    std::int64_t dense_max_cols = 1;     // widest row range the dense category accumulates in L2
};

// Overrides taken from SpgemmOptions (0 = from the model).
struct ChunkOverrides {
    std::int64_t fine_chunk_cols = 0;
    std::int64_t coarse_chunk_cols = 0;
};

std::int64_t next_pow2(std::int64_t x);   // smallest power of two >= max(x, 1)
std::int64_t floor_pow2(std::int64_t x);  // largest power of two <= max(x, 1)
int log2_exact(std::int64_t pow2);

// n_chunksFine = sqrt(m_C s_denseAccum / s_chunkFine) rounded to a power of two; coarse when
// m_C > m_CmaxL2 = s_L2^2 / (4 s_denseAccum s_chunkFine), with n_chunksCoarse = m_C / m_CmaxL2.
ChunkParams chunk_params(std::int64_t ncols, std::int64_t l2_bytes, std::int64_t line_bytes, std::int64_t dense_accum_bytes,
                         ChunkOverrides overrides = {});

}  // namespace gigasparse::spgemm
