// src/spgemm/omp/workspace.hpp: per-thread buffers of the OpenMP MAGNUS kernels, kept by the plan and reused.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <gigasparse/core/types.hpp>

namespace gigasparse::spgemm::omp {

// Grows v to at least n elements (never shrinks: buffers are faulted in once, then reused).
template <class T>
T* ensure(std::vector<T>& v, std::size_t n) {
    if (v.size() < n) v.resize(n);
    return v.data();
}

// One entry of the batch's sub-matrix Â in column order (coarse level): A(row, k) = a.
template <class V>
struct CoarseEntry {
    std::int64_t k;
    std::int64_t row;  // local row in the batch
    V a;
};

template <class V>
struct Workspace {
    // Dense accumulator: values and a bitmap (all zero between uses).
    std::vector<V> acc;
    std::vector<std::uint64_t> bits;
    // Column-blocked dense rows: a cursor (next, end) in each row of B of the A row's entries, and their values.
    std::vector<offset_t> cursors;
    std::vector<V> cursor_values;
    // Fine level: chunk offsets, reordered chunk-local columns and values (32- or 64-bit columns).
    std::vector<std::uint32_t> off32, col32;
    std::vector<std::uint64_t> off64, col64;
    std::vector<V> val;
    // Window accumulator (narrow dense rows): flag bytes and values, all zero between uses.
    std::vector<std::uint8_t> wflag;
    std::vector<V> wacc;
    // Sparse accumulator of short rows (SPA): a stamp per column of C (the row generation that last touched
    // it) and values; stamps grow monotonically, so the arrays are never cleared (only on wrap-around).
    std::vector<std::uint32_t> spa_stamp;
    std::vector<V> spa_val;
    std::vector<std::int32_t> spa_list;  // the row's distinct columns
    std::uint32_t spa_gen = 0;
    // Sort accumulator: (key, value) pairs, keys alone for the symbolic phase (also the SPA's column list).
    std::vector<std::pair<std::int64_t, V>> pairs;
    std::vector<std::int64_t> keys;
    // Coarse level: Â in column order, offsets table (rows x coarse chunks), reordered products.
    std::vector<CoarseEntry<V>> entries;
    std::vector<offset_t> table;
    std::vector<std::uint32_t> ccol32;
    std::vector<std::uint64_t> ccol64;
    std::vector<V> cval;

    // Bytes held by this thread's buffers (capacities).
    std::int64_t bytes() const {
        std::int64_t n = 0;
        auto add = [&n](const auto& v) { n += static_cast<std::int64_t>(v.capacity() * sizeof(v[0])); };
        add(acc), add(bits), add(cursors), add(cursor_values), add(off32), add(col32), add(off64), add(col64), add(val), add(wflag), add(wacc), add(spa_stamp), add(spa_val);
        add(spa_list), add(pairs), add(keys), add(entries), add(table), add(ccol32), add(ccol64), add(cval);
        return n;
    }

    template <class L>
    std::vector<L>& off() {
        if constexpr (sizeof(L) == 4) return off32;
        else return off64;
    }
    template <class L>
    std::vector<L>& col() {
        if constexpr (sizeof(L) == 4) return col32;
        else return col64;
    }
    template <class L>
    std::vector<L>& ccol() {
        if constexpr (sizeof(L) == 4) return ccol32;
        else return ccol64;
    }
};

template <class V>
using Workspaces = std::vector<Workspace<V>>;

}  // namespace gigasparse::spgemm::omp
