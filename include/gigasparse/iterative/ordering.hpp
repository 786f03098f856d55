// include/gigasparse/iterative/ordering.hpp: symmetric reorderings that shape data-dependent sweeps (natural, RCM, MC, ABMC, DC).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <gigasparse/core/matrix.hpp>

namespace gigasparse::iterative {

// natural: as given. rcm: reverse Cuthill–McKee. multicolor: greedy point coloring, colors in
// sequence. abmc: algebraic block multicolor (BFS aggregates colored on the aggregate graph,
// sequential inside an aggregate). dc: divide and conquer = recursive bisection with METIS
// vertex separators; leaves are sequential subgraphs, separators come after both halves and are
// either exact (natural order) or relaxed (multicolored) per recursion level. automatic: chosen by
// a probe (see preconditioner.hpp), never passed to compute_ordering.
enum class OrderingKind { natural, rcm, multicolor, abmc, dc, automatic };

const char* to_string(OrderingKind k);
// "natural", "rcm", "mc"/"multicolor", "abmc", "dc", "auto"; InvalidArgument otherwise.
OrderingKind parse_ordering(const std::string& name);

struct OrderingOptions {
    OrderingKind kind = OrderingKind::natural;
    std::int64_t abmc_block_rows = 256;  // rows per ABMC aggregate
    int dc_levels = -1;                  // recursion depth; -1: ceil(log2(threads)), at least 1
    int dc_relax_from_level = -1;       // separators at recursion level >= this are multicolored; -1: no level (all exact)
    std::int64_t dc_min_leaf = 256;     // do not bisect subgraphs smaller than this
    bool dc_metis_vertex_separator = false;  // true: METIS_ComputeVertexSeparator; false: the boundary of a
                                             // METIS edge bisection (connected separators, better ILU(0))
    // How a subgraph is bisected. index: split its (sorted) vertex range at the nonzero-weighted
    // median of the given numbering and take the shorter boundary as separator: on banded or
    // lexicographic numberings (generated grids, meshes, RCM) a straight plane, and both halves keep
    // the given order, so the factorization keeps almost every dependency of natural order.
    // metis: METIS bisection (any numbering). automatic: index when its separator is small
    // (<= 3 |V|^(2/3), a grid plane) and otherwise the smaller of the two.
    enum class DcSplit { automatic, index, metis };
    DcSplit dc_split = DcSplit::automatic;
    // Twisted halves (van der Vorst): the second half of every index split is ordered in reverse, so
    // both halves are eliminated toward their common separator as natural order does on one side;
    // IC(0)/ILU(0) then stay close to natural order's quality. false: both halves in the given order.
    bool dc_twisted = true;
    // Leaves renumbered by reverse Cuthill–McKee rooted next to their separator (see ordering.cpp):
    // the sweep inside a leaf is not one dependency chain and still ends at the separator. On a full
    // grid the factor is unchanged (3D 100³ sweep 7.3 vs 7.8 ms); on other leaf shapes the root is
    // not the far corner and edges change direction (a 1500-row grid ball: 48 vs 24 PCG
    // iterations), so it is off by default.
    bool dc_leaf_rcm = false;
    // Exact separators of at most this fraction of the rows (per thread) run as one sequential
    // subgraph (one task: no per-level waits); larger ones are leveled row by row. 0: always row by row.
    double dc_separator_block_fraction = 0.125;
    int threads = 0;                    // 0: omp_get_max_threads()
};

// A symmetric permutation plus the subgraphs a schedule must keep sequential.
struct Ordering {
    OrderingKind kind = OrderingKind::natural;
    std::vector<std::int64_t> perm;       // perm[new] = old (empty: identity)
    std::vector<std::int64_t> block_ptr;  // consecutive new indices [block_ptr[b], block_ptr[b+1]) form one
                                          // sequential subgraph; empty: every row is its own subgraph
    std::int64_t colors = 0;              // colors used (mc, abmc, relaxed dc separators)
    std::int64_t separators = 0;          // dc: separator count
    std::string description;              // one line: what was built
};

// The ordering of the undirected graph of A + Aᵀ (values ignored, diagonal ignored). A must be square.
template <class V, class I>
Ordering compute_ordering(CsrView<V, I> a, const OrderingOptions& options);

}  // namespace gigasparse::iterative
