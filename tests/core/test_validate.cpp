// tests/core/test_validate.cpp: validate() accepts good CSR and names what is wrong in bad CSR.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>

namespace gs = gigasparse;

namespace {

gs::Csr<double, int> small() {
    gs::Csr<double, int> a(3, 4);
    a.row_ptr = {0, 2, 2, 4};
    a.col_idx = {0, 3, 1, 2};
    a.values = {1, 2, 3, 4};
    return a;
}

std::string message_of(const gs::Csr<double, int>& a, gs::ValidateOptions o = {}) {
    try {
        gs::validate(a.view(), o);
    } catch (const gs::InvalidStructure& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(Validate, AcceptsWellFormedIncludingEmptyShapes) {
    EXPECT_NO_THROW(gs::validate(small().view()));
    EXPECT_NO_THROW(gs::validate(gs::Csr<double, int>(0, 0).view()));
    EXPECT_NO_THROW(gs::validate(gs::Csr<double, int>(5, 0).view()));
    EXPECT_NO_THROW(gs::validate(gs::Csr<double, int>(0, 5).view()));
}

TEST(Validate, NamesColumnOutOfRange) {
    auto a = small();
    a.col_idx[3] = 4;
    EXPECT_NE(message_of(a).find("column index 4 out of range [0, 4) (row 2)"), std::string::npos) << message_of(a);
    a.col_idx[3] = -1;
    EXPECT_NE(message_of(a).find("out of range"), std::string::npos);
}

TEST(Validate, NamesUnsortedAndDuplicate) {
    auto a = small();
    std::swap(a.col_idx[2], a.col_idx[3]);
    EXPECT_NE(message_of(a).find("not sorted"), std::string::npos);
    EXPECT_EQ(message_of(a, {.sorted = false}), "");
    a.col_idx[2] = a.col_idx[3];
    EXPECT_NE(message_of(a).find("duplicated"), std::string::npos);
}

TEST(Validate, RowPtrErrors) {
    auto a = small();
    a.row_ptr[1] = 3;
    a.row_ptr[2] = 2;
    EXPECT_NE(message_of(a).find("decreases (row 1)"), std::string::npos) << message_of(a);
    a = small();
    a.row_ptr.back() = 5;
    EXPECT_NE(message_of(a).find("row_ptr[nrows] = 5"), std::string::npos);
    a = small();
    a.row_ptr.pop_back();
    EXPECT_NE(message_of(a).find("nrows+1"), std::string::npos);
}

TEST(Validate, FiniteCheckIsOptIn) {
    auto a = small();
    a.values[1] = std::numeric_limits<double>::quiet_NaN();
    EXPECT_EQ(message_of(a), "");
    EXPECT_NE(message_of(a, {.finite = true}).find("non-finite value at column 3 (row 0)"), std::string::npos);
    a.values[1] = std::numeric_limits<double>::infinity();
    EXPECT_NE(message_of(a, {.finite = true}).find("non-finite"), std::string::npos);
}
