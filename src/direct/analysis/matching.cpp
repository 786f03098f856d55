// src/direct/analysis/matching.cpp: maximum-product bipartite matching and its scaling (the idea of MC64's
// job 5, Duff & Koster), for the LU of a general matrix.
//
// Cost of entry (i, j): c_ij = log max_k |a_kj| - log |a_ij| >= 0. A perfect matching of minimum total
// cost maximizes the product of the matched magnitudes. Columns are matched one at a time by a shortest
// augmenting path (Dijkstra on reduced costs c_ij - u_i - v_j >= 0, binary heap), after a greedy start on
// zero reduced costs. The optimal duals give the scaling: r_i = exp(u_i), s_j = exp(v_j) / max_k |a_kj|,
// with |r_i a_ij s_j| <= 1 everywhere and = 1 on the matching. Permuting the rows so that the matched
// entries lie on the diagonal gives a matrix whose static pivots (the diagonal) are the largest entries
// of their rows and columns: what the LU's pivoting inside the fronts needs, since it cannot look
// outside a front.
#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>

#include <gigasparse/core/types.hpp>
#include <gigasparse/direct/symbolic.hpp>

namespace gigasparse::direct {

template <class V, class I>
RowMatching max_product_matching(idx n, std::span<const std::int64_t> row_ptr, std::span<const I> col_idx,
                                 std::span<const V> values, idx base) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    RowMatching out;
    out.row_of_col.assign(static_cast<std::size_t>(n), -1);
    out.row_scale.assign(static_cast<std::size_t>(n), 1.0);
    out.col_scale.assign(static_cast<std::size_t>(n), 1.0);
    if (n == 0) return out;
    // Columns (CSC) of the nonzero entries, with |a_ij| (duplicates kept: the larger wins the matching).
    std::vector<idx> cptr(static_cast<std::size_t>(n + 1), 0);
    const bool have_values = values.size() >= static_cast<std::size_t>(row_ptr[n] - base);
    auto mag = [&](idx k) { return have_values ? static_cast<double>(std::abs(values[k])) : 1.0; };
    for (idx i = 0; i < n; ++i)
        for (idx k = row_ptr[i] - base; k < row_ptr[i + 1] - base; ++k)
            if (mag(k) > 0 && std::isfinite(mag(k))) ++cptr[static_cast<idx>(col_idx[k]) - base + 1];
    for (idx j = 0; j < n; ++j) cptr[j + 1] += cptr[j];
    std::vector<idx> crow(static_cast<std::size_t>(cptr[n]));
    std::vector<double> cost(crow.size());
    std::vector<idx> next(cptr.begin(), cptr.end() - 1);
    std::vector<double> colmax(static_cast<std::size_t>(n), 0.0);
    for (idx i = 0; i < n; ++i)
        for (idx k = row_ptr[i] - base; k < row_ptr[i + 1] - base; ++k) {
            const double v = mag(k);
            if (!(v > 0) || !std::isfinite(v)) continue;
            const idx j = static_cast<idx>(col_idx[k]) - base;
            crow[next[j]] = i;
            cost[next[j]++] = std::log(v);
            colmax[j] = std::max(colmax[j], v);
        }
    for (idx j = 0; j < n; ++j)
        for (idx q = cptr[j]; q < cptr[j + 1]; ++q) cost[q] = std::log(colmax[j]) - cost[q];
    // Duals and the greedy start (MC64's): v_j = min_i c_ij, u_i = min_j (c_ij - v_j), then each column takes a
    // free row at zero reduced cost. (With u = 0 only the column minima were tight: nnc1374 left 695 of 1,374
    // columns to the searches.)
    std::vector<double> u(static_cast<std::size_t>(n), inf), v(static_cast<std::size_t>(n), 0.0);
    std::vector<idx> col_of_row(static_cast<std::size_t>(n), -1), row_of_col(static_cast<std::size_t>(n), -1);
    for (idx j = 0; j < n; ++j) {
        double best = inf;
        for (idx q = cptr[j]; q < cptr[j + 1]; ++q) best = std::min(best, cost[q]);
        v[j] = cptr[j] < cptr[j + 1] ? best : 0.0;
        for (idx q = cptr[j]; q < cptr[j + 1]; ++q) u[crow[q]] = std::min(u[crow[q]], cost[q] - v[j]);
    }
    for (idx i = 0; i < n; ++i)
        if (u[i] == inf) u[i] = 0;  // an empty row
    auto tight = [&](idx q, idx j) { return cost[q] - u[crow[q]] - v[j] <= 1e-14 * (1 + cost[q]); };
    for (idx j = 0; j < n; ++j)
        for (idx q = cptr[j]; q < cptr[j + 1]; ++q)
            if (col_of_row[crow[q]] == -1 && tight(q, j)) {
                col_of_row[crow[q]] = j, row_of_col[j] = crow[q];
                break;
            }
    // Shortest augmenting paths from every free column.
    std::vector<double> dist(static_cast<std::size_t>(n), inf);
    std::vector<idx> pred(static_cast<std::size_t>(n), -1);  // column through which a row was reached
    // done: 1 finalized in this search; 2 dead — reached by a search that found no free row: every alternating path
    // from it stays among such rows (their matched columns lead only to them), so no later search gains by
    // entering them (structurally singular inputs: rajat01's 187 failing searches each explored 6,500 rows).
    std::vector<char> done(static_cast<std::size_t>(n), 0);
    std::vector<idx> touched, finalized;
    using Item = std::pair<double, idx>;
    for (idx j0 = 0; j0 < n; ++j0) {
        if (row_of_col[j0] != -1) continue;
        std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
        touched.clear();
        finalized.clear();
        // The nearest free row reached so far (free_row, D): the search stops as soon as no row left in the heap is
        // nearer — at once when one is reached at the distance of the row being expanded (a pattern's costs are all
        // zero: rajat01 explored its whole graph per column before).
        idx free_row = -1;
        double D = inf;
        auto relax = [&](idx j, double dj) {
            for (idx q = cptr[j]; q < cptr[j + 1]; ++q) {
                const idx i = crow[q];
                if (done[i]) continue;
                const double d = dj + std::max(0.0, cost[q] - u[i] - v[j]);
                if (d < dist[i]) {
                    if (dist[i] == inf) touched.push_back(i);
                    dist[i] = d, pred[i] = j;
                    if (col_of_row[i] != -1) heap.push({d, i});
                    else if (d < D) free_row = i, D = d;
                }
            }
        };
        relax(j0, 0.0);
        while (!heap.empty() && heap.top().first < D) {
            auto [d, i] = heap.top();
            heap.pop();
            if (done[i] || d > dist[i]) continue;
            done[i] = 1;
            finalized.push_back(i);
            relax(col_of_row[i], d);
        }
        if (free_row == -1) {
            ++out.unmatched;  // structurally singular: this column stays unmatched
            for (idx i : touched) done[i] = 2;
        } else {
            // Duals: rows finalized before the free one and the columns of the tree (see the file comment).
            v[j0] += D;
            for (idx i : finalized) {
                u[i] -= D - dist[i];
                v[col_of_row[i]] += D - dist[i];
            }
            // Augment along the predecessors.
            for (idx i = free_row; i != -1;) {
                const idx j = pred[i];
                const idx prev = row_of_col[j];
                row_of_col[j] = i, col_of_row[i] = j;
                i = j == j0 ? -1 : prev;
            }
        }
        for (idx i : touched) dist[i] = inf, done[i] = done[i] == 2 ? 2 : 0, pred[i] = -1;
    }

    // Unmatched columns (structurally singular input) take the free rows in order.
    for (idx j = 0, i = 0; j < n; ++j) {
        if (row_of_col[j] != -1) continue;
        while (col_of_row[i] != -1) ++i;
        row_of_col[j] = i, col_of_row[i] = j;
    }
    out.row_of_col = row_of_col;
    for (idx i = 0; i < n; ++i) out.row_scale[i] = std::exp(u[i]);
    for (idx j = 0; j < n; ++j) out.col_scale[j] = colmax[j] > 0 ? std::exp(v[j]) / colmax[j] : 1.0;
    if (out.unmatched > 0) {  // duals are not optimal then: no scaling
        std::fill(out.row_scale.begin(), out.row_scale.end(), 1.0);
        std::fill(out.col_scale.begin(), out.col_scale.end(), 1.0);
    }
    return out;
}

#define GIGASPARSE_MATCHING(V, I)                                                                                \
    template RowMatching max_product_matching<V, I>(idx, std::span<const std::int64_t>, std::span<const I>,     \
                                                    std::span<const V>, idx);
GIGASPARSE_FOR_EACH_VALUE_INDEX(GIGASPARSE_MATCHING)
#undef GIGASPARSE_MATCHING

}  // namespace gigasparse::direct
