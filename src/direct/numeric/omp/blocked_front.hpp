// src/direct/numeric/omp/blocked_front.hpp: blocked right-looking partial Cholesky of one large front, in
// tiles of single-threaded BLAS calls run by a TaskPool.
//
// Why not the multithreaded BLAS: OpenBLAS 0.3.21's potrf and trsm reach a fraction of its gemm rate
// (measured on the 2-core VM, SkylakeX kernels: 1-thread dgemm 70 GF/s, dtrsm 19-21 GF/s, dpotrf(256)
// 18 GF/s), and a front of width w and m update rows spends its time in potrf (w³/3), trsm (m w²) and
// the update of the contribution block (m² w). Here every flop but the small diagonal blocks goes
// through gemm/herk tiles, and the tiles of a step are independent, so any number of threads gives the
// same result (the tiling does not depend on the thread count).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "direct/numeric/dense.hpp"
#include "direct/numeric/omp/task_pool.hpp"

namespace gigasparse::direct {

struct BlockedFrontParams {
    std::int64_t block = 256;   // panel block (columns factored per step) and tile width
    std::int64_t rows = 512;    // rows of one update / trsm tile
};

namespace blocked {

// X Lᴴ = B for X (rows x n, in place of B), L lower n x n: recursive, so that most flops are gemm.
template <class V>
void trsm_rlc(std::int64_t rows, std::int64_t n, const V* l, std::int64_t ldl, V* b, std::int64_t ldb) {
    if (rows <= 0 || n <= 0) return;
    if (n <= 64) {
        dense::trsm(CblasRight, CblasConjTrans, static_cast<int>(rows), static_cast<int>(n), l, static_cast<int>(ldl), b,
                    static_cast<int>(ldb));
        return;
    }
    const std::int64_t n1 = n / 2, n2 = n - n1;
    trsm_rlc(rows, n1, l, ldl, b, ldb);  // X1 = B1 L11⁻ᴴ
    dense::gemm_nc(static_cast<int>(rows), static_cast<int>(n2), static_cast<int>(n1), V(-1), b, static_cast<int>(ldb),
                   l + n1, static_cast<int>(ldl), V(1), b + n1 * ldb, static_cast<int>(ldb));  // B2 -= X1 L21ᴴ
    trsm_rlc(rows, n2, l + n1 + n1 * ldl, ldl, b + n1 * ldb, ldb);                          // X2 = B2 L22⁻ᴴ
}

// Lower Cholesky of an n x n block in place (recursive: herk/gemm do most of the work).
// Returns 0 or 1 + the local column where the pivot was not positive.
template <class V>
int potrf_rec(std::int64_t n, V* a, std::int64_t lda) {
    if (n <= 64) return dense::potrf(static_cast<int>(n), a, static_cast<int>(lda));
    const std::int64_t n1 = n / 2, n2 = n - n1;
    if (int info = potrf_rec(n1, a, lda)) return info;
    trsm_rlc(n2, n1, a, lda, a + n1, lda);  // L21 = A21 L11⁻ᴴ
    dense::herk_minus(static_cast<int>(n2), static_cast<int>(n1), a + n1, static_cast<int>(lda), a + n1 + n1 * lda,
                      static_cast<int>(lda));  // A22 -= L21 L21ᴴ
    if (int info = potrf_rec(n2, a + n1 + n1 * lda, lda)) return info + static_cast<int>(n1);
    return 0;
}

struct Tile {
    std::int64_t r0, r1, c0, c1;  // rows [r0, r1) x columns [c0, c1) of the updated matrix
};

// Tiles of the lower part of columns [c_begin, c_end) and rows [c, nrows) of an update: one herk tile
// per diagonal block, gemm tiles of at most prm.rows rows below it.
inline void lower_tiles(std::int64_t c_begin, std::int64_t c_end, std::int64_t nrows, const BlockedFrontParams& prm,
                        std::vector<Tile>& out) {
    out.clear();
    for (std::int64_t c0 = c_begin; c0 < c_end; c0 += prm.block) {
        const std::int64_t c1 = std::min(c_end, c0 + prm.block);
        out.push_back({c0, c1, c0, c1});
        for (std::int64_t r0 = c1; r0 < nrows; r0 += prm.rows) out.push_back({r0, std::min(nrows, r0 + prm.rows), c0, c1});
    }
}

// C[tile] -= A[rows of tile] A[columns of tile]ᴴ, A with k columns (ld lda), C with ld ldc.
template <class V>
void update_tile(const Tile& t, std::int64_t k, const V* a, std::int64_t lda, V* c, std::int64_t ldc) {
    if (t.r0 == t.c0)
        dense::herk_minus(static_cast<int>(t.c1 - t.c0), static_cast<int>(k), a + t.c0, static_cast<int>(lda),
                          c + t.c0 + t.c0 * ldc, static_cast<int>(ldc));
    else
        dense::gemm_nc(static_cast<int>(t.r1 - t.r0), static_cast<int>(t.c1 - t.c0), static_cast<int>(k), V(-1),
                       a + t.r0, static_cast<int>(lda), a + t.c0, static_cast<int>(lda), V(1), c + t.r0 + t.c0 * ldc,
                       static_cast<int>(ldc));
}

}  // namespace blocked

// Partial factorization of a front: the panel (f x w, ld f, assembled) becomes [L11; L21] and the
// contribution block cb (m x m, ld m, m = f - w, lower triangle assembled) becomes cb - L21 L21ᴴ.
// Returns 0 or 1 + the local column where the pivot was not positive.
template <class V>
std::int64_t blocked_front(std::int64_t f, std::int64_t w, V* panel, V* cb, const BlockedFrontParams& prm,
                           TaskPool& pool) {
    std::vector<blocked::Tile> tiles;
    for (std::int64_t k0 = 0; k0 < w; k0 += prm.block) {
        const std::int64_t kb = std::min(prm.block, w - k0);
        V* d = panel + k0 + k0 * f;
        if (int info = blocked::potrf_rec(kb, d, f)) return k0 + info;
        const std::int64_t r0 = k0 + kb;
        if (r0 >= f) break;
        // L[r0:f, k0:k0+kb] = A[r0:f, k0:k0+kb] L_kk⁻ᴴ, in row tiles.
        const std::int64_t nrt = (f - r0 + prm.rows - 1) / prm.rows;
        pool.run(nrt, [&](std::int64_t t) {
            const std::int64_t a = r0 + t * prm.rows, b = std::min(f, a + prm.rows);
            blocked::trsm_rlc(b - a, kb, d, f, panel + a + k0 * f, f);
        });
        // Trailing panel columns [r0, w): A[r0:f, r0:w] -= L[r0:f, k0:k0+kb] L[r0:w, k0:k0+kb]ᴴ.
        if (r0 < w) {
            blocked::lower_tiles(r0, w, f, prm, tiles);
            V* l = panel + k0 * f;  // column k0 of the panel: row i of L_{:,k0:k0+kb} at l + i
            pool.run(static_cast<std::int64_t>(tiles.size()),
                     [&](std::int64_t t) { blocked::update_tile(tiles[t], kb, l, f, panel, f); });
        }
    }
    const std::int64_t m = f - w;
    if (m > 0) {
        // cb -= L21 L21ᴴ with k = w (L21: panel rows w..f).
        blocked::lower_tiles(0, m, m, prm, tiles);
        const V* l21 = panel + w;
        pool.run(static_cast<std::int64_t>(tiles.size()),
                 [&](std::int64_t t) { blocked::update_tile(tiles[t], w, l21, f, cb, m); });
    }
    return 0;
}

}  // namespace gigasparse::direct
