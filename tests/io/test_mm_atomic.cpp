// tests/io/test_mm_atomic.cpp: writes are atomic: a failed write leaves the old file intact and no temporary behind.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>
#include <gigasparse/io/matrix_market.hpp>

#include "io/io_test_utils.hpp"
#include "utils/test_utils.hpp"

namespace gs = gigasparse;
namespace io = gigasparse::io;
namespace fs = std::filesystem;
using gs::test::TempDir;

namespace {
const auto matrix = gs::test::random_csr<double, std::int32_t>(50, 50, 4.0, 21);
}

TEST(MmAtomic, OverwriteReplacesContentAndLeavesNoTemporary) {
    TempDir dir("ow");
    const std::string path = dir.file("a.mtx");
    gs::test::write_text(path, "old");
    io::write_mtx<double, std::int32_t>(path, matrix);
    EXPECT_TRUE((gs::equal<double, std::int32_t>(matrix, io::read_mtx<double, std::int32_t>(path))));
    EXPECT_EQ(gs::test::count_entries(dir.path()), 1);
}

TEST(MmAtomic, WritingOverADirectoryFailsAndKeepsIt) {
    TempDir dir("dir");
    const std::string path = dir.file("target.mtx");
    fs::create_directory(path);
    gs::test::write_text(dir.file("target.mtx/inside"), "keep");
    EXPECT_THROW((io::write_mtx<double, std::int32_t>(path, matrix)), gs::IoError);
    EXPECT_THROW((io::write_mtx<double, std::int32_t>(path + "/", matrix)), gs::IoError);
    EXPECT_TRUE(fs::is_directory(path));
    EXPECT_EQ(gs::test::read_bytes(dir.file("target.mtx/inside")), "keep");
    EXPECT_EQ(gs::test::count_entries(dir.path()), 1);  // no temporary left behind
    EXPECT_EQ(gs::test::count_entries(path), 1);
}

TEST(MmAtomic, MissingFolderFails) {
    TempDir dir("missing");
    try {
        io::write_mtx<double, std::int32_t>(dir.file("no/such/folder/a.mtx.gz"), matrix);
        FAIL() << "expected IoError";
    } catch (const gs::IoError& e) {
        EXPECT_NE(std::string(e.what()).find("no/such/folder/a.mtx.gz"), std::string::npos) << e.what();
    }
    EXPECT_EQ(gs::test::count_entries(dir.path()), 0);
}

TEST(MmAtomic, ReadOnlyFolderFailsAndKeepsTheOldFile) {
    TempDir dir("ro");
    const std::string sub = dir.file("ro");
    fs::create_directory(sub);
    const std::string path = sub + "/a.mtx";
    gs::test::write_text(path, "old content");
    fs::permissions(sub, fs::perms::owner_read | fs::perms::owner_exec);
    if (::access(sub.c_str(), W_OK) == 0) {
        fs::permissions(sub, fs::perms::owner_all);
        GTEST_SKIP() << "running with privileges that ignore folder permissions (root)";
    }
    EXPECT_THROW((io::write_mtx<double, std::int32_t>(path, matrix)), gs::IoError);
    EXPECT_THROW((io::write_mtx_dense<double>(path, gs::DenseMatrix<double>(2, 2))), gs::IoError);
    fs::permissions(sub, fs::perms::owner_all);
    EXPECT_EQ(gs::test::read_bytes(path), "old content");
    EXPECT_EQ(gs::test::count_entries(sub), 1);
}

TEST(MmAtomic, InvalidMatrixIsRejectedBeforeTouchingTheFile) {
    TempDir dir("inv");
    const std::string path = dir.file("a.mtx");
    gs::test::write_text(path, "old content");
    auto bad = matrix;
    bad.col_idx[3] = 1000;  // out of range
    EXPECT_THROW((io::write_mtx<double, std::int32_t>(path, bad)), gs::InvalidStructure);
    EXPECT_EQ(gs::test::read_bytes(path), "old content");
    EXPECT_EQ(gs::test::count_entries(dir.path()), 1);
}

TEST(MmAtomic, KeepsThePermissionsOfAReplacedFile) {
    TempDir dir("perm");
    const std::string path = dir.file("a.mtx");
    gs::test::write_text(path, "old");
    fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    io::write_mtx<double, std::int32_t>(path, matrix);
    EXPECT_EQ(fs::status(path).permissions(), fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

// Works for root too (which ignores folder permissions): /proc accepts no new files.
TEST(MmAtomic, UnwritableFileSystemFails) {
    if (!fs::is_directory("/proc/self")) GTEST_SKIP() << "no /proc";
    try {
        io::write_mtx<double, std::int32_t>("/proc/gigasparse-test.mtx", matrix);
        FAIL() << "expected IoError";
    } catch (const gs::IoError& e) {
        EXPECT_NE(std::string(e.what()).find("/proc/gigasparse-test.mtx"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists("/proc/gigasparse-test.mtx"));
}
