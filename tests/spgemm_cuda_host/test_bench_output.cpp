// tests/spgemm_cuda_host/test_bench_output.cpp: the GPU benchmark's output check
// (bench/spgemm_cuda/bench_output.hpp: compare_products), which runs on the host of the GPU machine.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>

#include "bench_output.hpp"

namespace gs = gigasparse;
using gs::bench_cuda::compare_products;
using Mat = gs::Csr<float, std::int32_t>;

namespace {

// rows x 8 columns, row r holding the columns (r + 3k) mod 8, k < r % 5 (sorted), value r + col / 8
Mat sample(std::int64_t rows) {
    Mat m;
    m.nrows = rows;
    m.ncols = 8;
    m.row_ptr.assign(1, 0);
    for (std::int64_t r = 0; r < rows; ++r) {
        bool used[8] = {};
        for (int k = 0; k < r % 5; ++k) used[(r + 3 * k) % 8] = true;
        for (int c = 0; c < 8; ++c)
            if (used[c]) {
                m.col_idx.push_back(c);
                m.values.push_back(static_cast<float>(r) + c / 8.0f);
            }
        m.row_ptr.push_back(static_cast<gs::offset_t>(m.col_idx.size()));
    }
    return m;
}

// the row's entries in reverse order (another library's unsorted output)
void reverse_row(Mat& m, std::int64_t r) {
    for (auto i = m.row_ptr[r], j = m.row_ptr[r + 1] - 1; i < j; ++i, --j) {
        std::swap(m.col_idx[i], m.col_idx[j]);
        std::swap(m.values[i], m.values[j]);
    }
}

TEST(BenchOutput, ComparesPatternsAndValues) {
    const Mat ours = sample(5000);
    for (unsigned threads : {1u, 4u, 0u}) {
        Mat other = ours;
        EXPECT_EQ(compare_products(ours, other, threads), "match");
        for (std::int64_t r = 0; r < other.nrows; r += 7) reverse_row(other, r);
        EXPECT_EQ(compare_products(ours, other, threads), "match") << "rows are compared as sets of columns";
        other.values[other.row_ptr[104]] *= 1.0005f;  // row 104: 4 entries, values about 104: within 1e-3 of the row's largest
        EXPECT_EQ(compare_products(ours, other, threads), "match");
        Mat bad = other;
        bad.values[bad.row_ptr[3003] + 1] += 10.0f;
        EXPECT_EQ(compare_products(ours, bad, threads), "values differ in row 3003");
        bad.col_idx[bad.row_ptr[4002]] = (bad.col_idx[bad.row_ptr[4002]] + 1) % 8;  // a later row: the first is reported
        EXPECT_EQ(compare_products(ours, bad, threads), "values differ in row 3003");
        bad.col_idx[bad.row_ptr[2] + 1] = 7;  // row 2 holds columns 2 and 5: now 2 and 7
        EXPECT_EQ(compare_products(ours, bad, threads), "columns differ in row 2");
    }
}

TEST(BenchOutput, RowPointersAndShapesMustAgree) {
    const Mat ours = sample(100);
    Mat other = ours;
    other.row_ptr[50] += 1;
    EXPECT_EQ(compare_products(ours, other), "row pointers differ");
    other = ours;
    other.ncols = 9;
    EXPECT_EQ(compare_products(ours, other), "row pointers differ");
    EXPECT_EQ(compare_products(Mat{}, Mat{}), "match") << "empty products";
}

}  // namespace
