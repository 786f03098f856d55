// src/direct/analysis/symbolic.cpp: ordering choice, supernodal partition and symbolic factorization.
#include <algorithm>
#include <numeric>

#include <gigasparse/core/error.hpp>
#include <gigasparse/direct/symbolic.hpp>

#include "direct/analysis/schedule.hpp"

namespace gigasparse::direct {
namespace {

// Etree, postorder and counts of one ordering, condensed into the cost model (seed: evaluate_ordering).
struct Evaluation {
    OrderingCandidate cand;
    std::vector<idx> perm;  // postordered: perm0 ∘ post
    std::vector<idx> parent, counts;  // in the postordered numbering
};

// Supernodal schedule depth of an evaluated ordering, and its ordering_cost.
void add_depth(Evaluation& e, const DirectOptions& opt) {
    ColumnPartition fs = fundamental_supernodes(e.parent, e.counts);
    ColumnPartition am = amalgamate(fs, e.counts, opt.amalgamation);
    e.cand.sdepth = tree_height(am.sn_parent);
    e.cand.nsupernodes = static_cast<idx>(fs.super_ptr.size()) - 1;
    e.cand.cost = ordering_cost(e.cand.flops, e.cand.sdepth, opt.level_weight);
}

Evaluation evaluate(const SymmetricPattern& a, std::vector<idx> perm0, OrderingAlg alg, const DirectOptions& opt,
                    bool need_depth) {
    SymmetricPattern c = permute_pattern(a, perm0, false);
    std::vector<idx> parent0 = elimination_tree(c);
    std::vector<idx> post = postorder(parent0);
    std::vector<idx> counts0 = column_counts(c, parent0, post);
    const idx n = a.n;
    Evaluation e;
    e.perm.resize(static_cast<std::size_t>(n));
    e.parent.resize(static_cast<std::size_t>(n));
    e.counts.resize(static_cast<std::size_t>(n));
    std::vector<idx> ipost(static_cast<std::size_t>(n));
    for (idx k = 0; k < n; ++k) ipost[post[k]] = k;
    for (idx k = 0; k < n; ++k) {
        idx j = post[k];
        e.perm[k] = perm0[j];
        e.parent[k] = parent0[j] == -1 ? -1 : ipost[parent0[j]];
        e.counts[k] = counts0[j];
    }
    e.cand.alg = alg;
    for (idx k = 0; k < n; ++k) {
        double ck = static_cast<double>(e.counts[k]);
        e.cand.nnz_L += ck;
        e.cand.flops += ck * ck;
    }
    e.cand.nlevels = tree_height(e.parent);
    if (need_depth) add_depth(e, opt);
    return e;
}

// Rows of every supernode: own columns, entries of A below them, children's rows below them.
void symbolic_rows(Symbolic& s, const SymmetricPattern& a) {
    const idx n = s.n, ns = s.nsuper;
    std::vector<idx> mark(static_cast<std::size_t>(n), -1);
    s.rows_ptr.assign(1, 0);
    s.rows.clear();
    std::vector<idx> extra;
    for (idx sn = 0; sn < ns; ++sn) {
        idx c0 = s.super_ptr[sn], c1 = s.super_ptr[sn + 1];
        extra.clear();
        for (idx j = c0; j < c1; ++j) {
            const idx oj = s.perm[j];  // column j of P A Pᵀ is column perm[j] of A, rows through iperm
            for (idx q = a.col_ptr[oj]; q < a.col_ptr[oj + 1]; ++q) {
                idx i = s.iperm[a.row_idx[q]];
                if (i >= c1 && mark[i] != sn) mark[i] = sn, extra.push_back(i);
            }
        }
        for (idx q = s.child_ptr[sn]; q < s.child_ptr[sn + 1]; ++q) {
            idx ch = s.child_list[q];
            for (idx r = s.rows_ptr[ch] + s.width(ch); r < s.rows_ptr[ch + 1]; ++r) {
                idx i = s.rows[r];
                if (i >= c1 && mark[i] != sn) mark[i] = sn, extra.push_back(i);
            }
        }
        std::sort(extra.begin(), extra.end());
        for (idx j = c0; j < c1; ++j) s.rows.push_back(j);
        s.rows.insert(s.rows.end(), extra.begin(), extra.end());
        s.rows_ptr.push_back(static_cast<idx>(s.rows.size()));
    }
}

// Children lists (increasing) of the supernodal tree.
void children(Symbolic& s) {
    const idx ns = s.nsuper;
    s.child_ptr.assign(static_cast<std::size_t>(ns + 1), 0);
    for (idx c = 0; c < ns; ++c)
        if (s.sn_parent[c] != -1) ++s.child_ptr[s.sn_parent[c] + 1];
    for (idx k = 0; k < ns; ++k) s.child_ptr[k + 1] += s.child_ptr[k];
    s.child_list.resize(static_cast<std::size_t>(s.child_ptr[ns]));
    std::vector<idx> next(s.child_ptr.begin(), s.child_ptr.end() - 1);
    for (idx c = 0; c < ns; ++c)
        if (s.sn_parent[c] != -1) s.child_list[next[s.sn_parent[c]]++] = c;
}

// Extend-add maps: positions of rows(c)[w_c:] inside rows(parent(c)) (both sorted).
void relative_indices(Symbolic& s) {
    s.relind_ptr.assign(1, 0);
    s.relind.clear();
    for (idx c = 0; c < s.nsuper; ++c) {
        idx p = s.sn_parent[c];
        if (p != -1) {
            idx q = s.rows_ptr[p];
            for (idx r = s.rows_ptr[c] + s.width(c); r < s.rows_ptr[c + 1]; ++r) {
                while (s.rows[q] != s.rows[r]) ++q;  // rows(c) below its columns ⊆ rows(p)
                s.relind.push_back(q - s.rows_ptr[p]);
            }
        }
        s.relind_ptr.push_back(static_cast<idx>(s.relind.size()));
    }
}

// Orderings of the graph with every pivot pair (mate) merged into one vertex, expanded back with the pair
// adjacent (lower index first). Without pairs, the orderings of the pattern itself.
struct PairedOrderings {
    const SymmetricPattern& full;
    std::span<const idx> mate;
    SymmetricPattern quotient;
    std::vector<idx> vertex_of, first, second;  // quotient vertex of each column; members of each vertex

    PairedOrderings(const SymmetricPattern& p, std::span<const idx> m) : full(p), mate(m) {
        if (mate.empty()) return;
        const idx n = p.n;
        vertex_of.assign(static_cast<std::size_t>(n), -1);
        for (idx i = 0; i < n; ++i) {
            if (vertex_of[i] != -1) continue;
            const idx v = static_cast<idx>(first.size());
            vertex_of[i] = v;
            first.push_back(i);
            second.push_back(-1);
            if (mate[i] > i) vertex_of[mate[i]] = v, second.back() = mate[i];
        }
        const idx nq = static_cast<idx>(first.size());
        quotient.n = nq;
        quotient.col_ptr.assign(1, 0);
        std::vector<idx> mark(static_cast<std::size_t>(nq), -1);
        for (idx v = 0; v < nq; ++v) {
            for (idx c : {first[v], second[v]}) {
                if (c < 0) continue;
                for (idx q = p.col_ptr[c]; q < p.col_ptr[c + 1]; ++q) {
                    const idx u = vertex_of[p.row_idx[q]];
                    if (u == v || mark[u] == v) continue;
                    mark[u] = v;
                    quotient.row_idx.push_back(u);
                }
            }
            std::sort(quotient.row_idx.begin() + quotient.col_ptr.back(), quotient.row_idx.end());
            quotient.col_ptr.push_back(static_cast<idx>(quotient.row_idx.size()));
        }
    }
    std::vector<idx> expand(const std::vector<idx>& qperm) const {
        std::vector<idx> perm;
        perm.reserve(static_cast<std::size_t>(full.n));
        for (idx v : qperm) {
            perm.push_back(first[v]);
            if (second[v] >= 0) perm.push_back(second[v]);
        }
        return perm;
    }
    std::vector<idx> amd() const { return mate.empty() ? order_amd(full) : expand(order_amd(quotient)); }
    std::vector<idx> nd() const { return mate.empty() ? order_nd(full) : expand(order_nd(quotient)); }
};

}  // namespace

Symbolic analyze_pattern(const SymmetricPattern& pattern, Structure structure, const DirectOptions& opt,
                         std::span<const std::int64_t> user_perm, int threads, std::span<const idx> mate) {
    const idx n = pattern.n;
    Symbolic s;
    s.n = n;
    s.structure = structure;
    std::vector<idx> identity(static_cast<std::size_t>(n));
    std::iota(identity.begin(), identity.end(), idx{0});
    const bool paired = !mate.empty() && (opt.ordering == OrderingAlg::amd || opt.ordering == OrderingAlg::nd ||
                                          opt.ordering == OrderingAlg::automatic);
    PairedOrderings ord(pattern, paired ? mate : std::span<const idx>{});
    Evaluation best;
    switch (opt.ordering) {
        case OrderingAlg::natural: best = evaluate(pattern, identity, OrderingAlg::natural, opt, false); break;
        case OrderingAlg::amd: best = evaluate(pattern, ord.amd(), OrderingAlg::amd, opt, false); break;
        case OrderingAlg::nd: best = evaluate(pattern, ord.nd(), OrderingAlg::nd, opt, false); break;
        case OrderingAlg::user:
            best = evaluate(pattern, validate_user_permutation(user_perm, n, 0), OrderingAlg::user, opt, false);
            break;
        case OrderingAlg::automatic: {
            Evaluation a = evaluate(pattern, ord.amd(), OrderingAlg::amd, opt, false);
            if (a.cand.flops < opt.auto_nd_ratio * a.cand.nnz_L) {  // AMD's fill is good: skip METIS
                best = std::move(a);
                break;
            }
            add_depth(a, opt);
            Evaluation d = evaluate(pattern, ord.nd(), OrderingAlg::nd, opt, true);
            s.candidates = {a.cand, d.cand};
            best = d.cand.cost < a.cand.cost ? std::move(d) : std::move(a);  // ties keep AMD
            break;
        }
    }
    s.ordering_used = best.cand.alg;
    // Supernodes of the postordered etree, amalgamated and renumbered.
    // Pivot pairs stay adjacent through the postorder (the first is the last child of the second, whose
    // children are visited in increasing order) and are forced into one supernode.
    std::vector<std::uint8_t> pair_post;
    if (paired) {
        pair_post.assign(static_cast<std::size_t>(n), 0);
        for (idx k = 0; k + 1 < n; ++k)
            if (mate[best.perm[k]] == best.perm[k + 1] && best.parent[k] == k + 1) pair_post[k] = 1;
    }
    ColumnPartition fs = fundamental_supernodes(best.parent, best.counts, pair_post);
    ColumnPartition am = amalgamate(fs, best.counts, opt.amalgamation, &s.explicit_zeros);
    if (s.candidates.empty()) {  // a single candidate: its depth is that of the schedule built here
        best.cand.sdepth = tree_height(am.sn_parent);
        best.cand.nsupernodes = static_cast<idx>(fs.super_ptr.size()) - 1;
        best.cand.cost = ordering_cost(best.cand.flops, best.cand.sdepth, opt.level_weight);
        s.candidates = {best.cand};
    }
    s.perm.resize(static_cast<std::size_t>(n));
    for (idx k = 0; k < n; ++k) s.perm[k] = best.perm[am.order[k]];
    s.iperm.resize(static_cast<std::size_t>(n));
    for (idx k = 0; k < n; ++k) s.iperm[s.perm[k]] = k;
    if (paired) {
        s.pair_next.assign(static_cast<std::size_t>(n), 0);
        for (idx k = 0; k + 1 < n; ++k)
            if (mate[s.perm[k]] == s.perm[k + 1]) s.pair_next[k] = 1, ++s.pivot_pairs;
    }
    // Final numbering: the amalgamated order is a topological relabelling of the same etree, so the
    // tree and the counts carry over through the relabelling (no second etree / count pass).
    std::vector<idx> inv_order(static_cast<std::size_t>(n));
    for (idx k = 0; k < n; ++k) inv_order[am.order[k]] = k;
    s.parent.resize(static_cast<std::size_t>(n));
    s.col_count.resize(static_cast<std::size_t>(n));
    for (idx k = 0; k < n; ++k) {
        idx j = am.order[k];
        s.parent[k] = best.parent[j] == -1 ? -1 : inv_order[best.parent[j]];
        s.col_count[k] = best.counts[j];
    }
    for (idx k = 0; k < n; ++k) {
        double ck = static_cast<double>(s.col_count[k]);
        s.nnz_L += ck;
        s.flops += ck * ck;
    }
    s.nlevels_column = best.cand.nlevels;
    s.nsuper = static_cast<idx>(am.super_ptr.size()) - 1;
    s.super_ptr = am.super_ptr;
    s.sn_parent = am.sn_parent;
    s.col_to_sn.resize(static_cast<std::size_t>(n));
    for (idx sn = 0; sn < s.nsuper; ++sn)
        for (idx j = s.super_ptr[sn]; j < s.super_ptr[sn + 1]; ++j) s.col_to_sn[j] = sn;
    children(s);
    symbolic_rows(s, pattern);
    relative_indices(s);
    s.lx_ptr.assign(1, 0);
    for (idx sn = 0; sn < s.nsuper; ++sn) s.lx_ptr.push_back(s.lx_ptr.back() + s.front_rows(sn) * s.width(sn));
    s.factor_entries = s.lx_ptr.back();
    build_schedule(s, threads, opt.subtree_factor);
    return s;
}

}  // namespace gigasparse::direct
