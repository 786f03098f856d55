// tests/spgemm/test_spgemm_omp.cpp: the OpenMP MAGNUS backend against the reference on random, power-law
// (R-MAT), banded, empty-row, rectangular and unsorted inputs, for float/double and int32/int64.
#include <gtest/gtest.h>

#include <gigasparse/gen/generators.hpp>

#include "spgemm_test_utils.hpp"

namespace gigasparse::test {
namespace {

template <class T>
class SpgemmOmp : public ::testing::Test {};
TYPED_TEST_SUITE(SpgemmOmp, SpgemmTypes);

TYPED_TEST(SpgemmOmp, RandomSquare) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    for (std::uint64_t seed : {1u, 2u}) {
        SCOPED_TRACE(seed_trace(seed));
        const auto a = random_csr<V, I>(600, 600, 12, seed);
        const auto b = random_csr<V, I>(600, 600, 30, seed + 100);
        const auto s = expect_matches_reference(a, b, SpgemmOptions{});
        EXPECT_GT(s.products, 0);
    }
}

TYPED_TEST(SpgemmOmp, PowerLawRmat) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    const auto a = rmat_csr<V, I>(11, 8, 5);
    const auto s = expect_matches_reference(a, revalue(a, 9), SpgemmOptions{});
    EXPECT_GT(s.category_rows[0] + s.category_rows[1] + s.category_rows[2], 0);
}

TYPED_TEST(SpgemmOmp, PowerLawHeavyRows) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    const auto a = power_law<V, I>(1500, 5000, 800, 11);
    const auto b = power_law<V, I>(5000, 3000, 400, 12);
    const auto s = expect_matches_reference(a, b, SpgemmOptions{});
    EXPECT_GT(s.max_row_products, 1000);  // heavy head rows next to sorted light rows
    EXPECT_GT(s.category_rows[0], 0);
}

TYPED_TEST(SpgemmOmp, BandedGoesDense) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    const auto a = banded<V, I>(3000, 12, 3);
    const auto s = expect_matches_reference(a, a, SpgemmOptions{});
    EXPECT_GT(s.category_rows[static_cast<int>(SpgemmCategory::dense)], 2900);
}

TYPED_TEST(SpgemmOmp, EmptyRowsInAAndB) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    const auto a = random_csr<V, I>(500, 400, 20, 21, 0.3);
    const auto b = random_csr<V, I>(400, 700, 25, 22, 0.4);
    expect_matches_reference(a, b, SpgemmOptions{});
}

TYPED_TEST(SpgemmOmp, Rectangular) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    expect_matches_reference(random_csr<V, I>(1000, 500, 10, 31), random_csr<V, I>(500, 1600, 20, 32), SpgemmOptions{});
    expect_matches_reference(random_csr<V, I>(50, 3000, 40, 33), random_csr<V, I>(3000, 20, 3, 34), SpgemmOptions{});
    expect_matches_reference(random_csr<V, I>(2000, 30, 5, 35), random_csr<V, I>(30, 4000, 300, 36), SpgemmOptions{});
}

TYPED_TEST(SpgemmOmp, UnsortedInputsGiveSortedOutput) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    const auto a = random_csr<V, I>(700, 900, 15, 41);
    const auto b = random_csr<V, I>(900, 800, 40, 42);
    const auto ua = unsort_rows(a, 43), ub = unsort_rows(b, 44);
    ASSERT_FALSE(sorted_rows(ub));
    const auto expected = reference::spgemm<V, I>(a, b);
    const auto c = multiply<V, I>(ua, ub);
    EXPECT_TRUE(spgemm_near(expected, c));
    SpgemmOptions coarse;
    coarse.coarse_chunk_cols = 128;
    coarse.fine_chunk_cols = 16;
    EXPECT_TRUE(spgemm_near(expected, multiply<V, I>(ua, ub, coarse)));
}

TYPED_TEST(SpgemmOmp, DuplicateInputEntriesAreSummed) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    auto a = random_csr<V, I>(300, 300, 30, 51);
    auto b = random_csr<V, I>(300, 300, 30, 52);
    Csr<V, I> dup(a.nrows, a.ncols);  // every entry of A stored twice (halves), unsorted
    for (std::int64_t i = 0; i < a.nrows; ++i) {
        for (int rep = 0; rep < 2; ++rep)
            for (offset_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
                dup.col_idx.push_back(a.col_idx[p]);
                dup.values.push_back(a.values[p] / V(2));
            }
        dup.row_ptr[i + 1] = static_cast<offset_t>(dup.col_idx.size());
    }
    EXPECT_TRUE(spgemm_near(reference::spgemm<V, I>(a, b), multiply<V, I>(dup, b)));
}

TYPED_TEST(SpgemmOmp, ReferenceBackendThroughThePlan) {
    using V = typename TypeParam::V;
    using I = typename TypeParam::I;
    SpgemmOptions o;
    o.backend = SpgemmBackend::reference;
    const auto a = random_csr<V, I>(200, 300, 8, 61);
    const auto b = random_csr<V, I>(300, 100, 8, 62);
    const auto s = expect_matches_reference(a, b, o);
    EXPECT_EQ(s.backend, SpgemmBackend::reference);
}

}  // namespace
}  // namespace gigasparse::test
