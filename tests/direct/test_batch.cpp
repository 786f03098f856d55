// tests/direct/test_batch.cpp: BatchDirectSolver — every item's factor and solution bitwise those of a lone
// DirectSolver on the same matrix, side by side or one after the other; LLᴴ, LDLᵀ and LU batches; a failing
// item; reuse of the factors; bad input.
#include <cmath>
#include <complex>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include <gigasparse/core/error.hpp>
#include <gigasparse/direct/batch.hpp>
#include <gigasparse/gen/generators.hpp>

#include "direct_test_utils.hpp"
#include "utils/test_utils.hpp"

namespace gigasparse::direct {
namespace {

// count value sets on the pattern of a: item t scales the off-diagonal entries by (1 + 0.3 sin(t + k)), so the
// items differ everywhere but keep a's diagonal dominance (and its definiteness or inertia).
template <class V, class I>
std::vector<V> batch_values(const Csr<V, I>& a, std::int64_t count) {
    std::vector<V> v;
    for (std::int64_t t = 0; t < count; ++t)
        for (std::int64_t i = 0; i < a.nrows; ++i)
            for (auto k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
                const auto j = static_cast<std::int64_t>(a.col_idx[k]);
                const double f = i == j ? 1.0 : 1.0 + 0.3 * std::sin(static_cast<double>(t + std::min(i, j) + 7 * std::max(i, j)));
                v.push_back(a.values[k] * static_cast<real_t<V>>(f));
            }
    return v;
}

// Each item against a lone DirectSolver: the same panels and the same solution, bit for bit.
template <class V, class I>
void expect_items_match_lone_solvers(const Csr<V, I>& a, Structure st, std::int64_t count, const char* threads,
                                     const char* item_flops, bool expect_parallel) {
    SCOPED_TRACE(std::string("threads ") + threads + ", parallel_item_flops " + item_flops);
    const std::int64_t n = a.nrows, nrhs = 2;
    const auto values = batch_values(a, count);
    BatchDirectSolver<V, I> batch(st);
    batch.set_option("threads", threads);
    batch.set_option("parallel_item_flops", item_flops);
    batch.analyze(a);
    const auto status = batch.factorize(values, count);
    ASSERT_EQ(static_cast<std::int64_t>(status.size()), count);
    EXPECT_EQ(batch.ran_in_parallel(), expect_parallel);
    const auto b = gigasparse::test::random_vector<V>(count * n * nrhs, 17);
    std::vector<V> x(b.size());
    const auto info = batch.solve(b, x, nrhs);
    ASSERT_EQ(static_cast<std::int64_t>(info.size()), count);
    for (std::int64_t t = 0; t < count; ++t) {
        SCOPED_TRACE("item " + std::to_string(t));
        ASSERT_EQ(status[t], Status::success);
        EXPECT_EQ(info[t].status, Status::success);
        EXPECT_LE(info[t].backward_error, (std::is_same_v<real_t<V>, float> ? 1e-5 : 1e-14));
        Csr<V, I> at = a;
        std::copy(values.begin() + t * a.nnz(), values.begin() + (t + 1) * a.nnz(), at.values.begin());
        DirectSolver<V, I> lone(st);
        lone.set_option("threads", "1");
        lone.analyze(a);  // the batch chose its pairs / matching from a's values too
        ASSERT_EQ(lone.factorize(at), Status::success);
        EXPECT_TRUE(lone.numeric().lx == batch.item(t).numeric().lx);
        EXPECT_TRUE(lone.numeric().ux == batch.item(t).numeric().ux);
        std::vector<V> xt(static_cast<std::size_t>(n * nrhs));
        lone.solve(std::span<const V>(b.data() + t * n * nrhs, n * nrhs), xt, nrhs);
        EXPECT_TRUE(std::equal(xt.begin(), xt.end(), x.begin() + t * n * nrhs));
    }
}

template <class V>
class BatchTyped : public ::testing::Test {};
using BatchTypes = ::testing::Types<float, double, std::complex<double>>;
TYPED_TEST_SUITE(BatchTyped, BatchTypes);

TYPED_TEST(BatchTyped, CholeskySideBySideAndInTurn) {
    using V = TypeParam;
    auto a = test::random_hpd<V, std::int32_t>(300, 5, 3);
    const Structure st = is_complex_v<V> ? Structure::hpd : Structure::spd;
    expect_items_match_lone_solvers(a, st, 9, "2", "2e8", true);
    expect_items_match_lone_solvers(a, st, 9, "2", "0", false);   // each item on both threads, in turn
    expect_items_match_lone_solvers(a, st, 9, "1", "2e8", false);  // one thread: in turn
}

TYPED_TEST(BatchTyped, IndefiniteAndGeneral) {
    using V = TypeParam;
    gen::KktOptions o;
    o.n = 200;
    o.m = 60;
    o.delta = 1e-3;  // quasi-definite and well conditioned in float too (the default 1e-8 is below float's ε)
    auto kkt = gen::kkt<V, std::int64_t>(o);
    expect_items_match_lone_solvers(kkt, is_complex_v<V> ? Structure::hermitian : Structure::symmetric, 5, "2", "2e8", true);
    auto g = test::random_general<V>(250, 3, 9);
    expect_items_match_lone_solvers(g, Structure::general, 5, "2", "2e8", true);
}

TEST(Batch, FailingItemReuseAndSchur) {
    auto a = gen::poisson2d<double, std::int32_t>(12, 12);
    const std::int64_t n = a.nrows, nnz = a.nnz();
    auto values = batch_values(a, 4);
    for (std::int64_t k = 0; k < nnz; ++k) values[2 * nnz + k] = -values[2 * nnz + k];  // item 2: negative definite
    BatchDirectSolver<double, std::int32_t> batch(Structure::spd);
    batch.set_option("threads", "2");
    batch.analyze(a);
    auto st = batch.factorize(values, 4);
    EXPECT_EQ(st[0], Status::success);
    EXPECT_EQ(st[2], Status::not_positive_definite);
    EXPECT_EQ(st[3], Status::success);
    std::vector<double> b(4 * n, 1.0), x(4 * n, -7.0);
    auto info = batch.solve(b, x);
    EXPECT_EQ(info[2].status, Status::not_positive_definite);
    EXPECT_EQ(x[2 * n], -7.0);  // untouched
    EXPECT_LE(info[3].backward_error, 1e-14);
    // Same count again: the factors' memory is reused (refactorize), the results follow the new values.
    const std::vector<double> first(batch.item(0).numeric().lx);
    for (std::int64_t k = 0; k < nnz; ++k) values[2 * nnz + k] = -values[2 * nnz + k];
    for (std::int64_t k = 0; k < nnz; ++k) values[k] *= 2;
    const double* before = batch.item(1).numeric().lx.data();
    st = batch.factorize(values, 4);
    for (auto s : st) EXPECT_EQ(s, Status::success);
    EXPECT_EQ(batch.item(1).numeric().lx.data(), before);
    EXPECT_NEAR(batch.item(0).numeric().lx[0], std::sqrt(2.0) * first[0], 1e-12 * first[0]);
    // A Schur set applies to every item.
    BatchDirectSolver<double, std::int32_t> sb(Structure::spd);
    sb.set_schur_indices(std::vector<std::int64_t>{0, 143});
    sb.analyze(a);
    st = sb.factorize(values, 4);
    for (std::int64_t t = 0; t < 4; ++t) {
        ASSERT_EQ(st[t], Status::success);
        DirectSolver<double, std::int32_t> lone(Structure::spd);
        lone.set_schur_indices(std::vector<std::int64_t>{0, 143});
        lone.analyze(a);
        Csr<double, std::int32_t> at = a;
        std::copy(values.begin() + t * nnz, values.begin() + (t + 1) * nnz, at.values.begin());
        ASSERT_EQ(lone.factorize(at), Status::success);
        EXPECT_TRUE(lone.schur_complement().data == sb.item(t).schur_complement().data);
    }
}

TEST(Batch, Errors) {
    auto a = gen::poisson2d<double, std::int32_t>(5, 5);
    BatchDirectSolver<double, std::int32_t> batch(Structure::spd);
    std::vector<double> v(2 * a.nnz(), 1.0), b(50, 1.0), x(50);
    EXPECT_THROW(batch.factorize(v, 2), PhaseError);
    EXPECT_THROW(batch.set_option("parallel_item_flops", "-1"), InvalidArgument);
    EXPECT_THROW(batch.set_option("no_such_option", "1"), InvalidArgument);
    batch.analyze(a);
    EXPECT_THROW(batch.solve(b, x), PhaseError);
    EXPECT_THROW(batch.factorize(v, 3), DimensionMismatch);
    EXPECT_THROW(batch.factorize(v, -1), InvalidArgument);
    EXPECT_EQ(batch.factorize(batch_values(a, 2), 2).size(), 2u);
    std::vector<double> short_b(49);
    EXPECT_THROW(batch.solve(short_b, x), DimensionMismatch);
    EXPECT_THROW(batch.item(2), InvalidArgument);
    EXPECT_EQ(batch.factorize({}, 0).size(), 0u);  // an empty batch
    EXPECT_EQ(batch.size(), 0);
}

}  // namespace
}  // namespace gigasparse::direct
