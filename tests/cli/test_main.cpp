// tests/cli/test_main.cpp: top-level behaviour of the executable: help, version, unknown commands.
#include <gtest/gtest.h>

#include <cstdlib>

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

// With OPENBLAS_CORETYPE unset the executable runs OpenBLAS kernels as wide as the CPU's ISA
// (re-executing itself with OPENBLAS_CORETYPE when the library fell back to narrower ones), and
// GIGASPARSE_KEEP_BLAS_CORE turns the re-execution off.
TEST(Cli, VersionReportsBlasKernelsMatchingTheCpu) {
    unsetenv("OPENBLAS_CORETYPE");
    unsetenv("GIGASPARSE_KEEP_BLAS_CORE");
    const auto r = run_cli("--version");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("BLAS: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("OpenBLAS kernels "), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("note: the BLAS kernels are narrower"), std::string::npos) << r.out;

    setenv("GIGASPARSE_KEEP_BLAS_CORE", "1", 1);
    const auto kept = run_cli("--version");
    unsetenv("GIGASPARSE_KEEP_BLAS_CORE");
    EXPECT_EQ(kept.exit_code, 0);
    EXPECT_EQ(kept.out.find("(OPENBLAS_CORETYPE)"), std::string::npos) << kept.out;
}
