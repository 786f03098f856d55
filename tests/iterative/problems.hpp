// tests/iterative/problems.hpp: the model problems of notes/iterative.md §5, generated exactly as the note defines them.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <vector>

#include <gigasparse/core/matrix.hpp>

namespace gigasparse::test {

// Row-by-row builder: entries pushed in increasing column order per row.
template <class V, class I>
struct RowBuilder {
    Csr<V, I> a;
    explicit RowBuilder(std::int64_t n) : a(n, n) { a.row_ptr.assign(1, 0); }
    void add(std::int64_t j, double v) {
        a.col_idx.push_back(static_cast<I>(j));
        a.values.push_back(static_cast<V>(v));
    }
    void end_row() { a.row_ptr.push_back(static_cast<offset_t>(a.col_idx.size())); }
};

// 5-point 2D operator on an n x n grid, x fastest: diag d, west w, east e, south s, north no.
template <class V, class I>
Csr<V, I> stencil2d(std::int64_t n, double d, double w, double e, double s, double no) {
    RowBuilder<V, I> b(n * n);
    for (std::int64_t y = 0; y < n; ++y)
        for (std::int64_t x = 0; x < n; ++x) {
            const std::int64_t i = y * n + x;
            if (y > 0) b.add(i - n, s);
            if (x > 0) b.add(i - 1, w);
            b.add(i, d);
            if (x + 1 < n) b.add(i + 1, e);
            if (y + 1 < n) b.add(i + n, no);
            b.end_row();
        }
    return b.a;
}

template <class V, class I>
Csr<V, I> poisson2d(std::int64_t n) { return stencil2d<V, I>(n, 4, -1, -1, -1, -1); }

// -eps u_xx - u_yy: diag 2 eps + 2, x-neighbours -eps, y-neighbours -1.
template <class V, class I>
Csr<V, I> anisotropic2d(std::int64_t n, double eps) { return stencil2d<V, I>(n, 2 * eps + 2, -eps, -eps, -1, -1); }

// Upwind convection–diffusion, b = (bx, by) > 0, h = 1/(n+1): diag 4 + h bx + h by, west -1 - h bx,
// south -1 - h by, east/north -1.
template <class V, class I>
Csr<V, I> convection_diffusion2d(std::int64_t n, double bx, double by) {
    const double h = 1.0 / double(n + 1);
    return stencil2d<V, I>(n, 4 + h * bx + h * by, -1 - h * bx, -1, -1 - h * by, -1);
}

// 3D 7-point (6 / -1) or 27-point (26 / -1) Poisson on n^3, x fastest.
template <class V, class I>
Csr<V, I> poisson3d(std::int64_t n, int points) {
    RowBuilder<V, I> b(n * n * n);
    const int r = 1;
    for (std::int64_t z = 0; z < n; ++z)
        for (std::int64_t y = 0; y < n; ++y)
            for (std::int64_t x = 0; x < n; ++x) {
                for (int dz = -r; dz <= r; ++dz)
                    for (int dy = -r; dy <= r; ++dy)
                        for (int dx = -r; dx <= r; ++dx) {
                            const int manhattan = std::abs(dx) + std::abs(dy) + std::abs(dz);
                            if (points == 7 && manhattan > 1) continue;
                            const std::int64_t xx = x + dx, yy = y + dy, zz = z + dz;
                            if (xx < 0 || yy < 0 || zz < 0 || xx >= n || yy >= n || zz >= n) continue;
                            b.add((zz * n + yy) * n + xx, manhattan == 0 ? (points == 7 ? 6.0 : 26.0) : -1.0);
                        }
                b.end_row();
            }
    return b.a;
}

}  // namespace gigasparse::test
