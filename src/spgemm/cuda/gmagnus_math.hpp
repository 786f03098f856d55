// src/spgemm/cuda/gmagnus_math.hpp: gMAGNUS index arithmetic shared by the CUDA kernels and g++ unit tests.
//
// Everything here is a pure function of integers (no CUDA headers, no allocation), so the same code
// decides parameters on the host and maps flattened indices inside the kernels; tests/spgemm_cuda_host
// checks it case by case, and the kernels that use it run on the CPU simulator (tests/cuda_sim).
// Paper references are to gMAGNUS
// (shared/seeds/000_8abcc2d981f553bd.txt): §III-B outer product (Alg. 4), §III-C multisplit
// (Alg. 5), §III-D parameters, §III-E accumulation.
#pragma once

#include <gigasparse/cuda/abi.hpp>

#include <cstdint>

#ifdef __CUDACC__
#define GIGASPARSE_HD __host__ __device__
#else
#define GIGASPARSE_HD
#endif

namespace gigasparse::cuda {
inline namespace GIGASPARSE_CUDA_ABI {
namespace gmagnus {

using count_t = std::int64_t;  // 64-bit counts and offsets everywhere (Ĉ.nnz may pass 2^31)

inline constexpr int max_levels = 8;          // enough for 2^63 columns with >= 2^8 chunks per level
inline constexpr int hash_load_factor = 2;    // α of eq. (4)
inline constexpr int warp_size = 32;
inline constexpr int min_hash_log2 = 5;       // smallest hash table: 32 entries (bin 0)
// Fibonacci hashing: the slot is key * 2^32/φ (mod 2^32; 64-bit keys folded to 32 bits first) scaled
// to the capacity (its top log2(capacity) bits for a power of two), so every bit of the key moves the slot. OpSparse's (key * 107) & (capacity - 1) keeps only the key's low bits, which R-MAT
// biases bit by bit: on the light rows of R-MAT 16 (A 4, B 8 per row) it took 2.11 probes per product
// against 1.16 for this one (counted on the host, sequential insertion; bin 4: 2.99 against 1.29).
inline constexpr std::uint32_t hash_multiplier = 2654435769u;

// ---------------------------------------------------------------- small integer helpers
GIGASPARSE_HD constexpr int floor_log2(count_t x) {  // x >= 1
    int r = -1;
    while (x > 0) {
        x >>= 1;
        ++r;
    }
    return r;
}
GIGASPARSE_HD constexpr int ceil_log2(count_t x) {  // x >= 1; ceil_log2(1) == 0
    return x <= 1 ? 0 : floor_log2(x - 1) + 1;
}
GIGASPARSE_HD inline unsigned popcount32(std::uint32_t x) {
#if defined(__CUDA_ARCH__)
    return static_cast<unsigned>(__popc(x));
#else
    return static_cast<unsigned>(__builtin_popcount(x));
#endif
}
// A warp's runs of lanes (warp_run_add): `heads` has bit l set where lane l starts a run (bit 0
// always); lane `lane`'s run is lanes [start, end).
struct LaneRun {
    unsigned start, end;
};
GIGASPARSE_HD inline LaneRun lane_run(std::uint32_t heads, unsigned lane) {
    const std::uint32_t upto = 0xffffffffu >> (31u - lane), after = heads & ~upto;  // lanes 0..lane; heads above lane
#if defined(__CUDA_ARCH__)
    return {31u - static_cast<unsigned>(__clz(static_cast<int>(heads & upto))), after ? static_cast<unsigned>(__ffs(static_cast<int>(after)) - 1) : 32u};
#else
    return {31u - static_cast<unsigned>(__builtin_clz(heads & upto)), after ? static_cast<unsigned>(__builtin_ctz(after)) : 32u};
#endif
}
// The position of the r-th set bit of `bits` (from 0; r < popcount32(bits)): five halvings of the
// window, each keeping the half that holds it.
GIGASPARSE_HD inline unsigned nth_set_bit(std::uint32_t bits, unsigned r) {
    unsigned pos = 0;
    for (unsigned width = 16; width > 0; width /= 2) {
        const unsigned low = popcount32(bits & ((1u << width) - 1u));
        if (r >= low) {
            r -= low;
            bits >>= width;
            pos += width;
        }
    }
    return pos;
}
// dense_accumulate's write of a batch of 32 bitmap words: a store a word with entries (lane l
// taking bit l), or rounds of 32 entries a store (each lane's word found by a search of 5 shuffles,
// its bit by nth_set_bit), which take fewer warp instructions when a round costs less than the
// dense_write_select_cost word stores it replaces: when the occupied words hold few entries (a tie
// too: a round's 32 entries take at most 5 sectors an array, a word's store one or two for fewer).
inline constexpr unsigned dense_write_select_cost = 5;
GIGASPARSE_HD constexpr bool dense_write_selects(unsigned entries, unsigned occupied_words) {
    return dense_write_select_cost * ((entries + 31) / 32) <= occupied_words;
}
GIGASPARSE_HD constexpr count_t floor_pow2(count_t x) { return x < 1 ? 0 : count_t(1) << floor_log2(x); }
GIGASPARSE_HD constexpr count_t ceil_pow2(count_t x) { return count_t(1) << ceil_log2(x); }
GIGASPARSE_HD constexpr count_t ceil_div(count_t a, count_t b) { return (a + b - 1) / b; }
GIGASPARSE_HD constexpr count_t min_c(count_t a, count_t b) { return a < b ? a : b; }
GIGASPARSE_HD constexpr count_t max_c(count_t a, count_t b) { return a > b ? a : b; }

// ---------------------------------------------------------------- §III-D parameters
// Sizes in bytes of the stored types (s_y in the paper).
struct ElementSizes {
    int col = 4;     // C.col (index type I)
    int val = 8;     // C.val (value type V)
    int rowptr = 8;  // Ĉ.rowPtr entries (offset_t)
    int histo = 4;   // shared-memory histogram counters (32-bit: a group never holds 2^32 elements)
};

// Everything GetMagnusParams() decides, plus the launch shapes derived from it.
struct Params {
    count_t smem_bytes = 0;          // s_LM: usable shared memory per block (opt-in)
    count_t stream_smem_bytes = 0;   // the outer product's and multisplit's budget (<= s_LM; less for 2+ resident blocks)
    count_t hash_capacity = 0;       // largest power-of-two hash table (entries) that fits s_LM
    count_t tau = 0;                 // heavy threshold τ = hash_capacity / α (max products of a hash-accumulated row)
    count_t dense_columns = 0;       // n_denseNumeric floored to a power of two (values + 1-bit bitmap)
    int span_log2 = 0;               // log2 of the padded column span of a row of C (ceil_pow2(C.n))
    count_t chunks_required = 1;     // power of two: span / dense_columns (1: no multisplit needed)
    count_t chunks_max = 1;          // power of two: most chunks one multisplit level handles (eq. 6)
    int nlevels = 0;                 // multisplit levels (eq. 7); 0 when chunks_required == 1
    int chunks_log2[max_levels] = {};  // v_chunks as log2 per level
    count_t min_group_elems = 0;     // n_minGroupElems = s_LM / (2 (s_col + s_val))
    int multisplit_threads = 256;
    int outer_threads = 256;
    count_t outer_group_elems = 0;   // flattened elements per outer-product block: outer_group_elems_fit (multiple of outer_threads)
    count_t multisplit_group_elems[max_levels] = {};  // per level, multiple of multisplit_threads
    count_t multisplit_group_rows[max_levels] = {};   // n_groupRows per level
    ElementSizes sizes;
    int wide_max_windows = 4;  // most windows of a wide dense row (dense_wide_max_windows; GpuSpgemmOptions::dense_wide_windows)
    // most products a wide dense row walks (products times windows), or with wide_walk_adaptive the
    // floor of dense_wide_walk_cap (GpuSpgemmOptions::dense_wide_walk, dense_wide_walk_adaptive)
    count_t wide_max_walk = count_t(1) << 19;
    bool wide_walk_adaptive = true;
};

// n_groupRows: most rows (each with more than τ elements) that E consecutive elements can touch.
GIGASPARSE_HD constexpr count_t group_rows_bound(count_t group_elems, count_t tau) {
    return ceil_div(max_c(group_elems - 1, 0), max_c(tau, 1)) + 1;
}

// Shared-memory bytes of one multisplit block: warp-private histograms (+1 slot), global offsets,
// and the column/value permute buffers (the three terms of eq. 5).
GIGASPARSE_HD constexpr count_t multisplit_smem_bytes(count_t group_elems, count_t group_rows, count_t nchunks, int threads,
                                                      const ElementSizes& s) {
    const count_t warps = threads / warp_size;
    const count_t slots = group_rows * nchunks;
    return count_t(s.histo) * (slots * warps + 1) + count_t(s.rowptr) * slots + count_t(s.col + s.val) * group_elems;
}

// Shared memory of one outer-product block of group_elems flattened elements: for each Ã entry it
// touches (at most one per element) the two bases that turn an element index into its position in
// Ĉ and its entry of B (Ĉ.rowPtr-sized each), and for each element its entry's block-local index
// (16 bits: outer_max_group_elems).
inline constexpr count_t outer_max_group_elems = count_t(1) << 16;
GIGASPARSE_HD constexpr count_t outer_bytes_per_elem(const ElementSizes& s) { return 2 * count_t(s.rowptr) + 2; }
GIGASPARSE_HD constexpr count_t outer_smem_bytes(count_t group_elems, const ElementSizes& s) { return group_elems * outer_bytes_per_elem(s); }
// The owner map's run a thread (outer_product_kernel: each thread clears, max-scans and fills a
// contiguous run of the 16-bit map, `run` halfwords from thread·run). A warp's 32 lanes then touch
// halfwords run apart: a run of 4j halfwords puts lanes 2j words apart, two or more of them in one
// of the 32 banks (12 halfwords, the H200's 12288 elements over 1024 threads: two wavefronts each
// access of the three passes, measured by cuda_sim_memory_profile; 8: four; 16: eight). Wavefronts
// of one such warp access (the most distinct 4-byte words in one bank), for the j-th halfword of
// each lane's run:
GIGASPARSE_HD constexpr count_t owner_run_wavefronts(count_t run, count_t j) {
    count_t words[32] = {}, last[32] = {};
    count_t most = 0;
    for (count_t lane = 0; lane < 32; ++lane) {
        const count_t word = (lane * run + j) / 2, bank = word % 32;  // a lane's word rises with the lane
        if (words[bank] == 0 || last[bank] != word) {
            ++words[bank];
            last[bank] = word;
            most = words[bank] > most ? words[bank] : most;
        }
    }
    return most;
}
// The run: at least ceil(elems / threads); of that and the next three, the one whose passes take
// the fewest wavefronts (summed over its halfwords: j and j + 2 shift every lane's word by one, so
// the even and the odd halfwords each cost the same), the shortest on a tie. A run of 2 mod 4
// halfwords (lanes an odd number of words apart) is conflict-free: 12 becomes 14.
GIGASPARSE_HD constexpr count_t outer_owner_run(count_t elems, count_t threads) {
    const count_t need = (elems + threads - 1) / threads;
    count_t best = need, best_cost = -1;
    for (count_t run = need; run < need + 4 && run > 0; ++run) {
        const count_t cost = (run + 1) / 2 * owner_run_wavefronts(run, 0) + run / 2 * owner_run_wavefronts(run, 1);
        if (best_cost < 0 || cost < best_cost) {
            best = run;
            best_cost = cost;
        }
    }
    return best;
}

// Most elements an outer-product block's shared memory holds within smem_bytes.
GIGASPARSE_HD constexpr count_t outer_group_elems_fit(count_t smem_bytes, const ElementSizes& s) {
    return min_c(smem_bytes / outer_bytes_per_elem(s), outer_max_group_elems);
}

// Largest multiple of `threads` whose multisplit block fits smem_bytes with nchunks chunks per row
// (0 when not even one round fits).
GIGASPARSE_HD constexpr count_t multisplit_group_elems_for(count_t smem_bytes, count_t nchunks, count_t tau, int threads,
                                                           const ElementSizes& s) {
    count_t lo = 0, hi = smem_bytes / (s.col + s.val) / threads;  // in units of `threads`
    while (lo < hi) {
        const count_t mid = (lo + hi + 1) / 2;
        const count_t e = mid * threads;
        if (multisplit_smem_bytes(e, group_rows_bound(e, tau), nchunks, threads, s) <= smem_bytes) lo = mid;
        else hi = mid - 1;
    }
    return lo * threads;
}

// s_LM: the device's opt-in shared memory per block less the largest static shared memory of the
// kernels that take dynamic shared memory (static + dynamic may not exceed the opt-in maximum),
// rounded down to 128 bytes; a positive `requested` (GpuSpgemmOptions::shared_memory_bytes) lowers it.
GIGASPARSE_HD constexpr count_t shared_memory_budget(count_t optin_bytes, count_t max_static_bytes, count_t requested) {
    count_t b = (optin_bytes - max_static_bytes) / 128 * 128;
    if (requested > 0 && requested < b) b = requested;
    return b < 0 ? 0 : b;
}

// The outer product's and multisplit's budget when `resident` blocks of them are to share an SM: the SM's
// shared memory over `resident`, less the runtime's reserve and the kernels' static shared memory per
// block, rounded down to 128 bytes, never above the one-block budget. resident <= 1: the one-block budget
// (the paper's: a group fills the block's shared memory, one block per SM).
GIGASPARSE_HD constexpr count_t stream_budget(count_t budget, count_t smem_per_sm, count_t reserved_per_block, count_t max_static_bytes,
                                              int resident) {
    if (resident <= 1) return budget;
    const count_t b = (smem_per_sm / resident - reserved_per_block - max_static_bytes) / 128 * 128;
    return b < 0 ? 0 : (b < budget ? b : budget);
}

// GetMagnusParams(C.n, s_LM): ncols_c is the number of columns of C, smem_bytes the shared-memory
// budget of one block (device opt-in maximum, or lower to force more levels in tests). stream_smem
// (0: smem_bytes) sizes the outer-product and multisplit groups — and so the chunks per level — for
// several resident blocks (stream_budget); the accumulators keep smem_bytes. tau_cap > 0 lowers τ
// to it (never raises it: the hash table must hold a light row): more rows and chunks heavy.
GIGASPARSE_HD constexpr Params make_params(count_t ncols_c, count_t smem_bytes, ElementSizes s, int multisplit_threads = 256,
                                           int outer_threads = 256, count_t stream_smem = 0, count_t tau_cap = 0) {
    Params p;
    p.sizes = s;
    p.smem_bytes = smem_bytes;
    p.stream_smem_bytes = stream_smem > 0 && stream_smem < smem_bytes ? stream_smem : smem_bytes;
    const count_t ms_bytes = p.stream_smem_bytes;
    p.multisplit_threads = multisplit_threads;
    p.outer_threads = outer_threads;
    p.hash_capacity = floor_pow2(smem_bytes / (s.col + s.val));
    p.tau = max_c(p.hash_capacity / hash_load_factor, 1);
    if (tau_cap > 0 && tau_cap < p.tau) p.tau = tau_cap;  // GpuSpgemmOptions::heavy_threshold: more heavy rows
    // Dense accumulator: one value and one bitmap bit per column (bitmap in 32-bit words).
    p.dense_columns = floor_pow2(((smem_bytes - 16) * 8) / (8 * count_t(s.val) + 1));  // 16: bitmap padding
    if (p.dense_columns < warp_size) p.dense_columns = warp_size;
    p.span_log2 = ceil_log2(max_c(ncols_c, 1));
    const int dense_log2 = floor_log2(p.dense_columns);
    const int required_log2 = p.span_log2 > dense_log2 ? p.span_log2 - dense_log2 : 0;
    p.chunks_required = count_t(1) << required_log2;
    p.min_group_elems = ms_bytes / (2 * count_t(s.col + s.val));
    const count_t group_rows = group_rows_bound(p.min_group_elems, p.tau);
    const count_t warps = multisplit_threads / warp_size;
    const count_t num = ms_bytes - p.min_group_elems * (s.col + s.val) - s.histo;
    const count_t den = group_rows * warps * s.histo + s.rowptr;
    p.chunks_max = floor_pow2(max_c(num / den, 2));
    if (p.chunks_max < 2) p.chunks_max = 2;
    // Beyond eq. (6): a level must fit at least one element per thread of the block; small budgets
    // with many threads lower chunks_max until it does (more levels, each still one pass).
    while (p.chunks_max > 2 && multisplit_group_elems_for(ms_bytes, p.chunks_max, p.tau, multisplit_threads, s) < multisplit_threads)
        p.chunks_max /= 2;
    const int max_log2 = floor_log2(p.chunks_max);
    if (required_log2 == 0) {
        p.nlevels = 0;
    } else if (required_log2 <= max_log2) {
        p.nlevels = 1;
        p.chunks_log2[0] = required_log2;
    } else {
        p.nlevels = static_cast<int>(ceil_div(required_log2, max_log2));  // eq. (7)
        if (p.nlevels > max_levels) p.nlevels = max_levels;                // unreachable for 64-bit spans
        for (int l = 0; l + 1 < p.nlevels; ++l) p.chunks_log2[l] = max_log2;
        p.chunks_log2[p.nlevels - 1] = required_log2 - (p.nlevels - 1) * max_log2;
    }
    for (int l = 0; l < p.nlevels; ++l) {
        const count_t nchunks = count_t(1) << p.chunks_log2[l];
        p.multisplit_group_elems[l] = multisplit_group_elems_for(ms_bytes, nchunks, p.tau, multisplit_threads, s);
        p.multisplit_group_rows[l] = group_rows_bound(p.multisplit_group_elems[l], p.tau);
    }
    // Outer product: at most `outer_threads` threads, fewer (a power of two, >= one warp) when the
    // budget holds fewer elements; the group is a multiple of the thread count.
    const count_t outer_fit = outer_group_elems_fit(ms_bytes, s);
    while (p.outer_threads > warp_size && p.outer_threads > outer_fit) p.outer_threads /= 2;
    p.outer_group_elems = max_c(outer_fit / p.outer_threads * p.outer_threads, p.outer_threads);
    return p;
}

// Column span (log2) of one chunk after `levels_done` multisplit levels.
GIGASPARSE_HD constexpr int chunk_span_log2(const Params& p, int levels_done) {
    int r = p.span_log2;
    for (int l = 0; l < levels_done; ++l) r -= p.chunks_log2[l];
    return r < 0 ? 0 : r;
}

// Dynamic shared memory of a hash table of `capacity` entries: keys, plus values when numeric.
GIGASPARSE_HD constexpr count_t hash_smem_bytes(count_t capacity, const ElementSizes& s, bool numeric) {
    return capacity * (s.col + (numeric ? s.val : 0));
}
// The dense accumulator over `span` columns: a bitmap (32-bit words, padded to 16 bytes), then a
// value slot per column of whole 32-column groups (numeric phase only; dense_slot). A light row
// whose products' columns span `span` columns accumulates densely in its hash table's shared memory
// when that fits the table's bytes: no hashing, compaction or sort, its entries read in order from
// the bitmap (dense_light_row). Float values with int32 columns: spans up to 1.94 times the table's
// entries (numeric), 32 times (symbolic: keys only in the table, a bit a column).
GIGASPARSE_HD constexpr count_t dense_row_bytes(count_t span, count_t val_bytes, bool numeric) {
    const count_t groups = ceil_div(span, 32);
    return ceil_div(groups * 4, 16) * 16 + (numeric ? groups * 32 * val_bytes : 0);
}
// The value slot of column c (from the span's first) in the dense accumulator: c with its bank
// (c mod 32) XORed with its 32-column group's index mod 32, a permutation of each group (of the
// slots dense_row_bytes gives a last partial group too). A warp's 32 consecutive aligned columns
// (the dense write's word) still take 32 banks, while columns 32 apart, which shared a bank, now
// take different ones: R-MAT's columns favour a few low-bit patterns (cuda_sim_memory_profile,
// heavy path: the dense chunks' shared loads 1.96 -> 1.47 wavefronts a request, their known-column
// reads 6.71 -> 3.77). A run of consecutive columns across a group boundary can meet one 2-way
// conflict (the band's long rows: 1.07 -> 1.10).
GIGASPARSE_HD constexpr std::uint32_t dense_slot(std::uint32_t c) { return c ^ ((c >> 5) & 31u); }
// A chunk of 2^span_log2 columns accumulated densely (dense_segments_kernel): the same layout.
GIGASPARSE_HD constexpr count_t dense_smem_bytes(int span_log2, const ElementSizes& s, bool numeric) {
    return dense_row_bytes(count_t(1) << span_log2, s.val, numeric);
}
GIGASPARSE_HD constexpr bool light_row_is_dense(count_t span, count_t table_bytes, count_t val_bytes, bool numeric) {
    return span > 0 && dense_row_bytes(span, val_bytes, numeric) <= table_bytes;
}

// hash_rows_warp_kernel: one warp per light row (of the bins light_bin_takes_warps picks), up to
// warp_rows_max_warps rows per block, as many as the shared-memory budget holds tables of
// `capacity` entries (at least one).
inline constexpr int warp_rows_max_warps = 8;
GIGASPARSE_HD constexpr int warp_rows_per_block(count_t capacity, const ElementSizes& s, bool numeric, count_t smem_bytes) {
    const count_t fit = smem_bytes / max_c(hash_smem_bytes(capacity, s, numeric), count_t(1));
    return static_cast<int>(fit < 1 ? 1 : (fit > warp_rows_max_warps ? warp_rows_max_warps : fit));
}

// The product map of a plan's light rows (mapped_rows_kernel): for each product of a light row of
// a hash bin, in the row's product order (A's entries in order, each B row's in order), the rank of
// its column in C's row, a 16-bit word — a light row has at most τ products, so at most τ columns:
// the map is kept only while the largest hash table's rows fit (product_map_fits; every GPU's
// shared memory so far: τ 8192 on the H200). A row of hash bin `capacity` (at most capacity / 2
// products: hash_bin) takes capacity / 2 columns or values of shared memory (map_row_bytes, in
// 16-byte multiples): its known columns while the map is built, its values while a numeric phase
// accumulates. Rows of at most mapped_warp_products products take a warp each (mapped_warps_per_block
// a block), the others a block of mapped_block_threads (about 4 products a thread: one round of the
// walk's loads in flight).
using map_word = std::uint16_t;
inline constexpr count_t map_row_limit = count_t(1) << 16;  // the C row lengths a map word ranks
inline constexpr count_t mapped_warp_products = 256;
inline constexpr int mapped_warps_per_block = 8;
GIGASPARSE_HD constexpr bool product_map_fits(const Params& p) { return p.hash_capacity / 2 <= map_row_limit; }
GIGASPARSE_HD constexpr count_t map_row_bytes(count_t capacity, const ElementSizes& s) {
    return ceil_div(capacity / 2 * max_c(count_t(s.col), count_t(s.val)), count_t(16)) * 16;
}
GIGASPARSE_HD constexpr bool mapped_rows_take_warps(count_t capacity) { return capacity / 2 <= mapped_warp_products; }
GIGASPARSE_HD constexpr int mapped_block_threads(count_t capacity) {
    const count_t t = capacity / 8;
    return static_cast<int>(t < 64 ? 64 : (t > 1024 ? 1024 : t));
}
// Bytes of the map of `products` products of `rows` light rows (each row's offset, then the words).
GIGASPARSE_HD constexpr count_t product_map_bytes(count_t rows, count_t products) {
    return rows * count_t(sizeof(count_t)) + products * count_t(sizeof(map_word));
}

// True when the parameters are usable: the smallest hash bin (32 entries) fits, every kernel's
// dynamic shared memory fits the budget (the launch would fail otherwise), and every multisplit
// level fits at least one round of threads.
GIGASPARSE_HD constexpr bool params_feasible(const Params& p) {
    if (p.tau < 1 || p.hash_capacity < (count_t(1) << min_hash_log2)) return false;
    if (hash_smem_bytes(p.hash_capacity, p.sizes, true) > p.smem_bytes) return false;
    if (p.stream_smem_bytes < 1 || p.stream_smem_bytes > p.smem_bytes) return false;
    if (outer_smem_bytes(p.outer_group_elems, p.sizes) > p.stream_smem_bytes || p.outer_group_elems > outer_max_group_elems) return false;
    for (int l = 0; l < p.nlevels; ++l) {
        if (p.multisplit_group_elems[l] < p.multisplit_threads) return false;
        if (multisplit_smem_bytes(p.multisplit_group_elems[l], p.multisplit_group_rows[l], count_t(1) << p.chunks_log2[l], p.multisplit_threads,
                                  p.sizes) > p.stream_smem_bytes)
            return false;
    }
    const int last_span = chunk_span_log2(p, p.nlevels);
    if (last_span > floor_log2(p.dense_columns)) return false;
    return dense_smem_bytes(last_span, p.sizes, true) <= p.smem_bytes;
}

// make_params with the heavy threshold tau_cap (GpuSpgemmOptions::heavy_threshold), raised when it
// makes the parameters infeasible to the smallest τ that does not: a small τ lets a multisplit group
// span more rows (group_rows_bound), whose histograms then leave too few chunks or elements for the
// budget — with the full H200 budget and 1024-thread multisplit blocks τ = 1 does, with 4 KiB τ = 16
// (HeavyThresholdRaisedToFeasible). The threshold is a tuning knob, not a reason to fail; the τ used
// is GpuSpgemmStats::tau. Feasibility grows with τ (fewer rows a group); binary search between the
// threshold and the paper's τ. Parameters infeasible at the paper's τ are returned as they are
// (the budget itself is too small).
constexpr Params make_feasible_params(count_t ncols_c, count_t smem_bytes, ElementSizes s, int multisplit_threads, int outer_threads,
                                      count_t stream_smem, count_t tau_cap) {
    const Params p = make_params(ncols_c, smem_bytes, s, multisplit_threads, outer_threads, stream_smem, tau_cap);
    if (tau_cap <= 0 || params_feasible(p)) return p;
    const Params paper = make_params(ncols_c, smem_bytes, s, multisplit_threads, outer_threads, stream_smem, 0);
    if (!params_feasible(paper) || paper.tau <= tau_cap) return p;
    count_t lo = tau_cap, hi = paper.tau;  // infeasible at lo, feasible at hi
    while (hi - lo > 1) {
        const count_t mid = lo + (hi - lo) / 2;
        if (params_feasible(make_params(ncols_c, smem_bytes, s, multisplit_threads, outer_threads, stream_smem, mid))) hi = mid;
        else lo = mid;
    }
    return make_params(ncols_c, smem_bytes, s, multisplit_threads, outer_threads, stream_smem, hi);
}

// ---------------------------------------------------------------- flattened partitions (§III-B)
// Largest s in [0, n) with offsets[s] <= x, for monotone offsets[0..n] with offsets[0] == 0 and
// x < offsets[n]: the slice (or row) that owns flattened element x. Skips empty slices.
template <class Offset>
GIGASPARSE_HD inline count_t find_owner(const Offset* offsets, count_t n, count_t x) {
    count_t lo = 0, hi = n - 1;
    while (lo < hi) {
        const count_t mid = lo + (hi - lo + 1) / 2;
        if (static_cast<count_t>(offsets[mid]) <= x) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

struct Range {
    count_t begin = 0, end = 0;
};

// GroupRange(): elements [g * group_elems, min((g+1) * group_elems, total)) of the flattened space.
GIGASPARSE_HD constexpr Range group_range(count_t group, count_t group_elems, count_t total) {
    const count_t b = group * group_elems;
    return {b, min_c(b + group_elems, total)};
}

// Which entry of column `slice` of Ã (entry_a) and of row `slice` of B̃ (entry_b) flattened element
// i reads (eq. 3: division for A, modulo for B). b_row_nnz > 0 for every slice holding elements.
struct ABEntry {
    count_t a = 0, b = 0;
};
// Twice per outer-product block (outer_block_entries), no longer per element. When both operands
// fit in 32 bits it divides in 32 bits (a GPU emulates a 64-bit divide with a longer routine).
GIGASPARSE_HD constexpr ABEntry get_ab_entry(count_t i, count_t slice_offset, count_t b_row_nnz) {
    const count_t local = i - slice_offset;
    if (((static_cast<std::uint64_t>(local) | static_cast<std::uint64_t>(b_row_nnz)) >> 32) == 0) {
        const auto l = static_cast<std::uint32_t>(local), n = static_cast<std::uint32_t>(b_row_nnz);
        const std::uint32_t q = l / n;
        return {static_cast<count_t>(q), static_cast<count_t>(l - q * n)};
    }
    const count_t q = local / b_row_nnz;
    return {q, local - q * b_row_nnz};
}

// GetExcess(): elements of the B̃ row pass belonging to flattened A entry `a_entry_start` (its first
// flattened index) that lie before (first) or after (last) the block's range [g.begin, g.end).
struct Excess {
    count_t first = 0, last = 0;
};
GIGASPARSE_HD constexpr Excess get_excess(count_t a_entry_start, count_t b_row_nnz, Range g) {
    return {max_c(g.begin - a_entry_start, 0), max_c(a_entry_start + b_row_nnz - g.end, 0)};
}

// The Ã entries whose elements a block's range g holds, [begin, end): those of its first and last
// elements (slice_off, col_ptr, b_ptr: the slices' flattened starts, the CSC's column starts, B's
// row starts; nslices slices). Computed for every block before the outer product
// (outer_block_entries_kernel), where one thread of each block took the two binary searches while
// the others waited.
GIGASPARSE_HD inline Range outer_block_entries(Range g, const count_t* slice_off, const count_t* col_ptr, const count_t* b_ptr, count_t nslices) {
    const count_t s0 = find_owner(slice_off, nslices, g.begin), s1 = find_owner(slice_off, nslices, g.end - 1);
    return {col_ptr[s0] + get_ab_entry(g.begin, slice_off[s0], b_ptr[s0 + 1] - b_ptr[s0]).a,
            col_ptr[s1] + get_ab_entry(g.end - 1, slice_off[s1], b_ptr[s1 + 1] - b_ptr[s1]).a + 1};
}

// Step 2 of the outer product for one Ã entry of a block: its B̃ row is flattened elements
// [start, start + nb), read from B's entries b_row, b_row + 1, ...; the block holds `count` of them
// from `first` on. Element i of it reads B entry b_base + i, and, once the block has reserved
// `count` positions of Ĉ at r for the entry, goes to r - first + i: step 3 needs no division and no
// search, only the entry of each element (the block's owner map, filled from the entries' firsts).
struct OuterEntry {
    count_t first = 0, count = 0, b_base = 0;
};
GIGASPARSE_HD constexpr OuterEntry outer_entry(count_t start, count_t nb, count_t b_row, Range g) {
    const Excess ex = get_excess(start, nb, g);
    return {start + ex.first, nb - ex.first - ex.last, b_row - start};
}

// ---------------------------------------------------------------- multisplit chunk mapping (§III-C)
// GetChunk(): chunk of a (chunk-local) column given the column span of the sub-chunks.
GIGASPARSE_HD constexpr count_t chunk_of(count_t local_col, int sub_span_log2) { return local_col >> sub_span_log2; }
GIGASPARSE_HD constexpr count_t col_in_chunk(count_t local_col, int sub_span_log2) {
    return local_col & ((count_t(1) << sub_span_log2) - 1);
}
// Slot of (local row, chunk) in the block-local histogram, and in warp w's private copy.
GIGASPARSE_HD constexpr count_t local_slot(count_t local_row, count_t chunk, int chunks_log2) {
    return (local_row << chunks_log2) + chunk;
}
GIGASPARSE_HD constexpr count_t warp_slot(int warp, count_t slot, count_t slots_per_warp) { return count_t(warp) * slots_per_warp + slot; }
// Global chunk id (before heavy-first reordering) of chunk c of input row r.
GIGASPARSE_HD constexpr count_t global_chunk(count_t row, count_t chunk, int chunks_log2) { return (row << chunks_log2) + chunk; }

// ---------------------------------------------------------------- accumulation bins (§III-E)
// Hash bins: bin b holds rows/chunks whose products need a table of 2^(min_hash_log2 + b) entries.
GIGASPARSE_HD constexpr int hash_bin(count_t products) {
    const count_t want = max_c(products, 1) * hash_load_factor;
    const int lg = ceil_log2(want);
    return lg < min_hash_log2 ? 0 : lg - min_hash_log2;
}
GIGASPARSE_HD constexpr count_t hash_bin_capacity(int bin) { return count_t(1) << (min_hash_log2 + bin); }
GIGASPARSE_HD constexpr int hash_bin_count(const Params& p) { return floor_log2(p.hash_capacity) - min_hash_log2 + 1; }
// Counters of the setup's row classes (row_classes_kernel): rows per key (row_key: nbins hash bins,
// the wide dense rows, rows without products, heavy rows), then all products, the heavy rows'
// products and their A entries, the wide dense rows' products, and the widest span of a wide dense
// row (a maximum, the others are sums); at most max_tallies per block (shared memory). A 2^31-byte budget gives 27 bins.
inline constexpr int max_tallies = 64;
GIGASPARSE_HD constexpr int row_tally_count(int nbins) { return nbins + 8; }
// Threads of a block for a hash bin: half the table (a bitonic-sort step pairs two entries per thread),
// between one warp and 1024.
GIGASPARSE_HD constexpr int hash_bin_threads(int bin) {
    const count_t t = hash_bin_capacity(bin) / 2;
    return static_cast<int>(t < warp_size ? warp_size : (t > 1024 ? 1024 : t));
}
// Light rows of hash bin `capacity` (nrows of them) take a warp each (hash_rows_warp_kernel) instead
// of a block each (hash_rows_kernel): always when the table needs one warp (capacity <= 64: a block
// would be one warp); up to max_capacity entries when the bin has a block of per_block rows for
// each of the sm_count SMs. A block per row keeps fewer rows in flight (hash_block_threads: 10 to 21
// an SM for these tables, float/int32 on the H200), each a chain of dependent loads and barriers; a
// warp per row keeps up to 32 an SM, so a full bin goes faster, but each row takes longer, and a bin
// of fewer rows than SMs' worth of blocks keeps the block per row. max_capacity below 64: only the
// one-warp tables.
GIGASPARSE_HD constexpr bool light_bin_takes_warps(count_t capacity, count_t nrows, count_t max_capacity, int per_block, int sm_count) {
    if (capacity <= 2 * warp_size) return true;
    return capacity <= max_capacity && nrows >= count_t(per_block) * sm_count;
}
// The largest table of light rows that take a warp each for rows of at most max_products products
// (GpuSpgemmOptions::warp_row_products): the bin of such a row.
GIGASPARSE_HD constexpr count_t warp_rows_max_capacity(count_t max_products) {
    return count_t(1) << (min_hash_log2 + hash_bin(max_products));
}

// Small products (GpuSpgemmOptions::small_products): a product of small operands skips the
// setup's classes, sort and bins, the light rows' staging and streams: one launch counts every
// row's columns (small_rows_kernel, a warp a row, small_warps rows a block, each warp a table in its
// region of shared memory), one block scans the counts into C's row offsets (small_finish_kernel),
// one read gives nnz(C), and one launch writes C's rows. Some 9 stream operations and 2 host waits
// where the binned path of a light-only product takes some 33 and 2 (each 1 to 3 µs of host time,
// where a small product's whole time is some 100 µs). Operands of at most small_max_nnz entries
// each and rows. A long row — more than small_max_row_products products, or more distinct columns
// than its warp's table holds (small_row_is_long) — is left to a block (small_long_rows_kernel:
// dense in windows of its span, small_long_window), after a read of their count: one more launch,
// scan and read in the symbolic phase, one more launch in each numeric phase, for products that
// have such rows. Only a long row whose span takes more than small_long_max_windows windows sends
// the product to the binned path (the attempt's launches and reads lost).
inline constexpr int small_warps = 4;                      // rows (warps) per block
inline constexpr count_t small_region_bytes = 8192;        // each warp's table space (a key and a value an entry)
inline constexpr count_t small_max_nnz = count_t(1) << 17;  // operands' entries and rows
inline constexpr count_t small_max_row_products = 4096;    // a warp's walk: 128 rounds of 32 products (GpuSpgemmOptions::small_row_products: the default and most)
GIGASPARSE_HD constexpr bool small_product_eligible(count_t m, count_t nnz_a, count_t nnz_b) {
    return m <= small_max_nnz && nnz_a <= small_max_nnz && nnz_b <= small_max_nnz;
}
// Table entries of each warp's region: the power of two of keys and values that fits
// small_region_bytes (1024 for float values and int32 indices, 512 with a 64-bit one).
GIGASPARSE_HD constexpr count_t small_region_entries(const ElementSizes& s) { return floor_pow2(small_region_bytes / (s.col + s.val)); }
// A hash table for n keys: the power of two of twice them (at most half full), at least a warp's 32
// entries (the sort's runs), at most `limit` (a multiple of 4: GmagnusMath.TableCapacitiesAlign16).
// Phases that know a row's or chunk's distinct columns (numeric after a count, and known) size its
// table by them within the launch's capacity, which the products sized: the clear, compaction and
// sort then cost a fraction of the products' table where products repeat columns (the profile's
// band, 17 a row squared: 289 products over 33 columns, 128 entries instead of 1024;
// cuda_sim_memory_profile's small product: small_rows_kernel's shared loads 175 K -> 119 K, stores
// 451 K -> 238 K requests).
GIGASPARSE_HD constexpr count_t table_capacity_for(count_t n, count_t limit) { return min_c(limit, ceil_pow2(max_c(2 * n, count_t(warp_size)))); }
// The table of a small product's row of `products` products (the symbolic count), or, in the
// numeric phase, of its known length: table_capacity_for within the warp's region. Every row the
// numeric phase keeps (not small_row_is_long) fits its length's table (GmagnusMath.SmallProductTables).
GIGASPARSE_HD constexpr count_t small_row_capacity(count_t products, count_t region) { return table_capacity_for(products, region); }
// A row of more products than its table's entries may hold more distinct columns than fit: its
// inserts stop once the table holds small_row_limit(cap) columns, and a row that reaches it goes
// back to the binned path. At most 32 lanes pass the check before their inserts land: the table
// never holds more than cap - 1 keys, so every probe finds its key or an empty slot.
GIGASPARSE_HD constexpr bool small_row_bounded(count_t products, count_t capacity) { return products > capacity; }
GIGASPARSE_HD constexpr count_t small_row_limit(count_t capacity) { return capacity - warp_size; }
// Whether a row of `products` products and `distinct` columns (C's row length; in the symbolic
// count, the columns its warp's bounded inserts reached, which reach the limit exactly when the
// row's columns do) is left to a block: more products than a warp walks (max_products:
// GpuSpgemmOptions::small_row_products), or more columns than its table of `region` entries holds.
// Both phases decide alike: the numeric one from C's row length.
GIGASPARSE_HD constexpr bool small_row_is_long(count_t products, count_t distinct, count_t region, count_t max_products = small_max_row_products) {
    const count_t cap = small_row_capacity(products, region);
    return products > max_products || (small_row_bounded(products, cap) && distinct >= small_row_limit(cap));
}

// Blocks of `threads` threads resident on one SM (2048 threads and 32 blocks at most; 65536
// registers, allocated 256 at a time to each warp: regs_per_thread 0 when not known, no limit;
// smem_per_sm bytes of shared memory, each block taking block_smem plus reserved_per_block).
GIGASPARSE_HD constexpr count_t resident_blocks_per_sm(int threads, int regs_per_thread, count_t block_smem, count_t smem_per_sm,
                                                       count_t reserved_per_block) {
    count_t n = min_c(2048 / threads, 32);
    if (regs_per_thread > 0) {
        const count_t warp_regs = ceil_div(count_t(regs_per_thread) * warp_size, 256) * 256;
        n = min_c(n, 65536 / (warp_regs * ceil_div(threads, warp_size)));
    }
    return min_c(n, smem_per_sm / max_c(block_smem + reserved_per_block, 1));
}
// The outer product's default block when `resident` of its blocks are to share an SM
// (GpuSpgemmOptions::resident_blocks): the most threads, a power of two from 32 to 1024, of which
// `resident` blocks fit the SM's registers (regs_per_thread: the kernel's; 0 when unknown) and
// thread slots. 32 registers (the outer product since its owner map) keep 1024 threads for 2
// blocks; 58-60 (before) allowed 512.
GIGASPARSE_HD constexpr int outer_block_threads(int resident, int regs_per_thread) {
    int t = 1024;
    while (t > warp_size && resident_blocks_per_sm(t, regs_per_thread, 0, count_t(1) << 40, 0) < resident) t /= 2;
    return t;
}

// Threads of a block for one light row or chunk of a hash bin whose table takes table_bytes
// (hash_rows_kernel, hash_segments_kernel; static_bytes: the kernel's static shared memory): the
// power of two from 32 to hash_bin_threads (half the table, at most 1024; a sort step pairs two
// entries a thread) that keeps the most threads resident on an SM, and of those the fewest — the
// most rows in flight. A row is a chain of dependent loads and barriers: one SM with one
// 1024-thread row (tables of 2048 and more: registers allow one) waits at each barrier, where ten
// 128-thread rows of 2048-entry tables keep 1280 threads busy among them.
GIGASPARSE_HD constexpr int hash_block_threads(int bin, count_t table_bytes, count_t static_bytes, int regs_per_thread, count_t smem_per_sm,
                                               count_t reserved_per_block) {
    int best = warp_size;
    count_t best_resident = 0;
    for (int t = warp_size; t <= hash_bin_threads(bin); t *= 2) {
        const count_t resident = t * resident_blocks_per_sm(t, regs_per_thread, table_bytes + static_bytes, smem_per_sm, reserved_per_block);
        if (resident > best_resident) {
            best = t;
            best_resident = resident;
        }
    }
    return best;
}

// Entries of the hash table of bin `bin` for a kernel with static_bytes of static shared memory
// and regs registers a thread (the rows in flight an SM that hash_block_threads gives): the bin's
// 2^(5+b) entries, which hold at most half as many products (load at most 1/2), or 3/4 of them (load
// at most 2/3) when that keeps more rows in flight — for bins of min_shrunk_table entries or more:
// smaller tables gain nothing (registers limit their rows), and a table keeps at least 32 entries.
// Float/int32 on the H200: 16384 entries (128 KiB, one row an SM) become 12288 (two), 8192 become
// 6144. The bitonic sort spans the next power of two of a row's distinct columns, at most half the
// bin's entries: it fits either table. Host-tested (HashTablesShrinkOnlyForMoreRowsInFlight).
inline constexpr count_t min_shrunk_table = 4096;
GIGASPARSE_HD constexpr count_t hash_rows_in_flight(int bin, count_t capacity, const ElementSizes& s, bool values, count_t static_bytes, int regs,
                                                   count_t smem_per_sm, count_t reserved) {
    const count_t bytes = hash_smem_bytes(capacity, s, values);
    const int t = hash_block_threads(bin, bytes, static_bytes, regs, smem_per_sm, reserved);
    return resident_blocks_per_sm(t, regs, bytes + static_bytes, smem_per_sm, reserved);
}
GIGASPARSE_HD constexpr count_t hash_table_capacity(int bin, const ElementSizes& s, bool values, count_t static_bytes, int regs, count_t smem_per_sm,
                                                   count_t reserved) {
    const count_t nominal = hash_bin_capacity(bin);
    if (nominal < min_shrunk_table) return nominal;
    const count_t shrunk = nominal / 4 * 3;
    return hash_rows_in_flight(bin, shrunk, s, values, static_bytes, regs, smem_per_sm, reserved) >
                   hash_rows_in_flight(bin, nominal, s, values, static_bytes, regs, smem_per_sm, reserved)
               ? shrunk
               : nominal;
}

// Slot of a key in a table of `capacity` entries (2 to 2^31; hash_table_capacity) and the next
// probe (linear probing). Fibonacci hashing: the folded key times 2^32/φ, scaled to the capacity by
// a multiply-high — for a power of two 2^k, the top k bits of the product, as before the tables of
// 3/4 of a power of two.
GIGASPARSE_HD constexpr std::uint32_t hash_slot(count_t key, count_t capacity) {
    const auto k = static_cast<std::uint64_t>(key);
    const auto folded = static_cast<std::uint32_t>(k) ^ static_cast<std::uint32_t>(k >> 32);
    const std::uint32_t h = folded * hash_multiplier;
    return static_cast<std::uint32_t>((static_cast<std::uint64_t>(h) * static_cast<std::uint64_t>(capacity)) >> 32);
}
GIGASPARSE_HD constexpr std::uint32_t next_probe(std::uint32_t slot, count_t capacity) {
    return slot + 1 == static_cast<std::uint32_t>(capacity) ? 0u : slot + 1;
}

// Accumulator kind of a row of C (level 0) or of a chunk: hash if products <= τ; dense when the
// column span fits the dense accumulator; otherwise it must be split further (multisplit).
enum class AccumKind : int { hash = 0, dense = 1, split = 2 };
GIGASPARSE_HD constexpr AccumKind accum_kind(count_t products, int span_log2, const Params& p) {
    if (products <= p.tau) return AccumKind::hash;
    if ((count_t(1) << span_log2) <= p.dense_columns) return AccumKind::dense;
    return AccumKind::split;
}

// Wide dense rows: a row of more than τ products (heavy by accum_kind) whose products' columns span
// few enough columns accumulates densely in shared memory like a dense light row, a block per row
// (GpuSpgemmOptions::dense_wide_rows), instead of taking the heavy path: a bitmap and a value per
// column of a window of its span in the budget s_LM (dense_wide_capacity entries of a column and a
// value), one walk over its products per window, windows in column order (so the row comes out
// sorted). The windows are dense_wide_window columns wide: the budget's widest span (55200 columns
// for float values and int32 indices on the H200's s_LM of 227824 bytes; dense_span_limit) when B
// has no more columns, otherwise B's columns in equal windows (R-MAT 16: 2 of 32768, 17: 3 of
// 43691). A row qualifies with at most Params::wide_max_windows windows (dense_wide_max_windows,
// 4; GpuSpgemmOptions::dense_wide_windows: 5 takes R-MAT 18's rows, not yet timed) and at most
// the walk cap (dense_wide_walk_cap) products walked (products times windows). The cap is the
// larger of dense_wide_max_walk (2^19: 512 a thread of a 1024-thread block, estimated at 0.1-0.3 ms
// on one SM, not yet timed, near the heavy path's fixed cost: hangGlider_2, one heavy row, 0.84 ms
// of device time on the first H200 run where the light rows beside it took 0.53) and the walk of
// every row that meets the windows' limit over the device's SMs: a wide dense row takes one SM, and
// a row of at most the SMs' average share of the rows' walk does not hold the others back (list
// scheduling: the last row ends within one such share of the average), where the heavy path would
// spread it over every SM. The setup sums the candidates' walk on the device before it classifies
// the rows (row_products_kernel; no host wait), so boyd1's 93279 rows of some 427000 products on
// average, in 2 windows each, become wide dense rows (the cap: 604 M walked; the longest row 1.3 M),
// where 2^19 kept 93083 of them heavy.
// What it saves: the heavy path's fixed cost — the masked CSC, the outer product and the
// multisplit's launches and host waits, 70 stream operations and 2 host waits for hangGlider_2's one
// row on the simulator, more with multisplit levels — and its traffic: every product written to
// Ĉ by the outer product, read and written by each multisplit level, read by the accumulation
// (boyd1, all heavy: 14 G products a second on the first run). A wide dense row reads its
// products from A and B (B of R-MAT 15-17: 2-8 MB, in L2) once a window. Counted on the host for
// the benchmark (bench/spgemm_cuda/wide_dense_rows.py, τ = 8192): 12 of the 13 A² of the shared
// matrices with heavy rows keep none (ca-CondMat, adder_dcop_05 and hangGlider_2 one each, rajat01
// two, email-Enron 1202, soc-Slashdot0902 3250 in one or two windows; boyd1 keeps 93083 of its
// 93279), and of R-MAT with A of 4-32 a row every heavy row at scale 15 (one window), 98-100 % of
// the heavy products at 16 (two; 0 to 17 rows stay heavy) and 77-96 % at 17 (three; 18 to 834
// rows walked more than 2^19 times stay heavy; with the adaptive cap none). Scale 18 needs 5
// windows: the paper's heavy path, for rows whose span does not fit.
// Until 2026-12-06 the limit was one window of the largest hash table's bytes (31772 columns on the
// H200, 128 of the budget's 222 KiB) and 2^17 products: no R-MAT row qualified.
inline constexpr int dense_wide_max_windows = 4;  // the default of Params::wide_max_windows
static_assert(Params{}.wide_max_windows == dense_wide_max_windows);
inline constexpr count_t dense_wide_max_walk = count_t(1) << 19;  // the default of Params::wide_max_walk
static_assert(Params{}.wide_max_walk == dense_wide_max_walk);
// The most any wide dense row walks: the block walk's 32-bit sums (for_each_row_product_block; a
// row's products bound each chunk's sum) and its loop past them.
inline constexpr count_t dense_wide_walk_ceiling = count_t(1) << 31;
// The wide dense rows' entries of a column and a value in the budget s_LM (not a power of two:
// they are never hashed).
GIGASPARSE_HD constexpr count_t dense_wide_capacity(const Params& p) {
    return p.smem_bytes / (count_t(p.sizes.col) + count_t(p.sizes.val));
}
// The widest span whose bitmap, and values when numeric, fit `bytes` (dense_row_bytes; 0 when not one
// column fits).
GIGASPARSE_HD constexpr count_t dense_span_limit(count_t bytes, count_t val_bytes, bool numeric) {
    count_t lo = 0, hi = bytes * 8 + 1;  // dense_row_bytes(lo) <= bytes < dense_row_bytes(hi): the bitmap alone takes span / 8
    while (hi - lo > 1) {
        const count_t mid = lo + (hi - lo) / 2;
        if (dense_row_bytes(mid, val_bytes, numeric) <= bytes) lo = mid;
        else hi = mid;
    }
    return lo;
}
// A small product's long row (small_row_is_long): one block of small_long_threads, its products
// accumulated densely in windows of small_long_window columns of its span in small_long_bytes of
// shared memory (the four warps' regions of a small_rows_kernel block), one walk over its products
// a window. Float values: 7936 columns a numeric window, double 4032; a symbolic count's bitmap
// 262144. A row whose span takes more than small_long_max_windows numeric windows (63488 columns
// for float, 32256 for double) sends the product to the binned path (small_long_row_fits).
inline constexpr int small_long_threads = 256;
inline constexpr count_t small_long_bytes = small_warps * small_region_bytes;
inline constexpr count_t small_long_max_windows = 8;
GIGASPARSE_HD constexpr count_t small_long_window(const ElementSizes& s, bool numeric) { return dense_span_limit(small_long_bytes, s.val, numeric); }
// (window: small_long_window of the numeric phase)
GIGASPARSE_HD constexpr bool small_long_row_fits(count_t span, count_t window) {
    return span > 0 && window > 0 && ceil_div(span, window) <= small_long_max_windows;
}

// The width of the wide dense rows' windows (values: the numeric phases' bitmap and values; without,
// the symbolic count's bitmap) for B of ncols columns: B's columns in the fewest equal windows that
// fit the budget (at most dense_span_limit of the budget's bytes; ncols itself when that fits). The
// setup classifies the rows with the numeric width; a launch takes the narrower of its phase's
// width and the widest span among its rows (dense_wide_launch), so a row never takes more windows
// than it was classified with. 0: not one column fits.
GIGASPARSE_HD constexpr count_t dense_wide_window(const Params& p, count_t ncols, bool values) {
    const count_t limit = dense_span_limit(hash_smem_bytes(dense_wide_capacity(p), p.sizes, values), p.sizes.val, values);
    if (limit < 1) return 0;
    const count_t n = max_c(ncols, 1);
    return ceil_div(n, ceil_div(n, limit));
}
// The products a row of `products` products over `span` columns walks as a wide dense row in
// windows of `window` columns (dense_wide_window with values; 0: no wide dense rows): products times
// its windows when it has more than τ products and at most Params::wide_max_windows windows, else 0
// (not a candidate).
GIGASPARSE_HD constexpr count_t dense_wide_walk(count_t products, count_t span, const Params& p, count_t window) {
    if (products <= p.tau || span < 1 || window < 1) return 0;
    const count_t windows = ceil_div(span, window);
    return windows <= p.wide_max_windows ? products * windows : 0;
}
// The most products a wide dense row may walk, given the walk of all candidates (dense_wide_walk
// summed over the rows) and the device's SMs: Params::wide_max_walk, or with wide_walk_adaptive the
// larger of it and the candidates' walk over the SMs; never above dense_wide_walk_ceiling.
GIGASPARSE_HD constexpr count_t dense_wide_walk_cap(const Params& p, count_t candidates, int sm_count) {
    const count_t floor = min_c(p.wide_max_walk, dense_wide_walk_ceiling);
    if (!p.wide_walk_adaptive || sm_count < 1) return floor;
    return min_c(max_c(floor, candidates / sm_count), dense_wide_walk_ceiling);
}
// Whether a row of `products` products over `span` columns is a wide dense row in windows of
// `window` columns, walking at most `walk_cap` products (dense_wide_walk_cap).
GIGASPARSE_HD constexpr bool row_is_dense_wide(count_t products, count_t span, const Params& p, count_t window, count_t walk_cap) {
    const count_t walk = dense_wide_walk(products, span, p, window);
    return walk > 0 && walk <= walk_cap;
}

// The launch of the wide dense rows: windows of `window` columns — the phase's dense_wide_window, or
// less, the widest span among the rows (the setup's tally): every window fits the launch's bytes, and
// rows of short spans leave room for more rows an SM (hangGlider_2's one row of 1647 columns takes
// 6.8 KB of the H200's 222 KiB; R-MAT 16's windows of 32768 columns 132 KB, one row an SM, the rest
// for the light bins' blocks beside it). Its block: the widest (at most 1024 threads: a few long
// rows finish soonest), or, when the bin holds enough rows to fill every SM's room at the size
// hash_block_threads picks for those bytes (most threads resident, then the most rows), that size.
struct DenseWideLaunch {
    count_t bytes = 0;
    int threads = 0;
};
GIGASPARSE_HD constexpr DenseWideLaunch dense_wide_launch(const Params& p, count_t window, bool values, count_t nrows, count_t static_bytes,
                                                         int regs, count_t smem_per_sm, count_t reserved, int sm_count, bool fit) {
    const int widest_bin = hash_bin_count(p) - 1;
    DenseWideLaunch l{dense_row_bytes(max_c(window, 1), p.sizes.val, values), hash_bin_threads(widest_bin)};
    if (fit) {
        const int t = hash_block_threads(widest_bin, l.bytes, static_bytes, regs, smem_per_sm, reserved);
        if (nrows >= resident_blocks_per_sm(t, regs, l.bytes + static_bytes, smem_per_sm, reserved) * sm_count) l.threads = t;
    }
    return l;
}
// The setup's sort key of a row of A·B (row_classes_kernel) from its products and the columns they
// span (0: not known), in wide dense windows of `window` columns (0: no wide dense rows) walking at
// most `walk_cap` products: its hash bin [0, nbins) for a light row with products, nbins for a wide
// dense row, nbins + 1 for a row without products, nbins + 2 for a heavy row (sorted last).
GIGASPARSE_HD constexpr unsigned row_key(count_t products, count_t span, const Params& p, int nbins, count_t window, count_t walk_cap) {
    if (products == 0) return static_cast<unsigned>(nbins + 1);
    if (accum_kind(products, p.span_log2, p) == AccumKind::hash) return static_cast<unsigned>(hash_bin(products));
    return static_cast<unsigned>(row_is_dense_wide(products, span, p, window, walk_cap) ? nbins : nbins + 2);
}

// A chunk of a heavy row after the multisplit (a segment): dense also when it holds at most τ products
// but at least 1/dense_chunk_ratio of its column span. The hash path sorts each chunk's distinct
// columns with a bitonic network: for a table of 2^k entries on T threads, k(k+1)/2 barrier stages of
// 2^(k-1)/T compare-swaps each (91 stages of 4 for 8192 products on 1024 threads); the dense path
// clears its span (2^15 floats: 64 stores a thread on 512; once for a run of chunks a block,
// dense_chunks_per_block), scans a bitmap and needs no sort. On the
// first H200 run the hash path's widest bin of R-MAT 18's chunks took 77 µs per chunk (ncu), a fifth
// of the device time. A row of C (level 0) keeps accum_kind: dense there means a heavy row.
inline constexpr count_t dense_chunk_ratio = 8;
GIGASPARSE_HD constexpr bool chunk_is_dense(count_t products, int span_log2, const Params& p) {
    if (products > p.tau) return true;  // (the multisplit leaves such chunks only with a span that fits)
    const count_t span = count_t(1) << span_log2;
    return span <= p.dense_columns && products * dense_chunk_ratio >= span;
}

// Dense chunks one block of dense_segments_kernel accumulates one after the other: its span is
// cleared once, and each chunk's entries and bitmap words are zeroed as they are written, for the
// next. A span of 2^15 floats is 128 KB to clear: 1024 shared-store requests a chunk of 512
// threads, where a chunk at the density threshold (span / dense_chunk_ratio products) writes some
// 100 (cuda_sim_memory_profile's heavy path: 2.99 M of the kernel's 3.31 M shared-store requests
// were the clear). As many as keep dense_chunk_waves blocks for each of the device's resident
// slots (the block scheduler still balances chunks of different sizes), at most
// dense_chunks_per_block_max; 1 for few chunks.
inline constexpr count_t dense_chunk_waves = 4, dense_chunks_per_block_max = 8;
GIGASPARSE_HD constexpr count_t dense_chunks_per_block(count_t chunks, count_t resident_slots) {
    const count_t per = chunks / max_c(dense_chunk_waves * max_c(resident_slots, 1), count_t(1));
    return per < 1 ? 1 : (per > dense_chunks_per_block_max ? dense_chunks_per_block_max : per);
}

// ---------------------------------------------------------------- batching beyond device memory
// End (exclusive) of the batch of heavy rows starting at `first`, given the inclusive prefix sum of
// their intermediate sizes (prefix[r] = products of heavy rows 0..r) and a budget of elements.
// Always takes at least one row, so a single row larger than the budget is its own batch.
template <class Offset>
GIGASPARSE_HD inline count_t batch_end(const Offset* prefix, count_t nheavy, count_t first, count_t budget) {
    const count_t base = first == 0 ? 0 : static_cast<count_t>(prefix[first - 1]);
    count_t lo = first + 1, hi = nheavy;  // answer in [first+1, nheavy]
    while (lo < hi) {
        const count_t mid = lo + (hi - lo + 1) / 2;
        if (static_cast<count_t>(prefix[mid - 1]) - base <= budget) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

// The heavy intermediate's automatic budget: two fifths of the available device memory (the rest
// leaves room for C, the segments and CUB storage), and the batches it takes for heavy_bytes
// (double-buffered columns and values of the heavy rows' products; batch_end cuts at rows, so a
// batch may hold less: this is the count when rows are small against the budget).
GIGASPARSE_HD constexpr count_t intermediate_budget_bytes(count_t available) { return available / 5 * 2; }
GIGASPARSE_HD constexpr count_t batches_for(count_t heavy_bytes, count_t budget_bytes) {
    return heavy_bytes <= 0 ? 0 : ceil_div(heavy_bytes, max_c(budget_bytes, 1));
}

// Whether the light rows of a one-call product are accumulated in one pass, their sorted entries
// staged (a column and a value per light product, plus an offset per row: stage_bytes) until C's
// row offsets are known: when the staging takes at most stage_budget bytes (0: a fifth of the
// available memory) and, under the automatic intermediate budget (heavy_budget_set false), leaves
// the heavy rows in as many batches as without it (with several batches the numeric phase rebuilds
// each batch's intermediate: the staging must not turn one batch into two).
GIGASPARSE_HD constexpr bool stage_light_rows_fits(count_t stage_bytes, count_t heavy_bytes, count_t available, count_t stage_budget,
                                                   bool heavy_budget_set) {
    if (stage_bytes > (stage_budget > 0 ? stage_budget : available / 5) || stage_bytes >= available) return false;
    if (heavy_budget_set) return true;
    return batches_for(heavy_bytes, intermediate_budget_bytes(available - stage_bytes)) == batches_for(heavy_bytes, intermediate_budget_bytes(available));
}

// ---------------------------------------------------------------- block-level helpers
// The multisplit scan walks warp-private histograms slot-major (slot s of warp 0, 1, ..., then
// slot s+1), while they are stored warp-major (warp w owns [w * slots, (w + 1) * slots)).
GIGASPARSE_HD constexpr count_t scan_order_to_storage(count_t v, count_t warps, count_t slots) {
    return (v % warps) * slots + v / warps;
}

// Bitonic sort network over n = 2^k keys: step (k_size, j) compares the n/2 pairs (i, i + j) for
// the i with bit j clear (pair t of the step has low index bitonic_pair_low(t, j), so n/2 threads
// each take one pair), ascending when (i & k_size) == 0.
GIGASPARSE_HD constexpr count_t bitonic_pair_low(count_t t, count_t j) { return ((t & ~(j - 1)) << 1) | (t & (j - 1)); }
GIGASPARSE_HD constexpr bool bitonic_ascending(count_t i, count_t k_size) { return (i & k_size) == 0; }
// Two consecutive steps, j and j/2 (j >= 2), over quads: quad g of the n/4 is {i, i + j/2, i + j,
// i + 3j/2} with i = bitonic_quad_low(g, j) (bits j and j/2 of i clear); step j pairs (i, i + j)
// and (i + j/2, i + 3j/2), then step j/2 pairs (i, i + j/2) and (i + j, i + 3j/2), all four in
// i's direction (the size k_size > j, so one bit above them). A thread a quad: one barrier for
// the two steps.
GIGASPARSE_HD constexpr count_t bitonic_quad_low(count_t g, count_t j) { return bitonic_pair_low(bitonic_pair_low(g, j / 2), j); }
// The same step taken by each element alone: element i, holding `mine`, takes its partner's (i ^ j)
// key when the pair is out of order — the lower index of an ascending pair keeps the smaller key,
// of a descending pair the larger. The warp stages of sort_and_write (j < 32) run this way, the
// partner's key and value from a shuffle.
template <class U>
GIGASPARSE_HD constexpr bool bitonic_takes_partner(count_t i, count_t j, count_t k_size, U mine, U partner) {
    return ((i & j) == 0) == bitonic_ascending(i, k_size) ? partner < mine : partner > mine;
}

// Output order by rank (GpuSpgemmOptions::rank_sort) for a compacted table of n of its cap slots.
// The free slots [n, cap) hold a window's bitmap (32 columns a 4-byte word), each bitmap word's
// exclusive prefix (4 bytes) and the inverse map (a 16-bit entry index for each of the window's
// places in the row, n of them), so that the entries leave in the row's order, coalesced: a split
// table keeps the bitmap in its free key slots and the prefixes in its free value slots, the map
// after whichever is larger (the value part when equal); a packed table's free words (8 bytes) hold
// the three one after another. rank_sort_window_words: the bitmap words a window takes (0 if none
// fit); rank_sort_windows: the windows a span of `span` columns takes, or 0 where that is more than
// rank_sort_max_windows, the window has fewer than 32 words, or the table more entries than the
// map's 16 bits index: the bitonic sort then. Each window costs a clear, an OR a column, a scan of
// the window's words, a map store and a coalesced store an entry, and 6 barriers of the group.
inline constexpr count_t rank_sort_max_windows = 8;
inline constexpr count_t rank_sort_max_entries = 65536;  // the inverse map's 16-bit indices
GIGASPARSE_HD constexpr count_t rank_sort_window_words(count_t cap, count_t n, int col_bytes, int val_bytes, bool packed) {
    const count_t free = cap - n, map = 2 * n, key_part = col_bytes * free, val_part = val_bytes * free;
    count_t words = 0;
    if (packed) words = (8 * free - map) / 8;  // bitmap, prefixes, map
    else if (val_bytes >= col_bytes) words = min_c(key_part / 4, (val_part - map) / 4);
    else words = min_c((key_part - map) / 4, val_part / 4);
    return words > 0 ? words : 0;
}
GIGASPARSE_HD constexpr count_t rank_sort_windows(count_t span, count_t cap, count_t n, int col_bytes, int val_bytes, bool packed) {
    const count_t words = rank_sort_window_words(cap, n, col_bytes, val_bytes, packed);
    if (words < 32 || span < 1 || n > rank_sort_max_entries) return 0;
    const count_t windows = ceil_div(span, words * 32);
    return windows > rank_sort_max_windows ? 0 : windows;
}

}  // namespace gmagnus
}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace gigasparse::cuda
