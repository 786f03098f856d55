// src/iterative/gmres_lsq.hpp: the small least-squares problem of restarted GMRES, shared by the host solver
// (krylov.cpp) and the GPU one (cuda/krylov_dispatch.cuh): the Hessenberg matrix of one restart cycle, reduced to
// upper triangular form by Givens rotations as its columns arrive, the rotated right-hand side g (whose last entry
// is the residual norm of the current iterate), the back substitution for the update's coefficients y, and the
// tests at a restart. The arithmetic of a column and of the back substitution is in two functions that the GPU's
// kernels run too (krylov_kernels.cuh), on arrays of their own in device memory (GmresLsq itself stays on the host).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include <gigasparse/iterative/krylov.hpp>

#ifdef __CUDACC__
#define GIGASPARSE_GMRES_HD __host__ __device__
#else
#define GIGASPARSE_GMRES_HD
#endif

namespace gigasparse::iterative {

template <class V>
GIGASPARSE_GMRES_HD V gmres_conj(V v) {
    using std::conj;  // and by argument-dependent lookup the GPU backend's own complex type's
    if constexpr (is_complex_v<V>) return conj(v);
    else return v;
}

// Column j of the Hessenberg matrix, entry i at col[i * stride] (entries 0..j set; entry j + 1 is written as hn,
// the norm of the orthogonalized vector): the earlier rotations (cs, sn) applied to it, a new one zeroing
// H(j + 1, j), and the rotated right-hand side g updated; returns |g[j + 1]|, the residual norm after j + 1 steps.
// A rotation is [c s; -conj(s) c] with c real: for complex values c = |h_jj| / d and s = (h_jj / |h_jj|) conj(hn) / d,
// d = ||(h_jj, hn)||, so R's diagonal keeps h_jj's phase; for real ones c = h_jj / d, s = hn / d.
template <class V>
GIGASPARSE_GMRES_HD real_t<V> gmres_rotate_column(V* col, std::ptrdiff_t stride, int j, V hn, V* cs, V* sn, V* g) {
    using std::abs;
    using std::hypot;
    col[(j + 1) * stride] = hn;
    for (int i = 0; i < j; ++i) {
        const V a = col[i * stride], b = col[(i + 1) * stride];
        col[i * stride] = cs[i] * a + sn[i] * b;
        col[(i + 1) * stride] = -gmres_conj(sn[i]) * a + cs[i] * b;
    }
    const V hjj = col[j * stride];
    if constexpr (is_complex_v<V>) {
        const real_t<V> a = abs(hjj), d = hypot(a, abs(hn));
        const V phase = a == 0 ? V(1) : hjj / a;
        cs[j] = d == 0 ? V(1) : V(a / d);
        sn[j] = d == 0 ? V(0) : phase * gmres_conj(hn) / d;
        col[j * stride] = phase * d;
    } else {
        const V d = hypot(hjj, hn);
        cs[j] = d == V(0) ? V(1) : hjj / d;
        sn[j] = d == V(0) ? V(0) : hn / d;
        col[j * stride] = d;
    }
    g[j + 1] = -gmres_conj(sn[j]) * g[j];
    g[j] = cs[j] * g[j];
    return abs(g[j + 1]);
}

// y = R⁻¹ g over the first j columns, R(i, l) at r[i * row_stride + l * col_stride] (back substitution; a zero
// diagonal gives a zero coefficient).
template <class V>
GIGASPARSE_GMRES_HD void gmres_back_substitute(const V* r, std::ptrdiff_t row_stride, std::ptrdiff_t col_stride, const V* g, V* y, int j) {
    for (int i = j - 1; i >= 0; --i) {
        V s = g[i];
        for (int l = i + 1; l < j; ++l) s -= r[i * row_stride + l * col_stride] * y[l];
        const V d = r[i * row_stride + i * col_stride];
        y[i] = d == V(0) ? V(0) : s / d;
    }
}

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
    double add_column(int j, V hn) { return static_cast<double>(gmres_rotate_column(&h(0, j), m_, j, hn, cs_.data(), sn_.data(), g_.data())); }
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
        gmres_back_substitute(h_.data(), m_, 1, g_.data(), y_.data(), j);
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
