// src/gen/random.hpp: fixed, portable pseudo-random streams (splitmix64 seeding, xoshiro256**) for the generators.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_set>
#include <vector>

namespace gigasparse::gen::detail {

__extension__ typedef unsigned __int128 uint128_t;  // 64x64 -> 128-bit products (GCC/Clang)

// splitmix64 step: the state advances by the golden-ratio increment, the output is a strong mix of it.
inline std::uint64_t splitmix64(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// Distinct generator purposes draw from distinct streams of the same seed.
enum class Stream : std::uint64_t { rmat_edges = 1, rmat_permutation, er_rows, kkt_h, kkt_a, values };

// xoshiro256** (Blackman & Vigna): 256-bit state, 64-bit output; identical on every platform.
class Rng {
public:
    // The stream for (seed, purpose, index): independent per chunk or row, so parallel loops stay deterministic.
    Rng(std::uint64_t seed, Stream purpose, std::uint64_t index = 0) {
        std::uint64_t sm = seed;
        sm = splitmix64(sm) ^ (static_cast<std::uint64_t>(purpose) * 0xD1B54A32D192ED03ULL);
        sm = splitmix64(sm) ^ index;
        for (auto& w : s_) w = splitmix64(sm);
    }

    std::uint64_t next() {
        const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const std::uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }

    // Uniform in [0, 1) with 53 random bits.
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

    // Uniform in [lo, hi).
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

    // Uniform integer in [0, n), n > 0: Lemire's multiply-shift with rejection (unbiased).
    std::uint64_t below(std::uint64_t n) {
        uint128_t m = static_cast<uint128_t>(next()) * n;
        auto low = static_cast<std::uint64_t>(m);
        if (low < n) {
            const std::uint64_t threshold = (0 - n) % n;
            while (low < threshold) {
                m = static_cast<uint128_t>(next()) * n;
                low = static_cast<std::uint64_t>(m);
            }
        }
        return static_cast<std::uint64_t>(m >> 64);
    }

private:
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    std::uint64_t s_[4];
};

// floor(per_row) or floor(per_row) + 1 entries with mean per_row, capped at `cap`.
inline std::int64_t row_length(Rng& rng, double per_row, std::int64_t cap) {
    const double whole = std::floor(per_row);
    const auto k = static_cast<std::int64_t>(whole) + (rng.uniform() < per_row - whole ? 1 : 0);
    return std::min(k, cap);
}

// k distinct integers uniform in [0, range), k <= range, sorted (Floyd's algorithm: k draws).
inline void sample_distinct(Rng& rng, std::int64_t range, std::int64_t k, std::vector<std::int64_t>& out) {
    out.clear();
    std::unordered_set<std::int64_t> seen;
    const bool small = k <= 64;
    for (std::int64_t j = range - k; j < range; ++j) {
        const auto t = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(j) + 1));
        const bool dup = small ? std::find(out.begin(), out.end(), t) != out.end() : seen.count(t) > 0;
        const std::int64_t pick = dup ? j : t;  // j is new: every earlier pick is < j
        out.push_back(pick);
        if (!small) seen.insert(pick);
    }
    std::sort(out.begin(), out.end());
}

}  // namespace gigasparse::gen::detail
