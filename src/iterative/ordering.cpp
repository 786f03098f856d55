// src/iterative/ordering.cpp: natural, RCM, greedy multicolor, ABMC and divide-and-conquer (METIS separators) orderings.
#include <metis.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include <gigasparse/core/error.hpp>
#include <gigasparse/iterative/ordering.hpp>

namespace gigasparse::iterative {

const char* to_string(OrderingKind k) {
    switch (k) {
        case OrderingKind::natural: return "natural";
        case OrderingKind::rcm: return "rcm";
        case OrderingKind::multicolor: return "mc";
        case OrderingKind::abmc: return "abmc";
        case OrderingKind::dc: return "dc";
        case OrderingKind::automatic: return "auto";
    }
    return "unknown";
}

OrderingKind parse_ordering(const std::string& name) {
    if (name == "natural") return OrderingKind::natural;
    if (name == "rcm") return OrderingKind::rcm;
    if (name == "mc" || name == "multicolor") return OrderingKind::multicolor;
    if (name == "abmc") return OrderingKind::abmc;
    if (name == "dc") return OrderingKind::dc;
    if (name == "auto") return OrderingKind::automatic;
    throw InvalidArgument("unknown ordering '" + name + "' (natural, rcm, mc, abmc, dc, auto)");
}

namespace {

// Undirected adjacency of A + Aᵀ without self loops, rows sorted and unique.
struct Graph {
    std::int64_t n = 0;
    std::vector<std::int64_t> ptr, adj;
    std::int64_t degree(std::int64_t v) const { return ptr[v + 1] - ptr[v]; }
};

template <class V, class I>
Graph symmetric_graph(CsrView<V, I> a) {
    Graph g;
    g.n = a.nrows;
    std::vector<std::int64_t> count(static_cast<std::size_t>(g.n + 1), 0);
    for (std::int64_t i = 0; i < a.nrows; ++i)
        for (offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
            if (a.col_idx[k] != i) ++count[i + 1], ++count[a.col_idx[k] + 1];
    std::partial_sum(count.begin(), count.end(), count.begin());
    std::vector<std::int64_t> adj(static_cast<std::size_t>(count[g.n])), fill(count.begin(), count.end() - 1);
    for (std::int64_t i = 0; i < a.nrows; ++i)
        for (offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
            if (const std::int64_t j = a.col_idx[k]; j != i) adj[fill[i]++] = j, adj[fill[j]++] = i;
    g.ptr.assign(1, 0);
    for (std::int64_t i = 0; i < g.n; ++i) {
        auto b = adj.begin() + count[i], e = adj.begin() + count[i + 1];
        std::sort(b, e);
        g.adj.insert(g.adj.end(), b, std::unique(b, e));
        g.ptr.push_back(static_cast<std::int64_t>(g.adj.size()));
    }
    return g;
}

// BFS from root over unvisited vertices; returns the visit order; neighbours by increasing degree.
std::vector<std::int64_t> bfs(const Graph& g, std::int64_t root, std::vector<char>& seen, bool by_degree) {
    std::vector<std::int64_t> order{root};
    seen[root] = 1;
    for (std::size_t h = 0; h < order.size(); ++h) {
        const std::int64_t v = order[h];
        const std::size_t first = order.size();
        for (std::int64_t k = g.ptr[v]; k < g.ptr[v + 1]; ++k)
            if (!seen[g.adj[k]]) seen[g.adj[k]] = 1, order.push_back(g.adj[k]);
        if (by_degree)
            std::stable_sort(order.begin() + first, order.end(), [&](auto x, auto y) { return g.degree(x) < g.degree(y); });
    }
    return order;
}

// Reverse Cuthill–McKee, component by component, from a pseudo-peripheral vertex (a few BFS sweeps).
std::vector<std::int64_t> rcm(const Graph& g) {
    std::vector<char> done(static_cast<std::size_t>(g.n), 0);
    std::vector<std::int64_t> perm;
    for (std::int64_t s = 0; s < g.n; ++s) {
        if (done[s]) continue;
        std::int64_t root = s;
        for (int sweep = 0; sweep < 3; ++sweep) {
            std::vector<char> seen = done;
            const auto order = bfs(g, root, seen, false);
            const std::int64_t far = order.back();
            if (far == root) break;
            root = far;
        }
        const auto order = bfs(g, root, done, true);
        perm.insert(perm.end(), order.begin(), order.end());
    }
    std::reverse(perm.begin(), perm.end());
    return perm;
}

// Greedy coloring of the vertices in `order` (smallest color unused by a colored neighbour); color per vertex.
std::vector<std::int64_t> greedy_colors(const Graph& g, const std::vector<std::int64_t>& order, std::int64_t& ncolors) {
    std::vector<std::int64_t> color(static_cast<std::size_t>(g.n), -1), mark;
    ncolors = 0;
    for (const std::int64_t v : order) {
        mark.assign(static_cast<std::size_t>(ncolors + 1), 0);
        for (std::int64_t k = g.ptr[v]; k < g.ptr[v + 1]; ++k)
            if (color[g.adj[k]] >= 0) mark[color[g.adj[k]]] = 1;
        std::int64_t c = 0;
        while (mark[c]) ++c;
        color[v] = c;
        ncolors = std::max(ncolors, c + 1);
    }
    return color;
}

// Stable order of `verts` by color.
void sort_by_color(std::vector<std::int64_t>& verts, const std::vector<std::int64_t>& color) {
    std::stable_sort(verts.begin(), verts.end(), [&](auto x, auto y) { return color[x] < color[y]; });
}

Ordering multicolor(const Graph& g) {
    Ordering o;
    o.kind = OrderingKind::multicolor;
    o.perm.resize(static_cast<std::size_t>(g.n));
    std::iota(o.perm.begin(), o.perm.end(), 0);
    const auto color = greedy_colors(g, o.perm, o.colors);
    sort_by_color(o.perm, color);
    o.description = "greedy point multicolor: " + std::to_string(o.colors) + " colors";
    return o;
}

// The graph of aggregates: aggregate a is adjacent to b when some edge joins them.
Graph quotient(const Graph& g, const std::vector<std::int64_t>& agg, std::int64_t nagg) {
    std::vector<std::vector<std::int64_t>> nb(static_cast<std::size_t>(nagg));
    for (std::int64_t v = 0; v < g.n; ++v)
        for (std::int64_t k = g.ptr[v]; k < g.ptr[v + 1]; ++k)
            if (agg[g.adj[k]] != agg[v]) nb[agg[v]].push_back(agg[g.adj[k]]);
    Graph q;
    q.n = nagg;
    q.ptr.assign(1, 0);
    for (auto& l : nb) {
        std::sort(l.begin(), l.end());
        q.adj.insert(q.adj.end(), l.begin(), std::unique(l.begin(), l.end()));
        q.ptr.push_back(static_cast<std::int64_t>(q.adj.size()));
    }
    return q;
}

// BFS aggregates of up to block_rows vertices (the fallback when METIS cannot partition).
std::int64_t bfs_aggregates(const Graph& g, std::int64_t block_rows, std::vector<std::int64_t>& agg) {
    agg.assign(static_cast<std::size_t>(g.n), -1);
    std::int64_t nagg = 0;
    for (std::int64_t s = 0; s < g.n; ++s) {
        if (agg[s] >= 0) continue;
        std::vector<std::int64_t> queue{s};
        agg[s] = nagg;
        std::int64_t size = 1;
        for (std::size_t h = 0; h < queue.size() && size < block_rows; ++h)
            for (std::int64_t k = g.ptr[queue[h]]; k < g.ptr[queue[h] + 1] && size < block_rows; ++k)
                if (agg[g.adj[k]] < 0) agg[g.adj[k]] = nagg, queue.push_back(g.adj[k]), ++size;
        ++nagg;
    }
    return nagg;
}

// Compact aggregates: METIS k-way partition into about n / block_rows parts.
std::int64_t kway_aggregates(const Graph& g, std::int64_t block_rows, std::vector<std::int64_t>& agg) {
    idx_t nparts = static_cast<idx_t>((g.n + block_rows - 1) / block_rows);
    if (nparts < 2 || g.adj.empty() || g.n > std::numeric_limits<idx_t>::max() / 2) return bfs_aggregates(g, block_rows, agg);
    std::vector<idx_t> xadj(g.ptr.begin(), g.ptr.end()), adjncy(g.adj.begin(), g.adj.end()), part(static_cast<std::size_t>(g.n));
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_NUMBERING] = 0;
    options[METIS_OPTION_SEED] = 1;
    idx_t n = static_cast<idx_t>(g.n), ncon = 1, objval = 0;
    if (METIS_PartGraphKway(&n, &ncon, xadj.data(), adjncy.data(), nullptr, nullptr, nullptr, &nparts, nullptr, nullptr, options, &objval,
                            part.data()) != METIS_OK)
        return bfs_aggregates(g, block_rows, agg);
    std::vector<std::int64_t> id(static_cast<std::size_t>(nparts), -1);  // renumber parts by first vertex, drop empty ones
    std::int64_t nagg = 0;
    agg.resize(static_cast<std::size_t>(g.n));
    for (std::int64_t v = 0; v < g.n; ++v) {
        if (id[part[v]] < 0) id[part[v]] = nagg++;
        agg[v] = id[part[v]];
    }
    return nagg;
}

Ordering abmc(const Graph& g, std::int64_t block_rows) {
    block_rows = std::max<std::int64_t>(block_rows, 1);
    std::vector<std::int64_t> agg;
    const std::int64_t nagg = kway_aggregates(g, block_rows, agg);
    const Graph q = quotient(g, agg, nagg);
    std::vector<std::int64_t> aggs(static_cast<std::size_t>(nagg));
    std::iota(aggs.begin(), aggs.end(), 0);
    Ordering o;
    o.kind = OrderingKind::abmc;
    const auto color = greedy_colors(q, aggs, o.colors);
    sort_by_color(aggs, color);
    std::vector<std::vector<std::int64_t>> members(static_cast<std::size_t>(nagg));
    for (std::int64_t v = 0; v < g.n; ++v) members[agg[v]].push_back(v);  // natural order inside
    o.block_ptr.assign(1, 0);
    for (const std::int64_t a : aggs) {
        o.perm.insert(o.perm.end(), members[a].begin(), members[a].end());
        o.block_ptr.push_back(static_cast<std::int64_t>(o.perm.size()));
    }
    o.description = "ABMC: " + std::to_string(nagg) + " METIS aggregates of ~" + std::to_string(block_rows) + " rows, " +
                    std::to_string(o.colors) + " colors";
    return o;
}

// Divide and conquer: recursive bisection with vertex separators (index split or METIS).
struct DcBuilder {
    const Graph& g;
    const OrderingOptions& opt;
    int levels;
    Ordering out;
    std::vector<idx_t> local;  // global vertex -> local index in the current subgraph
    std::int64_t index_splits = 0, metis_splits = 0, block_separators = 0;

    // The subgraph induced by verts, numbered by position in verts (CSR adjacency for METIS).
    void induced_graph(const std::vector<std::int64_t>& verts, std::vector<idx_t>& xadj, std::vector<idx_t>& adjncy) {
        const idx_t nv = static_cast<idx_t>(verts.size());
        for (idx_t i = 0; i < nv; ++i) local[verts[i]] = i;
        xadj.assign(1, 0);
        adjncy.clear();
        for (const std::int64_t v : verts) {
            for (std::int64_t k = g.ptr[v]; k < g.ptr[v + 1]; ++k)
                if (local[g.adj[k]] >= 0) adjncy.push_back(local[g.adj[k]]);
            xadj.push_back(static_cast<idx_t>(adjncy.size()));
        }
        for (const std::int64_t v : verts) local[v] = -1;
    }

    // Splits verts into {part 0, part 1, separator} with METIS; false when METIS cannot split it.
    bool metis_bisect(const std::vector<std::int64_t>& verts, std::vector<std::int64_t> parts[3]) {
        const idx_t nv = static_cast<idx_t>(verts.size());
        std::vector<idx_t> xadj, adjncy;
        induced_graph(verts, xadj, adjncy);
        idx_t options[METIS_NOPTIONS];
        METIS_SetDefaultOptions(options);
        options[METIS_OPTION_NUMBERING] = 0;
        options[METIS_OPTION_SEED] = 1;
        idx_t nvtxs = nv, sepsize = 0, ncon = 1, two = 2, cut = 0;
        std::vector<idx_t> part(static_cast<std::size_t>(nv), 0);
        int rc = METIS_ERROR;
        if (!adjncy.empty() && opt.dc_metis_vertex_separator) {
            rc = METIS_ComputeVertexSeparator(&nvtxs, xadj.data(), adjncy.data(), nullptr, options, &sepsize, part.data());
        } else if (!adjncy.empty()) {
            rc = METIS_PartGraphRecursive(&nvtxs, &ncon, xadj.data(), adjncy.data(), nullptr, nullptr, nullptr, &two, nullptr, nullptr, options,
                                          &cut, part.data());
            if (rc == METIS_OK) boundary_separator(xadj, adjncy, part);
        }
        if (rc != METIS_OK) return false;
        for (idx_t i = 0; i < nv; ++i) parts[part[i]].push_back(verts[i]);
        return !parts[0].empty() && !parts[1].empty();
    }

    // Splits verts (sorted) at the median of the given numbering, weighted by degree + 1, and
    // moves the shorter boundary into the separator. Both halves keep the given order.
    bool index_bisect(const std::vector<std::int64_t>& verts, std::vector<std::int64_t> parts[3]) {
        const idx_t nv = static_cast<idx_t>(verts.size());
        std::int64_t total = 0;
        for (const std::int64_t v : verts) total += g.degree(v) + 1;
        std::vector<idx_t> part(static_cast<std::size_t>(nv), 1);
        std::int64_t acc = 0;
        for (idx_t i = 0; i < nv && 2 * acc < total; ++i) acc += g.degree(verts[i]) + 1, part[i] = 0;
        std::vector<idx_t> xadj, adjncy;
        induced_graph(verts, xadj, adjncy);
        boundary_separator(xadj, adjncy, part);
        for (idx_t i = 0; i < nv; ++i) parts[part[i]].push_back(verts[i]);
        return !parts[0].empty() && !parts[1].empty();
    }

    // 0: not split, 1: split by index, 2: split by METIS.
    int bisect(const std::vector<std::int64_t>& verts, std::vector<std::int64_t> parts[3]) {
        using S = OrderingOptions::DcSplit;
        if (opt.dc_split == S::metis) return metis_bisect(verts, parts) ? (++metis_splits, 2) : 0;
        const bool by_index = index_bisect(verts, parts);
        if (opt.dc_split == S::index) return by_index ? (++index_splits, 1) : 0;
        const double plane = 3.0 * std::pow(double(verts.size()), 2.0 / 3.0);
        if (by_index && double(parts[2].size()) <= plane) return ++index_splits, 1;
        std::vector<std::int64_t> other[3];
        if (!metis_bisect(verts, other)) return by_index ? (++index_splits, 1) : 0;
        if (by_index && parts[2].size() <= other[2].size()) return ++index_splits, 1;
        for (int k = 0; k < 3; ++k) parts[k] = std::move(other[k]);
        return ++metis_splits, 2;
    }

    // Edge bisection -> vertex separator: the boundary vertices of the side with the shorter
    // boundary (part 2). A straight edge cut gives a connected separator whose internal couplings
    // ILU(0) keeps; METIS vertex separators are often independent sets (staircases on grids).
    static void boundary_separator(const std::vector<idx_t>& xadj, const std::vector<idx_t>& adjncy, std::vector<idx_t>& part) {
        const idx_t n = static_cast<idx_t>(part.size());
        std::vector<char> on_boundary(static_cast<std::size_t>(n), 0);
        std::int64_t count[2] = {0, 0};
        for (idx_t v = 0; v < n; ++v)
            for (idx_t k = xadj[v]; k < xadj[v + 1]; ++k)
                if (part[adjncy[k]] != part[v]) {
                    on_boundary[v] = 1;
                    ++count[part[v]];
                    break;
                }
        const idx_t side = count[1] <= count[0] ? 1 : 0;
        for (idx_t v = 0; v < n; ++v)
            if (on_boundary[v] && part[v] == side) part[v] = 2;
    }

    void leaf(const std::vector<std::int64_t>& verts) {
        out.perm.insert(out.perm.end(), verts.begin(), verts.end());
        out.block_ptr.push_back(static_cast<std::int64_t>(out.perm.size()));
    }

    // A leaf subdomain. With dc_leaf_rcm (and a separator to run toward), its rows are renumbered
    // by reverse Cuthill–McKee on the leaf's own graph, rooted at its last vertex (the one next to
    // the separator in a twisted index split): the leaf then ends at the separator as before, and
    // consecutive rows lie in one breadth-first level, mostly independent, so a sequential sweep
    // of the leaf is not one long dependency chain.
    void subdomain(const std::vector<std::int64_t>& verts, bool has_separator) {
        if (!opt.dc_leaf_rcm || !has_separator || verts.size() < 3) return leaf(verts);
        for (std::size_t i = 0; i < verts.size(); ++i) local[verts[i]] = static_cast<idx_t>(i);
        std::vector<std::int64_t> order{verts.back()};
        std::vector<char> seen(verts.size(), 0);
        seen[verts.size() - 1] = 1;
        for (std::size_t h = 0; h < order.size(); ++h) {
            const std::size_t first = order.size();
            for (std::int64_t k = g.ptr[order[h]]; k < g.ptr[order[h] + 1]; ++k)
                if (const idx_t l = local[g.adj[k]]; l >= 0 && !seen[l]) seen[l] = 1, order.push_back(g.adj[k]);
            std::stable_sort(order.begin() + first, order.end(), [&](auto x, auto y) { return g.degree(x) < g.degree(y); });
        }
        for (std::size_t i = 0; i < verts.size(); ++i)
            if (!seen[i]) order.push_back(verts[i]);  // other components of the leaf
        for (const std::int64_t v : verts) local[v] = -1;
        std::reverse(order.begin(), order.end());
        leaf(order);
    }

    void separator(std::vector<std::int64_t> verts, int level) {
        if (verts.empty()) return;
        ++out.separators;
        if (opt.dc_relax_from_level >= 0 && level >= opt.dc_relax_from_level) {
            std::int64_t nc = 0;
            for (const std::int64_t v : verts) local[v] = 0;  // marks the separator: color it on its induced subgraph
            std::vector<std::int64_t> color(static_cast<std::size_t>(g.n), -1), mark;
            for (const std::int64_t v : verts) {
                mark.assign(static_cast<std::size_t>(nc + 1), 0);
                for (std::int64_t k = g.ptr[v]; k < g.ptr[v + 1]; ++k)
                    if (local[g.adj[k]] == 0 && color[g.adj[k]] >= 0) mark[color[g.adj[k]]] = 1;
                std::int64_t c = 0;
                while (mark[c]) ++c;
                color[v] = c;
                nc = std::max(nc, c + 1);
            }
            for (const std::int64_t v : verts) local[v] = -1;
            sort_by_color(verts, color);
            out.colors = std::max(out.colors, nc);
        } else if (double(verts.size()) * double(threads()) <= opt.dc_separator_block_fraction * double(g.n)) {
            ++block_separators;  // a small exact separator: one sequential subgraph, no waits inside
            return leaf(verts);
        }
        for (const std::int64_t v : verts) leaf({v});  // separator rows: one subgraph each, levels found by the schedule
    }

    int threads() const { return opt.threads > 0 ? opt.threads : omp_get_max_threads(); }

    void recurse(const std::vector<std::int64_t>& verts, int level) {
        std::vector<std::int64_t> parts[3];
        if (level >= levels || static_cast<std::int64_t>(verts.size()) < 2 * opt.dc_min_leaf) return subdomain(verts, level > 0);
        const int how = bisect(verts, parts);
        if (how == 0) return subdomain(verts, level > 0);
        recurse(parts[0], level + 1);
        // An index split keeps the given order in both halves: reversing the second one makes both run toward
        // their separator (a METIS half has no such direction).
        if (opt.dc_twisted && how == 1) std::reverse(parts[1].begin(), parts[1].end());
        recurse(parts[1], level + 1);
        separator(std::move(parts[2]), level);
    }
};

int auto_dc_levels(const OrderingOptions& opt) {
    const int threads = opt.threads > 0 ? opt.threads : omp_get_max_threads();
    int l = 1;  // measured (3D 40³ IC(0)-PCG): one level per doubling of threads keeps the penalty near +10%
    while ((1 << l) < threads) ++l;
    return l;
}

Ordering divide_and_conquer(const Graph& g, const OrderingOptions& opt) {
    DcBuilder b{g, opt, opt.dc_levels >= 0 ? opt.dc_levels : auto_dc_levels(opt), {}, {}, 0, 0, 0};
    b.local.assign(static_cast<std::size_t>(g.n), -1);
    b.out.kind = OrderingKind::dc;
    b.out.block_ptr.assign(1, 0);
    std::vector<std::int64_t> all(static_cast<std::size_t>(g.n));
    std::iota(all.begin(), all.end(), 0);
    b.recurse(all, 0);
    b.out.description = "DC: bisection to depth " + std::to_string(b.levels) + " (" + std::to_string(b.index_splits) + " index, " +
                        std::to_string(b.metis_splits) + " METIS splits), " + std::to_string(b.out.separators) + " separators (" +
                        std::to_string(b.block_separators) + " sequential blocks), relaxed from level " +
                        (opt.dc_relax_from_level >= 0 ? std::to_string(opt.dc_relax_from_level) : std::string("none (all exact)"));
    return b.out;
}

}  // namespace

template <class V, class I>
Ordering compute_ordering(CsrView<V, I> a, const OrderingOptions& options) {
    if (a.nrows != a.ncols) throw DimensionMismatch("compute_ordering: matrix is not square");
    if (options.kind == OrderingKind::natural) return Ordering{OrderingKind::natural, {}, {}, 0, 0, "natural (identity)"};
    if (options.kind == OrderingKind::automatic)
        throw InvalidArgument("compute_ordering: 'auto' is resolved by the preconditioner factory, not here");
    const Graph g = symmetric_graph(a);
    switch (options.kind) {
        case OrderingKind::rcm: return Ordering{OrderingKind::rcm, rcm(g), {}, 0, 0, "reverse Cuthill-McKee"};
        case OrderingKind::multicolor: return multicolor(g);
        case OrderingKind::abmc: return abmc(g, options.abmc_block_rows);
        default: return divide_and_conquer(g, options);
    }
}

#define GS_INST(V, I) template Ordering compute_ordering<V, I>(CsrView<V, I>, const OrderingOptions&);
GIGASPARSE_FOR_EACH_VALUE_INDEX(GS_INST)
#undef GS_INST

}  // namespace gigasparse::iterative
