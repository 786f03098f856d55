// tests/direct/test_shared_matrices.cpp: the real SPD matrices of ../shared/matrices (MANIFEST kind = spd).
#include <gtest/gtest.h>

#include <gigasparse/direct/solver.hpp>
#include <gigasparse/io/matrix_market.hpp>

#include "utils/test_utils.hpp"

namespace gigasparse::direct {
namespace {

TEST(DirectShared, SpdMatricesSolveToBackwardError) {
    auto manifest = gigasparse::test::read_manifest();
    if (manifest.empty()) GTEST_SKIP() << "no ../shared/matrices";
    int done = 0;
    for (const auto& e : manifest) {
        if (e.kind != "spd" || e.field == "pattern") continue;
        SCOPED_TRACE(e.name);
        auto a = io::read_mtx<double, std::int32_t>(gigasparse::test::matrix_dir() + "/" + e.file);
        DirectSolver<double, std::int32_t> s;
        s.analyze(a);
        ASSERT_EQ(s.factorize(a), Status::success);
        std::vector<double> b(static_cast<std::size_t>(a.nrows), 1.0), x(b.size());
        SolveInfo info = s.solve(b, x);
        EXPECT_LE(info.backward_error, 1e-14) << e.name;
        EXPECT_LE(info.refinement_steps, 2);
        ++done;
    }
    EXPECT_GT(done, 0);
}

}  // namespace
}  // namespace gigasparse::direct
