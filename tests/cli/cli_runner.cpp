// tests/cli/cli_runner.cpp: runs the CLI in a child shell with stdout and stderr sent to files.
#include "cli_runner.hpp"

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace gigasparse::test {
std::string read_text_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string temp_dir(const std::string& tag) {
    std::random_device rd;
    const auto dir = std::filesystem::temp_directory_path() / ("gigasparse-" + tag + "-" + std::to_string(rd()));
    std::filesystem::create_directories(dir);
    return dir.string();
}

CliResult run_cli(const std::string& args) {
    const std::string dir = temp_dir("cli");
    const std::string cmd = std::string("'") + GIGASPARSE_CLI_PATH + "' " + args + " > '" + dir + "/out' 2> '" + dir + "/err' < /dev/null";
    const int status = std::system(cmd.c_str());
    CliResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read_text_file(dir + "/out");
    r.err = read_text_file(dir + "/err");
    std::filesystem::remove_all(dir);
    return r;
}

}  // namespace gigasparse::test
