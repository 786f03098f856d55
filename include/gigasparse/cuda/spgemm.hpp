// include/gigasparse/cuda/spgemm.hpp: the gMAGNUS CUDA SpGEMM backend entry point (host CSR in and out; no CUDA headers).
#pragma once

#include <cstdint>

#include <gigasparse/core/matrix.hpp>

namespace gigasparse::cuda {

// Knobs of the GPU product. Zero means "decide from the device".
struct GpuSpgemmOptions {
    int device = 0;
    // Shared-memory budget of one block (s_LM of the paper). 0: the device's opt-in maximum. Lower
    // values force more heavy rows and more multisplit levels (tests use this).
    std::int64_t shared_memory_bytes = 0;
    // Device bytes the heavy intermediate (two buffers, double buffering) may use per batch. 0: a
    // fraction of the free device memory (with what gigasparse's memory pool holds unused; see
    // cuda/device.hpp). Lower values force batching of heavy rows (tests).
    std::int64_t intermediate_budget_bytes = 0;
    // Block sizes (0: the defaults, 256 and 1024). multisplit_threads: 256, 512 or 1024 threads for the
    // histogram and multisplit kernels (more warps per SM, but warp-private histograms take more
    // shared memory, so fewer chunks per level); outer_threads: a power of two from 32 to 1024 for the
    // outer product (lowered when shared memory holds fewer offsets). For tuning; InvalidArgument else.
    int multisplit_threads = 0;
    int outer_threads = 0;
    // Light rows of at most 32 products (the hash bins of one warp): one warp per row, several rows
    // per block (true), or a 32-thread block per row (false; for comparison).
    bool warp_light_rows = true;
    // With warp_light_rows, longer light rows take a warp each too: those of up to this many products
    // (0: 512), in the hash bins that hold a block of such rows (8) for every SM; rows of fewer bins
    // keep a block each. A warp per row keeps up to 40 rows in flight an SM where a block per row keeps
    // 1 to 5. 32: only the one-warp bins (as before; for comparison). InvalidArgument below 0.
    std::int64_t warp_row_products = 0;
    // Light rows whose products' columns span few enough columns that a bitmap and
    // a value per column fit their hash table's shared memory accumulate densely there (true): no
    // hashing, compaction or sort (the sort was most of such a row's work); the setup finds each row's
    // span from its rows of B (a pass over B). false: every light row hashed (for comparison).
    bool dense_light_rows = true;
    // With dense_light_rows, rows of more than heavy_threshold products whose products span at most
    // 4 windows of B's columns, each a bitmap and a value per column in the shared-memory budget
    // (windows of up to 55228 columns for float values and int32 indices on the H200: R-MAT of scale
    // 15 in one, 16 in two, 17 in three), one walk over the row's products a window, and that walk
    // at most 2^19 products in all, accumulate densely there too, a block per row, instead of
    // taking the heavy path (CSR→CSC, outer product, multisplit: its fixed launches and host waits,
    // and the intermediate's traffic). false: every row above the threshold heavy (for comparison;
    // tests of the heavy path on matrices of few columns).
    bool dense_wide_rows = true;
    // The most windows of B's columns a wide dense row may take (0: 4, which takes R-MAT up to scale
    // 17; 5 takes scale 18's rows too, not yet timed against the heavy path). InvalidArgument outside
    // 0-64.
    int dense_wide_windows = 0;
    // The most products a wide dense row may walk (its products times its windows; 0: 2^19). With
    // dense_wide_walk_adaptive (true) that is the floor: the cap is the larger of it and the walk of
    // every row above the threshold within the windows' limit divided by the device's SMs (a long
    // row takes one SM; rows of up to the SMs' average share do not hold the others back), so
    // products of many such rows (boyd1's A², R-MAT of scale 17: 24207 rows) take none of the
    // heavy path; false: a fixed cap (for comparison). At most 2^31; InvalidArgument outside 0-2^31.
    std::int64_t dense_wide_walk = 0;
    bool dense_wide_walk_adaptive = true;
    // Streams the light rows' hash bins run on, in turn, largest bin first (0: 3; 1: all on one
    // stream, one bin after the other, as before; for comparison): bins run beside each other, the
    // small ones in the SMs' room beside the widest. InvalidArgument outside 0-8.
    int light_streams = 0;
    // Threads and tables of the hash kernels' blocks (a light row or chunk each): the power of two up
    // to half the table that keeps the most threads resident on an SM by its registers and shared
    // memory, and of those the fewest, so the most rows in flight; and a table of 3/4 of the bin's
    // power of two where that keeps more rows in flight (true); or the bin's whole table and half of it
    // in threads, at most 1024 (false: one row an SM for tables of 2048 entries and more; for comparison).
    bool fit_hash_blocks = true;
    // Blocks of the outer-product and multisplit kernels meant to share an SM (0: 1, the paper's: each
    // block's group fills its shared memory, so one block per SM): 2 to 8 size their groups to the SM's
    // shared memory over this count (smaller groups, more chunks' levels possibly), and the outer product's
    // default block to the most threads of which that many blocks fit an SM's registers and thread slots
    // (1024 for 2 blocks at its 32 registers). For tuning; InvalidArgument outside 0-8.
    int resident_blocks = 0;
    // Rows of C with more than this many intermediate products are heavy (outer product, multisplit,
    // chunked accumulation; but see dense_wide_rows); the others are light (a hash table per row). 0: τ of the paper, half the
    // largest hash table shared memory holds (8192 for float values and int32 indices on the H200).
    // Lower values send more rows, and more chunks of heavy rows, through the heavy path; values
    // above τ are taken as τ, and values too small for the shared-memory budget (more rows a multisplit
    // group, histograms too large) as the smallest τ it allows (GpuSpgemmStats::tau: the τ used). For
    // tuning; InvalidArgument below 0.
    std::int64_t heavy_threshold = 0;
    // Light rows of a one-call product in one pass (true): the hash kernels accumulate values as they
    // count, and stage each sorted row at its products' offset until C's row offsets are known (a
    // column and a value per light product; used while it takes at most light_stage_budget_bytes —
    // 0 or less: a fifth of the free device memory — and leaves the heavy rows in as many batches;
    // dropped if C then does not fit). false, or beyond that: a counting pass, then a numeric pass
    // (a GpuSpgemmPlan's phases are always those two).
    bool one_pass_light_rows = true;
    std::int64_t light_stage_budget_bytes = 0;
    // A GpuSpgemmPlan keeps C's column indices from its first numeric phase (nnz(C) indices on the
    // device, while they take at most a fifth of the free memory): its later numeric phases fill each
    // hash table with the row's or chunk's known columns and only add the products' values (no
    // counting, compaction or sort; the dense chunks need no bitmap). false: every numeric phase
    // hashes and sorts. Not used by a one-call product.
    bool keep_c_pattern = true;
    // With keep_c_pattern, the light rows of the hash bins take a product map in the later numeric
    // phases: the first numeric phase records, for each of their products, the position of its
    // column in C's row (2 bytes a product and 8 a row on the device, while that takes at most a fifth
    // of the free memory after C's columns), and each later phase adds every product's value at its
    // position in a dense shared-memory row — no hashing, B's columns not read — and writes the row
    // in C's order. false: those rows take the hash tables filled with C's columns (for comparison).
    bool light_product_map = true;
    // The hash accumulators' bitonic sort: the steps that pair elements of one warp's 32 in registers
    // with shuffles and only the others in shared memory (true), or every step in shared memory with
    // a barrier each (false; for comparison on the GPU).
    bool warp_sort_steps = true;
    // The hash accumulators' output order by rank instead of the bitonic sort (true): the distinct
    // columns' bits set in a bitmap over their span, in the table's free slots, a window of columns at
    // a time; each entry's place is the bits before its own, where it leaves its index in an inverse
    // map that the group then reads in order, storing the row coalesced (two passes over the entries
    // a window, where the network passes k(k+1)/2 times over 2^k). Tables whose span takes more than
    // 8 windows sort. false: every table sorted (for comparison on the GPU).
    bool rank_sort = true;
    // Float values with 32-bit columns: the hash accumulators' tables hold each entry as one 64-bit
    // word, its column in the high half and its value's bits in the low half (true), where they
    // hold keys and values in two arrays (false; double values and 64-bit columns always do). A
    // product takes one compare-and-swap of the word for a new column and two for one the table
    // holds, where a float add on shared memory is itself a compare-and-swap loop after the key's;
    // the compaction and the sort move one 8-byte word an entry instead of a key and a value. The
    // same shared memory and capacity; a plan's known tables stay split.
    bool packed_tables = true;
    // GpuSpgemmStats' phase times (CUDA events: some 10 to 40 records a product, host work that much
    // of a small product's time is made of). false: no events but those that order the streams (the
    // times stay 0). A one-call product given no GpuSpgemmStats never records them.
    bool time_phases = true;
    // Products of small operands (at most 2^17 rows and entries each): a warp a row, one counting
    // launch, one scan and one read of nnz(C), then one launch that writes C (some 9 stream
    // operations and 2 host waits where the binned path takes some 33 and 2, each 1 to 3 µs of host
    // time: most of such a product's time). Rows of more than 4096 products, or more columns than a
    // warp's table holds, take a block each, dense over their span: one more launch and read in the
    // symbolic phase, one more launch in the numeric. Only such a row whose span is too wide (more
    // than 63520 columns for float values, 32256 for double) sends the product to the binned path,
    // which then runs in full (the attempt's launches and reads lost). false: always the binned
    // path (for comparison; tests of the binned kernels on small matrices).
    bool small_products = true;
    // A small product's rows of more than this many products take a block each instead of a warp
    // (0: 4096, a warp's walk of 128 rounds; at most 4096): fewer means shorter warp walks at the
    // cost of a second launch, scan and read in the symbolic phase whenever a row passes it (for
    // comparison on the GPU). InvalidArgument below 0 or above 4096.
    std::int64_t small_row_products = 0;
};

// What the GPU run decided and where the time went (milliseconds from CUDA events).
struct GpuSpgemmStats {
    std::int64_t tau = 0, hash_capacity = 0, dense_columns = 0, chunks_required = 0, chunks_max = 0;
    int nlevels = 0;
    int levels_run = 0;
    std::int64_t products = 0;         // intermediate products of all rows
    std::int64_t heavy_rows = 0, light_rows = 0;
    std::int64_t wide_dense_rows = 0;  // rows above τ accumulated densely (dense_wide_rows), counted in light_rows
    std::int64_t wide_walk_cap = 0;    // the most products a wide dense row could walk (dense_wide_walk; 0: no wide dense rows)
    bool small_product = false;        // the small-product path ran (GpuSpgemmOptions::small_products)
    std::int64_t small_long_rows = 0;  // rows of a small product that took a block each (more products or columns than a warp's)
    std::int64_t small_rows_back = 0;  // rows that sent a small product to the binned path (0: none, or not tried)
    std::int64_t heavy_products = 0;   // nnz(Ĉ)
    std::int64_t batches = 0;
    bool replanned = false;  // the heavy rows were cut again into smaller batches, to fit beside C (a second symbolic pass)
    std::int64_t nnz_c = 0;
    std::int64_t device_bytes_peak = 0;  // bytes held by the computation (inputs and output included)
    std::int64_t light_stage_bytes = 0;  // the light rows' staging when they ran in one pass (0: two passes)
    std::int64_t known_pattern_bytes = 0;  // C's columns a plan keeps for its later numeric phases (0: none)
    std::int64_t product_map_bytes = 0;    // the light rows' product map a plan keeps (light_product_map; 0: none)
    // Device times (CUDA events on the heavy stream; host work between enqueues shows as the gaps
    // it leaves): setup + symbolic + numeric = total. setup starts before the device's parameters are
    // queried; symbolic ends with its read of nnz(C); csc, outer and multisplit are parts of
    // symbolic and numeric (the heavy intermediate is built in both when it takes several batches).
    double upload_ms = 0, setup_ms = 0, csc_ms = 0, outer_ms = 0, multisplit_ms = 0, symbolic_ms = 0, numeric_ms = 0, download_ms = 0;
    double multisplit_kernels_ms = 0;    // histogram + multisplit kernels only (the multisplit phase minus scans, partitions, syncs)
    double light_ms = 0;                 // the light rows' hash kernels (own stream, beside the heavy rows: inside symbolic + numeric)
    double total_ms = 0;                 // setup to the end of numeric (device-resident inputs and output)
    std::int64_t outer_bytes = 0;        // minimal DRAM traffic of the outer-product kernel(s)
    std::int64_t multisplit_bytes = 0;   // minimal DRAM traffic of the histogram + multisplit kernels
};

// C = A·B on the GPU with gMAGNUS. A and B are validated by the caller (rows may be unsorted and
// hold duplicates: they are summed); C has sorted rows. float/double with int32/int64 columns.
// Throws NotSupported when built without CUDA, BackendError on CUDA failures, OutOfMemory when C
// itself does not fit on the device.
template <class V, class I>
Csr<V, I> spgemm(CsrView<V, I> a, CsrView<V, I> b, const GpuSpgemmOptions& options = {}, GpuSpgemmStats* stats = nullptr);

}  // namespace gigasparse::cuda
