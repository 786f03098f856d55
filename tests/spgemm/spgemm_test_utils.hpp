// tests/spgemm/spgemm_test_utils.hpp: helpers of the SpGEMM tests: compare a backend with the reference,
// typed-test type lists, small structured matrices (banded, power-law, exact row lengths).
#pragma once

#include <complex>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/gen/generators.hpp>
#include <gigasparse/reference/kernels.hpp>
#include <gigasparse/spgemm.hpp>

#include "utils/test_utils.hpp"

namespace gigasparse::test {

template <class V_, class I_>
struct VI {
    using V = V_;
    using I = I_;
};
// the CPU backends' types (complex: one per index type, each accumulator path; the GPU's are real only)
using SpgemmTypes = ::testing::Types<VI<float, std::int32_t>, VI<float, std::int64_t>, VI<double, std::int32_t>, VI<double, std::int64_t>,
                                     VI<std::complex<float>, std::int32_t>, VI<std::complex<double>, std::int64_t>>;

template <class V>
double spgemm_rtol() {
    return sizeof(real_t<V>) == 4 ? 2e-4 : 1e-11;
}

// Pattern equal, values within the type's tolerance (wrappers keep template commas out of gtest macros).
template <class V, class I>
::testing::AssertionResult spgemm_near(const Csr<V, I>& expected, const Csr<V, I>& actual) {
    return csr_near<V, I>(expected, actual, spgemm_rtol<V>());
}
template <class V, class I>
bool sorted_rows(const Csr<V, I>& a) {
    return rows_sorted<V, I>(a);
}
template <class V, class I>
bool same_csr(const Csr<V, I>& a, const Csr<V, I>& b) {
    return equal<V, I>(a, b);
}

// C = A·B through multiply(options) must equal the reference exactly in pattern (rows sorted) and within
// tolerance in values; returns the stats for further checks.
template <class V, class I>
SpgemmStats expect_matches_reference(const Csr<V, I>& a, const Csr<V, I>& b, const SpgemmOptions& options) {
    const Csr<V, I> expected = reference::spgemm<V, I>(a, b);
    SpgemmStats stats;
    SpgemmOptions o = options;
    if (o.serial_products == SpgemmOptions{}.serial_products) o.serial_products = 0;  // small test products still run in parallel
    offset_t products = 0;
    for (std::int64_t i = 0; i < a.nrows; ++i)
        for (offset_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) products += b.row_ptr[a.col_idx[p] + 1] - b.row_ptr[a.col_idx[p]];
    if (o.fused_products == SpgemmOptions{}.fused_products && !o.force_category) {
        // multiply() runs small products in one fused pass: that path must agree as well. The stats returned
        // below are those of the categorized path (fused_products = 0), whose categories tests inspect.
        SpgemmStats fs;
        const Csr<V, I> f = multiply<V, I>(a, b, o, &fs);
        EXPECT_TRUE(spgemm_near(expected, f)) << "fused one-pass product";
        EXPECT_TRUE(sorted_rows(f)) << "fused one-pass product";
        EXPECT_EQ(fs.nnz_c, expected.nnz());
        EXPECT_EQ(fs.products, products);
        o.fused_products = 0;
    }
    const Csr<V, I> c = multiply<V, I>(a, b, o, &stats);
    EXPECT_TRUE(spgemm_near(expected, c));
    EXPECT_TRUE(sorted_rows(c));
    EXPECT_EQ(stats.nnz_c, expected.nnz());
    EXPECT_FALSE(stats.fused);
    EXPECT_EQ(stats.products, products);
    return stats;
}


// Power-law rows: row i has about max_len / (1 + i)^0.8 entries at random columns (heavy head, light tail).
template <class V, class I>
Csr<V, I> power_law(std::int64_t m, std::int64_t n, double max_len, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    Coo<V, I> coo{m, n, {}, {}, {}};
    for (std::int64_t i = 0; i < m; ++i) {
        const auto len = static_cast<std::int64_t>(1 + max_len / std::pow(1.0 + static_cast<double>(i), 0.8));
        for (std::int64_t t = 0; t < len; ++t) {
            coo.row.push_back(static_cast<I>(i));
            coo.col.push_back(static_cast<I>(std::uniform_int_distribution<std::int64_t>(0, n - 1)(rng)));
            coo.val.push_back(static_cast<V>(u(rng)));
        }
    }
    return coo_to_csr(coo);
}

// Random new values on the same pattern.
template <class V, class I>
Csr<V, I> revalue(Csr<V, I> a, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-2, 2);
    for (auto& v : a.values) v = static_cast<V>(u(rng));
    return a;
}

// An R-MAT (Graph500) matrix with `edge_factor` entries per row on average at 2^scale rows.
template <class V, class I>
Csr<V, I> rmat_csr(int scale, int edge_factor, std::uint64_t seed) {
    gen::RmatOptions o;
    o.scale = scale;
    o.edge_factor = edge_factor;
    o.seed = seed;
    return gen::rmat<V, I>(o);
}

// Numeric reuse: one plan, two rounds of new values of A and B (seeds seed + round, seed + 100 + round) on the
// same patterns, each checked against the reference.
template <class V, class I>
void expect_numeric_reuse(const Csr<V, I>& a, const Csr<V, I>& b, const SpgemmOptions& o, std::uint64_t seed) {
    SpgemmPlan<V, I> plan(o);
    plan.symbolic(a, b);
    for (std::uint64_t round = 0; round < 2; ++round) {
        const auto a2 = revalue(a, seed + round), b2 = revalue(b, seed + 100 + round);
        EXPECT_TRUE(spgemm_near(reference::spgemm<V, I>(a2, b2), plan.numeric(a2, b2)));
    }
}

}  // namespace gigasparse::test
