// tests/reference/test_properties.cpp: reference kernels on seeded random matrices against dense loops and algebraic identities.
#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <span>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/reference/kernels.hpp>

#include "utils/test_utils.hpp"

namespace gs = gigasparse;
namespace ref = gigasparse::reference;
using gs::test::random_csr;
using gs::test::random_vector;
using gs::test::to_dense;

template <class V_, class I_>
struct Types {
    using V = V_;
    using I = I_;
};

template <class T>
class RefProperties : public ::testing::Test {};
using AllTypes = ::testing::Types<Types<double, std::int32_t>, Types<float, std::int32_t>, Types<double, std::int64_t>,
                                  Types<std::complex<double>, std::int32_t>, Types<std::complex<float>, std::int64_t>>;
TYPED_TEST_SUITE(RefProperties, AllTypes);

namespace {
template <class V>
double tolerance() {
    return std::is_same_v<gs::real_t<V>, float> ? 1e-4 : 1e-12;
}

template <class V>
::testing::AssertionResult vectors_near(const std::vector<V>& e, const std::vector<V>& a, double rtol) {
    double scale = 1e-300;
    for (const V& v : e) scale = std::max(scale, static_cast<double>(std::abs(v)));
    for (std::size_t i = 0; i < e.size(); ++i)
        if (!(static_cast<double>(std::abs(e[i] - a[i])) <= rtol * scale)) return ::testing::AssertionFailure() << "entry " << i << " differs";
    return ::testing::AssertionSuccess();
}

// Shapes (m, k, n) including empty and rectangular ones.
const std::vector<std::array<std::int64_t, 3>> shapes{{7, 5, 9}, {20, 20, 20}, {1, 30, 1}, {30, 1, 30}, {13, 0, 4}, {0, 6, 3}, {40, 25, 35}};
}  // namespace

TYPED_TEST(RefProperties, SpgemmMatchesDenseTripleLoop) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    for (std::uint64_t seed = 1; seed <= 6; ++seed)
        for (const auto& [m, k, n] : shapes) {
            SCOPED_TRACE(gs::test::seed_trace(seed) + " shape " + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n));
            const auto a = random_csr<V, I>(m, k, 3, seed, 0.2);
            const auto b = random_csr<V, I>(k, n, 3, seed + 100, 0.2);
            const auto c = ref::spgemm(a.view(), b.view());
            ASSERT_NO_THROW(gs::validate(c.view()));
            const auto da = to_dense(a.view()), db = to_dense(b.view()), dc = to_dense(c.view());
            for (std::int64_t i = 0; i < m; ++i)
                for (std::int64_t j = 0; j < n; ++j) {
                    V sum(0);
                    bool structural = false;
                    for (std::int64_t p = 0; p < k; ++p) {
                        sum += da[i][p] * db[p][j];  // C(i,j) = sum_p A(i,p) B(p,j)
                        structural |= da[i][p] != V(0) && db[p][j] != V(0);
                    }
                    ASSERT_LE(std::abs(sum - dc[i][j]), tolerance<V>() * 10) << "(" << i << ", " << j << ")";
                    if (!structural) {
                        ASSERT_EQ(dc[i][j], V(0));
                    }
                }
        }
}

TYPED_TEST(RefProperties, ProductTransposeIdentity) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
        SCOPED_TRACE(gs::test::seed_trace(seed));
        const auto a = random_csr<V, I>(25, 18, 4, seed, 0.1);
        const auto b = random_csr<V, I>(18, 30, 4, seed + 50, 0.1);
        const auto ab_t = gs::transpose(ref::spgemm(a.view(), b.view()).view());  // (AB)ᵀ
        const auto bt = gs::transpose(b.view()), at = gs::transpose(a.view());
        const auto bt_at = ref::spgemm(bt.view(), at.view());  // BᵀAᵀ
        EXPECT_TRUE(gs::test::csr_near(ab_t.view(), bt_at.view(), tolerance<V>()));
    }
}

TYPED_TEST(RefProperties, AssociativityWithVector) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
        SCOPED_TRACE(gs::test::seed_trace(seed));
        const auto a = random_csr<V, I>(22, 15, 4, seed, 0.1);
        const auto b = random_csr<V, I>(15, 19, 4, seed + 7, 0.1);
        const auto x = random_vector<V>(19, seed + 3);
        std::vector<V> bx(15), a_bx(22), ab_x(22, V(7));
        ref::spmv<V, I>(b.view(), x, bx);
        ref::spmv<V, I>(a.view(), bx, a_bx);  // A (B x)
        ref::spmv<V, I>(ref::spgemm(a.view(), b.view()).view(), x, ab_x);  // (A B) x
        EXPECT_TRUE(vectors_near(a_bx, ab_x, tolerance<V>() * 10));
    }
}

TYPED_TEST(RefProperties, SpmvAndAddMatchDense) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    const V alpha(0.5), beta(-2);
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        SCOPED_TRACE(gs::test::seed_trace(seed));
        const auto a = random_csr<V, I>(17, 23, 5, seed, 0.2);
        const auto b = random_csr<V, I>(17, 23, 5, seed + 9, 0.2);
        const auto x = random_vector<V>(23, seed);
        std::vector<V> y = random_vector<V>(17, seed + 1), expected = y;
        const auto da = to_dense(a.view()), db = to_dense(b.view());
        for (std::size_t i = 0; i < 17; ++i) {
            V s(0);
            for (std::size_t j = 0; j < 23; ++j) s += da[i][j] * x[j];
            expected[i] = alpha * s + beta * expected[i];  // y = alpha A x + beta y
        }
        ref::spmv<V, I>(a.view(), x, y, alpha, beta);
        EXPECT_TRUE(vectors_near(expected, y, tolerance<V>() * 10));
        const auto c = ref::add(a.view(), b.view(), alpha, beta);
        ASSERT_NO_THROW(gs::validate(c.view()));
        const auto dc = to_dense(c.view());
        for (std::size_t i = 0; i < 17; ++i)
            for (std::size_t j = 0; j < 23; ++j) ASSERT_LE(std::abs(alpha * da[i][j] + beta * db[i][j] - dc[i][j]), tolerance<V>());
    }
}

TYPED_TEST(RefProperties, TransposeOfTransposeIsIdentity) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
        SCOPED_TRACE(gs::test::seed_trace(seed));
        const auto a = random_csr<V, I>(31, 12, 3, seed, 0.3);
        EXPECT_TRUE(gs::equal(a.view(), gs::transpose(gs::transpose(a.view()).view()).view()));
        EXPECT_TRUE(gs::equal(a.view(), gs::transpose(gs::transpose(a.view(), true).view(), true).view()));
    }
}

TYPED_TEST(RefProperties, TriangularSolveResidual) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    for (std::uint64_t seed = 1; seed <= 5; ++seed)
        for (auto part : {gs::Triangle::lower, gs::Triangle::upper}) {
            SCOPED_TRACE(gs::test::seed_trace(seed));
            const std::int64_t n = 40;
            const auto t = gs::extract_triangle(random_csr<V, I>(n, n, 4, seed).view(), part, false);
            gs::Coo<V, I> diag{n, n, {}, {}, {}};
            for (std::int64_t i = 0; i < n; ++i) {
                diag.row.push_back(static_cast<I>(i));
                diag.col.push_back(static_cast<I>(i));
                diag.val.push_back(V(4 + i % 3));
            }
            const auto tri = ref::add(t.view(), gs::coo_to_csr(diag).view());  // T with diagonal 4..6
            const auto b = random_vector<V>(n, seed + 11);
            std::vector<V> x = b, tx(static_cast<std::size_t>(n));
            ASSERT_EQ(ref::triangular_solve(tri.view(), part, std::span<V>(x)), -1);
            ref::spmv<V, I>(tri.view(), x, tx);  // T x == b
            EXPECT_TRUE(vectors_near(b, tx, tolerance<V>() * 10));
        }
}
