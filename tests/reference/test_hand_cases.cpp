// tests/reference/test_hand_cases.cpp: hand-checkable SpMV, SpGEMM, add and triangular-solve cases of the reference backend.
#include <cmath>
#include <complex>
#include <limits>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>
#include <gigasparse/reference/kernels.hpp>

#include "utils/test_utils.hpp"

namespace gs = gigasparse;
namespace ref = gigasparse::reference;
using Mat = gs::Csr<double, int>;

namespace {
// Row-major dense -> CSR keeping exactly the nonzero entries.
Mat from_dense(const std::vector<std::vector<double>>& d, std::int64_t ncols = -1) {
    gs::Coo<double, int> c;
    c.nrows = static_cast<std::int64_t>(d.size());
    c.ncols = ncols >= 0 ? ncols : (d.empty() ? 0 : static_cast<std::int64_t>(d[0].size()));
    for (std::size_t i = 0; i < d.size(); ++i)
        for (std::size_t j = 0; j < d[i].size(); ++j)
            if (d[i][j] != 0) {
                c.row.push_back(static_cast<int>(i));
                c.col.push_back(static_cast<int>(j));
                c.val.push_back(d[i][j]);
            }
    return gs::coo_to_csr(c);
}

// Thin double/int32 wrappers (keep template commas out of the gtest macros).
void spmv(const Mat& a, std::span<const double> x, std::span<double> y, double alpha = 1, double beta = 0) { ref::spmv(a.view(), x, y, alpha, beta); }
Mat spgemm(const Mat& a, const Mat& b) { return ref::spgemm(a.view(), b.view()); }
Mat add(const Mat& a, const Mat& b, double alpha = 1, double beta = 1) { return ref::add(a.view(), b.view(), alpha, beta); }
std::int64_t trsv(const Mat& t, gs::Triangle part, std::span<double> x, bool unit = false) { return ref::triangular_solve(t.view(), part, x, unit); }

// A = [1 0 2 0; 0 3 0 0; 4 0 5 6; 0 0 0 7]
Mat a4() { return from_dense({{1, 0, 2, 0}, {0, 3, 0, 0}, {4, 0, 5, 6}, {0, 0, 0, 7}}); }
}  // namespace

TEST(RefSpmv, HandExampleAlphaBeta) {
    const Mat a = a4();
    const std::vector<double> x{1, 2, 3, 4};
    std::vector<double> y(4, 0.0);
    spmv(a, x, y);
    EXPECT_EQ(y, (std::vector<double>{7, 6, 43, 28}));  // A x
    y = {1, 1, 1, 1};
    spmv(a, x, y, 2.0, -1.0);
    EXPECT_EQ(y, (std::vector<double>{13, 11, 85, 55}));  // 2 A x - y
    y = {1, 2, 3, 4};
    spmv(a, x, y, 0.0, 1.0);
    EXPECT_EQ(y, (std::vector<double>{1, 2, 3, 4}));  // alpha = 0, beta = 1 leaves y
}

TEST(RefSpmv, BetaZeroIgnoresNanInY) {
    const Mat a = a4();
    const std::vector<double> x{1, 2, 3, 4};
    std::vector<double> y(4, std::numeric_limits<double>::quiet_NaN());
    spmv(a, x, y, 3.0, 0.0);
    EXPECT_EQ(y, (std::vector<double>{21, 18, 129, 84}));
}

TEST(RefSpmv, EmptyRowsAndDimensionMismatch) {
    const Mat a = from_dense({{0, 0, 0}, {1, 0, 2}, {0, 0, 0}});
    const std::vector<double> x{1, 1, 1};
    std::vector<double> y{5, 5, 5};
    spmv(a, x, y, 1.0, 1.0);
    EXPECT_EQ(y, (std::vector<double>{5, 8, 5}));
    std::vector<double> short_y(2);
    EXPECT_THROW(spmv(a, x, short_y), gs::DimensionMismatch);
    const std::vector<double> short_x(2);
    EXPECT_THROW(spmv(a, short_x, y), gs::DimensionMismatch);
}

TEST(RefSpgemm, RectangularHandExample) {
    const Mat a = from_dense({{1, 2, 0}, {0, 0, 3}});   // 2 x 3
    const Mat b = from_dense({{1, 0}, {0, 1}, {1, 1}});  // 3 x 2
    const Mat c = spgemm(a, b);
    EXPECT_EQ(c.nrows, 2);
    EXPECT_EQ(c.ncols, 2);
    EXPECT_EQ(gs::test::to_dense(c.view()), (std::vector<std::vector<double>>{{1, 2}, {3, 3}}));
    EXPECT_EQ(c.nnz(), 4);
}

TEST(RefSpgemm, SquareHandExampleSortedRows) {
    const Mat a = a4();
    const Mat c = spgemm(a, a);
    // A² = [9 0 12 12; 0 9 0 0; 24 0 33 72; 0 0 0 49]
    EXPECT_EQ(gs::test::to_dense(c.view()), (std::vector<std::vector<double>>{{9, 0, 12, 12}, {0, 9, 0, 0}, {24, 0, 33, 72}, {0, 0, 0, 49}}));
    EXPECT_TRUE(gs::rows_sorted(c.view()));
}

TEST(RefSpgemm, CancellationKeepsStructuralZero) {
    const Mat a = from_dense({{1, 1}, {0, 2}});
    const Mat b = from_dense({{1, 0}, {-1, 3}});
    const Mat c = spgemm(a, b);  // C(0,0) = 1*1 + 1*(-1) = 0, still stored
    EXPECT_EQ(c.row_ptr, (std::vector<gs::offset_t>{0, 2, 4}));
    EXPECT_EQ(c.col_idx, (std::vector<int>{0, 1, 0, 1}));
    EXPECT_EQ(c.values, (std::vector<double>{0, 3, -2, 6}));
}

TEST(RefSpgemm, EmptyRowsAndDegenerateShapes) {
    const Mat a = from_dense({{0, 0}, {1, 0}, {0, 0}});
    const Mat b = from_dense({{2, 3}, {4, 5}});
    const Mat c = spgemm(a, b);
    EXPECT_EQ(c.row_ptr, (std::vector<gs::offset_t>{0, 0, 2, 2}));
    const Mat z00(0, 0), z30(3, 0), z04(0, 4);
    const Mat c00 = spgemm(z00, z00);
    EXPECT_EQ(c00.nrows, 0);
    EXPECT_EQ(c00.ncols, 0);
    const Mat outer = spgemm(z30, z04);  // (3x0)(0x4) = 3x4 zero matrix
    EXPECT_EQ(outer.nrows, 3);
    EXPECT_EQ(outer.ncols, 4);
    EXPECT_EQ(outer.nnz(), 0);
    EXPECT_NO_THROW(gs::validate(outer.view()));
    const Mat empty = spgemm(z04, Mat(4, 2));  // (0x4)(4x2) = 0x2
    EXPECT_EQ(empty.nrows, 0);
    EXPECT_EQ(empty.ncols, 2);
}

TEST(RefSpgemm, DimensionMismatch) {
    const Mat a = from_dense({{1, 2, 0}, {0, 0, 3}});
    EXPECT_THROW(spgemm(a, a), gs::DimensionMismatch);
}

TEST(RefAdd, UnionOfPatternsWithScaling) {
    const Mat a = from_dense({{1, 0, 2}, {0, 0, 0}});
    const Mat b = from_dense({{0, 3, 4}, {5, 0, 0}});
    const Mat c = add(a, b, 2.0, -1.0);
    EXPECT_EQ(c.col_idx, (std::vector<int>{0, 1, 2, 0}));
    EXPECT_EQ(c.values, (std::vector<double>{2, -3, 0, -5}));  // 2*2 - 4 = 0 stays stored
    EXPECT_EQ(c.row_ptr, (std::vector<gs::offset_t>{0, 3, 4}));
    EXPECT_THROW(add(a, from_dense({{1, 0}, {0, 1}})), gs::DimensionMismatch);
}

TEST(RefTriangularSolve, LowerIgnoresUpperEntries) {
    // L = [2 0 0; 1 4 0; 0 3 5] plus an upper entry 9 at (0, 2) that must be ignored; x = (1, 2, 3).
    const Mat t = from_dense({{2, 0, 9}, {1, 4, 0}, {0, 3, 5}});
    std::vector<double> x{2, 9, 21};
    EXPECT_EQ(trsv(t, gs::Triangle::lower, x), -1);
    EXPECT_EQ(x, (std::vector<double>{1, 2, 3}));
}

TEST(RefTriangularSolve, UpperIgnoresLowerEntries) {
    // U = [2 1 0; 0 4 3; 0 0 5] plus a lower entry 7 at (2, 0); x = (1, 2, 3).
    const Mat t = from_dense({{2, 1, 0}, {0, 4, 3}, {7, 0, 5}});
    std::vector<double> x{4, 17, 15};
    EXPECT_EQ(trsv(t, gs::Triangle::upper, x), -1);
    EXPECT_EQ(x, (std::vector<double>{1, 2, 3}));
}

TEST(RefTriangularSolve, UnitDiagonalIgnoresStoredAndMissingDiagonal) {
    const Mat t = from_dense({{7, 0, 0}, {1, 0, 0}, {0, 3, 8}});  // row 1 has no diagonal
    std::vector<double> x{1, 3, 9};
    EXPECT_EQ(trsv(t, gs::Triangle::lower, x, true), -1);
    EXPECT_EQ(x, (std::vector<double>{1, 2, 3}));
}

TEST(RefTriangularSolve, ZeroOrMissingDiagonalReturnsRow) {
    std::vector<double> x{1, 1, 1};
    EXPECT_EQ(trsv(from_dense({{2, 0, 0}, {1, 0, 0}, {0, 3, 5}}), gs::Triangle::lower, x), 1);
    // explicit stored zero on the diagonal of row 2, upper solve meets it first
    gs::Coo<double, int> c{3, 3, {0, 1, 2}, {0, 1, 2}, {1.0, 1.0, 0.0}};
    x = {1, 1, 1};
    EXPECT_EQ(trsv(gs::coo_to_csr(c), gs::Triangle::upper, x), 2);
}

TEST(RefTriangularSolve, DimensionErrors) {
    std::vector<double> x{1, 1};
    EXPECT_THROW(trsv(from_dense({{1, 0, 0}, {0, 1, 0}}), gs::Triangle::lower, x), gs::DimensionMismatch);
    EXPECT_THROW(trsv(a4(), gs::Triangle::lower, x), gs::DimensionMismatch);
}

TEST(RefComplex, SpmvAndSpgemmHandExample) {
    using C = std::complex<double>;
    const C i1(0, 1);
    // A = [i 1; 0 2], x = (1, i): A x = (2i, 2i); A² = [-1  i + 2; 0  4]
    gs::Coo<C, std::int64_t> coo{2, 2, {0, 0, 1}, {0, 1, 1}, {i1, C(1), C(2)}};
    const auto a = gs::coo_to_csr(coo);
    const std::vector<C> x{C(1), i1};
    std::vector<C> y(2);
    ref::spmv(a.view(), std::span<const C>(x), std::span<C>(y));
    EXPECT_EQ(y, (std::vector<C>{2.0 * i1, 2.0 * i1}));
    const auto c = ref::spgemm(a.view(), a.view());
    EXPECT_EQ(c.col_idx, (std::vector<std::int64_t>{0, 1, 1}));
    EXPECT_EQ(c.values, (std::vector<C>{C(-1), i1 + 2.0, C(4)}));
}
