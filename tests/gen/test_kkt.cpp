// tests/gen/test_kkt.cpp: KKT generator: block structure, exact symmetry, SPD (1,1) block, inertia via LAPACK dsytrf.
#include <cmath>
#include <complex>
#include <cstddef>

#include <gtest/gtest.h>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>
#include <gigasparse/gen/generators.hpp>

#include "gen/checks.hpp"
#include "utils/test_utils.hpp"

extern "C" void dsytrf_(const char* uplo, const int* n, double* a, const int* lda, int* ipiv, double* work, const int* lwork, int* info,
                        std::size_t uplo_len);

namespace gs = gigasparse;
namespace gen = gigasparse::gen;

namespace {
gen::KktOptions small(std::int64_t n, std::int64_t m, double delta, std::uint64_t seed) {
    gen::KktOptions o;
    o.n = n;
    o.m = m;
    o.delta = delta;
    o.seed = seed;
    return o;
}

struct Inertia {
    int positive = 0, negative = 0, zero = 0;
};

// Inertia from the Bunch–Kaufman D of A = L D Lᵀ (Sylvester): 1x1 blocks by sign, 2x2 blocks by determinant.
Inertia inertia(const gs::Csr<double, int>& a) {
    const int n = static_cast<int>(a.nrows);
    std::vector<double> d(static_cast<std::size_t>(n) * n, 0.0);
    for (int i = 0; i < n; ++i)
        for (gs::offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) d[i + static_cast<std::size_t>(a.col_idx[k]) * n] = a.values[k];
    std::vector<int> ipiv(n);
    int lwork = 64 * n, info = 0;
    std::vector<double> work(lwork);
    dsytrf_("L", &n, d.data(), &n, ipiv.data(), work.data(), &lwork, &info, 1);
    EXPECT_GE(info, 0);
    Inertia r;
    auto at = [&](int i, int j) { return d[i + static_cast<std::size_t>(j) * n]; };
    for (int k = 0; k < n; ++k) {
        if (ipiv[k] > 0) {
            (at(k, k) > 0 ? r.positive : at(k, k) < 0 ? r.negative : r.zero) += 1;
        } else {  // 2x2 block at rows k, k+1
            const double det = at(k, k) * at(k + 1, k + 1) - at(k + 1, k) * at(k + 1, k);
            if (det < 0) r.positive += 1, r.negative += 1;
            else if (at(k, k) + at(k + 1, k + 1) > 0) r.positive += 2;
            else r.negative += 2;
            ++k;
        }
    }
    return r;
}
}  // namespace

TEST(Kkt, BlockStructureAndSymmetry) {
    const std::int64_t n = 60, m = 20;
    const double delta = 1e-3;
    const auto a = gen::kkt<double, int>(small(n, m, delta, 4));
    ASSERT_EQ(a.nrows, n + m);
    ASSERT_EQ(a.ncols, n + m);
    EXPECT_NO_THROW(gs::validate(a.view()));
    EXPECT_TRUE(gs::test::exactly_symmetric(a));
    for (std::int64_t i = 0; i < n; ++i) {  // H: positive diagonal, strictly diagonally dominant
        double diag = 0, off = 0;
        for (gs::offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
            if (a.col_idx[k] == i) diag = a.values[k];
            else if (a.col_idx[k] < n) off += std::abs(a.values[k]);
        EXPECT_GT(diag, off) << "row " << i;
    }
    for (std::int64_t i = n; i < n + m; ++i) {  // [A  -δI]: exactly one entry in the (2,2) block, on the diagonal
        std::int64_t in_a = 0;
        for (gs::offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
            if (a.col_idx[k] < n) ++in_a;
            else {
                EXPECT_EQ(a.col_idx[k], i);
                EXPECT_EQ(a.values[k], -delta);
            }
        }
        EXPECT_GE(in_a, 1) << "constraint row " << i;
        EXPECT_LT(gs::test::entry(a, i, i), 0);
    }
}

TEST(Kkt, InertiaIsNPositiveMNegative) {
    for (std::uint64_t seed : {1u, 2u, 3u}) {
        SCOPED_TRACE(gs::test::seed_trace(seed));
        for (double delta : {1e-8, 0.5}) {
            const auto in = inertia(gen::kkt<double, int>(small(40, 15, delta, seed)));
            EXPECT_EQ(in.positive, 40);
            EXPECT_EQ(in.negative, 15);
            EXPECT_EQ(in.zero, 0);
        }
    }
}

TEST(Kkt, DeterminismIndexAndValueTypes) {
    const auto o = small(200, 50, 1e-8, 6);
    const auto a = gen::kkt<double, int>(o);
    EXPECT_TRUE(gs::equal(a.view(), gen::kkt<double, int>(o).view()));
    EXPECT_FALSE(gs::equal(a.view(), gen::kkt<double, int>(small(200, 50, 1e-8, 7)).view()));
    EXPECT_TRUE(gs::equal(gs::convert_index<std::int64_t>(a.view()).view(), gen::kkt<double, std::int64_t>(o).view()));
    const auto c = gen::kkt<std::complex<double>, int>(o);  // real values: symmetric and Hermitian
    EXPECT_TRUE(gs::test::exactly_symmetric(c));
    EXPECT_TRUE(gs::equal(c.view(), gs::transpose(c.view(), true).view()));
    EXPECT_EQ((gen::kkt<double, int>(small(0, 0, 0, 1)).nrows), 0);
}

TEST(Kkt, RejectsBadArguments) {
    EXPECT_THROW((gen::kkt<double, int>(small(-1, 3, 0, 1))), gs::InvalidArgument);
    EXPECT_THROW((gen::kkt<double, int>(small(5, -3, 0, 1))), gs::InvalidArgument);
    EXPECT_THROW((gen::kkt<double, int>(small(5, 3, -1, 1))), gs::InvalidArgument);
    EXPECT_THROW((gen::kkt<double, int>(small(0, 3, 0, 1))), gs::InvalidArgument);
    EXPECT_THROW((gen::kkt<double, std::int32_t>(small(std::int64_t{1} << 31, 1, 0, 1))), gs::OutOfMemory);
}
