// src/direct/analysis/pivot_pairs.cpp: LDLᵀ pivot pairs of weak-diagonal columns (greedy matching on |a_ij|).
//
// Why: the numeric phase chooses pivots only inside a front (static structure, no delayed pivots). A
// column with a zero or tiny diagonal that the ordering eliminates alone (a constraint row of a KKT
// matrix, for one) has no usable pivot, and its pivot is perturbed: the factor then solves a nearby
// matrix and refinement has to recover the rest (hangGlider_2: 384 of 1,647 pivots perturbed, backward
// error 6e-6 after 2 steps). Pairing such a column with a strong neighbour and keeping the pair
// adjacent in one supernode gives the Bunch–Kaufman search a 2×2 pivot [a_ii a_ij; a_ji a_jj] there.
#include <algorithm>
#include <cmath>
#include <numeric>

#include <gigasparse/core/types.hpp>
#include <gigasparse/direct/symbolic.hpp>

namespace gigasparse::direct {

template <class V, class I>
std::vector<idx> weak_diagonal_pairs(idx n, std::span<const std::int64_t> row_ptr, std::span<const I> col_idx,
                                     std::span<const V> values, MatrixView view, idx base, double threshold,
                                     std::span<const std::uint8_t> exclude) {
    std::vector<idx> mate(static_cast<std::size_t>(n), -1);
    if (values.size() < static_cast<std::size_t>(row_ptr[n] - base)) return mate;  // no values: no pairs
    // Excluded columns (Schur variables) look already paired: they take no pair and are nobody's partner.
    for (idx i = 0; i < static_cast<idx>(exclude.size()); ++i)
        if (exclude[i]) mate[i] = -2;
    std::vector<double> diag(static_cast<std::size_t>(n), 0.0), offmax(static_cast<std::size_t>(n), 0.0);
    // Off-diagonal entries read by the view, in both directions (column lists).
    std::vector<idx> cnt(static_cast<std::size_t>(n + 1), 0);
    auto used = [&](idx i, idx j) { return view == MatrixView::upper ? i <= j : i >= j; };
    for (idx i = 0; i < n; ++i)
        for (idx k = row_ptr[i] - base; k < row_ptr[i + 1] - base; ++k) {
            const idx j = static_cast<idx>(col_idx[k]) - base;
            if (!used(i, j)) continue;
            const double v = std::abs(values[k]);
            if (i == j) {
                diag[i] += v;  // duplicates: an upper bound of the summed magnitude is enough here
                continue;
            }
            offmax[i] = std::max(offmax[i], v);
            offmax[j] = std::max(offmax[j], v);
            ++cnt[i + 1], ++cnt[j + 1];
        }
    std::partial_sum(cnt.begin(), cnt.end(), cnt.begin());
    std::vector<idx> nbr(static_cast<std::size_t>(cnt[n]));
    std::vector<double> mag(nbr.size());
    std::vector<idx> next(cnt.begin(), cnt.end() - 1);
    for (idx i = 0; i < n; ++i)
        for (idx k = row_ptr[i] - base; k < row_ptr[i + 1] - base; ++k) {
            const idx j = static_cast<idx>(col_idx[k]) - base;
            if (i == j || !used(i, j)) continue;
            const double v = std::abs(values[k]);
            nbr[next[i]] = j, mag[next[i]++] = v;
            nbr[next[j]] = i, mag[next[j]++] = v;
        }
    // Weak columns, weakest (relative diagonal) first; ties by index (deterministic).
    std::vector<idx> weak;
    std::vector<double> ratio(static_cast<std::size_t>(n), 0.0);
    for (idx i = 0; i < n; ++i) {
        if (offmax[i] == 0) continue;  // an isolated column has no partner
        ratio[i] = diag[i] / offmax[i];
        if (ratio[i] <= threshold) weak.push_back(i);
    }
    std::stable_sort(weak.begin(), weak.end(), [&](idx a, idx b) { return ratio[a] < ratio[b]; });
    for (idx i : weak) {
        if (mate[i] != -1) continue;
        idx best = -1;
        double bv = 0;
        for (idx q = cnt[i]; q < cnt[i + 1]; ++q) {
            const idx j = nbr[q];
            if (mate[j] != -1 || j == i) continue;
            if (mag[q] > bv || (mag[q] == bv && best != -1 && j < best)) bv = mag[q], best = j;
        }
        if (best != -1 && bv > 0) mate[i] = best, mate[best] = i;
    }
    for (idx& m : mate) m = std::max<idx>(m, -1);
    return mate;
}

#define GIGASPARSE_PIVOT_PAIRS(V, I)                                                                             \
    template std::vector<idx> weak_diagonal_pairs<V, I>(idx, std::span<const std::int64_t>, std::span<const I>, \
                                                        std::span<const V>, MatrixView, idx, double,     \
                                                        std::span<const std::uint8_t>);
GIGASPARSE_FOR_EACH_VALUE_INDEX(GIGASPARSE_PIVOT_PAIRS)
#undef GIGASPARSE_PIVOT_PAIRS

}  // namespace gigasparse::direct
