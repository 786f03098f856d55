// tools/cli/cli.cpp: argument parsing, JSON writer, registry and progress of the CLI.
#include "cli.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

namespace gigasparse::cli {

Args::Args(std::vector<std::string> argv, std::vector<std::string> flags) {
    flags.push_back("json");
    flags.push_back("help");
    for (std::size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a.size() > 2 && a.rfind("--", 0) == 0) {
            std::string name = a.substr(2), value;
            const auto eq = name.find('=');
            if (eq != std::string::npos) {
                value = name.substr(eq + 1);
                name = name.substr(0, eq);
                options_[name] = value;
            } else if (std::find(flags.begin(), flags.end(), name) != flags.end()) {
                flags_set_.push_back(name);
            } else {
                if (i + 1 >= argv.size()) throw UsageError("option --" + name + " needs a value");
                options_[name] = argv[++i];
            }
        } else if (a == "-o") {
            if (i + 1 >= argv.size()) throw UsageError("option -o needs a file name");
            options_["output"] = argv[++i];
        } else {
            positional_.push_back(a);
        }
    }
}

bool Args::flag(const std::string& name) const { return std::find(flags_set_.begin(), flags_set_.end(), name) != flags_set_.end(); }

std::optional<std::string> Args::get(const std::string& name) const {
    const auto it = options_.find(name);
    if (it == options_.end()) return std::nullopt;
    return it->second;
}

std::string Args::get(const std::string& name, const std::string& fallback) const { return get(name).value_or(fallback); }

std::int64_t Args::get_int(const std::string& name, std::int64_t fallback) const {
    const auto v = get(name);
    if (!v) return fallback;
    try {
        std::size_t used = 0;
        const long long x = std::stoll(*v, &used);
        if (used != v->size()) throw std::invalid_argument("trailing characters");
        return x;
    } catch (const std::exception&) {
        throw UsageError("option --" + name + " expects an integer, got '" + *v + "'");
    }
}

double Args::get_double(const std::string& name, double fallback) const {
    const auto v = get(name);
    if (!v) return fallback;
    try {
        std::size_t used = 0;
        const double x = std::stod(*v, &used);
        if (used != v->size()) throw std::invalid_argument("trailing characters");
        return x;
    } catch (const std::exception&) {
        throw UsageError("option --" + name + " expects a number, got '" + *v + "'");
    }
}

void Args::expect_only(const std::vector<std::string>& known) const {
    for (const auto& [name, value] : options_)
        if (std::find(known.begin(), known.end(), name) == known.end()) throw UsageError("unknown option --" + name);
}

namespace {
std::map<std::string, Command>& registry() {
    static std::map<std::string, Command> r;
    return r;
}
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
}  // namespace

bool register_command(Command command) {
    const std::string name = command.name;
    registry()[name] = std::move(command);
    return true;
}

const std::map<std::string, Command>& commands() { return registry(); }

Progress::Progress(bool enabled) : enabled_(enabled && isatty(STDERR_FILENO)), start_(now()) {}

void Progress::step(const std::string& what) {
    if (!enabled_) return;
    std::fprintf(stderr, "\r\033[K[%6.1f s] %s", now() - start_, what.c_str());
    std::fflush(stderr);
    shown_ = true;
}

void Progress::done() {
    if (enabled_ && shown_) std::fprintf(stderr, "\r\033[K");
    shown_ = false;
}

std::string format_seconds(double s) {
    char buf[32];
    if (s < 1e-3) std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
    else if (s < 1) std::snprintf(buf, sizeof buf, "%.2f ms", s * 1e3);
    else std::snprintf(buf, sizeof buf, "%.3f s", s);
    return buf;
}

std::string format_count(std::int64_t n) {
    std::string digits = std::to_string(n < 0 ? -n : n), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return n < 0 ? "-" + out : out;
}

}  // namespace gigasparse::cli
