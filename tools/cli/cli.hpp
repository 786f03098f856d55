// tools/cli/cli.hpp: the command registry, argument parsing, JSON output and progress of the CLI.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <span>
#include <vector>

#include <gigasparse/core/matrix.hpp>
#include <gigasparse/reference/kernels.hpp>

#include "common/json.hpp"

namespace gigasparse::cli {

using tools::Json;
using tools::json_escape;

// Exit codes (documented in docs/cli.md and `gigasparse --help`).
enum ExitCode : int {
    exit_ok = 0,
    exit_numerical = 1,  // ran, but a numerical outcome failed (not converged, not SPD, check mismatch)
    exit_usage = 2,      // bad command line
    exit_input = 3,      // unreadable or malformed input file, invalid matrix
    exit_internal = 4,   // library or system failure (out of memory, CUDA error, ...)
};

// Parsed command line of one command: `--name value` options, `--flag` switches, positionals.
class Args {
public:
    Args(std::vector<std::string> argv, std::vector<std::string> flags);
    const std::vector<std::string>& positional() const { return positional_; }
    bool flag(const std::string& name) const;
    std::optional<std::string> get(const std::string& name) const;
    std::string get(const std::string& name, const std::string& fallback) const;
    std::int64_t get_int(const std::string& name, std::int64_t fallback) const;
    double get_double(const std::string& name, double fallback) const;
    // Throws UsageError when an option was given that the command does not know.
    void expect_only(const std::vector<std::string>& known) const;

private:
    std::vector<std::string> positional_;
    std::map<std::string, std::string> options_;
    std::vector<std::string> flags_set_;
};

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};


// A registered command. `run` returns an exit code; it throws UsageError for bad arguments and
// lets gigasparse::Error propagate (mapped to exit codes by main).
struct Command {
    std::string name;
    std::string summary;  // one line for `gigasparse --help`
    std::string help;     // full usage text for `gigasparse NAME --help`
    std::vector<std::string> flags;  // options that take no value (besides --json, --help)
    std::function<int(const Args&)> run;
};

// Commands register themselves from their own file: `const bool registered = register_command({...});`
bool register_command(Command command);
const std::map<std::string, Command>& commands();

// Progress on stderr for long work, shown only when stderr is a terminal and --json is off.
class Progress {
public:
    explicit Progress(bool enabled);
    void step(const std::string& what);  // "[12.3 s] what"
    void done();

private:
    bool enabled_;
    double start_;
    bool shown_ = false;
};

// "1.23 ms", "4.56 s": seconds printed for people.
std::string format_seconds(double s);
// 12345678 -> "12,345,678".
std::string format_count(std::int64_t n);

// ||b - A x|| / ||b|| of a solution x (real or complex; 0 when b = 0), what `solve` and `demo` report
// beside a solver's own residual (the reference SpMV: the oracle).
template <class V>
double true_residual(const Csr<V, std::int32_t>& a, std::span<const V> b, std::span<const V> x) {
    std::vector<V> r(b.begin(), b.end());
    reference::spmv<V, std::int32_t>(a.view(), x, r, V(-1), V(1));
    double rr = 0, bb = 0;
    for (std::size_t i = 0; i < r.size(); ++i) {
        rr += std::norm(r[i]);
        bb += std::norm(b[i]);
    }
    return bb > 0 ? std::sqrt(rr / bb) : 0.0;
}

}  // namespace gigasparse::cli
