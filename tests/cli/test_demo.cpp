// tests/cli/test_demo.cpp: `gigasparse demo` runs end to end on small sizes and its checks pass.
#include <gtest/gtest.h>

#include "cli_runner.hpp"

using gigasparse::test::run_cli;

TEST(CliDemo, SmallDemoPassesItsChecks) {
    const auto r = run_cli("demo --scale 9 --n 8");
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("SpGEMM  C = A*A"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("check: PASS, same pattern"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("IC(0)-PCG"), std::string::npos);
    EXPECT_NE(r.out.find("Cholesky"), std::string::npos);
    EXPECT_NE(r.out.find("demo passed"), std::string::npos);
}

TEST(CliDemo, JsonHasResultsAndTimes) {
    const auto r = run_cli("demo --scale 8 --n 6 --json");
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_EQ(r.out.front(), '{');
    for (const char* key : {"\"spgemm\":", "\"c_nnz\":", "\"solve\":", "\"iterations\":", "\"nnz_L\":", "\"check\":true", "\"times\":{\"total\":"})
        EXPECT_NE(r.out.find(key), std::string::npos) << key << " missing in " << r.out;
    EXPECT_EQ(r.out.find("SpGEMM  C"), std::string::npos) << "human text leaked into --json output";
}

TEST(CliDemo, RejectsBadSizes) {
    EXPECT_EQ(run_cli("demo --scale 0").exit_code, 2);
    EXPECT_EQ(run_cli("demo --n abc").exit_code, 2);
}
