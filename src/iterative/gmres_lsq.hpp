// src/iterative/gmres_lsq.hpp: the small least-squares problem of restarted GMRES, shared by the host solver
// (krylov.cpp) and the GPU one (cuda/krylov_dispatch.cuh): the Hessenberg matrix of one restart cycle, reduced to
// upper triangular form by Givens rotations as its columns arrive, the rotated right-hand side g (whose last entry
// is the residual norm of the current iterate), the back substitution for the update's coefficients y, and the
// tests at a restart.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include <gigasparse/iterative/krylov.hpp>

namespace gigasparse::iterative {

template <class V>
class GmresLsq {
public:
    explicit GmresLsq(int m)
        : m_(m), h_(static_cast<std::size_t>((m + 1) * m)), cs_(static_cast<std::size_t>(m)), sn_(static_cast<std::size_t>(m)),
          g_(static_cast<std::size_t>(m + 1)), y_(static_cast<std::size_t>(m)) {}

    // A new cycle from a residual of norm beta.
    void start(double beta) {
        std::fill(g_.begin(), g_.end(), V(0));
        g_[0] = V(beta);
    }
    // H(i, j): the caller sets column j's entries i <= j (the Gram–Schmidt coefficients) before add_column(j).
    V& h(int i, int j) { return h_[static_cast<std::size_t>(i * m_ + j)]; }
    // Column j with H(j + 1, j) = hn (the norm of the orthogonalized vector): the earlier rotations applied to it,
    // a new one zeroing H(j + 1, j); returns |g[j + 1]|, the residual norm after j + 1 steps of the cycle.
    double add_column(int j, V hn) {
        h(j + 1, j) = hn;
        for (int i = 0; i < j; ++i) {
            const V t = cs_[i] * h(i, j) + sn_[i] * h(i + 1, j);
            h(i + 1, j) = -sn_[i] * h(i, j) + cs_[i] * h(i + 1, j);
            h(i, j) = t;
        }
        const V d = std::hypot(h(j, j), hn);
        cs_[j] = d == V(0) ? V(1) : h(j, j) / d;
        sn_[j] = d == V(0) ? V(0) : hn / d;
        h(j, j) = d;
        g_[j + 1] = -sn_[j] * g_[j];
        g_[j] = cs_[j] * g_[j];
        return static_cast<double>(std::abs(g_[j + 1]));
    }
    // The end of step j of a cycle: column j added with its norm hn, the iteration counted (it) and recorded by the
    // solver (k.record: its stopping test); stop when the solve is over, lucky when the Krylov space is exhausted.
    enum class Next { go, stop, lucky };
    template <class K, class Count>
    Next end_step(K& k, int j, V hn, Count& it) {
        const double rnorm = add_column(j, hn);
        ++it;
        if (k.record(it, rnorm)) return Next::stop;
        return hn == V(0) ? Next::lucky : Next::go;
    }
    // y = R⁻¹ g over the first j columns (back substitution; a zero diagonal gives a zero coefficient).
    const std::vector<V>& solve(int j) {
        for (int i = j - 1; i >= 0; --i) {
            V s = g_[i];
            for (int l = i + 1; l < j; ++l) s -= h(i, l) * y_[l];
            y_[i] = h(i, i) == V(0) ? V(0) : s / h(i, i);
        }
        return y_;
    }

private:
    int m_;
    std::vector<V> h_, cs_, sn_, g_, y_;
};

// After a cycle, from the residual norm beta of the restart (lucky: the cycle ended on h_{j+1,j} = 0): the stop it
// decides through the solver's k.stop (true), or none. K: the host's or the GPU's solver state (res, bnorm, o.tol).
template <class K>
bool gmres_restart_stops(K& k, double beta, bool lucky) {
    k.res.residual = beta / k.bnorm;
    if (!std::isfinite(beta)) return k.stop(StopReason::non_finite, "residual became non-finite"), true;
    if (k.res.residual <= k.o.tol) return k.stop(StopReason::converged, "relative residual below tolerance"), true;
    if (lucky) return k.stop(StopReason::breakdown, "GMRES: Krylov space exhausted (h_{j+1,j} = 0) before convergence"), true;
    return false;
}

}  // namespace gigasparse::iterative
