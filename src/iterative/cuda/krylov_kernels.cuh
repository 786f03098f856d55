// src/iterative/cuda/krylov_kernels.cuh: the CUDA kernels of the GPU iterative backend: SpMV (CSR-vector
// with a block per long row), deterministic reductions (per-block partial sums, one finishing block),
// the Jacobi setup and the fused vector updates of CG and BiCGStab, whose scalars live in device memory, and
// GMRES's classical Gram–Schmidt in a few passes (all dot products of a pass at once).
// Included by krylov_dispatch.cuh; the CPU simulator's tests compile the same code (tests/cuda_sim).
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

#include <cub/block/block_reduce.cuh>

#include <gigasparse/core/types.hpp>
#include <gigasparse/cuda/abi.hpp>

#include "iterative/cuda/krylov_math.hpp"
#include "iterative/cuda/krylov_value.hpp"
#include "iterative/gmres_lsq.hpp"
#include "iterative/minres_rotation.hpp"

namespace gigasparse::cuda {
inline namespace GIGASPARSE_CUDA_ABI {
namespace krylov {

using count_t = std::int64_t;

// NaN - NaN and Inf - Inf are NaN, a finite v - v is 0 (no fast-math anywhere in the build).
template <class V>
__device__ __forceinline__ bool finite(V v) {
    return v - v == V(0);
}

// The block's sum of x, valid in thread 0.
template <class V>
__device__ __forceinline__ V block_sum(V x) {
    using Reduce = cub::BlockReduce<V, block_threads>;
    __shared__ typename Reduce::TempStorage tmp;
    return Reduce(tmp).Sum(x);
}

// The value of lane + off of the same width-lane group (a complex value: its two parts, one shuffle each).
template <class V>
__device__ __forceinline__ V shfl_down(V v, int off, int width) {
    if constexpr (is_complex_v<V>) {
        using R = real_t<V>;
        const R a = __shfl_down_sync(0xffffffffu, static_cast<R>(v.real()), off, width);
        const R b = __shfl_down_sync(0xffffffffu, static_cast<R>(v.imag()), off, width);
        return V(a, b);
    } else {
        return __shfl_down_sync(0xffffffffu, v, off, width);
    }
}

// Two sums of one block (one pass over the data, two reductions), valid in thread 0.
template <class V>
__device__ __forceinline__ void block_sum2(V& a, V& b) {
    using Reduce = cub::BlockReduce<V, block_threads>;
    __shared__ typename Reduce::TempStorage tmp;
    a = Reduce(tmp).Sum(a);
    __syncthreads();  // the storage is reused
    b = Reduce(tmp).Sum(b);
}

// ---------------------------------------------------------------- SpMV
// y_r = alpha (A x)_r + beta y_r (beta == 0: y_r is not read). Rows longer than long_row are left to
// spmv_long_rows_kernel. T lanes per row; a warp's loop condition is uniform (its first group's row),
// so every lane of the warp reaches each shuffle.
template <int T, class V, class I>
static __global__ void __launch_bounds__(block_threads)
    spmv_vector_kernel(count_t nrows, const offset_t* __restrict__ rp, const I* __restrict__ ci, const V* __restrict__ val,
                       const V* __restrict__ x, V* __restrict__ y, V alpha, V beta, count_t long_row, const int* __restrict__ skip) {
    if (skip && *skip) return;  // a stopped solve (uniform over the grid)
    const count_t thread = static_cast<count_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const count_t groups = static_cast<count_t>(gridDim.x) * blockDim.x / T;
    const count_t warp_first = (thread - threadIdx.x % 32) / T;  // the group of the warp's lane 0
    const int lane = static_cast<int>(threadIdx.x % T);
    for (count_t base = 0; warp_first + base < nrows; base += groups) {
        const count_t row = thread / T + base;
        const bool mine = row < nrows;
        count_t begin = 0, end = 0;
        if (mine) {
            begin = rp[row];
            end = rp[row + 1];
        }
        const bool is_long = end - begin > long_row;
        V sum = V(0);
        if (!is_long)
            for (count_t k = begin + lane; k < end; k += T) sum += val[k] * x[ci[k]];
        if constexpr (T > 1) {
            for (int off = T / 2; off > 0; off /= 2) sum += shfl_down(sum, off, T);
        }
        if (mine && !is_long && lane == 0) y[row] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[row];
    }
}

// Lists the rows longer than long_row (in any order: each is then summed by one block alone).
template <class I>
static __global__ void long_rows_kernel(count_t nrows, const offset_t* __restrict__ rp, count_t long_row, count_t* __restrict__ rows,
                                        unsigned long long* __restrict__ count) {
    const count_t stride = static_cast<count_t>(gridDim.x) * blockDim.x;
    for (count_t r = static_cast<count_t>(blockIdx.x) * blockDim.x + threadIdx.x; r < nrows; r += stride)
        if (rp[r + 1] - rp[r] > long_row) rows[atomicAdd(count, 1ull)] = r;
}

template <class V, class I>
static __global__ void __launch_bounds__(block_threads)
    spmv_long_rows_kernel(const count_t* __restrict__ rows, const offset_t* __restrict__ rp, const I* __restrict__ ci,
                          const V* __restrict__ val, const V* __restrict__ x, V* __restrict__ y, V alpha, V beta, const int* __restrict__ skip) {
    if (skip && *skip) return;
    const count_t row = rows[blockIdx.x];
    const count_t end = rp[row + 1];
    V sum = V(0);
    for (count_t k = rp[row] + threadIdx.x; k < end; k += block_threads) sum += val[k] * x[ci[k]];
    sum = block_sum(sum);
    if (threadIdx.x == 0) y[row] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[row];
}

// ---------------------------------------------------------------- Jacobi
// dinv_r = 1 / (sum of row r's diagonal entries); a zero, missing or non-finite diagonal counts as
// bad (dinv_r = 0) and the first such row is kept in *first_bad (initialized to nrows).
template <class V, class I>
static __global__ void jacobi_kernel(count_t nrows, const offset_t* __restrict__ rp, const I* __restrict__ ci, const V* __restrict__ val,
                                     V* __restrict__ dinv, unsigned long long* __restrict__ first_bad) {
    const count_t stride = static_cast<count_t>(gridDim.x) * blockDim.x;
    for (count_t r = static_cast<count_t>(blockIdx.x) * blockDim.x + threadIdx.x; r < nrows; r += stride) {
        V d = V(0);
        for (count_t k = rp[r]; k < rp[r + 1]; ++k)
            if (static_cast<count_t>(ci[k]) == r) d += val[k];
        const V inv = V(1) / d;
        const bool ok = d != V(0) && finite(d) && finite(inv);
        dinv[r] = ok ? inv : V(0);
        if (!ok) atomicMin(first_bad, static_cast<unsigned long long>(r));
    }
}

// ---------------------------------------------------------------- reductions
// partial[block] = the block's share of xᴴy (xᵀy for real values; grid = reduce_blocks(n)).
// skip (nullable): a solve's stop flag; when set the partial is 0 and nothing is read (the iterations queued
// after a stop cost their launches only).
template <class V>
static __global__ void __launch_bounds__(block_threads)
    dot_kernel(count_t n, const V* __restrict__ x, const V* __restrict__ y, V* __restrict__ partial, const int* __restrict__ skip) {
    if (skip && *skip) n = 0;
    const count_t stride = static_cast<count_t>(gridDim.x) * blockDim.x;
    V s = V(0);
    for (count_t i = static_cast<count_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) s += dconj(x[i]) * y[i];
    s = block_sum(s);
    if (threadIdx.x == 0) partial[blockIdx.x] = s;
}

// The two partial sums of xᴴy and zᴴw in one pass (skip as dot_kernel's).
template <class V>
static __global__ void __launch_bounds__(block_threads)
    dot2_kernel(count_t n, const V* __restrict__ x, const V* __restrict__ y, const V* __restrict__ z, const V* __restrict__ w, V* __restrict__ partial0,
                V* __restrict__ partial1, const int* __restrict__ skip) {
    if (skip && *skip) n = 0;
    const count_t stride = static_cast<count_t>(gridDim.x) * blockDim.x;
    V s0 = V(0), s1 = V(0);
    for (count_t i = static_cast<count_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        s0 += dconj(x[i]) * y[i];
        s1 += dconj(z[i]) * w[i];
    }
    block_sum2(s0, s1);
    if (threadIdx.x == 0) {
        partial0[blockIdx.x] = s0;
        partial1[blockIdx.x] = s1;
    }
}

// The sum of m partials in one block, in a fixed order.
template <class V>
__device__ __forceinline__ V finish_sum(count_t m, const V* __restrict__ partial) {
    V s = V(0);
    for (count_t i = threadIdx.x; i < m; i += block_threads) s += partial[i];
    return block_sum(s);
}

// Two sums of m partials each, valid in thread 0.
template <class V>
__device__ __forceinline__ void finish_sum2(count_t m, const V* __restrict__ partial0, const V* __restrict__ partial1, V& s0, V& s1) {
    s0 = finish_sum(m, partial0);
    __syncthreads();  // finish_sum's shared storage is reused
    s1 = finish_sum(m, partial1);
}

// *out = the sum of m partials.
template <class V>
static __global__ void __launch_bounds__(block_threads) sum_kernel(count_t m, const V* __restrict__ partial, V* __restrict__ out) {
    const V s = finish_sum(m, partial);
    if (threadIdx.x == 0) *out = s;
}

// ---------------------------------------------------------------- sweeps (ILU(0), IC(0), SGS)
// (skip, nullable, in the sweep kernels: a stopped solve's flag; nothing is done when it is set.)
// One level of a triangular sweep in place: for the rows of the level, y_i = (y_i - Σ T_ij y_j) / T_ii
// over the columns j before i (lower) or after it (upper); unit: T_ii = 1. The rows of a level depend
// only on earlier levels (earlier launches).
template <class V, class I>
static __global__ void sweep_level_kernel(count_t count, const count_t* __restrict__ rows, const offset_t* __restrict__ rp, const I* __restrict__ ci,
                                          const V* __restrict__ val, bool lower, bool unit, V* y, const int* __restrict__ skip) {
    if (skip && *skip) return;
    const count_t stride = static_cast<count_t>(gridDim.x) * blockDim.x;
    for (count_t k = static_cast<count_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += stride) {
        const count_t i = rows[k];
        V s = y[i], d = V(1);
        for (count_t e = rp[i]; e < rp[i + 1]; ++e) {
            const count_t j = ci[e];
            if (j == i) d = val[e];
            else if (lower ? j < i : j > i) s -= val[e] * y[j];
        }
        y[i] = unit ? s : s / d;
    }
}

// y_i = r_perm[i] (gather into the sweeps' numbering) or z_perm[i] = y_i (scatter back).
template <class V>
static __global__ void permute_kernel(count_t n, const count_t* __restrict__ perm, const V* __restrict__ from, V* __restrict__ to, bool gather,
                                      const int* __restrict__ skip) {
    if (skip && *skip) return;
    const count_t stride = static_cast<count_t>(gridDim.x) * blockDim.x;
    for (count_t i = static_cast<count_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        if (gather) to[i] = from[perm[i]];
        else to[perm[i]] = from[i];
    }
}

// y_i *= d_i (SGS's middle factor).
template <class V>
static __global__ void scale_kernel(count_t n, const V* __restrict__ d, V* __restrict__ y, const int* __restrict__ skip) {
    if (skip && *skip) return;
    const count_t stride = static_cast<count_t>(gridDim.x) * blockDim.x;
    for (count_t i = static_cast<count_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) y[i] *= d[i];
}

// ---------------------------------------------------------------- CG
// The scalars of a CG iteration, in device memory; the host reads a batch of iterations' copies at once.
template <class V>
struct CgState {
    V rz;     // rᵀz of the current residual
    V rz_old; // rᵀz before the last update (its zero is a breakdown)
    V pq;     // pᵀAp
    V alpha, beta;
    V rr;     // rᵀr
    int stop; // cg_stop_* bits; once set, every later kernel of the solve leaves x, r, p and the state as they are
};

// Why a CG stopped on the device (the host reads the bits in this order, as iterative::cg tests them):
// pᵀAp not finite or <= 0 (x and r not updated), ||r||² not finite, ||r||² <= (tol ||b||)², rᵀz = 0 before the update.
inline constexpr int cg_stop_pq = 1, cg_stop_converged = 2, cg_stop_rz = 4, cg_stop_nonfinite = 8;

// z = M⁻¹ r (z_ready: z already holds it, from the sweeps; else dinv: Jacobi; neither: z = r, nothing
// written when z aliases r), p = z, and the partial sums of rᵀz and rᵀr.
template <class V>
static __global__ void __launch_bounds__(block_threads)
    precond_dots_kernel(count_t n, const V* __restrict__ dinv, const V* r, V* z, bool z_ready, V* __restrict__ p, V* __restrict__ partial_rz,
                        V* __restrict__ partial_rr) {
    const count_t stride = static_cast<count_t>(gridDim.x) * blockDim.x;
    V rz = V(0), rr = V(0);
    for (count_t i = static_cast<count_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        const V ri = r[i];
        const V zi = z_ready ? z[i] : dinv ? dinv[i] * ri : ri;
        if (dinv && !z_ready) z[i] = zi;
        p[i] = zi;
        rz += dconj(ri) * zi;
        rr += dconj(ri) * ri;
    }
    block_sum2(rz, rr);
    if (threadIdx.x == 0) {
        partial_rz[blockIdx.x] = rz;
        partial_rr[blockIdx.x] = rr;
    }
}

// pᵀAp from its partials; alpha = rᵀz / pᵀAp, or a stop when pᵀAp is not finite or not positive.
template <class V>
static __global__ void __launch_bounds__(block_threads) cg_alpha_kernel(count_t m, const V* __restrict__ partial, CgState<V>* st) {
    const V pq = finish_sum(m, partial);
    if (threadIdx.x == 0 && st->stop == 0) {
        st->pq = pq;
        const bool ok = finite(pq) && re(pq) > 0;
        if (!ok) st->stop = cg_stop_pq;
        st->alpha = ok ? st->rz / pq : V(0);
    }
}

// x += alpha p, r -= alpha q, partial sums of rᵀr, and (z non-null) z = M⁻¹ r with the partial sums of
// rᵀz (z null: the sweeps compute z afterwards, and the rᵀz partials with it). Nothing moves after a stop.
template <class V>
static __global__ void __launch_bounds__(block_threads)
    cg_update_kernel(count_t n, const CgState<V>* __restrict__ st, const V* __restrict__ p, const V* __restrict__ q, V* __restrict__ x, V* r,
                     const V* __restrict__ dinv, V* z, V* __restrict__ partial_rz, V* __restrict__ partial_rr) {
    const bool go = st->stop == 0;
    const V alpha = st->alpha;
    const count_t stride = static_cast<count_t>(gridDim.x) * blockDim.x;
    V rz = V(0), rr = V(0);
    for (count_t i = static_cast<count_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        V ri = r[i];
        if (go) {
            x[i] += alpha * p[i];
            ri -= alpha * q[i];
            r[i] = ri;
        }
        if (z) {
            const V zi = dinv ? dinv[i] * ri : ri;
            if (dinv) z[i] = zi;
            rz += dconj(ri) * zi;
        }
        rr += dconj(ri) * ri;
    }
    block_sum2(rz, rr);
    if (threadIdx.x == 0) {
        if (z) partial_rz[blockIdx.x] = rz;
        partial_rr[blockIdx.x] = rr;
    }
}

// rᵀz and rᵀr of the new residual; beta = rz_new / rz (also the first residual's, from a zeroed state:
// first); the stop bits of this iteration; the state copied to *snapshot (the host reads a batch of them).
template <class V>
static __global__ void __launch_bounds__(block_threads) cg_beta_kernel(count_t m, const V* __restrict__ partial_rz, const V* __restrict__ partial_rr,
                                                                       double stop_norm2, bool first, CgState<V>* st, CgState<V>* snapshot) {
    V rz, rr;
    finish_sum2(m, partial_rz, partial_rr, rz, rr);
    if (threadIdx.x == 0) {
        if (st->stop == 0) {
            const V rz_old = st->rz;
            st->rr = rr;
            st->rz_old = rz_old;
            st->beta = rz_old == V(0) ? V(0) : rz / rz_old;
            st->rz = rz;
            if (!finite(rr)) st->stop |= cg_stop_nonfinite;
            else if (re(rr) <= stop_norm2) st->stop |= cg_stop_converged;
            if (!first && rz_old == V(0)) st->stop |= cg_stop_rz;
        }
        *snapshot = *st;
    }
}

// p = z + beta p.
template <class V>
static __global__ void cg_direction_kernel(count_t n, const CgState<V>* __restrict__ st, const V* __restrict__ z, V* __restrict__ p) {
    if (st->stop) return;
    const V beta = st->beta;
    const count_t stride = static_cast<count_t>(gridDim.x) * blockDim.x;
    for (count_t i = static_cast<count_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) p[i] = z[i] + beta * p[i];
}

// ---------------------------------------------------------------- BiCGStab
// The scalars of a BiCGStab iteration, in device memory; the host reads a batch of iterations' copies at once.
template <class V>
struct BicgState {
    V rho, rho_new, alpha, omega, beta;
    V rv;      // r̂ᵀv
    V ss;      // sᵀs
    V rr;      // rᵀr of the new residual
    int stop;  // bicg_stop_* bits; once bicg_stop_frozen is set, every later kernel of the solve returns at once
};

// Why a BiCGStab stopped on the device, in the order iterative::bicgstab tests them: rho = r̂ᵀr = 0; r̂ᵀv zero
// or not finite; ||s||² <= (tol ||b||)² (the last update is x += alpha p̂ only); ||r||² not finite;
// ||r||² <= (tol ||b||)²; omega = 0. frozen: set with any of them when the iteration ends.
inline constexpr int bicg_stop_rho = 1, bicg_stop_rv = 2, bicg_stop_s_converged = 4, bicg_stop_nonfinite = 8, bicg_stop_converged = 16,
                     bicg_stop_omega = 32, bicg_stop_frozen = 64;

template <class V>
static __global__ void __launch_bounds__(block_threads) bicg_rho_kernel(count_t m, const V* __restrict__ partial, BicgState<V>* st) {
    const V rho_new = finish_sum(m, partial);
    if (threadIdx.x == 0 && !st->stop) {
        st->rho_new = rho_new;
        if (rho_new == V(0)) st->stop = bicg_stop_rho;
        st->beta = (rho_new / st->rho) * (st->alpha / st->omega);
    }
}

// p = r + beta (p - omega v); p̂ = M⁻¹ p (phat == p without a preconditioner).
template <class V>
static __global__ void bicg_direction_kernel(count_t n, const BicgState<V>* __restrict__ st, const V* __restrict__ r, const V* __restrict__ v, V* p,
                                             const V* __restrict__ dinv, V* phat) {
    if (st->stop) return;
    const V beta = st->beta, omega = st->omega;
    const count_t stride = static_cast<count_t>(gridDim.x) * blockDim.x;
    for (count_t i = static_cast<count_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        const V pi = r[i] + beta * (p[i] - omega * v[i]);
        p[i] = pi;
        if (dinv) phat[i] = dinv[i] * pi;
    }
}

template <class V>
static __global__ void __launch_bounds__(block_threads) bicg_alpha_kernel(count_t m, const V* __restrict__ partial, BicgState<V>* st) {
    const V rv = finish_sum(m, partial);
    if (threadIdx.x == 0 && !st->stop) {
        st->rv = rv;
        if (rv == V(0) || !finite(rv)) st->stop = bicg_stop_rv;
        else st->alpha = st->rho_new / rv;
    }
}

// s = r - alpha v, ŝ = M⁻¹ s, partial sums of sᵀs.
template <class V>
static __global__ void __launch_bounds__(block_threads)
    bicg_s_kernel(count_t n, const BicgState<V>* __restrict__ st, const V* __restrict__ r, const V* __restrict__ v, V* s, const V* __restrict__ dinv,
                  V* shat, V* __restrict__ partial) {
    if (st->stop) return;  // the partials are read by bicg_snorm_kernel, which returns too
    const V alpha = st->alpha;
    const count_t stride = static_cast<count_t>(gridDim.x) * blockDim.x;
    V ss = V(0);
    for (count_t i = static_cast<count_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        const V si = r[i] - alpha * v[i];
        s[i] = si;
        if (dinv) shat[i] = dinv[i] * si;
        ss += dconj(si) * si;
    }
    ss = block_sum(ss);
    if (threadIdx.x == 0) partial[blockIdx.x] = ss;
}

// sᵀs; the solve is over after this iteration when ||s|| <= tol ||b||.
template <class V>
static __global__ void __launch_bounds__(block_threads) bicg_snorm_kernel(count_t m, const V* __restrict__ partial, double stop_norm2,
                                                                          BicgState<V>* st) {
    if (st->stop) return;
    const V ss = finish_sum(m, partial);
    if (threadIdx.x == 0) {
        st->ss = ss;
        if (re(ss) <= stop_norm2) st->stop = bicg_stop_s_converged;
    }
}

// omega = tᵀs / tᵀt (0 when tᵀt = 0).
template <class V>
static __global__ void __launch_bounds__(block_threads) bicg_omega_kernel(count_t m, const V* __restrict__ partial_tt, const V* __restrict__ partial_ts,
                                                                          BicgState<V>* st) {
    if (st->stop) return;
    V tt, ts;
    finish_sum2(m, partial_tt, partial_ts, tt, ts);
    if (threadIdx.x == 0) st->omega = tt == V(0) ? V(0) : ts / tt;
}

// x += alpha p̂ + omega ŝ, r = s - omega t, partial sums of rᵀr; after s converged only x += alpha p̂.
template <class V>
static __global__ void __launch_bounds__(block_threads)
    bicg_update_kernel(count_t n, const BicgState<V>* __restrict__ st, const V* __restrict__ phat, const V* __restrict__ shat, const V* __restrict__ s,
                       const V* __restrict__ t, V* __restrict__ x, V* __restrict__ r, V* __restrict__ partial) {
    const int stop = st->stop;
    const V alpha = st->alpha, omega = st->omega;
    const count_t stride = static_cast<count_t>(gridDim.x) * blockDim.x;
    if (stop == bicg_stop_s_converged)
        for (count_t i = static_cast<count_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) x[i] += alpha * phat[i];
    if (stop) return;  // the partials are read by bicg_finish_kernel only when no stop is set
    V rr = V(0);
    for (count_t i = static_cast<count_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        x[i] += alpha * phat[i] + omega * shat[i];
        const V ri = s[i] - omega * t[i];
        r[i] = ri;
        rr += dconj(ri) * ri;
    }
    rr = block_sum(rr);
    if (threadIdx.x == 0) partial[blockIdx.x] = rr;
}

// rᵀr of the new residual and the iteration's remaining stops; rho for the next iteration; any stop freezes
// the solve; the state copied to *snapshot (the host reads a batch of them).
template <class V>
static __global__ void __launch_bounds__(block_threads)
    bicg_finish_kernel(count_t m, const V* __restrict__ partial, double stop_norm2, BicgState<V>* st, BicgState<V>* snapshot) {
    const int stop = st->stop;
    __syncthreads();  // every thread has read the bits before thread 0 writes them
    if (stop & bicg_stop_frozen) {
        if (threadIdx.x == 0) *snapshot = *st;
        return;
    }
    const bool update = stop == 0;
    const V rr = update ? finish_sum(m, partial) : V(0);
    if (threadIdx.x == 0) {
        if (update) {
            st->rr = rr;
            if (!finite(rr)) st->stop = bicg_stop_nonfinite;
            else if (re(rr) <= stop_norm2) st->stop = bicg_stop_converged;
            else if (st->omega == V(0)) st->stop = bicg_stop_omega;
            st->rho = st->rho_new;
        }
        if (st->stop) st->stop |= bicg_stop_frozen;
        *snapshot = *st;
    }
}

// ---------------------------------------------------------------- GMRES
// The restart basis is one array, vector i at basis + i ld (ld >= n). skip (nullable) in the kernels of a step: the
// solve's stop flag; a stopped step does nothing (the steps queued after a stop only launch).
// Classical Gram–Schmidt's k dot products in one pass over w: partial[i gridDim + block] = the block's share
// of v_iᵀ w (grid = reduce_blocks(n), as dot_kernel's, so each sum's rounding is a function of n alone).
template <class V>
static __global__ void __launch_bounds__(block_threads) multi_dot_kernel(count_t n, const V* __restrict__ basis, count_t ld, int k, const V* __restrict__ w,
                                                                         V* __restrict__ partial, const int* __restrict__ skip) {
    if (skip && *skip) return;
    const count_t stride = static_cast<count_t>(gridDim.x) * blockDim.x;
    for (int i = 0; i < k; ++i) {
        const V* __restrict__ v = basis + i * ld;
        V s = V(0);
        for (count_t t = static_cast<count_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < n; t += stride) s += dconj(v[t]) * w[t];
        s = block_sum(s);
        if (threadIdx.x == 0) partial[static_cast<count_t>(i) * gridDim.x + blockIdx.x] = s;
        __syncthreads();  // block_sum's shared storage is reused by the next i
    }
}

// Block i (grid = k) sums the m partials of coefficient i: c[i] = the sum; h[i] = it (first) or h[i] + it.
template <class V>
static __global__ void __launch_bounds__(block_threads)
    multi_sum_kernel(count_t m, const V* __restrict__ partial, V* __restrict__ c, V* __restrict__ h, bool first, const int* __restrict__ skip) {
    if (skip && *skip) return;
    const V s = finish_sum(m, partial + static_cast<count_t>(blockIdx.x) * m);
    if (threadIdx.x == 0) {
        c[blockIdx.x] = s;
        h[blockIdx.x] = first ? s : h[blockIdx.x] + s;
    }
}

// w = beta w + alpha Σ_{i<k} c_i v_i (c in device memory; beta == 0: w is not read).
template <class V>
static __global__ void multi_axpby_kernel(count_t n, const V* __restrict__ basis, count_t ld, int k, const V* __restrict__ c, V alpha, V beta,
                                          V* __restrict__ w, const int* __restrict__ skip) {
    if (skip && *skip) return;
    const count_t stride = static_cast<count_t>(gridDim.x) * blockDim.x;
    for (count_t t = static_cast<count_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < n; t += stride) {
        V s = V(0);
        for (int i = 0; i < k; ++i) s += c[i] * basis[i * ld + t];
        w[t] = beta == V(0) ? alpha * s : beta * w[t] + alpha * s;
    }
}

// z = d ∘ u (Jacobi's M⁻¹ u).
template <class V>
static __global__ void diag_apply_kernel(count_t n, const V* __restrict__ d, const V* __restrict__ u, V* __restrict__ z, const int* __restrict__ skip) {
    if (skip && *skip) return;
    const count_t stride = static_cast<count_t>(gridDim.x) * blockDim.x;
    for (count_t t = static_cast<count_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < n; t += stride) z[t] = d[t] * u[t];
}

// One step of a GMRES cycle as the device sees it: its residual norm and H(j + 1, j), and why it stopped.
template <class V>
struct GmresState {
    V rnorm;   // |g[j + 1]|: the residual norm of the cycle's iterate after the step (recurrence)
    V hn;      // ||w|| after the Gram–Schmidt passes: H(j + 1, j), the next basis vector's divisor
    int stop;  // gmres_stop_* bits; once set, every later kernel of the cycle leaves the basis and the rotations as they are
};

// The host reads them in this order, as iterative::gmres tests them: the residual norm not finite; at or below
// tol ||b||; H(j + 1, j) = 0 (the Krylov space exhausted: the cycle ends there).
inline constexpr int gmres_stop_nonfinite = 1, gmres_stop_converged = 2, gmres_stop_lucky = 4;

// The least-squares problem of one cycle in device memory (m columns): R column-major with m + 1 rows, the
// rotations, the rotated right-hand side g, the coefficients y.
template <class V>
struct GmresLsqRef {
    V* r;
    V* cs;
    V* sn;
    V* g;
    V* y;
    int m;
};

// A new cycle from a residual of norm beta: g = beta e_1, the state cleared.
template <class V>
static __global__ void gmres_start_kernel(GmresLsqRef<V> l, V beta, GmresState<V>* st) {
    for (int i = threadIdx.x; i <= l.m; i += blockDim.x) l.g[i] = i == 0 ? beta : V(0);
    if (threadIdx.x == 0) *st = GmresState<V>{};
}

// Step j's end (one block): ||w||² from the partials of its dot kernel, column j of R from the Gram–Schmidt
// coefficients h[0..j], the rotations (gmres_rotate_column, the host solver's), the stop bits (stop_norm = tol ||b||,
// compared in double as the host compares), the state copied to *snapshot (the host reads a batch of them).
template <class V>
static __global__ void __launch_bounds__(block_threads) gmres_rotate_kernel(count_t parts, const V* __restrict__ partial, const V* __restrict__ h, int j,
                                                                            GmresLsqRef<V> l, double stop_norm, GmresState<V>* st,
                                                                            GmresState<V>* snapshot) {
    const int stop = st->stop;
    __syncthreads();  // every thread has read the bits before thread 0 writes them
    if (stop) {
        if (threadIdx.x == 0) *snapshot = *st;
        return;
    }
    const V ww = finish_sum(parts, partial);
    if (threadIdx.x == 0) {
        const V hn = from_real<V>(sqrt(re(ww)));  // ||w||: real
        V* col = l.r + static_cast<count_t>(j) * (l.m + 1);
        for (int i = 0; i <= j; ++i) col[i] = h[i];
        const real_t<V> rnorm = iterative::gmres_rotate_column(col, 1, j, hn, l.cs, l.sn, l.g);
        st->rnorm = V(rnorm);
        st->hn = hn;
        if (!finite(rnorm)) st->stop = gmres_stop_nonfinite;
        else if (static_cast<double>(rnorm) <= stop_norm) st->stop = gmres_stop_converged;
        else if (hn == V(0)) st->stop = gmres_stop_lucky;
        *snapshot = *st;
    }
}

// The next basis vector v = w / H(j + 1, j).
template <class V>
static __global__ void gmres_next_kernel(count_t n, const GmresState<V>* __restrict__ st, const V* __restrict__ w, V* __restrict__ v) {
    if (st->stop) return;
    const V inv = V(1) / st->hn;
    const count_t stride = static_cast<count_t>(gridDim.x) * blockDim.x;
    for (count_t t = static_cast<count_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < n; t += stride) v[t] = inv * w[t];
}

// y = R⁻¹ g over the cycle's first j columns (one thread: j <= m back-substitution steps, the host solver's).
template <class V>
static __global__ void gmres_solve_kernel(GmresLsqRef<V> l, int j) {
    if (threadIdx.x == 0) iterative::gmres_back_substitute(l.r, 1, l.m + 1, l.g, l.y, j);
}

// ---------------------------------------------------------------- MINRES
// The scalars of a MINRES iteration (iterative::minres's, in double as the host's recurrences are), in device
// memory; the host reads a batch of iterations' copies at once. The vectors: v (the Lanczos vector), y (A v minus
// the recurrence's terms, then M⁻¹ of the new r2), r1 and r2 (the last two unpreconditioned Lanczos vectors), and
// the two latest directions wa (older) and wb.
template <class V>
struct MinresState {
    iterative::MinresRotation q;  // the recurrence (iterative::minres_rotate)
    double alfa;   // vᵀ A v
    double bb;     // r2ᵀ M⁻¹ r2 (its sign is the preconditioner's test)
    double rnorm;  // q.phibar on the 2-norm scale of b (the host records it)
    int move;      // 1: this iteration moves x (set by minres_step_kernel)
    int stop;      // minres_stop_* bits; once set, every later kernel of the solve leaves everything as it is
};

// Why a MINRES stopped on the device, in the order iterative::minres tests them: vᵀAv not finite; r2ᵀM⁻¹r2
// negative (the preconditioner is not positive definite) or not finite (x does not move for these two); the
// residual norm not finite; at or below tol ||b||; beta = 0 (the Krylov space exhausted).
inline constexpr int minres_stop_alfa = 1, minres_stop_bb = 2, minres_stop_nonfinite = 4, minres_stop_converged = 8, minres_stop_exhausted = 16;

// v = y / beta.
template <class V>
static __global__ void minres_v_kernel(count_t n, const MinresState<V>* __restrict__ st, const V* __restrict__ y, V* __restrict__ v,
                                       const int* __restrict__ skip) {
    if (skip && *skip) return;
    const V inv = from_real<V>(1 / st->q.beta);
    const count_t stride = static_cast<count_t>(gridDim.x) * blockDim.x;
    for (count_t t = static_cast<count_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < n; t += stride) v[t] = inv * y[t];
}

// y -= (beta / oldb) r1 (not in the first iteration: oldb = 0), and the partial sums of vᵀy (alfa).
template <class V>
static __global__ void __launch_bounds__(block_threads)
    minres_lanczos_kernel(count_t n, const MinresState<V>* __restrict__ st, const V* __restrict__ r1, const V* __restrict__ v, V* __restrict__ y,
                          V* __restrict__ partial, const int* __restrict__ skip) {
    if (skip && *skip) n = 0;
    const double oldb = n > 0 ? st->q.oldb : 0;
    const V c = oldb != 0 ? from_real<V>(-st->q.beta / oldb) : V(0);
    const count_t stride = static_cast<count_t>(gridDim.x) * blockDim.x;
    V s = V(0);
    for (count_t t = static_cast<count_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < n; t += stride) {
        V yt = y[t];
        if (c != V(0)) {
            yt += c * r1[t];
            y[t] = yt;
        }
        s += dconj(v[t]) * yt;
    }
    s = block_sum(s);
    if (threadIdx.x == 0) partial[blockIdx.x] = s;
}

// alfa = vᵀy from the partials.
template <class V>
static __global__ void __launch_bounds__(block_threads) minres_alfa_kernel(count_t m, const V* __restrict__ partial, MinresState<V>* st) {
    const V alfa = finish_sum(m, partial);
    if (threadIdx.x == 0 && st->stop == 0) st->alfa = re(alfa);  // vᴴAv: real for a Hermitian A
}

// The three-term recurrence's end: y -= (alfa / beta) r2; r1 = r2; r2 = y; then y = M⁻¹ r2 where M is Jacobi (dinv)
// or none (y = r2), with the partial sums of r2ᵀy; sweeps (precond_later): y is left to them, and so are the partials.
template <class V>
static __global__ void __launch_bounds__(block_threads)
    minres_shift_kernel(count_t n, const MinresState<V>* __restrict__ st, V* __restrict__ r1, V* __restrict__ r2, V* __restrict__ y,
                        const V* __restrict__ dinv, bool precond_later, V* __restrict__ partial, const int* __restrict__ skip) {
    if (skip && *skip) n = 0;
    const V c = n > 0 ? from_real<V>(-st->alfa / st->q.beta) : V(0);
    const count_t stride = static_cast<count_t>(gridDim.x) * blockDim.x;
    V s = V(0);
    for (count_t t = static_cast<count_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < n; t += stride) {
        const V yt = y[t] + c * r2[t];
        r1[t] = r2[t];
        r2[t] = yt;
        if (!precond_later) {
            const V z = dinv ? dinv[t] * yt : yt;
            y[t] = z;
            s += dconj(yt) * z;
        }
    }
    if (precond_later) return;
    s = block_sum(s);
    if (threadIdx.x == 0) partial[blockIdx.x] = s;
}

// One block, one thread's work: r2ᵀM⁻¹r2 from the partials and the iteration's tests in the host's order, the
// rotation of the tridiagonal's new column (iterative::minres's arithmetic), this iteration's direction update,
// the stop bits (stop_norm = tol ||b||, scale: the M⁻¹ norm's factor onto ||b||_2), the state copied to *snapshot.
template <class V>
static __global__ void __launch_bounds__(block_threads) minres_step_kernel(count_t m, const V* __restrict__ partial, double scale, double stop_norm,
                                                                           MinresState<V>* st, MinresState<V>* snapshot) {
    const int stop = st->stop;
    __syncthreads();  // every thread has read the bits before thread 0 writes them
    if (stop) {
        if (threadIdx.x == 0) {
            st->move = 0;
            *snapshot = *st;
        }
        return;
    }
    const V bb_sum = finish_sum(m, partial);
    if (threadIdx.x != 0) return;
    MinresState<V> s = *st;
    s.move = 0;
    s.bb = re(bb_sum);
    if (!finite(s.alfa)) {
        s.stop = minres_stop_alfa;
    } else if (!(s.bb >= 0)) {
        s.stop = minres_stop_bb;
    } else {
        iterative::minres_rotate(s.q, s.alfa, s.bb);
        s.rnorm = s.q.phibar * scale;
        s.move = 1;
        if (!finite(s.rnorm)) s.stop = minres_stop_nonfinite;
        else if (s.rnorm <= stop_norm) s.stop = minres_stop_converged;
        else if (s.q.beta == 0) s.stop = minres_stop_exhausted;
    }
    *st = s;
    *snapshot = s;
}

// The new direction wn = (v - oldeps wa - delta wb) / gamma, shifted in (wa = wb, wb = wn), and x += phi wn; only when
// this iteration moves x.
template <class V>
static __global__ void minres_update_kernel(count_t n, const MinresState<V>* __restrict__ st, const V* __restrict__ v, V* __restrict__ wa,
                                            V* __restrict__ wb, V* __restrict__ x) {
    if (!st->move) return;
    const iterative::MinresRotation& q = st->q;
    const V g = from_real<V>(1 / q.gamma), ca = from_real<V>(q.oldeps), cb = from_real<V>(q.delta), phi = from_real<V>(q.phi);
    const count_t stride = static_cast<count_t>(gridDim.x) * blockDim.x;
    for (count_t t = static_cast<count_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < n; t += stride) {
        const V b = wb[t];
        const V wn = g * (v[t] - ca * wa[t] - cb * b);
        wa[t] = b;
        wb[t] = wn;
        x[t] += phi * wn;
    }
}

// y = alpha x + beta y (beta == 0: y is not read).
template <class V>
static __global__ void axpby_kernel(count_t n, V alpha, const V* __restrict__ x, V beta, V* __restrict__ y) {
    const count_t stride = static_cast<count_t>(gridDim.x) * blockDim.x;
    for (count_t t = static_cast<count_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < n; t += stride)
        y[t] = beta == V(0) ? alpha * x[t] : alpha * x[t] + beta * y[t];
}

}  // namespace krylov
}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace gigasparse::cuda
