// src/direct/numeric/omp/multifrontal.cpp: multifrontal supernodal Cholesky — threads over subtrees, BLAS near the root.
#include <algorithm>
#include <atomic>
#include <thread>
#include <cstring>


#include "direct/analysis/schedule.hpp"
#include "direct/numeric/dense.hpp"
#include "direct/numeric/numeric.hpp"

namespace gigasparse::direct {
namespace {

template <class V>
V conj_v(V v) {
    if constexpr (is_complex_v<V>) return std::conj(v);
    else return v;
}

// Extend-add of child c's contribution block into the panel and contribution block of its parent p.
template <class V>
void extend_add(const Symbolic& s, idx c, const V* cbc, idx p, V* panel, V* cbp) {
    const idx mc = s.front_rows(c) - s.width(c), fp = s.front_rows(p), wp = s.width(p), mp = fp - wp;
    const idx* rel = s.relind.data() + s.relind_ptr[c];
    for (idx jj = 0; jj < mc; ++jj) {
        const idx pc = rel[jj];
        const V* src = cbc + jj * mc;
        if (pc < wp) {
            V* dst = panel + pc * fp;
            for (idx ii = jj; ii < mc; ++ii) dst[rel[ii]] += src[ii];
        } else {
            V* dst = cbp + (pc - wp) * mp;
            for (idx ii = jj; ii < mc; ++ii) dst[rel[ii] - wp] += src[ii];
        }
    }
}

// Assemble and partially factor front sn; its contribution block ends on top of stack `own`.
// Returns 0 or 1 + the local column where the pivot was not positive.
template <class V>
std::int64_t factor_front(const Symbolic& s, NumericFactor<V>& num, idx sn, std::int64_t& top) {
    const idx f = s.front_rows(sn), w = s.width(sn), m = f - w;
    V* panel = num.lx.data() + s.lx_ptr[sn];
    std::vector<V>& stack = num.stacks[s.stack_of[sn]];
    const std::int64_t off = top;
    V* cb = stack.data() + off;
    std::fill(cb, cb + m * m, V(0));
    std::int64_t low = off;  // lowest offset of this stack's children: where the result moves to
    for (idx q = s.child_ptr[sn]; q < s.child_ptr[sn + 1]; ++q) {
        idx c = s.child_list[q];
        const V* cbc = num.stacks[s.stack_of[c]].data() + num.cb_off[c];
        extend_add(s, c, cbc, sn, panel, cb);
        if (s.stack_of[c] == s.stack_of[sn]) low = std::min(low, num.cb_off[c]);
    }
    int info = dense::potrf(static_cast<int>(w), panel, static_cast<int>(f));  // L11 L11ᴴ = F11
    if (info != 0) return info;
    if (m > 0) {
        dense::trsm(CblasRight, CblasConjTrans, static_cast<int>(m), static_cast<int>(w), panel, static_cast<int>(f),
                    panel + w, static_cast<int>(f));  // L21 = F21 L11⁻ᴴ
        dense::herk_minus(static_cast<int>(m), static_cast<int>(w), panel + w, static_cast<int>(f), cb,
                          static_cast<int>(m));  // C = F22 - L21 L21ᴴ
    }
    if (low < off && m > 0) std::memmove(stack.data() + low, cb, static_cast<std::size_t>(m * m) * sizeof(V));
    num.cb_off[sn] = low;
    top = low + m * m;
    return 0;
}

// Factor the nodes of one stack in order; stops at the first failure (recorded in num.info).
template <class V>
void factor_sequence(const Symbolic& s, NumericFactor<V>& num, std::span<const idx> nodes) {
    std::int64_t top = 0;
    for (idx sn : nodes) {
        std::int64_t info = factor_front(s, num, sn, top);
        if (info != 0) {
            num.info[sn] = info;
            return;
        }
    }
}

template <class V>
void scatter_values(const Symbolic& s, NumericFactor<V>& num, std::span<const V> a) {
    // lx = 0; lx[amap[k]] += a_k (conjugated when mirrored). Duplicates sum in input order.
    // Sequential on purpose: an OpenMP region here leaves its idle worker spinning through the rest of a
    // small factorization (measured: libgomp spin dominated bcsstk10's factorization time).
    V* lx = num.lx.data();
    std::fill(num.lx.begin(), num.lx.end(), V(0));
    const std::int64_t nnz = static_cast<std::int64_t>(s.amap.size());
    for (std::int64_t k = 0; k < nnz; ++k) {
        std::int64_t d = s.amap[k];
        if (d >= 0) lx[d] += s.amap_conj[k] ? conj_v(a[k]) : a[k];
    }
}

}  // namespace

idx max_update_rows(const Symbolic& s) {
    idx m = 0;
    for (idx sn = 0; sn < s.nsuper; ++sn) m = std::max(m, s.front_rows(sn) - s.width(sn));
    return m;
}

template <class V>
void allocate_numeric(const Symbolic& s, NumericFactor<V>& num) {
    num.lx.assign(static_cast<std::size_t>(s.factor_entries), V(0));
    num.stacks.resize(s.stack_size.size());
    for (std::size_t t = 0; t < s.stack_size.size(); ++t) num.stacks[t].assign(static_cast<std::size_t>(s.stack_size[t]), V(0));
    num.info.assign(static_cast<std::size_t>(s.nsuper), 0);
    num.cb_off.assign(static_cast<std::size_t>(s.nsuper), 0);
}

template <class V>
Status cholesky_multifrontal(const Symbolic& s, NumericFactor<V>& num, std::span<const V> a, idx& fail_col,
                             int threads) {
    fail_col = -1;
    std::fill(num.info.begin(), num.info.end(), 0);
    scatter_values(s, num, a);
    const idx nsub = static_cast<idx>(s.subtree_root.size());
    if (nsub > 0) {
        // Independent subtrees on `threads` workers pulling from the LPT-ordered list, one BLAS thread
        // each; deterministic (no shared accumulation). Plain threads joined at the end, not an OpenMP
        // team: idle OpenMP workers spin-wait (OMP_WAIT_POLICY) and steal the cores from the
        // multithreaded BLAS of the top phase (measured 2x slower on lap3d_40 with 2 cores).
        int blas_threads = openblas_get_num_threads();
        openblas_set_num_threads(1);
        std::atomic<idx> next{0};
        auto worker = [&] {
            for (idx t = next.fetch_add(1); t < nsub; t = next.fetch_add(1))
                factor_sequence(s, num, std::span<const idx>(s.subtree_nodes.data() + s.subtree_ptr[t],
                                                             static_cast<std::size_t>(s.subtree_ptr[t + 1] - s.subtree_ptr[t])));
        };
        std::vector<std::thread> pool;
        for (int k = 1; k < std::min<idx>(threads, nsub); ++k) pool.emplace_back(worker);
        worker();
        for (auto& th : pool) th.join();
        openblas_set_num_threads(blas_threads);
    }
    bool failed = std::any_of(num.info.begin(), num.info.end(), [](std::int64_t v) { return v != 0; });
    if (!failed) factor_sequence(s, num, s.top_nodes);  // near the root: multithreaded BLAS
    for (idx sn = 0; sn < s.nsuper; ++sn)
        if (num.info[sn] != 0) {
            idx col = s.super_ptr[sn] + num.info[sn] - 1;
            if (fail_col == -1 || col < fail_col) fail_col = col;
        }
    return fail_col == -1 ? Status::success : Status::not_positive_definite;
}

// Narrow supernodes with one right-hand side: plain loops beat the BLAS call overhead.
constexpr idx small_sweep_width = 16;

template <class V>
void forward_sweep(const Symbolic& s, const NumericFactor<V>& num, V* y, idx nrhs, V* work) {
    // Per supernode: x1 = L11⁻¹ y1; y2 -= L21 x1 (scattered through the row list).
    const idx n = s.n;
    for (idx sn = 0; sn < s.nsuper; ++sn) {
        const idx f = s.front_rows(sn), w = s.width(sn), m = f - w, c0 = s.super_ptr[sn];
        const V* panel = num.lx.data() + s.lx_ptr[sn];
        const idx* r = s.rows.data() + s.rows_ptr[sn];
        if (nrhs == 1 && w <= small_sweep_width) {
            for (idx j = 0; j < w; ++j) {
                const V* col = panel + j * f;
                const V xj = y[c0 + j] / col[j];
                y[c0 + j] = xj;
                for (idx i = j + 1; i < w; ++i) y[c0 + i] -= col[i] * xj;
                for (idx i = w; i < f; ++i) y[r[i]] -= col[i] * xj;
            }
            continue;
        }
        dense::trsm(CblasLeft, CblasNoTrans, static_cast<int>(w), static_cast<int>(nrhs), panel, static_cast<int>(f),
                    y + c0, static_cast<int>(n));
        if (m == 0) continue;
        dense::gemm(CblasNoTrans, static_cast<int>(m), static_cast<int>(nrhs), static_cast<int>(w), V(1), panel + w,
                    static_cast<int>(f), y + c0, static_cast<int>(n), V(0), work, static_cast<int>(m));
        for (idx k = 0; k < nrhs; ++k)
            for (idx i = 0; i < m; ++i) y[r[w + i] + k * n] -= work[i + k * m];
    }
}

template <class V>
void backward_sweep(const Symbolic& s, const NumericFactor<V>& num, V* y, idx nrhs, V* work) {
    // Per supernode, root first: y1 -= L21ᴴ y2 (gathered); x1 = L11⁻ᴴ y1.
    const idx n = s.n;
    for (idx sn = s.nsuper - 1; sn >= 0; --sn) {
        const idx f = s.front_rows(sn), w = s.width(sn), m = f - w, c0 = s.super_ptr[sn];
        const V* panel = num.lx.data() + s.lx_ptr[sn];
        const idx* r = s.rows.data() + s.rows_ptr[sn];
        if (nrhs == 1 && w <= small_sweep_width) {
            for (idx j = w - 1; j >= 0; --j) {
                const V* col = panel + j * f;
                V acc = y[c0 + j];
                for (idx i = j + 1; i < w; ++i) acc -= conj_v(col[i]) * y[c0 + i];
                for (idx i = w; i < f; ++i) acc -= conj_v(col[i]) * y[r[i]];
                y[c0 + j] = acc / conj_v(col[j]);
            }
            continue;
        }
        if (m > 0) {
            for (idx k = 0; k < nrhs; ++k)
                for (idx i = 0; i < m; ++i) work[i + k * m] = y[r[w + i] + k * n];
            dense::gemm(CblasConjTrans, static_cast<int>(w), static_cast<int>(nrhs), static_cast<int>(m), V(-1),
                        panel + w, static_cast<int>(f), work, static_cast<int>(m), V(1), y + c0, static_cast<int>(n));
        }
        dense::trsm(CblasLeft, CblasConjTrans, static_cast<int>(w), static_cast<int>(nrhs), panel, static_cast<int>(f),
                    y + c0, static_cast<int>(n));
    }
}

#define GIGASPARSE_DIRECT_NUMERIC(V)                                                                          \
    template void allocate_numeric<V>(const Symbolic&, NumericFactor<V>&);                                  \
    template Status cholesky_multifrontal<V>(const Symbolic&, NumericFactor<V>&, std::span<const V>, idx&, int); \
    template void forward_sweep<V>(const Symbolic&, const NumericFactor<V>&, V*, idx, V*);                  \
    template void backward_sweep<V>(const Symbolic&, const NumericFactor<V>&, V*, idx, V*);
GIGASPARSE_FOR_EACH_VALUE(GIGASPARSE_DIRECT_NUMERIC)
#undef GIGASPARSE_DIRECT_NUMERIC

}  // namespace gigasparse::direct
