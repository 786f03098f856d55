// tests/cli/test_generate.cpp: `gigasparse generate`: files match the library generators, JSON summary, determinism, errors.
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/gen/generators.hpp>
#include <gigasparse/io/matrix_market.hpp>

#include "cli_runner.hpp"

namespace gs = gigasparse;
using gs::test::run_cli;
using Matrix = gs::Csr<double, std::int64_t>;

namespace {
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
}  // namespace

TEST(CliGenerate, Poisson2dJsonAndFileMatchLibrary) {
    const std::string f = gs::test::temp_dir("gen") + "/p.mtx";
    const auto r = run_cli("generate poisson2d --n 4 -o '" + f + "' --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "\"rows\":16")) << r.out;
    EXPECT_TRUE(contains(r.out, "\"cols\":16")) << r.out;
    EXPECT_TRUE(contains(r.out, "\"nnz\":64")) << r.out;  // 5n² - 4n
    EXPECT_TRUE(contains(r.out, "\"times\":{\"generate\":")) << r.out;
    EXPECT_TRUE(contains(r.out, "\"total\":")) << r.out;
    const Matrix read = gs::io::read_mtx<double, std::int64_t>(f);
    EXPECT_TRUE(gs::equal(read.view(), gs::gen::poisson2d<double, std::int64_t>(4, 4).view()));
}

TEST(CliGenerate, RmatMatchesLibraryAndIsDeterministic) {
    const std::string dir = gs::test::temp_dir("gen");
    ASSERT_EQ(run_cli("generate rmat --scale 8 --edge-factor 4 --seed 3 -o '" + dir + "/a.mtx'").exit_code, 0);
    ASSERT_EQ(run_cli("generate rmat --scale 8 --edge-factor 4 --seed 3 -o '" + dir + "/b.mtx'").exit_code, 0);
    ASSERT_EQ(run_cli("generate rmat --scale 8 --edge-factor 4 --seed 4 -o '" + dir + "/c.mtx'").exit_code, 0);
    EXPECT_EQ(gs::test::read_text_file(dir + "/a.mtx"), gs::test::read_text_file(dir + "/b.mtx"));
    EXPECT_NE(gs::test::read_text_file(dir + "/a.mtx"), gs::test::read_text_file(dir + "/c.mtx"));
    gs::gen::RmatOptions o;
    o.scale = 8;
    o.edge_factor = 4;
    o.seed = 3;
    EXPECT_TRUE(gs::equal(gs::io::read_mtx<double, std::int64_t>(dir + "/a.mtx").view(), gs::gen::rmat<double, std::int64_t>(o).view()));
}

TEST(CliGenerate, RmatSymmetrizedWrittenAsSymmetric) {
    const std::string f = gs::test::temp_dir("gen") + "/s.mtx";
    const auto r = run_cli("generate rmat --scale 7 --edge-factor 8 --symmetrize --permute --symmetry symmetric -o '" + f + "'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(gs::io::read_mtx_header(f).symmetry, gs::Symmetry::symmetric);
    gs::gen::RmatOptions o;
    o.scale = 7;
    o.edge_factor = 8;
    o.symmetrize = true;
    o.permute_vertices = true;
    EXPECT_TRUE(gs::equal(gs::io::read_mtx<double, std::int64_t>(f).view(), gs::gen::rmat<double, std::int64_t>(o).view()));
}

TEST(CliGenerate, OtherKindsSummaryAndShapes) {
    const std::string dir = gs::test::temp_dir("gen");
    auto r = run_cli("generate poisson3d --n 5 --points 27 -o '" + dir + "/p3.mtx'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "125 x 125")) << r.out;
    EXPECT_TRUE(contains(r.out, "2,197 nnz")) << r.out;  // (3n-2)³ = 13³
    r = run_cli("generate convdiff --nx 6 --ny 5 --nz 4 --bx 10 --by -5 --bz 1 -o '" + dir + "/cd.mtx.gz' --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(gs::equal(gs::io::read_mtx<double, std::int64_t>(dir + "/cd.mtx.gz").view(),
                          gs::gen::convection_diffusion<double, std::int64_t>(6, 5, 4, 10, -5, 1).view()));
    r = run_cli("generate kkt --n 50 --m 20 --delta 0.01 --seed 2 -o '" + dir + "/k.mtx' --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "\"rows\":70")) << r.out;
    r = run_cli("generate er --n 30 --ncols 40 --nnz-per-row 3 -o '" + dir + "/e.mtx' --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "\"nnz\":90")) << r.out;
    EXPECT_EQ(run_cli("generate aniso2d --n 8 --eps 0.001 -o '" + dir + "/a.mtx'").exit_code, 0);
    EXPECT_EQ(run_cli("generate random --n 8 -o '" + dir + "/r.mtx'").exit_code, 0);
}

TEST(CliGenerate, HelpAndUsageErrors) {
    const auto help = run_cli("generate --help");
    EXPECT_EQ(help.exit_code, 0);
    EXPECT_TRUE(contains(help.out, "usage: gigasparse generate")) << help.out;
    const std::string f = gs::test::temp_dir("gen") + "/x.mtx";
    EXPECT_EQ(run_cli("generate").exit_code, 2);
    EXPECT_EQ(run_cli("generate nosuchkind -o '" + f + "'").exit_code, 2);
    EXPECT_EQ(run_cli("generate poisson2d --n 4").exit_code, 2);                            // no -o
    EXPECT_EQ(run_cli("generate poisson2d --n 4 --scale 3 -o '" + f + "'").exit_code, 2);   // option of another kind
    EXPECT_EQ(run_cli("generate poisson2d --n 4 --points 7 -o '" + f + "'").exit_code, 2);  // invalid parameter
    EXPECT_EQ(run_cli("generate convdiff --n 4 --symmetry symmetric -o '" + f + "'").exit_code, 2);
    const auto r = run_cli("generate rmat --scale 50 -o '" + f + "' --json");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(contains(r.out, "\"error\"")) << r.out;
    EXPECT_EQ(run_cli("generate poisson2d --n 3 -o /nonexistent-dir/x.mtx").exit_code, 3);
}
