// tests/spgemm_cuda_host/power_law.hpp: small seeded R-MAT-like and banded matrices for the gMAGNUS host and GPU tests.
#pragma once

#include <cstdint>
#include <random>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/matrix.hpp>

#include "utils/test_utils.hpp"

namespace gigasparse::test {

// R-MAT (a, b, c) = (0.57, 0.19, 0.19) on a 2^scale_r x 2^scale_c grid, about nnz_per_row * 2^scale_r
// edges before duplicate removal; values uniform in [-1, 1]. Skewed rows and columns.
template <class V, class I>
Csr<V, I> rmat_like(int scale_r, int scale_c, double nnz_per_row, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    Coo<V, I> coo;
    coo.nrows = std::int64_t(1) << scale_r;
    coo.ncols = std::int64_t(1) << scale_c;
    const auto edges = static_cast<std::int64_t>(nnz_per_row * static_cast<double>(coo.nrows));
    for (std::int64_t e = 0; e < edges; ++e) {
        std::int64_t r = 0, c = 0;
        for (int lvl = 0; lvl < (scale_r > scale_c ? scale_r : scale_c); ++lvl) {
            const double x = u(rng);
            const int q = x < 0.57 ? 0 : x < 0.76 ? 1 : x < 0.95 ? 2 : 3;
            if (lvl < scale_r) r = (r << 1) | (q >> 1);
            if (lvl < scale_c) c = (c << 1) | (q & 1);
        }
        coo.row.push_back(static_cast<I>(r));
        coo.col.push_back(static_cast<I>(c));
        coo.val.push_back(static_cast<V>(2.0 * u(rng) - 1.0));
    }
    return coo_to_csr(coo);
}


}  // namespace gigasparse::test
