// src/iterative/auto_ordering.cpp: probe-based ordering choice: predicted time = iterations × (depth × level cost + bytes ÷ bandwidth) + setup.
#include "iterative/auto_ordering.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/timer.hpp>
#include <gigasparse/iterative/krylov.hpp>

namespace gigasparse::iterative {

namespace {

// Best of three wall times of fn.
template <class F>
double best_of_3(F&& fn) {
    double best = std::numeric_limits<double>::infinity();
    for (int r = 0; r < 3; ++r) {
        Timer t;
        fn();
        best = std::min(best, t.seconds());
    }
    return best;
}

struct Probe {
    OrderingKind kind;
    double setup = 0, iter_time = 0, est_iters = 0, predicted = 0, level_cost = 0, stream_time = 0;
    std::int64_t depth = 0;
    bool ok = false;
};

// Iterations to reach tol, extrapolated from the probe's second half: rate = (c / a)^(1 / (k - mid))
// with a, c the best residuals of the first and second halves (PCG residuals grow before they
// fall, BiCGStab's oscillate); the remaining iterations are log(tol / c) / log(rate). Without a
// visible decay the estimate is huge and proportional to c, so such candidates rank by progress.
double estimate_iterations(const SolveResult& r, double tol) {
    if (r.converged) return double(r.iterations);
    const auto& h = r.residual_history;
    const std::size_t k = h.size() - 1, mid = k / 2;
    if (h.size() < 3) return 1e12;
    const double a = *std::min_element(h.begin(), h.begin() + mid + 1), c = *std::min_element(h.begin() + mid + 1, h.end());
    const double rate = std::pow(c / a, 1.0 / double(k - mid));
    if (!(c > 0)) return double(k);
    if (!(rate < 1)) return 1e12 * std::max(c, 1e-12);  // no decay seen yet: rank by the residual reached
    return double(k) + std::max(0.0, std::log(tol / c) / std::log(rate));
}

// Index of the probe with the least predicted time (the first on ties).
std::size_t best_index(const std::vector<Probe>& probes) {
    std::size_t b = 0;
    for (std::size_t k = 1; k < probes.size(); ++k)
        if (probes[k].predicted < probes[b].predicted) b = k;
    return b;
}

std::string describe(const Probe& p) {
    char buf[320];
    std::snprintf(buf, sizeof buf, "%s: %s depth %lld, ~%.0f iters x %.3g ms/iter (= %lld levels x %.3g us + %.3g ms streaming) + setup %.3g ms = %.3g ms",
                  to_string(p.kind), p.ok ? "" : "FAILED,", static_cast<long long>(p.depth), p.est_iters, p.iter_time * 1e3,
                  static_cast<long long>(2 * p.depth), p.level_cost * 1e6, p.stream_time * 1e3, p.setup * 1e3, p.predicted * 1e3);
    return buf;
}

}  // namespace

template <class V, class I>
std::unique_ptr<Preconditioner<V>> choose_ordering(CsrView<V, I> a, const PrecondOptions& options, std::string& reason) {
    const Backend be = options.schedule.backend;
    const bool symmetric = equal(a, transpose(a).view());
    SolverOptions so;
    so.method = symmetric ? Method::cg : Method::bicgstab;
    so.maxit = std::max(options.probe_iterations, 1);
    so.tol = options.probe_tol;
    so.backend = be;
    so.record_history = true;
    const auto op = csr_operator(a, be);
    std::vector<V> b(static_cast<std::size_t>(a.nrows), V(1)), x(b.size()), y(b.size());
    // Streaming cost: one SpMV gives the achieved bandwidth; a sweep pair moves about the same bytes as two SpMVs.
    const double bytes_spmv = double(a.nnz()) * (sizeof(V) + sizeof(I)) + 3.0 * double(a.nrows) * sizeof(V);
    const double t_spmv = best_of_3([&] { op.apply(b, y); });
    const double bandwidth = bytes_spmv / std::max(t_spmv, 1e-9);
    std::vector<Probe> probes;
    std::unique_ptr<Preconditioner<V>> best_m;
    for (const OrderingKind k : {OrderingKind::natural, OrderingKind::rcm, OrderingKind::multicolor, OrderingKind::abmc, OrderingKind::dc}) {
        PrecondOptions po = options;
        po.ordering.kind = k;
        Probe p{k};
        Timer t;
        auto m = make_preconditioner(a, po);
        p.setup = t.seconds();
        p.depth = m->info().depth;
        p.ok = m->info().status.ok;
        if (p.ok) {
            std::fill(x.begin(), x.end(), V(0));
            const SolveResult r = solve<V>(op, b, x, m.get(), so);
            p.est_iters = estimate_iterations(r, so.tol);
            p.ok = r.reason == StopReason::converged || r.reason == StopReason::max_iterations;
            const double t_apply = best_of_3([&] { m->apply(b, y); });
            p.iter_time = (symmetric ? 1 : 2) * (t_spmv + t_apply);
            p.stream_time = (symmetric ? 1 : 2) * 3 * bytes_spmv / bandwidth;
            p.level_cost = std::max(0.0, (p.iter_time - p.stream_time) / double(std::max<std::int64_t>(2 * p.depth * (symmetric ? 1 : 2), 1)));
            p.predicted = p.est_iters * p.iter_time + p.setup;
        }
        if (!p.ok) p.predicted = std::numeric_limits<double>::infinity();
        if (!best_m || p.predicted < probes[best_index(probes)].predicted) best_m = std::move(m);
        probes.push_back(p);
    }
    const Probe* best = &probes[best_index(probes)];
    reason = std::string("chose ") + to_string(best->kind) + " (" + std::to_string(options.probe_iterations) + "-iteration " +
             (symmetric ? "CG" : "BiCGStab") + " probes; predicted time = iterations x (levels x level cost + bytes / " +
             std::to_string(static_cast<long long>(bandwidth / 1e6)) + " MB/s) + setup):";
    for (const Probe& p : probes) reason += " [" + describe(p) + "]";
    return best_m;
}

#define GS_INST(V, I) template std::unique_ptr<Preconditioner<V>> choose_ordering<V, I>(CsrView<V, I>, const PrecondOptions&, std::string&);
GIGASPARSE_FOR_EACH_REAL_VALUE_INDEX(GS_INST)
#undef GS_INST

}  // namespace gigasparse::iterative
