// src/iterative/auto_ordering.cpp: model-based ordering choice: predicted time = ordering + iterations × (SpMV + sweeps + vector ops).
#include "iterative/auto_ordering.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <numeric>
#include <span>
#include <thread>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/timer.hpp>
#include <gigasparse/iterative/krylov.hpp>

namespace gigasparse::iterative {

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

template <class F>
double best_of(int runs, F&& fn) {
    double best = inf;
    for (int r = 0; r < runs; ++r) {
        Timer t;
        fn();
        best = std::min(best, t.seconds());
    }
    return best;
}

// Iterations to reach tol, extrapolated from the probe's second half when it stopped early:
// rate = (c / a)^(1 / (k - mid)) with a, c the best residuals of the first and second halves
// (PCG residuals grow before they fall, BiCGStab's oscillate). Without a visible decay: huge.
double estimate_iterations(const SolveResult& r, double tol) {
    if (r.converged) return double(r.iterations);
    const auto& h = r.residual_history;
    if (h.size() < 3) return 1e12;
    const std::size_t k = h.size() - 1, mid = k / 2;
    const double a = *std::min_element(h.begin(), h.begin() + mid + 1), c = *std::min_element(h.begin() + mid + 1, h.end());
    if (!(c > 0)) return double(k);
    const double rate = std::pow(c / a, 1.0 / double(k - mid));
    if (!(rate < 1)) return 1e12 * std::max(c, 1e-12);
    return double(k) + std::max(0.0, std::log(tol / c) / std::log(rate));
}

// About m rows reached breadth-first from `root` over the row pattern of A (restarted from the
// next unseen row if A's pattern closes earlier), sorted (so the sub-problem keeps the given
// numbering's order).
template <class V, class I>
std::vector<std::int64_t> ball(CsrView<V, I> a, std::int64_t root, std::int64_t m) {
    std::vector<char> seen(static_cast<std::size_t>(a.nrows), 0);
    std::vector<std::int64_t> q{root};
    seen[root] = 1;
    std::int64_t next = root;
    for (std::size_t h = 0; static_cast<std::int64_t>(q.size()) < m; ++h) {
        if (h == q.size()) {  // pattern closed: continue from the next unseen row
            while (seen[next]) next = (next + 1) % a.nrows;
            seen[next] = 1, q.push_back(next);
        }
        for (offset_t k = a.row_ptr[q[h]]; k < a.row_ptr[q[h] + 1] && static_cast<std::int64_t>(q.size()) < m; ++k)
            if (const std::int64_t j = a.col_idx[k]; !seen[j]) seen[j] = 1, q.push_back(j);
    }
    std::sort(q.begin(), q.end());
    return q;
}

// The principal submatrix of A on `rows` (sorted).
template <class V, class I>
Csr<V, I> induced(CsrView<V, I> a, const std::vector<std::int64_t>& rows) {
    std::vector<std::int64_t> local(static_cast<std::size_t>(a.nrows), -1);
    for (std::size_t k = 0; k < rows.size(); ++k) local[rows[k]] = static_cast<std::int64_t>(k);
    Csr<V, I> s;
    s.nrows = s.ncols = static_cast<std::int64_t>(rows.size());
    s.row_ptr.assign(1, 0);
    for (const std::int64_t i : rows) {
        for (offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
            if (const std::int64_t j = local[a.col_idx[k]]; j >= 0) s.col_idx.push_back(static_cast<I>(j)), s.values.push_back(a.values[k]);
        s.row_ptr.push_back(static_cast<offset_t>(s.col_idx.size()));
    }
    return s;
}

// Lower bound of one cross-thread handoff (an acquire/release flag ping-pong between two threads
// in one parallel region), measured once per process: the least a level of a parallel sweep costs.
double handoff_seconds() {
    static const double cached = [] {
        if (omp_get_max_threads() < 2) return 0.0;
        std::atomic<std::int64_t> flag{0};
        constexpr std::int64_t rounds = 2000;
        double t = 0;
#pragma omp parallel num_threads(2)
        {
            const int me = omp_get_thread_num();
#pragma omp barrier
            Timer timer;
            for (std::int64_t r = 0; r < rounds; ++r) {
                const std::int64_t want = 2 * r + me;
                int spins = 0;
                while (flag.load(std::memory_order_acquire) != want)
                    if (++spins > 256) std::this_thread::yield();
                flag.store(want + 1, std::memory_order_release);
            }
            if (me == 0) t = timer.seconds();
        }
        return t / double(2 * rounds);
    }();
    return cached;
}

struct Candidate {
    explicit Candidate(OrderingKind k) : kind(k) {}
    OrderingKind kind;
    bool probe_ok = false;
    double sub_iters = inf, iters = inf, sub_setup = 0, probe_s = 0;
    std::int64_t sub_depth = 0;  // block-level depth of the lower sweep on the probe sub-problem (colors for mc/abmc)
    double order_s = 0, sweep_s = 0, iter_s = 0, predicted = inf;
    bool sequential = false;
    std::string note;
    Ordering ord;
};

std::string describe(const Candidate& c) {
    char buf[400];
    if (!c.probe_ok) std::snprintf(buf, sizeof buf, "%s: probe failed (%s)", to_string(c.kind), c.note.c_str());
    else
        std::snprintf(buf, sizeof buf, "%s%s: probe %.0f iters (%.2g ms) -> ~%.0f x %.3g ms/iter (sweep %.3g ms) + ordering ~%.3g ms = %.4g ms",
                      to_string(c.kind), c.sequential ? " (sequential sweeps)" : "", c.sub_iters, c.probe_s * 1e3, c.iters, c.iter_s * 1e3,
                      c.sweep_s * 1e3, c.order_s * 1e3, c.predicted * 1e3);
    return buf;
}

// A lower sweep over rows [lo, hi) of A in the given order (x_i = (b_i - sum_{lo<=j<i} a_ij x_j) / a_ii),
// reading only each row's lower part (rows sorted): the memory traffic of a triangular sweep.
template <class V, class I>
void plain_sweep(CsrView<V, I> a, std::span<V> x, std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) {
        V s = x[i], d = V(1);
        for (offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
            const std::int64_t j = a.col_idx[k];
            if (j >= i) {
                if (j == i && a.values[k] != V(0)) d = a.values[k];
                break;
            }
            if (j >= lo) s -= a.values[k] * x[j];
        }
        x[i] = s / d;
    }
}

// The same rows without the chain: y_i = (b_i - sum_{j<i} a_ij x_j) / a_ii reads x and writes y,
// so consecutive rows overlap in the pipeline (what a sweep costs when consecutive rows are
// independent, as in level-ordered RCM or colors).
template <class V, class I>
void unchained_sweep(CsrView<V, I> a, std::span<const V> x, std::span<V> y) {
    for (std::int64_t i = 0; i < a.nrows; ++i) {
        V s = x[i], d = V(1);
        for (offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
            const std::int64_t j = a.col_idx[k];
            if (j >= i) {
                if (j == i && a.values[k] != V(0)) d = a.values[k];
                break;
            }
            s -= a.values[k] * x[j];
        }
        y[i] = s / d;
    }
}

// Fraction of rows (in the order perm[new] = old; identity when empty) coupled to the row just
// before them: those a sequential sweep must wait for (the latency chain).
template <class V, class I>
double chain_fraction(CsrView<V, I> a, const std::vector<std::int64_t>& perm) {
    std::int64_t chained = 0;
    for (std::int64_t i = 1; i < a.nrows; ++i) {
        const std::int64_t r = perm.empty() ? i : perm[i], prev = perm.empty() ? i - 1 : perm[i - 1];
        for (offset_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
            if (a.col_idx[k] == prev) {
                ++chained;
                break;
            }
    }
    return a.nrows > 1 ? double(chained) / double(a.nrows - 1) : 0.0;
}

// The same sweep split into `threads` independent row ranges run in one parallel region: what
// a parallel sweep of independent subgraphs costs on this machine now (region start, memory
// bandwidth shared by the threads, cores taken by other processes).
template <class V, class I>
void parallel_plain_sweep(CsrView<V, I> a, std::span<V> x, int threads) {
#pragma omp parallel num_threads(threads)
    {
        const std::int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
        plain_sweep(a, x, a.nrows * t / nt, a.nrows * (t + 1) / nt);
    }
}

// Mean time of an empty parallel region (thread wake-up: what a parallel sweep pays once).
double region_seconds(int threads) {
    if (threads < 2) return 0.0;
    Timer t;
    for (int r = 0; r < 20; ++r) {
#pragma omp parallel num_threads(threads)
        {
            volatile int sink = omp_get_thread_num();
            (void)sink;
        }
    }
    return t.seconds() / 20;
}

}  // namespace

template <class V, class I>
AutoChoice choose_ordering(CsrView<V, I> a, const PrecondOptions& options, std::string& reason) {
    Timer total;
    const std::int64_t n = a.nrows;
    std::vector<Candidate> cands;
    for (const OrderingKind k : {OrderingKind::dc, OrderingKind::natural, OrderingKind::rcm, OrderingKind::abmc, OrderingKind::multicolor})
        cands.emplace_back(k);

    // 1. Iterations: each candidate on a breadth-first ball around the middle row, sequential sweeps.
    const int ordering_threads = options.ordering.threads > 0 ? options.ordering.threads : omp_get_max_threads();
    const std::int64_t m = std::max<std::int64_t>(options.probe_rows, 64);
    const bool whole = n <= m + m / 2;
    std::vector<std::int64_t> all_rows;
    if (whole) all_rows.resize(static_cast<std::size_t>(n)), std::iota(all_rows.begin(), all_rows.end(), 0);
    const Csr<V, I> pa = induced(a, whole ? all_rows : ball(a, n / 2, m));  // small A: probed whole
    // the probe's method (and the model's work per iteration): CG when A is symmetric (Hermitian for complex values)
    const bool symmetric = equal(pa.view(), transpose(pa.view(), is_complex_v<V>).view());
    SolverOptions so;
    so.method = symmetric ? Method::cg : Method::bicgstab;
    so.tol = options.probe_tol;
    so.backend = Backend::reference;
    so.record_history = true;
    auto probe = [&](const Csr<V, I>& sub, OrderingKind k, Candidate* c, int maxit) {
        SolverOptions sol = so;
        sol.maxit = std::max(1, maxit);
        PrecondOptions po = options;
        po.ordering.kind = k;
        po.ordering.threads = ordering_threads;  // as at full size (probes run inside a parallel region)
        po.schedule.backend = Backend::reference;
        std::unique_ptr<Preconditioner<V>> pm;
        SolveResult r;
        try {  // no exception may leave the parallel region
            pm = make_preconditioner(sub.view(), po);
            if (c) c->sub_setup = pm->info().setup_seconds, c->sub_depth = pm->info().lower.depth;
            if (!pm->info().status.ok) {
                if (c) c->note = pm->info().status.message;
                return inf;
            }
            std::vector<V> b(static_cast<std::size_t>(sub.nrows), V(1)), x(b.size(), V(0));
            r = solve<V>(csr_operator(sub.view(), Backend::reference), b, x, pm.get(), sol);
        } catch (const std::exception& e) {
            if (c) c->note = e.what();
            return inf;
        }
        if (r.reason != StopReason::converged && r.reason != StopReason::max_iterations) {
            if (c) c->note = std::string("probe solve stopped: ") + to_string(r.reason);
            return inf;
        }
        return estimate_iterations(r, sol.tol);
    };
    // Probes are independent sequential solves: they run concurrently, dc and natural first; the
    // others then stop at twice the better count (more than twice the iterations cannot win: no
    // ordering's sweep is more than twice as fast as DC's on two threads), next to the growth probe
    // (natural order on a ball a quarter as large: iterations ~ rows^alpha).
    const int probe_threads = options.schedule.backend == Backend::reference ? 1 : std::max(1, omp_get_max_threads());
#pragma omp parallel for schedule(dynamic, 1) num_threads(probe_threads)
    for (int k = 0; k < 2; ++k) {
        Timer pt;
        cands[k].sub_iters = probe(pa, cands[k].kind, &cands[k], options.probe_iterations);
        cands[k].probe_ok = cands[k].sub_iters < inf;
        cands[k].probe_s = pt.seconds();
    }
    const double first = std::min(cands[0].sub_iters, cands[1].sub_iters);
    const int cap = std::max(1, std::min(options.probe_iterations, first < inf ? static_cast<int>(2 * first) + 2 : options.probe_iterations));
    const Csr<V, I> small = whole ? Csr<V, I>{} : induced(a, ball(a, n / 2, pa.nrows / 4));
    double small_iters = inf;
    const OrderingKind base_kind = cands[1].probe_ok ? OrderingKind::natural : OrderingKind::dc;
#pragma omp parallel for schedule(dynamic, 1) num_threads(probe_threads)
    for (int k = 2; k < 6; ++k) {
        if (k == 5) {
            if (!whole) small_iters = probe(small, base_kind, nullptr, options.probe_iterations);
            continue;
        }
        Timer pt;
        cands[k].sub_iters = probe(pa, cands[k].kind, &cands[k], cap);
        cands[k].probe_ok = cands[k].sub_iters < inf;
        cands[k].probe_s = pt.seconds();
    }
    double alpha = 0, scale = 1;
    const double base_iters = cands[base_kind == OrderingKind::natural ? 1 : 0].sub_iters;
    if (!whole && base_iters < inf) {
        if (small_iters < inf && small_iters > 0 && base_iters > small_iters)
            alpha = std::clamp(std::log(base_iters / small_iters) / std::log(double(pa.nrows) / double(small.nrows)), 0.0, 0.75);
        scale = std::pow(double(n) / double(pa.nrows), alpha);
    }
    for (Candidate& c : cands) c.iters = c.probe_ok ? std::max(1.0, c.sub_iters * scale) : inf;
    const double probe_s = total.seconds();

    // 2. Per-iteration time from measured rates and each ordering's structure:
    //    natural, rcm: sequential sweeps: t_free + (t_seq - t_free) x chain fraction / natural's (on
    //      the probe ball), with t_seq a timed plain sweep of A's lower part and t_free the same rows
    //      without the chain (natural order's row-level parallel sweep lost to the sequential one in
    //      the 2-thread measurements: a natural winner runs sequentially; rcm keeps the requested
    //      schedule: its levels are runs of consecutive rows);
    //    dc: t_par (the plain sweep cut into one independent row range per thread, timed in one
    //      parallel region) x its chain ratio x largest leaf x threads + its sequential sweep x
    //      separators, leaf and separator fractions from its ordering of the probe ball;
    //    abmc: t_par + colors x handoff; mc: the ideal parallel sweep (independent rows run at the
    //      SpMV's rate) + colors x handoff + region.
    //    Ordering cost: the probe's setup time beyond natural order's, scaled to n (abmc: n log n).
    //      Only the winner is ordered at full size (as part of its setup).
    const Backend be = options.schedule.backend;
    const int threads = be == Backend::reference ? 1 : options.schedule.threads > 0 ? options.schedule.threads : omp_get_max_threads();
    const auto op = csr_operator(a, be);
    std::vector<V> ones(static_cast<std::size_t>(n), V(1)), y(ones.size());
    const double bytes_spmv = double(a.nnz()) * (sizeof(V) + sizeof(I)) + 3.0 * double(n) * sizeof(V);
    const double t_spmv = best_of(3, [&] { op.apply(ones, y); });
    const double bandwidth = bytes_spmv / std::max(t_spmv, 1e-9);
    std::int64_t nnz_lower = 0;
    for (std::int64_t i = 0; i < n; ++i)
        for (offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) nnz_lower += a.col_idx[k] <= i;
    const double ideal_sweep = (double(nnz_lower) * (sizeof(V) + sizeof(I)) + 2.0 * double(n) * sizeof(V)) / bandwidth;
    const std::span<V> ys(y);
    plain_sweep(a, ys, 0, n);  // warm-up
    const double t_seq = best_of(3, [&] {
        std::fill(y.begin(), y.end(), V(1));
        plain_sweep(a, ys, 0, n);
    });
    std::vector<V> z(ones.size());
    unchained_sweep(a, std::span<const V>(ones), std::span<V>(z));  // warm-up
    const double t_free = std::min(t_seq, best_of(3, [&] { unchained_sweep(a, std::span<const V>(ones), std::span<V>(z)); }));
    const double handoff = threads > 1 ? handoff_seconds() : 0.0, region = region_seconds(threads);
    double t_par = t_seq;
    if (threads > 1) {
        parallel_plain_sweep(a, ys, threads);  // warm-up
        t_par = best_of(3, [&] {
            std::fill(y.begin(), y.end(), V(1));
            parallel_plain_sweep(a, ys, threads);
        });
    }
    const int per_iter = symmetric ? 1 : 2;  // SpMVs and preconditioner applications per iteration
    const double t_vec = (symmetric ? 10.0 : 16.0) * double(n) * sizeof(V) / bandwidth;
    const double t_perm = 2.0 * double(n) * (2 * sizeof(V) + sizeof(std::int64_t)) / bandwidth;  // gather + scatter
    auto finish = [&](Candidate& c) {
        c.iter_s = per_iter * (t_spmv + 2 * c.sweep_s + (c.kind == OrderingKind::natural ? 0.0 : t_perm)) + t_vec;
        c.predicted = c.order_s + c.iters * c.iter_s;
    };
    double natural_setup = 0;
    for (const Candidate& c : cands)
        if (c.kind == OrderingKind::natural) natural_setup = c.sub_setup;
    std::size_t best = cands.size();
    Candidate* dc = nullptr;
    Candidate* rcm = nullptr;
    for (std::size_t k = 0; k < cands.size(); ++k) {
        Candidate& c = cands[k];
        if (!c.probe_ok) continue;
        double grow = double(n) / double(pa.nrows);
        if (c.kind == OrderingKind::abmc) {
            const double blk = double(std::max<std::int64_t>(options.ordering.abmc_block_rows, 2));
            grow *= std::max(1.0, std::log(double(n) / blk) / std::log(std::max(2.0, double(pa.nrows) / blk)));
        }
        // Setup beyond natural order's (validation, permutation and factorization are common to all).
        c.order_s = c.kind == OrderingKind::natural ? 0.0 : std::max(0.0, c.sub_setup - natural_setup) * grow;
        const double colors = double(std::max<std::int64_t>(c.sub_depth, 1));
        switch (c.kind) {
            case OrderingKind::natural: c.sweep_s = t_seq, c.sequential = true; break;
            case OrderingKind::rcm: rcm = &c; continue;
            case OrderingKind::abmc: c.sweep_s = t_par + colors * handoff; break;
            case OrderingKind::multicolor: c.sweep_s = ideal_sweep + colors * handoff + region; break;
            default: dc = &c; continue;
        }
        if (threads == 1) c.sweep_s = t_seq, c.sequential = c.kind == OrderingKind::natural || c.kind == OrderingKind::rcm;
        finish(c);
        if (best == cands.size() || c.predicted < cands[best].predicted) best = k;
    }
    // rcm and dc: chain fraction and (dc) block sizes from their orderings of the probe ball,
    // relative to natural order's chain there; the full-size ordering is computed only for the winner.
    const double chain_natural_sub = std::max(chain_fraction(pa.view(), {}), 0.01);
    for (Candidate* c : {rcm, dc}) {
        if (!c) continue;
        OrderingOptions oo = options.ordering;
        oo.kind = c->kind;
        oo.threads = ordering_threads;
        const Ordering so_sub = compute_ordering(pa.view(), oo);
        const double ratio = std::min(1.0, chain_fraction(pa.view(), so_sub.perm) / chain_natural_sub);
        const double seq = t_free + (t_seq - t_free) * ratio;  // this order's sequential sweep
        if (c == rcm || threads == 1) {
            c->sweep_s = seq;
        } else {
            std::vector<std::int64_t> sizes;
            for (std::size_t b = 0; b + 1 < so_sub.block_ptr.size(); ++b) sizes.push_back(so_sub.block_ptr[b + 1] - so_sub.block_ptr[b]);
            std::sort(sizes.begin(), sizes.end(), std::greater<>());
            const double rows = double(std::max<std::int64_t>(pa.nrows, 1));
            double in_leaves = 0;
            for (std::size_t b = 0; b < sizes.size() && b < static_cast<std::size_t>(threads); ++b) in_leaves += double(sizes[b]);
            const double leaf = sizes.empty() ? 1.0 : double(sizes[0]) / rows, rest = std::max(0.0, 1.0 - in_leaves / rows);
            // The largest leaf at the parallel rate (t_par: one range per thread), separators after it, sequential.
            c->sweep_s = t_par * (seq / std::max(t_seq, 1e-12)) * leaf * threads + seq * rest + 2 * handoff;
        }
        finish(*c);
        const std::size_t k = static_cast<std::size_t>(c - cands.data());
        if (best == cands.size() || c->predicted < cands[best].predicted) best = k;
    }
    char head[600];
    if (best == cands.size()) {
        reason = "chose natural: the preconditioner failed on the probe sub-problem under every ordering;";
        for (const Candidate& c : cands) reason += " [" + describe(c) + "]";
        return AutoChoice{compute_ordering(a, OrderingOptions{}), false};
    }
    std::snprintf(head, sizeof head,
                  "chose %s%s (probes: %s on a %lld-row breadth-first ball, iterations x %.3g for %lld rows; predicted = ordering + iterations "
                  "x (SpMV %.3g ms + sweeps + vector ops); sequential sweep %.3g ms, unchained %.3g ms, %d-way parallel "
                  "sweep %.3g ms, handoff %.2g us, parallel region %.3g ms; probes %.3g ms, "
                  "model %.3g ms; factorization not included):",
                  to_string(cands[best].kind), cands[best].sequential ? " with sequential sweeps" : "", symmetric ? "CG" : "BiCGStab",
                  static_cast<long long>(pa.nrows), scale, static_cast<long long>(n), t_spmv * 1e3, t_seq * 1e3, t_free * 1e3, threads, t_par * 1e3, handoff * 1e6, region * 1e3,
                  probe_s * 1e3, (total.seconds() - probe_s) * 1e3);
    reason = head;
    for (const Candidate& c : cands) reason += " [" + describe(c) + "]";
    Candidate& win = cands[best];
    OrderingOptions oo = options.ordering;
    oo.kind = win.kind;
    win.ord = compute_ordering(a, oo);
    return AutoChoice{std::move(win.ord), win.sequential};
}

#define GS_INST(V, I) template AutoChoice choose_ordering<V, I>(CsrView<V, I>, const PrecondOptions&, std::string&);
GIGASPARSE_FOR_EACH_VALUE_INDEX(GS_INST)
#undef GS_INST

}  // namespace gigasparse::iterative
