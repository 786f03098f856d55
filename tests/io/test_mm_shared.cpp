// tests/io/test_mm_shared.cpp: every matrix of ../shared/matrices reads and matches its MANIFEST.tsv row.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/io/matrix_market.hpp>

#include "utils/test_utils.hpp"

namespace gs = gigasparse;
namespace io = gigasparse::io;

namespace {

template <class V>
void check_entry(const gs::test::ManifestEntry& e, const std::string& path) {
    const io::MmMatrix<V, std::int64_t> m = io::read_mtx_stored<V, std::int64_t>(path);
    EXPECT_EQ(m.header.nrows, e.nrows);
    EXPECT_EQ(m.header.ncols, e.ncols);
    EXPECT_EQ(m.header.nnz, e.nnz_stored);
    EXPECT_EQ(m.stored.nnz(), e.nnz_stored) << "duplicates in the file?";
    EXPECT_EQ(gs::to_string(m.header.symmetry), e.symmetry);
    EXPECT_EQ(io::to_string(m.header.field), e.field);
    gs::validate<V, std::int64_t>(m.stored);
    const io::MmHeader h = io::read_mtx_header(path);
    EXPECT_EQ(h.nnz, e.nnz_stored);
    EXPECT_EQ(h.nrows, e.nrows);
    // The full matrix: stored entries mirrored (diagonal once).
    const gs::Csr<V, std::int64_t> full = io::read_mtx<V, std::int64_t>(path);
    gs::validate<V, std::int64_t>(full);
    if (m.header.symmetry == gs::Symmetry::general) {
        EXPECT_EQ(full.nnz(), e.nnz_stored);
    } else {
        std::int64_t diag = 0;
        for (std::int64_t i = 0; i < m.stored.nrows; ++i)
            for (gs::offset_t k = m.stored.row_ptr[i]; k < m.stored.row_ptr[i + 1]; ++k) diag += m.stored.col_idx[k] == i;
        EXPECT_EQ(full.nnz(), 2 * e.nnz_stored - diag);
    }
}

}  // namespace

TEST(MmShared, EveryManifestMatrixMatches) {
    const auto manifest = gs::test::read_manifest();
    if (manifest.empty()) GTEST_SKIP() << "no ../shared/matrices folder";
    std::set<std::string> listed;
    for (const auto& e : manifest) {
        SCOPED_TRACE(e.file);
        const std::string path = gs::test::matrix_dir() + "/" + e.file;
        listed.insert(e.file);
        if (e.field == "complex") check_entry<std::complex<double>>(e, path);
        else check_entry<double>(e, path);
    }
    // Every .mtx/.mtx.gz in the folder is listed (and so was checked above).
    for (const auto& f : std::filesystem::directory_iterator(gs::test::matrix_dir())) {
        const std::string name = f.path().filename().string();
        if (name.find(".mtx") != std::string::npos) {
            EXPECT_TRUE(listed.count(name)) << name << " is not in MANIFEST.tsv";
        }
    }
    EXPECT_GE(manifest.size(), 50u);
}

TEST(MmShared, SmallIndicesAndFloatValuesToo) {
    const auto manifest = gs::test::read_manifest();
    if (manifest.empty()) GTEST_SKIP() << "no ../shared/matrices folder";
    for (const auto& e : manifest) {
        if (e.field == "complex" || e.nnz_stored > 300000) continue;
        SCOPED_TRACE(e.file);
        const auto a = io::read_mtx_stored<float, std::int32_t>(gs::test::matrix_dir() + "/" + e.file);
        EXPECT_EQ(a.stored.nnz(), e.nnz_stored);
    }
}
