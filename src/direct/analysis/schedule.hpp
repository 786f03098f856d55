// src/direct/analysis/schedule.hpp: levels, parallel subtrees and stack sizes of a supernodal tree.
#pragma once

#include <gigasparse/direct/symbolic.hpp>

namespace gigasparse::direct {

// Fills level/level_ptr/level_nodes, sn_flops, subtree_*, top_nodes, stack_size, stack_entries.
void build_schedule(Symbolic& s, int threads, std::int64_t subtree_factor);

// Entries of the contribution block of supernode s ((f - w)² , square storage).
inline std::int64_t cb_entries(const Symbolic& s, idx sn) {
    std::int64_t m = s.front_rows(sn) - s.width(sn);
    return m * m;
}

}  // namespace gigasparse::direct
