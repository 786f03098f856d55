// src/spgemm/omp/accumulators.hpp: the two accumulators of MAGNUS: sort (ESC) and dense (values + bitmap).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>
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

// x when keep, else +0 (bit mask, no branch; a stale NaN or Inf in x does not leak as NaN * 0 would). A complex
// value: each part.
template <class V>
inline V keep_if(V x, bool keep) {
    if constexpr (is_complex_v<V>) {
        return V(keep_if(x.real(), keep), keep_if(x.imag(), keep));
    } else {
        static_assert(sizeof(V) == 4 || sizeof(V) == 8);
        using U = std::conditional_t<sizeof(V) == 8, std::uint64_t, std::uint32_t>;
        U u;
        std::memcpy(&u, &x, sizeof u);
        u &= U(0) - static_cast<U>(keep);
        std::memcpy(&x, &u, sizeof u);
        return x;
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

// Dense accumulator: values plus a bitmap of 64-bit words (one bit per column, all zero between uses).
// The bitmap makes the ordered scan cost len/64 word tests, so sparse rows are cheap to emit.
inline std::int64_t bitmap_words(std::int64_t len) { return (len + 63) >> 6; }

// Adds product v at local column c. The values are all zero between uses (the emit zeroes what it reads), so
// the add needs no test of the bit: no branch to mispredict (new and repeated columns are equally likely).
template <class V>
inline void dense_add(V* acc, std::uint64_t* bits, std::int64_t c, V v) {
    bits[c >> 6] |= std::uint64_t(1) << (c & 63);
    acc[c] += v;
}

// Emits the marked columns of [0, len) in order (column base + c), zeroes their values and clears the bitmap.
template <class V, class I>
offset_t dense_emit(V* acc, std::uint64_t* bits, std::int64_t len, std::int64_t base, I* oc, V* ov) {
    offset_t n = 0;
    const std::int64_t words = bitmap_words(len);
    for (std::int64_t w = 0; w < words; ++w) {
        std::uint64_t word = bits[w];
        if (word == 0) continue;
        bits[w] = 0;
        while (word) {
            const std::int64_t c = (w << 6) + std::countr_zero(word);
            oc[n] = static_cast<I>(base + c);
            ov[n] = acc[c];
            acc[c] = V(0);
            ++n;
            word &= word - 1;
        }
    }
    return n;
}

// Symbolic dense: marks column c, returns 1 when it is new.
inline offset_t dense_mark(std::uint64_t* bits, std::int64_t c) {
    const std::uint64_t m = std::uint64_t(1) << (c & 63);
    std::uint64_t& w = bits[c >> 6];
    const offset_t fresh = (w & m) ? 0 : 1;
    w |= m;
    return fresh;
}

// Clears the bitmap of [0, len) after a symbolic count.
inline void dense_clear(std::uint64_t* bits, std::int64_t len) {
    std::memset(bits, 0, static_cast<std::size_t>(bitmap_words(len)) * sizeof(std::uint64_t));
}

// Window accumulator (dense rows whose column range is narrow: banded / FEM rows): one flag byte per column
// and values, both all zero between uses. Marking is a plain byte store and the value a plain add, so
// neighbouring columns (the products of a banded row come in runs of consecutive columns) do not chain
// through a read-modify-write of one shared bitmap word. The emit scans 8 flags per 64-bit load, which is
// cheap only when the range is a small multiple of the products (the caller decides).
inline std::int64_t window_bytes(std::int64_t len) { return (len + 7) & ~std::int64_t(7); }

template <class V>
inline void window_add(V* acc, std::uint8_t* flag, std::int64_t c, V v) {
    acc[c] += v;
    flag[c] = 1;
}

inline std::uint64_t load_flags(const std::uint8_t* p) {
    std::uint64_t x;
    std::memcpy(&x, p, sizeof x);
    return x;
}

// Emits the flagged columns of [0, len) in order (column base + c) and zeroes flags and values again.
template <class V, class I>
offset_t window_emit(V* acc, std::uint8_t* flag, std::int64_t len, std::int64_t base, I* oc, V* ov) {
    offset_t n = 0;
    const std::int64_t bytes = window_bytes(len);
    for (std::int64_t w = 0; w < bytes; w += 8) {
        std::uint64_t x = load_flags(flag + w);
        if (x == 0) continue;
        std::memset(flag + w, 0, 8);
        while (x) {  // flags are 0/1 bytes: bit 8k is set when column w + k is
            const std::int64_t c = w + (std::countr_zero(x) >> 3);
            oc[n] = static_cast<I>(base + c);
            ov[n] = acc[c];
            acc[c] = V(0);
            ++n;
            x &= x - 1;
        }
    }
    return n;
}

// Symbolic window: number of flagged columns of [0, len); zeroes the flags.
inline offset_t window_count(std::uint8_t* flag, std::int64_t len) {
    offset_t n = 0;
    const std::int64_t bytes = window_bytes(len);
    for (std::int64_t w = 0; w < bytes; w += 8) {
        const std::uint64_t x = load_flags(flag + w);
        n += static_cast<offset_t>((x * 0x0101010101010101ull) >> 56);  // byte sum (each byte 0 or 1)
    }
    std::memset(flag, 0, static_cast<std::size_t>(bytes));
    return n;
}

}  // namespace gigasparse::spgemm::omp
