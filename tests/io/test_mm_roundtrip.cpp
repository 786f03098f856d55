// tests/io/test_mm_roundtrip.cpp: write/read round trips for every field x symmetry, value and index type, plain and .gz.
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <string>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/io/matrix_market.hpp>

#include "io/io_test_utils.hpp"
#include "utils/test_utils.hpp"

namespace gs = gigasparse;
namespace io = gigasparse::io;
using gs::test::TempDir;

namespace {

template <class V_, class I_>
struct Types {
    using V = V_;
    using I = I_;
};

using AllTypes = ::testing::Types<Types<float, std::int32_t>, Types<float, std::int64_t>, Types<double, std::int32_t>,
                                  Types<double, std::int64_t>, Types<std::complex<float>, std::int32_t>,
                                  Types<std::complex<float>, std::int64_t>, Types<std::complex<double>, std::int32_t>,
                                  Types<std::complex<double>, std::int64_t>>;

template <class T>
class MmRoundTrip : public ::testing::Test {};
TYPED_TEST_SUITE(MmRoundTrip, AllTypes);

// The strict lower triangle of a random square matrix plus a real diagonal.
template <class V, class I>
gs::Csr<V, I> random_lower(std::int64_t n, std::uint64_t seed, bool with_diagonal) {
    gs::Csr<V, I> a = gs::test::random_csr<V, I>(n, n, 4.0, seed, 0.1);
    gs::Csr<V, I> l = gs::extract_triangle<V, I>(a, gs::Triangle::lower, false);
    if (!with_diagonal) return l;
    gs::Coo<V, I> coo = gs::csr_to_coo<V, I>(l);
    for (std::int64_t i = 0; i < n; i += 2) {
        coo.row.push_back(static_cast<I>(i));
        coo.col.push_back(static_cast<I>(i));
        coo.val.push_back(V(static_cast<gs::real_t<V>>(1.5 + static_cast<double>(i))));
    }
    return gs::coo_to_csr(coo);
}

template <class V, class I>
void expect_same(const gs::Csr<V, I>& expected, const gs::Csr<V, I>& actual) {
    ASSERT_EQ(expected.nrows, actual.nrows);
    ASSERT_EQ(expected.ncols, actual.ncols);
    EXPECT_TRUE((gs::equal<V, I>(expected, actual)));
}

}  // namespace

TYPED_TEST(MmRoundTrip, GeneralExact) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    TempDir dir("rt");
    for (const std::uint64_t seed : {1u, 2u}) {
        SCOPED_TRACE(gs::test::seed_trace(seed));
        const auto a = gs::test::random_csr<V, I>(57, 43, 5.0, seed, 0.2);
        const std::string path = dir.file("a.mtx");
        io::write_mtx<V, I>(path, a);
        expect_same(a, io::read_mtx<V, I>(path));
        const io::MmHeader h = io::read_mtx_header(path);
        EXPECT_EQ(h.field, gs::is_complex_v<V> ? io::MmField::complex : io::MmField::real);
        EXPECT_EQ(h.symmetry, gs::Symmetry::general);
        EXPECT_EQ(h.nnz, a.nnz());
    }
}

TYPED_TEST(MmRoundTrip, SymmetricKinds) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    TempDir dir("sym");
    std::vector<gs::Symmetry> kinds{gs::Symmetry::symmetric, gs::Symmetry::skew_symmetric};
    if constexpr (gs::is_complex_v<V>) kinds.push_back(gs::Symmetry::hermitian);
    for (const gs::Symmetry kind : kinds) {
        SCOPED_TRACE(gs::to_string(kind));
        const auto lower = random_lower<V, I>(40, 7, kind != gs::Symmetry::skew_symmetric);
        const auto full = gs::expand_symmetric<V, I>(lower, kind);
        const std::string path = dir.file("s.mtx");
        io::write_mtx<V, I>(path, full, {.symmetry = kind});
        const auto stored = io::read_mtx_stored<V, I>(path);
        EXPECT_EQ(stored.header.symmetry, kind);
        EXPECT_EQ(stored.header.nnz, lower.nnz());
        expect_same(lower, stored.stored);
        expect_same(full, io::read_mtx<V, I>(path));
    }
}

TYPED_TEST(MmRoundTrip, PatternGeneralAndSymmetric) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    TempDir dir("pat");
    const auto a = gs::test::random_csr<V, I>(30, 30, 3.0, 11);
    io::write_mtx<V, I>(dir.file("p.mtx"), a, {.pattern = true});
    const auto b = io::read_mtx_stored<V, I>(dir.file("p.mtx"));
    EXPECT_EQ(b.header.field, io::MmField::pattern);
    EXPECT_EQ(b.stored.col_idx, a.col_idx);
    EXPECT_EQ(b.stored.row_ptr, a.row_ptr);
    for (const V& v : b.stored.values) EXPECT_EQ(v, V(1));
    const auto full = gs::expand_symmetric<V, I>(random_lower<V, I>(30, 3, true), gs::Symmetry::symmetric);
    io::write_mtx<V, I>(dir.file("ps.mtx"), full, {.symmetry = gs::Symmetry::symmetric, .pattern = true});
    const auto c = io::read_mtx<V, I>(dir.file("ps.mtx"));
    EXPECT_EQ(c.col_idx, full.col_idx);
    EXPECT_EQ(c.row_ptr, full.row_ptr);
}

TYPED_TEST(MmRoundTrip, GzipByExtensionAndByMagic) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    TempDir dir("gz");
    const auto a = gs::test::random_csr<V, I>(200, 150, 6.0, 5);
    const std::string gz = dir.file("a.mtx.gz");
    io::write_mtx<V, I>(gz, a);
    const std::string bytes = gs::test::read_bytes(gz);
    ASSERT_GE(bytes.size(), 2u);
    EXPECT_EQ(static_cast<unsigned char>(bytes[0]), 0x1f);
    EXPECT_EQ(static_cast<unsigned char>(bytes[1]), 0x8b);
    expect_same(a, io::read_mtx<V, I>(gz));
    EXPECT_EQ(io::read_mtx_header(gz).nnz, a.nnz());
    // gzip content under a plain name, plain content under a .gz name: the content decides.
    gs::test::write_text(dir.file("hidden.mtx"), bytes);
    expect_same(a, io::read_mtx<V, I>(dir.file("hidden.mtx")));
    io::write_mtx<V, I>(dir.file("plain.mtx"), a);
    gs::test::write_text(dir.file("plain_named.mtx.gz"), gs::test::read_bytes(dir.file("plain.mtx")));
    expect_same(a, io::read_mtx<V, I>(dir.file("plain_named.mtx.gz")));
}

TYPED_TEST(MmRoundTrip, EmptyShapes) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    TempDir dir("empty");
    for (const auto& [m, n] : std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 0}, {5, 0}, {0, 7}, {4, 4}}) {
        const gs::Csr<V, I> a(m, n);
        io::write_mtx<V, I>(dir.file("e.mtx.gz"), a);
        const auto b = io::read_mtx<V, I>(dir.file("e.mtx.gz"));
        EXPECT_EQ(b.nrows, m);
        EXPECT_EQ(b.ncols, n);
        EXPECT_EQ(b.nnz(), 0);
        EXPECT_EQ(b.row_ptr.size(), static_cast<std::size_t>(m + 1));
    }
}

TYPED_TEST(MmRoundTrip, DenseArrayGeneralAndSymmetric) {
    using V = typename TypeParam::V;
    TempDir dir("dense");
    gs::DenseMatrix<V> d(5, 3);
    for (std::size_t k = 0; k < d.data.size(); ++k) d.data[k] = V(static_cast<gs::real_t<V>>(0.25 * static_cast<double>(k) - 1.0));
    io::write_mtx_dense<V>(dir.file("d.mtx"), d);
    const auto e = io::read_mtx_dense<V>(dir.file("d.mtx"));
    EXPECT_EQ(e.nrows, 5);
    EXPECT_EQ(e.ncols, 3);
    EXPECT_EQ(e.data, d.data);
    gs::DenseMatrix<V> s(4, 4);
    for (std::int64_t j = 0; j < 4; ++j)
        for (std::int64_t i = 0; i < 4; ++i) s(i, j) = V(static_cast<gs::real_t<V>>(1 + std::min(i, j) * 10 + std::max(i, j)));
    io::write_mtx_dense<V>(dir.file("s.mtx.gz"), s, {.symmetry = gs::Symmetry::symmetric});
    EXPECT_EQ(io::read_mtx_header(dir.file("s.mtx.gz")).nnz, 10);
    EXPECT_EQ(io::read_mtx_dense<V>(dir.file("s.mtx.gz")).data, s.data);
    gs::DenseMatrix<V> v(6, 1);
    io::write_mtx_dense<V>(dir.file("v.mtx"), v);
    EXPECT_EQ(io::read_mtx_dense<V>(dir.file("v.mtx")).data, v.data);
}
