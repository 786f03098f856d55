// include/gigasparse/spgemm.hpp: sparse matrix-matrix product C = A·B (plan with symbolic/numeric phases, one-call multiply).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <gigasparse/core/matrix.hpp>
#include <gigasparse/cuda/spgemm.hpp>

namespace gigasparse {

// Which implementation computes the product.
//   reference: the sequential oracle (reference::spgemm);
//   cpu:       MAGNUS with OpenMP (fine- and coarse-level reordering of the intermediate product);
//   cuda:      gMAGNUS on the GPU (src/spgemm/cuda/); NotSupported when built without CUDA or when no
//              device is present. Not yet validated on a GPU (docs/spgemm-gpu.md).
enum class SpgemmBackend { reference, cpu, cuda };

// Row categories of MAGNUS, decided per row of C from its intermediate-product count and range.
enum class SpgemmCategory : int { sort = 0, dense = 1, fine = 2, coarse = 3 };
inline constexpr int spgemm_category_count = 4;

const char* to_string(SpgemmBackend b);
const char* to_string(SpgemmCategory c);
// "reference" | "cpu" | "cuda"; throws InvalidArgument otherwise.
SpgemmBackend parse_spgemm_backend(const std::string& name);

// Options of the product. Every size has a run-time default; the overrides exist so that tests can
// force every code path on small inputs (and so that users can tune for a machine).
struct SpgemmOptions {
    SpgemmBackend backend = SpgemmBackend::cpu;
    int threads = 0;  // OpenMP threads; 0 = the OpenMP default (omp_get_max_threads)
    // Products below this run on one thread (SpgemmStats::threads then says 1), and so does the setup when
    // nnz(A) + rows(A) < serial_products / 4: a tiny product gains microseconds from a second thread but, on a
    // shared machine, loses a scheduler tick (4 ms) at every barrier whenever that thread is not running.
    // 2^13: from 10^4 products on, two threads took 25-45% off the best time of the shared 10^4-10^5-product
    // matrices (2-core VM, load 1-2; 2^17 before).
    std::int64_t serial_products = std::int64_t(1) << 13;
    // multiply() (not a plan) computes a product of at most this many multiplications in one fused pass: no
    // setup pass over the rows and no symbolic phase; each thread writes its block of rows into its own buffers
    // (at most this many entries in all), then C is allocated to its exact size and the blocks are copied in.
    // 0 = never. Ignored when a category is forced or C has more columns than the sparse accumulator takes.
    std::int64_t fused_products = std::int64_t(1) << 17;

    // Cache model (0 = detected at run time from sysfs, then sysconf, then 1 MiB / 64 B).
    std::int64_t l2_bytes = 0;
    std::int64_t cache_line_bytes = 0;

    // Category thresholds. MAGNUS uses 256 for both sort thresholds with an AVX-512 bitonic sort; our sort is
    // scalar (insertion sort / introsort) and our dense accumulator scans a bitmap (64 columns per word), so
    // the dense side wins much earlier: the defaults below were measured on the development machine.
    std::int64_t sort_threshold = 128;       // rows with fewer intermediate products are sorted (ESC) when the SPA is not available
    std::int64_t chunk_sort_threshold = 16;  // inside the fine level: chunks below this are sorted, else dense
    std::int64_t sort_merge_target = 32;     // neighbouring small chunks are merged up to this many elements
    std::int64_t dense_max_fill = 256;       // dense category only if row range <= dense_max_fill * products
    // Dense category up to this many L2s of accumulator (MAGNUS: 1). Measured at R-MAT scale 18 (262,144 columns,
    // just past one L2 for fp64): a dense row over 2 MiB of values beat our fine level (numeric 3.8 s vs 5.2 s,
    // symbolic 0.7 s vs 2.9 s), so the default lets the dense category use L3 up to twice L2. The default column
    // limit of the sparse accumulator (spa_max_cols = -1) scales the same way (rmat18²: 5.3 s vs 6.0 s in total).
    std::int64_t dense_l2_factor = 2;

    // Accumulator choice inside a category (every choice is exact; tests force each one):
    //   window_max_fill: a dense row whose column range is at most this many times its products uses the
    //     window accumulator (one flag byte per column, plain stores: banded rows whose products hit
    //     neighbouring columns do not serialize on one bitmap word); 0 = always the bitmap. The numeric phase
    //     applies the same test to sort rows of 16+ products when B's rows are sorted (no sort of the row then).
    //   spa_max_cols: sort rows use a sparse accumulator over all columns of C (per-thread column stamps and
    //     values, then a sort of the distinct columns only) when C has at most this many columns;
    //     -1 = as many as fit dense_l2_factor L2s (dense_l2_factor * l2_bytes / (4 + sizeof(V))), or any number when A
    //     and B are banded within that many (2 (bw(A) + bw(B)) + 1: each row's products touch a narrow, sliding window)
    //     and the accumulator's arrays take no more memory than A and B; 0 = never
    //     (expand-sort-compress).
    //   spa_threshold: with the sparse accumulator available, rows with fewer products than this are sort rows
    //     (on the SPA); sort_threshold applies when it is not (expand-sort-compress is only cheap for short rows).
    std::int64_t window_max_fill = 8;
    std::int64_t spa_max_cols = -1;
    std::int64_t spa_threshold = 128;

    // Forcing (tests): every row with products goes to this category; and chunk sizes (powers of two,
    // 0 = from the cache model). coarse_chunk_cols > 0 also makes the coarse level available.
    std::optional<SpgemmCategory> force_category;
    std::int64_t fine_chunk_cols = 0;
    std::int64_t coarse_chunk_cols = 0;
    std::int64_t coarse_batch_products = std::int64_t(1) << 22;  // products buffered per coarse batch

    // Internal 32/64-bit switch: a row (or coarse batch) whose product count or chunk length reaches
    // this uses 64-bit chunk-local columns and counters. Lower it in tests to exercise the wide path.
    std::int64_t wide_threshold = std::int64_t(1) << 31;

    // numeric() verifies that A and B have the pattern given to symbolic() (a 64-bit fingerprint).
    bool check_pattern = true;

    // The cuda backend's device and budgets (gMAGNUS; see cuda::GpuSpgemmOptions).
    cuda::GpuSpgemmOptions gpu;
};

// Where the time went and what the planner decided.
struct SpgemmStats {
    SpgemmBackend backend = SpgemmBackend::cpu;
    int threads = 1;
    double setup_seconds = 0;     // validation, per-row counts, categories, chunk parameters
    double symbolic_seconds = 0;  // exact nnz per row + row pointers
    double numeric_seconds = 0;   // last numeric phase (allocation of C included)
    bool fused = false;           // multiply() ran the fused one-pass product (symbolic_seconds is then 0)
    double total_seconds() const { return setup_seconds + symbolic_seconds + numeric_seconds; }

    offset_t products = 0;       // multiplications = size of the intermediate product (flops = 2*products)
    offset_t max_row_products = 0;
    offset_t nnz_c = 0;
    std::array<std::int64_t, spgemm_category_count> category_rows{};
    std::array<offset_t, spgemm_category_count> category_products{};
    std::int64_t wide_rows = 0;  // rows processed with 64-bit chunk-local indices
    std::int64_t window_rows = 0;  // dense rows on the window accumulator (the others: bitmap)
    std::int64_t spa_rows = 0;     // sort rows on the sparse accumulator (the others: expand-sort-compress)

    // Cache model and chunk parameters (numeric phase; the symbolic phase uses 1 byte per column).
    std::int64_t l2_bytes = 0, cache_line_bytes = 0;
    std::int64_t ncols_pow2 = 0;
    std::int64_t fine_chunk_cols = 0, fine_chunks = 0;
    std::int64_t coarse_chunk_cols = 0, coarse_chunks = 0;  // 0 when the coarse level is not needed
    std::int64_t symbolic_fine_chunk_cols = 0;
    std::int64_t dense_max_cols = 0;
    std::int64_t coarse_batches = 0;

    // Memory beyond A, B and C: per-thread buffers (accumulators, reorder buffers; all threads, after the last
    // phase) and the peak of the plan's own arrays: C's row pointers, the records of the dense, fine and coarse
    // rows (short rows have none) and, during the setup, its transient buffers (B's row ranges when B has
    // unsorted rows, per-thread records).
    std::int64_t workspace_bytes = 0;
    std::int64_t plan_bytes = 0;

    // The cuda backend's own statistics of its last run (device phase times, heavy/light rows,
    // multisplit levels, batches, device memory peak); zero for the other backends.
    cuda::GpuSpgemmStats gpu;
};

// Two-phase product: symbolic(A, B) once (pattern of C), then numeric(A, B) as often as wanted with new
// values in A and B (same patterns). Output rows are sorted with no duplicates; entries produced by the
// product are kept even when they cancel to exactly zero (structural result, like reference::spgemm).
// Input rows may be unsorted and may hold duplicate columns (they are summed).
template <class V, class I>
class SpgemmPlan {
public:
    explicit SpgemmPlan(SpgemmOptions options = {});
    ~SpgemmPlan();
    SpgemmPlan(SpgemmPlan&&) noexcept;
    SpgemmPlan& operator=(SpgemmPlan&&) noexcept;
    SpgemmPlan(const SpgemmPlan&) = delete;
    SpgemmPlan& operator=(const SpgemmPlan&) = delete;

    // Validates A and B (shapes, offsets, index ranges), plans, and computes the row pointers of C.
    // Throws DimensionMismatch, InvalidStructure, NotSupported (cuda backend without a device).
    void symbolic(CsrView<V, I> a, CsrView<V, I> b);
    // C = A·B with the current values. Throws PhaseError before symbolic() and InvalidArgument when A or
    // B does not have the planned pattern. The second form reuses c's storage.
    Csr<V, I> numeric(CsrView<V, I> a, CsrView<V, I> b);
    void numeric(CsrView<V, I> a, CsrView<V, I> b, Csr<V, I>& c);

    bool has_symbolic() const;
    offset_t nnz() const;                 // nnz(C) after symbolic()
    const SpgemmStats& stats() const;
    const SpgemmOptions& options() const;

    struct State;

private:
    template <class V2, class I2>
    friend Csr<V2, I2> multiply(CsrView<V2, I2>, CsrView<V2, I2>, const SpgemmOptions&, SpgemmStats*);
    std::unique_ptr<State> state_;
};

// One call: plan, symbolic, numeric. `stats`, when given, receives the plan's statistics.
template <class V, class I>
Csr<V, I> multiply(CsrView<V, I> a, CsrView<V, I> b, const SpgemmOptions& options = {}, SpgemmStats* stats = nullptr);

}  // namespace gigasparse
