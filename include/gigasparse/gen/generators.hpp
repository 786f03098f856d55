// include/gigasparse/gen/generators.hpp: deterministic generators of test and benchmark matrices.
#pragma once

// Every generator is deterministic: the same arguments (and seed) give the same matrix on any
// machine and for any OpenMP thread count (fixed xoshiro256** streams, one per chunk or row).
// Outputs have sorted rows without duplicates. Errors: InvalidArgument for bad parameters,
// OutOfMemory when a dimension does not fit I (or a count overflows 64 bits). docs/generators.md
// lists the exact form of each matrix.

#include <cstdint>

#include <gigasparse/core/matrix.hpp>

namespace gigasparse::gen {

struct RmatOptions {
    int scale = 16;              // 2^scale vertices
    double edge_factor = 16;     // edges generated = edge_factor * 2^scale (before duplicate removal)
    double a = 0.57, b = 0.19, c = 0.19;  // Graph500 parameters; d = 1 - a - b - c
    bool permute_vertices = false;        // random relabelling of vertices
    bool symmetrize = false;              // A + Aᵀ pattern (undirected graph)
    std::uint64_t seed = 1;
};

// R-MAT power-law graph as a square CSR matrix with values 1: duplicates removed, self-loops kept.
// round(edge_factor * 2^scale) edges are drawn (so nnz <= that, or twice that when symmetrized);
// scale in [0, 40], a, b, c >= 0 with a + b + c <= 1. Vertex 0 is the hub unless permuted.
template <class V, class I>
Csr<V, I> rmat(const RmatOptions& options);

// Erdős–Rényi: each row gets `nnz_per_row` distinct uniformly random columns (G(n, m) style),
// values 1. A fractional nnz_per_row gives floor or floor + 1 per row (mean nnz_per_row); rows
// are capped at ncols.
template <class V, class I>
Csr<V, I> erdos_renyi(std::int64_t nrows, std::int64_t ncols, double nnz_per_row, std::uint64_t seed);

// 2D Poisson on an nx x ny grid (row x + nx*y), 5-point (4 on the diagonal, -1 off) or
// 9-point (8/-1) stencil; Dirichlet boundary rows keep the diagonal and lose missing neighbours.
template <class V, class I>
Csr<V, I> poisson2d(std::int64_t nx, std::int64_t ny, int points = 5);

// 3D Poisson on nx x ny x nz, 7-point (6/-1) or 27-point (26/-1) stencil.
template <class V, class I>
Csr<V, I> poisson3d(std::int64_t nx, std::int64_t ny, std::int64_t nz, int points = 7);

// Anisotropic 2D diffusion  -eps*u_xx - u_yy, 5-point: diagonal 2 eps + 2, x-neighbours -eps,
// y-neighbours -1; eps > 0.
template <class V, class I>
Csr<V, I> anisotropic2d(std::int64_t nx, std::int64_t ny, double eps);

// Convection–diffusion -Δu + (bx, by[, bz])·∇u with first-order upwind differences
// (unsymmetric, an M-matrix). nz == 0 gives the 2D problem (bz must then be 0). Scaled by h²
// with h = 1 / (max(nx, ny, nz) + 1): diagonal 2d + h(|bx| + |by| + |bz|), the upstream neighbour
// along each axis -1 - h|b|, the downstream one -1.
template <class V, class I>
Csr<V, I> convection_diffusion(std::int64_t nx, std::int64_t ny, std::int64_t nz, double bx, double by, double bz);

struct KktOptions {
    std::int64_t n = 1000;      // size of H (primal)
    std::int64_t m = 300;       // rows of the constraint block A
    double h_nnz_per_row = 5;   // random SPD H: sparse symmetric + diagonal dominance
    double a_nnz_per_row = 4;
    double delta = 1e-8;        // regularization: the (2,2) block is -delta * I
    std::uint64_t seed = 1;
};

// Symmetric indefinite saddle-point matrix [H Aᵀ; A -δI] (full storage, both triangles).
// Real values (also symmetric and Hermitian for complex V); H strictly diagonally dominant with
// positive diagonal (SPD); every row of A has at least one entry; the (2,2) diagonal is stored
// even when δ = 0. For δ > 0 the matrix is quasi-definite with inertia (n, m, 0).
template <class V, class I>
Csr<V, I> kkt(const KktOptions& options);

// Random sparse matrix with given shape and density, values uniform in [-1, 1] (real and
// imaginary parts for complex V); same pattern as erdos_renyi with the same arguments.
template <class V, class I>
Csr<V, I> random_sparse(std::int64_t nrows, std::int64_t ncols, double nnz_per_row, std::uint64_t seed);

}  // namespace gigasparse::gen
