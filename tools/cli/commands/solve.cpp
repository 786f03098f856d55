// tools/cli/commands/solve.cpp: `gigasparse solve A.mtx [b.mtx]`: preconditioned Krylov solve with a chosen ordering of the sweeps.
#include <algorithm>
#include <cmath>
#include <complex>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>
#include <gigasparse/core/timer.hpp>
#include <gigasparse/cuda/device.hpp>
#include <gigasparse/cuda/device_matrix.hpp>
#include <gigasparse/cuda/iterative.hpp>
#include <gigasparse/io/matrix_market.hpp>
#include <gigasparse/iterative/kernels.hpp>
#include <gigasparse/iterative/krylov.hpp>

#include "cli.hpp"

namespace gigasparse::cli {
namespace {

namespace it = gigasparse::iterative;
using Mat = Csr<double, std::int32_t>;

// b from an array file (first column) or a coordinate n x 1 file.
template <class V>
std::vector<V> read_rhs(const std::string& path, std::int64_t n) {
    const io::MmHeader h = io::read_mtx_header(path);
    std::vector<V> b;
    if (h.format == io::MmFormat::array) {
        const DenseMatrix<V> d = io::read_mtx_dense<V>(path);
        b.assign(d.data.begin(), d.data.begin() + std::min<std::int64_t>(d.nrows, static_cast<std::int64_t>(d.data.size())));
    } else {
        const Csr<V, std::int32_t> c = io::read_mtx<V, std::int32_t>(path);
        b.assign(static_cast<std::size_t>(c.nrows), V(0));
        for (std::int64_t i = 0; i < c.nrows; ++i)
            for (offset_t k = c.row_ptr[i]; k < c.row_ptr[i + 1]; ++k)
                if (c.col_idx[k] == 0) b[i] = c.values[k];
    }
    if (static_cast<std::int64_t>(b.size()) != n)
        throw DimensionMismatch(path + ": b has " + std::to_string(b.size()) + " rows but A has " + std::to_string(n));
    return b;
}

it::SyncKind parse_sync(const std::string& s) {
    if (s == "p2p") return it::SyncKind::point_to_point;
    if (s == "barrier") return it::SyncKind::barrier;
    if (s == "sequential") return it::SyncKind::sequential;
    throw UsageError("--sync must be p2p, barrier or sequential, got '" + s + "'");
}

template <class T>
T parse_or_usage(T (*parse)(const std::string&), const std::string& value) {
    try {
        return parse(value);
    } catch (const InvalidArgument& e) {
        throw UsageError(e.what());
    }
}

struct Setup {
    it::PrecondOptions precond;
    it::SolverOptions solver;
};

// -o x.mtx: the solution as an n x 1 Matrix Market array (atomically; also when the solve did not converge: the exit
// code and the status say so).
template <class V>
void write_solution(const std::optional<std::string>& out, const std::vector<V>& x) {
    if (!out) return;
    DenseMatrix<V> d(static_cast<std::int64_t>(x.size()), 1);
    std::copy(x.begin(), x.end(), d.data.begin());
    io::write_mtx_dense(*out, d);
}

Setup parse_setup(const Args& args) {
    Setup s;
    s.solver.method = parse_or_usage(it::parse_method, args.get("method", "cg"));
    s.precond.kind = parse_or_usage(it::parse_precond, args.get("precond", "none"));
    s.precond.ordering.kind = parse_or_usage(it::parse_ordering, args.get("ordering", "natural"));
    s.solver.tol = args.get_double("tol", 1e-8);
    s.solver.maxit = args.get_int("maxit", 1000);
    s.solver.restart = static_cast<int>(args.get_int("restart", 30));
    s.precond.ordering.dc_levels = static_cast<int>(args.get_int("dc-levels", -1));
    s.precond.ordering.dc_relax_from_level = static_cast<int>(args.get_int("dc-relax-from", -1));
    s.precond.ordering.abmc_block_rows = args.get_int("abmc-block", 256);
    if (const std::string split = args.get("dc-split", "auto"); split == "index") s.precond.ordering.dc_split = it::OrderingOptions::DcSplit::index;
    else if (split == "metis") s.precond.ordering.dc_split = it::OrderingOptions::DcSplit::metis;
    else if (split != "auto") throw UsageError("--dc-split must be auto, index or metis, got '" + split + "'");
    s.precond.ordering.dc_twisted = !args.flag("dc-untwisted");
    s.precond.ordering.dc_leaf_rcm = args.flag("dc-leaf-rcm");
    s.precond.schedule.sync = parse_sync(args.get("sync", "p2p"));
    s.precond.schedule.threads = static_cast<int>(args.get_int("threads", 0));
    s.precond.ordering.threads = s.precond.schedule.threads;
    if (s.solver.tol < 0 || s.solver.maxit < 0 || s.solver.restart < 1) throw UsageError("--tol and --maxit must be >= 0 and --restart >= 1");
    return s;
}

// The residual line of the text output, and a warning when a converged solve's true residual is over 10 times the
// tolerance.
void print_residuals(const it::SolveResult& r, double true_res, double tol) {
    std::cout << (r.converged ? "converged" : "NOT converged") << " (" << it::to_string(r.reason) << "): " << r.iterations
              << " iterations, relative residual " << r.residual << " (true " << true_res << ")\n";
    if (r.converged && true_res > 10 * tol)
        std::cout << "warning: the true residual ||b - Ax||/||b|| = " << true_res << " is " << true_res / tol
                  << " times the tolerance: the solver's own residual drifted from it (the working precision's limit on this system, or "
                     "MINRES's M^-1 norm)\n";
}

void print_text(const it::SolveResult& r, double true_res, double tol, const it::PrecondInfo& info, double setup, double solve,
                const std::optional<std::string>& x_out) {
    print_residuals(r, true_res, tol);
    std::cout
              << "preconditioner " << it::to_string(info.kind) << ", ordering " << it::to_string(info.ordering) << ": depth " << info.depth
              << " (lower " << info.lower.depth << ", upper " << info.upper.depth << "), " << format_count(info.lower.subgraphs)
              << " subgraphs, critical path " << format_count(info.lower.critical_path) << " of " << format_count(info.lower.nnz + info.lower.rows)
              << "\n";
    if (!info.ordering_description.empty()) std::cout << "ordering: " << info.ordering_description << "\n";
    if (!info.auto_reason.empty()) std::cout << "auto: " << info.auto_reason << "\n";
    if (!info.status.ok) std::cout << "preconditioner failed: " << info.status.message << "\n";
    std::cout << "times: setup " << format_seconds(setup) << ", solve " << format_seconds(solve) << ", total " << format_seconds(setup + solve)
              << "\n";
    if (x_out) std::cout << "solution written to " << *x_out << "\n";
}

Json stats_json(const it::ScheduleStats& s) {
    Json j;
    j.set("depth", s.depth).set("row_depth", s.row_depth).set("subgraphs", s.subgraphs).set("tasks", s.tasks).set("waits", s.waits);
    j.set("critical_path", s.critical_path).set("parallelism", s.parallelism).set("threads", s.threads).set("sync", it::to_string(s.sync));
    return j;
}

template <class V>
void print_json(const std::string& path, const Csr<V, std::int32_t>& a, const Setup& s, const it::SolveResult& r, double true_res, const it::PrecondInfo& info,
                double setup, double solve, const std::optional<std::string>& x_out) {
    Json times;
    times.set("setup", setup).set("solve", solve).set("total", setup + solve);
    Json j;
    j.set("matrix", path).set("rows", a.nrows).set("nnz", a.nnz()).set("values", type_name<V>()).set("method", it::to_string(s.solver.method));
    j.set("precond", it::to_string(info.kind)).set("ordering", it::to_string(info.ordering));
    j.set("iterations", r.iterations).set("residual", r.residual).set("true_residual", true_res).set("converged", r.converged).set("reason", it::to_string(r.reason));
    j.set("message", r.message).set("depth", info.depth).set("subgraphs", info.lower.subgraphs).set("critical_path", info.lower.critical_path);
    j.set("lower", stats_json(info.lower)).set("upper", stats_json(info.upper));
    j.set("ordering_description", info.ordering_description).set("auto_reason", info.auto_reason);
    j.set("precond_ok", info.status.ok).set("precond_message", info.status.message);
    if (x_out) j.set("solution", *x_out);
    j.set("times", times);
    std::cout << j.str() << "\n";
}

// --backend cuda: the matrix uploaded once, the Krylov method on the device (none, Jacobi, ILU(0), IC(0), SGS), in V
// (double, or complex<double> for a complex matrix).
template <class V>
int solve_on_gpu(const Args& args, const std::string& path, const Csr<V, std::int32_t>& a, const std::vector<V>& b, const Setup& s) {
    cuda::GpuSolveOptions o;
    o.method = s.solver.method;
    o.restart = s.solver.restart;
    o.precond = parse_or_usage(cuda::parse_gpu_precond, args.get("precond", "none"));
    o.tol = s.solver.tol;
    o.maxit = s.solver.maxit;
    if (!args.get("ordering", "").empty()) o.ordering = s.precond.ordering;  // else the GPU's default, multicolor
    const int device = static_cast<int>(args.get_int("device", 0));
    cuda::check_options(o);  // misuse is reported with or without a device
    if (cuda::device_count() == 0) throw NotSupported("solve: the cuda backend needs a CUDA device: " + cuda::device_summary());
    std::vector<V> x(b.size(), V(0));
    Timer phase;
    const auto d = cuda::DeviceMatrix<V, std::int32_t>::upload(a.view(), device);
    const double upload = phase.lap();
    cuda::GpuSolveStats st;
    const it::SolveResult r = cuda::solve<V, std::int32_t>(d, b, x, o, &st);
    const double solve_s = phase.lap();
    const double true_res = true_residual<V>(a, b, x);
    const auto x_out = args.get("output");
    write_solution(x_out, x);
    if (args.flag("json")) {
        Json times, gpu, ms;
        times.set("upload", upload).set("solve", solve_s).set("total", upload + solve_s);
        ms.set("setup", st.setup_ms).set("iterations", st.solve_ms).set("download", st.download_ms);
        gpu.set("device", cuda::device_summary(device)).set("threads_per_row", st.threads_per_row).set("long_rows", st.long_rows);
        gpu.set("long_row_threshold", st.long_row_threshold).set("spmv_calls", st.spmv_calls).set("device_bytes", st.device_bytes);
        gpu.set("sweep_levels", st.sweep_levels).set("ordering", st.ordering).set("graph_launches", st.graph_launches);
        gpu.set("milliseconds", ms);
        Json j;
        j.set("matrix", path).set("rows", a.nrows).set("nnz", a.nnz()).set("values", type_name<V>()).set("backend", "cuda").set("method", it::to_string(o.method));
        j.set("precond", cuda::to_string(o.precond));
        j.set("iterations", r.iterations).set("residual", r.residual).set("true_residual", true_res).set("converged", r.converged).set("reason", it::to_string(r.reason));
        j.set("message", r.message).set("gpu", gpu).set("times", times);
        if (x_out) j.set("solution", *x_out);
        std::cout << j.str() << "\n";
    } else {
        print_residuals(r, true_res, o.tol);
        std::cout << "gpu: " << cuda::device_summary(device) << "\n"
                  << "preconditioner " << cuda::to_string(o.precond) << ", SpMV " << st.threads_per_row << " lanes per row, "
                  << format_count(st.long_rows) << " rows over " << format_count(st.long_row_threshold) << " entries on a block each, "
                  << format_count(st.spmv_calls) << " SpMVs, " << format_count(st.graph_launches) << " batches of " << o.check_every
                  << " iterations launched as CUDA graphs\n";
        if (st.sweep_levels > 0) std::cout << "sweeps: " << format_count(st.sweep_levels) << " levels per application, ordering " << st.ordering << "\n";
        if (!r.converged) std::cout << r.message << "\n";
        std::cout << "device ms: setup " << st.setup_ms << ", iterations " << st.solve_ms << " (" << (r.iterations > 0 ? st.solve_ms / static_cast<double>(r.iterations) : 0.0)
                  << " per iteration), download " << st.download_ms << "\n"
                  << "times: upload " << format_seconds(upload) << ", solve " << format_seconds(solve_s) << ", total " << format_seconds(upload + solve_s)
                  << "\n";
        if (x_out) std::cout << "solution written to " << *x_out << "\n";
    }
    return r.converged ? exit_ok : exit_numerical;
}

// The CPU backend in V: double, or complex<double> for a complex matrix (CG then needs A Hermitian positive definite,
// IC(0) factors A ≈ L Lᴴ; the inner products conjugate).
template <class V>
int solve_on_cpu(const Args& args, const std::string& path, const Setup& s) {
    const Csr<V, std::int32_t> a = io::read_mtx<V, std::int32_t>(path);
    if (a.nrows != a.ncols) throw DimensionMismatch(path + ": A is " + std::to_string(a.nrows) + " x " + std::to_string(a.ncols) + ", not square");
    validate(a.view(), ValidateOptions{true, true});
    std::vector<V> b(static_cast<std::size_t>(a.nrows), V(0)), x(b.size(), V(0));
    if (args.positional().size() == 2) {
        b = read_rhs<V>(args.positional()[1], a.nrows);
    } else {
        const std::vector<V> ones(b.size(), V(1));
        it::spmv<V, std::int32_t>(it::Backend::omp, a.view(), ones, b);  // b = A · ones
    }
    if (args.get("backend", "cpu") == "cuda") return solve_on_gpu(args, path, a, b, s);
    Timer phase;
    const auto m = it::make_preconditioner(a.view(), s.precond);
    const double setup = phase.lap();
    const it::SolveResult r = it::solve<V>(it::csr_operator(a.view(), it::Backend::omp), b, x, m.get(), s.solver);
    const double solve_s = phase.lap();
    const double true_res = true_residual<V>(a, b, x);
    const auto x_out = args.get("output");
    write_solution(x_out, x);
    if (args.flag("json")) print_json(path, a, s, r, true_res, m->info(), setup, solve_s, x_out);
    else print_text(r, true_res, s.solver.tol, m->info(), setup, solve_s, x_out);
    return r.converged ? exit_ok : exit_numerical;
}

int solve(const Args& args) {
    // The direct method is the `factor` command (analysis, multifrontal factorization, solve, refinement).
    if (args.get("method", "cg") == "direct") return commands().at("factor").run(args);
    args.expect_only(
        {"method", "precond", "ordering", "tol", "maxit", "restart", "sync", "threads", "dc-levels", "dc-relax-from", "dc-split", "abmc-block", "backend", "device",
         "output"});
    const std::string backend = args.get("backend", "cpu");
    if (backend != "cpu" && backend != "cuda") throw UsageError("--backend must be cpu or cuda, got '" + backend + "'");
    if (args.positional().empty() || args.positional().size() > 2) throw UsageError("solve expects A.mtx and optionally b.mtx");
    const Setup s = parse_setup(args);
    const std::string& path = args.positional()[0];
    if (io::read_mtx_header(path).field == io::MmField::complex) return solve_on_cpu<std::complex<double>>(args, path, s);
    return solve_on_cpu<double>(args, path, s);
}
const bool registered = register_command({
    "solve",
    "solve A x = b with a preconditioned Krylov method (CG, BiCGStab, GMRES, FGMRES, MINRES) or the direct solver",
    "usage: gigasparse solve A.mtx [b.mtx] [-o x.mtx] [--method cg|bicgstab|gmres|fgmres|minres|direct] [--precond none|jacobi|ilu0|ic0|sgs]\n"
    "                        [--ordering natural|rcm|mc|abmc|dc|auto] [--tol 1e-8] [--maxit 1000] [--restart 30]\n"
    "                        [--sync p2p|barrier|sequential] [--threads N] [--dc-levels L] [--dc-relax-from L]\n"
    "                        [--dc-split auto|index|metis] [--dc-untwisted] [--dc-leaf-rcm]\n"
    "                        [--abmc-block ROWS] [--backend cpu|cuda] [--device N] [--json]\n\n"
    "--backend cuda solves on the GPU (--device N, default 0): every method (GMRES: the basis and its classical\n"
    "Gram-Schmidt, twice, and the Givens rotations on the device); the matrix is uploaded\n"
    "once and the iteration stays on the device (prints the SpMV shape and the device's own times; \"gpu\" in\n"
    "JSON). ilu0, ic0 and sgs are factored on the host on the ordering (default there: mc, whose colors are\n"
    "the sweeps' levels) and applied on the device a level per launch. Without a GPU: exit code 4 and the reason.\n\n"
    "--method direct runs the sparse direct solver instead (the options and output of `gigasparse factor`:\n"
    "--structure, --ordering, --refine; \"residual\" and \"times\": {\"analyze\", \"factorize\", \"solve\", \"total\"}).\n\n"
    "minres: symmetric (Hermitian) A, indefinite allowed; its preconditioner must be positive definite (jacobi\n"
    "of a positive diagonal, ic0, sgs; ilu0 is refused), and the residual it tests is then in the M^-1 norm.\n\n"
    "A complex matrix (Matrix Market field complex) is solved in complex<double> (CPU or GPU): inner products\n"
    "conjugate, CG and IC(0) need A Hermitian positive definite (IC(0): A ~ L L^H); b is read as complex.\n\n"
    "Solves A x = b from x = 0 (b defaults to A * ones), stopping when the solver's residual (CG, BiCGStab: the\n"
    "recurrence's; GMRES: the Arnoldi estimate) <= tol * ||b|| or after\n"
    "maxit iterations; -o writes x as an n x 1 Matrix Market array (also when not converged). The ordering reorders the preconditioner's sweeps (ILU(0), IC(0), SGS): natural,\n"
    "reverse Cuthill-McKee, point multicolor, algebraic block multicolor, divide and conquer (bisection\n"
    "of the index range or METIS, --dc-split; --dc-relax-from L colors the separators of recursion levels\n"
    ">= L), or auto (a model of the time to solution from each ordering's schedule and a probe; the reason\n"
    "is printed).\n"
    "Prints iterations, the solver's residual and the true one ||b - A x|| / ||b|| of the returned x (a warning when\n"
    "a converged solve's true residual is over 10 tol: the recurrence drifted), the schedule's depth and the\n"
    "setup/solve times (file I/O excluded);\n"
    "--json prints one object with \"iterations\", \"residual\", \"true_residual\", \"converged\", \"depth\", \"solution\" (with -o) and\n"
    "\"times\": {\"setup\", \"solve\", \"total\"}.\n"
    "exit codes: 0 converged, 1 not converged (or breakdown, preconditioner failure), 2 usage error,\n"
    "            3 unreadable or invalid input (non-square, NaN values)\n",
    {"dc-untwisted", "dc-leaf-rcm"},
    solve,
});

}  // namespace
}  // namespace gigasparse::cli
