// tests/cuda_sim/cuda_sim/cub.hpp: the CUB subset gigasparse uses, for the CUDA simulator, with CUB's
// documented semantics: BlockScan/BlockReduce are block collectives (the block must have exactly
// THREADS threads; BlockReduce's result is valid in thread 0 only; reusing a TempStorage without
// a __syncthreads between is a race, which the racecheck build reports); the device-wide algorithms
// answer a size query when d_temp_storage is null and otherwise check the temporary storage and
// their arguments, then run in stream order. DevicePartition::Flagged keeps the selected items in
// order and puts the rejected ones after them in reverse order; DeviceRadixSort is stable and
// orders by bits [begin_bit, end_bit) of unsigned keys only.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "cuda_sim/runtime.hpp"

namespace cub {

namespace sim_detail {

inline unsigned linear_thread() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
inline void require_threads(unsigned threads, const char* what) {
    if (blockDim.x * blockDim.y * blockDim.z != threads)
        cuda_sim::fail(std::string(what) + " for " + std::to_string(threads) + " threads used in a block of " +
                       std::to_string(blockDim.x * blockDim.y * blockDim.z));
}

// Temporary storage a call asks for: grows with n, so callers' reuse logic is exercised.
inline std::size_t temp_bytes(std::int64_t n) { return 256 + static_cast<std::size_t>(std::max<std::int64_t>(n, 0)) * 4; }

// The checks of a real call: temporary storage present and large enough, inside device memory.
inline void check_temp(const char* what, void* temp, std::size_t bytes, std::int64_t n) {
    if (bytes < temp_bytes(n) || cuda_sim::device_bytes_from(temp) < static_cast<std::int64_t>(temp_bytes(n)))
        cuda_sim::fail_host(std::string(what) + ": temporary storage of " + std::to_string(bytes) + " bytes (needs " + std::to_string(temp_bytes(n)) +
                            ", in device memory)");
}

template <class Op>
cudaError_t enqueue(const char* what, cudaStream_t s, void* temp, std::vector<const void*> uses, Op&& op) {
    uses.push_back(temp);
    cuda_sim::Op o;
    o.what = what;
    o.uses = std::move(uses);
    o.run = [temp, op = std::forward<Op>(op)] {
        std::fill_n(static_cast<unsigned char*>(temp), 64, static_cast<unsigned char>(0x5A));  // CUB scribbles over its storage
        op();
    };
    return cuda_sim::enqueue(s, std::move(o));
}

template <class It>
const void* ptr(It it) {
    if constexpr (std::is_pointer_v<It>) return static_cast<const void*>(it);
    else return nullptr;
}

}  // namespace sim_detail

// ---------------------------------------------------------------- block collectives
template <class T, int THREADS>
class BlockScan {
public:
    struct TempStorage {
        T in[THREADS];
        T out[THREADS];
    };
    explicit BlockScan(TempStorage& t) : t_(t) { sim_detail::require_threads(THREADS, "cub::BlockScan"); }
    void ExclusiveSum(T x, T& out) {
        T total;
        ExclusiveSum(x, out, total);
        cuda_sim::opaque_use(&total);  // every thread reads the storage for the aggregate, as CUB's warp-scan algorithm does
    }
    void ExclusiveSum(T x, T& out, T& aggregate) {
        const unsigned t = sim_detail::linear_thread();
        t_.in[t] = x;
        __syncthreads();
        if (t == 0) {
            T run{};
            for (int i = 0; i < THREADS; ++i) {
                t_.out[i] = run;
                run += t_.in[i];
            }
        }
        __syncthreads();
        out = t_.out[t];
        aggregate = t_.out[THREADS - 1] + t_.in[THREADS - 1];
    }
    void InclusiveSum(T x, T& out) {
        ExclusiveSum(x, out);
        out += x;
    }

private:
    TempStorage& t_;
};

template <class T, int THREADS>
class BlockReduce {
public:
    struct TempStorage {
        T in[THREADS];
    };
    explicit BlockReduce(TempStorage& t) : t_(t) { sim_detail::require_threads(THREADS, "cub::BlockReduce"); }
    T Sum(T x) {
        const unsigned t = sim_detail::linear_thread();
        t_.in[t] = x;
        __syncthreads();
        if (t != 0) return x;  // only thread 0's result is defined
        T s{};
        for (int i = 0; i < THREADS; ++i) s += t_.in[i];
        return s;
    }

private:
    TempStorage& t_;
};

// ---------------------------------------------------------------- device-wide algorithms
struct DeviceScan {
    template <class In, class Out, class N>
    static cudaError_t InclusiveSum(void* temp, std::size_t& bytes, In in, Out out, N n, cudaStream_t s = nullptr) {
        return scan(temp, bytes, in, out, static_cast<std::int64_t>(n), s, true, "cub::DeviceScan::InclusiveSum");
    }
    template <class In, class Out, class N>
    static cudaError_t ExclusiveSum(void* temp, std::size_t& bytes, In in, Out out, N n, cudaStream_t s = nullptr) {
        return scan(temp, bytes, in, out, static_cast<std::int64_t>(n), s, false, "cub::DeviceScan::ExclusiveSum");
    }

private:
    template <class In, class Out>
    static cudaError_t scan(void* temp, std::size_t& bytes, In in, Out out, std::int64_t n, cudaStream_t s, bool inclusive, const char* what) {
        if (!temp) {
            bytes = sim_detail::temp_bytes(n);
            return cudaSuccess;
        }
        sim_detail::check_temp(what, temp, bytes, n);
        return sim_detail::enqueue(what, s, temp, {sim_detail::ptr(in), sim_detail::ptr(out)}, [in, out, n, inclusive] {
            using T = std::decay_t<decltype(*out)>;
            T run{};
            for (std::int64_t i = 0; i < n; ++i) {
                const T x = static_cast<T>(in[i]);  // read before the write: in and out may alias
                if (inclusive) run += x;
                out[i] = run;
                if (!inclusive) run += x;
            }
        });
    }
};

struct DeviceReduce {
    template <class In, class Out, class N>
    static cudaError_t Sum(void* temp, std::size_t& bytes, In in, Out out, N n_items, cudaStream_t s = nullptr) {
        const auto n = static_cast<std::int64_t>(n_items);
        if (!temp) {
            bytes = sim_detail::temp_bytes(n);
            return cudaSuccess;
        }
        sim_detail::check_temp("cub::DeviceReduce::Sum", temp, bytes, n);
        return sim_detail::enqueue("cub::DeviceReduce::Sum", s, temp, {sim_detail::ptr(in), sim_detail::ptr(out)}, [in, out, n] {
            using T = std::decay_t<decltype(*out)>;
            T sum{};
            for (std::int64_t i = 0; i < n; ++i) sum += static_cast<T>(in[i]);
            *out = sum;
        });
    }
};

struct DevicePartition {
    template <class In, class Flags, class Out, class NumSel, class N>
    static cudaError_t Flagged(void* temp, std::size_t& bytes, In in, Flags flags, Out out, NumSel num_selected, N n_items, cudaStream_t s = nullptr) {
        const auto n = static_cast<std::int64_t>(n_items);
        if (!temp) {
            bytes = sim_detail::temp_bytes(n);
            return cudaSuccess;
        }
        sim_detail::check_temp("cub::DevicePartition::Flagged", temp, bytes, n);
        return sim_detail::enqueue("cub::DevicePartition::Flagged", s, temp,
                                   {sim_detail::ptr(in), sim_detail::ptr(flags), sim_detail::ptr(out), sim_detail::ptr(num_selected)},
                                   [in, flags, out, num_selected, n] {
                                       using T = std::decay_t<decltype(*out)>;
                                       std::vector<T> sel, rej;
                                       for (std::int64_t i = 0; i < n; ++i) (flags[i] ? sel : rej).push_back(in[i]);
                                       std::int64_t o = 0;
                                       for (const T& v : sel) out[o++] = v;
                                       for (auto it = rej.rbegin(); it != rej.rend(); ++it) out[o++] = *it;
                                       *num_selected = static_cast<std::decay_t<decltype(*num_selected)>>(sel.size());
                                   });
    }
};

struct DeviceRadixSort {
    template <class K, class V, class N>
    static cudaError_t SortPairs(void* temp, std::size_t& bytes, const K* keys_in, K* keys_out, const V* vals_in, V* vals_out, N n_items,
                                 int begin_bit = 0, int end_bit = sizeof(K) * 8, cudaStream_t s = nullptr) {
        static_assert(std::is_unsigned_v<K>, "the simulator sorts unsigned keys only");
        const auto n = static_cast<std::int64_t>(n_items);
        if (!temp) {
            bytes = sim_detail::temp_bytes(n);
            return cudaSuccess;
        }
        sim_detail::check_temp("cub::DeviceRadixSort::SortPairs", temp, bytes, n);
        if (begin_bit < 0 || end_bit > static_cast<int>(sizeof(K) * 8) || begin_bit >= end_bit)
            cuda_sim::fail_host("cub::DeviceRadixSort::SortPairs: bit range [" + std::to_string(begin_bit) + ", " + std::to_string(end_bit) + ")");
        return sim_detail::enqueue("cub::DeviceRadixSort::SortPairs", s, temp, {keys_in, keys_out, vals_in, vals_out},
                                   [=] {
                                       const int width = end_bit - begin_bit;
                                       const K mask = width >= static_cast<int>(sizeof(K) * 8) ? ~K(0) : static_cast<K>((K(1) << width) - 1);
                                       std::vector<std::int64_t> idx(static_cast<std::size_t>(n));
                                       for (std::int64_t i = 0; i < n; ++i) idx[i] = i;
                                       std::stable_sort(idx.begin(), idx.end(), [&](std::int64_t a, std::int64_t b) {
                                           return static_cast<K>((keys_in[a] >> begin_bit) & mask) < static_cast<K>((keys_in[b] >> begin_bit) & mask);
                                       });
                                       std::vector<K> k(static_cast<std::size_t>(n));
                                       std::vector<V> v(static_cast<std::size_t>(n));
                                       for (std::int64_t i = 0; i < n; ++i) {
                                           k[i] = keys_in[idx[i]];
                                           v[i] = vals_in[idx[i]];
                                       }
                                       std::copy(k.begin(), k.end(), keys_out);
                                       std::copy(v.begin(), v.end(), vals_out);
                                   });
    }
};

}  // namespace cub
