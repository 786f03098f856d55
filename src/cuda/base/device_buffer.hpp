// src/cuda/base/device_buffer.hpp: RAII device memory (with a peak-usage tracker), streams, events, and device-resident CSR.
#pragma once

#include <gigasparse/cuda/abi.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include <gigasparse/core/matrix.hpp>

#include "cuda/base/check.hpp"

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

// Owning, move-only device array of T (uninitialized). Size 0 holds no allocation.
template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::int64_t n, MemoryTracker* tracker = nullptr) { allocate(n, tracker); }
    ~DeviceBuffer() { release(); }
    DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), size_(std::exchange(o.size_, 0)), tracker_(o.tracker_) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        if (this != &o) {
            release();
            ptr_ = std::exchange(o.ptr_, nullptr);
            size_ = std::exchange(o.size_, 0);
            tracker_ = o.tracker_;
        }
        return *this;
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    void allocate(std::int64_t n, MemoryTracker* tracker = nullptr) {
        release();
        tracker_ = tracker;
        if (n <= 0) return;
        const cudaError_t st = cudaMalloc(&ptr_, static_cast<std::size_t>(n) * sizeof(T));
        if (st == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError();
            ptr_ = nullptr;
            throw OutOfMemory("CUDA device allocation of " + std::to_string(static_cast<std::size_t>(n) * sizeof(T)) + " bytes failed");
        }
        check(st, "cudaMalloc");
        size_ = n;
        if (tracker_) tracker_->add(bytes());
    }
    // Grows (discarding contents) when smaller than n.
    void reserve(std::int64_t n, MemoryTracker* tracker = nullptr) {
        if (n > size_) allocate(n, tracker ? tracker : tracker_);
    }
    // Stops counting this buffer in its tracker (before it moves to an owner that outlives the tracker).
    void untrack() noexcept {
        if (tracker_) tracker_->remove(bytes());
        tracker_ = nullptr;
    }
    // Freed while an exception unwinds, the buffer may still be used by work queued before the
    // failure: wait for the device first (errors ignored; the exception reports the failure).
    void release() noexcept {
        if (ptr_) {
            if (std::uncaught_exceptions() > 0) (void)cudaDeviceSynchronize();
            (void)cudaFree(ptr_);
            if (tracker_) tracker_->remove(bytes());
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
    MemoryTracker* tracker_ = nullptr;
};

class Stream {
public:
    Stream() { check(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags"); }
    ~Stream() { (void)cudaStreamDestroy(s_); }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    cudaStream_t get() const { return s_; }
    void sync() const { check(cudaStreamSynchronize(s_), "cudaStreamSynchronize"); }

private:
    cudaStream_t s_{};
};

class Event {
public:
    Event() { check(cudaEventCreate(&e_), "cudaEventCreate"); }
    ~Event() { (void)cudaEventDestroy(e_); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    cudaEvent_t get() const { return e_; }
    void record(cudaStream_t s) { check(cudaEventRecord(e_, s), "cudaEventRecord"); }
    // Milliseconds from `start` to this event (both recorded and complete).
    float since(const Event& start) const {
        float ms = 0;
        check(cudaEventElapsedTime(&ms, start.e_, e_), "cudaEventElapsedTime");
        return ms;
    }

private:
    cudaEvent_t e_{};
};

// Device-resident CSR matrix: 64-bit row offsets, columns I, values V.
template <class V, class I>
struct DeviceCsr {
    std::int64_t nrows = 0, ncols = 0, nnz = 0;
    DeviceBuffer<offset_t> row_ptr;
    DeviceBuffer<I> col_idx;
    DeviceBuffer<V> values;
    std::int64_t bytes() const { return row_ptr.bytes() + col_idx.bytes() + values.bytes(); }
};

template <class T>
void copy_to_device(DeviceBuffer<T>& dst, const T* src, std::int64_t n, cudaStream_t s, MemoryTracker* tracker) {
    dst.allocate(n, tracker);
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
