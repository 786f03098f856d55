// src/direct/analysis/supernodes.cpp: fundamental supernodes and relaxed amalgamation (Ashcraft–Grimes style).
#include <algorithm>
#include <numeric>

#include <gigasparse/direct/symbolic.hpp>

namespace gigasparse::direct {

ColumnPartition fundamental_supernodes(std::span<const idx> parent, std::span<const idx> counts,
                                       std::span<const std::uint8_t> pair_next, idx schur_start) {
    // Column k+1 extends the supernode of k when k is its only child and c_k = c_{k+1} + 1, or when k and
    // k+1 are a pivot pair with parent(k) = k+1 (then the panel holds explicit zeros where c_k is short).
    const idx n = static_cast<idx>(parent.size());
    std::vector<idx> nchild(static_cast<std::size_t>(n), 0);
    for (idx j = 0; j < n; ++j)
        if (parent[j] != -1) ++nchild[parent[j]];
    ColumnPartition sn;
    sn.order.resize(static_cast<std::size_t>(n));
    std::iota(sn.order.begin(), sn.order.end(), idx{0});
    std::vector<idx> col_to_sn(static_cast<std::size_t>(n));
    sn.super_ptr.assign(1, 0);
    for (idx k = 0; k < n; ++k) {
        bool extend = k > 0 && parent[k - 1] == k &&
                      ((nchild[k] == 1 && counts[k - 1] == counts[k] + 1) || (!pair_next.empty() && pair_next[k - 1]));
        if (schur_start >= 0 && k >= schur_start) extend = k > schur_start;  // the Schur block: alone, whole
        if (!extend && k > 0) sn.super_ptr.push_back(k);
        col_to_sn[k] = static_cast<idx>(sn.super_ptr.size()) - 1;
    }
    if (n > 0) sn.super_ptr.push_back(n);
    const idx ns = static_cast<idx>(sn.super_ptr.size()) - 1;
    sn.sn_parent.assign(static_cast<std::size_t>(ns), -1);
    for (idx s = 0; s < ns; ++s) {
        idx p = parent[sn.super_ptr[s + 1] - 1];
        sn.sn_parent[s] = p == -1 ? -1 : col_to_sn[p];
    }
    return sn;
}

namespace {

struct Unit {
    idx w = 0, f = 0;             // width and rows of the merged panel
    std::int64_t zeros = 0;       // explicit zeros inside it
};

// Entries of an f x w trapezoidal panel (lower part of its diagonal block included).
std::int64_t panel_entries(idx f, idx w) { return w * f - w * (w - 1) / 2; }

idx find_rep(std::vector<idx>& rep, idx s) {
    while (rep[s] != s) s = rep[s] = rep[rep[s]];
    return s;
}

}  // namespace

ColumnPartition amalgamate(const ColumnPartition& sn, std::span<const idx> counts, const AmalgamationLimits& lim,
                           std::int64_t* explicit_zeros, idx fixed) {
    const idx ns = static_cast<idx>(sn.super_ptr.size()) - 1;
    std::vector<Unit> u(static_cast<std::size_t>(std::max<idx>(ns, 0)));
    std::int64_t nnz_l = 0;
    for (idx s = 0; s < ns; ++s) {
        u[s].w = sn.super_ptr[s + 1] - sn.super_ptr[s];
        // Rows of the panel: those of its last column plus its other columns (= counts of the first column
        // of a fundamental supernode; more when a pivot pair was forced in).
        u[s].f = counts[sn.super_ptr[s + 1] - 1] + u[s].w - 1;
        nnz_l += panel_entries(u[s].f, u[s].w);
    }
    std::vector<idx> head(static_cast<std::size_t>(ns), -1), next(static_cast<std::size_t>(ns), -1);
    for (idx s = ns - 1; s >= 0; --s)
        if (sn.sn_parent[s] != -1) {
            next[s] = head[sn.sn_parent[s]];
            head[sn.sn_parent[s]] = s;
        }
    std::vector<idx> rep(static_cast<std::size_t>(ns));
    std::iota(rep.begin(), rep.end(), idx{0});
    const double budget = lim.zero_fraction * static_cast<double>(nnz_l);
    std::int64_t total_zeros = 0;
    std::vector<idx> kids;
    for (idx p = 0; lim.enabled && p < ns; ++p) {
        if (p == fixed) continue;
        kids.clear();
        for (idx c = head[p]; c != -1; c = next[c]) kids.push_back(c);
        // Try children by decreasing off-diagonal row count (fewest added zeros first).
        std::stable_sort(kids.begin(), kids.end(),
                         [&](idx a, idx b) { return u[a].f - u[a].w > u[b].f - u[b].w; });
        for (idx c : kids) {
            idx wm = u[c].w + u[p].w;
            if (wm > lim.max_width) continue;
            std::int64_t add = u[c].w * (u[c].w + u[p].f - u[c].f);  // c's columns gain rows
            std::int64_t zm = u[c].zeros + u[p].zeros + add;
            if (static_cast<double>(total_zeros + add) > budget) continue;
            std::int64_t entries = panel_entries(u[c].w + u[p].f, wm);
            bool ok = static_cast<double>(zm) <= lim.zero_fraction * static_cast<double>(entries - zm) ||
                      wm <= lim.min_width;
            if (!ok) continue;
            total_zeros += add;
            u[p] = Unit{wm, u[c].w + u[p].f, zm};
            rep[c] = p;
        }
    }
    if (explicit_zeros) *explicit_zeros = total_zeros;
    // Units and their members (increasing supernode index, i.e. descendants first).
    std::vector<idx> unit_of(static_cast<std::size_t>(ns));
    std::vector<idx> roots;
    for (idx s = 0; s < ns; ++s) {
        unit_of[s] = find_rep(rep, s);
        if (unit_of[s] == s) roots.push_back(s);
    }
    std::vector<idx> member_head(static_cast<std::size_t>(ns), -1), member_next(static_cast<std::size_t>(ns), -1);
    for (idx s = ns - 1; s >= 0; --s) {
        member_next[s] = member_head[unit_of[s]];
        member_head[unit_of[s]] = s;
    }
    // Unit tree: parent unit of root r = unit of sn_parent[r]; postorder it.
    std::vector<idx> ucompact(static_cast<std::size_t>(ns), -1);
    for (std::size_t k = 0; k < roots.size(); ++k) ucompact[roots[k]] = static_cast<idx>(k);
    const idx nu = static_cast<idx>(roots.size());
    std::vector<idx> cparent(static_cast<std::size_t>(nu), -1);
    for (idx k = 0; k < nu; ++k) {
        idx r = roots[k];
        cparent[k] = sn.sn_parent[r] == -1 ? -1 : ucompact[unit_of[sn.sn_parent[r]]];
    }
    std::vector<idx> upost = postorder(cparent);
    ColumnPartition out;
    out.super_ptr.assign(1, 0);
    out.order.reserve(sn.order.size());
    std::vector<idx> new_index(static_cast<std::size_t>(nu));
    for (idx k = 0; k < nu; ++k) {
        idx r = roots[upost[k]];
        new_index[upost[k]] = k;
        for (idx s = member_head[r]; s != -1; s = member_next[s])
            for (idx j = sn.super_ptr[s]; j < sn.super_ptr[s + 1]; ++j) out.order.push_back(sn.order[j]);
        out.super_ptr.push_back(static_cast<idx>(out.order.size()));
    }
    out.sn_parent.assign(static_cast<std::size_t>(nu), -1);
    for (idx k = 0; k < nu; ++k) {
        idx pu = cparent[upost[k]];
        out.sn_parent[k] = pu == -1 ? -1 : new_index[pu];
    }
    return out;
}

}  // namespace gigasparse::direct
