// tests/spgemm/test_spgemm_real.cpp: A·A (and A·Aᵀ for the unsymmetric ones) of real matrices from
// ../shared/matrices against the reference, with default and coarse-forced options.
#include <gtest/gtest.h>

#include <gigasparse/io/matrix_market.hpp>

#include "spgemm_test_utils.hpp"

namespace gigasparse::test {
namespace {

// Small and medium matrices of several kinds (graphs, FE, circuit, power law); skipped if absent.
const char* const real_matrices[] = {"bcsstk13", "cage8", "ca-GrQc", "email-Eu-core", "adder_dcop_05", "arc130", "ex6",
                                     "polblogs_undirected", "fe_4elt2", "mbeacxc"};

TEST(SpgemmReal, SharedMatricesSquared) {
    const auto manifest = read_manifest();
    if (manifest.empty()) GTEST_SKIP() << "no ../shared/matrices";
    int tested = 0;
    for (const auto& m : manifest) {
        if (std::find_if(std::begin(real_matrices), std::end(real_matrices), [&](const char* n) { return m.name == n; }) ==
            std::end(real_matrices))
            continue;
        SCOPED_TRACE(m.name);
        const auto a = io::read_mtx<double, std::int32_t>(matrix_dir() + "/" + m.file);
        expect_matches_reference(a, a, SpgemmOptions{});
        SpgemmOptions coarse;
        coarse.coarse_chunk_cols = 1024;
        coarse.force_category = a.ncols > 1024 ? std::optional(SpgemmCategory::coarse) : std::nullopt;
        expect_matches_reference(a, a, coarse);
        if (m.symmetry == "general") {
            const auto at = transpose<double, std::int32_t>(a);  // A·Aᵀ: the kokkos-kernels #402 regression shape
            expect_matches_reference(a, at, SpgemmOptions{});
        }
        ++tested;
    }
    EXPECT_GE(tested, 8);
}

}  // namespace
}  // namespace gigasparse::test
