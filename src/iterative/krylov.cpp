// src/iterative/krylov.cpp: CG/PCG, BiCGStab, GMRES(m) and FGMRES over the backend vector operations; results, never throws for numerics.
#include <gigasparse/iterative/krylov.hpp>

#include <cmath>
#include <limits>
#include <string>

#include <gigasparse/core/error.hpp>
#include <gigasparse/core/timer.hpp>

#include "iterative/gmres_lsq.hpp"
#include "iterative/minres_rotation.hpp"

namespace gigasparse::iterative {

const char* to_string(Method m) {
    switch (m) {
        case Method::cg: return "cg";
        case Method::bicgstab: return "bicgstab";
        case Method::gmres: return "gmres";
        case Method::fgmres: return "fgmres";
        case Method::minres: return "minres";
    }
    return "unknown";
}

Method parse_method(const std::string& name) {
    if (name == "cg") return Method::cg;
    if (name == "bicgstab") return Method::bicgstab;
    if (name == "gmres") return Method::gmres;
    if (name == "fgmres") return Method::fgmres;
    if (name == "minres") return Method::minres;
    throw InvalidArgument("unknown method '" + name + "' (cg, bicgstab, gmres, fgmres, minres)");
}

const char* to_string(StopReason r) {
    switch (r) {
        case StopReason::converged: return "converged";
        case StopReason::max_iterations: return "max_iterations";
        case StopReason::breakdown: return "breakdown";
        case StopReason::non_finite: return "non_finite";
        case StopReason::preconditioner_failed: return "preconditioner_failed";
    }
    return "unknown";
}

template <class V, class I>
LinearOperator<V> csr_operator(CsrView<V, I> a, Backend backend) {
    if (a.nrows != a.ncols) throw DimensionMismatch("csr_operator: matrix is not square");
    return {a.nrows, [a, backend](std::span<const V> x, std::span<V> y) { spmv<V, I>(backend, a, x, y); }};
}

namespace {

// A norm returned as V (its real part; the imaginary part of a complex one is 0) as a double.
template <class V>
double as_double(V v) {
    return static_cast<double>(std::real(v));
}

// Shared state of one solve: vector operations on the backend, the stopping test and the result.
template <class V>
struct Krylov {
    const LinearOperator<V>& a;
    std::span<const V> b;
    std::span<V> x;
    const Preconditioner<V>* m;
    const SolverOptions& o;
    Backend be;
    SolveResult res;
    Timer timer;
    double bnorm = 0;

    Krylov(const LinearOperator<V>& op, std::span<const V> rhs, std::span<V> sol, const Preconditioner<V>* pc, const SolverOptions& opt)
        : a(op), b(rhs), x(sol), m(pc), o(opt), be(opt.backend) {}

    using W = std::vector<V>;
    W vec() const { return W(static_cast<std::size_t>(a.n), V(0)); }
    using In = std::span<const V>;
    using Out = std::span<V>;
    V dot(In u, In v) const { return iterative::dot<V>(be, u, v); }
    V nrm(In u) const { return nrm2<V>(be, u); }
    void axpy(V alpha, In u, Out v) const { iterative::axpy<V>(be, alpha, u, v); }
    void axpby(V alpha, In u, V beta, Out v) const { iterative::axpby<V>(be, alpha, u, beta, v); }
    void matvec(In u, Out v) const { a.apply(u, v); }
    void precond(In r, Out z) const {
        if (m) m->apply(r, z);
        else iterative::copy<V>(be, r, z);
    }
    // r = b - A x
    void residual(W& r) const {
        a.apply(std::span<const V>(x.data(), x.size()), r);
        iterative::axpby<V>(be, V(1), b, V(-1), r);
    }
    SolveResult& stop(StopReason why, std::string msg) {
        res.reason = why;
        res.converged = why == StopReason::converged;
        res.message = std::move(msg);
        res.seconds = timer.seconds();
        return res;
    }
    // Records the residual after `it` iterations; true when the solve must stop (converged or NaN).
    bool record(std::int64_t it, double rnorm) {
        res.iterations = it;
        res.residual = rnorm / bnorm;
        if (o.record_history) res.residual_history.push_back(res.residual);
        if (!std::isfinite(rnorm)) return stop(StopReason::non_finite, "residual became non-finite"), true;
        if (res.residual <= o.tol) return stop(StopReason::converged, "relative residual below tolerance"), true;
        return false;
    }
    SolveResult& not_converged() {
        return stop(StopReason::max_iterations, "maximum iterations (" + std::to_string(o.maxit) + ") reached");
    }
    // Checks the arguments; returns true when the answer is already known (b = 0, failed setup).
    bool start() {
        if (static_cast<std::int64_t>(b.size()) != a.n || static_cast<std::int64_t>(x.size()) != a.n)
            throw DimensionMismatch("krylov: b and x must have " + std::to_string(a.n) + " entries");
        if (!all_finite<V>(be, b)) throw InvalidStructure("krylov: the right-hand side has NaN or Inf entries");
        if (!all_finite<V>(be, std::span<const V>(x.data(), x.size()))) throw InvalidStructure("krylov: the initial guess has NaN or Inf entries");
        if (o.tol < 0 || o.maxit < 0 || o.restart < 1) throw InvalidArgument("krylov: tol and maxit must be >= 0, restart >= 1");
        if (m && !m->info().status.ok) return stop(StopReason::preconditioner_failed, "preconditioner setup failed: " + m->info().status.message), true;
        bnorm = as_double(nrm2<V>(be, b));
        if (bnorm == 0) {
            fill<V>(be, V(0), x);
            res.iterations = 0;
            res.residual = 0;
            return stop(StopReason::converged, "b = 0: x = 0"), true;
        }
        return false;
    }
};

template <class V>
SolveResult run_cg(Krylov<V>& k) {
    if (k.start()) return k.res;
    auto r = k.vec(), z = k.vec(), p = k.vec(), q = k.vec();
    k.residual(r);
    if (k.record(0, as_double(k.nrm(r)))) return k.res;
    k.precond(r, z);
    p = z;
    V rz = k.dot(r, z);
    for (std::int64_t it = 1; it <= k.o.maxit; ++it) {
        k.matvec(p, q);
        const V pq = k.dot(p, q);
        if (!finite_value(pq)) return k.stop(StopReason::non_finite, "pᵀAp is not finite");
        if (std::real(pq) <= 0) return k.stop(StopReason::breakdown, "pᵀAp <= 0: the operator or preconditioner is not positive definite");
        const V alpha = rz / pq;
        k.axpy(alpha, p, k.x);
        k.axpy(-alpha, q, r);
        if (k.record(it, as_double(k.nrm(r)))) return k.res;
        k.precond(r, z);
        const V rz_new = k.dot(r, z);
        if (rz == V(0)) return k.stop(StopReason::breakdown, "rᵀz = 0");
        k.axpby(V(1), z, rz_new / rz, p);
        rz = rz_new;
    }
    return k.not_converged();
}

template <class V>
SolveResult run_bicgstab(Krylov<V>& k) {
    if (k.start()) return k.res;
    auto r = k.vec(), rhat = k.vec(), p = k.vec(), v = k.vec(), phat = k.vec(), s = k.vec(), shat = k.vec(), t = k.vec();
    k.residual(r);
    if (k.record(0, as_double(k.nrm(r)))) return k.res;
    rhat = r;
    V rho(1), alpha(1), omega(1);
    for (std::int64_t it = 1; it <= k.o.maxit; ++it) {
        const V rho_new = k.dot(rhat, r);
        if (rho_new == V(0)) return k.stop(StopReason::breakdown, "BiCGStab: rho = r̂ᵀr = 0");
        k.axpy(-omega, v, p);                                  // p = p - ω v
        k.axpby(V(1), r, (rho_new / rho) * (alpha / omega), p);  // p = r + β p
        k.precond(p, phat);
        k.matvec(phat, v);
        const V rv = k.dot(rhat, v);
        if (rv == V(0) || !finite_value(rv)) return k.stop(finite_value(rv) ? StopReason::breakdown : StopReason::non_finite, "BiCGStab: r̂ᵀv = 0");
        alpha = rho_new / rv;
        s = r;
        k.axpy(-alpha, v, s);  // s = r - α v
        const double snorm = as_double(k.nrm(s));
        if (snorm / k.bnorm <= k.o.tol) {
            k.axpy(alpha, phat, k.x);
            k.record(it, snorm);
            return k.res;
        }
        k.precond(s, shat);
        k.matvec(shat, t);
        const V tt = k.dot(t, t);
        omega = tt == V(0) ? V(0) : k.dot(t, s) / tt;
        k.axpy(alpha, phat, k.x);
        k.axpy(omega, shat, k.x);
        r = s;
        k.axpy(-omega, t, r);  // r = s - ω t
        if (k.record(it, as_double(k.nrm(r)))) return k.res;
        if (omega == V(0)) return k.stop(StopReason::breakdown, "BiCGStab: omega = 0 (stagnation)");
        rho = rho_new;
    }
    return k.not_converged();
}

// Right-preconditioned restarted GMRES (modified Gram–Schmidt, Givens rotations). flexible keeps
// Z_j = M⁻¹ v_j (FGMRES: the preconditioner may change between steps).
template <class V>
SolveResult run_gmres(Krylov<V>& k, bool flexible) {
    if (k.start()) return k.res;
    const int m = k.o.restart;
    // Krylov vectors (and FGMRES's preconditioned ones) allocated as the iteration first reaches them: a solve that
    // converges in a few iterations does not pay for zeroing (and faulting in) the whole restart basis.
    std::vector<std::vector<V>> basis, zs;
    auto at = [&k](std::vector<std::vector<V>>& vs, int j) -> std::vector<V>& {
        while (static_cast<int>(vs.size()) <= j) vs.push_back(k.vec());
        return vs[static_cast<std::size_t>(j)];
    };
    GmresLsq<V> lsq(m);
    auto w = k.vec(), z = k.vec(), r = k.vec();
    std::int64_t it = 0;
    k.residual(r);
    double beta = as_double(k.nrm(r));
    if (k.record(0, beta)) return k.res;
    while (it < k.o.maxit) {
        k.axpby(V(1 / beta), r, V(0), at(basis, 0));
        lsq.start(beta);
        int j = 0;
        bool lucky = false, done = false;
        for (; j < m && it < k.o.maxit; ++j) {
            auto& zj = flexible ? at(zs, j) : z;
            k.precond(basis[j], zj);
            k.matvec(zj, w);
            for (int i = 0; i <= j; ++i) {  // modified Gram–Schmidt
                lsq.h(i, j) = k.dot(basis[i], w);
                k.axpy(-lsq.h(i, j), basis[i], w);
            }
            const V hn = k.nrm(w);
            if (const auto next = lsq.end_step(k, j, hn, it); next != GmresLsq<V>::Next::go) {
                done = next == GmresLsq<V>::Next::stop, lucky = !done;
                ++j;
                break;
            }
            k.axpby(V(1) / hn, w, V(0), at(basis, j + 1));
        }
        if (k.res.reason == StopReason::non_finite && done && !k.res.converged) return k.res;
        const std::vector<V>& y = lsq.solve(j);
        if (flexible) {
            for (int i = 0; i < j; ++i) k.axpy(y[i], zs[i], k.x);
        } else {
            std::fill(w.begin(), w.end(), V(0));
            for (int i = 0; i < j; ++i) k.axpy(y[i], basis[i], w);
            k.precond(w, z);
            k.axpy(V(1), z, k.x);
        }
        if (done) return k.res;
        k.residual(r);  // restart from the true residual
        beta = as_double(k.nrm(r));
        if (gmres_restart_stops(k, beta, lucky)) return k.res;
    }
    return k.not_converged();
}


// MINRES (Paige and Saunders) for a symmetric or Hermitian A, indefinite allowed, with a symmetric (Hermitian)
// positive definite preconditioner M: the Lanczos recurrence in the M⁻¹ inner product and a QR update by Givens
// rotations of its tridiagonal matrix; x moves along three-term directions. The residual it minimizes, and the one
// it records and tests, is in the M⁻¹ norm, scaled by ||b||₂ / ||b||_{M⁻¹} so that without a preconditioner it is
// the 2-norm residual (the same history as GMRES without restarts, to rounding).
template <class V>
SolveResult run_minres(Krylov<V>& k) {
    if (k.m && k.m->info().kind == PrecondKind::ilu0)
        throw InvalidArgument("minres: the preconditioner must be symmetric positive definite (jacobi, ic0, sgs), not ilu0");
    if (k.start()) return k.res;
    using R = real_t<V>;
    auto r1 = k.vec(), r2 = k.vec(), y = k.vec(), v = k.vec(), w = k.vec(), w1 = k.vec(), w2 = k.vec();
    k.residual(r1);
    k.precond(r1, y);
    // ||r||²_{M⁻¹} = rᴴ M⁻¹ r: real and positive for a positive definite M
    const auto m_norm2 = [&](const std::vector<V>& r, const std::vector<V>& z) { return static_cast<double>(std::real(k.dot(r, z))); };
    double beta = m_norm2(r1, y);
    std::vector<V> mb = k.vec();
    k.precond(k.b, mb);
    const double b_m2 = m_norm2(std::vector<V>(k.b.begin(), k.b.end()), mb);
    if (!(beta >= 0) || !(b_m2 > 0)) {
        if (!std::isfinite(beta) || !std::isfinite(b_m2)) return k.stop(StopReason::non_finite, "MINRES: rᴴ M⁻¹ r is not finite");
        return k.stop(StopReason::breakdown, "MINRES: rᴴ M⁻¹ r <= 0: the preconditioner is not positive definite");
    }
    const double scale = k.bnorm / std::sqrt(b_m2);  // M⁻¹-norm residuals on the 2-norm scale of b
    MinresRotation q = minres_start(std::sqrt(beta));
    if (k.record(0, q.phibar * scale)) return k.res;
    r2 = r1;
    for (std::int64_t it = 1; it <= k.o.maxit; ++it) {
        k.axpby(V(R(1 / q.beta)), y, V(0), v);  // v = y / beta
        k.matvec(v, y);
        if (it >= 2) k.axpy(V(R(-q.beta / q.oldb)), r1, y);
        const double alfa = static_cast<double>(std::real(k.dot(v, y)));  // real for a Hermitian A
        if (!std::isfinite(alfa)) return k.stop(StopReason::non_finite, "MINRES: vᴴAv is not finite");
        k.axpy(V(R(-alfa / q.beta)), r2, y);
        std::swap(r1, r2);  // r1 = the old r2
        r2 = y;
        k.precond(r2, y);
        const double bb = m_norm2(r2, y);
        if (!(bb >= 0)) {
            if (!std::isfinite(bb)) return k.stop(StopReason::non_finite, "MINRES: rᴴ M⁻¹ r is not finite");
            return k.stop(StopReason::breakdown, "MINRES: rᴴ M⁻¹ r < 0: the preconditioner is not positive definite");
        }
        minres_rotate(q, alfa, bb);
        // w = (v - oldeps w1 - delta w2) / gamma, with (w1, w2) = (w2, w) shifted first
        std::swap(w1, w2);
        std::swap(w2, w);
        k.axpby(V(R(1 / q.gamma)), v, V(0), w);
        if (q.oldeps != 0) k.axpy(V(R(-q.oldeps / q.gamma)), w1, w);
        if (q.delta != 0) k.axpy(V(R(-q.delta / q.gamma)), w2, w);
        k.axpy(V(R(q.phi)), w, k.x);
        if (k.record(it, q.phibar * scale)) return k.res;
        if (q.beta == 0) return k.stop(StopReason::breakdown, "MINRES: Krylov space exhausted (beta = 0) before convergence");
    }
    return k.not_converged();
}
}  // namespace

template <class V>
SolveResult cg(const LinearOperator<V>& a, std::span<const V> b, std::span<V> x, const Preconditioner<V>* m, const SolverOptions& o) {
    Krylov<V> k(a, b, x, m, o);
    return run_cg(k);
}

template <class V>
SolveResult bicgstab(const LinearOperator<V>& a, std::span<const V> b, std::span<V> x, const Preconditioner<V>* m, const SolverOptions& o) {
    Krylov<V> k(a, b, x, m, o);
    return run_bicgstab(k);
}

template <class V>
SolveResult gmres(const LinearOperator<V>& a, std::span<const V> b, std::span<V> x, const Preconditioner<V>* m, const SolverOptions& o) {
    Krylov<V> k(a, b, x, m, o);
    return run_gmres(k, false);
}

template <class V>
SolveResult fgmres(const LinearOperator<V>& a, std::span<const V> b, std::span<V> x, const Preconditioner<V>* m, const SolverOptions& o) {
    Krylov<V> k(a, b, x, m, o);
    return run_gmres(k, true);
}

template <class V>
SolveResult minres(const LinearOperator<V>& a, std::span<const V> b, std::span<V> x, const Preconditioner<V>* m, const SolverOptions& o) {
    Krylov<V> k(a, b, x, m, o);
    return run_minres(k);
}

template <class V>
SolveResult solve(const LinearOperator<V>& a, std::span<const V> b, std::span<V> x, const Preconditioner<V>* m, const SolverOptions& o) {
    switch (o.method) {
        case Method::cg: return cg(a, b, x, m, o);
        case Method::bicgstab: return bicgstab(a, b, x, m, o);
        case Method::gmres: return gmres(a, b, x, m, o);
        case Method::fgmres: return fgmres(a, b, x, m, o);
        case Method::minres: return minres(a, b, x, m, o);
    }
    throw InvalidArgument("solve: unknown method");
}

#define GS_INST_V(V)                                                                                                              \
    template SolveResult minres<V>(const LinearOperator<V>&, std::span<const V>, std::span<V>, const Preconditioner<V>*, const SolverOptions&);   \
    template SolveResult cg<V>(const LinearOperator<V>&, std::span<const V>, std::span<V>, const Preconditioner<V>*, const SolverOptions&);       \
    template SolveResult bicgstab<V>(const LinearOperator<V>&, std::span<const V>, std::span<V>, const Preconditioner<V>*, const SolverOptions&); \
    template SolveResult gmres<V>(const LinearOperator<V>&, std::span<const V>, std::span<V>, const Preconditioner<V>*, const SolverOptions&);    \
    template SolveResult fgmres<V>(const LinearOperator<V>&, std::span<const V>, std::span<V>, const Preconditioner<V>*, const SolverOptions&);   \
    template SolveResult solve<V>(const LinearOperator<V>&, std::span<const V>, std::span<V>, const Preconditioner<V>*, const SolverOptions&);
GIGASPARSE_FOR_EACH_VALUE(GS_INST_V)
#undef GS_INST_V
#define GS_INST_VI(V, I) template LinearOperator<V> csr_operator<V, I>(CsrView<V, I>, Backend);
GIGASPARSE_FOR_EACH_VALUE_INDEX(GS_INST_VI)
#undef GS_INST_VI

}  // namespace gigasparse::iterative
