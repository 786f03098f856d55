// src/gen/stencils.cpp: structured-grid operators: Poisson 2D/3D, anisotropic 2D, upwind convection–diffusion.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include <gigasparse/gen/generators.hpp>

#include "gen/common.hpp"

namespace gigasparse::gen {
namespace {

// A 3x3x3 stencil: slot (dx, dy, dz) in {-1, 0, 1}^3, present or not, with its weight.
struct Stencil {
    std::array<bool, 27> present{};
    std::array<double, 27> weight{};

    static int slot(int dx, int dy, int dz) { return (dz + 1) * 9 + (dy + 1) * 3 + (dx + 1); }
    void set(int dx, int dy, int dz, double w) {
        present[slot(dx, dy, dz)] = true;
        weight[slot(dx, dy, dz)] = w;
    }
};

// Grid point (x, y, z) of row i in lexicographic order, x fastest: i = x + nx*(y + ny*z).
struct Grid {
    std::int64_t nx, ny, nz;

    bool inside(std::int64_t x, std::int64_t y, std::int64_t z) const { return x >= 0 && x < nx && y >= 0 && y < ny && z >= 0 && z < nz; }
};

// Calls emit(column, weight) for each present neighbour of row i inside the grid, columns increasing
// (slots are visited in (dz, dy, dx) order, which is column order for x-fastest numbering).
template <class Emit>
void for_each_neighbour(const Grid& g, const Stencil& s, std::int64_t i, Emit emit) {
    const std::int64_t x = i % g.nx, y = (i / g.nx) % g.ny, z = i / (g.nx * g.ny);
    for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                const int k = Stencil::slot(dx, dy, dz);
                if (s.present[k] && g.inside(x + dx, y + dy, z + dz)) emit(i + dx + g.nx * (dy + g.ny * dz), s.weight[k]);
            }
}

// The matrix of stencil s on grid g with Dirichlet boundaries eliminated (missing neighbours dropped).
template <class V, class I>
Csr<V, I> stencil_matrix(const char* where, const Grid& g, const Stencil& s) {
    detail::require_nonnegative(where, "nx", g.nx);
    detail::require_nonnegative(where, "ny", g.ny);
    detail::require_nonnegative(where, "nz", g.nz);
    const std::int64_t n = detail::checked_product(where, g.nx, g.ny, g.nz);
    detail::require_fits_index<I>(where, n, n);
    auto count = [&](std::int64_t i) {
        offset_t len = 0;
        for_each_neighbour(g, s, i, [&](std::int64_t, double) { ++len; });
        return len;
    };
    auto fill = [&](std::int64_t i, I* cols, V* vals) {
        for_each_neighbour(g, s, i, [&](std::int64_t j, double w) {
            *cols++ = static_cast<I>(j);
            *vals++ = detail::from_real<V>(w);
        });
    };
    return detail::build_csr<V, I>(n, n, count, fill);
}

// Diagonal `diag`, -1 at every offset with |dx|+|dy|+|dz| <= max_l1 (dz = 0 only when planar).
Stencil laplacian(double diag, int max_l1, bool planar) {
    Stencil s;
    for (int dz = planar ? 0 : -1; dz <= (planar ? 0 : 1); ++dz)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                const int l1 = std::abs(dx) + std::abs(dy) + std::abs(dz);
                if (l1 == 0) s.set(0, 0, 0, diag);
                else if (l1 <= max_l1) s.set(dx, dy, dz, -1.0);
            }
    return s;
}

// Upwind coupling along one axis with velocity b and mesh width h (scaled by h^2):
// the upstream neighbour gets -1 - h|b|, the downstream one -1, the diagonal gains h|b|.
void add_axis(Stencil& s, int axis, double b, double h) {
    std::array<int, 3> minus{0, 0, 0}, plus{0, 0, 0};
    minus[axis] = -1;
    plus[axis] = 1;
    const double up = -1.0 - h * std::abs(b);
    s.set(minus[0], minus[1], minus[2], b > 0 ? up : -1.0);
    s.set(plus[0], plus[1], plus[2], b < 0 ? up : -1.0);
    s.weight[Stencil::slot(0, 0, 0)] += 2.0 + h * std::abs(b);
}

void require_finite(const char* where, const char* what, double x) {
    if (!std::isfinite(x)) throw InvalidArgument(std::string(where) + ": " + what + " must be finite");
}

}  // namespace

template <class V, class I>
Csr<V, I> poisson2d(std::int64_t nx, std::int64_t ny, int points) {
    if (points != 5 && points != 9) throw InvalidArgument("poisson2d: points must be 5 or 9, got " + std::to_string(points));
    // 5-point: 4 u_c - u_w - u_e - u_s - u_n;  9-point: 8 u_c - (all 8 neighbours)
    return stencil_matrix<V, I>("poisson2d", {nx, ny, 1}, laplacian(points == 5 ? 4.0 : 8.0, points == 5 ? 1 : 2, true));
}

template <class V, class I>
Csr<V, I> poisson3d(std::int64_t nx, std::int64_t ny, std::int64_t nz, int points) {
    if (points != 7 && points != 27) throw InvalidArgument("poisson3d: points must be 7 or 27, got " + std::to_string(points));
    // 7-point: 6 u_c - (6 face neighbours);  27-point: 26 u_c - (all 26 neighbours)
    return stencil_matrix<V, I>("poisson3d", {nx, ny, nz}, laplacian(points == 7 ? 6.0 : 26.0, points == 7 ? 1 : 3, false));
}

template <class V, class I>
Csr<V, I> anisotropic2d(std::int64_t nx, std::int64_t ny, double eps) {
    if (!std::isfinite(eps) || eps <= 0) throw InvalidArgument("anisotropic2d: eps must be finite and > 0, got " + std::to_string(eps));
    // (2 eps + 2) u_c - eps (u_w + u_e) - (u_s + u_n)
    Stencil s;
    s.set(0, 0, 0, 2 * eps + 2);
    s.set(-1, 0, 0, -eps);
    s.set(1, 0, 0, -eps);
    s.set(0, -1, 0, -1.0);
    s.set(0, 1, 0, -1.0);
    return stencil_matrix<V, I>("anisotropic2d", {nx, ny, 1}, s);
}

template <class V, class I>
Csr<V, I> convection_diffusion(std::int64_t nx, std::int64_t ny, std::int64_t nz, double bx, double by, double bz) {
    const char* where = "convection_diffusion";
    require_finite(where, "bx", bx);
    require_finite(where, "by", by);
    require_finite(where, "bz", bz);
    detail::require_nonnegative(where, "nz", nz);
    const bool planar = nz == 0;
    if (planar && bz != 0) throw InvalidArgument("convection_diffusion: bz must be 0 for the 2D problem (nz == 0)");
    // -Δu + b·∇u scaled by h^2, h = 1 / (max(nx, ny, nz) + 1): one mesh width in every direction.
    const double h = 1.0 / static_cast<double>(std::max({nx, ny, nz, std::int64_t{0}}) + 1);
    Stencil s;
    s.set(0, 0, 0, 0.0);
    add_axis(s, 0, bx, h);
    add_axis(s, 1, by, h);
    if (!planar) add_axis(s, 2, bz, h);
    return stencil_matrix<V, I>(where, {nx, ny, planar ? 1 : nz}, s);
}

#define GIGASPARSE_INSTANTIATE(V, I)                                                        \
    template Csr<V, I> poisson2d<V, I>(std::int64_t, std::int64_t, int);                    \
    template Csr<V, I> poisson3d<V, I>(std::int64_t, std::int64_t, std::int64_t, int);      \
    template Csr<V, I> anisotropic2d<V, I>(std::int64_t, std::int64_t, double);             \
    template Csr<V, I> convection_diffusion<V, I>(std::int64_t, std::int64_t, std::int64_t, \
                                                  double, double, double);
GIGASPARSE_FOR_EACH_VALUE_INDEX(GIGASPARSE_INSTANTIATE)
#undef GIGASPARSE_INSTANTIATE

}  // namespace gigasparse::gen
