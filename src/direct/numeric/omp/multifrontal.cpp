// src/direct/numeric/omp/multifrontal.cpp: multifrontal supernodal Cholesky — threads over subtrees, BLAS near the root.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <exception>
#include <mutex>
#include <optional>
#include <ranges>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <gigasparse/core/error.hpp>

#include "direct/analysis/schedule.hpp"
#include "direct/numeric/dense.hpp"
#include "direct/numeric/front_offload.hpp"
#include "direct/numeric/numeric.hpp"
#include "direct/numeric/omp/blocked_front.hpp"
#include "direct/numeric/omp/ldlt_front.hpp"
#include "direct/numeric/omp/lu_front.hpp"
#include "direct/numeric/omp/small_front.hpp"
#include "direct/numeric/omp/task_pool.hpp"

namespace gigasparse::direct {
namespace {

// Extend-add of columns [j0, j1) of child c's contribution block into the panel and contribution block
// of its parent p (the columns of one child land in distinct parent columns: chunks are independent).
// The child's rows map to runs of consecutive parent rows: each run is one contiguous (vectorized) add.
template <class V>
void extend_add(const Symbolic& s, idx c, const V* cbc, idx p, V* panel, V* cbp, idx j0, idx j1) {
    const idx mc = s.front_rows(c) - s.width(c), fp = s.front_rows(p), wp = s.width(p), mp = fp - wp;
    const idx* rel = s.relind.data() + s.relind_ptr[c];
    thread_local std::vector<idx> run_end;  // run_end[i]: end of the run of consecutive targets holding i
    run_end.resize(static_cast<std::size_t>(mc));
    for (idx ii = mc - 1; ii >= j0; --ii)
        run_end[ii] = ii + 1 < mc && rel[ii + 1] == rel[ii] + 1 ? run_end[ii + 1] : ii + 1;
    for (idx jj = j0; jj < j1; ++jj) {
        const idx pc = rel[jj];
        const V* src = cbc + jj * mc;
        V* dst = pc < wp ? panel + pc * fp : cbp + (pc - wp) * mp - wp;  // dst[rel[ii]] is the target
        for (idx ii = jj; ii < mc;) {
            const idx e = run_end[ii];
            V* d = dst + (rel[ii] - ii);
            for (idx t = ii; t < e; ++t) d[t] += src[t];
            ii = e;
        }
    }
}

// LU: extend-add of columns [j0, j1) of child c's full contribution block into its parent p: columns of
// the parent's fully summed block go to the L panel (F11 and F21), fully summed rows of the other
// columns to the U panel (F12ᵀ), the rest to the parent's contribution block.
template <class V>
void extend_add_lu(const Symbolic& s, idx c, const V* cbc, idx p, V* panel, V* upanel, V* cbp, idx j0, idx j1) {
    const idx mc = s.front_rows(c) - s.width(c), fp = s.front_rows(p), wp = s.width(p), mp = fp - wp;
    const idx* rel = s.relind.data() + s.relind_ptr[c];
    const idx first_cb = static_cast<idx>(std::lower_bound(rel, rel + mc, wp) - rel);  // rows from here map to the CB
    // Runs of consecutive parent rows (as extend_add), split where the fully summed rows end.
    thread_local std::vector<idx> run_end;
    run_end.resize(static_cast<std::size_t>(mc));
    for (idx ii = mc - 1; ii >= 0; --ii)
        run_end[ii] = ii + 1 < mc && ii + 1 != first_cb && rel[ii + 1] == rel[ii] + 1 ? run_end[ii + 1] : ii + 1;
    auto add_runs = [&](V* dst, const V* src, idx from, idx to) {  // dst[rel[ii]] += src[ii] for ii in [from, to)
        for (idx ii = from; ii < to;) {
            const idx e = run_end[ii];
            V* d = dst + (rel[ii] - ii);
            for (idx t = ii; t < e; ++t) d[t] += src[t];
            ii = e;
        }
    };
    for (idx jj = j0; jj < j1; ++jj) {
        const idx pc = rel[jj];
        const V* src = cbc + jj * mc;
        if (pc < wp) {
            add_runs(panel + pc * fp, src, 0, mc);
        } else {
            for (idx ii = 0; ii < first_cb; ++ii) upanel[pc + rel[ii] * fp] += src[ii];
            add_runs(cbp + (pc - wp) * mp - wp, src, first_cb, mc);
        }
    }
}

// Column chunks [b[k], b[k+1]) of a lower triangle of order mc holding about `target` entries each.
inline void triangle_chunks(idx mc, std::int64_t target, std::vector<idx>& b) {
    b.assign(1, 0);
    std::int64_t acc = 0;
    for (idx j = 0; j < mc; ++j) {
        acc += mc - j;
        if (acc >= target) b.push_back(j + 1), acc = 0;
    }
    if (b.back() != mc) b.push_back(mc);
}

// Whether front sn goes to prm.offload (real values only; not the Schur complement, not a front too large for the
// device).
bool offloaded_front(const Symbolic& s, const NumericParams& prm, idx sn) {
    if (!prm.offload || s.is_schur(sn)) return false;
    return s.front_rows(sn) >= prm.offload_rows && prm.offload->takes(sn);
}

// Assemble and partially factor front sn; its contribution block ends on top of stack `own`.
// Fronts of at least prm.blocked_rows rows take the blocked kernel (tiles on `pool`, parallel
// assembly); fronts of fewer than prm.small_rows rows the BLAS-free loops of small_front; fronts of
// fewer than prm.loop_panel_rows rows the panel in those loops and the contribution block in one herk;
// the others potrf/trsm/herk, all on the calling thread. Returns 0 or 1 + the local column where the
// pivot was not positive.
template <class V>
std::int64_t factor_front(const Symbolic& s, NumericFactor<V>& num, std::span<const V> a, idx sn, std::int64_t& top,
                          TaskPool& pool, const NumericParams& prm) {
    const idx f = s.front_rows(sn), w = s.width(sn), m = f - w;
    V* panel = num.lx.data() + s.lx_ptr[sn];
    auto& stack = num.stacks[s.stack_of[sn]];
    const std::int64_t off = top;
    V* cb = stack.data() + off;
    // a front of real values and at least prm.offload_rows rows goes to prm.offload (the GPU)
    constexpr bool real_values = std::is_same_v<V, double> || std::is_same_v<V, float>;
    const bool offloaded = real_values && offloaded_front(s, prm, sn);
    // Children whose contribution blocks stayed on the device (their front and this one offloaded) are added to
    // this front there; the host assembles the others.
    const auto on_device = [&](idx c) { return offloaded && prm.offload->resident(c); };
    bool host_children = false;
    std::int64_t host_child_entries = 0;  // the host children's blocks
    for (idx q = s.child_ptr[sn]; q < s.child_ptr[sn + 1]; ++q) {
        const idx c = s.child_list[q], mc = s.front_rows(c) - s.width(c);
        if (!on_device(c)) host_children = true, host_child_entries += std::int64_t{mc} * mc;
    }
    OffloadFront<V> fr;
    fr.sn = sn, fr.f = f, fr.w = w, fr.host_cb = host_children;
    fr.keep = offloaded && s.sn_parent[sn] >= 0 && offloaded_front(s, prm, s.sn_parent[sn]);
    // An offloaded front is assembled where fewer bytes cross the bus: on the host (its panel(s) uploaded, and
    // its contribution block when host children added to it), or on the device (A's entries, as positions and
    // values, and the host children's blocks uploaded instead).
    constexpr std::int64_t vs = sizeof(V);
    const std::int64_t a_entries = s.amap_sn_ptr[sn + 1] - s.amap_sn_ptr[sn];  // (duplicates counted)
    const std::int64_t host_bytes = vs * ((prm.lu ? 2 : 1) * std::int64_t{f} * w + (host_children ? std::int64_t{m} * m : 0));
    const std::int64_t device_bytes = vs * host_child_entries + (8 + vs) * a_entries;
    fr.device_assembly = offloaded && (prm.offload_assembly == GpuAssembly::device ||
                                       (prm.offload_assembly == GpuAssembly::automatic && device_bytes < host_bytes));
    const bool blocked = f >= prm.blocked_rows;
    const bool parallel = blocked && pool.size() > 1;
    // The panel: zero, then the entries of A (duplicates summed in input order, conjugated when
    // mirrored); here rather than in one pass over the whole factor, so the panel is in cache for its
    // assembly and the subtree workers share the work.
    V* upanel = prm.lu ? num.ux.data() + s.lx_ptr[sn] : nullptr;
    thread_local std::vector<std::pair<std::int64_t, idx>> a_order;  // device assembly: (local position, entry)
    thread_local std::vector<std::int64_t> a_pos;
    thread_local std::vector<V> a_values;
    thread_local std::vector<idx> host_list;
    thread_local std::vector<const V*> host_blocks;
    if (fr.device_assembly) {
        // A's entries of the front as distinct (local position, value): sorted by position, duplicates summed in
        // input order as the host's assembly does; LU's U panel entries from f·w on
        const std::int64_t fw = static_cast<std::int64_t>(f) * w;
        a_order.clear();
        for (idx q = s.amap_sn_ptr[sn]; q < s.amap_sn_ptr[sn + 1]; ++q) {
            const idx k = s.amap_sn_entries[q];
            a_order.emplace_back(s.amap[k] - s.lx_ptr[sn] + (prm.lu && s.amap_conj[k] ? fw : 0), q);
        }
        std::sort(a_order.begin(), a_order.end());
        a_pos.clear();
        a_values.clear();
        for (const auto& [p, q] : a_order) {
            const idx k = s.amap_sn_entries[q];
            const V v = !prm.lu && s.amap_conj[k] ? conj_if_complex(a[k]) : a[k];
            if (!a_pos.empty() && a_pos.back() == p) {
                a_values.back() += v;
            } else {
                a_pos.push_back(p);
                a_values.push_back(v);
            }
        }
        fr.a_pos = a_pos;
        fr.a_values = a_values;
    } else if (prm.lu) {  // LU: amap_conj marks the entries of the U panel (F12ᵀ)
        std::fill(panel, panel + static_cast<std::int64_t>(f) * w, V(0));
        std::fill(upanel, upanel + static_cast<std::int64_t>(f) * w, V(0));
        V* lx = num.lx.data();
        V* ux = num.ux.data();
        for (idx q = s.amap_sn_ptr[sn]; q < s.amap_sn_ptr[sn + 1]; ++q) {
            const idx k = s.amap_sn_entries[q];
            (s.amap_conj[k] ? ux : lx)[s.amap[k]] += a[k];
        }
    } else {
        std::fill(panel, panel + static_cast<std::int64_t>(f) * w, V(0));
        V* lx = num.lx.data();
        for (idx q = s.amap_sn_ptr[sn]; q < s.amap_sn_ptr[sn + 1]; ++q) {
            const idx k = s.amap_sn_entries[q];
            lx[s.amap[k]] += s.amap_conj[k] ? conj_if_complex(a[k]) : a[k];
        }
    }
    constexpr std::int64_t chunk = 1 << 18;  // entries per assembly task
    // Only the lower triangle of a contribution block is ever read or written: zero and move that half
    // (the whole block for LU).
    std::vector<idx> bounds;
    const bool full = prm.lu;
    if (fr.device_assembly || (offloaded && !host_children)) {
        // nothing to add on the host: the device starts from zero
    } else if (parallel && m * m / 2 > chunk) {
        triangle_chunks(m, chunk, bounds);
        pool.run(static_cast<std::int64_t>(bounds.size()) - 1, [&](std::int64_t t) {
            for (idx j = bounds[t]; j < bounds[t + 1]; ++j) std::fill(cb + j * m + (full ? 0 : j), cb + (j + 1) * m, V(0));
        });
    } else if (full) {
        std::fill(cb, cb + m * m, V(0));
    } else {
        for (idx j = 0; j < m; ++j) std::fill(cb + j * m + j, cb + (j + 1) * m, V(0));
    }
    std::int64_t low = off;  // lowest offset of this stack's children: where the result moves to
    host_list.clear();
    host_blocks.clear();
    for (idx q = s.child_ptr[sn]; q < s.child_ptr[sn + 1]; ++q) {
        idx c = s.child_list[q];
        const V* cbc = num.stacks[s.stack_of[c]].data() + num.cb_off[c];
        const idx mc = s.front_rows(c) - s.width(c);
        if (s.stack_of[c] == s.stack_of[sn]) low = std::min(low, num.cb_off[c]);
        if (on_device(c)) continue;
        if (fr.device_assembly) {  // the device adds it, from the host's block
            host_list.push_back(c);
            host_blocks.push_back(cbc);
            continue;
        }
        if (full) {
            if (parallel && mc * mc > chunk) {
                const std::int64_t per = std::max<std::int64_t>(1, chunk / std::max<idx>(mc, 1));
                const std::int64_t nt = (mc + per - 1) / per;
                pool.run(nt, [&](std::int64_t t) {
                    extend_add_lu(s, c, cbc, sn, panel, upanel, cb, t * per, std::min<idx>(mc, (t + 1) * per));
                });
            } else {
                extend_add_lu(s, c, cbc, sn, panel, upanel, cb, 0, mc);
            }
        } else if (parallel && mc * mc / 2 > chunk) {
            triangle_chunks(mc, chunk, bounds);
            pool.run(static_cast<std::int64_t>(bounds.size()) - 1,
                     [&](std::int64_t t) { extend_add(s, c, cbc, sn, panel, cb, bounds[t], bounds[t + 1]); });
        } else {
            extend_add(s, c, cbc, sn, panel, cb, 0, mc);
        }
    }
    fr.host_children = host_list;
    fr.host_blocks = host_blocks;
    if (s.is_schur(sn)) {
        // The Schur complement: assembled (A22 minus the updates of the children), not factored; it has no
        // rows below it, hence no contribution block.
        if (!num.piv.empty())
            for (idx j = 0; j < w; ++j) num.piv[s.super_ptr[sn] + j] = j, num.pivot_size[s.super_ptr[sn] + j] = 1;
        if (!num.perturbed.empty()) num.perturbed[sn] = 0;
        num.cb_off[sn] = low;
        top = low;
        return 0;
    }
    std::int64_t info = 0;
    if (prm.lu) {
        LuFrontParams lp;
        lp.block = prm.pivot_block;
        lp.tau = prm.tau;
        lp.small_rows = prm.small_rows;
        std::int64_t* piv = num.piv.data() + s.super_ptr[sn];
        LuFrontResult r;
        if constexpr (real_values) {
            if (offloaded) {
                // the whole front on the GPU, unless a pivot there would need lu_front's perturbation: then F11 here
                if (!prm.offload->lu_factor(fr, prm.tau, piv, panel, upanel, cb))
                    r = lu_front_split(f, w, panel, piv, lp, pool, [&](const std::int64_t* pv) { prm.offload->lu_update(fr, pv, panel, upanel, cb); });
            } else
                r = lu_front(f, w, panel, upanel, cb, piv, lp, pool);
        } else {
            r = lu_front(f, w, panel, upanel, cb, piv, lp, pool);
        }
        num.perturbed[sn] = r.perturbed;
        if (r.fail != 0) return r.fail;
    } else if (prm.ldlt) {
        LdltFrontParams lp;
        lp.block = prm.pivot_block;
        lp.tau = prm.tau;
        lp.herm = prm.herm;
        lp.small_rows = prm.small_rows;
        const idx c0 = s.super_ptr[sn];
        // The pool's threads share the contribution-block tiles of the large fronts.
        const std::uint8_t* pairs = s.pair_next.empty() ? nullptr : s.pair_next.data() + c0;
        LdltFrontResult r;
        if constexpr (real_values) {
            if (offloaded) {  // the whole front on the GPU, the pivot tests of each block on the host
                const OffloadLdlt g = prm.offload->ldlt_factor(fr, lp.block, lp.tau, pairs, num.piv.data() + c0, num.pivot_size.data() + c0, panel, cb);
                r.fail = g.fail, r.perturbed = g.perturbed;
            } else
                r = ldlt_front(f, w, panel, cb, num.piv.data() + c0, num.pivot_size.data() + c0, pairs, lp, pool);
        } else {
            r = ldlt_front(f, w, panel, cb, num.piv.data() + c0, num.pivot_size.data() + c0, pairs, lp, pool);
        }
        num.perturbed[sn] = r.perturbed;
        if (r.fail != 0) return r.fail;
    } else if (offloaded) {
        if constexpr (real_values) info = prm.offload->factor(fr, panel, cb);
    } else if (blocked) {
        BlockedFrontParams bp;
        bp.block = prm.block;
        bp.rows = 2 * prm.block;
        info = blocked_front(f, w, panel, cb, bp, pool);
    } else if (f < prm.small_rows) {
        if (const std::int64_t bad = small_front(f, w, panel, cb)) return bad;
    } else if (f < prm.loop_panel_rows) {
        if (const std::int64_t bad = small_panel(f, w, panel)) return bad;
        if (m > 0)
            dense::herk_minus(static_cast<int>(m), static_cast<int>(w), panel + w, static_cast<int>(f), cb,
                              static_cast<int>(m));  // C = F22 - L21 L21ᴴ
    } else {
        info = dense::potrf(static_cast<int>(w), panel, static_cast<int>(f));  // L11 L11ᴴ = F11
        if (info == 0 && m > 0) {
            dense::trsm(CblasRight, CblasConjTrans, static_cast<int>(m), static_cast<int>(w), panel, static_cast<int>(f),
                        panel + w, static_cast<int>(f));  // L21 = F21 L11⁻ᴴ
            dense::herk_minus(static_cast<int>(m), static_cast<int>(w), panel + w, static_cast<int>(f), cb,
                              static_cast<int>(m));  // C = F22 - L21 L21ᴴ
        }
    }
    // LAPACK's potrf fails only on ajj <= 0, which a NaN pivot passes (sqrt(NaN) goes on into the factor):
    // a pivot that is not > 0 on the factored diagonal is a failure at that column, as in the reference phase.
    const idx factored = prm.ldlt || prm.lu ? 0 : info != 0 ? static_cast<idx>(info) - 1 : w;
    for (idx j = 0; j < factored; ++j)
        if (!(std::real(panel[j * f + j]) > 0)) return j + 1;
    if (info != 0) return info;
    if (low < off && m > 0 && !(fr.keep && prm.offload->resident(sn))) {  // (a block kept on the device leaves its slot unused)
        // Column by column in increasing order: with dst < src, column j never overwrites the part of
        // a later column not yet moved; disjoint ranges may move in parallel.
        V* dst = stack.data() + low;
        auto move_cols = [&](idx j0, idx j1) {
            for (idx j = j0; j < j1; ++j)
                std::memmove(dst + j * m + (full ? 0 : j), cb + j * m + (full ? 0 : j),
                             static_cast<std::size_t>(full ? m : m - j) * sizeof(V));
        };
        if (parallel && off - low >= m * m && m * m / 2 > chunk) {
            triangle_chunks(m, chunk, bounds);
            pool.run(static_cast<std::int64_t>(bounds.size()) - 1, [&](std::int64_t t) { move_cols(bounds[t], bounds[t + 1]); });
        } else {
            move_cols(0, m);
        }
    }
    num.cb_off[sn] = low;
    top = low + m * m;
    return 0;
}

// Factor the nodes of one stack in order; stops at the first failure (recorded in num.info).
template <class V>
void factor_sequence(const Symbolic& s, NumericFactor<V>& num, std::span<const V> a, std::span<const idx> nodes, TaskPool& pool,
                     const NumericParams& prm) {
    std::int64_t top = 0;
    for (idx sn : nodes) {
        std::int64_t info = factor_front(s, num, a, sn, top, pool, prm);
        if (info != 0) {
            num.info[sn] = info;
            return;
        }
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
    for (std::size_t t = 0; t < s.stack_size.size(); ++t) {
        // No zeroing (DefaultInitAllocator): a contribution block is written before it is read. The
        // pages are first touched by the factorization itself, in parallel subtrees (lap3d_60: first
        // factorization 4.2 s -> 3.1 s; madvise(MADV_HUGEPAGE) on top made it slower and erratic here).
        num.stacks[t].clear();
        num.stacks[t].resize(static_cast<std::size_t>(s.stack_size[t]));
    }
    num.info.assign(static_cast<std::size_t>(s.nsuper), 0);
    num.cb_off.assign(static_cast<std::size_t>(s.nsuper), 0);
    const bool ldlt = s.structure == Structure::symmetric || s.structure == Structure::hermitian;
    const bool lu = s.structure == Structure::general;
    num.piv.assign(ldlt || lu ? static_cast<std::size_t>(s.n) : 0, 0);
    num.pivot_size.assign(ldlt || lu ? static_cast<std::size_t>(s.n) : 0, 1);  // LU: all 1 (unit L, no 2×2)
    num.perturbed.assign(ldlt || lu ? static_cast<std::size_t>(s.nsuper) : 0, 0);
    num.ux.assign(lu ? static_cast<std::size_t>(s.factor_entries) : 0, V(0));
}

template <class V>
Status factor_multifrontal(const Symbolic& s, NumericFactor<V>& num, std::span<const V> a, idx& fail_col,
                           const NumericParams& prm) {
    fail_col = -1;
    if ((prm.ldlt || prm.lu) && (num.piv.size() != static_cast<std::size_t>(s.n) || num.perturbed.size() != static_cast<std::size_t>(s.nsuper)))
        throw InvalidStructure("direct: LDLᵀ factorization of a factor allocated for another structure (internal)");
    std::fill(num.info.begin(), num.info.end(), 0);
    if (a.size() < s.amap.size()) throw DimensionMismatch("direct: fewer values than mapped entries");
    // Every BLAS call below is single-threaded: the parallelism is ours (subtrees on worker threads,
    // tiles of the large fronts on a TaskPool), so the result does not depend on the thread count and
    // no BLAS thread team competes with our threads.
    const dense::OneBlasThread one_blas_thread;
    // The offload's factorization: begun here, ended on every way out (its blocks kept on the device freed).
    struct OffloadScope {
        FrontOffload* off;
        ~OffloadScope() {
            if (off) off->end();
        }
    } const offload_scope{prm.offload};
    if (prm.offload) prm.offload->begin(s, prm.offload_rows);
    const int threads = std::max(prm.threads, 1);
    const idx nsub = static_cast<idx>(s.subtree_root.size());
    if (nsub > 0) {
        // Independent subtrees on `threads` workers pulling from the LPT-ordered list; deterministic
        // (no shared accumulation). Plain threads joined at the end, not an OpenMP team: idle OpenMP
        // workers spin-wait (OMP_WAIT_POLICY) and steal cores (measured 2x slower on lap3d_40 with 2 cores).
        // A worker's exception (the offload's device failure, out of memory) stops the others' next subtrees
        // and is rethrown here once they are joined.
        std::atomic<idx> next{0};
        std::exception_ptr error;
        std::mutex error_mu;
        auto worker = [&] {
            try {
                TaskPool inline_pool(1);
                for (idx t = next.fetch_add(1); t < nsub; t = next.fetch_add(1))
                    factor_sequence(s, num, a,
                                    std::span<const idx>(s.subtree_nodes.data() + s.subtree_ptr[t],
                                                         static_cast<std::size_t>(s.subtree_ptr[t + 1] - s.subtree_ptr[t])),
                                    inline_pool, prm);
            } catch (...) {
                next.store(nsub);
                const std::lock_guard<std::mutex> lock(error_mu);
                if (!error) error = std::current_exception();
            }
        };
        std::vector<std::thread> pool;
        for (int k = 1; k < std::min<idx>(threads, nsub); ++k) pool.emplace_back(worker);
        worker();
        for (auto& th : pool) th.join();
        if (error) std::rethrow_exception(error);
    }
    bool failed = std::any_of(num.info.begin(), num.info.end(), [](std::int64_t v) { return v != 0; });
    if (!failed && !s.top_nodes.empty()) {
        // Near the root: fronts one after the other, the large ones in parallel tiles.
        // (LDLᵀ fronts share their trsm rows and update tiles from 256 rows on.)
        const idx pool_rows = prm.ldlt ? std::min<idx>(prm.blocked_rows, 256) : prm.blocked_rows;
        bool large = std::any_of(s.top_nodes.begin(), s.top_nodes.end(),
                                 [&](idx sn) { return s.front_rows(sn) >= pool_rows; });
        TaskPool top_pool(large ? threads : 1);
        factor_sequence(s, num, a, s.top_nodes, top_pool, prm);
    }
    for (idx sn = 0; sn < s.nsuper; ++sn)
        if (num.info[sn] != 0) {
            idx col = s.super_ptr[sn] + num.info[sn] - 1;
            if (fail_col == -1 || col < fail_col) fail_col = col;
        }
    return fail_col == -1 ? Status::success : prm.ldlt || prm.lu ? Status::zero_pivot : Status::not_positive_definite;
}

// One right-hand side: narrow supernodes in plain loops on y itself (no call, no copy: lap2d_300 has
// 52,029 supernodes of 1.7 columns on average); wider ones gather their rows into a contiguous vector
// swept by the loops of small_front.hpp (axpys forward, vectorized dot products backward), no BLAS
// call: a trsm and a gemm with one column spent most of their time packing (perf, lap3d_40: dtrsm and
// dgemm copy routines 14% of the solve). Several right-hand sides: trsm and gemm, sequential.
//
// With a factor of at least parallel_sweep_entries entries, one right-hand side runs over the
// independent subtrees of the factorization's schedule, on `threads` threads: forward, each subtree on a worker
// (its updates of rows outside it, which only its root's row list holds, go to a buffer of its own,
// added to y in subtree order afterwards), then the top nodes; backward, the top nodes, then the
// subtrees on the workers (they read only final values outside). The sums do not depend on the
// thread count or the schedule: the solution is bitwise the same for any number of threads.
constexpr idx small_sweep_width = 16;
constexpr std::int64_t parallel_sweep_entries = std::int64_t{1} << 20;

namespace {

// Forward through supernode sn: rows r[i] for i < i_out update y, rows i_out.. update out[pos[i - i_out]].
// LDLᵀ (num.piv not empty): the node's own values sit at y[c0 + piv[c0 + j]] (its pivoting), L11 has a
// unit diagonal; always through the gathered loops.
template <class V>
void forward_node(const Symbolic& s, const NumericFactor<V>& num, idx sn, V* y, idx i_out, const idx* pos, V* out, std::vector<V>& z,
                  Transpose op) {
    if (s.is_schur(sn)) return;  // y keeps the condensed right-hand side of the Schur variables
    const idx f = s.front_rows(sn), w = s.width(sn), c0 = s.super_ptr[sn];
    const V* panel = num.lx.data() + s.lx_ptr[sn];
    const idx* r = s.rows.data() + s.rows_ptr[sn];
    const std::int64_t* pv = num.piv.empty() ? nullptr : num.piv.data() + c0;
    const bool lu = !num.ux.empty(), lu_t = lu && op != Transpose::none;
    if (w <= small_sweep_width && !pv) {
        for (idx j = 0; j < w; ++j) {
            const V* col = panel + j * f;
            const V xj = y[c0 + j] / col[j];
            y[c0 + j] = xj;
            for (idx i = j + 1; i < w; ++i) y[c0 + i] -= col[i] * xj;
            for (idx i = w; i < i_out; ++i) y[r[i]] -= col[i] * xj;
            for (idx i = i_out; i < f; ++i) out[pos[i - i_out]] -= col[i] * xj;
        }
        return;
    }
    // In: the node's rows through its pivoting (LDLᵀ, LU), or its columns (Uᵀ / Uᴴ of a transposed LU solve).
    // Out: LU leaves the values in pivoted order (the rows of U), the others (and Uᵀ) through the pivoting.
    z.resize(static_cast<std::size_t>(f));
    for (idx j = 0; j < w; ++j) z[j] = y[c0 + (pv && !lu_t ? pv[j] : j)];
    std::fill(z.begin() + w, z.begin() + f, V(0));
    if (lu_t) lu_forward_transposed_one(f, w, panel, num.ux.data() + s.lx_ptr[sn], z.data(), op == Transpose::conjugate_transpose);
    else forward_one(f, w, panel, z.data(), pv ? num.pivot_size.data() + c0 : nullptr);
    for (idx j = 0; j < w; ++j) y[c0 + (pv && (!lu || lu_t) ? pv[j] : j)] = z[j];
    for (idx i = w; i < i_out; ++i) y[r[i]] += z[i];
    for (idx i = i_out; i < f; ++i) out[pos[i - i_out]] += z[i];
}

// Backward through supernode sn (reads y at its rows, writes its own columns); conj = false: Lᵀ
// (complex symmetric LDLᵀ). LU with op = transpose / conjugate_transpose: Lᵀ / Lᴴ (unit), the pivoted rows
// in (where the Uᵀ sweep put them) and out through pv: the rows of A in their analysis order.
template <class V>
void backward_node(const Symbolic& s, const NumericFactor<V>& num, idx sn, V* y, std::vector<V>& z, bool conj, Transpose op) {
    if (s.is_schur(sn)) return;  // y holds the Schur variables' solution
    const idx f = s.front_rows(sn), w = s.width(sn), c0 = s.super_ptr[sn];
    const V* panel = num.lx.data() + s.lx_ptr[sn];
    const idx* r = s.rows.data() + s.rows_ptr[sn];
    const std::int64_t* pv = num.piv.empty() ? nullptr : num.piv.data() + c0;
    if (w <= small_sweep_width && !pv) {
        for (idx j = w - 1; j >= 0; --j) {
            const V* col = panel + j * f;
            V acc = y[c0 + j];
            for (idx i = j + 1; i < w; ++i) acc -= conj_if_complex(col[i]) * y[c0 + i];
            for (idx i = w; i < f; ++i) acc -= conj_if_complex(col[i]) * y[r[i]];
            y[c0 + j] = acc / conj_if_complex(col[j]);
        }
        return;
    }
    z.resize(static_cast<std::size_t>(f));
    for (idx i = w; i < f; ++i) z[i] = y[r[i]];
    if (!num.ux.empty() && op == Transpose::none) {  // LU: U11 and U12 (pivoted rows in, columns out, both at c0 + j)
        for (idx j = 0; j < w; ++j) z[j] = y[c0 + j];
        lu_backward_one(f, w, panel, num.ux.data() + s.lx_ptr[sn], z.data());
        for (idx j = 0; j < w; ++j) y[c0 + j] = z[j];
        return;
    }
    if (!num.ux.empty()) conj = op == Transpose::conjugate_transpose;
    for (idx j = 0; j < w; ++j) z[j] = y[c0 + (pv ? pv[j] : j)];  // rows 0..w-1 of the front are its own columns
    backward_one(f, w, panel, z.data(), pv ? num.pivot_size.data() + c0 : nullptr, conj);
    for (idx j = 0; j < w; ++j) y[c0 + (pv ? pv[j] : j)] = z[j];
}

// Runs body(t) for t in [0, n) on `threads` plain threads (the caller is one of them).
template <class F>
void on_workers(idx n, int threads, F&& body) {
    std::atomic<idx> next{0};
    auto worker = [&] {
        for (idx t = next.fetch_add(1); t < n; t = next.fetch_add(1)) body(t);
    };
    std::vector<std::thread> pool;
    for (int k = 1; k < std::min<idx>(threads, n); ++k) pool.emplace_back(worker);
    worker();
    for (auto& th : pool) th.join();
}

// The subtree order also with one thread, so the rounding does not depend on the thread count.
bool parallel_sweep(const Symbolic& s) { return s.subtree_root.size() > 1 && s.factor_entries >= parallel_sweep_entries; }

// A node's sizes and arrays for the sweeps: rows, panel, and (LDLᵀ, LU) its pivoting.
template <class V>
struct NodeArrays {
    idx f, w, c0;
    const V* panel;
    const idx* r;
    const std::int64_t* pv;
    const std::int8_t* ps;
    NodeArrays(const Symbolic& s, const NumericFactor<V>& num, idx sn)
        : f(s.front_rows(sn)), w(s.width(sn)), c0(s.super_ptr[sn]), panel(num.lx.data() + s.lx_ptr[sn]), r(s.rows.data() + s.rows_ptr[sn]),
          pv(num.piv.empty() ? nullptr : num.piv.data() + c0), ps(pv ? num.pivot_size.data() + c0 : nullptr) {}
};

// LDLᵀ (and LU's L for op(A) x = b), several right-hand sides: the node's values in its pivot order (x1, w x nrhs, ld w,
// in scratch) and its unit L11 for a trsm that reads the strictly lower part (l11, ld ldl): the panel itself, or,
// where the node has 2×2 pivots, a copy in scratch without their D entries (ld w).
template <class V>
struct LdltNodeRhs {
    V* x1;
    const V* l11;
    idx ldl;
    LdltNodeRhs(const V* panel, idx f, idx w, const std::int64_t* pv, const std::int8_t* ps, const V* y, idx n, idx c0, idx nrhs, std::vector<V>& scratch) {
        const bool pairs = std::any_of(ps, ps + w, [](std::int8_t p) { return p == 2; });
        scratch.resize(static_cast<std::size_t>(w * nrhs + (pairs ? w * w : 0)));
        x1 = scratch.data();
        for (idx k = 0; k < nrhs; ++k)
            for (idx j = 0; j < w; ++j) x1[j + k * w] = y[c0 + pv[j] + k * n];
        l11 = panel, ldl = f;
        if (pairs) {
            V* copy = x1 + w * nrhs;
            for (idx j = 0; j < w; ++j)
                for (idx i = j + 1; i < w; ++i) copy[i + j * w] = ps[j] == 2 && i == j + 1 ? V(0) : panel[i + j * f];
            l11 = copy, ldl = w;
        }
    }
    void scatter(V* y, idx n, idx c0, idx w, idx nrhs, const std::int64_t* pv) const {
        for (idx k = 0; k < nrhs; ++k)
            for (idx j = 0; j < w; ++j) y[c0 + pv[j] + k * n] = x1[j + k * w];
    }
};

// Several right-hand sides (y: n x nrhs, ld n) through supernode sn with BLAS, LLᵀ (in place on y), LDLᵀ (num.piv:
// through LdltNodeRhs) or LU (num.ux): x1 = L11⁻¹ y1, work = L21 x1 (m x nrhs), subtracted from y at the rows before
// i_out and from out (ld mr) at pos after. LU, A x = b: the node's values gathered through its pivoting, unit L11
// read from the panel, left in pivoted order as forward_node does. LU, op(A) x = b: x1 = op(U11)⁻¹ y1 (the node's
// columns in), work = op(U12) x1 (U12ᵀ in the U panel's rows w..f), x1 out through the pivoting.
template <class V>
void forward_node_rhs(const Symbolic& s, const NumericFactor<V>& num, idx sn, V* y, idx nrhs, idx i_out, const idx* pos, V* out, idx mr, V* work,
                      std::vector<V>& scratch, Transpose op) {
    if (s.is_schur(sn)) return;
    const auto [f, w, c0, panel, r, pv, ps] = NodeArrays<V>(s, num, sn);
    const idx n = s.n, m = f - w;
    std::optional<LdltNodeRhs<V>> ld;
    V* x1 = y + c0;
    idx ldx = n;
    const bool lu = pv && !num.ux.empty(), lu_t = lu && op != Transpose::none;
    const bool lu_h = lu_t && op == Transpose::conjugate_transpose && is_complex_v<V>;
    const V* l21 = panel + w;  // the rows below the node's columns: L21, or U12ᵀ (LU, op(A))
    if (lu) {
        scratch.resize(static_cast<std::size_t>(w * nrhs * (lu_h ? 2 : 1)));
        x1 = scratch.data(), ldx = w;
        for (idx k = 0; k < nrhs; ++k)
            for (idx j = 0; j < w; ++j) x1[j + k * w] = y[c0 + (lu_t ? j : pv[j]) + k * n];
        if (lu_t) {
            dense::trsm_general(CblasLeft, CblasUpper, lu_h ? CblasConjTrans : CblasTrans, CblasNonUnit, static_cast<int>(w), static_cast<int>(nrhs), panel,
                                static_cast<int>(f), x1, static_cast<int>(w));
            l21 = num.ux.data() + s.lx_ptr[sn] + w;
        } else {
            dense::trsm_general(CblasLeft, CblasLower, CblasNoTrans, CblasUnit, static_cast<int>(w), static_cast<int>(nrhs), panel, static_cast<int>(f), x1,
                                static_cast<int>(w));
        }
    } else if (pv) {
        ld.emplace(panel, f, w, pv, ps, y, n, c0, nrhs, scratch);
        x1 = ld->x1, ldx = w;
        dense::trsm_general(CblasLeft, CblasLower, CblasNoTrans, CblasUnit, static_cast<int>(w), static_cast<int>(nrhs), ld->l11, static_cast<int>(ld->ldl),
                            x1, static_cast<int>(w));
    } else {
        dense::trsm(CblasLeft, CblasNoTrans, static_cast<int>(w), static_cast<int>(nrhs), panel, static_cast<int>(f), y + c0, static_cast<int>(n));
    }
    if (m > 0) {
        // Aᴴ: conj(U12)ᵀ x1 = conj(U12ᵀ conj(x1)) (BLAS has no conjugate without a transpose)
        const V* xin = x1;
        if (lu_h) {
            V* xc = x1 + w * nrhs;
            for (idx t = 0; t < w * nrhs; ++t) xc[t] = conj_if_complex(x1[t]);
            xin = xc;
        }
        dense::gemm(CblasNoTrans, static_cast<int>(m), static_cast<int>(nrhs), static_cast<int>(w), V(1), l21, static_cast<int>(f), xin,
                    static_cast<int>(ldx), V(0), work, static_cast<int>(m));
        if (lu_h)
            for (idx t = 0; t < m * nrhs; ++t) work[t] = conj_if_complex(work[t]);
        for (idx k = 0; k < nrhs; ++k) {
            const V* wk = work + k * m - w;  // wk[i]: row i of the front
            for (idx i = w; i < i_out; ++i) y[r[i] + k * n] -= wk[i];
            for (idx i = i_out; i < f; ++i) out[pos[i - i_out] + k * mr] -= wk[i];
        }
    }
    if (ld) ld->scatter(y, n, c0, w, nrhs, pv);
    if (lu)  // A x = b: in pivoted order; op(A) x = b: out through the pivoting
        for (idx k = 0; k < nrhs; ++k)
            for (idx j = 0; j < w; ++j) y[c0 + (lu_t ? pv[j] : j) + k * n] = x1[j + k * w];
}

// Several right-hand sides backward through sn: x1 -= op(L21) y2 (y2 gathered into work), x1 = op(L11)⁻¹ x1; op: ᴴ
// (LLᴴ; LDLᴴ with conj), ᵀ (complex symmetric LDLᵀ: conj false). LU with top = transpose / conjugate_transpose:
// Lᵀ / Lᴴ (unit) as LDLᵀ's, the node's values in and out through the pivoting (conj then follows top).
template <class V>
void backward_node_rhs(const Symbolic& s, const NumericFactor<V>& num, idx sn, V* y, idx nrhs, bool conj, V* work, std::vector<V>& scratch,
                       Transpose top) {
    if (s.is_schur(sn)) return;
    const auto [f, w, c0, panel, r, pv, ps] = NodeArrays<V>(s, num, sn);
    const idx n = s.n, m = f - w;
    if (!num.ux.empty() && top == Transpose::none) {  // LU, A x = b: x1 = U11⁻¹ (x1 - U12 y2), U12ᵀ in the U panel's rows w..f, in place on y
        if (m > 0) {
            for (idx k = 0; k < nrhs; ++k)
                for (idx i = 0; i < m; ++i) work[i + k * m] = y[r[w + i] + k * n];
            dense::gemm(CblasTrans, static_cast<int>(w), static_cast<int>(nrhs), static_cast<int>(m), V(-1), num.ux.data() + s.lx_ptr[sn] + w,
                        static_cast<int>(f), work, static_cast<int>(m), V(1), y + c0, static_cast<int>(n));
        }
        dense::trsm_general(CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, static_cast<int>(w), static_cast<int>(nrhs), panel, static_cast<int>(f),
                            y + c0, static_cast<int>(n));
        return;
    }
    if (!num.ux.empty()) conj = top == Transpose::conjugate_transpose;
    std::optional<LdltNodeRhs<V>> ld;
    if (pv) ld.emplace(panel, f, w, pv, ps, y, n, c0, nrhs, scratch);
    V* x1 = ld ? ld->x1 : y + c0;
    const idx ldx = ld ? w : n;
    const CBLAS_TRANSPOSE op = pv && !conj ? CblasTrans : CblasConjTrans;
    if (m > 0) {
        for (idx k = 0; k < nrhs; ++k)
            for (idx i = 0; i < m; ++i) work[i + k * m] = y[r[w + i] + k * n];
        dense::gemm(op, static_cast<int>(w), static_cast<int>(nrhs), static_cast<int>(m), V(-1), panel + w, static_cast<int>(f), work, static_cast<int>(m),
                    V(1), x1, static_cast<int>(ldx));
    }
    if (ld) {
        dense::trsm_general(CblasLeft, CblasLower, op, CblasUnit, static_cast<int>(w), static_cast<int>(nrhs), ld->l11, static_cast<int>(ld->ldl), x1,
                            static_cast<int>(w));
        ld->scatter(y, n, c0, w, nrhs, pv);
    } else {
        dense::trsm(CblasLeft, CblasConjTrans, static_cast<int>(w), static_cast<int>(nrhs), panel, static_cast<int>(f), y + c0, static_cast<int>(n));
    }
}

// The top nodes of a parallel sweep (above the subtrees: the separators of a 3D problem, about half of its
// factor) are swept by a team of `threads` plain threads: each large node (LLᵀ, LDLᵀ, LU) in column blocks of
// team_block columns (2×2 pivots kept whole), one thread through the block's triangle, then all of them
// through the rows (forward) or columns (backward) outside it in chunks of team_chunk; the small nodes on
// the first thread. Every row's (column's) arithmetic depends only on these fixed sizes, so the solution is
// bitwise the same for any thread count. One barrier per block: the first thread's own chunk holds the next
// block's rows (columns), so it goes on to that block's triangle without waiting.
constexpr idx team_block = 128;
constexpr idx team_chunk = 512;  // > team_block + 1: the first chunk covers the next block
constexpr std::int64_t team_node_entries = std::int64_t{1} << 17;

class SpinBarrier {
public:
    explicit SpinBarrier(int n) : n_(n) {}
    void wait() {
        if (n_ == 1) return;
        const unsigned g = gen_.load(std::memory_order_acquire);
        if (count_.fetch_add(1, std::memory_order_acq_rel) == n_ - 1) {
            count_.store(0, std::memory_order_relaxed);
            gen_.fetch_add(1, std::memory_order_release);
            return;
        }
        for (int spins = 0; gen_.load(std::memory_order_acquire) == g;)
            if (++spins > 256) std::this_thread::yield();  // a shared or oversubscribed machine: give the core away
    }

private:
    const int n_;
    std::atomic<int> count_{0};
    std::atomic<unsigned> gen_{0};
};

// body(tid) on `threads` plain threads (the caller is tid 0); one thread when no top node is a team node.
template <class F>
void on_team(int threads, F&& body) {
    std::vector<std::thread> pool;
    for (int k = 1; k < threads; ++k) pool.emplace_back([&, k] { body(k); });
    body(0);
    for (auto& th : pool) th.join();
}

// A node the team shares: one large enough to pay for its barriers.
bool team_node(const Symbolic& s, idx sn) {
    const idx w = s.width(sn);
    return !s.is_schur(sn) && w >= 2 * team_block && static_cast<std::int64_t>(s.front_rows(sn)) * w >= team_node_entries;
}

// The column blocks of a team node: [b[k], b[k+1]), no 2×2 pivot split (psize[j] == 0: the second column of one).
void team_blocks(idx w, const std::int8_t* psize, std::vector<idx>& b) {
    b.assign(1, 0);
    while (b.back() < w) {
        idx j1 = std::min<idx>(w, b.back() + team_block);
        if (psize && j1 < w && psize[j1] == 0) ++j1;
        b.push_back(j1);
    }
}

// The top nodes in `nodes`' order: the team nodes by team(sn, tid, nt, barrier) on every thread, the others by
// alone(sn) on tid 0 (no thread started when no node is a team node).
template <class Nodes, class Team, class Alone>
void sweep_top(const Symbolic& s, int threads, const Nodes& nodes, Team&& team, Alone&& alone) {
    const int nt = std::any_of(nodes.begin(), nodes.end(), [&](idx sn) { return team_node(s, sn); }) ? threads : 1;
    SpinBarrier bar(nt);
    on_team(nt, [&](int tid) {
        for (idx sn : nodes) {
            if (team_node(s, sn)) team(sn, tid, nt, bar);
            else if (tid == 0) alone(sn);
        }
    });
}

// The column blocks of a team node, first to last (right-looking): tid 0 through block 0's triangle, then per block
// k every thread through its chunks of [blocks[k + 1], end) — update(j0, j1, c0, c1): what block [j0, j1) gives the
// chunk [c0, c1) — and tid 0, whose chunk 0 holds block k + 1, through that block's triangle; one barrier per block.
// (tid 0 has filled `blocks` and z; the others read them after the first barrier.)
template <class Triangle, class Update>
void team_blocks_forward(const std::vector<idx>& blocks, idx end, int tid, int nt, SpinBarrier& bar, Triangle&& triangle, Update&& update) {
    if (tid == 0) triangle(blocks[0], blocks[1]);
    bar.wait();
    const idx nb = static_cast<idx>(blocks.size()) - 1;
    for (idx k = 0; k < nb; ++k) {
        const idx j0 = blocks[k], j1 = blocks[k + 1];
        const idx nchunks = (end - j1 + team_chunk - 1) / team_chunk;
        for (idx c = tid; c < nchunks; c += nt) update(j0, j1, j1 + c * team_chunk, std::min<idx>(end, j1 + (c + 1) * team_chunk));
        if (tid == 0 && k + 1 < nb) triangle(j1, blocks[k + 2]);
        bar.wait();
    }
}

// The same last to first (left-looking from the end): tid 0 through the last block's triangle; per block k > 0 every
// thread through its chunks of [0, blocks[k]), counted down from blocks[k], and tid 0 through block k - 1's triangle.
template <class Triangle, class Update>
void team_blocks_backward(const std::vector<idx>& blocks, int tid, int nt, SpinBarrier& bar, Triangle&& triangle, Update&& update) {
    const idx nb = static_cast<idx>(blocks.size()) - 1;
    if (tid == 0) triangle(blocks[nb - 1], blocks[nb]);
    bar.wait();
    for (idx k = nb - 1; k > 0; --k) {
        const idx j0 = blocks[k], j1 = blocks[k + 1];
        const idx nchunks = (j0 + team_chunk - 1) / team_chunk;
        for (idx c = tid; c < nchunks; c += nt) update(j0, j1, std::max<idx>(0, j0 - (c + 1) * team_chunk), j0 - c * team_chunk);
        if (tid == 0) triangle(blocks[k - 1], j0);
        bar.wait();
    }
}

// Every thread through its chunks of [c_begin, c_end): update(c0, c1), then a barrier (nothing when the range is empty).
template <class Update>
void team_chunks(idx c_begin, idx c_end, int tid, int nt, SpinBarrier& bar, Update&& update) {
    if (c_end <= c_begin) return;
    const idx nchunks = (c_end - c_begin + team_chunk - 1) / team_chunk;
    for (idx c = tid; c < nchunks; c += nt) update(c_begin + c * team_chunk, std::min<idx>(c_end, c_begin + (c + 1) * team_chunk));
    bar.wait();
}

// Forward through a team node (every thread calls it; tid 0 gathers and scatters; z shared). LU (A x = b): unit L11
// (pivot sizes all 1), the values left in pivoted order as forward_node leaves them.
template <class V>
void forward_node_team(const Symbolic& s, const NumericFactor<V>& num, idx sn, V* y, std::vector<V>& z, std::vector<idx>& blocks, int tid,
                       int nt, SpinBarrier& bar) {
    const auto [f, w, c0, panel, r, pv, ps] = NodeArrays<V>(s, num, sn);
    const bool lu = !num.ux.empty();
    if (tid == 0) {
        z.resize(static_cast<std::size_t>(f));
        for (idx j = 0; j < w; ++j) z[j] = y[c0 + (pv ? pv[j] : j)];
        std::fill(z.begin() + w, z.begin() + f, V(0));
        team_blocks(w, ps, blocks);
    }
    team_blocks_forward(
        blocks, f, tid, nt, bar, [&](idx j0, idx j1) { forward_triangle(f, panel, z.data(), j0, j1, ps); },
        [&](idx j0, idx j1, idx r0, idx r1) { forward_rows(f, panel, z.data(), j0, j1, r0, r1); });
    if (tid == 0) {
        for (idx j = 0; j < w; ++j) y[c0 + (pv && !lu ? pv[j] : j)] = z[j];
        for (idx i = w; i < f; ++i) y[r[i]] += z[i];
    }
}

// LU, op(A) x = b, forward through a team node: U11ᵀ (U11ᴴ with conj) by blocks — tid 0 through a block's
// triangle, all threads through the columns after it in chunks — then U12ᵀ's rows (the U panel's rows w..f) in row
// chunks; the node's columns in, its values out through the pivoting (as forward_node).
template <class V>
void forward_node_team_lu_t(const Symbolic& s, const NumericFactor<V>& num, idx sn, V* y, std::vector<V>& z, std::vector<idx>& blocks, bool conj,
                            int tid, int nt, SpinBarrier& bar) {
    const auto [f, w, c0, panel, r, pv, ps] = NodeArrays<V>(s, num, sn);
    const V* up = num.ux.data() + s.lx_ptr[sn];
    if (tid == 0) {
        z.resize(static_cast<std::size_t>(f));
        for (idx j = 0; j < w; ++j) z[j] = y[c0 + j];
        std::fill(z.begin() + w, z.begin() + f, V(0));
        team_blocks(w, nullptr, blocks);
    }
    team_blocks_forward(
        blocks, w, tid, nt, bar, [&](idx j0, idx j1) { lu_upper_t_triangle(f, panel, z.data(), j0, j1, conj); },
        [&](idx j0, idx j1, idx cb, idx ce) { backward_columns(f, panel, z.data(), cb, ce, j0, j1, conj); });
    team_chunks(w, f, tid, nt, bar, [&](idx r0, idx r1) { forward_rows(f, up, z.data(), 0, w, r0, r1, conj); });
    if (tid == 0) {
        for (idx j = 0; j < w; ++j) y[c0 + pv[j]] = z[j];
        for (idx i = w; i < f; ++i) y[r[i]] += z[i];
    }
}

// Backward through a team node: z[0..w) -= L21^H z[w..f) by column chunks, then the blocks last to first (block k's
// values leave through the columns before it).
template <class V>
void backward_node_team(const Symbolic& s, const NumericFactor<V>& num, idx sn, V* y, std::vector<V>& z, std::vector<idx>& blocks, bool conj,
                        int tid, int nt, SpinBarrier& bar) {
    const auto [f, w, c0, panel, r, pv, ps] = NodeArrays<V>(s, num, sn);
    if (tid == 0) {
        z.resize(static_cast<std::size_t>(f));
        for (idx i = w; i < f; ++i) z[i] = y[r[i]];
        for (idx j = 0; j < w; ++j) z[j] = y[c0 + (pv ? pv[j] : j)];
        team_blocks(w, ps, blocks);
    }
    bar.wait();
    if (f > w) team_chunks(0, w, tid, nt, bar, [&](idx cb, idx ce) { backward_columns(f, panel, z.data(), cb, ce, w, f, conj); });
    team_blocks_backward(
        blocks, tid, nt, bar, [&](idx j0, idx j1) { backward_triangle(f, panel, z.data(), j0, j1, ps, conj); },
        [&](idx j0, idx j1, idx cb, idx ce) { backward_columns(f, panel, z.data(), cb, ce, j0, j1, conj); });
    if (tid == 0)
        for (idx j = 0; j < w; ++j) y[c0 + (pv ? pv[j] : j)] = z[j];
}

// LU, A x = b, backward through a team node: z[0..w) -= U12 z[w..f) by column chunks, then U11 by blocks last to
// first (block k's values leave through the rows above it).
template <class V>
void backward_node_team_lu(const Symbolic& s, const NumericFactor<V>& num, idx sn, V* y, std::vector<V>& z, std::vector<idx>& blocks, int tid,
                           int nt, SpinBarrier& bar) {
    const auto [f, w, c0, panel, r, pv, ps] = NodeArrays<V>(s, num, sn);
    const V* up = num.ux.data() + s.lx_ptr[sn];
    if (tid == 0) {
        z.resize(static_cast<std::size_t>(f));
        for (idx i = w; i < f; ++i) z[i] = y[r[i]];
        for (idx j = 0; j < w; ++j) z[j] = y[c0 + j];  // in pivoted order (the rows of U)
        team_blocks(w, nullptr, blocks);
    }
    bar.wait();
    if (f > w) team_chunks(0, w, tid, nt, bar, [&](idx cb, idx ce) { backward_columns(f, up, z.data(), cb, ce, w, f, false); });
    team_blocks_backward(
        blocks, tid, nt, bar, [&](idx j0, idx j1) { lu_upper_triangle(f, panel, z.data(), j0, j1); },
        [&](idx j0, idx j1, idx r0, idx r1) { forward_rows(f, panel, z.data(), j0, j1, r0, r1); });
    if (tid == 0)
        for (idx j = 0; j < w; ++j) y[c0 + j] = z[j];
}

}  // namespace

template <class V>
void forward_sweep(const Symbolic& s, const NumericFactor<V>& num, V* y, idx nrhs, V* work, int threads, Transpose op) {
    // Per supernode: x1 = L11⁻¹ y1; y2 -= L21 x1 (scattered through the row list).
    const idx n = s.n;
    std::vector<V> scratch;  // several right-hand sides: a node's gathered values (and L11 copied without D's 2×2 entries)
    if (parallel_sweep(s)) {
        const idx nsub = static_cast<idx>(s.subtree_root.size()), rows = nrhs > 1 ? max_update_rows(s) : 0;
        std::vector<std::vector<V>> outside(static_cast<std::size_t>(nsub));
        {
            const dense::OneBlasThread one;
            on_workers(nsub, threads, [&](idx t) {
                thread_local std::vector<V> z, zs;
                const idx root = s.subtree_root[t], mr = s.front_rows(root) - s.width(root);
                outside[t].assign(static_cast<std::size_t>(mr * nrhs), V(0));  // the rows outside the subtree (ld mr)
                z.resize(static_cast<std::size_t>(rows * nrhs));
                for (idx q = s.subtree_ptr[t]; q < s.subtree_ptr[t + 1]; ++q) {
                    const idx sn = s.subtree_nodes[q];
                    const idx i_out = s.front_rows(sn) - (s.sweep_out_ptr[q + 1] - s.sweep_out_ptr[q]);  // the rows from i_out are outside
                    const idx* pos = s.sweep_out_pos.data() + s.sweep_out_ptr[q];
                    if (nrhs > 1) forward_node_rhs(s, num, sn, y, nrhs, i_out, pos, outside[t].data(), mr, z.data(), zs, op);
                    else forward_node(s, num, sn, y, i_out, pos, outside[t].data(), z, op);
                }
            });
        }
        for (idx t = 0; t < nsub; ++t) {
            const idx root = s.subtree_root[t], mr = s.front_rows(root) - s.width(root);
            const idx* rr = s.rows.data() + s.rows_ptr[root] + s.width(root);
            for (idx k = 0; k < nrhs; ++k)
                for (idx i = 0; i < mr; ++i) y[rr[i] + k * n] += outside[t][static_cast<std::size_t>(i + k * mr)];
        }
        if (nrhs > 1) {
            for (idx sn : s.top_nodes)
                forward_node_rhs(s, num, sn, y, nrhs, s.front_rows(sn), static_cast<const idx*>(nullptr), static_cast<V*>(nullptr), 0, work, scratch, op);
            return;
        }
        std::vector<V> z, zt;
        std::vector<idx> blocks;
        const bool lu_t = !num.ux.empty() && op != Transpose::none;
        sweep_top(
            s, threads, s.top_nodes,
            [&](idx sn, int tid, int nt, SpinBarrier& bar) {
                if (lu_t) forward_node_team_lu_t(s, num, sn, y, zt, blocks, op == Transpose::conjugate_transpose, tid, nt, bar);
                else forward_node_team(s, num, sn, y, zt, blocks, tid, nt, bar);
            },
            [&](idx sn) { forward_node(s, num, sn, y, s.front_rows(sn), static_cast<const idx*>(nullptr), static_cast<V*>(nullptr), z, op); });
        return;
    }
    thread_local std::vector<V> z;
    for (idx sn = 0; sn < s.nsuper; ++sn) {
        if (nrhs == 1) forward_node(s, num, sn, y, s.front_rows(sn), static_cast<const idx*>(nullptr), static_cast<V*>(nullptr), z, op);
        else forward_node_rhs(s, num, sn, y, nrhs, s.front_rows(sn), static_cast<const idx*>(nullptr), static_cast<V*>(nullptr), 0, work, scratch, op);
    }
}

template <class V>
void backward_sweep(const Symbolic& s, const NumericFactor<V>& num, V* y, idx nrhs, V* work, int threads, bool conj, Transpose op) {
    // Per supernode, root first: y1 -= L21ᴴ y2 (gathered); x1 = L11⁻ᴴ y1.
    std::vector<V> scratch;  // several right-hand sides: a node's gathered values (and L11 copied without D's 2×2 entries)
    if (parallel_sweep(s)) {
        if (nrhs > 1) {
            for (auto it = s.top_nodes.rbegin(); it != s.top_nodes.rend(); ++it) backward_node_rhs(s, num, *it, y, nrhs, conj, work, scratch, op);
        } else {
            std::vector<V> z, zt;
            std::vector<idx> blocks;
            const bool lu = !num.ux.empty();
            sweep_top(
                s, threads, std::views::reverse(s.top_nodes),
                [&](idx sn, int tid, int nt, SpinBarrier& bar) {
                    // LU, op(A) x = b: the unit L11ᵀ (L11ᴴ) through the pivoting, as backward_node
                    if (lu && op == Transpose::none) backward_node_team_lu(s, num, sn, y, zt, blocks, tid, nt, bar);
                    else backward_node_team(s, num, sn, y, zt, blocks, lu ? op == Transpose::conjugate_transpose : conj, tid, nt, bar);
                },
                [&](idx sn) { backward_node(s, num, sn, y, z, conj, op); });
        }
        const idx rows = nrhs > 1 ? max_update_rows(s) : 0;
        const dense::OneBlasThread one;
        on_workers(static_cast<idx>(s.subtree_root.size()), threads, [&](idx t) {
            thread_local std::vector<V> zt, zs;
            zt.resize(static_cast<std::size_t>(rows * nrhs));
            for (idx q = s.subtree_ptr[t + 1] - 1; q >= s.subtree_ptr[t]; --q) {
                if (nrhs > 1) backward_node_rhs(s, num, s.subtree_nodes[q], y, nrhs, conj, zt.data(), zs, op);
                else backward_node(s, num, s.subtree_nodes[q], y, zt, conj, op);
            }
        });
        return;
    }
    thread_local std::vector<V> z;
    for (idx sn = s.nsuper - 1; sn >= 0; --sn) {
        if (nrhs == 1) backward_node(s, num, sn, y, z, conj, op);
        else backward_node_rhs(s, num, sn, y, nrhs, conj, work, scratch, op);
    }
}

template <class V>
V lu_inverse_entry(const Symbolic& s, const NumericFactor<V>& num, idx j, idx i, V* y, std::vector<idx>& path) {
    thread_local std::vector<V> z;
    y[i] = V(1);
    path.clear();
    for (idx sn = s.col_to_sn[i]; sn >= 0; sn = s.sn_parent[sn]) path.push_back(sn);  // leaf to root
    for (idx sn : path) forward_node(s, num, sn, y, s.front_rows(sn), static_cast<const idx*>(nullptr), static_cast<V*>(nullptr), z, Transpose::none);
    const std::size_t forward_nodes = path.size();
    for (idx sn = s.col_to_sn[j]; sn >= 0; sn = s.sn_parent[sn]) path.push_back(sn);
    for (std::size_t k = path.size(); k-- > forward_nodes;) backward_node(s, num, path[k], y, z, true, Transpose::none);
    const V x = y[j];
    for (idx sn : path) std::fill(y + s.super_ptr[sn], y + s.super_ptr[sn + 1], V(0));  // every entry either sweep wrote
    return x;
}

// LDLᵀ / LDLᴴ: y ← D⁻¹ y, the node's own values gathered through its pivoting.
template <class V>
void ldl_diagonal_solve(const Symbolic& s, const NumericFactor<V>& num, V* y, idx nrhs, bool herm) {
    for (idx sn = 0; sn < s.nsuper; ++sn) {
        if (s.is_schur(sn)) continue;
        const idx f = s.front_rows(sn), w = s.width(sn), c0 = s.super_ptr[sn];
        const V* panel = num.lx.data() + s.lx_ptr[sn];
        const std::int64_t* pv = num.piv.data() + c0;
        const std::int8_t* ps = num.pivot_size.data() + c0;
        for (idx k = 0; k < nrhs; ++k) {
            V* yk = y + k * s.n + c0;
            for (idx j = 0; j < w;) {
                if (ps[j] == 2) {
                    const V d11 = panel[j * f + j], d21 = panel[j * f + j + 1], d22 = panel[(j + 1) * f + j + 1];
                    const V d12 = ldlt_detail::cj(d21, herm), det = d11 * d22 - d21 * d12;
                    const V b1 = yk[pv[j]], b2 = yk[pv[j + 1]];
                    yk[pv[j]] = (d22 * b1 - d12 * b2) / det;
                    yk[pv[j + 1]] = (d11 * b2 - d21 * b1) / det;
                    j += 2;
                } else {
                    yk[pv[j]] /= panel[j * f + j];
                    j += 1;
                }
            }
        }
    }
}

#define GIGASPARSE_DIRECT_NUMERIC(V)                                                                          \
    template void allocate_numeric<V>(const Symbolic&, NumericFactor<V>&);                                  \
    template Status factor_multifrontal<V>(const Symbolic&, NumericFactor<V>&, std::span<const V>, idx&,       \
                                           const NumericParams&);                                        \
    template void ldl_diagonal_solve<V>(const Symbolic&, const NumericFactor<V>&, V*, idx, bool);          \
    template void forward_sweep<V>(const Symbolic&, const NumericFactor<V>&, V*, idx, V*, int, Transpose);  \
    template void backward_sweep<V>(const Symbolic&, const NumericFactor<V>&, V*, idx, V*, int, bool, Transpose); \
    template V lu_inverse_entry<V>(const Symbolic&, const NumericFactor<V>&, idx, idx, V*, std::vector<idx>&);
GIGASPARSE_FOR_EACH_VALUE(GIGASPARSE_DIRECT_NUMERIC)
#undef GIGASPARSE_DIRECT_NUMERIC

}  // namespace gigasparse::direct
