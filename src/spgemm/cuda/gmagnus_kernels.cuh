// src/spgemm/cuda/gmagnus_kernels.cuh: gMAGNUS __global__ kernels and their block/warp helpers (index math from gmagnus_math.hpp).
// Non-template kernels are static: the header is compiled once per value type (gmagnus_float.cu, gmagnus_double.cu).
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include <cub/block/block_scan.cuh>

#include "spgemm/cuda/gmagnus_math.hpp"

// Dynamic shared memory of a kernel (the CPU simulator, tests/cuda_sim, defines its own).
#ifndef GIGASPARSE_DYNAMIC_SHARED
#define GIGASPARSE_DYNAMIC_SHARED(name) extern __shared__ __align__(16) unsigned char name[]
#endif
// Full unrolling of a constant-trip loop (nvcc; the simulator's g++ build unrolls as it sees fit).
#ifdef __CUDACC__
#define GIGASPARSE_UNROLL _Pragma("unroll")
#else
#define GIGASPARSE_UNROLL
#endif

namespace gigasparse::cuda {
inline namespace GIGASPARSE_CUDA_ABI {
namespace gmagnus {

using ull = unsigned long long;

// ------------------------------------------------------------------ atomics
// A word other threads may be changing by atomics, read without ordering (the simulator: a relaxed
// atomic load, so its racecheck build sees no race).
__device__ __forceinline__ unsigned shared_load_relaxed(const unsigned* p) {
#if defined(__CUDA_ARCH__)
    return *reinterpret_cast<const volatile unsigned*>(p);
#else
    return __atomic_load_n(p, __ATOMIC_RELAXED);
#endif
}
// on 64-bit counts
__device__ __forceinline__ count_t atomic_add_count(count_t* p, count_t v) {
    return static_cast<count_t>(atomicAdd(reinterpret_cast<ull*>(p), static_cast<ull>(v)));
}
__device__ __forceinline__ void atomic_max_count(count_t* p, count_t v) {  // v >= 0
    atomicMax(reinterpret_cast<ull*>(p), static_cast<ull>(v));
}
template <class I>
__device__ __forceinline__ I atomic_cas_index(I* p, I expected, I desired) {
    if constexpr (sizeof(I) == 4) {
        return static_cast<I>(atomicCAS(reinterpret_cast<unsigned int*>(p), static_cast<unsigned int>(expected), static_cast<unsigned int>(desired)));
    } else {
        return static_cast<I>(atomicCAS(reinterpret_cast<ull*>(p), static_cast<ull>(expected), static_cast<ull>(desired)));
    }
}

// One segment of an intermediate buffer accumulated into row c_row of C, columns base + [0, 2^span_log2).
struct Segment {
    count_t begin, end, c_row, base;
    int buffer;
    int span_log2;
};

// v combined by op over the lanes of the warp, in lane 0 (every lane calls it): warp_sum, and the
// minimum and maximum of the row's column spans.
template <class Op>
__device__ __forceinline__ count_t warp_reduce(count_t v, Op op) {
    for (int o = warp_size / 2; o > 0; o /= 2) v = op(v, __shfl_down_sync(0xffffffffu, v, o));
    return v;
}
__device__ __forceinline__ count_t warp_sum(count_t v) {
    return warp_reduce(v, [](count_t x, count_t y) { return x + y; });
}

// ------------------------------------------------------------------ setup kernels
// The columns each row of B spans: lo[k] = its smallest column, hi[k] = its largest (an empty row:
// lo = count_max, hi = -1); a thread per row (rows need not be sorted; most are short, and a warp
// per row of 3 entries left 29 lanes idle). Thread 0 zeroes *walk_total (the wide dense rows'
// candidates' walk, which row_products_kernel sums; null: none).
inline constexpr count_t count_max = std::numeric_limits<count_t>::max();
template <class I>
static __global__ void col_range_kernel(count_t n, const count_t* __restrict__ ptr, const I* __restrict__ col, count_t* __restrict__ lo,
                                        count_t* __restrict__ hi, count_t* __restrict__ walk_total) {
    const count_t k = blockIdx.x * static_cast<count_t>(blockDim.x) + threadIdx.x;
    if (k == 0 && walk_total != nullptr) *walk_total = 0;
    if (k >= n) return;
    count_t l = count_max, h = -1;
    for (count_t j = ptr[k]; j < ptr[k + 1]; ++j) {
        const auto c = static_cast<count_t>(col[j]);
        l = min_c(l, c);
        h = max_c(h, c);
    }
    lo[k] = l;
    hi[k] = h;
}

// products[r] = Σ_{j in A[r,:]} nnz(B[A.col[j], :]) and, given B's rows' spans (col_range_kernel;
// b_lo null: not needed), the columns the row's products span, [row_lo[r], row_hi[r]]; one warp per row. Block 0 also zeroes
// the setup's counters — zeros[0, nzeros) and C's first row offset — which later kernels of the
// stream add to (memsets saved: each costs a small product a launch). With walk_total (zeroed by
// col_range_kernel; null: no wide dense rows, or a fixed walk cap), the rows' dense_wide_walk in
// windows of `window` columns is summed there (one atomic a block with candidates: the rows above
// τ), for row_classes_kernel's adaptive cap.
template <class I>
static __global__ void row_products_kernel(count_t m, const count_t* __restrict__ a_ptr, const I* __restrict__ a_col, const count_t* __restrict__ b_ptr,
                                           const count_t* __restrict__ b_lo, const count_t* __restrict__ b_hi, count_t* __restrict__ products,
                                           count_t* __restrict__ row_lo, count_t* __restrict__ row_hi, count_t* __restrict__ zeros, int nzeros,
                                           count_t* __restrict__ c_ptr0, Params p, count_t window, count_t* __restrict__ walk_total) {
    __shared__ count_t block_walk;
    if (walk_total != nullptr) {  // the launch's: every thread takes the barriers
        if (threadIdx.x == 0) block_walk = 0;
        __syncthreads();
    }
    if (blockIdx.x == 0) {
        for (int k = static_cast<int>(threadIdx.x); k < nzeros; k += static_cast<int>(blockDim.x)) zeros[k] = 0;
        if (threadIdx.x == 0) *c_ptr0 = 0;
    }
    const count_t warp = (blockIdx.x * static_cast<count_t>(blockDim.x) + threadIdx.x) / warp_size;
    const int lane = threadIdx.x % warp_size;
    if (warp < m) {
        count_t sum = 0, l = count_max, h = -1;
        for (count_t j = a_ptr[warp] + lane; j < a_ptr[warp + 1]; j += warp_size) {
            const count_t k = static_cast<count_t>(a_col[j]);
            sum += b_ptr[k + 1] - b_ptr[k];
            if (b_lo != nullptr) {
                l = min_c(l, b_lo[k]);
                h = max_c(h, b_hi[k]);
            }
        }
        sum = warp_sum(sum);
        l = warp_reduce(l, [](count_t x, count_t y) { return min_c(x, y); });
        h = warp_reduce(h, [](count_t x, count_t y) { return max_c(x, y); });
        if (lane == 0) {
            products[warp] = sum;
            row_lo[warp] = l;
            row_hi[warp] = h;
            if (walk_total != nullptr && sum > 0) {
                const count_t walk = dense_wide_walk(sum, h - l + 1, p, window);
                if (walk > 0) atomic_add_count(&block_walk, walk);
            }
        }
    }
    if (walk_total != nullptr) {
        __syncthreads();
        if (threadIdx.x == 0 && block_walk != 0) atomic_add_count(walk_total, block_walk);
    }
}

// Per-block tallies: shared counters, zeroed by the block before a __syncthreads, then flushed with
// one global atomic per nonzero counter, so a global counter sees one atomic per block instead of
// one per row or segment (at most max_tallies counters).
__device__ __forceinline__ void clear_tallies(count_t* s, int n) {
    for (int k = threadIdx.x; k < n; k += blockDim.x) s[k] = 0;
    __syncthreads();
}
__device__ __forceinline__ void flush_tallies(const count_t* s, int n, count_t* __restrict__ global) {
    __syncthreads();
    for (int k = threadIdx.x; k < n; k += blockDim.x)
        if (s[k] != 0) atomic_add_count(&global[k], s[k]);
}
// A block's count of items per key (at most 2^32 - 1 a block): 32-bit shared counters, whose add
// of 1 is one instruction for the warp (ATOMS.POPC.INC), where a count_t's is a compare-and-swap
// loop in which every lane on a busy key retries (SASS, cuda_kernel_sass). clear_keyed before clear_tallies' barrier; move_keyed after the
// block's last add, before flush_tallies.
__device__ __forceinline__ void clear_keyed(unsigned* keyed, int n) {
    for (int k = threadIdx.x; k < n; k += blockDim.x) keyed[k] = 0;
}
__device__ __forceinline__ void move_keyed(const unsigned* keyed, int n, count_t* s) {
    __syncthreads();
    for (int k = threadIdx.x; k < n; k += blockDim.x) s[k] = keyed[k];
}
// Adds v into *s once per warp (every lane of the warp calls it).
__device__ __forceinline__ void warp_tally(count_t* s, count_t v) {
    v = warp_sum(v);
    if (threadIdx.x % warp_size == 0 && v != 0) atomic_add_count(s, v);
}

// Setup (Alg. 3 lines 2-4): the sort key of each row (row_key: its hash bin, the wide dense bin
// `nbins`, nbins + 1 for a row without products, nbins + 2 for a heavy row; row_lo and row_hi, the
// columns its products span, null without wide dense rows, which take windows of `window` columns
// and walk at most dense_wide_walk_cap(p, *walk_total, sm_count) products: walk_total null, the
// fixed Params::wide_max_walk) and ids[r] = r. Tallies (row_tally_count(nbins) counters): rows per
// key, then the products of all rows, the heavy rows' products, the heavy rows' entries of A, the
// wide dense rows' products and the widest span of a wide dense row. One sort by key and one read of
// the tallies give the light rows' bins, the heavy rows (last, in order), the batch sizes, the wide
// dense rows' launch and the product map's size.
// row_nnz[r] = 0 (the light rows write their counts, the heavy rows' chunks add theirs: one memset less).
static __global__ void row_classes_kernel(count_t m, const count_t* __restrict__ products, const count_t* __restrict__ a_ptr,
                                          const count_t* __restrict__ row_lo, const count_t* __restrict__ row_hi, Params p, int nbins,
                                          count_t window, const count_t* __restrict__ walk_total, int sm_count, unsigned* __restrict__ keys,
                                          count_t* __restrict__ ids, count_t* __restrict__ tallies, count_t* __restrict__ row_nnz) {
    __shared__ count_t s[max_tallies];
    __shared__ unsigned rows_by_key[max_tallies];
    const int nt = row_tally_count(nbins);
    clear_keyed(rows_by_key, nbins + 3);
    clear_tallies(s, nt);
    const count_t walk_cap = dense_wide_walk_cap(p, walk_total != nullptr ? *walk_total : 0, walk_total != nullptr ? sm_count : 0);
    const count_t r = blockIdx.x * static_cast<count_t>(blockDim.x) + threadIdx.x;
    count_t pr = 0, heavy_pr = 0, heavy_ent = 0, wide_pr = 0, wide_span = 0;
    if (r < m) {
        pr = products[r];
        const count_t span = row_lo != nullptr && pr > 0 ? row_hi[r] - row_lo[r] + 1 : 0;
        const unsigned key = row_key(pr, span, p, nbins, window, walk_cap);
        keys[r] = key;
        ids[r] = r;
        row_nnz[r] = 0;
        atomicAdd(&rows_by_key[key], 1u);
        if (key == static_cast<unsigned>(nbins + 2)) {
            heavy_pr = pr;
            heavy_ent = a_ptr[r + 1] - a_ptr[r];
        }
        if (key == static_cast<unsigned>(nbins)) {
            wide_pr = pr;
            wide_span = span;
        }
    }
    warp_tally(&s[nbins + 3], pr);
    warp_tally(&s[nbins + 4], heavy_pr);
    warp_tally(&s[nbins + 5], heavy_ent);
    warp_tally(&s[nbins + 6], wide_pr);
    wide_span = warp_reduce(wide_span, [](count_t x, count_t y) { return max_c(x, y); });
    if (threadIdx.x % warp_size == 0 && wide_span != 0) atomic_max_count(&s[nt - 1], wide_span);
    move_keyed(rows_by_key, nbins + 3, s);
    flush_tallies(s, nt - 1, tallies);  // the sums; then the widest span
    if (threadIdx.x == 0 && s[nt - 1] != 0) atomic_max_count(&tallies[nt - 1], s[nt - 1]);
}

// Segment bin keys: hash bins, then the dense bin (nbins), then empty (nbins + 1); bin_counts
// (nbins + 2) counts the segments of each key.
// seg_nnz[t] = 0 (the accumulation adds the segments' counts: a memset less).
static __global__ void segment_bin_keys_kernel(count_t n, const Segment* __restrict__ segs, Params p, int nbins, unsigned* __restrict__ keys,
                                        count_t* __restrict__ ids, count_t* __restrict__ bin_counts, count_t* __restrict__ seg_nnz) {
    __shared__ count_t s[max_tallies];
    __shared__ unsigned segs_by_key[max_tallies];
    clear_keyed(segs_by_key, nbins + 2);
    clear_tallies(s, nbins + 2);
    const count_t t = blockIdx.x * static_cast<count_t>(blockDim.x) + threadIdx.x;
    if (t < n) {
        const count_t size = segs[t].end - segs[t].begin;
        unsigned key;
        if (size == 0) key = static_cast<unsigned>(nbins + 1);
        else if (chunk_is_dense(size, segs[t].span_log2, p)) key = static_cast<unsigned>(nbins);
        else key = static_cast<unsigned>(hash_bin(size));
        keys[t] = key;
        ids[t] = t;
        seg_nnz[t] = 0;
        atomicAdd(&segs_by_key[key], 1u);
    }
    move_keyed(segs_by_key, nbins + 2, s);
    flush_tallies(s, nbins + 2, bin_counts);
}

// ------------------------------------------------------------------ masked CSR -> CSC of heavy rows
// For heavy row h of the batch writes its A entries t = entry_ptr[h] + (j - a_ptr[r]): key = column
// when B's row is nonempty, else `mask_key` (sorted last, dropped: the masked B̃ of the paper),
// ent_h = h, ent_j = j (A position), ent_t = t (the sort's values).
template <class I>
static __global__ void heavy_entries_kernel(count_t nh, const count_t* __restrict__ heavy_rows, const count_t* __restrict__ a_ptr,
                                     const I* __restrict__ a_col, const count_t* __restrict__ b_ptr, const count_t* __restrict__ entry_ptr,
                                     count_t mask_key, count_t* __restrict__ keys, count_t* __restrict__ ent_h, count_t* __restrict__ ent_j,
                                     count_t* __restrict__ ent_t) {
    const count_t h = (blockIdx.x * static_cast<count_t>(blockDim.x) + threadIdx.x) / warp_size;
    const int lane = threadIdx.x % warp_size;
    if (h >= nh) return;
    const count_t r = heavy_rows[h];
    const count_t out = entry_ptr[h];
    for (count_t j = a_ptr[r] + lane; j < a_ptr[r + 1]; j += warp_size) {
        const count_t k = static_cast<count_t>(a_col[j]);
        const count_t t = out + (j - a_ptr[r]);
        keys[t] = b_ptr[k + 1] > b_ptr[k] ? k : mask_key;
        ent_h[t] = h;
        ent_j[t] = j;
        ent_t[t] = t;
    }
}

// After the stable sort by column: CSC rows (batch-local heavy index) and the A entry of each kept
// position (*n_kept of the n sorted ones: the count stays on the device). The pattern part of the
// CSC, kept by the plan with the sorted keys (each position's column); gather_values_kernel fills in
// the values of each numeric phase.
static __global__ void csc_gather_kernel(count_t n, const count_t* __restrict__ n_kept, const count_t* __restrict__ sorted_t, const count_t* __restrict__ ent_h,
                                  const count_t* __restrict__ ent_j, count_t* __restrict__ csc_row, count_t* __restrict__ csc_src) {
    const count_t x = blockIdx.x * static_cast<count_t>(blockDim.x) + threadIdx.x;
    if (x >= n || x >= *n_kept) return;
    const count_t t = sorted_t[x];
    csc_row[x] = ent_h[t];
    csc_src[x] = ent_j[t];
}

// out[x] = values[src[x]] for x < min(n, *n_kept).
template <class V>
static __global__ void gather_values_kernel(count_t n, const count_t* __restrict__ n_kept, const count_t* __restrict__ src, const V* __restrict__ values,
                                            V* __restrict__ out) {
    const count_t x = blockIdx.x * static_cast<count_t>(blockDim.x) + threadIdx.x;
    if (x >= n || x >= *n_kept) return;
    out[x] = values[src[x]];
}

// lengths[h] = nnz of heavy row h of A; thread 0 also zeroes the first offsets of two scans
// (zero0[0], zero1[0], when given), and with `rows_out` (a batch's build) rows_out[h] = rows[h],
// rows_out[nh + h] = rows_out[2 nh + h] = 0: the multisplit's first input rows and column bases,
// and the outer product's cursors (a copy and two memsets less).
static __global__ void row_lengths_kernel(count_t nh, const count_t* __restrict__ rows, const count_t* __restrict__ a_ptr, count_t* __restrict__ lengths,
                                          count_t* __restrict__ zero0, count_t* __restrict__ zero1, count_t* __restrict__ rows_out) {
    const count_t h = blockIdx.x * static_cast<count_t>(blockDim.x) + threadIdx.x;
    if (h == 0 && zero0 != nullptr) *zero0 = *zero1 = 0;
    if (h >= nh) return;
    const count_t r = rows[h];
    lengths[h] = a_ptr[r + 1] - a_ptr[r];
    if (rows_out != nullptr) {
        rows_out[h] = r;
        rows_out[nh + h] = 0;
        rows_out[2 * nh + h] = 0;
    }
}

// col_ptr[k] = first sorted position with key >= k (k in [0, ncols]); slice_sizes[k] = entries * nnz(B[k,:]).
static __global__ void csc_colptr_kernel(count_t ncols, count_t nkept, const count_t* __restrict__ sorted_keys, count_t* __restrict__ col_ptr) {
    const count_t k = blockIdx.x * static_cast<count_t>(blockDim.x) + threadIdx.x;
    if (k > ncols) return;
    count_t lo = 0, hi = nkept;
    while (lo < hi) {
        const count_t mid = lo + (hi - lo) / 2;
        if (sorted_keys[mid] < k) lo = mid + 1;
        else hi = mid;
    }
    col_ptr[k] = lo;
}
// traffic[0] += B entries the outer product reads, traffic[1] += Ã entries (for the speed-of-light
// byte counts, read once at the end of the product). Thread 0 zeroes the first slice offset.
static __global__ void slice_sizes_kernel(count_t ncols, const count_t* __restrict__ col_ptr, const count_t* __restrict__ b_ptr, count_t* __restrict__ sizes,
                                   count_t* __restrict__ traffic, count_t* __restrict__ slice_off0) {
    const count_t k = blockIdx.x * static_cast<count_t>(blockDim.x) + threadIdx.x;
    if (k == 0) {
        atomic_add_count(&traffic[1], col_ptr[ncols]);
        *slice_off0 = 0;
    }
    if (k >= ncols) return;
    const count_t na = col_ptr[k + 1] - col_ptr[k];
    const count_t nb = b_ptr[k + 1] - b_ptr[k];
    sizes[k] = na * nb;
    if (na > 0 && nb > 0) atomic_add_count(&traffic[0], nb);
}

// ------------------------------------------------------------------ element loops
// Thread t visits the elements R.begin + t + k·stride of its block's range in order, UNROLL at a
// time: the loads of a round (load(i), in element order) are all issued before the first result
// is used (use(i, x)), so each thread keeps UNROLL elements' loads in flight instead of one.
template <int UNROLL, class Load, class Use>
__device__ __forceinline__ void for_each_element(Range R, count_t stride, Load load, Use use) {
    using T = decltype(load(count_t{}));
    for (count_t base = R.begin + threadIdx.x; base < R.end; base += UNROLL * stride) {
        T x[UNROLL];
        GIGASPARSE_UNROLL
        for (int u = 0; u < UNROLL; ++u) {
            const count_t i = base + u * stride;
            if (i < R.end) x[u] = load(i);
        }
        GIGASPARSE_UNROLL
        for (int u = 0; u < UNROLL; ++u) {
            const count_t i = base + u * stride;
            if (i < R.end) use(i, x[u]);
        }
    }
}

// for_each_element for whole warps, each element with a slot: every lane runs each round,
// slot_of(i, x) for its valid elements (~0u past R.end), then use(x, slot, valid) for all, so a
// round's warp collectives in use see all 32 lanes and follow the slots' divergent work (the rows'
// cursors) instead of sitting between them, where ptxas spilled (8-byte stack frames in the
// 256-thread histogram kernel); the valid lanes of a round are a prefix of the warp (consecutive
// lanes, consecutive elements). blockDim.x: whole warps.
template <int UNROLL, class Load, class SlotOf, class Use>
__device__ __forceinline__ void for_each_element_slot(Range R, count_t stride, Load load, SlotOf slot_of, Use use) {
    using T = decltype(load(count_t{}));
    const auto lane = static_cast<count_t>(threadIdx.x % warp_size);
    for (count_t base = R.begin + threadIdx.x - lane; base < R.end; base += UNROLL * stride) {  // (the warp's lane 0: uniform)
        T x[UNROLL];
        GIGASPARSE_UNROLL
        for (int u = 0; u < UNROLL; ++u) {
            const count_t i = base + lane + u * stride;
            x[u] = i < R.end ? load(i) : T{};
        }
        unsigned slot[UNROLL];
        GIGASPARSE_UNROLL
        for (int u = 0; u < UNROLL; ++u) {
            const count_t i = base + lane + u * stride;
            slot[u] = i < R.end ? slot_of(i, x[u]) : ~0u;
        }
        GIGASPARSE_UNROLL
        for (int u = 0; u < UNROLL; ++u) {
            const count_t i = base + lane + u * stride;
            use(x[u], slot[u], i < R.end);
        }
    }
}

// hist[slot] += 1 for each valid lane of the warp (all 32 call it), one atomic a run of
// consecutive lanes with the same slot, by its first lane: a GPU's shared atomics on one word
// serialize, a pass a lane, and the multisplit's consecutive elements mostly share their (row,
// chunk) slot — 24.7 lanes of 32 on one word a request on cuda_sim_memory_profile's heavy path,
// in the histogram and the permute alike. With WANT, returns the lane's position: the count before
// its run's atomic plus its rank in the run (runs of one slot in a round take their ranges in the
// atomics' order, as the lanes' atomics did). Invalid lanes (a suffix) pass slot ~0u.
template <bool WANT>
__device__ __forceinline__ unsigned warp_run_add(unsigned* hist, unsigned slot, bool valid) {
    constexpr unsigned all = 0xffffffffu;
    const unsigned lane = threadIdx.x % warp_size;
    const unsigned prev = __shfl_up_sync(all, slot, 1);
    const LaneRun run = lane_run(__ballot_sync(all, lane == 0 || slot != prev), lane);
    unsigned base = 0;
    if (valid && lane == run.start) base = atomicAdd(&hist[slot], run.end - run.start);
    if constexpr (WANT) base = __shfl_sync(all, base, static_cast<int>(run.start)) + (lane - run.start);
    return base;
}

// ------------------------------------------------------------------ outer product (Alg. 4)
// Block g owns flattened elements group_range(g). Its first and one-past-last Ã entries are found
// for every block at once before the outer product (two binary searches over the slices a block;
// in the kernel one thread took them while the rest of the block, alone on its SM, waited).
static __global__ void outer_block_entries_kernel(count_t blocks, count_t total, count_t group_elems, count_t nslices,
                                                  const count_t* __restrict__ slice_off, const count_t* __restrict__ col_ptr,
                                                  const count_t* __restrict__ b_ptr, count_t* __restrict__ entries) {
    const count_t g = blockIdx.x * static_cast<count_t>(blockDim.x) + threadIdx.x;
    if (g >= blocks) return;
    const Range e = outer_block_entries(group_range(g, group_elems, total), slice_off, col_ptr, b_ptr, nslices);
    entries[2 * g] = e.begin;
    entries[2 * g + 1] = e.end;
}

inline constexpr int outer_max_threads = 1024;  // launch bound; Params::outer_threads never exceeds it
inline constexpr int outer_unroll = 4;          // elements per thread with loads in flight (step 3)

// Exclusive max-scan of one value per thread across the block (any multiple of 32 threads);
// warp_max: blockDim.x / 32 words of shared memory. Contains a barrier. The warps before this
// one: lane w reads warp w's maximum, a shuffle reduction combines them (block_exclusive_sum).
__device__ __forceinline__ unsigned block_exclusive_max(unsigned x, unsigned* warp_max) {
    constexpr unsigned all = 0xffffffffu;
    const unsigned lane = threadIdx.x % warp_size, warp = threadIdx.x / warp_size;
    unsigned incl = x;
    for (int o = 1; o < warp_size; o *= 2) {
        const unsigned t = __shfl_up_sync(all, incl, o);
        if (lane >= static_cast<unsigned>(o) && t > incl) incl = t;
    }
    if (lane == warp_size - 1) warp_max[warp] = incl;
    __syncthreads();
    unsigned before = __shfl_up_sync(all, incl, 1);
    if (lane == 0) before = 0;
    unsigned earlier = lane < warp ? warp_max[lane] : 0u;
    for (unsigned o = 1; o < blockDim.x / warp_size; o *= 2) {  // lane l: the maximum of lanes [l, l + 2o)
        const unsigned t = __shfl_down_sync(all, earlier, o);
        if (t > earlier) earlier = t;
    }
    earlier = __shfl_sync(all, earlier, 0);
    return earlier > before ? earlier : before;
}

// Shared memory (outer_smem_bytes): for each Ã entry the block touches (block-local index la) the
// bases of its elements' positions in Ĉ and entries of B (outer_entry), and for each element the la
// of its entry (the owner map, 16 bits). Step 2 reserves each entry's part of Ĉ (one atomic on its
// row's cursor, which counts from zero, past the row's start row_start[h]: the paper shifts the row
// pointer in place, and zeroed cursors need no copy of the row starts) and marks the entry's first element in
// the map; a block-wide max-scan fills the map forward; step 3 then writes consecutive elements to
// consecutive positions of Ĉ with two shared loads, three global loads and no search or division
// per element (the paper's GetAEntry/GetBEntry per element: a division, and a search for the slice
// of each element, whose dependent loads held this kernel to a third of the copy bandwidth on the
// H200 at git 1a6f884).
template <class V, class I>
static __global__ void __launch_bounds__(outer_max_threads) outer_product_kernel(count_t total, count_t group_elems, unsigned owner_run, const count_t* __restrict__ block_entries,
                                     const count_t* __restrict__ slice_off, const count_t* __restrict__ col_ptr, const count_t* __restrict__ csc_col,
                                     const count_t* __restrict__ csc_row, const V* __restrict__ csc_val,
                                     const count_t* __restrict__ b_ptr, const I* __restrict__ b_col, const V* __restrict__ b_val,
                                     const count_t* __restrict__ row_start, count_t* __restrict__ cursor, I* __restrict__ out_col,
                                     V* __restrict__ out_val) {
    GIGASPARSE_DYNAMIC_SHARED(smem_raw);
    count_t* dest_base = reinterpret_cast<count_t*>(smem_raw);
    count_t* b_base = dest_base + group_elems;
    std::uint16_t* owner = reinterpret_cast<std::uint16_t*>(b_base + group_elems);
    __shared__ unsigned warp_max[outer_max_threads / warp_size];
    const Range R = group_range(blockIdx.x, group_elems, total);
    const count_t a_begin = block_entries[2 * blockIdx.x], a_end = block_entries[2 * blockIdx.x + 1];
    // each thread's run of the owner map (outer_owner_run: at least group_elems / blockDim.x, and
    // free of bank conflicts): cleared, then filled forward after the marks
    const unsigned n = static_cast<unsigned>(R.end - R.begin);
    const unsigned per = owner_run;
    const unsigned p0 = static_cast<unsigned>(min_c(n, count_t(threadIdx.x) * per)), p1 = static_cast<unsigned>(min_c(n, count_t(p0) + per));
    for (unsigned p = p0; p < p1; ++p) owner[p] = 0;
    __syncthreads();
    // step 2: reserve each Ã entry's elements of Ĉ, keep its bases, mark its first element
    for (count_t ai = a_begin + threadIdx.x; ai < a_end; ai += blockDim.x) {
        const count_t k = csc_col[ai];
        const count_t b0 = b_ptr[k], nb = b_ptr[k + 1] - b0;
        const OuterEntry e = outer_entry(slice_off[k] + (ai - col_ptr[k]) * nb, nb, b0, R);
        const count_t la = ai - a_begin;
        const count_t h = csc_row[ai];
        dest_base[la] = row_start[h] + atomic_add_count(&cursor[h], e.count) - e.first;
        b_base[la] = e.b_base;
        owner[e.first - R.begin] = static_cast<std::uint16_t>(la);
    }
    __syncthreads();
    unsigned run = 0;
    for (unsigned p = p0; p < p1; ++p)
        if (owner[p] > run) run = owner[p];
    unsigned la = block_exclusive_max(run, warp_max);
    for (unsigned p = p0; p < p1; ++p) {
        if (owner[p] > la) la = owner[p];
        owner[p] = static_cast<std::uint16_t>(la);
    }
    __syncthreads();
    // step 3: consecutive flattened elements -> consecutive elements of Ĉ, the loads of
    // outer_unroll elements issued before the first is stored
    struct Product {
        count_t dest;
        I col;
        V val;
    };
    const auto load = [&](count_t i) {
        const unsigned a = owner[i - R.begin];
        const count_t q = b_base[a] + i;
        return Product{dest_base[a] + i, b_col[q], csc_val[a_begin + a] * b_val[q]};
    };
    for_each_element<outer_unroll>(R, blockDim.x, load, [&](count_t, const Product& x) {
        out_col[x.dest] = x.col;
        out_val[x.dest] = x.val;
    });
}

// ------------------------------------------------------------------ block scan over a shared array
// Exclusive prefix sum in place over n counters visited in order f(0..n): each thread scans a
// contiguous run, cub::BlockScan combines the run totals.
template <int THREADS, class T, class Map>
__device__ void block_exclusive_scan(T* data, count_t n, Map f, typename cub::BlockScan<T, THREADS>::TempStorage& tmp) {
    const count_t per = ceil_div(n, THREADS);
    const count_t b = min_c(n, threadIdx.x * per), e = min_c(n, b + per);
    T sum = 0;
    for (count_t v = b; v < e; ++v) sum += data[f(v)];
    T prefix;
    cub::BlockScan<T, THREADS>(tmp).ExclusiveSum(sum, prefix);
    __syncthreads();
    for (count_t v = b; v < e; ++v) {
        const T x = data[f(v)];
        data[f(v)] = prefix;
        prefix += x;
    }
    __syncthreads();
}

// ------------------------------------------------------------------ small device-wide scans
// A prefix sum of n <= small_scan_max counts by one block (one launch, where a CUB device scan
// takes two: its tile states' initialization, then the scan; the setup's and the light rows' scans
// of a small product are launch latency): with x[i] = in[idx[i]] (in[i] without idx),
// out[i] = x[0] + ... + x[i] (INCLUSIVE) or the sum before i. Warp w takes the small_warp_span
// counts from w·small_warp_span, lane l those at u·32 + l of them (u < small_scan_items): each load
// and store of a warp covers 32 consecutive counts, where a thread's run of small_scan_items
// consecutive counts put its lanes 128 bytes apart, a cache line each (32 a request; 29 sectors a
// request, 0.25 of their bytes used: cuda_sim_memory_profile); the warp scans its counts round by
// round with shuffles, a block scan of the warps' totals places them. Without idx, in and out may
// be one array (each count is read and written by the same thread, a tile after the one before).
// Tiles of small_scan_tile_counts (8 rounds: 16 held 32 registers of counts, and
// small_finish_kernel spilled on sm_80); one launch scans up to small_scan_max counts, two tiles.
inline constexpr int small_scan_threads = 512, small_scan_items = 8;
inline constexpr count_t small_scan_tile_counts = count_t{small_scan_threads} * small_scan_items;
inline constexpr count_t small_scan_max = 2 * small_scan_tile_counts;
inline constexpr count_t small_warp_span = count_t{warp_size} * small_scan_items;
// One tile of such a scan (n <= small_scan_tile_counts counts), each offset by `carry`; returns the
// tile's total. The block's threads all call it; tmp may be reused after it returns.
template <bool INCLUSIVE>
__device__ __forceinline__ count_t small_scan_tile(const count_t* in, const count_t* __restrict__ idx, count_t* out, count_t n, count_t carry,
                                                   typename cub::BlockScan<count_t, small_scan_threads>::TempStorage& tmp) {
    constexpr unsigned all = 0xffffffffu;
    const unsigned lane = threadIdx.x % warp_size;
    const count_t first = static_cast<count_t>(threadIdx.x / warp_size) * small_warp_span + lane;
    count_t x[small_scan_items];
    GIGASPARSE_UNROLL
    for (int u = 0; u < small_scan_items; ++u) {
        const count_t i = first + u * warp_size;
        x[u] = i < n ? in[idx ? idx[i] : i] : 0;
    }
    count_t run = 0;  // the warp's counts before round u
    GIGASPARSE_UNROLL
    for (int u = 0; u < small_scan_items; ++u) {
        count_t incl = x[u];
        for (int o = 1; o < warp_size; o *= 2) {
            const count_t t = __shfl_up_sync(all, incl, o);
            if (lane >= static_cast<unsigned>(o)) incl += t;
        }
        x[u] = run + (INCLUSIVE ? incl : incl - x[u]);
        run += __shfl_sync(all, incl, warp_size - 1);
    }
    count_t before = 0, total = 0;  // the warps before this one (only their last lanes count)
    cub::BlockScan<count_t, small_scan_threads>(tmp).ExclusiveSum(lane == warp_size - 1 ? run : count_t(0), before, total);
    GIGASPARSE_UNROLL
    for (int u = 0; u < small_scan_items; ++u) {
        const count_t i = first + u * warp_size;
        if (i < n) out[i] = carry + before + x[u];
    }
    __syncthreads();  // tmp read by every thread (the total) before a next tile writes it
    return total;
}
template <bool INCLUSIVE>
static __global__ void __launch_bounds__(small_scan_threads) small_scan_kernel(const count_t* in, const count_t* __restrict__ idx, count_t* out,
                                                                                count_t n) {
    __shared__ typename cub::BlockScan<count_t, small_scan_threads>::TempStorage tmp;
    count_t carry = 0;
    for (count_t t0 = 0; t0 < n; t0 += small_scan_tile_counts)
        carry += small_scan_tile<INCLUSIVE>(in + (idx ? 0 : t0), idx ? idx + t0 : nullptr, out + t0, min_c(n - t0, small_scan_tile_counts), carry, tmp);
}

// ------------------------------------------------------------------ hierarchical multisplit (Alg. 5)
struct LevelArgs {
    count_t total;        // elements of the level's input
    count_t n_in;         // input rows
    count_t group_elems;  // per block
    count_t group_rows;   // n_groupRows
    int chunks_log2;      // v_chunks[level]
    int sub_log2;         // column span of the output chunks
};

// The input row of a thread's increasing element positions, from the block's first row r0: the
// row's end stays in a register, so an element in the same row as the previous one costs no load.
struct RowCursor {
    const count_t* __restrict__ ptr;
    count_t r, end;
    __device__ __forceinline__ RowCursor(const count_t* __restrict__ in_ptr, count_t r0) : ptr(in_ptr), r(r0), end(in_ptr[r0 + 1]) {}
    __device__ __forceinline__ count_t row_of(count_t i) {
        while (i >= end) end = ptr[++r + 1];
        return r;
    }
};

// The multisplit's element loops keep 16 KB of input loads in flight an SM (one block an SM: its
// shared memory), at least 4 elements a thread: with the default 256 threads 64 bytes a thread, 16
// columns of the histogram pass and 8 column-value pairs of the permute (float, int32). A plain
// strided loop, with shared atomics between its loads, has one load per thread in flight — 1 KB an
// SM at 256 threads, where the H200's bandwidth-latency product is some 25 KB an SM; 4 elements a
// thread (4 and 8 KB an SM) held the first H200 run to a quarter of the copy bandwidth. The launch
// bound (one block an SM) leaves the registers for it; 1024-thread blocks (64 registers) keep 4.
template <int THREADS, class... T>
inline constexpr int multisplit_unroll = static_cast<int>(max_c(4, 16384 / THREADS / static_cast<int>((sizeof(T) + ...))));

// The block's warp-private histograms of (local row, chunk) over its elements R (the histogram
// kernel's, and the multisplit kernel's first pass): zeroed, then every element counted; or, with
// counted (the histogram kernel's copy of the whole level's, slots × warps words a block), this
// block's copied. Returns the block's first row (found by thread 0 through s_r0); ends with a barrier.
template <int THREADS, class I>
__device__ __forceinline__ count_t block_histogram(const LevelArgs& L, Range R, const count_t* __restrict__ in_ptr, const I* __restrict__ in_col,
                                                   unsigned* hist, count_t& s_r0, const unsigned* __restrict__ counted = nullptr) {
    constexpr int warps = THREADS / warp_size;
    const count_t slots = L.group_rows << L.chunks_log2;
    for (count_t s = threadIdx.x; s < slots * warps; s += THREADS) hist[s] = counted ? counted[blockIdx.x * slots * warps + s] : 0u;
    if (threadIdx.x == 0) s_r0 = find_owner(in_ptr, L.n_in, R.begin);
    __syncthreads();
    const count_t r0 = s_r0;
    if (counted) return r0;
    const int warp = threadIdx.x / warp_size;
    RowCursor rows(in_ptr, r0);
    for_each_element_slot<multisplit_unroll<THREADS, I>>(
        R, THREADS, [&](count_t i) { return in_col[i]; },
        [&](count_t i, I col) {
            return static_cast<unsigned>(warp_slot(warp, local_slot(rows.row_of(i) - r0, chunk_of(static_cast<count_t>(col), L.sub_log2), L.chunks_log2), slots));
        },
        [&](I, unsigned slot, bool valid) { warp_run_add<false>(hist, slot, valid); });
    __syncthreads();
    return r0;
}

// Histogram kernel: per-block warp-private histograms of (local row, chunk), flushed to counts[];
// with block_hist, also copied there whole (slots × warps words a block), so that the level's
// multisplit kernel reads them instead of counting the level's columns again.
template <int THREADS, class I>
static __global__ void __launch_bounds__(THREADS) histogram_kernel(LevelArgs L, const count_t* __restrict__ in_ptr, const I* __restrict__ in_col,
                                                            count_t* __restrict__ counts, unsigned* __restrict__ block_hist) {
    GIGASPARSE_DYNAMIC_SHARED(smem_raw);
    unsigned* hist = reinterpret_cast<unsigned*>(smem_raw);
    __shared__ count_t s_r0;
    constexpr int warps = THREADS / warp_size;
    const count_t slots = L.group_rows << L.chunks_log2;
    const Range R = group_range(blockIdx.x, L.group_elems, L.total);
    const count_t r0 = block_histogram<THREADS>(L, R, in_ptr, in_col, hist, s_r0);
    if (block_hist)
        for (count_t s = threadIdx.x; s < slots * warps; s += THREADS) block_hist[blockIdx.x * slots * warps + s] = hist[s];
    const count_t nchunks = count_t(1) << L.chunks_log2;
    for (count_t s = threadIdx.x; s < slots; s += THREADS) {
        count_t t = 0;
        for (int w = 0; w < warps; ++w) t += hist[w * slots + s];
        const count_t lr = s >> L.chunks_log2;
        if (t > 0) atomic_add_count(&counts[global_chunk(r0 + lr, s & (nchunks - 1), L.chunks_log2)], t);
    }
}

// Multisplit kernel: local histogram (counted, or with block_hist the histogram kernel's copy of it:
// one read of the level's columns less), global reservation per (row, chunk), local scan, permute
// in shared memory, coalesced writes of each chunk run. pos[] maps a global chunk id to its output
// row (heavy chunks first); cursor[] counts each output row's reserved elements from zero (a
// range starts at out_ptr[row] + the cursor: zeroed with the level's counts in a build, one array
// for the outer product and every level in a rebuild).
// One block per SM (its shared memory; the launch bound says so: with the block size alone ptxas,
// nvcc 13 / sm_90, held the 512-thread kernel to 32 registers and spilled).
template <int THREADS, class V, class I>
static __global__ void __launch_bounds__(THREADS, 1) multisplit_kernel(LevelArgs L, const count_t* __restrict__ in_ptr, const I* __restrict__ in_col,
                                                             const V* __restrict__ in_val, const count_t* __restrict__ pos, const count_t* __restrict__ out_ptr,
                                                             count_t* __restrict__ cursor, I* __restrict__ out_col, V* __restrict__ out_val,
                                                             const unsigned* __restrict__ block_hist) {
    GIGASPARSE_DYNAMIC_SHARED(smem_raw);
    constexpr int warps = THREADS / warp_size;
    const count_t slots = L.group_rows << L.chunks_log2;
    // layout (eq. 5): offsets_global[slots] (count_t), col_buf[group_elems] (I), val_buf[group_elems] (V),
    // hist[slots * warps + 1] (unsigned); group_elems is a multiple of THREADS, so every part stays aligned
    count_t* offsets_global = reinterpret_cast<count_t*>(smem_raw);
    I* col_buf = reinterpret_cast<I*>(offsets_global + slots);
    V* val_buf = reinterpret_cast<V*>(col_buf + L.group_elems);
    unsigned* hist = reinterpret_cast<unsigned*>(val_buf + L.group_elems);
    __shared__ count_t s_r0;
    __shared__ typename cub::BlockScan<unsigned, THREADS>::TempStorage scan_tmp;
    const Range R = group_range(blockIdx.x, L.group_elems, L.total);
    const count_t r0 = block_histogram<THREADS>(L, R, in_ptr, in_col, hist, s_r0, block_hist);
    const int warp = threadIdx.x / warp_size;
    // reserve global ranges (one atomic per nonempty (row, chunk) of the block)
    const count_t nchunks = count_t(1) << L.chunks_log2;
    for (count_t s = threadIdx.x; s < slots; s += THREADS) {
        count_t t = 0;
        for (int w = 0; w < warps; ++w) t += hist[w * slots + s];
        if (t > 0) {
            const count_t o = pos[global_chunk(r0 + (s >> L.chunks_log2), s & (nchunks - 1), L.chunks_log2)];
            offsets_global[s] = out_ptr[o] + atomic_add_count(&cursor[o], t);
        }
    }
    __syncthreads();
    // local offsets: slot-major scan over the warp-major histograms
    block_exclusive_scan<THREADS>(hist, slots * warps, [slots](count_t v) { return scan_order_to_storage(v, warps, slots); }, scan_tmp);
    // permute into shared memory
    struct Element {
        I col;
        V val;
    };
    RowCursor rows(in_ptr, r0);
    for_each_element_slot<multisplit_unroll<THREADS, I, V>>(
        R, THREADS, [&](count_t i) { return Element{in_col[i], in_val[i]}; },
        [&](count_t i, const Element& e) {
            return static_cast<unsigned>(warp_slot(warp, local_slot(rows.row_of(i) - r0, chunk_of(static_cast<count_t>(e.col), L.sub_log2), L.chunks_log2), slots));
        },
        [&](const Element& e, unsigned slot, bool valid) {
            const unsigned d = warp_run_add<true>(hist, slot, valid);
            if (valid) {
                col_buf[d] = e.col;
                val_buf[d] = e.val;
            }
        });
    __syncthreads();
    // coalesced writes: buffer position j keeps the row of input element R.begin + j; after the
    // permute, the counter of (slot s-1, last warp) holds the start of slot s
    rows = RowCursor(in_ptr, r0);
    for (count_t j = threadIdx.x; j < R.end - R.begin; j += THREADS) {
        const count_t col = static_cast<count_t>(col_buf[j]);
        const count_t s = local_slot(rows.row_of(R.begin + j) - r0, chunk_of(col, L.sub_log2), L.chunks_log2);
        const count_t start = s == 0 ? 0 : hist[scan_order_to_storage(s * warps - 1, warps, slots)];
        const count_t dest = offsets_global[s] + j - start;
        out_col[dest] = static_cast<I>(col_in_chunk(col, L.sub_log2));
        out_val[dest] = val_buf[j];
    }
}

// Output rows of a level (in heavy-first order): pos[], permuted sizes and metadata; thread 0
// zeroes the first output offset (out_ptr0).
static __global__ void level_order_kernel(count_t n_out, const count_t* __restrict__ order, const count_t* __restrict__ counts,
                                   const count_t* __restrict__ in_row, const count_t* __restrict__ in_base, int chunks_log2, int sub_log2,
                                   count_t* __restrict__ pos, count_t* __restrict__ sizes, count_t* __restrict__ out_row, count_t* __restrict__ out_base,
                                   count_t* __restrict__ out_ptr0) {
    const count_t o = blockIdx.x * static_cast<count_t>(blockDim.x) + threadIdx.x;
    if (o == 0) *out_ptr0 = 0;
    if (o >= n_out) return;
    const count_t q = order[o];
    pos[q] = o;
    sizes[o] = counts[q];
    out_row[o] = in_row[q >> chunks_log2];
    out_base[o] = in_base[q >> chunks_log2] + ((q & ((count_t(1) << chunks_log2) - 1)) << sub_log2);
}

// What the host needs for the next level, in one copy: split[0] = the split chunks (the partition's
// count), split[1] = their elements (where the split prefix of the scanned sizes ends).
static __global__ void level_split_kernel(count_t* __restrict__ split, const count_t* __restrict__ out_ptr) { split[1] = out_ptr[split[0]]; }

static __global__ void split_flags_kernel(count_t n, const count_t* __restrict__ counts, int sub_log2, Params p, char* __restrict__ flags,
                                   count_t* __restrict__ ids) {
    const count_t q = blockIdx.x * static_cast<count_t>(blockDim.x) + threadIdx.x;
    if (q >= n) return;
    flags[q] = accum_kind(counts[q], sub_log2, p) == AccumKind::split;
    ids[q] = q;
}

// Segments [first, n_out) of a level's output rows.
static __global__ void make_segments_kernel(count_t first, count_t n_out, const count_t* __restrict__ out_ptr, const count_t* __restrict__ row,
                                     const count_t* __restrict__ base, int buffer, int span_log2, Segment* __restrict__ segs) {
    const count_t o = first + blockIdx.x * static_cast<count_t>(blockDim.x) + threadIdx.x;
    if (o >= n_out) return;
    segs[o - first] = Segment{out_ptr[o], out_ptr[o + 1], row[o], base[o], buffer, span_log2};
}

// ------------------------------------------------------------------ accumulation (§III-E)
// symbolic: counts; numeric: sorted entries at C's row offsets; once (light rows of a one-call
// product): both in one pass, each row counted and its sorted entries staged at its products'
// offset of a staging buffer (C's row offsets are not known yet), moved into C by
// unstage_rows_kernel in the numeric phase; known (a plan's numeric phase after its first): C's
// columns are known (kept from the first), so the table is filled with them, the products only
// add to their column's slot, and each entry's value is read back in C's order: no count,
// compaction or sort.
enum class Phase { symbolic, numeric, once, known };
GIGASPARSE_HD constexpr bool has_values(Phase p) { return p != Phase::symbolic; }

// Shared-memory hash table (power-of-two capacity, linear probing): every probe is one atomicCAS
// (no plain reads racing with the CAS of other threads: racecheck-clean). Counts new keys.
template <Phase P, class V, class I>
__device__ __forceinline__ void hash_insert(I* keys, V* vals, count_t cap, I key, V v, unsigned* n_unique) {
    std::uint32_t s = hash_slot(static_cast<count_t>(key), cap);
    while (true) {
        const I k = atomic_cas_index(&keys[s], I(-1), key);
        if (k == I(-1) || k == key) {
            if (k == I(-1)) atomicAdd(n_unique, 1u);
            if constexpr (has_values(P)) atomicAdd(&vals[s], v);
            return;
        }
        s = next_probe(s, cap);
    }
}

// The slot of a key the table holds (Phase::known: the table holds the row's or chunk's columns of
// C, and every product's column is one of them: the plan's own copies of A's and B's patterns are
// those of its symbolic phase). The probes are plain reads: no key is written after the table is
// filled. The bound only keeps a corrupted table from hanging the kernel.
template <class I>
__device__ __forceinline__ std::uint32_t hash_find(const I* keys, count_t cap, I key) {
    std::uint32_t s = hash_slot(static_cast<count_t>(key), cap);
    for (count_t probe = 1; probe < cap && keys[s] != key; ++probe) s = next_probe(s, cap);
    return s;
}

// A product's value into the table: Phase::known adds it to its column's slot; the others insert
// the column (counting new ones) and, with values, add it.
template <Phase P, class V, class I>
__device__ __forceinline__ void accumulate(I* keys, V* vals, count_t cap, I key, V v, unsigned* n_unique) {
    if constexpr (P == Phase::known) atomicAdd(&vals[hash_find(keys, cap, key)], v);
    else hash_insert<P>(keys, vals, cap, key, v, n_unique);
}

// Packed tables (GpuSpgemmOptions::packed_tables; float values with 32-bit columns, in the phases
// that insert values: numeric and once): one 64-bit word a slot, the column in its high half and the
// value's bits in its low half, in the bytes a slot's key and value take (same capacity and shared
// memory). Empty: every bit set (no column is I(-1)). A float atomicAdd on shared memory is a
// compare-and-swap loop (SASS: ATOMS.CAST.SPIN on sm_80/90/100), so a split slot costs the key's CAS
// and the value's load and CAS; a packed slot one CAS for a new column and two for a column it holds.
// The compaction and the sort then move one 8-byte word an entry where they moved a key and a value
// (half the shared loads and stores of the bitonic steps; the same bytes), and its order is the
// columns' (distinct columns in the high half). The table functions below take either layout: keys
// and vals, or the words as keys and NoValue as vals (never read).
struct NoValue {};
using packed_word = unsigned long long;
inline constexpr packed_word packed_empty = ~packed_word{0};
template <class TV>
inline constexpr bool table_has_values = !std::is_same_v<TV, NoValue>;
template <Phase P, class V, class I>
inline constexpr bool table_packs = has_values(P) && P != Phase::known && std::is_same_v<V, float> && sizeof(I) == 4;
__device__ __forceinline__ packed_word pack_entry(std::uint32_t key, float v) {
    std::uint32_t bits;
    memcpy(&bits, &v, sizeof(bits));
    return packed_word{key} << 32 | bits;
}
__device__ __forceinline__ float packed_value(packed_word w) {
    const auto bits = static_cast<std::uint32_t>(w);
    float v;
    memcpy(&v, &bits, sizeof(v));
    return v;
}
// An entry's column (without the chunk's base) and value, from slot i of either layout.
template <class K>
__device__ __forceinline__ count_t table_col(K k) {
    if constexpr (std::is_same_v<K, packed_word>) return static_cast<count_t>(k >> 32);
    else return static_cast<count_t>(k);
}
// What the sort compares: a split table's key as unsigned (empty, I(-1), last), a packed word's high
// half — its column, distinct within a table (the empty padding all ones, last): one 32-bit compare
// where the whole word took two.
template <class K>
__device__ __forceinline__ auto sort_key(K k) {
    if constexpr (std::is_same_v<K, packed_word>) return static_cast<std::uint32_t>(k >> 32);
    else return static_cast<std::make_unsigned_t<K>>(k);
}
template <class V, class K, class TV>
__device__ __forceinline__ V table_val(const K* keys, const TV* vals, unsigned i) {
    if constexpr (table_has_values<TV>) return vals[i];
    else return static_cast<V>(packed_value(keys[i]));
}

// A product into a packed table: a CAS of the empty word to (key, v) takes a new column; where the
// slot holds the key, a CAS of the word it returned to the word with the sum (again while another
// lane's add changed it); other columns probe on. Every access is an atomicCAS (racecheck-clean).
template <Phase P, class I>
__device__ __forceinline__ void hash_insert(packed_word* words, NoValue*, count_t cap, I key, float v, unsigned* n_unique) {
    static_assert(sizeof(I) == 4 && has_values(P), "packed tables: 32-bit columns, with values");
    const auto k = static_cast<std::uint32_t>(key);
    std::uint32_t s = hash_slot(static_cast<count_t>(key), cap);
    while (true) {
        packed_word w = atomicCAS(&words[s], packed_empty, pack_entry(k, v));
        if (w == packed_empty) {
            atomicAdd(n_unique, 1u);
            return;
        }
        while (static_cast<std::uint32_t>(w >> 32) == k) {
            const packed_word seen = w;
            w = atomicCAS(&words[s], seen, pack_entry(k, packed_value(seen) + v));
            if (w == seen) return;
        }
        s = next_probe(s, cap);
    }
}
template <Phase P, class I>
__device__ __forceinline__ void accumulate(packed_word* words, NoValue* none, count_t cap, I key, float v, unsigned* n_unique) {
    hash_insert<P>(words, none, cap, key, v, n_unique);
}

// Inclusive sum of x over the lanes of the warp up to this one (every lane calls it).
__device__ __forceinline__ unsigned warp_inclusive_sum(unsigned x) {
    const unsigned lane = threadIdx.x % warp_size;
    for (int o = 1; o < warp_size; o *= 2) {
        const unsigned t = __shfl_up_sync(0xffffffffu, x, o);
        if (lane >= static_cast<unsigned>(o)) x += t;
    }
    return x;
}

// Exclusive sum of one value per thread across the block (any multiple of 32 threads, at most 1024),
// and the block's total; warp_sums: blockDim.x / 32 words of shared memory. Two barriers: the
// words may be reused after it returns. The warps' sums: in a block of up to block_scan_loop_warps
// warps each lane loads them all (a warp request each); in a wider one lane w loads warp w's and
// the warp scans them with shuffles, log2(warps) steps and two broadcasts — 8 requests a warp for
// 32 warps where the loop took 32 (cuda_sim_memory_profile: the loop's loads were 163 K of the light
// rows' 1.35 M shared-load requests, more than their dense accumulation's atomics).
inline constexpr unsigned block_scan_loop_warps = 4;
__device__ __forceinline__ unsigned block_exclusive_sum(unsigned x, unsigned* warp_sums, unsigned& total) {
    const unsigned lane = threadIdx.x % warp_size, warp = threadIdx.x / warp_size, nwarps = blockDim.x / warp_size;
    const unsigned incl = warp_inclusive_sum(x);
    if (lane == warp_size - 1) warp_sums[warp] = incl;
    __syncthreads();
    unsigned before = incl - x;
    if (nwarps <= block_scan_loop_warps) {
        total = 0;
        for (unsigned w = 0; w < nwarps; ++w) {
            if (w < warp) before += warp_sums[w];
            total += warp_sums[w];
        }
    } else {
        unsigned sums = lane < nwarps ? warp_sums[lane] : 0u;  // lane w: warps 0..w
        for (unsigned o = 1; o < nwarps; o *= 2) {
            const unsigned t = __shfl_up_sync(0xffffffffu, sums, o);
            if (lane >= o) sums += t;
        }
        total = __shfl_sync(0xffffffffu, sums, static_cast<int>(nwarps - 1));
        const unsigned earlier = __shfl_sync(0xffffffffu, sums, static_cast<int>(warp == 0 ? 0 : warp - 1));
        if (warp > 0) before += earlier;
    }
    __syncthreads();
    return before;
}

// The threads that share one hash table: a whole block, or one warp of it (hash_rows_warp_kernel).
// exclusive_sum: of one value per thread over the group, and the group's total (words: shared
// memory for a block's warp sums; a warp needs none).
struct BlockGroup {
    static __device__ __forceinline__ unsigned rank() { return threadIdx.x; }
    static __device__ __forceinline__ unsigned size() { return blockDim.x; }
    static __device__ __forceinline__ void sync() { __syncthreads(); }
    static __device__ __forceinline__ unsigned exclusive_sum(unsigned x, unsigned* words, unsigned& total) { return block_exclusive_sum(x, words, total); }
};
struct WarpGroup {
    static __device__ __forceinline__ unsigned rank() { return threadIdx.x % warp_size; }
    static __device__ __forceinline__ unsigned size() { return warp_size; }
    static __device__ __forceinline__ void sync() { __syncwarp(); }
    static __device__ __forceinline__ unsigned exclusive_sum(unsigned x, unsigned*, unsigned& total) {
        const unsigned incl = warp_inclusive_sum(x);
        total = __shfl_sync(0xffffffffu, incl, warp_size - 1);
        return incl - x;
    }
};

// Shared memory set by group G: `bytes` bytes (a multiple of 4) from p (16-byte aligned) to the
// 4-byte `word` repeated, in 16-byte stores and 4-byte ones for the last 4–12 bytes. The tables'
// clears (keys to empty, values and bitmaps to zero) took a store a 4-byte word: the same
// wavefronts, a quarter of the store instructions (cuda_sim_memory_profile, shared-store requests:
// the small product's small_rows_kernel 778 K -> 493 K, the light rows' hash_rows_kernel 385 K ->
// 253 K, the heavy path's dense_segments_kernel 1.87 M -> 0.68 M and hash_segments_kernel 618 K ->
// 465 K).
template <class G>
__device__ __forceinline__ void fill_shared(void* p, count_t bytes, std::uint32_t word) {
    const auto nq = static_cast<std::uint32_t>(bytes / 16), nw = static_cast<std::uint32_t>(bytes / 4);
    auto* q = static_cast<uint4*>(p);
    for (std::uint32_t i = G::rank(); i < nq; i += G::size()) q[i] = make_uint4(word, word, word, word);
    auto* w = static_cast<std::uint32_t*>(p);
    for (std::uint32_t i = nq * 4 + G::rank(); i < nw; i += G::size()) w[i] = word;
}
// A hash table of cap entries emptied by group G: its values (when P has them) zero, its keys
// I(-1) (every bit set). Values first, keys at vals + cap (hash_smem_bytes), both 16-byte aligned:
// capacities are multiples of 4 (GmagnusMath.TableCapacitiesAlign16).
template <Phase P, class G, class V, class I>
__device__ __forceinline__ void clear_table(I* keys, V* vals, count_t cap) {
    if constexpr (has_values(P)) fill_shared<G>(vals, cap * static_cast<count_t>(sizeof(V)), 0u);
    fill_shared<G>(keys, cap * static_cast<count_t>(sizeof(I)), ~0u);
}
template <Phase P, class G>
__device__ __forceinline__ void clear_table(packed_word* words, NoValue*, count_t cap) {
    fill_shared<G>(words, cap * static_cast<count_t>(sizeof(packed_word)), ~0u);  // packed_empty
}

// K consecutive elements from p (16-byte aligned shared memory; K·sizeof(T) a multiple of 16) into
// out, in 16-byte loads.
template <int K, class T>
__device__ __forceinline__ void load_run16(const T* p, T (&out)[K]) {
    static_assert(K * sizeof(T) % 16 == 0, "whole 16-byte words");
    const auto* q = reinterpret_cast<const uint4*>(p);
    GIGASPARSE_UNROLL
    for (int j = 0; j < static_cast<int>(K * sizeof(T) / 16); ++j) {
        const uint4 w = q[j];
        memcpy(reinterpret_cast<unsigned char*>(out) + 16 * j, &w, 16);
    }
}

// Slots of the table each thread reads in one round of compact_table (2 with 64-bit indices and
// double values: registers), and the words of shared memory it needs for each warp of the group.
template <class V, class I>
inline constexpr int compact_unroll = (table_has_values<V> ? sizeof(V) : 0) + sizeof(I) > 12 ? 2 : 4;
inline constexpr int compact_words_per_warp = 4;

// Moves the n occupied entries of the table to its front (in any order: they are sorted next), in
// place, in rounds of K = compact_unroll consecutive slots a thread (slots r + K·rank + u, read in
// 16-byte loads: a quarter of the load instructions of a slot a load, the same wavefronts), each
// warp ballots its occupied slots, lane 0 stores the warp's counts of its K slots in one 16-byte
// word, lane l of every warp loads warp l's and the warps' sums are scanned by shuffles, which
// gives every entry its position, in (warp, u, lane) order. A round's positions stay below the
// round's end (base, the entries of the earlier rounds, is at most r), so every slot they
// overwrite was read before the round's barrier. Two barriers a round: for a table of 16384 entries on 1024 threads, 8 where a slot a
// thread and round took 32 (and a loop over all warps' counts a thread). cap a multiple of 4
// (TableCapacitiesAlign16: a thread's slots all in the table or all past it, which read as empty).
// counts: compact_words_per_warp words per warp of the group in shared memory, 16-byte aligned.
// Table indices are 32-bit (a table fits shared memory): fewer registers in the loops.
// A warp's table (WarpGroup) needs no counts in shared memory: each slot of the round's count is the
// popcount of its ballot, the same in every lane — a round takes its ballots, one warp barrier and
// the stores (cuda_sim_memory_profile: the small product's one-warp rows stored and loaded 126 K
// count requests each, a quarter of small_rows_kernel's shared loads, and shuffled the counts).
template <class G, class V, class I>
__device__ void compact_table(I* keys, V* vals, unsigned cap, unsigned* counts) {
    constexpr int K = compact_unroll<V, I>;
    static_assert(K <= compact_words_per_warp && compact_words_per_warp == 4, "a round's counts of a warp: one 16-byte word");
    constexpr bool one_warp = std::is_same_v<G, WarpGroup>;
    constexpr unsigned all = 0xffffffffu;
    const unsigned lane = G::rank() % warp_size, warp = G::rank() / warp_size, nwarps = G::size() / warp_size;
    const unsigned lower = (1u << lane) - 1u;
    unsigned base = 0;
    for (unsigned r = 0; r < cap; r += K * G::size()) {
        I k[K];
        V v[K];
        unsigned ballot[K];
        if (const unsigned i0 = r + K * G::rank(); i0 < cap) {
            load_run16<K>(keys + i0, k);
            if constexpr (table_has_values<V>) load_run16<K>(vals + i0, v);
        } else {
            GIGASPARSE_UNROLL
            for (int u = 0; u < K; ++u) {
                k[u] = I(-1);
                v[u] = V{};
            }
        }
        GIGASPARSE_UNROLL
        for (int u = 0; u < K; ++u) ballot[u] = __ballot_sync(all, k[u] != I(-1));
        if constexpr (one_warp) {
            (void)counts;
            (void)nwarps;
            __syncwarp();  // every slot of the round read before the writes
            GIGASPARSE_UNROLL
            for (int u = 0; u < K; ++u) {
                if (k[u] != I(-1)) {
                    const unsigned pos = base + static_cast<unsigned>(__popc(ballot[u] & lower));
                    keys[pos] = k[u];
                    if constexpr (table_has_values<V>) vals[pos] = v[u];
                }
                base += static_cast<unsigned>(__popc(ballot[u]));
            }
        } else {
            if (lane == 0) {  // the warp's counts, one 16-byte store at its compact_words_per_warp words
                unsigned w[compact_words_per_warp] = {};
                GIGASPARSE_UNROLL
                for (int u = 0; u < K; ++u) w[u] = static_cast<unsigned>(__popc(ballot[u]));
                *reinterpret_cast<uint4*>(counts + compact_words_per_warp * warp) = make_uint4(w[0], w[1], w[2], w[3]);
            }
            G::sync();
            // lane l: warp l's counts (one 16-byte load), their sum, and the warps' scan of the sums
            unsigned cw[compact_words_per_warp] = {};
            if (lane < nwarps) load_run16<compact_words_per_warp>(counts + compact_words_per_warp * lane, cw);
            const unsigned run = cw[0] + cw[1] + cw[2] + cw[3];
            const unsigned incl = warp_inclusive_sum(run);
            const unsigned total = __shfl_sync(all, incl, warp_size - 1);
            G::sync();  // every count read before the next round's, every slot before the writes
            unsigned mine = incl - run;  // lane l: the entries of the warps before l, then of warp l's slots before u
            GIGASPARSE_UNROLL
            for (int u = 0; u < K; ++u) {
                const unsigned before = __shfl_sync(all, mine, static_cast<int>(warp));
                mine += cw[u];
                if (k[u] != I(-1)) {
                    const unsigned pos = base + before + static_cast<unsigned>(__popc(ballot[u] & lower));
                    keys[pos] = k[u];
                    if constexpr (table_has_values<V>) vals[pos] = v[u];
                }
            }
            base += total;
        }
    }
    G::sync();
}

// Phase::known: the len known columns of C (pattern[i] - base, distinct) into the emptied table,
// then a barrier (the products find them next).
template <class G, class I>
__device__ void fill_known(I* keys, count_t cap, const I* __restrict__ pattern, count_t len, count_t base) {
    for (count_t i = G::rank(); i < len; i += G::size()) {
        const I key = static_cast<I>(static_cast<count_t>(pattern[i]) - base);
        std::uint32_t s = hash_slot(static_cast<count_t>(key), cap);
        for (I k = atomic_cas_index(&keys[s], I(-1), key); k != I(-1) && k != key; k = atomic_cas_index(&keys[s], I(-1), key)) s = next_probe(s, cap);
    }
    G::sync();
}

// Phase::known, after the products (and a barrier): C's entries in the pattern's order, each value
// read from its column's slot.
template <class G, class V, class I>
__device__ void write_known(const I* keys, const V* vals, count_t cap, const I* __restrict__ pattern, count_t len, count_t base, I* __restrict__ out_col,
                            V* __restrict__ out_val) {
    for (count_t i = G::rank(); i < len; i += G::size()) {
        const I col = pattern[i];
        out_col[i] = col;
        out_val[i] = vals[hash_find(keys, cap, static_cast<I>(static_cast<count_t>(col) - base))];
    }
}

// The bitonic steps (k_size, j) for k_size in [k_first, k_last] and j < 32 (j from min(k_size/2, 16)
// down to 1), on elements [0, run) of the table (run a multiple of 32): each warp loads elements
// i = rank, rank + G::size(), ... (a 32-aligned run per load, lane = i % 32), takes the steps in
// registers — the partner's key and value by shuffle, bitonic_takes_partner — and stores them
// back. Between two such passes the table is in shared memory (a barrier orders them). With
// k_last < 32 (a network of fewer than 32 elements) elements past k_last pair only among
// themselves: whatever the table holds there is never mixed in.
template <class G, class V, class I>
__device__ __forceinline__ void bitonic_warp_steps(I* keys, V* vals, unsigned run, unsigned k_first, unsigned k_last) {
    constexpr unsigned all = 0xffffffffu;
    for (unsigned i = G::rank(); i < run; i += G::size()) {  // whole warps: run and G::size() are multiples of 32
        const unsigned lane = i % warp_size;
        I key = keys[i];
        V val{};
        if constexpr (table_has_values<V>) val = vals[i];
        for (unsigned k = k_first; k <= k_last; k <<= 1)
            for (unsigned j = (k >> 1) < warp_size ? (k >> 1) : warp_size / 2; j > 0; j >>= 1) {
                const I pk = __shfl_sync(all, key, static_cast<int>(lane ^ j));
                V pv{};
                if constexpr (table_has_values<V>) pv = __shfl_sync(all, val, static_cast<int>(lane ^ j));
                if (bitonic_takes_partner(i, j, k, sort_key(key), sort_key(pk))) {
                    key = pk;
                    val = pv;
                }
            }
        keys[i] = key;
        if constexpr (table_has_values<V>) vals[i] = val;
    }
}

// The hash tables' flags (GpuSpgemmOptions::warp_sort_steps, ::rank_sort: sort_and_write's;
// ::packed_tables: the kernels' choice of layout where table_packs).
inline constexpr unsigned sort_warp_steps = 1u, sort_by_rank = 2u, table_packed = 4u;

// The smallest and largest of the group's values lo and hi (every member calls it; `words`: four per
// warp of a block, the block's reduction goes through them; none for a warp). Barriers of G.
template <class G>
__device__ __forceinline__ void group_min_max(count_t& lo, count_t& hi, unsigned* words) {
    constexpr unsigned all = 0xffffffffu;
    const unsigned lane = G::rank() % warp_size;
    for (unsigned o = warp_size / 2; o > 0; o /= 2) {
        const count_t l = __shfl_sync(all, lo, static_cast<int>(lane ^ o)), h = __shfl_sync(all, hi, static_cast<int>(lane ^ o));
        lo = l < lo ? l : lo;
        hi = h > hi ? h : hi;
    }
    if (G::size() == warp_size) return;
    const unsigned warp = G::rank() / warp_size, nwarps = G::size() / warp_size;
    if (lane == 0) {  // as 32-bit halves (the words need no 8-byte alignment)
        const auto ul = static_cast<std::uint64_t>(lo), uh = static_cast<std::uint64_t>(hi);
        words[4 * warp] = static_cast<unsigned>(ul);
        words[4 * warp + 1] = static_cast<unsigned>(ul >> 32);
        words[4 * warp + 2] = static_cast<unsigned>(uh);
        words[4 * warp + 3] = static_cast<unsigned>(uh >> 32);
    }
    G::sync();
    if (lane < nwarps) {  // lane w: warp w's (a shuffle reduction, not a loop of loads over the warps)
        lo = static_cast<count_t>(std::uint64_t{words[4 * lane]} | std::uint64_t{words[4 * lane + 1]} << 32);
        hi = static_cast<count_t>(std::uint64_t{words[4 * lane + 2]} | std::uint64_t{words[4 * lane + 3]} << 32);
    }
    for (unsigned o = 1; o < nwarps; o *= 2) {  // lanes [0, 2^k) with 2^k >= nwarps, then lane 0's to all
        const count_t l = __shfl_sync(all, lo, static_cast<int>(lane ^ o)), h = __shfl_sync(all, hi, static_cast<int>(lane ^ o));
        lo = l < lo ? l : lo;
        hi = h > hi ? h : hi;
    }
    lo = __shfl_sync(all, lo, 0);
    hi = __shfl_sync(all, hi, 0);
    G::sync();  // the words may be reused
}

// Writes the compacted table's n entries (distinct keys in [0, n)) in key order by rank, where
// rank_sort_windows allows (returns false, the table untouched, otherwise: the bitonic sort then).
// Over the keys' span, a window of W columns at a time (W: 32 a bitmap word, rank_sort_window_words
// of them in the free slots [n, cap)): each entry of the window sets its key's bit in the bitmap;
// the group's scan of the words' popcounts (each member a run of words) leaves each word's
// exclusive prefix; an entry's place is its word's prefix and the bits below its own, where it
// leaves its index in the inverse map; then the group reads the map in order and stores the
// entries at the window's start in C's row, consecutive members consecutive places (coalesced;
// storing each entry at its place from where it sits in the table took a sector an entry: 26
// sectors a warp's store request where the sorted write takes 4.6, cuda_sim_memory_profile's
// RankSort). Against the bitonic network's k(k+1)/2 passes over all 2^k elements, each window
// passes over the entries twice and the map once. words: four per warp. [span_lo, span_hi]: the
// keys' smallest and largest when the caller knows them (a light row's products' columns, from the
// setup: no pass over the entries and no group reduction here), else span_hi < span_lo; of the
// column type (two registers with 32-bit columns).
template <class G, class K, class TV, class V, class I>
__device__ bool rank_write(K* keys, TV* vals, count_t cap, unsigned n, count_t base, I* __restrict__ out_col, V* __restrict__ out_val, unsigned* words,
                           I span_lo, I span_hi) {
    using u32 = std::uint32_t;
    using u16 = std::uint16_t;
    constexpr bool packed = !table_has_values<TV>;
    constexpr int key_bytes = packed ? 4 : static_cast<int>(sizeof(K)), val_bytes = packed ? 4 : static_cast<int>(sizeof(TV));
    count_t lo = static_cast<count_t>(span_lo), hi = static_cast<count_t>(span_hi);
    if (span_hi < span_lo) {
        lo = std::numeric_limits<count_t>::max();
        hi = std::numeric_limits<count_t>::min();
        for (unsigned i = G::rank(); i < n; i += G::size()) {
            const count_t k = table_col(keys[i]);
            lo = k < lo ? k : lo;
            hi = k > hi ? k : hi;
        }
        group_min_max<G>(lo, hi, words);
    }
    const count_t windows = rank_sort_windows(hi - lo + 1, cap, n, key_bytes, val_bytes, packed);
    if (windows == 0) return false;
    const auto nwords = static_cast<u32>(rank_sort_window_words(cap, n, key_bytes, val_bytes, packed));
    u32* bits = reinterpret_cast<u32*>(keys + n);  // the layout of rank_sort_window_words
    u32* prefix = nullptr;
    u16* map = nullptr;
    if constexpr (packed) {
        prefix = bits + nwords;
        map = reinterpret_cast<u16*>(prefix + nwords);
    } else {
        prefix = reinterpret_cast<u32*>(vals + n);
        map = reinterpret_cast<u16*>(val_bytes >= key_bytes ? prefix + nwords : bits + nwords);
    }
    u32 at = 0;  // the entries of the windows before
    for (count_t w0 = lo; w0 <= hi; w0 += count_t{nwords} * 32) {
        const auto used = static_cast<u32>(min_c(count_t{nwords}, (hi - w0) / 32 + 1));  // the window's words up to hi
        for (u32 w = G::rank(); w < used; w += G::size()) bits[w] = 0u;
        G::sync();
        const count_t w1 = w0 + count_t{used} * 32;
        for (unsigned i = G::rank(); i < n; i += G::size()) {
            const count_t k = table_col(keys[i]);
            if (k >= w0 && k < w1) {
                const auto d = static_cast<u32>(k - w0);
                atomicOr(&bits[d >> 5], 1u << (d & 31));
            }
        }
        G::sync();
        const u32 per = (used + G::size() - 1) / G::size();
        const auto b = static_cast<u32>(min_c(used, count_t{G::rank()} * per)), e = static_cast<u32>(min_c(used, count_t{b} + per));
        u32 run = 0;
        for (u32 w = b; w < e; ++w) run += static_cast<u32>(__popc(bits[w]));
        u32 total = 0;
        u32 before = G::exclusive_sum(run, words, total);
        for (u32 w = b; w < e; ++w) {
            prefix[w] = before;
            before += static_cast<u32>(__popc(bits[w]));
        }
        G::sync();
        for (unsigned i = G::rank(); i < n; i += G::size()) {
            const count_t k = table_col(keys[i]);
            if (k >= w0 && k < w1) {
                const auto d = static_cast<u32>(k - w0);
                map[prefix[d >> 5] + static_cast<u32>(__popc(bits[d >> 5] & ((1u << (d & 31)) - 1u)))] = static_cast<u16>(i);
            }
        }
        G::sync();  // (the next window's clear and bits come after this window's last read of them, above)
        for (u32 p = G::rank(); p < total; p += G::size()) {
            const unsigned i = map[p];
            out_col[at + p] = static_cast<I>(table_col(keys[i]) + base);
            out_val[at + p] = table_val<V>(keys, vals, i);
        }
        at += total;
        // the map is read before the next window's stores into it: the barriers of its clear, bits and scan come between
    }
    return true;
}

// Sorts the table's n entries (compacted first, so the bitonic network spans the next power of two
// of n, not the whole table: the table is at most half full) and writes them with column base. The
// steps with j < 32 pair elements of one warp's 32-element run: they go in registers with shuffles (bitonic_warp_steps: the first five sizes whole, then the last five steps
// of each size), and only the steps with j >= 32 pair elements in shared memory, two at a time
// (steps j and j/2 over quads, bitonic_quad_low; an odd one alone), a barrier each pass: for 8192
// entries 36 shared-memory steps in 20 passes and 30 barriers, where one step a pass took 46 and
// the whole network in shared memory 91 steps and 92 barriers; a warp's row (at most 32 entries)
// takes the network's steps with 2 warp barriers instead of one a step
// (GmagnusMath.BitonicWarpStepsSort runs this schedule on the host).
// Without sort_warp_steps in `sort` (GpuSpgemmOptions::warp_sort_steps, for comparison on the GPU):
// every step in shared memory. With sort_by_rank (GpuSpgemmOptions::rank_sort): rank_write instead,
// where the keys' span allows ([span_lo, span_hi]: the keys' bounds when known, rank_write's).
// Either layout (a packed table: K the words, TV NoValue).
template <class G, class K, class TV, class V, class I>
__device__ void sort_and_write(K* keys, TV* vals, count_t cap, unsigned n, count_t base, I* __restrict__ out_col, V* __restrict__ out_val,
                               unsigned* warp_counts, unsigned sort, I span_lo = I(0), I span_hi = I(-1)) {
    constexpr bool with_vals = table_has_values<TV>;
    if (n == 0) return;
    compact_table<G>(keys, vals, static_cast<unsigned>(cap), warp_counts);
    if ((sort & sort_by_rank) != 0u && rank_write<G>(keys, vals, cap, n, base, out_col, out_val, warp_counts, span_lo, span_hi)) return;
    const bool warp_steps = (sort & sort_warp_steps) != 0u;
    const auto len = static_cast<unsigned>(ceil_pow2(n));
    for (unsigned i = n + G::rank(); i < len; i += G::size()) keys[i] = K(-1);  // empty sorts last
    G::sync();
    if (warp_steps) {  // the sizes up to 32 over whole 32-element runs (tables have at least 32 entries)
        bitonic_warp_steps<G>(keys, vals, len < warp_size ? warp_size : len, 2, len < warp_size ? len : warp_size);
        G::sync();
    }
    const unsigned smem_j = warp_steps ? warp_size : 1;  // the steps with j >= smem_j go through shared memory
    const auto order = [](K& ka, TV& va, K& kb, TV& vb, bool ascending) {
        if ((sort_key(ka) > sort_key(kb)) == ascending) {
            const K tk = ka;
            ka = kb;
            kb = tk;
            const TV tv = va;
            va = vb;
            vb = tv;
        }
    };
    for (unsigned k = 2 * smem_j; k <= len; k <<= 1) {
        unsigned j = k >> 1;
        for (; j >= 2 * smem_j; j >>= 2) {  // steps j and j/2 together, a quad a thread (bitonic_quad_low)
            const unsigned h = j >> 1;
            for (unsigned g = G::rank(); g < len / 4; g += G::size()) {
                const auto i = static_cast<unsigned>(bitonic_quad_low(g, j));
                K k0 = keys[i], k1 = keys[i + h], k2 = keys[i + j], k3 = keys[i + j + h];
                TV v0{}, v1{}, v2{}, v3{};
                if constexpr (with_vals) {
                    v0 = vals[i];
                    v1 = vals[i + h];
                    v2 = vals[i + j];
                    v3 = vals[i + j + h];
                }
                const bool ascending = bitonic_ascending(i, k);
                order(k0, v0, k2, v2, ascending);
                order(k1, v1, k3, v3, ascending);
                order(k0, v0, k1, v1, ascending);
                order(k2, v2, k3, v3, ascending);
                keys[i] = k0;
                keys[i + h] = k1;
                keys[i + j] = k2;
                keys[i + j + h] = k3;
                if constexpr (with_vals) {
                    vals[i] = v0;
                    vals[i + h] = v1;
                    vals[i + j] = v2;
                    vals[i + j + h] = v3;
                }
            }
            G::sync();
        }
        if (j >= smem_j) {  // an odd step left
            for (unsigned t = G::rank(); t < len / 2; t += G::size()) {
                const auto i = static_cast<unsigned>(bitonic_pair_low(t, j));
                const unsigned q = i + j;
                if constexpr (with_vals) {
                    order(keys[i], vals[i], keys[q], vals[q], bitonic_ascending(i, k));
                } else {
                    TV none{};
                    order(keys[i], none, keys[q], none, bitonic_ascending(i, k));
                }
            }
            G::sync();
        }
        if (warp_steps) {
            bitonic_warp_steps<G>(keys, vals, len, k, k);
            G::sync();
        }
    }
    for (unsigned i = G::rank(); i < n; i += G::size()) {
        out_col[i] = static_cast<I>(table_col(keys[i]) + base);
        out_val[i] = table_val<V>(keys, vals, i);
    }
}

// A light product in flight: its column and (with values) A's value times B's.
template <class V, class I>
struct LightProduct {
    I col;
    V val;
};
// Rounds of products whose B loads a thread (or lane) issues before it accumulates the first: the
// walks below keep walk_unroll loads in flight instead of one load, then an atomic, then the next.
// Two for 64-bit indices with double values (four spilled in the warp kernels on sm_90).
template <class V, class I>
inline constexpr int walk_unroll = sizeof(V) + sizeof(I) > 12 ? 2 : 4;
// The chunks' intermediate entries a thread loads before it accumulates the first (contiguous
// reads; 4 made ptxas spill in the double hash and dense chunk kernels).
inline constexpr int segment_unroll = 2;
// B entry q's product with A value av (its column; its value when phase P has values).
template <Phase P, class V, class I>
__device__ __forceinline__ auto light_product_load(const I* __restrict__ b_col, const V* __restrict__ b_val) {
    return [b_col, b_val](count_t q, V av) { return LightProduct<V, I>{b_col[q], has_values(P) ? av * b_val[q] : V(0)}; };
}
// Entry i of an intermediate buffer (its column; its value when phase P has values).
template <Phase P, class V, class I>
__device__ __forceinline__ auto intermediate_load(const I* __restrict__ col, const V* __restrict__ val) {
    return [col, val](count_t i) { return LightProduct<V, I>{col[i], has_values(P) ? val[i] : V(0)}; };
}

// A walk's load: load(q, av) for B entry q and A value av, or load(q, av, idx) when it takes the
// product's index in its row too — the products in A's entry order, each B row's in its order,
// whatever lane or thread takes them (the product map's position: mapped_rows_kernel).
template <class Load, class V>
inline constexpr bool load_takes_index = std::is_invocable_v<Load&, count_t, V, std::uint32_t>;
template <class Load, class V>
__device__ __forceinline__ auto walk_load(Load& load, count_t q, V av, [[maybe_unused]] std::uint32_t idx) {
    if constexpr (load_takes_index<Load, V>) return load(q, av, idx);
    else return load(q, av);
}

// The products of a light row of A — A entries [a_begin, a_end) times their rows of B — over the
// lanes of one warp, each product once: load(q, av) for B entry q and A value av (walk_load: with
// its index in the row when load takes one), then use(x) on what it returned. The warp takes 32 A
// entries at a time (one per lane) and loads their B row starts and lengths at once (no dependent
// round of loads per entry). Then the cheaper of two
// walks, in rounds of 32 products: entry by entry (the lanes over one B row: a round per 32
// entries of each row), or over the entries' products flattened (each lane takes every 32nd),
// which keeps the lanes busy when B's rows are short — with 8 entries per B row, entry by entry
// leaves 24 of 32 lanes idle. Either way a round's entry is found by a binary search over a
// shuffle scan (of the entries' rounds, or of their products), and walk_unroll rounds' loads are
// issued before the first use. Counted on the host for the light rows of the benchmark's A² of
// the shared matrices: 1.94× fewer warp rounds than entry by entry alone (geomean of 57; up to
// 5×), unchanged on its R-MAT products (their light rows' products come from long hub rows of B).
// stop(): checked before each group of walk_unroll rounds, with the lanes' earlier uses done (a warp
// barrier first); true ends the walk (it must be the same for every lane). NoStop: never.
struct NoStop {
    __device__ __forceinline__ constexpr bool operator()() const { return false; }
};
template <Phase P, class V, class I, class Load, class Use, class Stop = NoStop>
__device__ __forceinline__ void for_each_row_product(count_t a_begin, count_t a_end, const I* __restrict__ a_col, const V* __restrict__ a_val,
                                                     const count_t* __restrict__ b_ptr, Load load, Use use, Stop stop = {}) {
    using T = decltype(walk_load(load, count_t{}, V{}, 0u));
    using u32 = std::uint32_t;  // a light row holds at most τ products: 32-bit counts (fewer registers)
    constexpr unsigned all = 0xffffffffu;
    const u32 lane = threadIdx.x % warp_size;
    u32 base = 0, total = 0;  // the products of the earlier groups of 32 entries (walk_load's index); this group's
    for (count_t j0 = a_begin; j0 < a_end; j0 += warp_size, base += total) {
        const count_t j = j0 + lane;
        count_t start = 0;
        u32 len = 0;
        V av = V(0);
        if (j < a_end) {
            const count_t k = static_cast<count_t>(a_col[j]);
            start = b_ptr[k];
            len = static_cast<u32>(b_ptr[k + 1] - start);
            if constexpr (has_values(P)) av = a_val[j];
        }
        u32 incl = len, rounds = (len + warp_size - 1) / warp_size;  // inclusive scans over the lanes
        for (u32 o = 1; o < warp_size; o *= 2) {
            const u32 t = __shfl_up_sync(all, incl, static_cast<int>(o)), u = __shfl_up_sync(all, rounds, static_cast<int>(o));
            if (lane >= o) {
                incl += t;
                rounds += u;
            }
        }
        total = __shfl_sync(all, incl, warp_size - 1);
        const u32 total_rounds = __shfl_sync(all, rounds, warp_size - 1);
        const u32 flat_rounds = (total + warp_size - 1) / warp_size;
        const bool by_entry = total_rounds <= flat_rounds;
        const u32 nrounds = by_entry ? total_rounds : flat_rounds;
        const u32 scan = by_entry ? rounds : incl;                                          // searched for each round's owner
        const u32 first = scan - (by_entry ? (len + warp_size - 1) / warp_size : len);  // the lane's first round or product
        for (u32 r0 = 0; r0 < nrounds; r0 += walk_unroll<V, I>) {
            if constexpr (!std::is_same_v<Stop, NoStop>) {
                __syncwarp();
                if (stop()) return;
            }
            T x[walk_unroll<V, I>];
            bool ok[walk_unroll<V, I>];
            GIGASPARSE_UNROLL
            for (int u = 0; u < walk_unroll<V, I>; ++u) {
                const u32 r = r0 + u;                                  // warp-uniform
                const u32 item = by_entry ? r : r * warp_size + lane;  // the round, or this lane's product
                int e = 0;  // entries whose rounds or products all lie before the item: its owner
                for (int step = warp_size / 2; step > 0; step /= 2)
                    if (__shfl_sync(all, scan, e + step - 1) <= item) e += step;
                const u32 e_first = __shfl_sync(all, first, e), e_len = __shfl_sync(all, len, e);
                const count_t e_start = __shfl_sync(all, start, e);
                const V e_av = has_values(P) ? __shfl_sync(all, av, e) : V(0);
                const u32 off = by_entry ? (r - e_first) * warp_size + lane : item - e_first;
                // the entry's first product in the row (walk_load's index): flat, its first is that
                u32 e_before = 0;
                if constexpr (load_takes_index<Load, V>) e_before = base + (by_entry ? __shfl_sync(all, incl - len, e) : e_first);
                ok[u] = r < nrounds && off < e_len;
                if (ok[u]) x[u] = walk_load(load, e_start + off, e_av, e_before + off);
            }
            GIGASPARSE_UNROLL
            for (int u = 0; u < walk_unroll<V, I>; ++u)
                if (ok[u]) use(x[u]);
        }
    }
}

// The products of a light row over all threads of a block: load(q, av) for B entry q and A value av
// (walk_load: with its index in the row when load takes one), then use(x) on what it returned
// (walk_unroll products a thread with their loads in flight).
// The row's A entries go in chunks of block_walk_entries: thread t loads entry t's B row start, length
// and A value into shared memory, warp 0 turns the lengths into inclusive sums, and every thread takes
// the chunk's products t, t + blockDim.x, ... (consecutive threads, consecutive B entries: coalesced),
// the owning entry found by binary search over the sums after the thread's previous owner, and kept
// (with its bounds, B row start and A value) while the next products are its own: a thread's
// products only move forward (cuda_sim_memory_profile, shared-load requests: the light rows'
// R-MAT 2^12 squared 1.20 M → 1.10 M, a small product's long rows 254 K → 147 K, where every
// product searched from the first entry and loaded its bounds). A warp per A entry (for_each_row_product)
// leaves most warps of a wide block idle on R-MAT's light rows, whose few A entries point at long B
// rows: counted on the host for R-MAT 16 (A 4, B 8 per row), the slowest warp of a 1024-thread block
// took 78 rounds of 32 products per row of the widest bin where the whole block takes 6 (ncu on the
// H200: 176 µs per row there). Light rows hold at most τ products: 32-bit sums.
inline constexpr int block_walk_entries = 256;
template <class V>
struct BlockWalk {
    count_t start[block_walk_entries];
    std::uint32_t incl[block_walk_entries];
    V av[block_walk_entries];
};
template <Phase P, class V, class I, class Load, class Use>
__device__ __forceinline__ void for_each_row_product_block(count_t a_begin, count_t a_end, const I* __restrict__ a_col, const V* __restrict__ a_val,
                                                           const count_t* __restrict__ b_ptr, BlockWalk<V>& w, Load load, Use use) {
    using T = decltype(walk_load(load, count_t{}, V{}, 0u));
    constexpr unsigned all = 0xffffffffu;
    constexpr int per_lane = block_walk_entries / warp_size;
    std::uint32_t base = 0;  // the products of the earlier chunks (walk_load's index)
    for (count_t c0 = a_begin; c0 < a_end; c0 += block_walk_entries) {
        const int n = static_cast<int>(min_c(a_end - c0, block_walk_entries));
        __syncthreads();  // the previous chunk's readers are done
        for (int t = static_cast<int>(threadIdx.x); t < n; t += static_cast<int>(blockDim.x)) {
            const count_t k = static_cast<count_t>(a_col[c0 + t]);
            const count_t start = b_ptr[k];
            w.start[t] = start;
            w.incl[t] = static_cast<std::uint32_t>(b_ptr[k + 1] - start);
            if constexpr (has_values(P)) w.av[t] = a_val[c0 + t];
        }
        __syncthreads();
        if (threadIdx.x < warp_size) {  // warp 0: inclusive sums, per_lane consecutive entries a lane
            const int lane = static_cast<int>(threadIdx.x), first = lane * per_lane;
            std::uint32_t run = 0;
            for (int i = first; i < first + per_lane && i < n; ++i) run += w.incl[i];
            std::uint32_t before = run;
            for (int o = 1; o < warp_size; o *= 2) {
                const std::uint32_t t = __shfl_up_sync(all, before, o);
                if (lane >= o) before += t;
            }
            before -= run;  // exclusive
            for (int i = first; i < first + per_lane && i < n; ++i) {
                before += w.incl[i];
                w.incl[i] = before;
            }
        }
        __syncthreads();
        const std::uint32_t total = w.incl[n - 1];
        // the owner of the thread's last product (its products only move forward): entry e, its
        // products [e_first, e_end), its B row's start and A value, kept while the next product is
        // still its own — a long B row's products, most of an R-MAT light row's, need no search
        int e = -1;
        std::uint32_t e_first = 0, e_end = 0;
        count_t e_start = 0;
        V e_av = V(0);
        for (std::uint32_t p0 = threadIdx.x; p0 < total; p0 += walk_unroll<V, I> * blockDim.x) {
            T x[walk_unroll<V, I>];
            GIGASPARSE_UNROLL
            for (int u = 0; u < walk_unroll<V, I>; ++u) {
                const std::uint32_t p = p0 + u * blockDim.x;
                if (p < total) {
                    if (p >= e_end) {
                        // the first entry whose inclusive sum passes p, after e; lo_v and hi_v hold
                        // incl[lo - 1] and incl[hi] (the previous owner's end, and the total, at
                        // first), so the owner's bounds need no load of their own
                        int lo = e + 1, hi = n - 1;
                        std::uint32_t lo_v = e_end, hi_v = total;
                        while (lo < hi) {
                            const int mid = (lo + hi) / 2;
                            const std::uint32_t v = w.incl[mid];
                            if (v > p) {
                                hi = mid;
                                hi_v = v;
                            } else {
                                lo = mid + 1;
                                lo_v = v;
                            }
                        }
                        e = lo;
                        e_first = lo_v;
                        e_end = hi_v;
                        e_start = w.start[lo];
                        if constexpr (has_values(P)) e_av = w.av[lo];
                    }
                    x[u] = walk_load(load, e_start + static_cast<count_t>(p - e_first), e_av, base + p);
                }
            }
            GIGASPARSE_UNROLL
            for (int u = 0; u < walk_unroll<V, I>; ++u)
                if (p0 + u * blockDim.x < total) use(x[u]);
        }
        base += total;
    }
}

// Light rows of A: one block per row of the bin, Gustavson products into the hash table.
// Symbolic: row_nnz[row] = distinct columns. Numeric: sorted row written at c_ptr[row]. Once: both,
// the sorted row written at stage_off[x] of the staging arrays (c_col, c_val), x the row's index
// in the bin. Known: the row's columns known_col[c_ptr[row] ...] into the table first, then the
// products, then the row written at c_ptr[row] in that order.
inline constexpr int hash_max_threads = 1024;  // hash_bin_threads() never exceeds this (launch bound of the hash kernels)

// The end of a light row in phase P, once its products are in the table (and a barrier of G):
// known, the row written in its known columns' order; symbolic and once, its count; numeric and
// once, its sorted entries at C's row (numeric) or at its staging offset stage_off[x] (once).
template <Phase P, class G, class K, class TV, class V, class I>
__device__ __forceinline__ void finish_light_row(K* keys, TV* vals, count_t cap, count_t row, count_t x, unsigned n_unique, count_t* __restrict__ row_nnz,
                                                 const count_t* __restrict__ c_ptr, const count_t* __restrict__ stage_off,
                                                 const I* __restrict__ known_col, I* __restrict__ c_col, V* __restrict__ c_val, unsigned* warp_counts,
                                                 unsigned sort, const count_t* __restrict__ row_lo, const count_t* __restrict__ row_hi) {
    if constexpr (P == Phase::known) {
        const count_t out = c_ptr[row];
        write_known<G>(keys, vals, cap, known_col + out, c_ptr[row + 1] - out, 0, c_col + out, c_val + out);
    } else {
        if constexpr (P == Phase::symbolic || P == Phase::once) {
            if (G::rank() == 0) row_nnz[row] = n_unique;
        }
        if constexpr (has_values(P)) {
            const count_t out = P == Phase::once ? stage_off[x] : c_ptr[row];
            // the row's products' columns span [row_lo, row_hi] (the setup's, with dense_light_rows): its keys' bounds
            sort_and_write<G>(keys, vals, cap, n_unique, 0, c_col + out, c_val + out, warp_counts, sort,
                              static_cast<I>(row_lo != nullptr ? row_lo[row] : 0), static_cast<I>(row_lo != nullptr ? row_hi[row] : -1));
        }
    }
}

// Dense accumulation by group G (a block, or a warp of hash_rows_warp_kernel) in shared memory
// `smem`: a bitmap of `span` columns from lo (16-byte aligned), then, with values, a value per
// column (dense_row_bytes; column c's at dense_slot, which spreads columns 32 apart over the
// banks). walk(use) gives the products, which set their column's bit and add to
// its value; then symbolic and once write the count of bits to *count (a window of a wide dense
// row, Window: return it instead), numeric and once write the entries in column order at out (each
// warp a run of bitmap words, placed by the group's scan of their popcounts, a word's entries a
// store of the warp), and known writes
// the known_len known columns at out with their values (Window: those in the span). No
// hashing, compaction or sort. Reuse (dense_segments_kernel's run of chunks): the caller cleared
// smem (every byte zero), and with `zero_behind` each entry's value and each occupied bitmap word
// are zeroed once read for the last time, which leaves it so for the next chunk, whatever its span. Light rows whose products span few columns (light_row_is_dense:
// for banded and FEM matrices the sort was most of a row's work, 78 bitonic steps over a
// 4096-entry row) and heavy chunks of a short span use it.
template <Phase P, class G, bool Window = false, bool Reuse = false, class V, class I, class Walk>
__device__ count_t dense_accumulate(unsigned char* smem, count_t lo, count_t span, Walk walk, count_t* __restrict__ count, count_t out, count_t known_len,
                                    const I* __restrict__ known_col, I* __restrict__ c_col, V* __restrict__ c_val, unsigned* scan_words,
                                    bool zero_behind = false) {
    static_assert(!(Reuse && Window), "a window's values stay for the next window's known columns");
    using u32 = std::uint32_t;  // a span fits shared memory's bits: 32-bit offsets (registers: the warp kernel spilled with 64)
    const auto cols = static_cast<u32>(span), words = (cols + 31) / 32;
    const u32 bitmap_bytes = (words * 4 + 15) / 16 * 16;  // (with the padding before acc)
    auto* bitmap = reinterpret_cast<u32*>(smem);
    V* acc = reinterpret_cast<V*>(smem + bitmap_bytes);
    if constexpr (!Reuse) {
        if constexpr (P != Phase::known) fill_shared<G>(bitmap, bitmap_bytes, 0u);
        if constexpr (has_values(P)) fill_shared<G>(acc, words * 32 * static_cast<count_t>(sizeof(V)), 0u);  // (every slot of the last group)
    }
    G::sync();  // (Reuse: the caller's clear, or the previous chunk's zeroing, before the products)
    walk([&](const LightProduct<V, I>& p) {
        const auto c = static_cast<u32>(static_cast<count_t>(p.col) - lo);
        if constexpr (P != Phase::known) {
            // a row's products (not Reuse's heavy chunks) set a bit only when a read finds it
            // unset: a GPU's atomics on one word take a pass a lane, and a short span's or a
            // band's consecutive products share words (cuda_sim_memory_profile, requests x lanes
            // on one word: a small product's long rows 664 K -> 266 K, the light rows' dense rows
            // 467 K -> 223 K, wide dense rows 37 K -> 7.5 K, for 26 K, 83 K and 10 K wavefronts of
            // reads). A heavy chunk's products spread over a wide span: the reads, in bank
            // conflicts, cost more than the passes they save (1.19 M against 0.68 M wavefronts).
            const u32 bit = 1u << (c & 31);
            if (Reuse || !(shared_load_relaxed(&bitmap[c >> 5]) & bit)) atomicOr(&bitmap[c >> 5], bit);
        }
        if constexpr (has_values(P)) atomicAdd(&acc[dense_slot(c)], p.val);
    });
    G::sync();
    if constexpr (P == Phase::known) {
        for (count_t i = G::rank(); i < known_len; i += G::size()) {
            const I cc = known_col[out + i];
            const count_t c = static_cast<count_t>(cc) - lo;
            if constexpr (Window) {
                if (c < 0 || c >= span) continue;  // another window's (dense_light_row)
            }
            c_col[out + i] = cc;
            const u32 slot = dense_slot(static_cast<u32>(c));
            c_val[out + i] = acc[slot];
            if (Reuse && zero_behind) acc[slot] = V(0);  // (known columns are distinct)
        }
        return 0;
    } else {
        // each warp a run of words: its lanes count them (a word each), the group's scan of the
        // runs' counts places them, and the warp writes its run a word at a time, lane l taking bit
        // l — the word's entries go to consecutive positions in one store (coalesced), where a
        // thread per run of words stored 32 runs apart in each warp store
        const u32 lane = G::rank() % warp_size, warp = G::rank() / warp_size, nwarps = G::size() / warp_size;
        const u32 per = (words + nwarps - 1) / nwarps;
        const u32 wb = warp * per < words ? warp * per : words, we = wb + per < words ? wb + per : words;
        u32 n = 0;
        for (u32 w = wb + lane; w < we; w += warp_size) {
            const u32 b = bitmap[w];
            n += static_cast<u32>(__popc(b));
            if constexpr (Reuse && !has_values(P))  // symbolic: its last read of the word
                if (zero_behind && b != 0u) bitmap[w] = 0u;
        }
        n = __shfl_sync(0xffffffffu, warp_inclusive_sum(n), warp_size - 1);  // the run's entries
        u32 total = 0;
        u32 at = G::exclusive_sum(lane == 0 ? n : 0u, scan_words, total);  // lane 0: the runs before the warp's
        at = __shfl_sync(0xffffffffu, at, 0);
        if constexpr ((P == Phase::symbolic || P == Phase::once) && !Window) {
            if (G::rank() == 0) *count = total;
        }
        if constexpr (has_values(P)) {
            // the run 32 words at a time, lane l loading word l, only the words with entries
            // visited (a heavy chunk's span is mostly empty words, which took a warp iteration
            // each: cuda_sim_memory_profile, three of four words of R-MAT chunks held no entry): a
            // word's entries a store, lane l taking bit l, or, when the batch's occupied words hold
            // few entries (dense_write_selects), 32 entries a store, lane l taking the batch's
            // entries l, l + 32, ... (its word by a search over the lanes' inclusive counts, its bit
            // by nth_set_bit), where a store of a word's one or two entries took a sector for 4 or
            // 8 bytes (R-MAT chunks: 1.54 M store requests using 0.25 of their sectors' bytes, now
            // 0.35 M using 0.59)
            constexpr unsigned all = 0xffffffffu;
            const u32 below = (1u << lane) - 1u;
            for (u32 w0 = wb; w0 < we; w0 += warp_size) {
                const u32 bits = w0 + lane < we ? bitmap[w0 + lane] : 0u;
                u32 occupied = __ballot_sync(all, bits != 0u);
                const u32 nocc = static_cast<u32>(__popc(occupied));
                bool selected = false;
                if (nocc >= dense_write_select_cost) {
                    const u32 incl = warp_inclusive_sum(static_cast<u32>(__popc(bits)));
                    const u32 batch = __shfl_sync(all, incl, warp_size - 1);
                    if (dense_write_selects(batch, nocc)) {
                        for (u32 j0 = 0; j0 < batch; j0 += warp_size) {
                            const u32 j = j0 + lane;
                            u32 k = 0;  // the word holding entry j: the first whose inclusive count passes j
                            for (u32 step = warp_size / 2; step > 0; step /= 2)
                                if (__shfl_sync(all, incl, static_cast<int>(k + step - 1)) <= j) k += step;
                            const u32 kb = __shfl_sync(all, bits, static_cast<int>(k)), kin = __shfl_sync(all, incl, static_cast<int>(k));
                            if (j < batch) {
                                const u32 c = ((w0 + k) << 5) + nth_set_bit(kb, j - (kin - static_cast<u32>(__popc(kb))));
                                c_col[out + at + j] = static_cast<I>(lo + c);
                                const u32 slot = dense_slot(c);
                                c_val[out + at + j] = acc[slot];
                                if (Reuse && zero_behind) acc[slot] = V(0);
                            }
                        }
                        at += batch;
                        selected = true;
                    }
                }
                if (!selected) {
                    for (; occupied != 0u; occupied &= occupied - 1u) {
                        const u32 w = w0 + static_cast<u32>(__ffs(static_cast<int>(occupied)) - 1);
                        const u32 b = bitmap[w];
                        if ((b >> lane) & 1u) {
                            const u32 c = (w << 5) + lane, pos = at + static_cast<u32>(__popc(b & below));
                            c_col[out + pos] = static_cast<I>(lo + c);
                            const u32 slot = dense_slot(c);
                            c_val[out + pos] = acc[slot];
                            if (Reuse && zero_behind) acc[slot] = V(0);
                        }
                        at += static_cast<u32>(__popc(b));
                    }
                }
                if constexpr (Reuse) {  // the batch's words: read by every lane above, zeroed by their own lane
                    __syncwarp();
                    if (zero_behind && bits != 0u) bitmap[w0 + lane] = 0u;
                }
            }
        }
        return total;
    }
}

// A light row accumulated densely (dense_accumulate): its count to row_nnz[row], its entries at
// its staging offset (once) or C's row (numeric, known). A span wider than `window` columns (a wide
// dense row, row_is_dense_wide) goes in windows of that width in column order, one walk over the
// row's products each, keeping the products in the window; each window's entries follow the
// previous ones' (known: each known column is written by its window). Windows: false compiles one
// window only (the warp kernel's rows: its registers).
template <Phase P, class G, bool Windows, class V, class I, class Walk>
__device__ __forceinline__ void dense_light_row(unsigned char* smem, count_t lo, count_t span, count_t window, count_t row, count_t x, Walk walk,
                                                count_t* __restrict__ row_nnz, const count_t* __restrict__ c_ptr, const count_t* __restrict__ stage_off,
                                                const I* __restrict__ known_col, I* __restrict__ c_col, V* __restrict__ c_val, unsigned* scan_words) {
    const count_t out = P == Phase::once ? stage_off[x] : P == Phase::symbolic ? 0 : c_ptr[row];
    const count_t known_len = P == Phase::known ? c_ptr[row + 1] - out : 0;
    if (!Windows || span <= window) {
        dense_accumulate<P, G>(smem, lo, span, walk, row_nnz + row, out, known_len, known_col, c_col, c_val, scan_words);
        return;
    }
    count_t done = 0;  // entries of the earlier windows
    for (count_t w0 = 0; w0 < span; w0 += window) {
        const count_t wlo = lo + w0, wspan = min_c(window, span - w0);
        if (w0 > 0) G::sync();  // the previous window's bitmap and values are read
        const auto in_window = [&](auto use) {
            walk([&](const LightProduct<V, I>& p) {
                const count_t c = static_cast<count_t>(p.col) - wlo;
                if (c >= 0 && c < wspan) use(p);
            });
        };
        done += dense_accumulate<P, G, true>(smem, wlo, wspan, in_window, nullptr, P == Phase::known ? out : out + done, known_len, known_col, c_col,
                                             c_val, scan_words);
    }
    if constexpr (P == Phase::symbolic || P == Phase::once) {
        if (G::rank() == 0) row_nnz[row] = done;
    }
}

// The entries of a light row's hash table in phase P, in a launch of `cap`-entry tables (sized by
// the bin's products; its keys stay at vals + cap): numeric and known know the row's length (C's
// row) and take table_capacity_for it, the symbolic count and the one pass all of cap.
template <Phase P>
__device__ __forceinline__ count_t known_table_capacity(count_t cap, const count_t* __restrict__ c_ptr, count_t row) {
    if constexpr (P == Phase::numeric || P == Phase::known) return table_capacity_for(c_ptr[row + 1] - c_ptr[row], cap);
    return cap;
}

// Whether light row `row` of phase P accumulates densely in a table of cap entries
// (GpuSpgemmOptions::dense_light_rows: row_lo non-null), and its first column and span.
template <Phase P, class V, class I>
__device__ __forceinline__ bool dense_row(const count_t* __restrict__ row_lo, const count_t* __restrict__ row_hi, count_t row, count_t cap, count_t& lo,
                                          count_t& span) {
    if (row_lo == nullptr) return false;
    lo = row_lo[row];
    span = row_hi[row] - lo + 1;
    return light_row_is_dense(span, cap * static_cast<count_t>(sizeof(I) + (has_values(P) ? sizeof(V) : 0)), static_cast<count_t>(sizeof(V)),
                              has_values(P));
}

// Launch bound with one block per SM: without the minimum, ptxas (nvcc 13, sm_90) held the numeric
// kernel to 32 registers and spilled (cuda_kernel_resources).
template <Phase P, class V, class I>
static __global__ void __launch_bounds__(hash_max_threads, 1) hash_rows_kernel(const count_t* __restrict__ rows, count_t cap, const count_t* __restrict__ a_ptr, const I* __restrict__ a_col,
                                 const V* __restrict__ a_val, const count_t* __restrict__ b_ptr, const I* __restrict__ b_col, const V* __restrict__ b_val,
                                 count_t* __restrict__ row_nnz, const count_t* __restrict__ c_ptr, const count_t* __restrict__ stage_off,
                                 const I* __restrict__ known_col, I* __restrict__ c_col, V* __restrict__ c_val, unsigned sort,
                                 const count_t* __restrict__ row_lo, const count_t* __restrict__ row_hi) {
    GIGASPARSE_DYNAMIC_SHARED(smem_raw);
    V* vals = reinterpret_cast<V*>(smem_raw);
    I* keys = reinterpret_cast<I*>(has_values(P) ? smem_raw + cap * sizeof(V) : smem_raw);
    __shared__ unsigned n_unique;
    __align__(16) __shared__ unsigned warp_counts[compact_words_per_warp * 32];
    __shared__ BlockWalk<V> walk;
    const count_t row = rows[blockIdx.x];
    if (count_t lo = 0, span = 0; dense_row<P, V, I>(row_lo, row_hi, row, cap, lo, span)) {
        const auto products = [&](auto use) {
            for_each_row_product_block<P>(a_ptr[row], a_ptr[row + 1], a_col, a_val, b_ptr, walk, light_product_load<P>(b_col, b_val), use);
        };
        dense_light_row<P, BlockGroup, false, V, I>(smem_raw, lo, span, span, row, blockIdx.x, products, row_nnz, c_ptr, stage_off, known_col, c_col,
                                                    c_val, warp_counts);
        return;
    }
    cap = known_table_capacity<P>(cap, c_ptr, row);
    unsigned* count = &n_unique;
    BlockWalk<V>& w = walk;
    const auto hashed = [&](auto* tkeys, auto* tvals) {  // split keys and values, or packed words
        clear_table<P, BlockGroup>(tkeys, tvals, cap);
        if (threadIdx.x == 0) *count = 0;
        if constexpr (P == Phase::known) {
            __syncthreads();
            fill_known<BlockGroup>(tkeys, cap, known_col + c_ptr[row], c_ptr[row + 1] - c_ptr[row], 0);
        }
        // (the walk's first barrier orders these writes before any insert)
        for_each_row_product_block<P>(a_ptr[row], a_ptr[row + 1], a_col, a_val, b_ptr, w, light_product_load<P>(b_col, b_val),
                                      [&](const LightProduct<V, I>& x) { accumulate<P>(tkeys, tvals, cap, x.col, x.val, count); });
        __syncthreads();
        finish_light_row<P, BlockGroup>(tkeys, tvals, cap, row, blockIdx.x, *count, row_nnz, c_ptr, stage_off, known_col, c_col, c_val, warp_counts,
                                        sort, row_lo, row_hi);
    };
    if constexpr (table_packs<P, V, I>) {
        if ((sort & table_packed) != 0u) return hashed(reinterpret_cast<packed_word*>(smem_raw), static_cast<NoValue*>(nullptr));
    }
    hashed(keys, vals);
}

// Wide dense rows (row_is_dense_wide): one block per row of the bin, accumulated densely in windows
// of `window` columns (dense_light_row: a walk over the row's products a window), written like a
// dense light row. A kernel of its own: the windows' loop in hash_rows_kernel took its light rows'
// numeric and one-pass variants from 56 to 64 registers (float, int32, sm_90), fewer threads
// resident an SM for the bins that registers bound.
template <Phase P, class V, class I>
static __global__ void __launch_bounds__(hash_max_threads, 1) dense_wide_rows_kernel(const count_t* __restrict__ rows, count_t window, const count_t* __restrict__ a_ptr,
                                       const I* __restrict__ a_col, const V* __restrict__ a_val, const count_t* __restrict__ b_ptr,
                                       const I* __restrict__ b_col, const V* __restrict__ b_val, count_t* __restrict__ row_nnz,
                                       const count_t* __restrict__ c_ptr, const count_t* __restrict__ stage_off, const I* __restrict__ known_col,
                                       I* __restrict__ c_col, V* __restrict__ c_val, const count_t* __restrict__ row_lo,
                                       const count_t* __restrict__ row_hi) {
    GIGASPARSE_DYNAMIC_SHARED(smem_raw);
    __align__(16) __shared__ unsigned warp_counts[compact_words_per_warp * 32];
    __shared__ BlockWalk<V> walk;
    BlockWalk<V>& w = walk;  // (named outside the lambda: g++ builds of the simulator take __shared__ as thread_local)
    const count_t row = rows[blockIdx.x];
    const count_t lo = row_lo[row], span = row_hi[row] - lo + 1;
    const auto products = [&](auto use) {
        for_each_row_product_block<P>(a_ptr[row], a_ptr[row + 1], a_col, a_val, b_ptr, w, light_product_load<P>(b_col, b_val), use);
    };
    dense_light_row<P, BlockGroup, true, V, I>(smem_raw, lo, span, window, row, blockIdx.x, products, row_nnz, c_ptr, stage_off, known_col, c_col, c_val,
                                               warp_counts);
}

// Light rows of the bins light_bin_takes_warps picks (those whose table needs one warp, and full
// bins of rows up to GpuSpgemmOptions::warp_row_products): one warp per row, rows_per_block (<=
// warp_rows_max_warps) rows per block, each warp with its own table in dynamic shared memory
// (table_bytes apart) and only warp barriers. A block per row keeps fewer rows in flight an SM
// (float/int32 on the H200: 21 for tables of 128-512 entries, 10 for 1024; the one-warp rows, the
// most numerous of a power-law matrix, at most 32, a block each), each a chain of dependent loads
// and block barriers. Here up to 32 rows an SM (fewer as their tables fill its shared memory).
// Launch bound: 4 resident blocks per SM (32 warps, up to 64 registers). With the block size alone
// ptxas (nvcc 13, sm_90) aimed at 8 blocks — 32 registers — and spilled in the symbolic kernel; at 6
// blocks (40 registers) the double numeric kernel spilled 4-8 bytes on sm_80; at 5 (48 registers) the
// walk's loads in flight (walk_unroll) spilled (cuda_kernel_resources).
inline constexpr int warp_rows_min_blocks = 4;
template <Phase P, class V, class I>
static __global__ void __launch_bounds__(warp_rows_max_warps * warp_size, warp_rows_min_blocks) hash_rows_warp_kernel(
    count_t nrows, const count_t* __restrict__ rows, count_t cap, count_t table_bytes, const count_t* __restrict__ a_ptr, const I* __restrict__ a_col,
    const V* __restrict__ a_val, const count_t* __restrict__ b_ptr, const I* __restrict__ b_col, const V* __restrict__ b_val,
    count_t* __restrict__ row_nnz, const count_t* __restrict__ c_ptr, const count_t* __restrict__ stage_off, const I* __restrict__ known_col,
    I* __restrict__ c_col, V* __restrict__ c_val, unsigned sort, const count_t* __restrict__ row_lo, const count_t* __restrict__ row_hi) {
    GIGASPARSE_DYNAMIC_SHARED(smem_raw);
    __shared__ unsigned n_unique[warp_rows_max_warps];
    __align__(16) __shared__ unsigned warp_counts[compact_words_per_warp * warp_rows_max_warps];
    const unsigned warp = threadIdx.x / warp_size, lane = threadIdx.x % warp_size;
    const count_t x = blockIdx.x * static_cast<count_t>(blockDim.x / warp_size) + warp;
    if (x >= nrows) return;  // the whole warp: no block barrier follows
    unsigned char* table = smem_raw + warp * table_bytes;
    V* vals = reinterpret_cast<V*>(table);
    I* keys = reinterpret_cast<I*>(has_values(P) ? table + cap * sizeof(V) : table);
    const count_t row = rows[x];
    if (count_t lo = 0, span = 0; dense_row<P, V, I>(row_lo, row_hi, row, cap, lo, span)) {
        const auto products = [&](auto use) {
            for_each_row_product<P>(a_ptr[row], a_ptr[row + 1], a_col, a_val, b_ptr, light_product_load<P>(b_col, b_val), use);
        };
        dense_light_row<P, WarpGroup, false, V, I>(table, lo, span, span, row, x, products, row_nnz, c_ptr, stage_off, known_col, c_col, c_val, nullptr);
        return;
    }
    cap = known_table_capacity<P>(cap, c_ptr, row);
    unsigned* count = &n_unique[warp];
    unsigned* counts = &warp_counts[compact_words_per_warp * warp];
    const auto hashed = [&](auto* tkeys, auto* tvals) {  // split keys and values, or packed words
        clear_table<P, WarpGroup>(tkeys, tvals, cap);
        if (lane == 0) *count = 0;
        __syncwarp();
        if constexpr (P == Phase::known) fill_known<WarpGroup>(tkeys, cap, known_col + c_ptr[row], c_ptr[row + 1] - c_ptr[row], 0);
        for_each_row_product<P>(a_ptr[row], a_ptr[row + 1], a_col, a_val, b_ptr, light_product_load<P>(b_col, b_val),
                                [&](const LightProduct<V, I>& x) { accumulate<P>(tkeys, tvals, cap, x.col, x.val, count); });
        __syncwarp();
        // (no span from the setup: its bounds held across the compaction made the double/int32
        // numeric and one-pass builds spill on sm_90, and a warp's reduction takes no block barrier)
        finish_light_row<P, WarpGroup>(tkeys, tvals, cap, row, x, *count, row_nnz, c_ptr, stage_off, known_col, c_col, c_val, counts, sort, nullptr,
                                       nullptr);
    };
    if constexpr (table_packs<P, V, I>) {
        if ((sort & table_packed) != 0u) return hashed(reinterpret_cast<packed_word*>(table), static_cast<NoValue*>(nullptr));
    }
    hashed(keys, vals);
}

// The numeric phase of light rows accumulated once (Phase::once): light row x's sorted entries move
// from its staging offset to C's row, one warp per row (coalesced reads and writes). Its count is
// C's row length (a light row has no segments).
template <class V, class I>
static __global__ void unstage_rows_kernel(count_t n, const count_t* __restrict__ rows, const count_t* __restrict__ stage_off, const I* __restrict__ s_col,
                                           const V* __restrict__ s_val, const count_t* __restrict__ c_ptr, I* __restrict__ c_col, V* __restrict__ c_val) {
    const count_t x = (blockIdx.x * static_cast<count_t>(blockDim.x) + threadIdx.x) / warp_size;
    if (x >= n) return;
    const count_t row = rows[x], from = stage_off[x], to = c_ptr[row], len = c_ptr[row + 1] - to;
    for (count_t i = threadIdx.x % warp_size; i < len; i += warp_size) {
        c_col[to + i] = s_col[from + i];
        c_val[to + i] = s_val[from + i];
    }
}

// ------------------------------------------------------------------ product map
// A plan's later numeric phases of the light rows in hash bins (GpuSpgemmOptions::light_product_map):
// map_off[x] the first map word of light row x of the launch (rows[x]), map[map_off[x] + i] the rank
// in C's row of the row's product i (walk_load's index; map_word, product_map_fits). Build (once,
// after the plan's first numeric phase kept C's columns): the row's known columns into shared
// memory, and each product's column found there by binary search. Accumulate (every later numeric
// phase): the row's values zeroed in shared memory in C's order, each product added at its rank,
// and the row written with its known columns — no keys, probes, compaction or sort, and B's
// columns are not read: B's value, A's value and 2 bytes of map a product. Group G: a block or a
// warp; products(load, use) walks the row.
template <bool Build, class G, class V, class I, class Products>
__device__ __forceinline__ void mapped_row(unsigned char* smem, count_t row, count_t first, Products products, const I* __restrict__ b_col,
                                           const V* __restrict__ b_val, const count_t* __restrict__ c_ptr, const I* __restrict__ known_col,
                                           map_word* __restrict__ map, I* __restrict__ c_col, V* __restrict__ c_val) {
    const count_t out = c_ptr[row];
    const auto len = static_cast<std::uint32_t>(c_ptr[row + 1] - out);
    if constexpr (Build) {
        I* cols = reinterpret_cast<I*>(smem);
        for (std::uint32_t i = G::rank(); i < len; i += G::size()) cols[i] = known_col[out + i];
        G::sync();
        struct Found {
            I col;
            std::uint32_t idx;
        };
        products([b_col](count_t q, V, std::uint32_t idx) { return Found{b_col[q], idx}; },
                 [&](const Found& f) {
                     std::uint32_t lo = 0, n = len;  // C's row holds the column: the first entry not below it
                     while (n > 0) {
                         const std::uint32_t half = n / 2;
                         if (cols[lo + half] < f.col) {
                             lo += half + 1;
                             n -= half + 1;
                         } else {
                             n = half;
                         }
                     }
                     map[first + f.idx] = static_cast<map_word>(lo);
                 });
    } else {
        V* acc = reinterpret_cast<V*>(smem);
        fill_shared<G>(acc, len * static_cast<count_t>(sizeof(V)), 0u);  // (a multiple of 4 bytes)
        G::sync();
        struct Mapped {
            std::uint32_t slot;
            V val;
        };
        products([b_val, map, first](count_t q, V av, std::uint32_t idx) { return Mapped{map[first + idx], av * b_val[q]}; },
                 [acc](const Mapped& x) { atomicAdd(&acc[x.slot], x.val); });
        G::sync();
        for (std::uint32_t i = G::rank(); i < len; i += G::size()) {
            c_col[out + i] = known_col[out + i];
            c_val[out + i] = acc[i];
        }
    }
}

// A block per row (rows of bins above mapped_warp_products products; mapped_block_threads threads,
// map_row_bytes of dynamic shared memory). Launch bounds with a minimum of blocks, as the hash
// kernels': with the block size alone ptxas spilled the double kernels (cuda_kernel_resources).
template <bool Build, class V, class I>
static __global__ void __launch_bounds__(hash_max_threads, 1) mapped_rows_kernel(const count_t* __restrict__ rows, const count_t* __restrict__ map_off,
                                                                            const count_t* __restrict__ a_ptr, const I* __restrict__ a_col,
                                                                            const V* __restrict__ a_val, const count_t* __restrict__ b_ptr,
                                                                            const I* __restrict__ b_col, const V* __restrict__ b_val,
                                                                            const count_t* __restrict__ c_ptr, const I* __restrict__ known_col,
                                                                            map_word* __restrict__ map, I* __restrict__ c_col, V* __restrict__ c_val) {
    GIGASPARSE_DYNAMIC_SHARED(smem_raw);
    __shared__ BlockWalk<V> walk;
    BlockWalk<V>& w = walk;  // (named outside the lambda: g++ builds of the simulator take __shared__ as thread_local)
    const count_t row = rows[blockIdx.x];
    constexpr Phase P = Build ? Phase::symbolic : Phase::numeric;  // the walk loads A's values to accumulate
    const auto products = [&](auto load, auto use) { for_each_row_product_block<P>(a_ptr[row], a_ptr[row + 1], a_col, a_val, b_ptr, w, load, use); };
    mapped_row<Build, BlockGroup>(smem_raw, row, map_off[blockIdx.x], products, b_col, b_val, c_ptr, known_col, map, c_col, c_val);
}

// A warp per row, mapped_warps_per_block rows a block, row_bytes of dynamic shared memory each
// (rows of bins up to mapped_warp_products products).
template <bool Build, class V, class I>
static __global__ void __launch_bounds__(mapped_warps_per_block * warp_size, warp_rows_min_blocks) mapped_rows_warp_kernel(
    count_t nrows, const count_t* __restrict__ rows, const count_t* __restrict__ map_off, count_t row_bytes, const count_t* __restrict__ a_ptr,
    const I* __restrict__ a_col, const V* __restrict__ a_val, const count_t* __restrict__ b_ptr, const I* __restrict__ b_col, const V* __restrict__ b_val,
    const count_t* __restrict__ c_ptr, const I* __restrict__ known_col, map_word* __restrict__ map, I* __restrict__ c_col, V* __restrict__ c_val) {
    GIGASPARSE_DYNAMIC_SHARED(smem_raw);
    const unsigned warp = threadIdx.x / warp_size;
    const count_t x = blockIdx.x * static_cast<count_t>(blockDim.x / warp_size) + warp;
    if (x >= nrows) return;  // the whole warp: no block barrier follows
    const count_t row = rows[x];
    constexpr Phase P = Build ? Phase::symbolic : Phase::numeric;
    const auto products = [&](auto load, auto use) { for_each_row_product<P>(a_ptr[row], a_ptr[row + 1], a_col, a_val, b_ptr, load, use); };
    mapped_row<Build, WarpGroup>(smem_raw + warp * row_bytes, row, map_off[x], products, b_col, b_val, c_ptr, known_col, map, c_col, c_val);
}

// ------------------------------------------------------------------ small products
// Every row of a small product (small_product_eligible), a warp a row, small_warps rows a block,
// each warp a table of `region` entries in dynamic shared memory (region_bytes apart), in one
// launch a phase; long rows (small_row_is_long) are left to small_long_rows_kernel. A row's table
// is sized by its products (small_row_capacity). Symbolic: C's row length at c_ptr[row + 1], or
// small_long_mark for a long row — one of more than max_products products (at most
// small_max_row_products: GpuSpgemmOptions::small_row_products), or one of more
// products than its table's entries (small_row_bounded) that reaches small_row_limit distinct
// columns (its inserts stop there, so the table never fills) — and each block's products and long
// rows at partials[2 * block] and [2 * block + 1] (every block writes its own: nothing to zero);
// small_finish_kernel scans the lengths in place, or lists the long rows first. Numeric: the
// row's sorted entries at c_ptr[row], long rows (told by their products and C's row length) left.
// Launch bounds: the symbolic phase 8 resident blocks an SM (32 warps, up to 64 registers), the
// numeric one 6 (24 warps, up to 80 registers; shared memory holds 7 of its 32 KB blocks for float
// values and int32 columns): with the block size alone ptxas aimed at 32 registers and spilled, and
// at 8 blocks the numeric kernel of double values and int32 columns spilled 4 bytes (sm_90).
inline constexpr count_t small_long_mark = -1;
GIGASPARSE_HD constexpr int small_min_blocks(Phase p) { return p == Phase::symbolic ? 8 : 6; }
template <Phase P, class V, class I>
static __global__ void __launch_bounds__(small_warps * warp_size, small_min_blocks(P)) small_rows_kernel(count_t m, count_t region, count_t region_bytes, count_t max_products,
                                                                                   const count_t* __restrict__ a_ptr, const I* __restrict__ a_col,
                                                                                   const V* __restrict__ a_val, const count_t* __restrict__ b_ptr,
                                                                                   const I* __restrict__ b_col, const V* __restrict__ b_val,
                                                                                   count_t* __restrict__ c_ptr, count_t* __restrict__ partials,
                                                                                   I* __restrict__ c_col, V* __restrict__ c_val, unsigned sort) {
    static_assert(P == Phase::symbolic || P == Phase::numeric, "a small product's phases");
    constexpr unsigned all = 0xffffffffu;
    GIGASPARSE_DYNAMIC_SHARED(smem_raw);
    __shared__ unsigned n_unique[small_warps];
    __align__(16) __shared__ unsigned warp_counts[compact_words_per_warp * small_warps];
    __shared__ count_t block_sums[2];  // symbolic: the block's products and long rows
    const unsigned warp = threadIdx.x / warp_size, lane = threadIdx.x % warp_size;
    const count_t row = blockIdx.x * static_cast<count_t>(small_warps) + warp;
    if constexpr (P == Phase::symbolic) {
        if (threadIdx.x < 2) block_sums[threadIdx.x] = 0;
        __syncthreads();
    }
    if (row < m) {  // warp-uniform: only warp barriers inside
        const count_t a0 = a_ptr[row], a1 = a_ptr[row + 1];
        count_t products = 0;
        for (count_t j = a0 + lane; j < a1; j += warp_size) {
            const auto k = static_cast<count_t>(a_col[j]);
            products += b_ptr[k + 1] - b_ptr[k];
        }
        products = __shfl_sync(all, warp_sum(products), 0);  // (the sum is lane 0's)
        count_t cap = small_row_capacity(products, region);
        bool long_row = products > max_products;
        if constexpr (P == Phase::numeric) {  // the row's length is known: a table for its columns
            const count_t distinct = c_ptr[row + 1] - c_ptr[row];
            long_row = small_row_is_long(products, distinct, region, max_products);
            cap = small_row_capacity(distinct, region);
        }
        unsigned n = 0;
        if (products > 0 && !long_row) {
            unsigned char* table = smem_raw + warp * region_bytes;
            V* vals = reinterpret_cast<V*>(table);
            I* keys = reinterpret_cast<I*>(has_values(P) ? table + cap * sizeof(V) : table);
            const bool bounded = P == Phase::symbolic && small_row_bounded(products, cap);
            const auto limit = static_cast<unsigned>(small_row_limit(cap));
            unsigned* count = &n_unique[warp];  // (named outside the lambdas: g++ builds of the simulator take __shared__ as thread_local)
            unsigned* counts = &warp_counts[compact_words_per_warp * warp];
            const auto hashed = [&](auto* tkeys, auto* tvals) {  // split keys and values, or packed words (numeric)
                clear_table<P, WarpGroup>(tkeys, tvals, cap);
                if (lane == 0) *count = 0;
                __syncwarp();
                const auto insert = [&](const LightProduct<V, I>& x) {
                    // the count read while the lanes' inserts add to it: a relaxed read, one broadcast
                    // (an atomic add of 0 was one ATOMS.ADD a lane on one word, serialized); at most one
                    // insert a lane follows a read below the limit, so the table never fills
                    if (bounded && shared_load_relaxed(count) >= limit) return;
                    hash_insert<P>(tkeys, tvals, cap, x.col, x.val, count);
                };
                if constexpr (P == Phase::symbolic)  // a bounded row is long once its columns reach the limit: the rest of its walk is not needed
                    for_each_row_product<P>(a0, a1, a_col, a_val, b_ptr, light_product_load<P>(b_col, b_val), insert,
                                            [&] { return bounded && shared_load_relaxed(count) >= limit; });  // (after a warp barrier: every lane reads the same count)
                else
                    for_each_row_product<P>(a0, a1, a_col, a_val, b_ptr, light_product_load<P>(b_col, b_val), insert);
                __syncwarp();
                n = *count;
                if constexpr (P == Phase::symbolic) long_row = bounded && n >= limit;
                if constexpr (P == Phase::numeric) {
                    const count_t out = c_ptr[row];
                    sort_and_write<WarpGroup>(tkeys, tvals, cap, n, 0, c_col + out, c_val + out, counts, sort);
                }
            };
            bool packed = false;
            if constexpr (table_packs<P, V, I>) {
                packed = (sort & table_packed) != 0u;
                if (packed) hashed(reinterpret_cast<packed_word*>(table), static_cast<NoValue*>(nullptr));
            }
            if (!packed) hashed(keys, vals);
        }
        if constexpr (P == Phase::symbolic) {
            if (lane == 0) {
                c_ptr[row + 1] = long_row ? small_long_mark : static_cast<count_t>(n);
                atomic_add_count(&block_sums[0], products);
                if (long_row) atomic_add_count(&block_sums[1], 1);
            }
        }
    }
    if constexpr (P == Phase::symbolic) {
        __syncthreads();
        if (threadIdx.x < 2) partials[2 * static_cast<count_t>(blockIdx.x) + threadIdx.x] = block_sums[threadIdx.x];
    }
}

// One tile of small_finish_kernel's list of long rows: the rows first + i (i < n) whose c[i] is
// small_long_mark, in order, at out; returns how many. tmp may be reused after it returns.
__device__ __forceinline__ count_t small_long_tile(const count_t* __restrict__ c, count_t n, count_t first, count_t* __restrict__ out,
                                                   typename cub::BlockScan<count_t, small_scan_threads>::TempStorage& tmp) {
    constexpr unsigned all = 0xffffffffu;
    const unsigned lane = threadIdx.x % warp_size, lower = (1u << lane) - 1u;
    const count_t w0 = static_cast<count_t>(threadIdx.x / warp_size) * small_warp_span + lane;  // as small_scan_tile's
    unsigned marks[small_scan_items], nwarp = 0;  // round u's long rows of the warp
    GIGASPARSE_UNROLL
    for (int u = 0; u < small_scan_items; ++u) {
        const count_t i = w0 + u * warp_size;
        marks[u] = __ballot_sync(all, i < n && c[i] == small_long_mark);
        nwarp += static_cast<unsigned>(__popc(marks[u]));
    }
    count_t at = 0, total = 0;
    cub::BlockScan<count_t, small_scan_threads>(tmp).ExclusiveSum(lane == warp_size - 1 ? count_t(nwarp) : count_t(0), at, total);
    GIGASPARSE_UNROLL
    for (int u = 0; u < small_scan_items; ++u) {
        if ((marks[u] >> lane) & 1u) out[at + __popc(marks[u] & lower)] = first + w0 + u * warp_size;
        at += static_cast<count_t>(__popc(marks[u]));
    }
    __syncthreads();  // tmp read by every thread (the total) before a next tile writes it
    return total;
}

// The end of a small product's symbolic count, one block, with the blocks' partials summed into
// counts = {nnz(C), products, long rows, rows sent back}, read by the host in one round trip.
// Without long rows (or after_long: small_long_rows_kernel counted them): C's row offsets from the
// row lengths at c_ptr[1..m] (in place, tiles of small_scan_tile_counts), c_ptr[0] = 0, and nnz(C). With
// long rows, first: their list in row order at long_rows (nnz(C) -1 until the second call), and
// no rows sent back yet (small_long_rows_kernel adds its own).
static __global__ void __launch_bounds__(small_scan_threads) small_finish_kernel(count_t m, count_t nblocks, const count_t* __restrict__ partials,
                                                                                  count_t* c_ptr, count_t* __restrict__ counts, count_t* __restrict__ long_rows,
                                                                                  bool after_long) {
    __shared__ typename cub::BlockScan<count_t, small_scan_threads>::TempStorage tmp;
    count_t sums[2] = {0, 0};
    for (count_t b = threadIdx.x; b < nblocks; b += blockDim.x) {
        sums[0] += partials[2 * b];
        sums[1] += partials[2 * b + 1];
    }
    count_t before = 0, total[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
        cub::BlockScan<count_t, small_scan_threads>(tmp).ExclusiveSum(sums[k], before, total[k]);
        __syncthreads();
    }
    const bool list = total[1] > 0 && !after_long;  // block-uniform
    count_t carry = 0;
    for (count_t t0 = 0; t0 < m; t0 += small_scan_tile_counts) {
        const count_t n = min_c(m - t0, small_scan_tile_counts);
        if (list) carry += small_long_tile(c_ptr + 1 + t0, n, t0, long_rows + carry, tmp);
        else carry += small_scan_tile<true>(c_ptr + 1 + t0, nullptr, c_ptr + 1 + t0, n, carry, tmp);
    }
    if (threadIdx.x == 0) {
        if (!list) c_ptr[0] = 0;
        counts[0] = list ? -1 : carry;
        counts[1] = total[0];
        counts[2] = total[1];
        if (!after_long) counts[3] = 0;
    }
}

// A small product's long rows (small_row_is_long), a block of small_long_threads each, accumulated
// densely (dense_light_row) in small_long_bytes of shared memory, in windows of `window` columns of
// the row's span (small_long_window of the phase). Symbolic: row list[x] (small_finish_kernel's); a
// walk over its products' columns gives its span — all of B's ncols columns, without the walk, when
// they fit one numeric window (zeroing and scanning up to 32 KB of shared memory costs a block less
// than a walk over a long row's products) — kept at spans[x], [nlong + x], [2 nlong + x] (the
// row, its first and last column) for the numeric phases; a span that takes more than
// small_long_max_windows windows of numeric_window columns adds 1 to *back (the product goes to the
// binned path), otherwise its column count goes to c_ptr[row + 1] (one window: the symbolic bitmap
// holds 262144 columns). Numeric: the row and span from spans, its entries in column order at
// c_ptr[row]. Block barriers only (the grid is the nlong rows). Launch bound: 4 resident blocks an SM
// (up to 64 registers); with the block size alone ptxas aimed at 40-48 and spilled in the numeric
// kernels of double values (sm_80, sm_90).
inline constexpr int small_long_min_blocks = 4;
template <Phase P, class V, class I>
static __global__ void __launch_bounds__(small_long_threads, small_long_min_blocks) small_long_rows_kernel(const count_t* __restrict__ list, count_t* __restrict__ spans, count_t nlong,
                                                                                    count_t window, count_t numeric_window, count_t ncols, const count_t* __restrict__ a_ptr,
                                                                                    const I* __restrict__ a_col, const V* __restrict__ a_val,
                                                                                    const count_t* __restrict__ b_ptr, const I* __restrict__ b_col,
                                                                                    const V* __restrict__ b_val, count_t* __restrict__ c_ptr,
                                                                                    count_t* __restrict__ back, I* __restrict__ c_col, V* __restrict__ c_val) {
    static_assert(P == Phase::symbolic || P == Phase::numeric, "a small product's phases");
    GIGASPARSE_DYNAMIC_SHARED(smem_raw);
    __align__(16) __shared__ unsigned warp_counts[compact_words_per_warp * 32];
    __shared__ BlockWalk<V> walk;
    __shared__ ull span_lo, span_hi;
    BlockWalk<V>& w = walk;  // (named outside the lambdas: g++ builds of the simulator take __shared__ as thread_local)
    const count_t x = blockIdx.x;
    count_t row = 0, lo = 0, hi = 0;
    if constexpr (P == Phase::symbolic) {
        row = list[x];
        if (ncols <= numeric_window) {  // B's columns in one window: no walk for the span
            lo = 0;
            hi = ncols - 1;
        } else {
            if (threadIdx.x == 0) {
                span_lo = static_cast<ull>(count_max);
                span_hi = 0;
            }
            count_t l = count_max, h = 0;  // (the walk's first barrier orders the two writes above before the atomics below)
            for_each_row_product_block<Phase::symbolic>(a_ptr[row], a_ptr[row + 1], a_col, a_val, b_ptr, w, light_product_load<Phase::symbolic>(b_col, b_val),
                                                        [&](const LightProduct<V, I>& p) {
                                                            const auto c = static_cast<count_t>(p.col);
                                                            l = min_c(l, c);
                                                            h = max_c(h, c);
                                                        });
            l = warp_reduce(l, [](count_t u, count_t v) { return min_c(u, v); });
            h = warp_reduce(h, [](count_t u, count_t v) { return max_c(u, v); });
            if (threadIdx.x % warp_size == 0) {
                atomicMin(&span_lo, static_cast<ull>(l));
                atomicMax(&span_hi, static_cast<ull>(h));
            }
            __syncthreads();
            lo = static_cast<count_t>(span_lo);
            hi = static_cast<count_t>(span_hi);
        }
        if (threadIdx.x == 0) {
            spans[x] = row;
            spans[nlong + x] = lo;
            spans[2 * nlong + x] = hi;
        }
        if (!small_long_row_fits(hi - lo + 1, numeric_window)) {  // block-uniform
            if (threadIdx.x == 0) {
                c_ptr[row + 1] = 0;
                atomic_add_count(back, 1);
            }
            return;
        }
    } else {
        row = spans[x];
        lo = spans[nlong + x];
        hi = spans[2 * nlong + x];
    }
    const auto products = [&](auto use) {
        for_each_row_product_block<P>(a_ptr[row], a_ptr[row + 1], a_col, a_val, b_ptr, w, light_product_load<P>(b_col, b_val), use);
    };
    constexpr bool sym = P == Phase::symbolic;
    dense_light_row<P, BlockGroup, true, V, I>(smem_raw, lo, hi - lo + 1, window, row, x, products, sym ? c_ptr + 1 : nullptr, sym ? nullptr : c_ptr,
                                               nullptr, nullptr, c_col, c_val, warp_counts);
}

// Light chunks (hash) of the intermediate: one block per segment of the bin (symbolic, numeric,
// or known: the chunk's seg_nnz[id] columns of C at seg_out[id] of known_col into the table first).
template <Phase P, class V, class I>
static __global__ void __launch_bounds__(hash_max_threads) hash_segments_kernel(const count_t* __restrict__ ids, const Segment* __restrict__ segs, count_t cap, const I* __restrict__ col0,
                                     const V* __restrict__ val0, const I* __restrict__ col1, const V* __restrict__ val1, count_t* __restrict__ seg_nnz,
                                     const count_t* __restrict__ seg_out, const I* __restrict__ known_col, I* __restrict__ c_col, V* __restrict__ c_val,
                                     unsigned sort) {
    static_assert(P != Phase::once, "chunks are counted, then accumulated");
    GIGASPARSE_DYNAMIC_SHARED(smem_raw);
    V* vals = reinterpret_cast<V*>(smem_raw);
    I* keys = reinterpret_cast<I*>(has_values(P) ? smem_raw + cap * sizeof(V) : smem_raw);
    __shared__ unsigned n_unique;
    __align__(16) __shared__ unsigned warp_counts[compact_words_per_warp * 32];
    const count_t id = ids[blockIdx.x];
    const Segment sg = segs[id];
    const I* col = sg.buffer == 0 ? col0 : col1;
    const V* val = sg.buffer == 0 ? val0 : val1;
    unsigned* count = &n_unique;
    const auto hashed = [&](auto* tkeys, auto* tvals) {  // split keys and values, or packed words (numeric)
        clear_table<P, BlockGroup>(tkeys, tvals, cap);
        if (threadIdx.x == 0) *count = 0;
        __syncthreads();
        if constexpr (P == Phase::known) fill_known<BlockGroup>(tkeys, cap, known_col + seg_out[id], seg_nnz[id], sg.base);
        for_each_element<segment_unroll>(Range{sg.begin, sg.end}, blockDim.x, intermediate_load<P>(col, val),
                                         [&](count_t, const LightProduct<V, I>& x) { accumulate<P>(tkeys, tvals, cap, x.col, x.val, count); });
        __syncthreads();
        if constexpr (P == Phase::symbolic) {
            if (threadIdx.x == 0) seg_nnz[id] = *count;
        } else if constexpr (P == Phase::known) {
            const count_t out = seg_out[id];
            write_known<BlockGroup>(tkeys, tvals, cap, known_col + out, seg_nnz[id], sg.base, c_col + out, c_val + out);
        } else {
            sort_and_write<BlockGroup>(tkeys, tvals, cap, *count, sg.base, c_col + seg_out[id], c_val + seg_out[id], warp_counts, sort);
        }
    };
    if constexpr (table_packs<P, V, I>) {
        if ((sort & table_packed) != 0u) return hashed(reinterpret_cast<packed_word*>(smem_raw), static_cast<NoValue*>(nullptr));
    }
    hashed(keys, vals);
}

// Heavy chunks: dense accumulator over the chunk's span + bitmap (dense_accumulate): the count to
// seg_nnz[id] (symbolic), the sorted chunk at seg_out[id] (numeric), or its seg_nnz[id] known
// columns of C there read from the accumulator (known). Each block takes `per_block` consecutive
// chunks of ids[0, n) (dense_chunks_per_block): its smem_bytes of shared memory cleared once
// (fill_shared), each chunk's entries and bitmap words zeroed behind it for the next.
// Launch bound of two blocks an SM (64 registers at 512 threads): with the block size alone
// ptxas (nvcc 13, sm_80) aimed at four, 32 registers, and spilled the double kernels.
template <int THREADS, Phase P, class V, class I>
static __global__ void __launch_bounds__(THREADS, 2) dense_segments_kernel(count_t n, count_t per_block, count_t smem_bytes, const count_t* __restrict__ ids,
                                                                 const Segment* __restrict__ segs, const I* __restrict__ col0,
                                                                 const V* __restrict__ val0, const I* __restrict__ col1, const V* __restrict__ val1,
                                                                 count_t* __restrict__ seg_nnz, const count_t* __restrict__ seg_out,
                                                                 const I* __restrict__ known_col, I* __restrict__ c_col, V* __restrict__ c_val) {
    static_assert(P != Phase::once, "chunks are counted, then accumulated");
    GIGASPARSE_DYNAMIC_SHARED(smem_raw);
    __shared__ unsigned warp_sums[THREADS / warp_size];
    const count_t first = blockIdx.x * per_block, last = min_c(n, first + per_block);
    fill_shared<BlockGroup>(smem_raw, smem_bytes, 0u);  // (dense_accumulate's barrier follows)
    for (count_t b = first; b < last; ++b) {
        const count_t id = ids[b];
        const Segment sg = segs[id];
        const I* col = sg.buffer == 0 ? col0 : col1;
        const V* val = sg.buffer == 0 ? val0 : val1;
        const auto elements = [&](auto use) {  // (the intermediate holds columns within the chunk: C's column is sg.base + col)
            for_each_element<segment_unroll>(Range{sg.begin, sg.end}, THREADS, intermediate_load<P>(col, val), [&](count_t, const LightProduct<V, I>& x) {
                use(LightProduct<V, I>{static_cast<I>(sg.base + static_cast<count_t>(x.col)), x.val});
            });
        };
        dense_accumulate<P, BlockGroup, false, true>(smem_raw, sg.base, count_t(1) << sg.span_log2, elements, seg_nnz + id,
                                                     P == Phase::symbolic ? 0 : seg_out[id], P == Phase::known ? seg_nnz[id] : 0, known_col, c_col, c_val,
                                                     warp_sums, b + 1 < last);
    }
}

// ------------------------------------------------------------------ output placement of segments
static __global__ void segment_keys_kernel(count_t n, const Segment* __restrict__ segs, count_t* __restrict__ key_base, count_t* __restrict__ key_row,
                                    count_t* __restrict__ ids) {
    const count_t t = blockIdx.x * static_cast<count_t>(blockDim.x) + threadIdx.x;
    if (t >= n) return;
    key_base[t] = segs[t].base;
    key_row[t] = segs[t].c_row;
    ids[t] = t;
}
// g = exclusive scan of counts in (row, base) order; seg_out = c_ptr[row] + g - g(first segment of row).
static __global__ void segment_offsets_kernel(count_t n, const count_t* __restrict__ ids, const count_t* __restrict__ rows_sorted,
                                       const count_t* __restrict__ g, const count_t* __restrict__ c_ptr, count_t* __restrict__ seg_out) {
    const count_t t = blockIdx.x * static_cast<count_t>(blockDim.x) + threadIdx.x;
    if (t >= n) return;
    const count_t row = rows_sorted[t];
    // first sorted position of this row (binary search over the sorted rows)
    count_t lo = 0, hi = t;
    while (lo < hi) {
        const count_t mid = lo + (hi - lo) / 2;
        if (rows_sorted[mid] < row) lo = mid + 1;
        else hi = mid;
    }
    seg_out[ids[t]] = c_ptr[row] + g[t] - g[lo];
}
static __global__ void segment_row_nnz_kernel(count_t n, const Segment* __restrict__ segs, const count_t* __restrict__ seg_nnz, count_t* __restrict__ row_nnz) {
    const count_t t = blockIdx.x * static_cast<count_t>(blockDim.x) + threadIdx.x;
    if (t < n && seg_nnz[t] > 0) atomic_add_count(&row_nnz[segs[t].c_row], seg_nnz[t]);
}
// out[t] = in[idx[t]] for t < n.
static __global__ void gather_kernel(count_t n, const count_t* __restrict__ idx, const count_t* __restrict__ in, count_t* __restrict__ out) {
    const count_t t = blockIdx.x * static_cast<count_t>(blockDim.x) + threadIdx.x;
    if (t < n) out[t] = in[idx[t]];
}

}  // namespace gmagnus
}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace gigasparse::cuda
