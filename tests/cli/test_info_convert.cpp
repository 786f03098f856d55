// tests/cli/test_info_convert.cpp: `gigasparse info` and `gigasparse convert`: output, JSON, exit codes, round trips.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/io/matrix_market.hpp>

#include "cli_runner.hpp"
#include "utils/test_utils.hpp"

namespace gs = gigasparse;
namespace io = gigasparse::io;
using gs::test::run_cli;

namespace {

void write_text(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

std::string quoted(const std::string& s) { return "'" + s + "'"; }

// 4 x 4: symmetric file with lower entries (1,1) (2,1) (3,3) (4,2);
// the full matrix has rows of 2, 2, 1, 1 entries.
const char* small_symmetric =
    "%%MatrixMarket matrix coordinate real symmetric\n4 4 4\n1 1 2\n2 1 -1\n3 3 5\n4 2 7\n";

}  // namespace

TEST(CliInfo, HumanReadable) {
    const std::string dir = gs::test::temp_dir("info");
    write_text(dir + "/s.mtx", small_symmetric);
    const auto r = run_cli("info " + quoted(dir + "/s.mtx"));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("coordinate real symmetric"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("4 stored, 6 full"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("structurally symmetric: yes"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("full diagonal: no"), std::string::npos) << r.out;
    std::filesystem::remove_all(dir);
}

TEST(CliInfo, JsonFields) {
    const std::string dir = gs::test::temp_dir("info");
    write_text(dir + "/s.mtx", small_symmetric);
    const auto r = run_cli("info " + quoted(dir + "/s.mtx") + " --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << "one line of JSON";
    for (const char* field : {"\"nrows\":4", "\"ncols\":4", "\"nnz_stored\":4", "\"nnz_full\":6", "\"symmetry\":\"symmetric\"",
                              "\"field\":\"real\"", "\"min\":1", "\"max\":2", "\"log2_histogram\":[0,2,2]", "\"bandwidth\":2",
                              "\"empty_rows\":0", "\"full_diagonal\":false", "\"structurally_symmetric\":true",
                              "\"numerically_symmetric\":true", "\"times\":{\"read\":", "\"analyze\":", "\"total\":"})
        EXPECT_NE(r.out.find(field), std::string::npos) << field << " in " << r.out;
    std::filesystem::remove_all(dir);
}

TEST(CliInfo, UnsymmetricGeneralFile) {
    const std::string dir = gs::test::temp_dir("info");
    write_text(dir + "/g.mtx", "%%MatrixMarket matrix coordinate real general\n3 5 3\n1 1 1\n1 2 2\n2 1 3\n");
    const auto r = run_cli("info " + quoted(dir + "/g.mtx") + " --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const char* field : {"\"empty_rows\":1", "\"empty_cols\":3", "\"structurally_symmetric\":false", "\"numerically_symmetric\":false",
                              "\"upper_bandwidth\":1", "\"lower_bandwidth\":1"})
        EXPECT_NE(r.out.find(field), std::string::npos) << field << " in " << r.out;
    std::filesystem::remove_all(dir);
}

TEST(CliInfo, BadInputIsExitCode3WithFileAndLine) {
    const std::string dir = gs::test::temp_dir("info");
    write_text(dir + "/bad.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n");
    const auto r = run_cli("info " + quoted(dir + "/bad.mtx") + " --json");
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_NE(r.err.find(dir + "/bad.mtx:3:"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("\"exit_code\":3"), std::string::npos) << r.out;
    EXPECT_EQ(run_cli("info " + quoted(dir + "/missing.mtx")).exit_code, 3);
    EXPECT_EQ(run_cli("info").exit_code, 2);
    EXPECT_EQ(run_cli("info a b").exit_code, 2);
    std::filesystem::remove_all(dir);
}

TEST(CliInfo, HelpDescribesTheCommand) {
    const auto r = run_cli("info --help");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("usage: gigasparse info FILE"), std::string::npos);
}

TEST(CliInfo, SharedMatrices) {
    const auto manifest = gs::test::read_manifest();
    if (manifest.empty()) GTEST_SKIP() << "no shared matrices";
    int checked = 0;
    for (const auto& e : manifest) {
        if (e.nnz_stored > 200000 && checked > 0) continue;  // a quick sample; tests/io reads them all
        SCOPED_TRACE(e.file);
        const auto r = run_cli("info " + quoted(gs::test::matrix_dir() + "/" + e.file) + " --json");
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_NE(r.out.find("\"nrows\":" + std::to_string(e.nrows) + ","), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("\"nnz_stored\":" + std::to_string(e.nnz_stored) + ","), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("\"symmetry\":\"" + e.symmetry + "\""), std::string::npos) << r.out;
        if (++checked == 12) break;
    }
    EXPECT_GT(checked, 0);
}

TEST(CliConvert, SymmetricToGeneralGzAndBack) {
    const std::string dir = gs::test::temp_dir("conv");
    write_text(dir + "/s.mtx", small_symmetric);
    auto r = run_cli("convert " + quoted(dir + "/s.mtx") + " " + quoted(dir + "/g.mtx.gz") + " --symmetry general --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("\"entries_written\":6"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"times\":{\"read\":"), std::string::npos) << r.out;
    const auto full = io::read_mtx<double, std::int32_t>(dir + "/s.mtx");
    EXPECT_TRUE((gs::equal<double, std::int32_t>(full, io::read_mtx<double, std::int32_t>(dir + "/g.mtx.gz"))));
    r = run_cli("convert " + quoted(dir + "/g.mtx.gz") + " " + quoted(dir + "/s2.mtx") + " --symmetry symmetric");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(io::read_mtx_header(dir + "/s2.mtx").nnz, 4);
    EXPECT_TRUE((gs::equal<double, std::int32_t>(full, io::read_mtx<double, std::int32_t>(dir + "/s2.mtx"))));
    std::filesystem::remove_all(dir);
}

TEST(CliConvert, PatternAndRefusedSymmetry) {
    const std::string dir = gs::test::temp_dir("conv");
    write_text(dir + "/g.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n1 2 2\n");
    auto r = run_cli("convert " + quoted(dir + "/g.mtx") + " " + quoted(dir + "/p.mtx") + " --pattern");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(io::read_mtx_header(dir + "/p.mtx").field, io::MmField::pattern);
    r = run_cli("convert " + quoted(dir + "/p.mtx") + " " + quoted(dir + "/p2.mtx.gz"));  // a pattern stays a pattern
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(io::read_mtx_header(dir + "/p2.mtx.gz").field, io::MmField::pattern);
    write_text(dir + "/keep.mtx", "old");
    r = run_cli("convert " + quoted(dir + "/g.mtx") + " " + quoted(dir + "/keep.mtx") + " --symmetry symmetric");
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_NE(r.err.find("not symmetric"), std::string::npos) << r.err;
    std::ifstream in(dir + "/keep.mtx");
    std::string content;
    in >> content;
    EXPECT_EQ(content, "old");
    EXPECT_EQ(run_cli("convert " + quoted(dir + "/g.mtx") + " " + quoted(dir + "/x.mtx") + " --symmetry diagonal").exit_code, 2);
    EXPECT_EQ(run_cli("convert " + quoted(dir + "/g.mtx")).exit_code, 2);
    EXPECT_EQ(run_cli("convert " + quoted(dir + "/nope.mtx") + " " + quoted(dir + "/x.mtx")).exit_code, 3);
    EXPECT_EQ(run_cli("convert --help").exit_code, 0);
    std::filesystem::remove_all(dir);
}
