// src/direct/analysis/schedule.cpp: tree levels, independent subtrees (Geist–Ng split) and stack peaks.
#include <algorithm>
#include <numeric>

#include "direct/analysis/schedule.hpp"

namespace gigasparse::direct {
namespace {

void levels(Symbolic& s) {
    // level(s) = 0 for leaves, 1 + max over children otherwise (children have smaller indices).
    const idx ns = s.nsuper;
    s.level.assign(static_cast<std::size_t>(ns), 0);
    s.nlevels = ns > 0 ? 1 : 0;
    for (idx c = 0; c < ns; ++c) {
        idx p = s.sn_parent[c];
        if (p != -1) s.level[p] = std::max(s.level[p], s.level[c] + 1);
        s.nlevels = std::max(s.nlevels, s.level[c] + 1);
    }
    s.level_ptr.assign(static_cast<std::size_t>(s.nlevels + 1), 0);
    for (idx c = 0; c < ns; ++c) ++s.level_ptr[s.level[c] + 1];
    for (idx l = 0; l < s.nlevels; ++l) s.level_ptr[l + 1] += s.level_ptr[l];
    s.level_nodes.resize(static_cast<std::size_t>(ns));
    std::vector<idx> next(s.level_ptr.begin(), s.level_ptr.end() - 1);
    for (idx c = 0; c < ns; ++c) s.level_nodes[next[s.level[c]]++] = c;
}

// Stack peak of processing `nodes` in order, counting only children that are in `inside`.
std::int64_t stack_peak(const Symbolic& s, std::span<const idx> nodes, const std::vector<char>& inside) {
    std::int64_t cur = 0, peak = 0;
    for (idx sn : nodes) {
        std::int64_t cb = cb_entries(s, sn);
        peak = std::max(peak, cur + cb);
        cur += cb;
        for (idx q = s.child_ptr[sn]; q < s.child_ptr[sn + 1]; ++q)
            if (inside[s.child_list[q]]) cur -= cb_entries(s, s.child_list[q]);
    }
    return peak;
}

}  // namespace

void build_schedule(Symbolic& s, int threads, std::int64_t subtree_factor) {
    const idx ns = s.nsuper;
    levels(s);
    s.sn_flops.assign(static_cast<std::size_t>(ns), 0.0);
    std::vector<double> sub(static_cast<std::size_t>(ns), 0.0);
    std::vector<idx> first(static_cast<std::size_t>(ns));
    double total = 0;
    for (idx c = 0; c < ns; ++c) {
        if (s.is_schur(c)) continue;  // assembled, not factored
        double f = static_cast<double>(s.front_rows(c));
        for (idx j = 0; j < s.width(c); ++j) s.sn_flops[c] += (f - j) * (f - j);  // Σ c_j²
        total += s.sn_flops[c];
    }
    for (idx c = 0; c < ns; ++c) first[c] = c;
    for (idx c = 0; c < ns; ++c) {
        sub[c] += s.sn_flops[c];
        idx p = s.sn_parent[c];
        if (p != -1) sub[p] += sub[c], first[p] = std::min(first[p], first[c]);
    }
    // Subtrees: split from the roots until every subtree is at most total / (threads · factor).
    s.subtree_root.clear();
    std::vector<char> top(static_cast<std::size_t>(ns), 0);
    // Below ~5e7 flops a factorization takes milliseconds: thread start-up and BLAS thread switches
    // would dominate, so small problems run sequentially.
    constexpr double min_parallel_flops = 5e7;
    if (threads > 1 && total >= min_parallel_flops) {
        double limit = total / static_cast<double>(threads * std::max<std::int64_t>(subtree_factor, 1));
        std::vector<idx> work;
        for (idx c = 0; c < ns; ++c)
            if (s.sn_parent[c] == -1) work.push_back(c);
        while (!work.empty()) {
            idx r = work.back();
            work.pop_back();
            if (sub[r] <= limit) {
                s.subtree_root.push_back(r);
                continue;
            }
            top[r] = 1;
            for (idx q = s.child_ptr[r]; q < s.child_ptr[r + 1]; ++q) work.push_back(s.child_list[q]);
        }
        // Largest first (LPT order for the task queue); ties by index for determinism.
        std::sort(s.subtree_root.begin(), s.subtree_root.end(),
                  [&](idx a, idx b) { return sub[a] != sub[b] ? sub[a] > sub[b] : a < b; });
    } else {
        std::fill(top.begin(), top.end(), 1);
    }
    s.subtree_ptr.assign(1, 0);
    s.subtree_nodes.clear();
    s.stack_size.clear();
    std::vector<char> inside(static_cast<std::size_t>(ns), 1);
    for (idx r : s.subtree_root) {
        idx b = static_cast<idx>(s.subtree_nodes.size());
        for (idx c = first[r]; c <= r; ++c) s.subtree_nodes.push_back(c);
        s.subtree_ptr.push_back(static_cast<idx>(s.subtree_nodes.size()));
        s.stack_size.push_back(
            stack_peak(s, std::span<const idx>(s.subtree_nodes).subspan(static_cast<std::size_t>(b)), inside));
    }
    // rows of each subtree node above its subtree (sorted, so a suffix of its rows) in its root's row list
    s.sweep_out_ptr.assign(1, 0);
    s.sweep_out_pos.clear();
    for (std::size_t t = 0; t + 1 < s.subtree_ptr.size(); ++t) {
        const idx root = s.subtree_root[t], last = s.super_ptr[root + 1] - 1;
        const idx* rr = s.rows.data() + s.rows_ptr[root] + s.width(root);
        const idx mr = s.front_rows(root) - s.width(root);
        for (idx q = s.subtree_ptr[t]; q < s.subtree_ptr[t + 1]; ++q) {
            const idx sn = s.subtree_nodes[q], f = s.front_rows(sn), w = s.width(sn);
            const idx* r = s.rows.data() + s.rows_ptr[sn];
            for (const idx* it = std::upper_bound(r + w, r + f, last); it != r + f; ++it)
                s.sweep_out_pos.push_back(static_cast<idx>(std::lower_bound(rr, rr + mr, *it) - rr));
            s.sweep_out_ptr.push_back(static_cast<idx>(s.sweep_out_pos.size()));
        }
    }
    s.top_nodes.clear();
    for (idx c = 0; c < ns; ++c)
        if (top[c]) s.top_nodes.push_back(c);
    s.stack_size.push_back(stack_peak(s, s.top_nodes, top));
    s.stack_of.assign(static_cast<std::size_t>(ns), static_cast<idx>(s.subtree_root.size()));
    for (std::size_t t = 0; t + 1 < s.subtree_ptr.size(); ++t)
        for (idx q = s.subtree_ptr[t]; q < s.subtree_ptr[t + 1]; ++q) s.stack_of[s.subtree_nodes[q]] = static_cast<idx>(t);
    s.stack_entries = std::accumulate(s.stack_size.begin(), s.stack_size.end(), std::int64_t{0});
}

}  // namespace gigasparse::direct
