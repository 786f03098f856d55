// src/direct/analysis/etree.cpp: elimination tree (Liu), postorder, column counts (Gilbert–Ng–Peyton), height.
#include <algorithm>

#include <gigasparse/direct/symbolic.hpp>

namespace gigasparse::direct {

std::vector<idx> elimination_tree(const SymmetricPattern& p) {
    // For each k, every i < k adjacent to k: climb from i to its root (compressing) and hang it on k.
    const idx n = p.n;
    std::vector<idx> parent(static_cast<std::size_t>(n), -1), ancestor(static_cast<std::size_t>(n), -1);
    for (idx k = 0; k < n; ++k) {
        for (idx q = p.col_ptr[k]; q < p.col_ptr[k + 1]; ++q) {
            idx i = p.row_idx[q];
            while (i != -1 && i < k) {
                idx inext = ancestor[i];
                ancestor[i] = k;  // path compression
                if (inext == -1) parent[i] = k;
                i = inext;
            }
        }
    }
    return parent;
}

std::vector<idx> postorder(std::span<const idx> parent) {
    // Children lists in increasing order, then an iterative depth-first search from each root.
    const idx n = static_cast<idx>(parent.size());
    std::vector<idx> head(static_cast<std::size_t>(n), -1), next(static_cast<std::size_t>(n), -1);
    for (idx j = n - 1; j >= 0; --j) {
        if (parent[j] == -1) continue;
        next[j] = head[parent[j]];
        head[parent[j]] = j;
    }
    std::vector<idx> post, stack;
    post.reserve(static_cast<std::size_t>(n));
    for (idx r = 0; r < n; ++r) {
        if (parent[r] != -1) continue;
        stack.push_back(r);
        while (!stack.empty()) {
            idx j = stack.back();
            idx c = head[j];
            if (c == -1) {
                stack.pop_back();
                post.push_back(j);
            } else {
                head[j] = next[c];  // consume child c
                stack.push_back(c);
            }
        }
    }
    return post;
}

namespace {

// cs_leaf: is j a leaf of the i-th row subtree? Returns the lca q with the previous leaf (jleaf 2),
// i itself for the first leaf (jleaf 1), or -1 (jleaf 0).
idx row_leaf(idx i, idx j, std::vector<idx>& first, std::vector<idx>& maxfirst, std::vector<idx>& prevleaf,
             std::vector<idx>& ancestor, int& jleaf) {
    jleaf = 0;
    if (i <= j || first[j] <= maxfirst[i]) return -1;
    maxfirst[i] = first[j];
    idx jprev = prevleaf[i];
    prevleaf[i] = j;
    jleaf = jprev == -1 ? 1 : 2;
    if (jleaf == 1) return i;
    idx q = jprev;
    while (q != ancestor[q]) q = ancestor[q];
    for (idx s = jprev; s != q;) {
        idx sparent = ancestor[s];
        ancestor[s] = q;  // path compression
        s = sparent;
    }
    return q;
}

}  // namespace

std::vector<idx> column_counts(const SymmetricPattern& p, std::span<const idx> parent, std::span<const idx> post) {
    // delta[j] = 1 for leaves of the etree; +1 per skeleton leaf, -1 at each lca; then sum up the tree.
    const idx n = p.n;
    std::vector<idx> delta(static_cast<std::size_t>(n), 0), first(static_cast<std::size_t>(n), -1),
        maxfirst(static_cast<std::size_t>(n), -1), prevleaf(static_cast<std::size_t>(n), -1),
        ancestor(static_cast<std::size_t>(n));
    for (idx k = 0; k < n; ++k) {
        idx j = post[k];
        delta[j] = first[j] == -1 ? 1 : 0;
        for (; j != -1 && first[j] == -1; j = parent[j]) first[j] = k;
    }
    for (idx i = 0; i < n; ++i) ancestor[i] = i;
    for (idx k = 0; k < n; ++k) {
        idx j = post[k];
        if (parent[j] != -1) --delta[parent[j]];
        for (idx q = p.col_ptr[j]; q < p.col_ptr[j + 1]; ++q) {
            int jleaf = 0;
            idx lca = row_leaf(p.row_idx[q], j, first, maxfirst, prevleaf, ancestor, jleaf);
            if (jleaf >= 1) ++delta[j];
            if (jleaf == 2) --delta[lca];
        }
        if (parent[j] != -1) ancestor[j] = parent[j];
    }
    for (idx j = 0; j < n; ++j)
        if (parent[j] != -1) delta[parent[j]] += delta[j];
    return delta;
}

idx tree_height(std::span<const idx> parent) {
    // Depth of every node from its root, computed in reverse topological order (parent > child).
    const idx n = static_cast<idx>(parent.size());
    std::vector<idx> depth(static_cast<std::size_t>(n), 0);
    idx h = 0;
    bool monotone = true;
    for (idx j = 0; j < n; ++j)
        if (parent[j] != -1 && parent[j] <= j) monotone = false;
    if (monotone) {
        for (idx j = n - 1; j >= 0; --j) {
            depth[j] = parent[j] == -1 ? 1 : depth[parent[j]] + 1;
            h = std::max(h, depth[j]);
        }
        return h;
    }
    std::vector<idx> post = postorder(parent);
    for (idx k = n - 1; k >= 0; --k) {
        idx j = post[k];
        depth[j] = parent[j] == -1 ? 1 : depth[parent[j]] + 1;
        h = std::max(h, depth[j]);
    }
    return h;
}

}  // namespace gigasparse::direct
