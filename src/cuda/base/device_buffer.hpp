// src/cuda/base/device_buffer.hpp: RAII device memory (with a peak-usage tracker), streams, events, and device-resident CSR.
#pragma once

#include <gigasparse/cuda/abi.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include <gigasparse/core/matrix.hpp>

#include "cuda/base/check.hpp"
#include "cuda/base/memory_pool.hpp"

namespace gigasparse::cuda {
inline namespace GIGASPARSE_CUDA_ABI {

// Counts the bytes a computation holds on the device (current and peak).
struct MemoryTracker {
    std::int64_t current = 0;
    std::int64_t peak = 0;
    void add(std::int64_t bytes) {
        current += bytes;
        if (current > peak) peak = current;
    }
    void remove(std::int64_t bytes) { current -= bytes; }
};

// Where a DeviceBuffer lives: the stream its allocation and its free are ordered on (null: the
// legacy default stream), and the tracker that counts its bytes (optional).
struct Placement {
    cudaStream_t stream = nullptr;
    MemoryTracker* tracker = nullptr;
};

// Owning, move-only device array of T (uninitialized). Size 0 holds no allocation.
// Allocated from the device's gigasparse memory pool in the order of its stream: usable on that
// stream at once, on another only after an event (or a synchronization) orders it after the
// allocation. Freed in the same order, so work queued on its stream before the free may still use
// it; work of other streams must be ordered before the free. Without memory pools: cudaMalloc, and
// cudaFree after waiting for the device.
template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    DeviceBuffer(std::int64_t n, Placement where) { allocate(n, where); }
    ~DeviceBuffer() { release(); }
    DeviceBuffer(DeviceBuffer&& o) noexcept
        : ptr_(std::exchange(o.ptr_, nullptr)), size_(std::exchange(o.size_, 0)), where_(o.where_), pooled_(o.pooled_) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        if (this != &o) {
            release();
            ptr_ = std::exchange(o.ptr_, nullptr);
            size_ = std::exchange(o.size_, 0);
            where_ = o.where_;
            pooled_ = o.pooled_;
        }
        return *this;
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    // Throws OutOfMemory when the device cannot hold n more elements, after waiting for the frees
    // still queued and returning the pool's unused memory.
    void allocate(std::int64_t n, Placement where) {
        release();
        where_ = where;
        if (n <= 0) return;
        const auto bytes = static_cast<std::size_t>(n) * sizeof(T);
        const cudaMemPool_t pool = current_memory_pool();
        const auto try_alloc = [&] {
            return pool ? cudaMallocFromPoolAsync(reinterpret_cast<void**>(&ptr_), bytes, pool, where.stream)
                        : cudaMalloc(reinterpret_cast<void**>(&ptr_), bytes);
        };
        cudaError_t st = try_alloc();
        if (st == cudaErrorMemoryAllocation && pool) {
            (void)cudaGetLastError();
            trim_memory_pool(pool);
            st = try_alloc();
        }
        if (st == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError();
            ptr_ = nullptr;
            throw OutOfMemory("CUDA device allocation of " + std::to_string(bytes) + " bytes failed");
        }
        check(st, pool ? "cudaMallocFromPoolAsync" : "cudaMalloc");
        pooled_ = pool != nullptr;
        size_ = n;
        if (where_.tracker) where_.tracker->add(this->bytes());
    }
    // Grows (discarding contents) when smaller than n, in the same place.
    void reserve(std::int64_t n) {
        if (n > size_) allocate(n, where_);
    }
    // The buffer leaves its tracker and its stream (before it moves to an owner that outlives
    // both): its free is then ordered on the legacy default stream, after the owner's work, which
    // is synchronous (DeviceMatrix).
    void detach() noexcept {
        if (where_.tracker) where_.tracker->remove(bytes());
        where_ = Placement{};
    }
    // Freed while an exception unwinds, the buffer may still be used by work queued before the
    // failure on another stream: wait for the device first (errors ignored; the exception reports
    // the failure). Without a pool, cudaFree is not ordered after queued work: wait too.
    void release() noexcept {
        if (ptr_) {
            if (std::uncaught_exceptions() > 0 || !pooled_) (void)cudaDeviceSynchronize();
            if (pooled_) (void)cudaFreeAsync(ptr_, where_.stream);
            else (void)cudaFree(ptr_);
            if (where_.tracker) where_.tracker->remove(bytes());
        }
        ptr_ = nullptr;
        size_ = 0;
    }
    T* data() const { return ptr_; }
    std::int64_t size() const { return size_; }
    std::int64_t bytes() const { return size_ * static_cast<std::int64_t>(sizeof(T)); }

private:
    T* ptr_ = nullptr;
    std::int64_t size_ = 0;
    Placement where_{};
    bool pooled_ = false;
};

// Streams and events kept for reuse, per device (and, for events, per kind), for the life of the
// process: creating and destroying them costs the host microseconds a handle, a destroyed stream
// may make the driver wait for the device, and a small product's whole device time is some 150 µs
// (they made 2 streams and 14 events a product). A handle goes back when its owner is done with
// it; work still queued on a returned stream runs before the next owner's, in the stream's order.
// The cached handles are never destroyed (no CUDA call at exit): an application that resets the
// device (cudaDeviceReset) must not use gigasparse on it afterwards.
template <class H>
class HandleCache {
public:
    H take(int key) {
        const std::lock_guard<std::mutex> lock(mu_);
        std::vector<H>& v = free_[key];
        if (v.empty()) return H{};
        const H h = v.back();
        v.pop_back();
        return h;
    }
    void give(int key, H h) noexcept {
        try {
            const std::lock_guard<std::mutex> lock(mu_);
            free_[key].push_back(h);
        } catch (...) {  // no memory for the list: the handle is dropped, not destroyed
        }
    }

private:
    std::mutex mu_;
    std::map<int, std::vector<H>> free_;
};
inline int current_device_index() {
    int device = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    return device;
}
inline HandleCache<cudaStream_t>& stream_cache() {
    static auto* cache = new HandleCache<cudaStream_t>;  // never destroyed: its handles outlive static destruction
    return *cache;
}
inline HandleCache<cudaEvent_t>& event_cache() {
    static auto* cache = new HandleCache<cudaEvent_t>;
    return *cache;
}

// A non-blocking stream of the current device, from the cache.
class Stream {
public:
    Stream() : device_(current_device_index()), s_(stream_cache().take(device_)) {
        if (!s_) check(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    }
    ~Stream() { stream_cache().give(device_, s_); }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    cudaStream_t get() const { return s_; }
    void sync() const { check(cudaStreamSynchronize(s_), "cudaStreamSynchronize"); }

private:
    int device_ = 0;
    cudaStream_t s_{};
};

// An event of the current device, from the cache: timed (since() reads the time between two), or
// ordering only (a stream waits for it: cheaper to record, created with cudaEventDisableTiming).
class Event {
public:
    enum class Kind { timed, ordering };
    explicit Event(Kind kind = Kind::timed) : key_(2 * current_device_index() + (kind == Kind::ordering ? 1 : 0)), e_(event_cache().take(key_)) {
        if (!e_) check(cudaEventCreateWithFlags(&e_, kind == Kind::ordering ? cudaEventDisableTiming : cudaEventDefault), "cudaEventCreateWithFlags");
    }
    ~Event() { event_cache().give(key_, e_); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    cudaEvent_t get() const { return e_; }
    void record(cudaStream_t s) { check(cudaEventRecord(e_, s), "cudaEventRecord"); }
    // The work queued before the last record() comes before what s runs next.
    void order_before(cudaStream_t s) const { check(cudaStreamWaitEvent(s, e_, 0), "cudaStreamWaitEvent"); }
    // Milliseconds from `start` to this event (both timed, recorded and complete).
    float since(const Event& start) const {
        float ms = 0;
        check(cudaEventElapsedTime(&ms, start.e_, e_), "cudaEventElapsedTime");
        return ms;
    }

private:
    int key_ = 0;
    cudaEvent_t e_{};
};

// A sequence of stream work captured once (stream capture) and replayed by launch(): one call instead of a
// launch per kernel, and shorter gaps between the kernels on the device. capture() returns false, with the
// stream out of capture and the error cleared, when the runtime will not capture what `queue` enqueues (the
// caller then enqueues it directly, and any real error shows there).
class Graph {
public:
    Graph() = default;
    ~Graph() { reset(); }
    Graph(const Graph&) = delete;
    Graph& operator=(const Graph&) = delete;

    template <class Queue>
    bool capture(cudaStream_t s, Queue&& queue) {
        reset();
        if (cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal) != cudaSuccess) return (void)cudaGetLastError(), false;
        bool queued = true;
        try {
            queue();
        } catch (...) {
            queued = false;
        }
        cudaGraph_t g = nullptr;
        const cudaError_t ended = cudaStreamEndCapture(s, &g);
        if (queued && ended == cudaSuccess && g && cudaGraphInstantiate(&exec_, g, 0) != cudaSuccess) exec_ = nullptr;
        if (g) (void)cudaGraphDestroy(g);
        (void)cudaGetLastError();
        return exec_ != nullptr;
    }
    bool ready() const { return exec_ != nullptr; }
    void launch(cudaStream_t s) { check(cudaGraphLaunch(exec_, s), "cudaGraphLaunch"); }

private:
    void reset() {
        if (exec_) (void)cudaGraphExecDestroy(exec_);
        exec_ = nullptr;
    }
    cudaGraphExec_t exec_ = nullptr;
};

// Non-owning view of a device-resident CSR matrix: what the gMAGNUS dispatch reads. Its arrays may
// have different owners (a plan's copy of the pattern with the caller's values).
template <class V, class I>
struct DeviceCsrRef {
    std::int64_t nrows = 0, ncols = 0, nnz = 0;
    const offset_t* row_ptr = nullptr;
    const I* col_idx = nullptr;
    const V* values = nullptr;
    std::int64_t bytes() const {
        return (nrows + 1) * static_cast<std::int64_t>(sizeof(offset_t)) + nnz * static_cast<std::int64_t>(sizeof(I) + sizeof(V));
    }
    bool same(const DeviceCsrRef& o) const { return row_ptr == o.row_ptr && col_idx == o.col_idx && values == o.values; }
};

// Device-resident CSR matrix: 64-bit row offsets, columns I, values V.
template <class V, class I>
struct DeviceCsr {
    std::int64_t nrows = 0, ncols = 0, nnz = 0;
    DeviceBuffer<offset_t> row_ptr;
    DeviceBuffer<I> col_idx;
    DeviceBuffer<V> values;
    std::int64_t bytes() const { return row_ptr.bytes() + col_idx.bytes() + values.bytes(); }
    DeviceCsrRef<V, I> ref() const { return {nrows, ncols, nnz, row_ptr.data(), col_idx.data(), values.data()}; }
    // See DeviceBuffer::detach (the product's C, an uploaded DeviceMatrix).
    void detach() noexcept {
        row_ptr.detach();
        col_idx.detach();
        values.detach();
    }
};

template <class T>
void copy_to_device(DeviceBuffer<T>& dst, const T* src, std::int64_t n, cudaStream_t s, MemoryTracker* tracker) {
    dst.allocate(n, Placement{s, tracker});
    if (n > 0) check(cudaMemcpyAsync(dst.data(), src, static_cast<std::size_t>(n) * sizeof(T), cudaMemcpyHostToDevice, s), "cudaMemcpyAsync H2D");
}

template <class V, class I>
DeviceCsr<V, I> upload(CsrView<V, I> a, cudaStream_t s, MemoryTracker* tracker) {
    DeviceCsr<V, I> d;
    d.nrows = a.nrows;
    d.ncols = a.ncols;
    d.nnz = a.nnz();
    if (a.row_ptr.empty()) {
        std::vector<offset_t> zeros(static_cast<std::size_t>(a.nrows + 1), 0);
        copy_to_device(d.row_ptr, zeros.data(), a.nrows + 1, s, tracker);
        check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    } else {
        copy_to_device(d.row_ptr, a.row_ptr.data(), a.nrows + 1, s, tracker);
    }
    copy_to_device(d.col_idx, a.col_idx.data(), d.nnz, s, tracker);
    copy_to_device(d.values, a.values.data(), d.nnz, s, tracker);
    return d;
}

template <class V, class I>
Csr<V, I> download(const DeviceCsr<V, I>& d, cudaStream_t s) {
    Csr<V, I> c(d.nrows, d.ncols);
    c.row_ptr.resize(static_cast<std::size_t>(d.nrows + 1));
    c.col_idx.resize(static_cast<std::size_t>(d.nnz));
    c.values.resize(static_cast<std::size_t>(d.nnz));
    check(cudaMemcpyAsync(c.row_ptr.data(), d.row_ptr.data(), static_cast<std::size_t>(d.nrows + 1) * sizeof(offset_t), cudaMemcpyDeviceToHost, s),
          "cudaMemcpyAsync D2H");
    if (d.nnz > 0) {
        check(cudaMemcpyAsync(c.col_idx.data(), d.col_idx.data(), static_cast<std::size_t>(d.nnz) * sizeof(I), cudaMemcpyDeviceToHost, s),
              "cudaMemcpyAsync D2H");
        check(cudaMemcpyAsync(c.values.data(), d.values.data(), static_cast<std::size_t>(d.nnz) * sizeof(V), cudaMemcpyDeviceToHost, s),
              "cudaMemcpyAsync D2H");
    }
    check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    return c;
}

}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace gigasparse::cuda
