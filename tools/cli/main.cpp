// tools/cli/main.cpp: entry point of `gigasparse`: dispatches to a registered command, maps errors to exit codes.
#include <iostream>
#include <new>

#include <gigasparse/config.hpp>
#include <gigasparse/core/blas.hpp>
#include <gigasparse/core/error.hpp>

#include "common/blas_kernels.hpp"

#include "cli.hpp"

namespace cli = gigasparse::cli;

namespace {

void print_usage() {
    std::cout << "gigasparse " << gigasparse::config::version << " — sparse linear algebra for giant, irregular systems\n\n"
              << "usage: gigasparse COMMAND [ARGS] [--json] [--help]\n\ncommands:\n";
    for (const auto& [name, c] : cli::commands()) std::cout << "  " << name << std::string(name.size() < 10 ? 10 - name.size() : 1, ' ') << c.summary << "\n";
    std::cout << "\n--json prints one JSON object on stdout; `gigasparse COMMAND --help` describes a command.\n"
              << "exit codes: 0 ok, 1 numerical failure (not converged, check failed), 2 usage error,\n"
              << "            3 bad input (unreadable/malformed file, invalid matrix), 4 library/system failure\n";
}

int fail(int code, const std::string& message, bool json) {
    if (json) std::cout << cli::Json().set("error", message).set("exit_code", code).str() << "\n";
    std::cerr << "gigasparse: error: " << message << "\n";
    return code;
}

}  // namespace

int main(int argc, char** argv) {
    gigasparse::tools::use_native_blas_kernels(argv);
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        print_usage();
        return args.empty() ? cli::exit_usage : cli::exit_ok;
    }
    if (args[0] == "--version") {
        std::cout << "gigasparse " << gigasparse::config::version << (gigasparse::config::with_cuda ? " (CUDA)" : " (CPU only)") << "\n";
        const gigasparse::BlasInfo blas = gigasparse::blas_info();
        std::cout << "BLAS: " << (blas.library.empty() ? "unknown" : blas.library);
        if (!blas.core.empty()) std::cout << ", OpenBLAS kernels " << blas.core << (blas.forced_core.empty() ? "" : " (OPENBLAS_CORETYPE)");
        std::cout << ", CPU " << blas.cpu_isa << "\n";
        if (!blas.recommended.empty())
            std::cout << "note: the BLAS kernels are narrower than the CPU's; set OPENBLAS_CORETYPE=" << blas.recommended << "\n";
        return cli::exit_ok;
    }
    const auto it = cli::commands().find(args[0]);
    bool json = false;
    for (const auto& a : args) json |= a == "--json";
    if (it == cli::commands().end()) return fail(cli::exit_usage, "unknown command '" + args[0] + "' (see gigasparse --help)", json);
    const cli::Command& command = it->second;
    try {
        const cli::Args parsed(std::vector<std::string>(args.begin() + 1, args.end()), command.flags);
        if (parsed.flag("help")) {
            std::cout << command.help;
            return cli::exit_ok;
        }
        return command.run(parsed);
    } catch (const cli::UsageError& e) {
        return fail(cli::exit_usage, std::string(e.what()) + "\n" + command.help, json);
    } catch (const gigasparse::IoError& e) {
        return fail(cli::exit_input, e.what(), json);
    } catch (const gigasparse::InvalidStructure& e) {
        return fail(cli::exit_input, e.what(), json);
    } catch (const gigasparse::OutOfMemory& e) {
        return fail(cli::exit_internal, std::string("out of memory: ") + e.what(), json);
    } catch (const gigasparse::InvalidArgument& e) {
        return fail(cli::exit_usage, e.what(), json);
    } catch (const gigasparse::DimensionMismatch& e) {
        return fail(cli::exit_input, e.what(), json);
    } catch (const gigasparse::Error& e) {
        return fail(cli::exit_internal, e.what(), json);
    } catch (const std::bad_alloc&) {
        return fail(cli::exit_internal, "out of memory", json);
    }
}
