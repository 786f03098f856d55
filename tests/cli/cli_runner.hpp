// tests/cli/cli_runner.hpp: runs the gigasparse executable and captures its exit code, stdout and stderr.
#pragma once

#include <string>

namespace gigasparse::test {

struct CliResult {
    int exit_code = -1;
    std::string out;  // stdout
    std::string err;  // stderr
};

// Runs `gigasparse ARGS` through the shell (ARGS is appended verbatim, quote paths yourself).
CliResult run_cli(const std::string& args);

// The whole content of a text file ("" when it cannot be read).
std::string read_text_file(const std::string& path);

// A fresh empty temporary folder for one test's files (removed by the OS tmp cleaner only).
std::string temp_dir(const std::string& tag);

}  // namespace gigasparse::test
