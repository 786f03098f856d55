// tests/cli/test_main.cpp: top-level behaviour of the executable: help, version, unknown commands.
#include <gtest/gtest.h>

#include "cli_runner.hpp"

using gigasparse::test::run_cli;

TEST(Cli, HelpListsCommandsAndExitCodes) {
    const auto r = run_cli("--help");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("exit codes"), std::string::npos);
}

TEST(Cli, NoArgumentsIsAUsageError) { EXPECT_EQ(run_cli("").exit_code, 2); }

TEST(Cli, UnknownCommandIsAUsageErrorWithJson) {
    const auto r = run_cli("frobnicate --json");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.out.find("\"error\":\"unknown command 'frobnicate'"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("unknown command"), std::string::npos);
}

TEST(Cli, VersionPrintsBackend) {
    const auto r = run_cli("--version");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("gigasparse "), std::string::npos);
}
