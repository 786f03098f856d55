// src/spgemm/plan.cpp: the SpGEMM front end: validation, setup, phase order, pattern checks, stats, backends.
#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>
#include <gigasparse/core/timer.hpp>
#include <gigasparse/cuda/device.hpp>
#include <gigasparse/cuda/spgemm.hpp>
#include <gigasparse/cuda/spgemm_plan.hpp>
#include <gigasparse/spgemm.hpp>

#include "spgemm/analysis.hpp"
#include "spgemm/kernels.hpp"

namespace gigasparse {

const char* to_string(SpgemmBackend b) {
    switch (b) {
        case SpgemmBackend::reference: return "reference";
        case SpgemmBackend::cpu: return "cpu";
        case SpgemmBackend::cuda: return "cuda";
    }
    return "unknown";
}

const char* to_string(SpgemmCategory c) {
    switch (c) {
        case SpgemmCategory::sort: return "sort";
        case SpgemmCategory::dense: return "dense";
        case SpgemmCategory::fine: return "fine";
        case SpgemmCategory::coarse: return "coarse";
    }
    return "unknown";
}

SpgemmBackend parse_spgemm_backend(const std::string& name) {
    if (name == "reference") return SpgemmBackend::reference;
    if (name == "cpu" || name == "omp") return SpgemmBackend::cpu;
    if (name == "cuda") return SpgemmBackend::cuda;
    throw InvalidArgument("spgemm: unknown backend '" + name + "' (reference, cpu, cuda)");
}

namespace {

// 64-bit hash of one array: four independent multiply-mix lanes (no single dependency chain).
template <class T>
std::uint64_t hash_array(const T* x, std::size_t n, std::uint64_t seed) {
    std::uint64_t h[4] = {seed, seed ^ 0x9E3779B97F4A7C15ull, seed ^ 0xC2B2AE3D27D4EB4Full, seed ^ 0x165667B19E3779F9ull};
    auto mix = [](std::uint64_t& l, std::uint64_t v) { l = (l ^ v) * 0x100000001B3ull + (l >> 29); };
    std::size_t t = 0;
    for (; t + 4 <= n; t += 4)
        for (int k = 0; k < 4; ++k) mix(h[k], static_cast<std::uint64_t>(x[t + static_cast<std::size_t>(k)]));
    for (; t < n; ++t) mix(h[0], static_cast<std::uint64_t>(x[t]));
    std::uint64_t r = n;
    for (auto l : h) mix(r, l);
    return r;
}

// 64-bit fingerprint of a pattern (shape, row pointers, columns): numeric() checks A and B against it.
// Blocks are hashed in parallel and combined in order, so the value does not depend on the thread count.
template <class T>
std::uint64_t hash_blocks(std::span<const T> x, std::uint64_t seed, int threads) {
    constexpr std::size_t block = std::size_t(1) << 16;
    const auto nb = static_cast<std::int64_t>((x.size() + block - 1) / block);
    std::vector<std::uint64_t> hb(static_cast<std::size_t>(nb));
#pragma omp parallel for schedule(static) num_threads(threads) if (nb > 4)
    for (std::int64_t k = 0; k < nb; ++k) {
        const std::size_t lo = static_cast<std::size_t>(k) * block;
        hb[static_cast<std::size_t>(k)] = hash_array(x.data() + lo, std::min(block, x.size() - lo), seed + static_cast<std::uint64_t>(k));
    }
    return hash_array(hb.data(), hb.size(), seed ^ x.size());
}

template <class V, class I>
std::uint64_t fingerprint(CsrView<V, I> m, int threads) {
    const std::uint64_t h = 0x9E3779B97F4A7C15ull ^ static_cast<std::uint64_t>(m.nrows) ^ (static_cast<std::uint64_t>(m.ncols) << 32);
    return hash_blocks(m.row_ptr, h, threads) * 31 + hash_blocks(m.col_idx, h + 1, threads);
}

// Reserves n elements in v. A new large allocation is advised to use transparent huge pages and its pages are
// first touched by all threads in parallel: on the target VMs first touch runs at 0.2-2.6 GB/s per core
// with 4 KiB pages, and this is most of the numeric time of products with hundreds of MB of output.
// (The int/float/double elements are implicit-lifetime types; resize() then writes them once more.)
// Faulting all of C at once, first, also beats faulting it block by block as the rows are written: on the
// target VM the host takes back memory freed more than about a second earlier (free page reporting), and
// re-faulting it then runs at 1-2 GB/s instead of 10 (rmat18²: numeric 4.5-5.6 s -> 3.1 s).
template <class T>
void reserve_output(std::vector<T>& v, std::size_t n, int threads) {
    constexpr std::size_t huge = std::size_t(2) << 20;
    if (v.capacity() < n && n * sizeof(T) >= 2 * huge) {
        std::vector<T>().swap(v);
        v.reserve(n);
        auto* bytes = reinterpret_cast<unsigned char*>(v.data());
        const auto begin = (reinterpret_cast<std::uintptr_t>(bytes) + huge - 1) & ~(huge - 1);
        const auto end = reinterpret_cast<std::uintptr_t>(bytes + n * sizeof(T)) & ~(huge - 1);
        if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // advice only: failure is harmless
        // One store per 4 KiB page faults it in (the kernel zeroes it); resize() below then writes every
        // element once, in memory that is already mapped.
        const auto pages = static_cast<std::int64_t>((n * sizeof(T) + 4095) / 4096);
#pragma omp parallel for schedule(static) num_threads(threads)
        for (std::int64_t k = 0; k < pages; ++k) bytes[static_cast<std::size_t>(k) * 4096] = 0;
    } else if (v.capacity() < n) {
        v.reserve(n);
    }
}

// C's columns and values sized to n: storage reserved and faulted in first, then the two value-initializing
// resizes (std::vector cannot skip them) run side by side on two threads instead of one after the other.
template <class V, class I>
void resize_output(Csr<V, I>& c, std::size_t n, int threads) {
    reserve_output(c.col_idx, n, threads);
    reserve_output(c.values, n, threads);
    const int nt = n * (sizeof(V) + sizeof(I)) >= (std::size_t(1) << 20) ? std::min(threads, 2) : 1;
#pragma omp parallel num_threads(nt)
    {
        const int t = omp_get_thread_num(), m = omp_get_num_threads();
        if (t == 0) c.values.resize(n);  // no allocation (reserved above): nothing can throw here
        if (t == m - 1) c.col_idx.resize(n);
    }
}

// The CSR invariants validate() checks (unsorted rows allowed), tested in parallel; on any failure validate()
// runs to throw its detailed message. Returns whether every row is sorted without duplicates (increasing
// columns): the same pass counts the non-ascents of the column array, and a valid matrix has such rows exactly
// when every non-ascent sits at the first entry of a row.
template <class V, class I>
bool check_csr(CsrView<V, I> m, int threads) {
    bool ok = m.nrows >= 0 && m.ncols >= 0 && static_cast<std::int64_t>(m.row_ptr.size()) == m.nrows + 1 && m.row_ptr[0] == 0 &&
              static_cast<offset_t>(m.col_idx.size()) == m.row_ptr[static_cast<std::size_t>(m.nrows)] && m.values.size() == m.col_idx.size();
    std::int64_t descents = 0, row_start_descents = 0;
    if (ok) {
        std::int64_t bad = 0;
        const std::int64_t nnz = static_cast<std::int64_t>(m.col_idx.size()), ncols = m.ncols;
        const I* col = m.col_idx.data();
        const offset_t* ptr = m.row_ptr.data();
#pragma omp parallel num_threads(threads) if (nnz + m.nrows > 16384) reduction(+ : bad, descents)
        {
#pragma omp for schedule(static) nowait
            for (std::int64_t i = 0; i < m.nrows; ++i) bad += ptr[i + 1] < ptr[i] ? 1 : 0;
#pragma omp for schedule(static) nowait
            for (std::int64_t k = 0; k < nnz; ++k) {
                const std::int64_t j = col[k];
                bad += (j < 0) | (j >= ncols);
                descents += k > 0 && col[k] <= col[k - 1] ? 1 : 0;
            }
        }
        ok = bad == 0;
        if (ok && descents > 0) {
#pragma omp parallel for schedule(static) num_threads(threads) if (m.nrows > 100000) reduction(+ : row_start_descents)
            for (std::int64_t i = 0; i < m.nrows; ++i) {
                const offset_t p = ptr[i];
                row_start_descents += p > 0 && p < ptr[i + 1] && col[p] <= col[p - 1] ? 1 : 0;
            }
        }
    }
    if (!ok) validate(m, ValidateOptions{.sorted = false});
    return descents == row_start_descents;
}

// Validates both operands; returns whether B's rows are sorted without duplicates.
template <class V, class I>
bool check_operands(CsrView<V, I> a, CsrView<V, I> b, int threads) {
    const bool a_sorted = check_csr(a, threads);
    const bool b_sorted = a.same_storage(b) ? a_sorted : check_csr(b, threads);
    if (a.ncols != b.nrows)
        throw DimensionMismatch("spgemm: A is " + std::to_string(a.nrows) + " x " + std::to_string(a.ncols) + " but B is " +
                                std::to_string(b.nrows) + " x " + std::to_string(b.ncols));
    return b_sorted;
}

// Threads of the validation and setup: one when nnz(A) + rows(A) < serial_products / 4 (see SpgemmOptions).
template <class V, class I>
int spgemm_setup_threads(CsrView<V, I> a, const SpgemmOptions& o, int threads) {
    if (o.serial_products < 0) throw InvalidArgument("spgemm: serial_products must be >= 0");
    const bool tiny = static_cast<double>(a.nnz()) + static_cast<double>(a.nrows) < static_cast<double>(o.serial_products) / 4;
    return tiny ? 1 : threads;
}

void fill_plan_stats(const spgemm::Analysis& an, SpgemmStats& s) {
    s.products = an.products;
    s.max_row_products = an.max_row_products;
    s.category_rows = an.category_rows;
    s.category_products = an.category_products;
    s.wide_rows = an.wide_rows;
    s.window_rows = an.window_rows;
    s.spa_rows = an.spa_rows;
    s.l2_bytes = an.l2_bytes;
    s.cache_line_bytes = an.line_bytes;
    s.ncols_pow2 = an.numeric.ncols_pow2;
    s.fine_chunk_cols = an.numeric.fine_chunk_cols;
    s.fine_chunks = an.numeric.fine_chunks;
    s.coarse_chunk_cols = an.numeric.coarse_chunk_cols;
    s.coarse_chunks = an.numeric.coarse_chunks;
    s.symbolic_fine_chunk_cols = an.symbolic.fine_chunk_cols;
    s.dense_max_cols = an.numeric.dense_max_cols;
    s.coarse_batches = static_cast<std::int64_t>(an.coarse_batches.size()) - 1;
    s.plan_bytes = std::max(an.setup_peak_bytes, an.plan_bytes());  // + C's row pointers (added by symbolic())
}

}  // namespace

// The GPU plan of a value type: gMAGNUS takes real values (a complex plan has none: the cuda backend refuses it).
struct NoGpuPlan {};
template <class V, class I>
using GpuPlanOf = std::conditional_t<is_complex_v<V>, NoGpuPlan, cuda::GpuSpgemmPlan<V, I>>;

template <class V, class I>
struct SpgemmPlan<V, I>::State {
    SpgemmOptions options;
    SpgemmStats stats;
    spgemm::Analysis analysis;
    spgemm::omp::Workspaces<V> workspaces;
    std::vector<offset_t> row_ptr;
    std::int64_t nrows = 0, ncols = 0;
    std::uint64_t fp_a = 0, fp_b = 0;
    bool planned = false;
    bool one_shot = false;
    std::unique_ptr<GpuPlanOf<V, I>> gpu;  // cuda backend: the pattern work kept on the device
    std::optional<Csr<V, I>> gpu_c;                   // cuda backend in multiply(): the product, computed once by symbolic()
    std::optional<bool> validated_b_sorted;  // multiply() validated the operands already (B sorted or not)
    int run_threads = 1;  // threads of the phases: 1 for products below serial_products  // multiply(): numeric() runs once, so C takes the row pointers instead of a copy
    int threads = 1;
};

template <class V, class I>
SpgemmPlan<V, I>::SpgemmPlan(SpgemmOptions options) : state_(std::make_unique<State>()) {
    if (options.threads < 0) throw InvalidArgument("spgemm: threads must be >= 0");
    state_->options = options;
    state_->threads = options.threads > 0 ? options.threads : omp_get_max_threads();
}

template <class V, class I>
SpgemmPlan<V, I>::~SpgemmPlan() = default;
template <class V, class I>
SpgemmPlan<V, I>::SpgemmPlan(SpgemmPlan&&) noexcept = default;
template <class V, class I>
SpgemmPlan<V, I>& SpgemmPlan<V, I>::operator=(SpgemmPlan&&) noexcept = default;

namespace {

// The cuda backend's symbolic phase. multiply() (one_shot: numeric() follows with the same values)
// runs the whole product here, once; a reusable plan keeps the pattern work on the device
// (cuda::GpuSpgemmPlan) for its numeric phases.
template <class V, class I>
void cuda_symbolic(typename SpgemmPlan<V, I>::State& s, CsrView<V, I> a, CsrView<V, I> b) {
    if constexpr (is_complex_v<V>) {
        throw NotSupported("spgemm: the cuda backend takes real values");  // (symbolic() said so first)
    } else {
        s.gpu_c.reset();
        if (s.one_shot) {
            s.gpu.reset();
            s.gpu_c = cuda::spgemm(a, b, s.options.gpu, &s.stats.gpu);
            s.row_ptr = s.gpu_c->row_ptr;
            return;
        }
        if (!s.gpu) s.gpu = std::make_unique<cuda::GpuSpgemmPlan<V, I>>(s.options.gpu);
        s.gpu->symbolic(a, b);
        s.row_ptr = s.gpu->row_ptr();
        s.stats.gpu = s.gpu->stats();
    }
}

}  // namespace

template <class V, class I>
void SpgemmPlan<V, I>::symbolic(CsrView<V, I> a, CsrView<V, I> b) {
    State& s = *state_;
    if (is_complex_v<V> && s.options.backend == SpgemmBackend::cuda)
        throw NotSupported("spgemm: the cuda backend takes real values (float, double); complex products run on the cpu backend");
    if (s.options.backend == SpgemmBackend::cuda && cuda::device_count() == 0)
        throw NotSupported("spgemm: the cuda backend needs a CUDA device: " + cuda::device_summary());
    s.planned = false;
    s.stats = SpgemmStats{};
    s.stats.backend = s.options.backend;
    Timer t;
    SpgemmOptions setup_options = s.options;
    setup_options.threads = spgemm_setup_threads(a, s.options, s.threads);
    const bool b_sorted = s.validated_b_sorted ? *s.validated_b_sorted : check_operands(a, b, setup_options.threads);
    s.validated_b_sorted.reset();
    s.nrows = a.nrows;
    s.ncols = b.ncols;
    if (s.options.check_pattern) {
        s.fp_a = fingerprint(a, setup_options.threads);
        s.fp_b = a.same_storage(b) ? s.fp_a : fingerprint(b, setup_options.threads);
    }
    s.row_ptr.assign(static_cast<std::size_t>(a.nrows + 1), 0);
    spgemm::analyze(a, b, b_sorted, setup_options, s.analysis);  // counts and categories are reported for every backend
    s.run_threads = s.analysis.products < s.options.serial_products ? 1 : s.threads;
    s.stats.threads = s.options.backend == SpgemmBackend::cpu ? s.run_threads : 1;
    fill_plan_stats(s.analysis, s.stats);
    s.stats.plan_bytes += static_cast<std::int64_t>(s.row_ptr.capacity() * sizeof(offset_t));
    s.stats.setup_seconds = t.lap();
    if (s.options.backend == SpgemmBackend::reference) spgemm::symbolic(spgemm::ReferenceBackend{}, a, b, std::span<offset_t>(s.row_ptr));
    else if (s.options.backend == SpgemmBackend::cuda) cuda_symbolic(s, a, b);
    else spgemm::symbolic(spgemm::OmpBackend{}, s.analysis, a, b, s.workspaces, s.run_threads, std::span<offset_t>(s.row_ptr));
    s.stats.symbolic_seconds = t.lap();
    s.stats.nnz_c = s.row_ptr.back();
    s.planned = true;
}

template <class V, class I>
void SpgemmPlan<V, I>::numeric(CsrView<V, I> a, CsrView<V, I> b, Csr<V, I>& c) {
    State& s = *state_;
    if (!s.planned) throw PhaseError("spgemm: numeric() called before symbolic()");
    Timer t;
    if (a.nrows != s.nrows || b.ncols != s.ncols || a.ncols != b.nrows || a.values.size() != a.col_idx.size() ||
        b.values.size() != b.col_idx.size())
        throw InvalidArgument("spgemm: numeric() operands differ in shape from those given to symbolic()");
    if (s.options.check_pattern &&
        (fingerprint(a, s.threads) != s.fp_a || (a.same_storage(b) ? s.fp_a : fingerprint(b, s.threads)) != s.fp_b))
        throw InvalidArgument("spgemm: numeric() operands do not have the pattern given to symbolic() (run symbolic() again)");
    c.nrows = s.nrows;
    c.ncols = s.ncols;
    if (s.one_shot) {
        c.row_ptr = std::move(s.row_ptr);
        s.planned = false;
    } else {
        c.row_ptr = s.row_ptr;
    }
    const auto n = static_cast<std::size_t>(c.row_ptr.back());
    if (s.options.backend == SpgemmBackend::cpu) {
        // The OpenMP backend sizes C's arrays itself, block by block as it writes them (spgemm_omp.cpp).
        if (c.col_idx.size() < n) reserve_output(c.col_idx, n, s.run_threads);
        if (c.values.size() < n) reserve_output(c.values, n, s.run_threads);
        spgemm::numeric(spgemm::OmpBackend{}, s.analysis, a, b, s.workspaces, s.run_threads, c);
    } else if (s.options.backend == SpgemmBackend::cuda) {
        if (s.gpu_c) {
            c = std::move(*s.gpu_c);
            s.gpu_c.reset();
        } else {
            if constexpr (!is_complex_v<V>) {  // (a complex plan never gets here: its symbolic() refused the backend)
                s.gpu->numeric(a, b, c);
                s.stats.gpu = s.gpu->stats();
            }
        }
    } else {
        resize_output(c, n, s.run_threads);
        spgemm::numeric(spgemm::ReferenceBackend{}, a, b, c);
    }
    s.stats.numeric_seconds = t.seconds();
    s.stats.workspace_bytes = 0;
    for (const auto& w : s.workspaces) s.stats.workspace_bytes += w.bytes();
}

template <class V, class I>
Csr<V, I> SpgemmPlan<V, I>::numeric(CsrView<V, I> a, CsrView<V, I> b) {
    Csr<V, I> c;
    numeric(a, b, c);
    return c;
}

template <class V, class I>
bool SpgemmPlan<V, I>::has_symbolic() const {
    return state_->planned;
}

template <class V, class I>
offset_t SpgemmPlan<V, I>::nnz() const {
    if (!state_->planned) throw PhaseError("spgemm: nnz() called before symbolic()");
    return state_->row_ptr.back();
}

template <class V, class I>
const SpgemmStats& SpgemmPlan<V, I>::stats() const {
    return state_->stats;
}

template <class V, class I>
const SpgemmOptions& SpgemmPlan<V, I>::options() const {
    return state_->options;
}

// Multiplications of C = A·B (A and B validated) and the most of one row: one pass over A, in parallel when
// A is large.
template <class V, class I>
std::pair<offset_t, offset_t> count_products(CsrView<V, I> a, CsrView<V, I> b, int threads) {
    offset_t n = 0, most = 0;
    const std::int64_t work = a.nrows + static_cast<std::int64_t>(a.col_idx.size());
#pragma omp parallel for schedule(static) num_threads(threads) if (work > 100000) reduction(+ : n) reduction(max : most)
    for (std::int64_t i = 0; i < a.nrows; ++i) {
        const offset_t r = spgemm::row_products(a, b, i);
        n += r;
        most = std::max(most, r);
    }
    return {n, most};
}

template <class V, class I>
Csr<V, I> multiply(CsrView<V, I> a, CsrView<V, I> b, const SpgemmOptions& options, SpgemmStats* stats) {
    SpgemmOptions o = options;
    o.check_pattern = false;  // numeric() gets the very operands of symbolic(): nothing to check
    SpgemmPlan<V, I> plan(o);
    auto& s = *plan.state_;
    if (o.backend == SpgemmBackend::cpu && !o.force_category && o.fused_products > 0) {
        // Small products: validation, configure() and one fused pass (kernels.hpp, multiply_fused).
        Timer t;
        const int setup_threads = spgemm_setup_threads(a, o, s.threads);
        const bool b_sorted = check_operands(a, b, setup_threads);
        spgemm::configure(a, b, b_sorted, o, s.analysis);
        const auto [products, most] = s.analysis.spa ? count_products(a, b, setup_threads) : std::pair<offset_t, offset_t>{o.fused_products + 1, 0};
        if (products <= o.fused_products) {
            SpgemmStats& st = s.stats;
            st = SpgemmStats{};
            st.backend = o.backend;
            st.fused = true;
            st.threads = products < o.serial_products ? 1 : s.threads;
            fill_plan_stats(s.analysis, st);
            st.products = products;
            st.max_row_products = most;
            st.coarse_batches = 0;
            st.category_rows[static_cast<int>(SpgemmCategory::sort)] = a.nrows;
            st.category_products[static_cast<int>(SpgemmCategory::sort)] = products;
            st.setup_seconds = t.lap();
            Csr<V, I> c;
            st.workspace_bytes = spgemm::multiply_fused(spgemm::OmpBackend{}, s.analysis, a, b, s.workspaces, st.threads, c);
            for (const auto& w : s.workspaces) st.workspace_bytes += w.bytes();
            st.plan_bytes = static_cast<std::int64_t>(c.row_ptr.capacity() * sizeof(offset_t));
            st.nnz_c = c.nnz();
            st.numeric_seconds = t.lap();
            if (stats) *stats = st;
            return c;
        }
        s.validated_b_sorted = b_sorted;  // a larger product: the plan's setup skips the validation done here
    }
    s.one_shot = true;  // numeric() runs once, with the values given to symbolic()
    plan.symbolic(a, b);
    Csr<V, I> c = plan.numeric(a, b);
    if (stats) *stats = plan.stats();
    return c;
}

#define GIGASPARSE_INSTANTIATE_SPGEMM_PLAN(V, I) \
    template class SpgemmPlan<V, I>;             \
    template Csr<V, I> multiply(CsrView<V, I>, CsrView<V, I>, const SpgemmOptions&, SpgemmStats*);
GIGASPARSE_FOR_EACH_VALUE_INDEX(GIGASPARSE_INSTANTIATE_SPGEMM_PLAN)
#undef GIGASPARSE_INSTANTIATE_SPGEMM_PLAN

}  // namespace gigasparse
