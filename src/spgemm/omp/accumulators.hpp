// src/spgemm/omp/accumulators.hpp: the two accumulators of MAGNUS: sort (ESC) and dense (values + byte flags).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <utility>

#include <gigasparse/core/types.hpp>

namespace gigasparse::spgemm::omp {

// Insertion sort for short runs, std::sort otherwise (by key only).
template <class T, class Key>
void sort_by(T* p, std::int64_t n, Key key) {
    if (n <= 24) {
        for (std::int64_t i = 1; i < n; ++i) {
            T x = p[i];
            std::int64_t j = i - 1;
            while (j >= 0 && key(p[j]) > key(x)) {
                p[j + 1] = p[j];
                --j;
            }
            p[j + 1] = x;
        }
    } else {
        std::sort(p, p + n, [&](const T& x, const T& y) { return key(x) < key(y); });
    }
}

// Sorts (key, value) pairs and writes the compressed run: column base + key, equal keys summed.
template <class V, class I>
offset_t sort_accumulate(std::pair<std::int64_t, V>* p, std::int64_t n, std::int64_t base, I* oc, V* ov) {
    sort_by(p, n, [](const std::pair<std::int64_t, V>& e) { return e.first; });
    offset_t w = 0;
    std::int64_t last = -1;
    for (std::int64_t t = 0; t < n; ++t) {
        if (p[t].first == last) {
            ov[w - 1] += p[t].second;
        } else {
            last = p[t].first;
            oc[w] = static_cast<I>(base + last);
            ov[w] = p[t].second;
            ++w;
        }
    }
    return w;
}

// Symbolic sort: number of distinct keys.
inline offset_t sort_count(std::int64_t* k, std::int64_t n) {
    sort_by(k, n, [](std::int64_t x) { return x; });
    offset_t w = 0;
    for (std::int64_t t = 0; t < n; ++t) w += (t == 0 || k[t] != k[t - 1]) ? 1 : 0;
    return w;
}

// Dense accumulate of one product at local column c.
template <class V>
inline void dense_add(V* acc, std::uint8_t* flags, std::int64_t c, V v) {
    if (flags[c]) {
        acc[c] += v;
    } else {
        flags[c] = 1;
        acc[c] = v;
    }
}

// Emits the flagged columns of [0, len) in order (column base + c) and clears the flags; scans eight
// flags at a time.
template <class V, class I>
offset_t dense_emit(V* acc, std::uint8_t* flags, std::int64_t len, std::int64_t base, I* oc, V* ov) {
    offset_t w = 0;
    std::int64_t j = 0;
    for (; j + 8 <= len; j += 8) {
        std::uint64_t word;
        std::memcpy(&word, flags + j, 8);
        if (word == 0) continue;
        while (word) {
            const std::int64_t c = j + (std::countr_zero(word) >> 3);
            oc[w] = static_cast<I>(base + c);
            ov[w] = acc[c];
            ++w;
            word &= word - 1;
        }
        std::memset(flags + j, 0, 8);
    }
    for (; j < len; ++j)
        if (flags[j]) {
            oc[w] = static_cast<I>(base + j);
            ov[w] = acc[j];
            ++w;
            flags[j] = 0;
        }
    return w;
}

// Symbolic dense: marks a column, returns 1 when it is new.
inline offset_t dense_mark(std::uint8_t* flags, std::int64_t c) {
    const offset_t fresh = flags[c] ? 0 : 1;
    flags[c] = 1;
    return fresh;
}

// Clears flags [0, len) after a symbolic count.
inline void dense_clear(std::uint8_t* flags, std::int64_t len) { std::memset(flags, 0, static_cast<std::size_t>(len)); }

}  // namespace gigasparse::spgemm::omp
