// include/gigasparse/direct/symbolic.hpp: the symbolic analysis (ordering, trees, supernodes, maps, schedule).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <gigasparse/direct/options.hpp>

namespace gigasparse::direct {

using idx = std::int64_t;

// Symmetric adjacency of an n x n pattern in compressed-column form: sorted, no duplicates, no
// diagonal, both triangles (column j lists every i != j with (i, j) or (j, i) in the pattern).
struct SymmetricPattern {
    idx n = 0;
    std::vector<idx> col_ptr{0};
    std::vector<idx> row_idx;
};

// One fill-reducing ordering and its cost-model evaluation (seed: evaluate_ordering).
struct OrderingCandidate {
    OrderingAlg alg = OrderingAlg::natural;
    double nnz_L = 0, flops = 0, cost = 0;
    idx nlevels = 0, sdepth = 0, nsupernodes = 0;
};

// Everything the numeric phase and the solves need, independent of values and backend.
// Numbering: "final" = columns of P A Pᵀ with perm[new] = old (postordered, supernodes contiguous).
struct Symbolic {
    idx n = 0;
    Structure structure = Structure::spd;
    OrderingAlg ordering_used = OrderingAlg::natural;
    std::vector<OrderingCandidate> candidates;

    std::vector<idx> perm, iperm;      // final permutation and its inverse
    std::vector<idx> parent;           // column etree in final numbering (-1: root)
    std::vector<idx> col_count;        // column counts of L (diagonal included), final numbering
    double nnz_L = 0, flops = 0;       // Σ c_j and Σ c_j² (real arithmetic count)
    idx nlevels_column = 0;            // column-etree height

    // Supernodes (after amalgamation): columns super_ptr[s] .. super_ptr[s+1]-1.
    idx nsuper = 0;
    std::vector<idx> super_ptr{0};
    std::vector<idx> sn_parent;        // -1 for roots
    std::vector<idx> col_to_sn;        // supernode of each final column
    std::vector<idx> rows_ptr{0};      // rows of supernode s: rows[rows_ptr[s] .. rows_ptr[s+1]) sorted,
    std::vector<idx> rows;             // the first w_s are its own columns
    std::vector<std::int64_t> lx_ptr{0};  // panel of s: f_s x w_s column-major at lx_ptr[s], ld = f_s
    std::vector<idx> child_ptr{0}, child_list;  // children of every supernode, increasing order
    std::vector<idx> relind_ptr{0}, relind;     // child c: positions of rows(c)[w_c:] in rows(parent)

    // Assembly map of the stored input entries: entry k goes to lx[amap[k]] (-1: not read),
    // conjugated when amap_conj[k] (Hermitian entry mirrored to the lower triangle).
    std::vector<std::int64_t> amap;
    std::vector<std::uint8_t> amap_conj;
    // The mapped entries of each supernode's panel, in input order: amap_sn_entries[amap_sn_ptr[s] ..
    // amap_sn_ptr[s+1]) (each front zeroes and fills its own panel just before its assembly).
    std::vector<idx> amap_sn_ptr{0}, amap_sn_entries;

    // Schedule: level of each supernode (leaves 0), supernodes by level, independent subtrees.
    idx nlevels = 0;
    std::vector<idx> level;
    std::vector<idx> level_ptr{0}, level_nodes;
    std::vector<idx> subtree_root;               // roots of the parallel subtrees
    std::vector<idx> subtree_ptr{0}, subtree_nodes;  // nodes of each subtree in postorder
    // One-right-hand-side forward sweep over the subtrees: for the node at subtree_nodes[q], its rows above its
    // subtree (the last sweep_out_ptr[q+1] - sweep_out_ptr[q] of its front rows) as positions in the subtree
    // root's rows below its columns, where the sweep buffers their updates.
    std::vector<idx> sweep_out_ptr{0}, sweep_out_pos;
    std::vector<idx> top_nodes;                  // remaining nodes, postorder (processed after the subtrees)
    std::vector<std::int64_t> stack_size;        // stack entries per subtree, then one for the top
    std::vector<idx> stack_of;                   // stack (subtree index, or #subtrees for top) of each node
    std::vector<double> sn_flops;                // factorization flops of each front

    // Memory (entries of the value type): factor storage, contribution-block stacks.
    std::int64_t factor_entries = 0, stack_entries = 0;
    std::int64_t explicit_zeros = 0;
    // LDLᵀ pivot pairs in the final numbering: pair_next[k] = 1 when columns k and k + 1 are a pair (empty: none).
    std::vector<std::uint8_t> pair_next;
    idx pivot_pairs = 0;
    // Schur complement: the last `schur` final columns are the Schur variables, all in the last supernode,
    // which is assembled (A22 plus the children's updates: the Schur complement) but not factored.
    idx schur = 0;

    idx width(idx s) const { return super_ptr[s + 1] - super_ptr[s]; }
    bool is_schur(idx s) const { return schur > 0 && s == nsuper - 1; }
    idx front_rows(idx s) const { return rows_ptr[s + 1] - rows_ptr[s]; }
};

// ---- analysis building blocks (exposed for the golden tests) ----

// Symmetric pattern of a CSR input per the view rules (A + Aᵀ for general), indices with `base`.
template <class I>
SymmetricPattern symmetric_pattern(idx n, std::span<const std::int64_t> row_ptr, std::span<const I> col_idx,
                                   Structure structure, MatrixView view, idx base);

// Pattern of P A Pᵀ (perm[new] = old); with sorted = false the columns keep the order of A's
// (elimination_tree and column_counts do not need sorted columns).
SymmetricPattern permute_pattern(const SymmetricPattern& p, std::span<const idx> perm, bool sorted = true);

// Elimination tree (Liu, path compression); parent[k] = -1 for roots.
std::vector<idx> elimination_tree(const SymmetricPattern& p);
// Postorder of a forest (children visited in increasing order): post[k] = k-th node.
std::vector<idx> postorder(std::span<const idx> parent);
// Column counts of L, diagonal included (Gilbert–Ng–Peyton with skeleton leaves, as cs_counts).
std::vector<idx> column_counts(const SymmetricPattern& p, std::span<const idx> parent, std::span<const idx> post);
// Height of a forest (number of levels).
idx tree_height(std::span<const idx> parent);

// A partition of postordered columns into contiguous supernodes.
struct ColumnPartition {
    std::vector<idx> order;       // new column k = old column order[k]
    std::vector<idx> super_ptr;   // supernode s owns new columns super_ptr[s] .. super_ptr[s+1]-1
    std::vector<idx> sn_parent;   // -1 for roots
};
// Fundamental supernodes of a postordered etree (parent[k] > k), counts in the same numbering.
// pair_next[k] (optional): columns k and k + 1 are a pivot pair (LDLᵀ) and must share a supernode.
// schur_start (optional, >= 0): columns schur_start .. n-1 (a chain up to the root) form one supernode of
// their own.
ColumnPartition fundamental_supernodes(std::span<const idx> parent, std::span<const idx> counts,
                                       std::span<const std::uint8_t> pair_next = {}, idx schur_start = -1);
// Relaxed amalgamation of a partition (in the numbering of `counts`); result renumbered so that
// merged supernodes are contiguous; order composes with sn.order. Supernode `fixed` (optional, a root)
// absorbs no child.
ColumnPartition amalgamate(const ColumnPartition& sn, std::span<const idx> counts, const AmalgamationLimits& lim,
                           std::int64_t* explicit_zeros = nullptr, idx fixed = -1);

// Cost model of the automatic choice: flops + level_weight × sdepth.
inline double ordering_cost(double flops, idx sdepth, double level_weight) {
    return flops + level_weight * static_cast<double>(sdepth);
}

// Fill-reducing orderings of a symmetric pattern (perm[new] = old).
std::vector<idx> order_amd(const SymmetricPattern& p);
std::vector<idx> order_nd(const SymmetricPattern& p);
// Constrained AMD (SuiteSparse CAMD): the columns with last[i] set come after all the others, the fill of
// both groups minimized together (the Schur variables of the analysis).
std::vector<idx> order_camd(const SymmetricPattern& p, std::span<const std::uint8_t> last);
// Validates a user permutation given 0- or 1-based (throws InvalidArgument).
std::vector<idx> validate_user_permutation(std::span<const std::int64_t> perm, idx n, idx base);

// The whole analysis: ordering (auto/amd/nd/natural/user), trees, counts, supernodes,
// symbolic factorization, relative indices, schedule, memory.
// mate (optional, LDLᵀ): mate[i] = j pairs columns i and j (weak_diagonal_pairs): the fill-reducing
// ordering runs on the graph with each pair merged into one vertex, the pair stays adjacent and in one
// supernode, so the front's Bunch–Kaufman search can take the pair as a 2×2 pivot (ignored for the
// natural and user orderings).
// schur (optional, sorted 0-based columns): the Schur variables, ordered last (the others keep the chosen
// ordering of the graph without them; a user ordering keeps its relative order) in one final supernode
// that the numeric phase assembles but does not factor (Symbolic::schur). No pair may touch them.
// merge_next (optional, original columns): a column c with merge_next[c] set joins the supernode of the column
// that follows it in the final order when that column is its etree parent (LU delayed pivots: a column moved in
// front of its parent's supernode, with an edge to its first column, is factored in that front).
Symbolic analyze_pattern(const SymmetricPattern& pattern, Structure structure, const DirectOptions& opt,
                         std::span<const std::int64_t> user_perm, int threads, std::span<const idx> mate = {},
                         std::span<const idx> schur = {}, std::span<const std::uint8_t> merge_next = {});

// LU of a general matrix: a maximum-product matching of rows to columns and its scaling (src/direct/
// analysis/matching.cpp): row_of_col[j] is the row whose entry in column j goes on the diagonal;
// |row_scale[i] a_ij col_scale[j]| <= 1, = 1 on the matching. unmatched > 0: structurally singular (the
// free rows fill the permutation, the scaling is the identity).
struct RowMatching {
    std::vector<idx> row_of_col;
    std::vector<double> row_scale, col_scale;
    idx unmatched = 0;
};
template <class V, class I>
RowMatching max_product_matching(idx n, std::span<const std::int64_t> row_ptr, std::span<const I> col_idx,
                                 std::span<const V> values, idx base);

// LDLᵀ pivot pairs from the values (PARDISO's idea of keeping 2×2 pivot candidates together, with a greedy
// matching instead of a weighted one): each column whose diagonal is weak (|a_ii| <= threshold · max_j≠i |a_ij|,
// zero included) is paired with its unpaired neighbour of largest |a_ij|, weakest columns first. Returns
// mate (-1: unpaired). Entries follow the view rules of symmetric_pattern. Columns with exclude[i] set (the
// Schur variables) are left unpaired and are nobody's partner.
template <class V, class I>
std::vector<idx> weak_diagonal_pairs(idx n, std::span<const std::int64_t> row_ptr, std::span<const I> col_idx,
                                     std::span<const V> values, MatrixView view, idx base, double threshold,
                                     std::span<const std::uint8_t> exclude = {});

// Assembly map of the stored entries of a CSR input into the panels of `sym` (fills sym.amap,
// amap_conj and the per-supernode lists amap_sn_ptr / amap_sn_entries). General structure (LU): row_map[i]
// (optional) renumbers row i (the matching's row permutation), and amap_conj = 1 marks the U panel.
template <class I>
void build_assembly_map(Symbolic& sym, std::span<const std::int64_t> row_ptr, std::span<const I> col_idx,
                        MatrixView view, idx base, std::span<const idx> row_map = {});

}  // namespace gigasparse::direct
