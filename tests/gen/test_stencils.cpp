// tests/gen/test_stencils.cpp: Poisson, anisotropic and convection–diffusion generators: exact counts, values, symmetry, M-matrix.
#include <cmath>
#include <complex>
#include <limits>

#include <gtest/gtest.h>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>
#include <gigasparse/gen/generators.hpp>

#include "gen/checks.hpp"
#include "utils/test_utils.hpp"

namespace gs = gigasparse;
namespace gen = gigasparse::gen;
using gs::test::entry;
using gs::test::exactly_symmetric;
using gs::test::row_lengths;
using gs::test::row_sum;

TEST(Poisson2d, FivePointHandExample) {
    const auto a = gen::poisson2d<double, int>(2, 2);
    const std::vector<std::vector<double>> expected{{4, -1, -1, 0}, {-1, 4, 0, -1}, {-1, 0, 4, -1}, {0, -1, -1, 4}};
    EXPECT_EQ(gs::test::to_dense(a.view()), expected);
}

TEST(Poisson2d, ExactNnzFormulas) {
    for (std::int64_t n : {1, 2, 3, 7, 16}) {
        SCOPED_TRACE("n = " + std::to_string(n));
        const auto five = gen::poisson2d<double, int>(n, n, 5);
        EXPECT_EQ(five.nrows, n * n);
        EXPECT_EQ(five.nnz(), 5 * n * n - 4 * n);  // 5n² - 4n
        const auto nine = gen::poisson2d<double, int>(n, n, 9);
        EXPECT_EQ(nine.nnz(), (3 * n - 2) * (3 * n - 2));  // (3n-2)²
    }
    const auto r = gen::poisson2d<double, int>(5, 3);
    EXPECT_EQ(r.nnz(), 5 * 5 * 3 - 2 * 5 - 2 * 3);  // 5 nx ny - 2 nx - 2 ny
}

TEST(Poisson3d, ExactNnzFormulas) {
    for (std::int64_t n : {1, 2, 3, 6}) {
        SCOPED_TRACE("n = " + std::to_string(n));
        const auto seven = gen::poisson3d<double, int>(n, n, n, 7);
        EXPECT_EQ(seven.nrows, n * n * n);
        EXPECT_EQ(seven.nnz(), 7 * n * n * n - 6 * n * n);  // 7n³ - 6n²
        const auto all = gen::poisson3d<double, int>(n, n, n, 27);
        EXPECT_EQ(all.nnz(), (3 * n - 2) * (3 * n - 2) * (3 * n - 2));  // (3n-2)³
    }
    const auto r = gen::poisson3d<double, int>(4, 3, 2, 27);
    EXPECT_EQ(r.nnz(), (3 * 4 - 2) * (3 * 3 - 2) * (3 * 2 - 2));
}

// Interior rows (full stencil) sum to 0, boundary rows to a positive number; diagonal as documented.
template <class V, class I>
void expect_laplacian_rows(const gs::Csr<V, I>& a, int points, double diag) {
    ASSERT_NO_THROW(gs::validate(a.view()));
    EXPECT_TRUE(exactly_symmetric(a));
    const auto len = row_lengths(a);
    std::int64_t interior = 0;
    for (std::int64_t i = 0; i < a.nrows; ++i) {
        EXPECT_EQ(entry(a, i, i), V(diag)) << "row " << i;
        if (len[i] == points) {
            ++interior;
            EXPECT_EQ(row_sum(a, i), V(0)) << "interior row " << i;
        } else {
            EXPECT_GT(std::real(row_sum(a, i)), 0) << "boundary row " << i;
        }
    }
    EXPECT_GT(interior, 0);
}

TEST(Poisson, SymmetricWithZeroInteriorRowSums) {
    expect_laplacian_rows(gen::poisson2d<double, int>(6, 5, 5), 5, 4);
    expect_laplacian_rows(gen::poisson2d<double, int>(6, 5, 9), 9, 8);
    expect_laplacian_rows(gen::poisson3d<double, int>(4, 5, 3, 7), 7, 6);
    expect_laplacian_rows(gen::poisson3d<float, std::int64_t>(4, 3, 5, 27), 27, 26);
    expect_laplacian_rows(gen::poisson3d<std::complex<double>, int>(3, 3, 3, 27), 27, 26);
}

TEST(Poisson, Int64MatchesInt32AndEmptyGrids) {
    const auto a32 = gen::poisson3d<double, std::int32_t>(5, 4, 3, 27);
    const auto a64 = gen::poisson3d<double, std::int64_t>(5, 4, 3, 27);
    EXPECT_TRUE(gs::equal(gs::convert_index<std::int64_t>(a32.view()).view(), a64.view()));
    const auto e = gen::poisson2d<double, int>(0, 7);
    EXPECT_EQ(e.nrows, 0);
    EXPECT_EQ(e.nnz(), 0);
}

TEST(Poisson, RejectsBadArguments) {
    EXPECT_THROW((gen::poisson2d<double, int>(-1, 3)), gs::InvalidArgument);
    EXPECT_THROW((gen::poisson2d<double, int>(3, 3, 7)), gs::InvalidArgument);
    EXPECT_THROW((gen::poisson3d<double, int>(3, 3, -2)), gs::InvalidArgument);
    EXPECT_THROW((gen::poisson3d<double, int>(3, 3, 3, 9)), gs::InvalidArgument);
    // 2000³ rows do not fit int32; (2^30)³ does not even fit a 64-bit count.
    EXPECT_THROW((gen::poisson3d<double, std::int32_t>(2000, 2000, 2000)), gs::OutOfMemory);
    const std::int64_t big = std::int64_t{1} << 30;
    EXPECT_THROW((gen::poisson3d<double, std::int64_t>(big, big, big)), gs::OutOfMemory);
}

TEST(Anisotropic2d, EntriesAndSymmetry) {
    const double eps = 0.01;
    const auto a = gen::anisotropic2d<double, int>(5, 4, eps);
    EXPECT_EQ(a.nnz(), 5 * 5 * 4 - 2 * 5 - 2 * 4);
    EXPECT_TRUE(exactly_symmetric(a));
    const std::int64_t i = 2 + 5 * 1;  // interior point (2, 1)
    EXPECT_DOUBLE_EQ(entry(a, i, i), 2 * eps + 2);
    EXPECT_DOUBLE_EQ(entry(a, i, i - 1), -eps);
    EXPECT_DOUBLE_EQ(entry(a, i, i + 1), -eps);
    EXPECT_DOUBLE_EQ(entry(a, i, i - 5), -1);
    EXPECT_DOUBLE_EQ(entry(a, i, i + 5), -1);
    EXPECT_NEAR(row_sum(a, i), 0, 1e-15);
    EXPECT_THROW((gen::anisotropic2d<double, int>(3, 3, 0)), gs::InvalidArgument);
    EXPECT_THROW((gen::anisotropic2d<double, int>(3, 3, std::nan(""))), gs::InvalidArgument);
}

TEST(ConvectionDiffusion, UpwindEntries2d) {
    const std::int64_t n = 4;
    const double h = 1.0 / (n + 1), bx = 100, by = 50;
    const auto a = gen::convection_diffusion<double, int>(n, n, 0, bx, by, 0);
    EXPECT_EQ(a.nnz(), 5 * n * n - 4 * n);
    const std::int64_t i = 1 + n * 2;  // interior point (1, 2)
    EXPECT_DOUBLE_EQ(entry(a, i, i), 4 + h * bx + h * by);
    EXPECT_DOUBLE_EQ(entry(a, i, i - 1), -1 - h * bx);  // west (upstream)
    EXPECT_DOUBLE_EQ(entry(a, i, i + 1), -1);           // east
    EXPECT_DOUBLE_EQ(entry(a, i, i - n), -1 - h * by);  // south (upstream)
    EXPECT_DOUBLE_EQ(entry(a, i, i + n), -1);           // north
    // Reversed flow: the upstream side is east / north.
    const auto r = gen::convection_diffusion<double, int>(n, n, 0, -bx, -by, 0);
    EXPECT_DOUBLE_EQ(entry(r, i, i + 1), -1 - h * bx);
    EXPECT_DOUBLE_EQ(entry(r, i, i - 1), -1);
    EXPECT_DOUBLE_EQ(entry(r, i, i + n), -1 - h * by);
}

TEST(ConvectionDiffusion, ZeroVelocityIsPoisson) {
    EXPECT_TRUE(gs::equal(gen::convection_diffusion<double, int>(5, 4, 0, 0, 0, 0).view(), gen::poisson2d<double, int>(5, 4).view()));
    EXPECT_TRUE(gs::equal(gen::convection_diffusion<double, int>(3, 4, 5, 0, 0, 0).view(), gen::poisson3d<double, int>(3, 4, 5).view()));
}

// Dense A⁻¹ by Gauss–Jordan without pivoting (fine for diagonally dominant M-matrices).
std::vector<std::vector<double>> dense_inverse(const gs::Csr<double, int>& a) {
    const auto n = static_cast<std::size_t>(a.nrows);
    auto m = gs::test::to_dense(a.view());
    std::vector<std::vector<double>> inv(n, std::vector<double>(n, 0.0));
    for (std::size_t i = 0; i < n; ++i) inv[i][i] = 1;
    for (std::size_t k = 0; k < n; ++k) {
        const double p = m[k][k];
        for (std::size_t j = 0; j < n; ++j) m[k][j] /= p, inv[k][j] /= p;
        for (std::size_t i = 0; i < n; ++i) {
            if (i == k || m[i][k] == 0) continue;
            const double f = m[i][k];
            for (std::size_t j = 0; j < n; ++j) m[i][j] -= f * m[k][j], inv[i][j] -= f * inv[k][j];
        }
    }
    return inv;
}

// Unsymmetric M-matrix: positive diagonal, non-positive off-diagonals, (weak) row diagonal
// dominance that is strict on some row, and A⁻¹ >= 0 entrywise.
void expect_unsymmetric_m_matrix(const gs::Csr<double, int>& a) {
    ASSERT_NO_THROW(gs::validate(a.view()));
    EXPECT_FALSE(exactly_symmetric(a));
    bool strict = false;
    for (std::int64_t i = 0; i < a.nrows; ++i) {
        double diag = 0, off = 0;
        for (gs::offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
            if (a.col_idx[k] == i) diag = a.values[k];
            else {
                EXPECT_LE(a.values[k], 0) << "row " << i;
                off += std::abs(a.values[k]);
            }
        }
        EXPECT_GT(diag, 0) << "row " << i;
        EXPECT_GE(diag, off * (1 - 1e-14)) << "row " << i;
        strict |= diag > off * (1 + 1e-12);
    }
    EXPECT_TRUE(strict);
    for (const auto& row : dense_inverse(a))
        for (double v : row) EXPECT_GE(v, -1e-12);
}

TEST(ConvectionDiffusion, IsUnsymmetricMMatrix) {
    expect_unsymmetric_m_matrix(gen::convection_diffusion<double, int>(6, 5, 0, 100, 100, 0));
    expect_unsymmetric_m_matrix(gen::convection_diffusion<double, int>(6, 5, 0, -1000, 500, 0));
    expect_unsymmetric_m_matrix(gen::convection_diffusion<double, int>(4, 3, 5, 10, -20, 30));
}

TEST(ConvectionDiffusion, ThreeDimensionalCountsAndBadArguments) {
    const auto a = gen::convection_diffusion<double, std::int64_t>(4, 4, 4, 1, 2, 3);
    EXPECT_EQ(a.nnz(), 7 * 64 - 6 * 16);
    const double h = 1.0 / 5;
    const std::int64_t i = 1 + 4 * (1 + 4 * 1);
    EXPECT_DOUBLE_EQ(entry(a, i, i), 6 + h * (1 + 2 + 3));
    EXPECT_DOUBLE_EQ(entry(a, i, i - 16), -1 - h * 3);
    EXPECT_THROW((gen::convection_diffusion<double, int>(4, 4, 0, 1, 1, 1)), gs::InvalidArgument);  // bz in 2D
    EXPECT_THROW((gen::convection_diffusion<double, int>(4, 4, 0, std::numeric_limits<double>::infinity(), 1, 0)), gs::InvalidArgument);
    EXPECT_THROW((gen::convection_diffusion<double, int>(4, -4, 0, 1, 1, 0)), gs::InvalidArgument);
}
