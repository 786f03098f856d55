// src/direct/numeric/reference/cholesky_reference.cpp: the reference numeric phase — a sequential
// left-looking column Cholesky (LLᵀ / LLᴴ) without BLAS, the oracle of the multifrontal phase.
//
// It fills the same panels (Symbolic::lx_ptr) as cholesky_multifrontal, so the sweeps, refinement and
// factor_L() read its result unchanged. Column j of L lives in supernode sn = col_to_sn[j] at local
// column jl = j - super_ptr[sn]: rows rows[rows_ptr[sn] + jl ..] (sorted, the first is j itself) and
// values panel[jl·f + jl ..]. The algorithm is the textbook one:
//   x = A(j:n, j) (dense work vector, scattered over the pattern of column j)
//   for every k < j with L(j, k) in the pattern:  x(i) -= L(i, k) · conj(L(j, k))  for i >= j
//   d = Re x(j); fail at j when !(d > 0);  L(j, j) = √d;  L(i, j) = x(i) / √d
// The columns k with row j pending are kept in linked lists (head[row] / next[k], pos[k] = position
// of the pending row in column k), the classic left-looking bookkeeping. Every update is checked to
// land inside the pattern of column j (the symbolic closure property), so a wrong symbolic structure
// is a std::logic_error (an internal invariant), never a silently wrong factor.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <gigasparse/core/error.hpp>

#include "direct/numeric/numeric.hpp"

namespace gigasparse::direct {

template <class V>
Status cholesky_reference(const Symbolic& s, NumericFactor<V>& num, std::span<const V> a, idx& fail_col) {
    using R = real_t<V>;
    fail_col = -1;
    const idx n = s.n;
    std::fill(num.info.begin(), num.info.end(), 0);
    if (a.size() < s.amap.size()) throw DimensionMismatch("direct reference: fewer values than mapped entries");

    // Lower triangle of P A Pᴴ in the panels: lx = 0; lx[amap[k]] += a_k (conjugated when mirrored).
    V* lx = num.lx.data();
    std::fill(num.lx.begin(), num.lx.end(), V(0));
    for (std::size_t k = 0; k < s.amap.size(); ++k)
        if (s.amap[k] >= 0) lx[s.amap[k]] += s.amap_conj[k] ? conj_if_complex(a[k]) : a[k];

    // Where column j starts: its diagonal in lx, its first row in rows, and its length.
    std::vector<std::int64_t> val0(static_cast<std::size_t>(n));
    std::vector<idx> row0(static_cast<std::size_t>(n)), len(static_cast<std::size_t>(n));
    for (idx sn = 0; sn < s.nsuper; ++sn) {
        const idx f = s.front_rows(sn);
        for (idx jl = 0; jl < s.width(sn); ++jl) {
            const idx j = s.super_ptr[sn] + jl;
            val0[j] = s.lx_ptr[sn] + jl * f + jl;
            row0[j] = s.rows_ptr[sn] + jl;
            len[j] = f - jl;
            if (s.rows[row0[j]] != j)
                throw std::logic_error("direct reference: column " + std::to_string(j) + " does not start at its diagonal");
        }
    }

    std::vector<V> x(static_cast<std::size_t>(n), V(0));
    std::vector<idx> mark(static_cast<std::size_t>(n), -1);  // mark[i] == j: row i is in the pattern of column j
    std::vector<idx> head(static_cast<std::size_t>(n), -1), next(static_cast<std::size_t>(n), -1),
        pos(static_cast<std::size_t>(n), 0);
    auto link = [&](idx k, idx p) {  // column k waits for its row at position p
        pos[k] = p;
        const idx r = s.rows[row0[k] + p];
        next[k] = head[r];
        head[r] = k;
    };

    for (idx j = 0; j < n; ++j) {
        const idx* rj = s.rows.data() + row0[j];
        V* lj = lx + val0[j];
        const idx lenj = len[j];
        for (idx p = 0; p < lenj; ++p) {
            x[rj[p]] = lj[p];
            mark[rj[p]] = j;
        }
        // Updates from every earlier column k with row j in its pattern.
        for (idx k = head[j], nk; k != -1; k = nk) {
            nk = next[k];
            const idx p = pos[k];
            const idx* rk = s.rows.data() + row0[k];
            const V* lk = lx + val0[k];
            const V ljk = conj_if_complex(lk[p]);
            for (idx q = p; q < len[k]; ++q) {
                const idx i = rk[q];
                if (mark[i] != j)
                    throw std::logic_error("direct reference: update of column " + std::to_string(j) + " from column " +
                                       std::to_string(k) + " reaches row " + std::to_string(i) +
                                       " outside its pattern");
                x[i] -= lk[q] * ljk;
            }
            if (p + 1 < len[k]) link(k, p + 1);
        }
        const R d = std::real(x[j]);
        if (!(d > R(0))) {
            fail_col = j;
            const idx sn = s.col_to_sn[j];
            num.info[sn] = j - s.super_ptr[sn] + 1;
            for (idx p = 0; p < lenj; ++p) x[rj[p]] = V(0);
            return Status::not_positive_definite;
        }
        const R ljj = std::sqrt(d);
        lj[0] = V(ljj);
        x[j] = V(0);
        for (idx p = 1; p < lenj; ++p) {
            lj[p] = x[rj[p]] / ljj;
            x[rj[p]] = V(0);
        }
        if (lenj > 1) link(j, 1);
    }
    return Status::success;
}

#define GIGASPARSE_DIRECT_REFERENCE(V) \
    template Status cholesky_reference<V>(const Symbolic&, NumericFactor<V>&, std::span<const V>, idx&);
GIGASPARSE_FOR_EACH_VALUE(GIGASPARSE_DIRECT_REFERENCE)
#undef GIGASPARSE_DIRECT_REFERENCE

}  // namespace gigasparse::direct
