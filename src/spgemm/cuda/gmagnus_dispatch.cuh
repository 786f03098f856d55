// src/spgemm/cuda/gmagnus_dispatch.cuh: gMAGNUS dispatch (Alg. 3): parameters, temporary storage, CUB calls, launches, streams, batches.
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include <cub/device/device_partition.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <gigasparse/core/error.hpp>
#include <gigasparse/cuda/spgemm.hpp>

#include <gigasparse/cuda/abi.hpp>
#include "cuda/base/check.hpp"
#include "cuda/base/device_buffer.hpp"
#include "cuda/base/launch.hpp"
#include "spgemm/cuda/gmagnus_kernels.cuh"
#include "spgemm/cuda/gmagnus_math.hpp"

namespace gigasparse::cuda {
inline namespace GIGASPARSE_CUDA_ABI {
namespace gmagnus {

inline constexpr int multisplit_block = 256;  // default of GpuSpgemmOptions::multisplit_threads (histogram and multisplit kernels)
inline constexpr count_t default_warp_row_products = 512;  // default of GpuSpgemmOptions::warp_row_products (tables of 1024 entries)
inline constexpr int default_light_streams = 3;              // default of GpuSpgemmOptions::light_streams
inline constexpr int dense_block = 512;
inline constexpr int simple_block = 256;

// Blocks of `block` threads (or elements) for n of them, at least one (the kernels check their ranges).
inline count_t grid_for(count_t n, int block) { return std::max<count_t>(1, ceil_div(n, block)); }

// A hash or dense kernel's launch name in phase P: "(once)" or "(known)" appended for those phases.
template <Phase P>
const char* launch_name(const char* kernel) {
    static thread_local std::string name;
    if constexpr (P == Phase::once || P == Phase::known) {
        name = std::string(kernel) + (P == Phase::once ? " (once)" : " (known)");
        return name.c_str();
    }
    return kernel;
}

// Calls f(std::integral_constant<int, T>{}) for the multisplit block size T in {256, 512, 1024}
// (the kernels' warp-private histograms and CUB scan are sized at compile time).
template <class F>
void with_multisplit_threads(int threads, F&& f) {
    switch (threads) {
        case 256: f(std::integral_constant<int, 256>{}); break;
        case 512: f(std::integral_constant<int, 512>{}); break;
        case 1024: f(std::integral_constant<int, 1024>{}); break;
        default: throw InvalidArgument("cuda::spgemm: multisplit_threads must be 256, 512 or 1024, not " + std::to_string(threads));
    }
}

// Largest C (bytes of a slot per product) that one light-only product sizes by its products, so
// that it reads nnz(C) with its end instead of waiting for it between its phases; also the
// largest light-row staging of such a product allocated without a cudaMemGetInfo first.
inline constexpr std::int64_t deferred_nnz_max_bytes = std::int64_t{64} << 20;

// CUB temporary storage that grows on demand, ordered on one stream: the old buffer's free is
// queued after the CUB calls that used it.
struct Temp {
    DeviceBuffer<unsigned char> buf;
    template <class F>
    void run(const char* what, F&& f) {
        std::size_t bytes = 0;
        check(f(static_cast<void*>(nullptr), bytes), what);
        buf.reserve(static_cast<std::int64_t>(std::max<std::size_t>(bytes, 1)));
        check(f(static_cast<void*>(buf.data()), bytes), what);
    }
};

// n consecutive values from the device, after the work queued on s (one round trip: a host wait).
// `copied`, if given, is recorded on s after the copy (a phase that ends with the read).
template <class T>
std::vector<T> read_device(const T* p, count_t n, cudaStream_t s, Event* copied = nullptr) {
    std::vector<T> v(static_cast<std::size_t>(n));
    if (n > 0) check(cudaMemcpyAsync(v.data(), p, v.size() * sizeof(T), cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync D2H");
    if (copied) copied->record(s);
    check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    return v;
}

// A batch of heavy rows: heavy_rows()[first, last), their intermediate products and A entries.
struct BatchSpan {
    count_t first = 0, last = 0, products = 0, entries = 0;
};

// Accumulates the elapsed time of (possibly nested) event pairs, read once at the end (collect(),
// after the device finished them). Off (GpuSpgemmOptions::time_phases false, or a one-call product
// without statistics), it records nothing but the events that also order one stream's work before
// another's (`orders`): each record is host work, some 10 to 40 a product, where a small product's
// time is mostly the host's.
struct PhaseTimer {
    explicit PhaseTimer(bool timing) : on(timing) {}
    struct Pair {
        std::unique_ptr<Event> own_start, own_stop;
        const Event* start = nullptr;
        const Event* stop = nullptr;
        double* sink = nullptr;
    };
    bool on;
    std::vector<Pair> pairs;
    std::size_t start(cudaStream_t s) {
        auto e = std::make_unique<Event>();
        if (on) e->record(s);
        const Event* p = e.get();
        pairs.push_back({std::move(e), nullptr, p, nullptr, nullptr});
        return pairs.size() - 1;
    }
    // A pair starting at an event the caller recorded with mark() (and keeps until collect()): the
    // point where another stream forked, which the timed stream waited for (one record less).
    std::size_t start_at(const Event& e) {
        pairs.push_back({nullptr, nullptr, &e, nullptr, nullptr});
        return pairs.size() - 1;
    }
    // Ends the pair at an event recorded on s; `orders`: the event also orders s's work before
    // another stream's (recorded even when off).
    const Event& stop(std::size_t id, cudaStream_t s, double* sink, bool orders = false) {
        Pair& p = pairs[id];
        p.own_stop = std::make_unique<Event>();
        mark(*p.own_stop, s, orders);
        return stop_at(id, *p.own_stop, sink);
    }
    // Ends the pair at an event the caller recorded with mark() (and keeps until collect()).
    const Event& stop_at(std::size_t id, const Event& e, double* sink) {
        pairs[id].stop = &e;
        pairs[id].sink = sink;
        return e;
    }
    // A pair that is not to be collected (work given up; its events may be recorded again).
    void forget(std::size_t id) { pairs[id].sink = nullptr; }
    // Records e on s when timing, or when it orders s's work before another stream's.
    void mark(Event& e, cudaStream_t s, bool orders) const {
        if (on || orders) e.record(s);
    }
    void collect() const {
        if (on)
            for (const Pair& p : pairs)
                if (p.sink) *p.sink += p.stop->since(*p.start);
    }
};

// The pattern of one batch of heavy rows: its masked CSC of A, the multisplit levels and the
// segments, with their bins and output positions. Everything a numeric phase needs to rebuild the
// batch's intermediate with new values and accumulate it into C without a host wait; kept by the
// plan between calls.
struct HeavyBatch {
    // its heavy rows, their intermediate products (nnz of its rows of Ĉ) and entries of A (the CSC
    // keeps those whose row of B is nonempty: col_ptr[ka])
    BatchSpan span;
    DeviceBuffer<count_t> chat_ptr;            // row starts of the batch's Ĉ (nh + 1)
    DeviceBuffer<count_t> csc_ptrs;  // CSC column starts, then flattened slice starts (ka + 1 each: one allocation)
    DeviceBuffer<count_t> csc_rs;    // CSC row (batch-local), then A entry of each position (nent each)
    DeviceBuffer<count_t> csc_col;             // CSC column of each position (its row of B): the sort's keys
    DeviceBuffer<count_t> outer_entries;       // each outer-product block's first and one-past-last Ã entry
    struct Level {
        LevelArgs L{};
        count_t n_out = 0;
        count_t n_split = 0;  // output rows split again by the next level (the first n_split)
        count_t blocks = 0;
        std::size_t shmem = 0;
        int in_buf = 0;
        DeviceBuffer<count_t> chunks;  // input chunk -> output chunk (n_out), then output chunk starts (n_out + 1)
        count_t* pos() const { return chunks.data(); }
        count_t* out_ptr() const { return chunks.data() + n_out; }
    };
    std::vector<Level> levels;
    DeviceBuffer<Segment> segs;
    count_t nsegs = 0;
    DeviceBuffer<count_t> seg_nnz;   // symbolic phase only (freed once seg_out is known)
    DeviceBuffer<count_t> seg_out;   // where each segment's sorted entries go in C
    DeviceBuffer<count_t> bin_ids;   // segments grouped by bin
    std::vector<count_t> bin_begin;  // nbins + 3 entries (hash bins, dense, empty)
    // The chunk starts level l reads: Ĉ's rows, then the previous level's output.
    const count_t* in_ptr(std::size_t l) const { return l == 0 ? chat_ptr.data() : levels[l - 1].out_ptr(); }
    count_t* col_ptr() const { return csc_ptrs.data(); }
    count_t* slice_off() const { return csc_ptrs.data() + csc_ptrs.size() / 2; }
    count_t* csc_row() const { return csc_rs.data(); }
    count_t* csc_src() const { return csc_rs.data() + csc_rs.size() / 2; }
};

// A batch's intermediate Ĉ: columns and values, two buffers when the multisplit runs.
template <class V, class I>
struct HeavyValues {
    DeviceBuffer<I> col[2];
    DeviceBuffer<V> val[2];
};

// The light rows of a one-call product accumulated in one pass (Phase::once): each row's sorted
// entries at its products' offset, until the numeric phase moves them into C.
template <class V, class I>
struct LightStage {
    count_t rows = 0;                  // light rows with products staged (0: none)
    DeviceBuffer<unsigned char> mem;   // one allocation for the arrays below
    count_t* off = nullptr;            // staging offset of each, in row_order()
    count_t* products = nullptr;       // the products of each (scanned into off)
    I* col = nullptr;                  // a slot per product
    V* val = nullptr;
    // Bytes for n rows and p products (each array at a multiple of 256 bytes).
    static std::int64_t bytes(count_t n, count_t p) { return aligned(2 * n * sizeof(count_t)) + aligned(p * sizeof(I)) + p * static_cast<count_t>(sizeof(V)); }
    // Throws OutOfMemory (and holds nothing) when the device cannot hold it.
    void allocate(count_t n, count_t p, Placement where) {
        mem.allocate(bytes(n, p), where);
        off = reinterpret_cast<count_t*>(mem.data());
        products = off + n;
        col = reinterpret_cast<I*>(mem.data() + aligned(2 * n * sizeof(count_t)));
        val = reinterpret_cast<V*>(mem.data() + aligned(2 * n * sizeof(count_t)) + aligned(p * sizeof(I)));
        rows = n;
    }

private:
    static std::int64_t aligned(std::int64_t b) { return (b + 255) / 256 * 256; }
};

// gMAGNUS in two phases on one device (Alg. 3). symbolic(): parameters, the heavy/light partition,
// the light rows' bins, the heavy batches' patterns and C's row offsets. numeric(): C's columns and
// values from the operands' current values, with no host wait until its end. One product is
// symbolic() keeping the intermediate (one batch) and numeric() reusing it; a plan calls numeric()
// as often as the values change.
template <class V, class I>
class Gmagnus {
public:
    // timed: the phase times of st are measured (CUDA events; PhaseTimer).
    Gmagnus(const GpuSpgemmOptions& o, GpuSpgemmStats& st, bool timed) : opt_(o), st_(st), timed_(timed) {}
    // On an exception the members' buffers are freed with kernels possibly still queued on the
    // other stream: wait for both streams first (errors ignored: the exception in flight already
    // reports the failure). After a phase both are idle, and frees are stream-ordered.
    ~Gmagnus() {
        if (std::uncaught_exceptions() > 0) {
            (void)cudaStreamSynchronize(heavy_.get());
            (void)cudaStreamSynchronize(light_.get());
            for (const auto& s : bin_streams_) (void)cudaStreamSynchronize(s->get());
        }
    }
    Gmagnus(const Gmagnus&) = delete;
    Gmagnus& operator=(const Gmagnus&) = delete;

    // Host CSR in and out: upload, the device-resident product, download (timed with the phases).
    Csr<V, I> run(CsrView<V, I> a_host, CsrView<V, I> b_host) {
        const cudaStream_t hs = heavy_.get();
        PhaseTimer io(timed_);
        double upload_ms = 0, download_ms = 0;
        const std::size_t up = io.start(hs);
        DeviceCsr<V, I> a = upload(a_host, hs, &mem_);
        DeviceCsr<V, I> b = upload(b_host, hs, &mem_);
        io.stop(up, hs, &upload_ms);
        DeviceCsr<V, I> c = run_device(a, b, false);
        const std::size_t down = io.start(hs);
        Csr<V, I> host = download(c, hs);
        io.stop(down, hs, &download_ms);
        heavy_.sync();
        io.collect();
        st_.upload_ms = upload_ms;
        st_.download_ms = download_ms;
        return host;
    }

    // C = A·B with A, B and C in device memory (see symbolic() for A and B). C's buffers leave the
    // tracker on return, so C may outlive this object.
    DeviceCsr<V, I> run_device(const DeviceCsr<V, I>& a, const DeviceCsr<V, I>& b, bool inputs_external = true) {
        symbolic(a.ref(), b.ref(), true, inputs_external);
        return numeric(a.ref(), b.ref(), inputs_external);
    }

    // C's pattern. A and B are ready: their writes are complete, or queued on the heavy stream.
    // keep_values: the next numeric() gets the same values (one product): a single batch's
    // intermediate is kept for it instead of being rebuilt. inputs_external: A and B were not
    // allocated through this object's tracker (their bytes are added for device_bytes_peak).
    // Returns after the device finished (C's nnz is known), but for one product (keep_values) of
    // light rows staged in one pass whose slot per product takes at most deferred_nnz_max_bytes: it
    // returns at once, and its numeric phase sizes C by the products and reads nnz(C) with its
    // end (C's arrays hold up to products entries). The heavy rows' batches are cut before
    // C's size is known, but the numeric phase rebuilds them (or keeps one) beside C: when C and the
    // largest batch would not fit the device together, the pattern work runs again with C's bytes
    // set aside from the automatic intermediate budget (smaller batches), so that the product fails
    // only when C and the work it needs cannot fit.
    void symbolic(DeviceCsrRef<V, I> a, DeviceCsrRef<V, I> b, bool keep_values, bool inputs_external) {
        c_reserve_ = 0;
        symbolic_pass(a, b, keep_values, inputs_external);
        if (opt_.intermediate_budget_bytes > 0 || batches_plan_.empty()) return;
        const count_t elem = static_cast<count_t>(sizeof(I) + sizeof(V));
        const count_t c_bytes = nnz_ * elem + (m_ + 1) * static_cast<count_t>(sizeof(count_t));
        // beside C the numeric phase rebuilds each batch (the light rows' staging still held), or
        // keeps the one batch (the staging dropped if C needs it)
        count_t batch_bytes = 0, droppable = 0;
        if (kept_) droppable = st_.light_stage_bytes;
        else
            for (const BatchSpan& bs : batches_plan_) batch_bytes = std::max(batch_bytes, 2 * bs.products * elem);
        if (c_bytes + batch_bytes <= available_bytes() + droppable) return;
        c_reserve_ = c_bytes;
        const count_t back = st_.small_rows_back;  // (the second pass does not try the small path again)
        symbolic_pass(a, b, keep_values, inputs_external);
        sym_.replanned = st_.replanned = true;
        sym_.small_rows_back = st_.small_rows_back = back;
    }

    // C = A·B with the current values of A and B, whose patterns are those given to symbolic()
    // (ready as there). Returns after the device finished.
    DeviceCsr<V, I> numeric(DeviceCsrRef<V, I> a, DeviceCsrRef<V, I> b, bool inputs_external) {
        if (!planned_) throw PhaseError("cuda::spgemm: numeric phase before the symbolic phase");
        st_ = sym_;  // the symbolic phase's figures; this numeric phase's are added
        a_ = a;
        b_ = b;
        const std::int64_t input_bytes = a.bytes() + (a.same(b) ? 0 : b.bytes());
        if (inputs_external) mem_.add(input_bytes);
        check(cudaSetDevice(opt_.device), "cudaSetDevice");
        const cudaStream_t hs = heavy_.get(), ls = light_stream();
        PhaseTimer timer(timed_);
        const std::size_t t_num = timer.start(hs);
        DeviceCsr<V, I> c;
        c.nrows = m_;
        c.ncols = n_;
        if (!one_product_) {  // a plan keeps its row offsets (one product hands them to C at the end)
            c.row_ptr.allocate(m_ + 1, at(hs));
            check(cudaMemcpyAsync(c.row_ptr.data(), row_ptr_.data(), (m_ + 1) * sizeof(count_t), cudaMemcpyDeviceToDevice, hs), "cudaMemcpyAsync D2D");
        }
        bool sized = false;
        if (nnz_ < 0) {  // C's nnz not read yet (symbolic_pass): a slot per product (the staged light rows')
            try {
                c.col_idx.allocate(st_.products, at(hs));
                c.values.allocate(st_.products, at(hs));
                sized = true;
            } catch (const OutOfMemory&) {
                c.col_idx = DeviceBuffer<I>{};
                c.values = DeviceBuffer<V>{};
                read_counts(nullptr);  // then C of nnz, as below
            }
        }
        if (!sized) try {
            c.col_idx.allocate(nnz_, at(hs));
            c.values.allocate(nnz_, at(hs));
        } catch (const OutOfMemory&) {
            // the light rows' staging may be what C lacks: without it they take the numeric pass
            if (stage_.rows == 0) throw;
            stage_ = LightStage<V, I>{};  // freed on the heavy stream, which the light one's writes precede (symbolic's end)
            st_.light_stage_bytes = 0;
            c.col_idx.allocate(nnz_, at(hs));
            c.values.allocate(nnz_, at(hs));
        }
        Event ready;  // the light rows' start
        timer.mark(ready, hs, ls != hs);
        if (ls != hs) ready.order_before(ls);
        const std::size_t t_light = timer.start_at(ready);
        const bool staged = stage_.rows > 0, known = known_col_.size() > 0;
        if (small_) {
            small_rows<Phase::numeric>(row_ptr_.data(), nullptr, c.col_idx.data(), c.values.data());
            if (nlong() > 0) small_long_rows<Phase::numeric>(nullptr, nullptr, c.col_idx.data(), c.values.data());
        } else if (staged) unstage_light_rows(c.col_idx.data(), c.values.data());
        else if (known) light_rows<Phase::known>(c.col_idx.data(), c.values.data());
        else light_rows<Phase::numeric>(c.col_idx.data(), c.values.data());
        const Event& light_done = timer.stop(t_light, ls, &st_.light_ms, ls != hs);
        const bool rebuilt = !kept_;
        for (HeavyBatch& hb : batches_) {
            HeavyValues<V, I> v;
            if (kept_) {
                v = std::move(*kept_);
                kept_.reset();
            } else {
                v = rebuild_values(hb, timer);
            }
            if (known) segment_phase<Phase::known>(hb, v, c.col_idx.data(), c.values.data());
            else segment_phase<Phase::numeric>(hb, v, c.col_idx.data(), c.values.data());
        }
        if (ls != hs) light_done.order_before(hs);
        if (staged) stage_ = LightStage<V, I>{};  // freed on the heavy stream, after the light stream's reads
        if (keep_pattern_ && !known) keep_pattern(c.col_idx.data());
        st_.known_pattern_bytes = known_col_.bytes();
        st_.product_map_bytes = map_off_.bytes() + map_.bytes();
        Event end;
        if (nnz_ < 0) {
            read_counts(timer.on ? &end : nullptr);  // the end of the product too
        } else {
            timer.mark(end, hs, false);
            heavy_.sync();  // the heavy stream waited for the light one
        }
        timer.stop_at(t_num, end, &st_.numeric_ms);
        c.nnz = nnz_;
        if (rebuilt && !batches_.empty()) st_.outer_bytes += traffic_bytes_;
        timer.collect();
        st_.total_ms = st_.setup_ms + st_.symbolic_ms + st_.numeric_ms;
        st_.device_bytes_peak = mem_.peak;
        if (inputs_external) mem_.remove(input_bytes);
        if (one_product_) {
            c.row_ptr = std::move(row_ptr_);
            planned_ = false;  // no second numeric phase without the row offsets
        }
        c.detach();
        return c;
    }

    // C's row offsets on the device (after symbolic()).
    const count_t* row_ptr() const { return row_ptr_.data(); }
    // Device bytes held between calls: the pattern work, and whatever else was allocated through
    // tracker() (GpuSpgemmPlan's copies of A and B); C excluded.
    std::int64_t held_bytes() const { return mem_.current; }
    cudaStream_t stream() const { return heavy_.get(); }
    MemoryTracker* tracker() { return &mem_; }

private:
    // One run of the pattern work (symbolic()), its intermediate budget less c_reserve_.
    void symbolic_pass(DeviceCsrRef<V, I> a, DeviceCsrRef<V, I> b, bool keep_values, bool inputs_external) {
        planned_ = false;
        small_ = false;
        small_long_ = DeviceBuffer<count_t>{};
        batches_.clear();
        kept_.reset();
        stage_ = LightStage<V, I>{};
        known_col_ = DeviceBuffer<I>{};
        map_off_ = DeviceBuffer<count_t>{};
        map_ = DeviceBuffer<map_word>{};
        keep_pattern_ = !keep_values && opt_.keep_c_pattern;
        one_product_ = keep_values;
        st_ = GpuSpgemmStats{};
        a_ = a;
        b_ = b;
        const std::int64_t input_bytes = a.bytes() + (a.same(b) ? 0 : b.bytes());
        if (inputs_external) mem_.add(input_bytes);  // device_bytes_peak counts the inputs either way
        check(cudaSetDevice(opt_.device), "cudaSetDevice");
        const cudaStream_t hs = heavy_.get();
        clock_ = std::make_unique<SymbolicClock>(timed_);
        SymbolicClock& k = *clock_;
        PhaseTimer& timer = k.timer;
        const std::size_t t_setup = timer.start(hs);  // the setup phase includes the parameters' device queries
        choose_params(b.ncols);
        temp_h_.buf.allocate(0, at(hs));

        m_ = a.nrows;
        n_ = b.ncols;
        if (small_pass(k, t_setup)) {
            k.timer.collect();
            clock_.reset();
            st_.device_bytes_peak = mem_.peak;
            if (inputs_external) mem_.remove(input_bytes);
            sym_ = st_;
            planned_ = true;
            return;
        }
        setup();
        const bool once = keep_values && stage_light_rows();
        // light rows on the light stream, heavy rows (batches) on the heavy stream
        const cudaStream_t ls = light_stream();
        timer.mark(k.setup_end, hs, ls != hs);
        timer.stop_at(t_setup, k.setup_end, &st_.setup_ms);
        const std::size_t t_sym = timer.start_at(k.setup_end);
        if (ls != hs) k.setup_end.order_before(ls);
        const std::size_t t_light = timer.start_at(k.setup_end);
        if (once) light_rows<Phase::once>(stage_.col, stage_.val);
        else light_rows<Phase::symbolic>(nullptr, nullptr);
        const Event& light_done = timer.stop(t_light, ls, &st_.light_ms, ls != hs);
        plan_batches();
        for (const BatchSpan& batch : batches_plan_) {
            HeavyValues<V, I> v;
            HeavyBatch hb = build_batch(batch, v, timer);
            segment_phase<Phase::symbolic>(hb, v, nullptr, nullptr);
            if (keep_values && batches_plan_.size() == 1) kept_ = std::make_unique<HeavyValues<V, I>>(std::move(v));  // else freed in stream order
            batches_.push_back(std::move(hb));
        }
        if (ls != hs) light_done.order_before(hs);
        // row offsets of C (the first zeroed by setup()), then where each segment's entries go
        scan(row_nnz(), row_ptr_.data() + 1, m_, true);
        for (HeavyBatch& hb : batches_) {
            segment_offsets(hb);
            if (!keep_pattern_) hb.seg_nnz.allocate(0, at(hs));  // freed in stream order (kept: the known phase's chunk lengths)
        }
        // nnz(C) beside the B and Ã entries the outer products read: one round trip reads them
        check(cudaMemcpyAsync(traffic() + 2, row_ptr_.data() + m_, sizeof(count_t), cudaMemcpyDeviceToDevice, hs), "cudaMemcpyAsync D2D");
        timer.stop(t_sym, hs, &st_.symbolic_ms);
        // one product of light rows staged in one pass, small enough: C is sized by their products
        // and its nnz read at the numeric phase's end (one host wait less: a small product's time)
        const std::int64_t c_cap_bytes = st_.products * static_cast<count_t>(sizeof(I) + sizeof(V));
        nnz_ = -1;
        if (!(once && batches_plan_.empty() && c_cap_bytes <= deferred_nnz_max_bytes)) read_counts(nullptr);
        st_.device_bytes_peak = mem_.peak;
        if (inputs_external) mem_.remove(input_bytes);
        sym_ = st_;
        planned_ = true;
    }

    void choose_params(count_t b_cols) {
        int smem_optin = 0;  // one attribute: cudaGetDeviceProperties queries them all (slow)
        check(cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, opt_.device), "cudaDeviceGetAttribute");
        // s_LM: the opt-in maximum less the largest static shared memory of our kernels (CUB temp
        // storage; 2208 bytes for the 512-thread dense kernel with nvcc 13 / sm_90), read from the
        // compiled kernels: static + dynamic above the opt-in maximum fails cudaFuncSetAttribute.
        const int ms_threads = opt_.multisplit_threads != 0 ? opt_.multisplit_threads : multisplit_block;
        if (opt_.resident_blocks < 0 || opt_.resident_blocks > 8)
            throw InvalidArgument("cuda::spgemm: resident_blocks must be 0 to 8, not " + std::to_string(opt_.resident_blocks));
        if (opt_.heavy_threshold < 0)
            throw InvalidArgument("cuda::spgemm: heavy_threshold must be 0 or more, not " + std::to_string(opt_.heavy_threshold));
        if (opt_.small_row_products < 0 || opt_.small_row_products > small_max_row_products)
            throw InvalidArgument("cuda::spgemm: small_row_products must be 0 to " + std::to_string(small_max_row_products) + ", not " +
                                  std::to_string(opt_.small_row_products));
        if (opt_.warp_row_products < 0)
            throw InvalidArgument("cuda::spgemm: warp_row_products must be 0 or more, not " + std::to_string(opt_.warp_row_products));
        warp_capacity_ = warp_rows_max_capacity(opt_.warp_row_products > 0 ? opt_.warp_row_products : default_warp_row_products);
        check(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, opt_.device), "cudaDeviceGetAttribute");
        if (opt_.dense_wide_windows < 0 || opt_.dense_wide_windows > 64)
            throw InvalidArgument("cuda::spgemm: dense_wide_windows must be 0 to 64, not " + std::to_string(opt_.dense_wide_windows));
        if (opt_.dense_wide_walk < 0 || opt_.dense_wide_walk > dense_wide_walk_ceiling)
            throw InvalidArgument("cuda::spgemm: dense_wide_walk must be 0 to 2^31, not " + std::to_string(opt_.dense_wide_walk));
        if (opt_.light_streams < 0 || opt_.light_streams > 8)
            throw InvalidArgument("cuda::spgemm: light_streams must be 0 to 8, not " + std::to_string(opt_.light_streams));
        light_streams_ = opt_.light_streams > 0 ? opt_.light_streams : default_light_streams;
        const int resident = std::max(opt_.resident_blocks, 1);
        if (opt_.outer_threads != 0 &&
            (opt_.outer_threads < warp_size || opt_.outer_threads > outer_max_threads || (opt_.outer_threads & (opt_.outer_threads - 1)) != 0))
            throw InvalidArgument("cuda::spgemm: outer_threads must be a power of two from 32 to 1024, not " + std::to_string(opt_.outer_threads));
        const std::int64_t max_static = max_static_smem(ms_threads);
        const int outer_regs = kernel_attrs_.front().second.numRegs;  // smem_kernels() lists the outer product first
        const int outer_threads = opt_.outer_threads != 0 ? opt_.outer_threads : outer_block_threads(resident, outer_regs);
        const std::int64_t smem = shared_memory_budget(smem_optin, max_static, opt_.shared_memory_bytes);
        int per_sm = 0, reserved = 0;
        check(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, opt_.device), "cudaDeviceGetAttribute");
        check(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, opt_.device), "cudaDeviceGetAttribute");
        smem_per_sm_ = per_sm;
        smem_reserved_ = reserved;
        const std::int64_t stream = resident > 1 ? stream_budget(smem, per_sm, reserved, max_static, resident) : smem;
        const ElementSizes sizes{static_cast<int>(sizeof(I)), static_cast<int>(sizeof(V)), 8, 4};
        p_ = make_feasible_params(b_cols, smem, sizes, ms_threads, outer_threads, stream, opt_.heavy_threshold);
        if (opt_.dense_wide_windows > 0) p_.wide_max_windows = opt_.dense_wide_windows;
        if (opt_.dense_wide_walk > 0) p_.wide_max_walk = opt_.dense_wide_walk;
        p_.wide_walk_adaptive = opt_.dense_wide_walk_adaptive;
        if (!params_feasible(p_))
            throw NotSupported("cuda::spgemm: shared-memory budget of " + std::to_string(smem) + " bytes is too small for gMAGNUS");
        nbins_ = hash_bin_count(p_);
        if (row_tally_count(nbins_) > max_tallies)  // needs a budget above 2^50 bytes
            throw NotSupported("cuda::spgemm: " + std::to_string(nbins_) + " hash bins are more than the setup kernel counts");
        fill_param_stats();
        set_smem_attributes();
    }

    void fill_param_stats() {
        st_.tau = p_.tau;
        st_.hash_capacity = p_.hash_capacity;
        st_.dense_columns = p_.dense_columns;
        st_.chunks_required = p_.chunks_required;
        st_.chunks_max = p_.chunks_max;
        st_.nlevels = p_.nlevels;
    }

    // The kernels launched with dynamic shared memory (the multisplit pair for the chosen block size).
    static std::vector<const void*> smem_kernels(int ms_threads) {
        const void* hist = nullptr;
        const void* split = nullptr;
        with_multisplit_threads(ms_threads, [&](auto t) {
            hist = reinterpret_cast<const void*>(&histogram_kernel<decltype(t)::value, I>);
            split = reinterpret_cast<const void*>(&multisplit_kernel<decltype(t)::value, V, I>);
        });
        return {reinterpret_cast<const void*>(&outer_product_kernel<V, I>), hist, split,
                reinterpret_cast<const void*>(&hash_rows_kernel<Phase::symbolic, V, I>),
                reinterpret_cast<const void*>(&hash_rows_kernel<Phase::numeric, V, I>),
                reinterpret_cast<const void*>(&hash_rows_kernel<Phase::once, V, I>),
                reinterpret_cast<const void*>(&hash_rows_kernel<Phase::known, V, I>),
                reinterpret_cast<const void*>(&hash_rows_warp_kernel<Phase::symbolic, V, I>),
                reinterpret_cast<const void*>(&hash_rows_warp_kernel<Phase::numeric, V, I>),
                reinterpret_cast<const void*>(&hash_rows_warp_kernel<Phase::once, V, I>),
                reinterpret_cast<const void*>(&hash_rows_warp_kernel<Phase::known, V, I>),
                reinterpret_cast<const void*>(&hash_segments_kernel<Phase::symbolic, V, I>),
                reinterpret_cast<const void*>(&hash_segments_kernel<Phase::numeric, V, I>),
                reinterpret_cast<const void*>(&hash_segments_kernel<Phase::known, V, I>),
                reinterpret_cast<const void*>(&dense_segments_kernel<dense_block, Phase::symbolic, V, I>),
                reinterpret_cast<const void*>(&dense_segments_kernel<dense_block, Phase::numeric, V, I>),
                reinterpret_cast<const void*>(&dense_segments_kernel<dense_block, Phase::known, V, I>),
                reinterpret_cast<const void*>(&dense_wide_rows_kernel<Phase::symbolic, V, I>),
                reinterpret_cast<const void*>(&dense_wide_rows_kernel<Phase::numeric, V, I>),
                reinterpret_cast<const void*>(&dense_wide_rows_kernel<Phase::once, V, I>),
                reinterpret_cast<const void*>(&dense_wide_rows_kernel<Phase::known, V, I>),
                reinterpret_cast<const void*>(&mapped_rows_kernel<true, V, I>),
                reinterpret_cast<const void*>(&mapped_rows_kernel<false, V, I>)};
    }

    // The kernels' attributes (cudaFuncGetAttributes) and the dynamic shared memory they are allowed
    // (cudaFuncSetAttribute), per device and multisplit block size, queried and set once a process:
    // 23 kernels, so 46 runtime calls a product on the host, between the product's first event and
    // its first launch, where a small product's whole device time is some 150 µs.
    struct KernelTable {
        std::vector<std::pair<const void*, cudaFuncAttributes>> attrs;
        int smem_allowed = 0;  // the largest MaxDynamicSharedMemorySize set on all of them
    };
    static std::mutex& kernel_table_mutex() {
        static std::mutex mu;
        return mu;
    }
    static KernelTable& kernel_table(int device, int ms_threads) {  // under kernel_table_mutex()
        static std::map<std::pair<int, int>, KernelTable> tables;
        return tables[{device, ms_threads}];
    }

    // The largest static shared memory of the kernels with dynamic shared memory, whose attributes
    // (registers, static shared memory) kernel_attrs_ keeps for bin_table().
    std::int64_t max_static_smem(int ms_threads) {
        {
            const std::lock_guard<std::mutex> lock(kernel_table_mutex());
            KernelTable& t = kernel_table(opt_.device, ms_threads);
            if (t.attrs.empty())
                for (const void* f : smem_kernels(ms_threads)) {
                    cudaFuncAttributes a{};
                    check(cudaFuncGetAttributes(&a, f), "cudaFuncGetAttributes");
                    t.attrs.emplace_back(f, a);
                }
            kernel_attrs_ = t.attrs;
        }
        std::int64_t mx = 0;
        for (const auto& k : kernel_attrs_) mx = std::max<std::int64_t>(mx, static_cast<std::int64_t>(k.second.sharedSizeBytes));
        return mx;
    }

    // Allows every kernel of smem_kernels() the budget's dynamic shared memory (a maximum: once set
    // to the largest budget asked for, smaller ones need no call). One kernel's attribute is read
    // back each time: a device reset clears them all.
    void set_smem_attributes() {
        const int s = static_cast<int>(p_.smem_bytes);
        const std::lock_guard<std::mutex> lock(kernel_table_mutex());
        KernelTable& t = kernel_table(opt_.device, p_.multisplit_threads);
        if (t.smem_allowed >= s && !t.attrs.empty()) {
            cudaFuncAttributes a{};
            check(cudaFuncGetAttributes(&a, t.attrs.front().first), "cudaFuncGetAttributes");
            if (a.maxDynamicSharedSizeBytes >= s) return;
        }
        for (const void* f : smem_kernels(p_.multisplit_threads))
            check(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, s), "cudaFuncSetAttribute");
        t.smem_allowed = s;
    }

    // Setup phase (Alg. 3 lines 2-4): products per row, then one sort of the rows by class — light
    // rows by hash bin, rows without products, heavy rows last (in order) — and one read of the
    // class tallies, which also size the heavy batches.
    void setup() {
        const cudaStream_t hs = heavy_.get();
        const int ntally = row_tally_count(nbins_);
        rows_.allocate(5 * m_ + 4 + ntally, at(hs));
        row_ptr_.allocate(m_ + 1, at(hs));
        light_begin_.assign(nbins_ + 3, 0);
        nheavy_ = heavy_entries_ = wide_span_ = 0;
        // the sort keys (two arrays of m unsigned), the row ids, then the column spans of B's rows
        // (dense light rows)
        const count_t kb = a_.ncols;
        const bool spans = opt_.dense_light_rows && kb > 0 && m_ > 0;
        DeviceBuffer<count_t> scratch(2 * m_ + (spans ? 2 * kb : 0), at(hs));
        auto* keys = reinterpret_cast<unsigned*>(scratch.data());
        count_t* ids = scratch.data() + m_;
        count_t *b_lo = spans ? ids + m_ : nullptr, *b_hi = spans ? b_lo + kb : nullptr;
        const bool wide = spans && opt_.dense_wide_rows;  // the rows' spans give the wide dense rows
        const count_t window = wide ? dense_wide_window(p_, n_, true) : count_t(0);
        // the candidates' walk for the adaptive walk cap (after the tallies: one read of both)
        count_t* walk_total = wide && p_.wide_walk_adaptive ? traffic() + 3 + ntally : nullptr;
        if (spans)
            launch("col_range_kernel", &col_range_kernel<I>, grid_for(kb, simple_block), simple_block, 0, hs, kb, b_.row_ptr, b_.col_idx, b_lo, b_hi,
                   walk_total);
        // (with m = 0 one block only zeroes the counters: the symbolic phase reads them; the walk's
        // too when no col_range_kernel zeroes it)
        launch("row_products_kernel", &row_products_kernel<I>, grid_for(std::max<count_t>(m_, 1) * warp_size, simple_block), simple_block, 0, hs, m_,
               a_.row_ptr, a_.col_idx, b_.row_ptr, b_lo, b_hi, row_products(), row_lo(), row_hi(), traffic(), 3 + ntally + (walk_total ? 0 : 1),
               row_ptr_.data(), p_, window, walk_total);
        if (m_ == 0) return;
        count_t* tallies = traffic() + 3;
        launch("row_classes_kernel", &row_classes_kernel, grid_for(m_, simple_block), simple_block, 0, hs, m_, row_products(), a_.row_ptr,
               wide ? row_lo() : nullptr, row_hi(), p_, nbins_, window, walk_total, sm_count_, keys, ids, tallies, row_nnz());
        const int bits = floor_log2(nbins_ + 2) + 1;
        temp_h_.run("cub::DeviceRadixSort::SortPairs", [&](void* t, std::size_t& b) {
            return cub::DeviceRadixSort::SortPairs(t, b, keys, keys + m_, ids, row_order(), m_, 0, bits, hs);
        });
        const std::vector<count_t> t = read_device(tallies, ntally + 1, hs);
        for (int bn = 0; bn <= nbins_ + 1; ++bn) light_begin_[bn + 1] = light_begin_[bn] + t[bn];
        nheavy_ = t[nbins_ + 2];
        st_.products = t[nbins_ + 3];
        st_.heavy_products = t[nbins_ + 4];
        heavy_entries_ = t[nbins_ + 5];
        st_.heavy_rows = nheavy_;
        st_.wide_dense_rows = t[nbins_];
        map_products_ = st_.products - st_.heavy_products - t[nbins_ + 6];  // the hash bins' light rows' (product map)
        wide_span_ = t[nbins_ + 7];
        st_.wide_walk_cap = wide ? dense_wide_walk_cap(p_, t[ntally], walk_total != nullptr ? sm_count_ : 0) : 0;
        st_.light_rows = m_ - nheavy_;
    }

    // The setup's arrays (rows_): the products of each row, C's row lengths, the rows in class order
    // (light rows by hash bin, then rows without products, then heavy rows in order), the columns
    // each row's products span (first and last), the outer products' traffic then nnz(C) (3
    // counts), the setup's tallies, the wide dense rows' candidates' walk (adaptive walk cap).
    count_t* row_products() const { return rows_.data(); }
    count_t* row_nnz() const { return rows_.data() + m_; }
    count_t* row_order() const { return rows_.data() + 2 * m_; }
    // the hash tables' flags (GpuSpgemmOptions::warp_sort_steps, ::rank_sort, ::packed_tables)
    unsigned sort_flags() const {
        return (opt_.warp_sort_steps ? sort_warp_steps : 0u) | (opt_.rank_sort ? sort_by_rank : 0u) | (opt_.packed_tables ? table_packed : 0u);
    }
    count_t* row_lo() const { return rows_.data() + 3 * m_; }  // the columns each row's products span (dense_light_rows)
    count_t* row_hi() const { return rows_.data() + 4 * m_; }
    count_t* traffic() const { return rows_.data() + 5 * m_; }

    // What the device has free plus what gigasparse's pool holds unused.
    static std::int64_t available_bytes() {
        std::size_t free_b = 0, total_b = 0;
        check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
        return static_cast<std::int64_t>(free_b) + pool_cached_bytes(current_memory_pool());
    }
    // What the automatic budgets (light-row staging, heavy intermediate) divide: the available bytes
    // less C's when symbolic() cuts the batches again beside C.
    std::int64_t budget_bytes_available() const { return std::max<std::int64_t>(available_bytes() - c_reserve_, 0); }

    // One-call products (symbolic keeping the values): the light rows in one pass (Phase::once)
    // when GpuSpgemmOptions::one_pass_light_rows allows and their staging — a slot per product, at
    // the exclusive scan of the light rows' products (in row_order()) — fits (stage_light_rows_fits:
    // a fifth of the available memory or light_stage_budget_bytes, and no more heavy batches).
    // Allocates and scans it on the heavy stream (before t_setup, which the light stream waits
    // for); returns whether it did. Two passes otherwise: the symbolic hash pass, then the numeric one.
    bool stage_light_rows() {
        const count_t n = light_begin_[nbins_ + 1];  // light rows with products (the hash bins' and the wide dense rows)
        const count_t products = st_.products - st_.heavy_products;
        if (!opt_.one_pass_light_rows || n == 0) return false;
        const std::int64_t bytes = LightStage<V, I>::bytes(n, products);
        const std::int64_t heavy_bytes = st_.heavy_products * 2 * static_cast<count_t>(sizeof(I) + sizeof(V));
        // A small staging without heavy rows is tried without asking what the device has free:
        // cudaMemGetInfo takes some 10 µs of host time between the setup's wait and the light rows'
        // launch, and a failed allocation takes the two passes.
        const bool small = heavy_bytes == 0 && opt_.light_stage_budget_bytes == 0 && bytes <= deferred_nnz_max_bytes;
        if (!small &&
            !stage_light_rows_fits(bytes, heavy_bytes, budget_bytes_available(), opt_.light_stage_budget_bytes, opt_.intermediate_budget_bytes > 0))
            return false;
        const cudaStream_t hs = heavy_.get();
        try {
            stage_.allocate(n, products, at(hs));
        } catch (const OutOfMemory&) {  // two passes need none of it
            stage_ = LightStage<V, I>{};
            return false;
        }
        scan(row_products(), stage_.off, n, false, row_order(), stage_.products);
        st_.light_stage_bytes = bytes;
        return true;
    }

    // A plan's first numeric phase keeps C's columns (heavy stream, after both streams wrote them)
    // for the later ones (Phase::known), when they take at most a fifth of the available memory,
    // and builds the light rows' product map (build_product_map); otherwise every numeric phase
    // hashes and sorts, and the chunks' lengths are freed.
    void keep_pattern(const I* c_col) {
        const cudaStream_t hs = heavy_.get();
        const std::int64_t bytes = nnz_ * static_cast<count_t>(sizeof(I));
        const std::int64_t available = nnz_ > 0 ? available_bytes() : 0;
        bool kept = false;
        if (nnz_ > 0 && bytes <= available / 5) {
            try {
                known_col_.allocate(nnz_, at(hs));
                check(cudaMemcpyAsync(known_col_.data(), c_col, static_cast<std::size_t>(bytes), cudaMemcpyDeviceToDevice, hs), "cudaMemcpyAsync D2D");
                kept = true;
            } catch (const OutOfMemory&) {
                known_col_ = DeviceBuffer<I>{};
            }
        }
        if (kept) {
            build_product_map(available - bytes);  // where its budget allows
            return;
        }
        keep_pattern_ = false;
        for (HeavyBatch& hb : batches_) hb.seg_nnz.allocate(0, at(hs));
    }

    // The product map of the light rows in hash bins (GpuSpgemmOptions::light_product_map; heavy
    // stream, after C's kept columns): each row's first word (the exclusive scan of their products
    // in row_order()), then the words, built by the mapped kernels' build launches, when the map
    // takes at most a fifth of `available` bytes and its ranks fit a map word (product_map_fits).
    // Without it the later numeric phases take Phase::known for those rows too.
    void build_product_map(std::int64_t available) {
        const count_t n = light_begin_[nbins_];
        if (!opt_.light_product_map || n == 0 || map_products_ <= 0 || !product_map_fits(p_) || product_map_bytes(n, map_products_) > available / 5) return;
        const cudaStream_t hs = heavy_.get();
        try {
            map_off_.allocate(n, at(hs));
            map_.allocate(map_products_, at(hs));
            DeviceBuffer<count_t> gathered(n > small_scan_max ? n : 0, at(hs));  // freed in stream order
            scan(row_products(), map_off_.data(), n, false, row_order(), gathered.data());
        } catch (const OutOfMemory&) {
            map_off_ = DeviceBuffer<count_t>{};
            map_ = DeviceBuffer<map_word>{};
            return;
        }
        for (int bn = 0; bn < nbins_; ++bn)
            if (light_begin_[bn + 1] > light_begin_[bn]) mapped_rows<true>(bn, hs, nullptr, nullptr);
    }

    // The light rows of hash bin bn through the product map (Build: its words from C's kept columns;
    // otherwise C's values of those rows, with their columns), on stream s.
    template <bool Build>
    void mapped_rows(int bn, cudaStream_t s, I* c_col, V* c_val) {
        const count_t first = light_begin_[bn], n = light_begin_[bn + 1] - first, cap = hash_bin_capacity(bn);
        const count_t bytes = map_row_bytes(cap, p_.sizes);
        if (mapped_rows_take_warps(cap)) {
            launch(Build ? "product_map_warp_kernel" : "mapped_rows_warp_kernel", &mapped_rows_warp_kernel<Build, V, I>,
                   grid_for(n, mapped_warps_per_block), mapped_warps_per_block * warp_size, static_cast<std::size_t>(mapped_warps_per_block * bytes), s, n, row_order() + first,
                   map_off_.data() + first, bytes, a_.row_ptr, a_.col_idx, a_.values, b_.row_ptr, b_.col_idx, b_.values, row_ptr_.data(),
                   known_col_.data(), map_.data(), c_col, c_val);
        } else {
            launch(Build ? "product_map_kernel" : "mapped_rows_kernel", &mapped_rows_kernel<Build, V, I>, n, mapped_block_threads(cap),
                   static_cast<std::size_t>(bytes), s, row_order() + first, map_off_.data() + first, a_.row_ptr, a_.col_idx, a_.values, b_.row_ptr, b_.col_idx, b_.values, row_ptr_.data(), known_col_.data(),
                   map_.data(), c_col, c_val);
        }
    }

    // The numeric phase of light rows staged by the symbolic phase: moved into C (light stream).
    void unstage_light_rows(I* c_col, V* c_val) {
        launch("unstage_rows_kernel", &unstage_rows_kernel<V, I>, grid_for(stage_.rows * warp_size, simple_block), simple_block, 0, light_stream(),
               stage_.rows, row_order(), stage_.off, stage_.col, stage_.val, row_ptr_.data(), c_col, c_val);
    }

    // The symbolic phase's timer (setup and symbolic phase times among its pairs) and the setup's end
    // (where the light stream forks), read when its counts are (read_counts()).
    struct SymbolicClock {
        explicit SymbolicClock(bool timing) : timer(timing) {}
        PhaseTimer timer;
        Event setup_end;
    };
    // The host's read of the symbolic phase's counts (queued on the heavy stream by symbolic_pass):
    // the B and Ã entries the outer products read and nnz(C), in one round trip, then the phase's
    // times. At the end of symbolic_pass, or of the numeric phase of one small light-only product
    // (`copied` recorded after the copy: that phase's end).
    void read_counts(Event* copied) {
        const auto t = read_device(traffic(), 3, heavy_.get(), copied);
        nnz_ = t[2];
        traffic_bytes_ = t[0] * static_cast<count_t>(sizeof(I) + sizeof(V)) + t[1] * static_cast<count_t>(sizeof(count_t) + sizeof(V));
        st_.outer_bytes += traffic_bytes_;
        clock_->timer.collect();
        st_.nnz_c = nnz_;
        clock_.reset();
    }

    // A small product (small_product_eligible, GpuSpgemmOptions::small_products): C's row offsets,
    // nnz(C) and the products from one counting launch (small_rows_kernel), one block's scan
    // (small_finish_kernel) and one read; numeric() then writes C's rows in one launch. With long
    // rows (small_row_is_long), the first read gives their count instead, the finish kernel's list of them
    // stays in `sums`, and small_long_rows_kernel counts them (their spans kept in small_long_ for
    // the numeric phases, which launch it again), then a second scan and read. The setup's pair of
    // k's timer ends where the counting starts. Returns false when the options or the sizes exclude
    // it, or when a long row's span takes more windows than small_long_max_windows: nothing of it
    // stays allocated, and the binned path runs (its setup time includes the attempt; symbolic()'s
    // second pass, which only follows a binned pass, does not try it again).
    bool small_pass(SymbolicClock& k, std::size_t t_setup) {
        if (!opt_.small_products || c_reserve_ > 0 || !small_product_eligible(m_, a_.nnz, b_.nnz)) return false;
        const cudaStream_t hs = heavy_.get();
        PhaseTimer& timer = k.timer;
        const count_t nblocks = grid_for(m_, small_warps);
        row_ptr_.allocate(m_ + 1, at(hs));
        DeviceBuffer<count_t> sums(2 * nblocks + 4 + m_, at(hs));  // the blocks' partials, the counts, the long rows' list
        count_t* counts = sums.data() + 2 * nblocks;
        count_t* list = counts + 4;
        timer.mark(k.setup_end, hs, false);
        timer.stop_at(t_setup, k.setup_end, &st_.setup_ms);
        const std::size_t t_sym = timer.start_at(k.setup_end);
        small_rows<Phase::symbolic>(row_ptr_.data(), sums.data(), nullptr, nullptr);
        launch("small_finish_kernel", &small_finish_kernel, 1, small_scan_threads, 0, hs, m_, nblocks, sums.data(), row_ptr_.data(), counts, list, false);
        timer.stop(t_sym, hs, &st_.symbolic_ms);
        std::vector<count_t> t = read_device(counts, 4, hs);
        std::size_t t_long = 0;
        if (t[2] > 0) {  // long rows: a block each, then the scan
            small_long_.allocate(3 * t[2], at(hs));
            t_long = timer.start(hs);
            small_long_rows<Phase::symbolic>(list, counts + 3, nullptr, nullptr);
            launch("small_finish_kernel (after long rows)", &small_finish_kernel, 1, small_scan_threads, 0, hs, m_, nblocks, sums.data(), row_ptr_.data(),
                   counts, list, true);
            timer.stop(t_long, hs, &st_.symbolic_ms);
            t = read_device(counts, 4, hs);
        }
        if (t[3] > 0) {  // a long row too wide: the binned path, from its setup
            timer.forget(t_sym);
            timer.forget(t_long);  // (a long row went back: t_long was started)
            row_ptr_ = DeviceBuffer<count_t>{};
            small_long_ = DeviceBuffer<count_t>{};
            st_.small_rows_back = t[3];
            return false;
        }
        small_ = true;
        nheavy_ = heavy_entries_ = 0;  // (the light rows' stream is the heavy one)
        keep_pattern_ = false;  // a plan's numeric phases rehash (one launch each)
        nnz_ = t[0];
        traffic_bytes_ = 0;
        st_.small_product = true;
        st_.small_long_rows = nlong();
        st_.products = t[1];
        st_.nnz_c = nnz_;
        st_.light_rows = m_;
        return true;
    }

    // small_rows_kernel in phase P over every row (symbolic: C's row lengths at c_ptr[1..m] and the
    // blocks' partials; numeric: C's rows at the offsets c_ptr).
    template <Phase P>
    void small_rows(count_t* c_ptr, count_t* partials, I* c_col, V* c_val) {
        const count_t region = small_region_entries(p_.sizes);
        const count_t region_bytes = region * static_cast<count_t>(sizeof(I) + (has_values(P) ? sizeof(V) : 0));
        launch("small_rows_kernel", &small_rows_kernel<P, V, I>, grid_for(m_, small_warps), small_warps * warp_size,
               static_cast<std::size_t>(small_warps * region_bytes), heavy_.get(), m_, region, region_bytes,
               opt_.small_row_products > 0 ? opt_.small_row_products : small_max_row_products, a_.row_ptr, a_.col_idx,
               a_.values, b_.row_ptr, b_.col_idx, b_.values, c_ptr, partials, c_col, c_val, sort_flags());
    }

    // small_long_rows_kernel in phase P over the nlong() long rows (symbolic: those of `list`, their
    // spans to small_long_, a too wide one counted at *back; numeric: C's rows of small_long_).
    template <Phase P>
    void small_long_rows(const count_t* list, count_t* back, I* c_col, V* c_val) {
        launch("small_long_rows_kernel", &small_long_rows_kernel<P, V, I>, nlong(), small_long_threads, static_cast<std::size_t>(small_long_bytes),
               heavy_.get(), list, small_long_.data(), nlong(), small_long_window(p_.sizes, has_values(P)), small_long_window(p_.sizes, true),
               n_, a_.row_ptr, a_.col_idx, a_.values, b_.row_ptr, b_.col_idx, b_.values, row_ptr_.data(), back, c_col, c_val);
    }

    // The light rows' stream: their own beside heavy rows, the heavy one without them (no fork or
    // join: two event records and two waits less a phase).
    cudaStream_t light_stream() const { return nheavy_ > 0 ? light_.get() : heavy_.get(); }

    // The heavy rows, in order (after the light ones in row_order()).
    const count_t* heavy_rows() const { return row_order() + (m_ - nheavy_); }

    // A block-per-row hash kernel's table for bin bn (values: numeric phases) and its block:
    // hash_table_capacity and hash_block_threads from the kernel's registers and static shared
    // memory (kernel_attrs_, queried by choose_params) and the SM's shared memory; without
    // GpuSpgemmOptions::fit_hash_blocks the bin's whole table and half of it in threads (at most 1024).
    struct BinTable {
        count_t cap = 0, bytes = 0;
        int threads = 0;
        count_t window = 0;  // the wide dense rows' windows (wide_table)
    };
    BinTable bin_table(const void* kernel, int bn, bool values) const {
        if (!opt_.fit_hash_blocks) {
            const count_t cap = hash_bin_capacity(bn);
            return {cap, hash_smem_bytes(cap, p_.sizes, values), hash_bin_threads(bn)};
        }
        const cudaFuncAttributes& at = kernel_attr(kernel);
        const auto stat = static_cast<count_t>(at.sharedSizeBytes);
        const int regs = at.numRegs;
        const count_t cap = hash_table_capacity(bn, p_.sizes, values, stat, regs, smem_per_sm_, smem_reserved_);
        const count_t bytes = hash_smem_bytes(cap, p_.sizes, values);
        return {cap, bytes, hash_block_threads(bn, bytes, stat, regs, smem_per_sm_, smem_reserved_)};
    }

    // The wide dense rows' launch (nrows of them): windows of the phase's dense_wide_window, or of the
    // widest span among them when less (the setup's tally), with the bytes and threads of
    // dense_wide_launch.
    BinTable wide_table(const void* kernel, count_t nrows, bool values) const {
        const cudaFuncAttributes& at = kernel_attr(kernel);
        const count_t window = std::min(dense_wide_window(p_, n_, values), std::max<count_t>(wide_span_, 1));
        const DenseWideLaunch dw = dense_wide_launch(p_, window, values, nrows, static_cast<count_t>(at.sharedSizeBytes), at.numRegs, smem_per_sm_,
                                                     smem_reserved_, sm_count_, opt_.fit_hash_blocks);
        return {0, dw.bytes, dw.threads, window};
    }

    // A kernel's attributes, queried by choose_params (kernel_attrs_).
    const cudaFuncAttributes& kernel_attr(const void* kernel) const {
        const auto it = std::find_if(kernel_attrs_.begin(), kernel_attrs_.end(), [&](const auto& k) { return k.first == kernel; });
        if (it == kernel_attrs_.end()) throw BackendError("cuda::spgemm: hash kernel without queried attributes");
        return it->second;
    }

    // The light rows' hash kernels, one launch per nonempty bin, for phase P (launches of the one
    // pass named "... (once)", of a known pattern "... (known)": the simulator's launch counts tell
    // the passes apart). The wide dense rows (bin nbins_, row_key) take dense_wide_rows_kernel, in
    // windows (wide_table), launched with the bytes and threads of dense_wide_launch.
    // The bins go to the light stream and light_streams - 1 more in turn, the largest first (rows
    // times table entries), forked from and joined back into the light stream: a bin's last blocks
    // leave SMs idle that the next bins' fill, and the widest bins' blocks (1024 threads, one an SM)
    // leave thread slots and shared memory that the smaller bins' blocks can take beside them.
    template <Phase P>
    void light_rows(I* c_col, V* c_val) {
        const cudaStream_t ls = light_stream();
        std::vector<int> bins;
        for (int bn = 0; bn <= nbins_; ++bn)
            if (light_begin_[bn + 1] > light_begin_[bn]) bins.push_back(bn);
        const auto capacity = [&](int bn) { return bn == nbins_ ? dense_wide_capacity(p_) : hash_bin_capacity(bn); };
        const auto work = [&](int bn) { return (light_begin_[bn + 1] - light_begin_[bn]) * capacity(bn); };
        std::stable_sort(bins.begin(), bins.end(), [&](int x, int y) { return work(x) > work(y); });
        const int nstreams = static_cast<int>(std::min<std::size_t>(bins.size(), static_cast<std::size_t>(light_streams_)));
        if (nstreams > 1) {
            while (static_cast<int>(bin_streams_.size()) < nstreams - 1) {
                bin_streams_.push_back(std::make_unique<Stream>());
                bin_done_.push_back(std::make_unique<Event>(Event::Kind::ordering));
            }
            bins_forked_.record(ls);
            for (int s = 0; s + 1 < nstreams; ++s) bins_forked_.order_before(bin_streams_[s]->get());
        }
        for (std::size_t x = 0; x < bins.size(); ++x) {
            const int bn = bins[x];
            const int turn = static_cast<int>(x % static_cast<std::size_t>(std::max(nstreams, 1)));
            const cudaStream_t bs = turn == 0 ? ls : bin_streams_[turn - 1]->get();
            const count_t n = light_begin_[bn + 1] - light_begin_[bn];
            const count_t cap = capacity(bn);
            const count_t* rows = row_order() + light_begin_[bn];
            const count_t* stage_off = P == Phase::once ? stage_.off + light_begin_[bn] : nullptr;
            const bool wide = bn == nbins_;  // the wide dense rows: always a block a row
            if (P == Phase::known && !wide && map_.size() > 0) {
                mapped_rows<false>(bn, bs, c_col, c_val);
                continue;
            }
            const int per_block = warp_rows_per_block(cap, p_.sizes, has_values(P), p_.smem_bytes);
            if (!wide && opt_.warp_light_rows && light_bin_takes_warps(cap, n, warp_capacity_, per_block, sm_count_)) {  // a warp per row, several rows per block
                const count_t table = hash_smem_bytes(cap, p_.sizes, has_values(P));
                launch(launch_name<P>("hash_rows_warp_kernel"), &hash_rows_warp_kernel<P, V, I>, grid_for(n, per_block), per_block * warp_size,
                       static_cast<std::size_t>(per_block * table), bs, n, rows, cap, table, a_.row_ptr, a_.col_idx, a_.values, b_.row_ptr, b_.col_idx,
                       b_.values, row_nnz(), row_ptr_.data(), stage_off, known_col_.data(), c_col, c_val, sort_flags(),
                       opt_.dense_light_rows ? row_lo() : nullptr, row_hi());
                continue;
            }
            if (wide) {
                const BinTable bt = wide_table(reinterpret_cast<const void*>(&dense_wide_rows_kernel<P, V, I>), n, has_values(P));
                launch(launch_name<P>("dense_wide_rows_kernel"), &dense_wide_rows_kernel<P, V, I>, n, bt.threads, static_cast<std::size_t>(bt.bytes), bs,
                       rows, bt.window, a_.row_ptr, a_.col_idx, a_.values, b_.row_ptr, b_.col_idx, b_.values, row_nnz(), row_ptr_.data(), stage_off,
                       known_col_.data(), c_col, c_val, row_lo(), row_hi());
                continue;
            }
            const BinTable bt = bin_table(reinterpret_cast<const void*>(&hash_rows_kernel<P, V, I>), bn, has_values(P));
            launch(launch_name<P>("hash_rows_kernel"), &hash_rows_kernel<P, V, I>, n, bt.threads, static_cast<std::size_t>(bt.bytes), bs,
                   rows, bt.cap, a_.row_ptr, a_.col_idx, a_.values, b_.row_ptr, b_.col_idx, b_.values, row_nnz(), row_ptr_.data(), stage_off,
                   known_col_.data(), c_col, c_val, sort_flags(), opt_.dense_light_rows ? row_lo() : nullptr, row_hi());
        }
        for (int s = 0; s + 1 < nstreams; ++s) {
            bin_done_[s]->record(bin_streams_[s]->get());
            bin_done_[s]->order_before(ls);
        }
    }

    // Heavy rows in batches whose double-buffered intermediate fits the budget. One batch when all
    // heavy products fit (the setup's tallies tell): no device work. Otherwise the prefix sums of
    // the heavy rows' products and A entries, read in one round trip, give the batches.
    void plan_batches() {
        batches_plan_.clear();
        if (nheavy_ == 0) return;
        std::int64_t budget_bytes = opt_.intermediate_budget_bytes;
        if (budget_bytes <= 0) budget_bytes = intermediate_budget_bytes(budget_bytes_available());
        const count_t budget = std::max<count_t>(1, budget_bytes / (2 * static_cast<count_t>(sizeof(I) + sizeof(V))));
        if (st_.heavy_products <= budget) {
            batches_plan_.push_back({0, nheavy_, st_.heavy_products, heavy_entries_});
        } else {
            const cudaStream_t hs = heavy_.get();
            DeviceBuffer<count_t> work(3 * nheavy_, at(hs));  // the prefix sums of products and entries, then the sizes
            count_t *prefix = work.data(), *sizes = prefix + 2 * nheavy_;
            scan(row_products(), prefix, nheavy_, true, heavy_rows(), sizes);
            launch("row_lengths_kernel", &row_lengths_kernel, grid_for(nheavy_, simple_block), simple_block, 0, hs, nheavy_, heavy_rows(), a_.row_ptr,
                   sizes, nullptr, nullptr, nullptr);
            scan(sizes, prefix + nheavy_, nheavy_, true);
            const std::vector<count_t> h = read_device(prefix, 2 * nheavy_, hs);
            const count_t* products = h.data();
            const count_t* entries = h.data() + nheavy_;
            const auto between = [](const count_t* pre, count_t first, count_t last) { return pre[last - 1] - (first == 0 ? 0 : pre[first - 1]); };
            for (count_t first = 0; first < nheavy_;) {
                const count_t last = batch_end(products, nheavy_, first, budget);
                batches_plan_.push_back({first, last, between(products, first, last), between(entries, first, last)});
                first = last;
            }
        }
        st_.batches = static_cast<count_t>(batches_plan_.size());
    }

    // The pattern of the heavy rows of `batch` (Alg. 3 lines 7-20): Ĉ's row starts, the masked CSC of
    // A, the outer product and the hierarchical multisplit, which also fill v with the batch's
    // intermediate for the symbolic accumulation.
    HeavyBatch build_batch(const BatchSpan& batch, HeavyValues<V, I>& v, PhaseTimer& timer) {
        const cudaStream_t hs = heavy_.get();
        HeavyBatch hb;
        hb.span = batch;
        const count_t nh = batch.last - batch.first;
        const count_t* rows = heavy_rows() + batch.first;
        const count_t ka = a_.ncols;
        const std::size_t t_csc = timer.start(hs);
        // Ĉ.rowPtr of the batch
        // the transient arrays in one allocation: row sizes, entry offsets, then per A entry its key,
        // row, entry of A, position and sorted position, then the slice sizes, then per heavy row
        // its row of C and column base (the multisplit's first input) and its outer-product cursor
        const count_t nent = batch.entries;  // = entry_ptr[nh], known from the plan: no round trip
        DeviceBuffer<count_t> work(2 * nh + 1 + 5 * nent + std::max<count_t>(ka, 1) + 3 * nh, at(hs));
        count_t* sizes = work.data();
        count_t* entry_ptr = sizes + nh;
        count_t* keys = entry_ptr + nh + 1;
        count_t *ent_h = keys + nent, *ent_j = ent_h + nent, *ent_t = ent_j + nent, *t_sorted = ent_t + nent;
        count_t* slice_sizes = t_sorted + nent;
        count_t* in_row = slice_sizes + std::max<count_t>(ka, 1);
        count_t *in_base = in_row + nh, *outer_cursor = in_base + nh;
        hb.chat_ptr.allocate(nh + 1, at(hs));
        scan(row_products(), hb.chat_ptr.data() + 1, nh, true, rows, sizes);
        // masked CSR -> CSC of the batch's rows of A (stable radix sort by column); the same kernel
        // copies the rows and zeroes the column bases and cursors
        launch("row_lengths_kernel", &row_lengths_kernel, grid_for(nh, simple_block), simple_block, 0, hs, nh, rows, a_.row_ptr, sizes,
               hb.chat_ptr.data(), entry_ptr, in_row);
        scan(sizes, entry_ptr + 1, nh, true);
        DeviceBuffer<count_t> keys_sorted(nent, at(hs));  // kept: the CSC's columns
        launch("heavy_entries_kernel", &heavy_entries_kernel<I>, grid_for(nh * warp_size, simple_block), simple_block, 0, hs, nh, rows,
               a_.row_ptr, a_.col_idx, b_.row_ptr, entry_ptr, ka, keys, ent_h, ent_j, ent_t);
        const int key_bits = floor_log2(std::max<count_t>(ka, 1)) + 1;
        temp_h_.run("cub::DeviceRadixSort::SortPairs", [&](void* t, std::size_t& b) {
            return cub::DeviceRadixSort::SortPairs(t, b, reinterpret_cast<const ull*>(keys), reinterpret_cast<ull*>(keys_sorted.data()), ent_t, t_sorted,
                                                   nent, 0, key_bits, hs);
        });
        hb.csc_ptrs.allocate(2 * (ka + 1), at(hs));
        launch("csc_colptr_kernel", &csc_colptr_kernel, grid_for(ka + 1, simple_block), simple_block, 0, hs, ka, nent, keys_sorted.data(),
               hb.col_ptr());
        // the kept entries (col_ptr[ka] <= nent) stay a device count: no round trip
        hb.csc_rs.allocate(2 * nent, at(hs));
        launch("csc_gather_kernel", &csc_gather_kernel, grid_for(nent, simple_block), simple_block, 0, hs, nent, hb.col_ptr() + ka, t_sorted, ent_h,
               ent_j, hb.csc_row(), hb.csc_src());
        launch("slice_sizes_kernel", &slice_sizes_kernel, grid_for(ka, simple_block), simple_block, 0, hs, ka, hb.col_ptr(), b_.row_ptr, slice_sizes,
               traffic(), hb.slice_off());
        scan(slice_sizes, hb.slice_off() + 1, ka, true);
        hb.csc_col = std::move(keys_sorted);  // each position's column: the outer product's step 2 reads it
        const count_t outer_blocks = grid_for(batch.products, static_cast<int>(p_.outer_group_elems));
        hb.outer_entries.allocate(2 * outer_blocks, at(hs));
        launch("outer_block_entries_kernel", &outer_block_entries_kernel, grid_for(outer_blocks, simple_block), simple_block, 0, hs, outer_blocks,
               batch.products, p_.outer_group_elems, ka, hb.slice_off(), hb.col_ptr(), b_.row_ptr, hb.outer_entries.data());
        timer.stop(t_csc, hs, &st_.csc_ms);
        v = alloc_values(hb);
        outer_product(hb, v, timer, outer_cursor);
        // hierarchical multisplit (Alg. 5), double buffered, heavy chunks first
        const std::size_t t_ms = timer.start(hs);
        // each level's output rows' row of C and column base (kept until the segments are made)
        std::vector<DeviceBuffer<count_t>> level_rb;
        count_t n_in = nh, total = hb.span.products;
        int in_buf = 0, span = p_.span_log2;
        for (int level = 0; level < p_.nlevels && n_in > 0; ++level) {
            ++st_.levels_run;
            const bool last_level = level + 1 == p_.nlevels;
            HeavyBatch::Level lv;
            LevelArgs& L = lv.L;
            L = LevelArgs{total, n_in, p_.multisplit_group_elems[level], p_.multisplit_group_rows[level], p_.chunks_log2[level],
                          span - p_.chunks_log2[level]};
            const count_t nchunks = count_t(1) << L.chunks_log2;
            const count_t n_out = n_in * nchunks;
            const count_t slots = L.group_rows * nchunks;
            const int ms_threads = p_.multisplit_threads;
            const int warps = ms_threads / warp_size;
            lv.n_out = n_out;
            lv.in_buf = in_buf;
            lv.blocks = grid_for(total, static_cast<int>(L.group_elems));
            lv.shmem = static_cast<std::size_t>(multisplit_smem_bytes(L.group_elems, L.group_rows, nchunks, ms_threads, p_.sizes));
            lv.chunks.allocate(2 * n_out + 1, at(hs));
            // the level's transient arrays in one allocation (chunk counts and the multisplit's
            // cursors, zeroed together, ids, order, sizes, the partition's count and the split
            // flags), and the output rows' row and base in another (the next level's input)
            DeviceBuffer<count_t> work(5 * n_out + 2 + ceil_div(n_out, static_cast<count_t>(sizeof(count_t))), at(hs));
            count_t *counts = work.data(), *cursor = counts + n_out, *ids = cursor + n_out, *order = ids + n_out, *osz = order + n_out;
            count_t* split = osz + n_out;
            char* flags = reinterpret_cast<char*>(split + 2);
            level_rb.emplace_back(2 * n_out, at(hs));
            count_t *out_row = level_rb.back().data(), *out_base = out_row + n_out;
            check(cudaMemsetAsync(counts, 0, 2 * n_out * sizeof(count_t), hs), "cudaMemsetAsync");
            // the blocks' histograms for this build's multisplit kernel, while they take at most an
            // eighth of the level's elements' bytes (a plan's later builds count them in the kernel)
            DeviceBuffer<unsigned> block_hist;
            const count_t hist_words = lv.blocks * slots * warps;
            if (hist_words * static_cast<count_t>(sizeof(unsigned)) <= total * static_cast<count_t>(sizeof(I) + sizeof(V)) / 8)
                block_hist.allocate(hist_words, at(hs));
            const count_t* in_ptr = hb.in_ptr(hb.levels.size());
            const std::size_t t_hist = timer.start(hs);
            with_multisplit_threads(ms_threads, [&](auto t) {
                launch("histogram_kernel", &histogram_kernel<decltype(t)::value, I>, lv.blocks, ms_threads,
                       static_cast<std::size_t>(slots * warps) * sizeof(unsigned), hs, L, in_ptr, v.col[in_buf].data(), counts, block_hist.data());
            });
            timer.stop(t_hist, hs, &st_.multisplit_kernels_ms);
            launch("split_flags_kernel", &split_flags_kernel, grid_for(n_out, simple_block), simple_block, 0, hs, n_out, counts, L.sub_log2, p_, flags,
                   ids);
            const count_t* ord = ids;
            if (!last_level) {
                temp_h_.run("cub::DevicePartition::Flagged", [&](void* t, std::size_t& b) {
                    return cub::DevicePartition::Flagged(t, b, ids, flags, order, split, n_out, hs);
                });
                ord = order;
            }
            launch("level_order_kernel", &level_order_kernel, grid_for(n_out, simple_block), simple_block, 0, hs, n_out, ord, counts, in_row, in_base,
                   L.chunks_log2, L.sub_log2, lv.pos(), osz, out_row, out_base, lv.out_ptr());
            scan(osz, lv.out_ptr() + 1, n_out, true);
            // split chunks and their elements, in one round trip (before the multisplit runs)
            count_t n_split = 0, next_total = 0;
            if (!last_level) {
                launch("level_split_kernel", &level_split_kernel, 1, 1, 0, hs, split, lv.out_ptr());
                const auto h = read_device(split, 2, hs);
                n_split = h[0];
                next_total = h[1];
            }
            lv.n_split = n_split;
            hb.levels.push_back(std::move(lv));
            multisplit(hb, hb.levels.size() - 1, v, timer, cursor, block_hist.data());
            // next level: the heavy prefix of this level's output (double buffering: writes into the
            // consumed input buffer never reach this level's segments, which lie past the prefix;
            // this level's transient buffers are freed in stream order after their last use)
            total = next_total;
            n_in = n_split;
            in_row = out_row;
            in_base = out_base;
            in_buf = 1 - in_buf;
            span = hb.levels.back().L.sub_log2;
        }
        // the segments, written into one array: the light (and, on the last level, dense) chunks of
        // every level, or without a multisplit the heavy rows themselves
        count_t nsegs = 0;
        for (const HeavyBatch::Level& lv : hb.levels) nsegs += lv.n_out - lv.n_split;
        if (hb.levels.empty()) nsegs = nh;
        hb.nsegs = nsegs;
        hb.segs.allocate(nsegs, at(hs));
        if (hb.levels.empty()) {
            launch("make_segments_kernel", &make_segments_kernel, grid_for(nh, simple_block), simple_block, 0, hs, 0, nh, hb.chat_ptr.data(),
                   in_row, in_base, 0, span, hb.segs.data());
        }
        count_t seg_at = 0;
        for (std::size_t l = 0; l < hb.levels.size(); ++l) {
            const HeavyBatch::Level& lv = hb.levels[l];
            const count_t nseg = lv.n_out - lv.n_split;
            const count_t* out_row = level_rb[l].data();
            if (nseg > 0)
                launch("make_segments_kernel", &make_segments_kernel, grid_for(nseg, simple_block), simple_block, 0, hs, lv.n_split, lv.n_out,
                       lv.out_ptr(), out_row, out_row + lv.n_out, 1 - lv.in_buf, lv.L.sub_log2, hb.segs.data() + seg_at);
            seg_at += nseg;
        }
        timer.stop(t_ms, hs, &st_.multisplit_ms);
        bin_segments(hb);
        return hb;  // the level buffers are freed in stream order
    }

    HeavyValues<V, I> alloc_values(const HeavyBatch& hb) {
        const cudaStream_t hs = heavy_.get();
        HeavyValues<V, I> v;
        v.col[0].allocate(hb.span.products, at(hs));
        v.val[0].allocate(hb.span.products, at(hs));
        if (p_.nlevels > 0) {
            v.col[1].allocate(hb.span.products, at(hs));
            v.val[1].allocate(hb.span.products, at(hs));
        }
        return v;
    }

    // A's values in CSC order, then the outer product (Alg. 4) into v's first buffer; cursor: a zeroed
    // count per heavy row of the batch.
    void outer_product(const HeavyBatch& hb, HeavyValues<V, I>& v, PhaseTimer& timer, count_t* cursor) {
        const cudaStream_t hs = heavy_.get();
        const count_t ka = a_.ncols;
        const std::size_t t_csc = timer.start(hs);
        DeviceBuffer<V> csc_val(hb.span.entries, at(hs));
        launch("gather_values_kernel", &gather_values_kernel<V>, grid_for(hb.span.entries, simple_block), simple_block, 0, hs, hb.span.entries, hb.col_ptr() + ka,
               hb.csc_src(), a_.values, csc_val.data());
        const std::size_t t_outer = timer.start_at(timer.stop(t_csc, hs, &st_.csc_ms));  // one event ends the one and starts the other
        const count_t ge = p_.outer_group_elems;
        launch("outer_product_kernel", &outer_product_kernel<V, I>, grid_for(hb.span.products, static_cast<int>(ge)), p_.outer_threads,
               static_cast<std::size_t>(outer_smem_bytes(ge, p_.sizes)), hs, hb.span.products, ge,
               static_cast<unsigned>(outer_owner_run(ge, p_.outer_threads)), hb.outer_entries.data(), hb.slice_off(),
               hb.col_ptr(), hb.csc_col.data(), hb.csc_row(), csc_val.data(), b_.row_ptr, b_.col_idx, b_.values, hb.chat_ptr.data(),
               cursor, v.col[0].data(), v.val[0].data());
        timer.stop(t_outer, hs, &st_.outer_ms);
        st_.outer_bytes += hb.span.products * static_cast<count_t>(sizeof(I) + sizeof(V));  // + B and Ã reads: traffic()
    }

    // The multisplit kernel of level l (its histogram, order and output chunks are in hb; cursor: a
    // zeroed count per output row; block_hist: the histogram kernel's per-block histograms of this
    // build, or null: counted in the kernel).
    void multisplit(const HeavyBatch& hb, std::size_t l, HeavyValues<V, I>& v, PhaseTimer& timer, count_t* cursor, const unsigned* block_hist = nullptr) {
        const cudaStream_t hs = heavy_.get();
        const HeavyBatch::Level& lv = hb.levels[l];
        const int in = lv.in_buf, out = 1 - lv.in_buf;
        const std::size_t t_split = timer.start(hs);
        with_multisplit_threads(p_.multisplit_threads, [&](auto t) {
            launch("multisplit_kernel", &multisplit_kernel<decltype(t)::value, V, I>, lv.blocks, p_.multisplit_threads, lv.shmem, hs, lv.L, hb.in_ptr(l),
                   v.col[in].data(), v.val[in].data(), lv.pos(), lv.out_ptr(), cursor, v.col[out].data(), v.val[out].data(), block_hist);
        });
        timer.stop(t_split, hs, &st_.multisplit_kernels_ms);
        st_.multisplit_bytes += lv.L.total * static_cast<count_t>(3 * sizeof(I) + 2 * sizeof(V));
    }

    // A batch's intermediate from the current values: the outer product and the multisplit kernels
    // only (the pattern work and its host waits were done by the symbolic phase), their cursors in
    // one zeroed array.
    HeavyValues<V, I> rebuild_values(const HeavyBatch& hb, PhaseTimer& timer) {
        const cudaStream_t hs = heavy_.get();
        HeavyValues<V, I> v = alloc_values(hb);
        const count_t nh = hb.span.last - hb.span.first;
        count_t ncursors = nh;
        for (const HeavyBatch::Level& lv : hb.levels) ncursors += lv.n_out;
        DeviceBuffer<count_t> cursors(ncursors, at(hs));
        check(cudaMemsetAsync(cursors.data(), 0, ncursors * sizeof(count_t), hs), "cudaMemsetAsync");
        outer_product(hb, v, timer, cursors.data());
        const std::size_t t_ms = timer.start(hs);
        count_t at_cursor = nh;
        for (std::size_t l = 0; l < hb.levels.size(); ++l) {
            multisplit(hb, l, v, timer, cursors.data() + at_cursor);
            at_cursor += hb.levels[l].n_out;
        }
        timer.stop(t_ms, hs, &st_.multisplit_ms);
        return v;
    }

    void bin_segments(HeavyBatch& hb) {
        const cudaStream_t hs = heavy_.get();
        const count_t n = hb.nsegs;
        hb.bin_begin.assign(nbins_ + 3, 0);
        hb.seg_nnz.allocate(n, at(hs));
        hb.seg_out.allocate(n, at(hs));
        if (n == 0) return;
        // the sort keys (two arrays of n unsigned), the ids and the bins' counts in one allocation
        DeviceBuffer<count_t> work(2 * n + nbins_ + 2, at(hs));
        auto* keys = reinterpret_cast<unsigned*>(work.data());
        count_t *ids = work.data() + n, *counts = ids + n;
        hb.bin_ids.allocate(n, at(hs));
        check(cudaMemsetAsync(counts, 0, (nbins_ + 2) * sizeof(count_t), hs), "cudaMemsetAsync");
        launch("segment_bin_keys_kernel", &segment_bin_keys_kernel, grid_for(n, simple_block), simple_block, 0, hs, n, hb.segs.data(), p_, nbins_, keys,
               ids, counts, hb.seg_nnz.data());
        const int bits = floor_log2(nbins_ + 1) + 1;
        temp_h_.run("cub::DeviceRadixSort::SortPairs", [&](void* t, std::size_t& b) {
            return cub::DeviceRadixSort::SortPairs(t, b, keys, keys + n, ids, hb.bin_ids.data(), n, 0, bits, hs);
        });
        const std::vector<count_t> h = read_device(counts, nbins_ + 2, hs);
        for (int bn = 0; bn < nbins_ + 2; ++bn) hb.bin_begin[bn + 1] = hb.bin_begin[bn] + h[bn];
    }

    // Symbolic (seg_nnz and row_nnz) or numeric (into C's columns and values) accumulation of a
    // batch's segments.
    template <Phase P>
    void segment_phase(HeavyBatch& hb, HeavyValues<V, I>& v, I* c_col, V* c_val) {
        const cudaStream_t hs = heavy_.get();
        for (int bn = 0; bn < nbins_; ++bn) {
            const count_t n = hb.bin_begin[bn + 1] - hb.bin_begin[bn];
            if (n == 0) continue;
            const BinTable bt = bin_table(reinterpret_cast<const void*>(&hash_segments_kernel<P, V, I>), bn, has_values(P));
            launch(launch_name<P>("hash_segments_kernel"), &hash_segments_kernel<P, V, I>, n, bt.threads, static_cast<std::size_t>(bt.bytes), hs,
                   hb.bin_ids.data() + hb.bin_begin[bn], hb.segs.data(), bt.cap, v.col[0].data(), v.val[0].data(), v.col[1].data(), v.val[1].data(),
                   hb.seg_nnz.data(), hb.seg_out.data(), known_col_.data(), c_col, c_val, sort_flags());
        }
        const count_t nd = hb.bin_begin[nbins_ + 1] - hb.bin_begin[nbins_];
        if (nd > 0) {
            const auto shmem = static_cast<std::size_t>(dense_smem_bytes(chunk_span_log2(p_, p_.nlevels), p_.sizes, has_values(P)));
            // consecutive chunks a block (dense_chunks_per_block), for the two blocks an SM of its launch bound
            const count_t per = dense_chunks_per_block(nd, 2 * static_cast<count_t>(sm_count_));
            launch(launch_name<P>("dense_segments_kernel"), &dense_segments_kernel<dense_block, P, V, I>, ceil_div(nd, per), dense_block, shmem, hs, nd,
                   per, static_cast<count_t>(shmem), hb.bin_ids.data() + hb.bin_begin[nbins_], hb.segs.data(), v.col[0].data(), v.val[0].data(), v.col[1].data(), v.val[1].data(),
                   hb.seg_nnz.data(), hb.seg_out.data(), known_col_.data(), c_col, c_val);
        }
        if (P == Phase::symbolic && hb.nsegs > 0) {
            launch("segment_row_nnz_kernel", &segment_row_nnz_kernel, grid_for(hb.nsegs, simple_block), simple_block, 0, hs, hb.nsegs, hb.segs.data(),
                   hb.seg_nnz.data(), row_nnz());
        }
    }

    // Output position of each segment: its row's start plus the nnz of the row's segments with a
    // smaller column base (two stable radix sorts give the (row, base) order).
    void segment_offsets(HeavyBatch& hb) {
        const cudaStream_t hs = heavy_.get();
        const count_t n = hb.nsegs;
        if (n == 0) return;
        DeviceBuffer<count_t> work(9 * n, at(hs));  // nine arrays of n in one allocation
        const auto part = [&](int k) { return work.data() + k * n; };
        count_t *kb = part(0), *kr = part(1), *ids = part(2), *kb2 = part(3), *ids2 = part(4), *kr_sorted = part(5), *ids3 = part(6), *cnt = part(7),
                *g = part(8);
        launch("segment_keys_kernel", &segment_keys_kernel, grid_for(n, simple_block), simple_block, 0, hs, n, hb.segs.data(), kb, kr, ids);
        const int base_bits = std::max(1, p_.span_log2 + 1);
        temp_h_.run("cub::DeviceRadixSort::SortPairs", [&](void* t, std::size_t& b) {
            return cub::DeviceRadixSort::SortPairs(t, b, reinterpret_cast<const ull*>(kb), reinterpret_cast<ull*>(kb2), ids, ids2, n, 0, base_bits, hs);
        });
        // rows in the base order, then a stable sort by row
        launch("gather_kernel", &gather_kernel, grid_for(n, simple_block), simple_block, 0, hs, n, ids2, kr, kb);
        const int row_bits = floor_log2(std::max<count_t>(m_, 1)) + 1;
        temp_h_.run("cub::DeviceRadixSort::SortPairs", [&](void* t, std::size_t& b) {
            return cub::DeviceRadixSort::SortPairs(t, b, reinterpret_cast<const ull*>(kb), reinterpret_cast<ull*>(kr_sorted), ids2, ids3, n, 0, row_bits, hs);
        });
        scan(hb.seg_nnz.data(), g, n, false, ids3, cnt);
        launch("segment_offsets_kernel", &segment_offsets_kernel, grid_for(n, simple_block), simple_block, 0, hs, n, ids3, kr_sorted, g, row_ptr_.data(), hb.seg_out.data());
    }

    // Prefix sums of n counts x[i] = in[idx[i]] (in[i] without idx) on the heavy stream:
    // out[i] = x[0] + ... + x[i] (inclusive) or the sum before i. One block (small_scan_kernel, which
    // gathers as it loads) up to small_scan_max counts; beyond, a gather into `gathered` (n counts,
    // needed with idx) and a CUB scan of it.
    void scan(const count_t* in, count_t* out, count_t n, bool inclusive, const count_t* idx = nullptr, count_t* gathered = nullptr) {
        const cudaStream_t hs = heavy_.get();
        if (n <= 0) return;
        if (n <= small_scan_max) {
            if (inclusive) launch("small_scan_kernel (inclusive)", &small_scan_kernel<true>, 1, small_scan_threads, 0, hs, in, idx, out, n);
            else launch("small_scan_kernel (exclusive)", &small_scan_kernel<false>, 1, small_scan_threads, 0, hs, in, idx, out, n);
            return;
        }
        if (idx) {
            launch("gather_kernel", &gather_kernel, grid_for(n, simple_block), simple_block, 0, hs, n, idx, in, gathered);
            in = gathered;
        }
        if (inclusive) {
            temp_h_.run("cub::DeviceScan::InclusiveSum", [&](void* t, std::size_t& b) { return cub::DeviceScan::InclusiveSum(t, b, in, out, n, hs); });
        } else {
            temp_h_.run("cub::DeviceScan::ExclusiveSum", [&](void* t, std::size_t& b) { return cub::DeviceScan::ExclusiveSum(t, b, in, out, n, hs); });
        }
    }

    // Device buffers of this product: ordered on stream s, counted in mem_.
    Placement at(cudaStream_t s) { return Placement{s, &mem_}; }

    GpuSpgemmOptions opt_;
    GpuSpgemmStats& st_;
    GpuSpgemmStats sym_;  // the statistics at the end of symbolic()
    bool timed_ = true;   // st_'s phase times measured (PhaseTimer)
    Params p_{};
    int nbins_ = 0;
    count_t wide_span_ = 0;  // the widest span of a wide dense row (the setup's tally; wide_table)
    int sm_count_ = 1;           // the device's SMs (light_bin_takes_warps)
    count_t warp_capacity_ = 0;  // largest table of light rows that may take a warp each
    count_t smem_per_sm_ = 0, smem_reserved_ = 0;  // the SM's shared memory, and what the runtime reserves a block
    std::vector<std::pair<const void*, cudaFuncAttributes>> kernel_attrs_;  // the kernels of smem_kernels(), by max_static_smem()
    MemoryTracker mem_;
    Stream heavy_, light_;
    int light_streams_ = 1;                             // streams the light bins take in turn (GpuSpgemmOptions::light_streams)
    std::vector<std::unique_ptr<Stream>> bin_streams_;  // the light stream's helpers, created on first use
    std::vector<std::unique_ptr<Event>> bin_done_;      // each helper's last bin
    Event bins_forked_{Event::Kind::ordering};          // the light stream before its bins
    Temp temp_h_;  // CUB storage (every CUB call runs on the heavy stream)
    DeviceCsrRef<V, I> a_, b_;  // the operands of the current phase
    bool planned_ = false;
    count_t m_ = 0, n_ = 0, nheavy_ = 0, nnz_ = 0;
    count_t traffic_bytes_ = 0;  // B and Ã reads of one build of all batches' intermediates
    count_t heavy_entries_ = 0;  // entries of A in the heavy rows
    DeviceBuffer<count_t> rows_;     // one allocation for row_products(), row_nnz(), row_order(), row_lo(), row_hi(), traffic() and the tallies (setup())
    DeviceBuffer<count_t> row_ptr_;  // C's row offsets (moved into C by a one-product numeric phase)
    std::vector<count_t> light_begin_;  // light rows of hash bin b (b = nbins_: the wide dense rows): row_order()[light_begin_[b], light_begin_[b + 1])
    std::vector<BatchSpan> batches_plan_;
    std::vector<HeavyBatch> batches_;
    std::unique_ptr<HeavyValues<V, I>> kept_;  // one batch's intermediate, from symbolic(keep_values)
    LightStage<V, I> stage_;                   // the light rows' output, from symbolic(keep_values) in one pass
    DeviceBuffer<I> known_col_;                // C's columns, kept by a plan's first numeric phase for Phase::known
    DeviceBuffer<count_t> map_off_;            // the product map (build_product_map): each hash-bin light row's first word,
    DeviceBuffer<map_word> map_;               // and each product's rank in its C row
    count_t map_products_ = 0;                 // the hash bins' light rows' products (the setup's tallies)
    count_t c_reserve_ = 0;                    // bytes of C set aside from the automatic budgets (symbolic()'s second pass)
    bool keep_pattern_ = false;                // a plan (symbolic without keep_values) with GpuSpgemmOptions::keep_c_pattern
    bool one_product_ = false;                 // symbolic(keep_values): one numeric phase follows
    bool small_ = false;                       // the small-product path (small_pass) planned this product
    DeviceBuffer<count_t> small_long_;         // its long rows: each one's row, first and last column (nlong() each)
    count_t nlong() const { return static_cast<count_t>(small_long_.size()) / 3; }
    std::unique_ptr<SymbolicClock> clock_;    // until read_counts()
};

// What both entry points (host CSR and DeviceMatrix) do around a product: the shape check, fresh
// statistics, the device made current before Gmagnus creates its streams; then run(g).
template <class V, class I, class Run>
auto with_gmagnus(std::int64_t a_rows, std::int64_t a_cols, std::int64_t b_rows, std::int64_t b_cols, const GpuSpgemmOptions& options,
                  GpuSpgemmStats* stats, Run&& run) {
    if (a_cols != b_rows)
        throw DimensionMismatch("cuda::spgemm: A is " + std::to_string(a_rows) + " x " + std::to_string(a_cols) + " but B is " +
                                std::to_string(b_rows) + " x " + std::to_string(b_cols));
    GpuSpgemmStats local;
    GpuSpgemmStats& st = stats ? *stats : local;
    st = GpuSpgemmStats{};
    check(cudaSetDevice(options.device), "cudaSetDevice");
    Gmagnus<V, I> g(options, st, stats != nullptr && options.time_phases);
    return run(g);
}

// C = A·B with gMAGNUS (the body of cuda::spgemm; the CPU simulator's tests call it directly).
template <class V, class I>
Csr<V, I> multiply(CsrView<V, I> a, CsrView<V, I> b, const GpuSpgemmOptions& options, GpuSpgemmStats* stats) {
    return with_gmagnus<V, I>(a.nrows, a.ncols, b.nrows, b.ncols, options, stats, [&](Gmagnus<V, I>& g) { return g.run(a, b); });
}

}  // namespace gmagnus
}  // namespace GIGASPARSE_CUDA_ABI

#ifndef GIGASPARSE_CUDA_SIM  // the simulator's tests call gmagnus::multiply: the library's cuda::spgemm stays the GPU one
template <class V, class I>
Csr<V, I> spgemm(CsrView<V, I> a, CsrView<V, I> b, const GpuSpgemmOptions& options, GpuSpgemmStats* stats) {
    return gmagnus::multiply(a, b, options, stats);
}
#endif

}  // namespace gigasparse::cuda
