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
// The last `schur` columns form one supernode that absorbs no child.
void add_depth(Evaluation& e, const DirectOptions& opt, idx schur) {
    const idx n = static_cast<idx>(e.parent.size());
    ColumnPartition fs = fundamental_supernodes(e.parent, e.counts, {}, schur > 0 ? n - schur : -1);
    ColumnPartition am = amalgamate(fs, e.counts, opt.amalgamation, nullptr,
                                    schur > 0 ? static_cast<idx>(fs.super_ptr.size()) - 2 : -1);
    e.cand.sdepth = tree_height(am.sn_parent);
    e.cand.nsupernodes = static_cast<idx>(fs.super_ptr.size()) - 1;
    e.cand.cost = ordering_cost(e.cand.flops, e.cand.sdepth, opt.level_weight);
}

// schur > 0: perm0 ends with the Schur columns and `a` links them in a path, so their etree is a chain that the
// postorder keeps last and in order; their counts become those of a dense block (the path undercounts them;
// the other columns' counts do not depend on edges between later columns) and they add no flops.
Evaluation evaluate(const SymmetricPattern& a, std::vector<idx> perm0, OrderingAlg alg, const DirectOptions& opt,
                    bool need_depth, idx schur) {
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
    for (idx k = n - schur; k < n; ++k) e.counts[k] = n - k;
    for (idx k = 0; k < n; ++k) {
        double ck = static_cast<double>(e.counts[k]);
        e.cand.nnz_L += ck;
        if (k < n - schur) e.cand.flops += ck * ck;
    }
    e.cand.nlevels = tree_height(e.parent);
    if (need_depth) add_depth(e, opt, schur);
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
    // CAMD with the columns of `last` after the others (a pair is never split by the constraint).
    std::vector<idx> camd(std::span<const std::uint8_t> last) const {
        if (mate.empty()) return order_camd(full, last);
        std::vector<std::uint8_t> qlast(first.size());
        for (std::size_t v = 0; v < first.size(); ++v) qlast[v] = last[first[v]];
        return expand(order_camd(quotient, qlast));
    }
    std::vector<idx> nd() const { return mate.empty() ? order_nd(full) : expand(order_nd(quotient)); }
};

}  // namespace

Symbolic analyze_pattern(const SymmetricPattern& pattern, Structure structure, const DirectOptions& opt,
                         std::span<const std::int64_t> user_perm, int threads, std::span<const idx> mate,
                         std::span<const idx> schur, std::span<const std::uint8_t> merge_next) {
    const idx n = pattern.n;
    const idx ks = static_cast<idx>(schur.size());
    Symbolic s;
    s.n = n;
    s.structure = structure;
    // Schur variables: the orderings run on the graph of the other columns (`graph`), the Schur columns
    // follow; the evaluation runs on the pattern plus a path through the Schur columns (`epat`).
    SymmetricPattern sub, aug;
    std::vector<idx> keep, sub_mate;  // sub vertex -> column; pairs in sub numbering
    if (ks > 0) {
        std::vector<idx> sub_of(static_cast<std::size_t>(n), -1);
        std::vector<std::uint8_t> is_schur(static_cast<std::size_t>(n), 0);
        for (idx c : schur) is_schur[c] = 1;
        for (idx i = 0; i < n; ++i)
            if (!is_schur[i]) sub_of[i] = static_cast<idx>(keep.size()), keep.push_back(i);
        sub.n = static_cast<idx>(keep.size());
        for (idx v = 0; v < sub.n; ++v) {
            const idx c = keep[v];
            for (idx q = pattern.col_ptr[c]; q < pattern.col_ptr[c + 1]; ++q)
                if (sub_of[pattern.row_idx[q]] >= 0) sub.row_idx.push_back(sub_of[pattern.row_idx[q]]);
            sub.col_ptr.push_back(static_cast<idx>(sub.row_idx.size()));
        }
        if (!mate.empty()) {
            sub_mate.assign(static_cast<std::size_t>(sub.n), -1);
            for (idx v = 0; v < sub.n; ++v) {
                const idx m = mate[keep[v]];
                if (m >= 0 && is_schur[m]) throw InvalidArgument("direct: a pivot pair includes a Schur variable (internal)");
                sub_mate[v] = m < 0 ? -1 : sub_of[m];
            }
        }
        std::vector<idx> pos(static_cast<std::size_t>(n), -1);  // place of each Schur column in `schur`
        for (idx t = 0; t < ks; ++t) pos[schur[t]] = t;
        aug.n = n;
        for (idx c = 0; c < n; ++c) {
            const auto b = static_cast<std::ptrdiff_t>(aug.row_idx.size());
            aug.row_idx.insert(aug.row_idx.end(), pattern.row_idx.begin() + pattern.col_ptr[c],
                               pattern.row_idx.begin() + pattern.col_ptr[c + 1]);
            if (is_schur[c]) {
                if (pos[c] > 0) aug.row_idx.push_back(schur[pos[c] - 1]);
                if (pos[c] + 1 < ks) aug.row_idx.push_back(schur[pos[c] + 1]);
                std::sort(aug.row_idx.begin() + b, aug.row_idx.end());
                aug.row_idx.erase(std::unique(aug.row_idx.begin() + b, aug.row_idx.end()), aug.row_idx.end());
            }
            aug.col_ptr.push_back(static_cast<idx>(aug.row_idx.size()));
        }
    }
    const SymmetricPattern& graph = ks > 0 ? sub : pattern;
    const SymmetricPattern& epat = ks > 0 ? aug : pattern;
    // An ordering of `graph` as one of all columns: its columns, then the Schur columns in increasing order (the
    // order of the path of `epat`; inside the dense Schur block the order does not matter).
    auto full = [&](std::vector<idx> p) {
        if (ks == 0) return p;
        for (idx& v : p) v = keep[v];
        p.insert(p.end(), schur.begin(), schur.end());
        return p;
    };
    // AMD with Schur variables: CAMD on the whole graph (the fill of the interior counts the rows of the Schur
    // variables; AMD on the interior alone gave 20% more nnz(L) on lap2d:500 with its last grid row).
    std::vector<std::uint8_t> schur_mask;
    if (ks > 0) {
        schur_mask.assign(static_cast<std::size_t>(n), 0);
        for (idx c : schur) schur_mask[c] = 1;
    }
    std::vector<idx> identity(static_cast<std::size_t>(graph.n));
    std::iota(identity.begin(), identity.end(), idx{0});
    const bool paired = !mate.empty() && (opt.ordering == OrderingAlg::amd || opt.ordering == OrderingAlg::nd ||
                                          opt.ordering == OrderingAlg::automatic);
    const std::span<const idx> graph_mate = ks > 0 ? std::span<const idx>(sub_mate) : mate;
    PairedOrderings ord(graph, paired ? graph_mate : std::span<const idx>{});
    PairedOrderings whole(pattern, paired ? mate : std::span<const idx>{});
    auto amd_order = [&] {
        if (ks == 0) return ord.amd();
        std::vector<idx> p = whole.camd(schur_mask);
        std::copy(schur.begin(), schur.end(), p.end() - ks);  // the Schur tail in increasing order
        return p;
    };
    Evaluation best;
    switch (opt.ordering) {
        case OrderingAlg::natural: best = evaluate(epat, full(identity), OrderingAlg::natural, opt, false, ks); break;
        case OrderingAlg::amd: best = evaluate(epat, amd_order(), OrderingAlg::amd, opt, false, ks); break;
        case OrderingAlg::nd: best = evaluate(epat, full(ord.nd()), OrderingAlg::nd, opt, false, ks); break;
        case OrderingAlg::user: {
            std::vector<idx> u = validate_user_permutation(user_perm, n, 0);
            if (ks > 0) {  // the user's order of the others, then the Schur columns (increasing)
                std::stable_partition(u.begin(), u.end(), [&](idx c) { return !schur_mask[c]; });
                std::copy(schur.begin(), schur.end(), u.end() - ks);
            }
            best = evaluate(epat, std::move(u), OrderingAlg::user, opt, false, ks);
            break;
        }
        case OrderingAlg::automatic: {
            Evaluation a = evaluate(epat, amd_order(), OrderingAlg::amd, opt, false, ks);
            if (a.cand.flops < opt.auto_nd_ratio * a.cand.nnz_L) {  // AMD's fill is good: skip METIS
                best = std::move(a);
                break;
            }
            add_depth(a, opt, ks);
            Evaluation d = evaluate(epat, full(ord.nd()), OrderingAlg::nd, opt, true, ks);
            s.candidates = {a.cand, d.cand};
            best = d.cand.cost < a.cand.cost ? std::move(d) : std::move(a);  // ties keep AMD
            break;
        }
    }
    s.ordering_used = best.cand.alg;
    // Supernodes of the postordered etree, amalgamated and renumbered.
    // Pivot pairs stay adjacent through the postorder (the first is the last child of the second, whose
    // children are visited in increasing order) and are forced into one supernode.
    // Columns to merge with their parent (merge_next) likewise.
    std::vector<std::uint8_t> pair_post;
    if (paired || !merge_next.empty()) {
        pair_post.assign(static_cast<std::size_t>(n), 0);
        for (idx k = 0; k + 1 < n; ++k)
            if (best.parent[k] == k + 1 && ((paired && mate[best.perm[k]] == best.perm[k + 1]) ||
                                            (!merge_next.empty() && merge_next[best.perm[k]])))
                pair_post[k] = 1;
    }
    ColumnPartition fs = fundamental_supernodes(best.parent, best.counts, pair_post, ks > 0 ? n - ks : -1);
    ColumnPartition am = amalgamate(fs, best.counts, opt.amalgamation, &s.explicit_zeros,
                                    ks > 0 ? static_cast<idx>(fs.super_ptr.size()) - 2 : -1);
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
        if (k < n - ks) s.flops += ck * ck;  // the Schur block is not factored
    }
    s.nlevels_column = best.cand.nlevels;
    s.nsuper = static_cast<idx>(am.super_ptr.size()) - 1;
    s.super_ptr = am.super_ptr;
    s.sn_parent = am.sn_parent;
    s.col_to_sn.resize(static_cast<std::size_t>(n));
    for (idx sn = 0; sn < s.nsuper; ++sn)
        for (idx j = s.super_ptr[sn]; j < s.super_ptr[sn + 1]; ++j) s.col_to_sn[j] = sn;
    if (ks > 0) {
        s.schur = ks;
        if (s.width(s.nsuper - 1) != ks || s.sn_parent[s.nsuper - 1] != -1)
            throw InvalidStructure("direct: the Schur columns do not form the last supernode (internal)");
    }
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
