// tools/cli/commands/factor.cpp: `gigasparse factor A.mtx [b.mtx]`: direct-solver analysis, factorization and solve.
#include <algorithm>
#include <cmath>
#include <complex>
#include <iostream>
#include <string>

#include <gigasparse/core/error.hpp>
#include <gigasparse/core/timer.hpp>
#include <gigasparse/direct/solver.hpp>
#include <gigasparse/io/matrix_market.hpp>

#include "cli.hpp"

namespace gigasparse::cli {
namespace {

// "--schur 1-100,205,300-310": 1-based variables (as Matrix Market rows), ranges inclusive; 0-based out.
std::vector<std::int64_t> parse_schur(const std::string& list, std::int64_t n) {
    std::vector<std::int64_t> out;
    auto number = [&](const std::string& t) {
        std::size_t used = 0;
        long long v = 0;
        try {
            v = std::stoll(t, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (t.empty() || used != t.size()) throw UsageError("--schur expects 1-based indices and ranges like 1-100,205, got '" + t + "'");
        if (v < 1 || v > n) throw UsageError("--schur index " + t + " is outside 1.." + std::to_string(n));
        return static_cast<std::int64_t>(v);
    };
    for (std::size_t p = 0; p <= list.size();) {
        std::size_t e = list.find(',', p);
        if (e == std::string::npos) e = list.size();
        const std::string item = list.substr(p, e - p);
        const std::size_t dash = item.find('-', 1);
        const std::int64_t lo = number(dash == std::string::npos ? item : item.substr(0, dash));
        const std::int64_t hi = dash == std::string::npos ? lo : number(item.substr(dash + 1));
        if (hi < lo) throw UsageError("--schur range " + item + " is empty");
        for (std::int64_t v = lo; v <= hi; ++v) out.push_back(v - 1);
        p = e + 1;
    }
    std::vector<std::int64_t> sorted = out;
    std::sort(sorted.begin(), sorted.end());
    if (auto d = std::adjacent_find(sorted.begin(), sorted.end()); d != sorted.end())
        throw UsageError("--schur lists variable " + std::to_string(*d + 1) + " twice");
    return out;
}

template <class V>
int run_factor(const Args& args) {
    const std::string& file = args.positional()[0];
    const direct::Structure structure = direct::parse_structure(args.get("structure", "spd"));
    Timer timer;
    const io::MmMatrix<V, std::int64_t> m = io::read_mtx_stored<V, std::int64_t>(file);
    const double read_s = timer.lap();
    // Symmetric files hold the lower triangle: read it as such; general files are read in full.
    const bool stored_triangle = m.header.symmetry != Symmetry::general;
    if (stored_triangle && structure == direct::Structure::general)
        throw UsageError("--structure general needs a general (full) Matrix Market file");
    direct::DirectSolver<V, std::int64_t> solver(structure, stored_triangle ? direct::MatrixView::lower : direct::MatrixView::full);
    solver.set_option("ordering", args.get("ordering", "auto"));
    if (args.get("refine")) solver.set_option("refinement_steps", std::to_string(args.get_int("refine", 0)));  // else auto
    const std::string precision = args.get("factor-precision", "full");
    try {
        solver.set_option("factor_precision", precision);
    } catch (const InvalidArgument& err) {
        throw UsageError(err.what());
    }
    const bool single_requested = solver.get_option("factor_precision") == "single";
    if (auto t = args.get("threads")) solver.set_option("threads", *t);
    solver.set_option("backend", args.get("backend", "cpu"));  // cpu (multifrontal) | reference (oracle) | cuda (large fronts on the GPU)
    // --options "name=value,name=value": any DirectSolver option (pivot_perturbation, matching, ...).
    if (auto opts = args.get("options")) {
        const std::string& o = *opts;
        for (std::size_t p = 0; p < o.size();) {
            std::size_t e = o.find(',', p);
            if (e == std::string::npos) e = o.size();
            const std::string kv = o.substr(p, e - p);
            const std::size_t eq = kv.find('=');
            if (eq == std::string::npos || eq == 0) throw UsageError("--options expects name=value[,name=value...], got '" + kv + "'");
            try {
                solver.set_option(kv.substr(0, eq), kv.substr(eq + 1));
            } catch (const InvalidArgument& err) {
                throw UsageError(err.what());
            }
            p = e + 1;
        }
    }
    const Csr<V, std::int64_t>& a = m.stored;
    const std::int64_t n = a.nrows;
    // b: n x k (k right-hand sides, solved together), all ones when omitted
    DenseMatrix<V> b(n, 1);
    std::fill(b.data.begin(), b.data.end(), V(1));
    if (args.positional().size() > 1) {
        b = io::read_mtx_dense<V>(args.positional()[1]);
        if (b.nrows != n || b.ncols < 1)
            throw UsageError("b must be an n x k dense Matrix Market array with n = " + std::to_string(n) + ", got " + std::to_string(b.nrows) + " x " +
                             std::to_string(b.ncols));
    }
    const std::int64_t nrhs = b.ncols;
    const auto x_out = args.get("output");
    const direct::Transpose op = direct::parse_transpose(args.get("transpose", "N"));  // bad value: exit 2
    const char* trans = op == direct::Transpose::none ? "N" : op == direct::Transpose::transpose ? "T" : "H";
    const auto invdiag_out = args.get("inverse-diagonal");
    std::vector<std::int64_t> schur;
    if (auto list = args.get("schur")) schur = parse_schur(*list, n);
    if (args.get("schur-out") && schur.empty()) throw UsageError("--schur-out needs --schur");
    solver.set_schur_indices(schur);
    timer.reset();
    solver.analyze(a);
    const double analyze_s = timer.lap();
    const direct::Status st = solver.factorize(a);
    const double factor_s = timer.lap();
    // A failed factorization of a matrix with a NaN/Inf value: that value is the cause (the solver reports it as the
    // failing pivot's status at its column before any arithmetic), not the structure.
    std::int64_t bad_row = -1, bad_col = -1;
    if (st != direct::Status::success)
        for (std::int64_t r = 0; r < n && bad_row < 0; ++r)
            for (auto k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
                if (!std::isfinite(std::real(a.values[k])) || !std::isfinite(std::imag(a.values[k]))) {
                    bad_row = r, bad_col = a.col_idx[k];
                    break;
                }
    const std::string non_finite =
        bad_row < 0 ? std::string()
                    : "the matrix has a non-finite value (NaN or Inf) at row " + std::to_string(bad_row + 1) + ", column " + std::to_string(bad_col + 1) +
                          " of the file";
    // The Schur complement (dense, rows and columns in the order given), written when asked.
    double schur_s = 0, schur_norm = 0;
    if (!schur.empty() && st == direct::Status::success) {
        const DenseMatrix<V> S = solver.schur_complement();
        schur_s = timer.lap();
        for (const V& v : S.data) schur_norm += std::norm(v);
        schur_norm = std::sqrt(schur_norm);
        if (auto out = args.get("schur-out")) io::write_mtx_dense(*out, S);
        timer.reset();
    }
    double invdiag_s = 0;
    if (invdiag_out && st == direct::Status::success) {
        timer.reset();
        const std::vector<V> d = solver.inverse_diagonal();
        invdiag_s = timer.lap();
        DenseMatrix<V> dm(n, 1);
        std::copy(d.begin(), d.end(), dm.data.begin());
        io::write_mtx_dense(*invdiag_out, dm);
        timer.reset();
    }
    double condest = 0, condest_s = 0;
    if (args.flag("condest") && st == direct::Status::success) {
        timer.reset();
        condest = solver.condition_estimate();
        condest_s = timer.lap();
        timer.reset();
    }
    direct::SolveInfo info;
    DenseMatrix<V> x(n, nrhs);
    double solve_s = 0;
    if (st == direct::Status::success) {
        info = solver.solve(b, x, op);
        solve_s = timer.lap();
        // written also when the solve is inaccurate (not_converged: the exit code and the status say so)
        if (x_out) io::write_mtx_dense(*x_out, x);
    }
    const double total = analyze_s + factor_s + solve_s;
    const double flops = solver.result("flops");
    // LDLᵀ / LDLᴴ: pivoting facts, and the inertia where it exists (not for complex symmetric values).
    const bool ldlt = structure == direct::Structure::symmetric || structure == direct::Structure::hermitian;
    const bool has_inertia = ldlt && !(m.header.field == io::MmField::complex && structure == direct::Structure::symmetric);
    Json pivots;
    if (ldlt && st == direct::Status::success) {
        pivots.set("pairs", solver.result("pivot_pairs"))
            .set("two_by_two", solver.result("two_by_two_pivots"))
            .set("perturbed", solver.result("perturbed_pivots"));
        if (has_inertia) {
            const direct::Inertia in = solver.inertia();
            pivots.set("positive", in.positive).set("negative", in.negative).set("zero", in.zero);
        }
    }
    if (args.flag("json")) {
        Json times;
        times.set("read", read_s).set("analyze", analyze_s).set("factorize", factor_s).set("solve", solve_s).set("total", total);
        Json out;
        out.set("file", file)
            .set("n", n)
            .set("structure", direct::to_string(structure))
            .set("ordering", solver.ordering_used())
            .set("backend", solver.get_option("backend"))
            .set("nnz_L", solver.result("nnz_L"))
            .set("flops", flops)
            .set("gflops_per_s", factor_s > 0 ? flops / factor_s * 1e-9 : 0.0)
            .set("supernodes", solver.result("supernodes"))
            .set("levels", solver.result("levels"))
            .set("memory_estimate", solver.result("memory_estimate"))
            .set("status", direct::to_string(st))
            .set("failing_column", solver.result("failing_column"))
            .set("non_finite_value", non_finite)
            .set("residual", info.residual)
            .set("backward_error", info.backward_error)
            .set("transpose", trans)
            .set("nrhs", nrhs)
            .set("solve_status", direct::to_string(info.status))
            .set("refinement_steps", info.refinement_steps)
            .set("krylov_iterations", info.krylov_iterations)
            .set("factor_precision", solver.result("single_factor") != 0 ? "single" : "full")
            .set("times", times);
        if (ldlt && st == direct::Status::success) out.set("pivots", pivots);
        if (solver.get_option("backend") == "cuda") {
            Json gj;
            gj.set("fronts", solver.result("gpu_fronts")).set("flops", solver.result("gpu_flops")).set("bytes", solver.result("gpu_bytes"));
            gj.set("seconds", solver.result("gpu_seconds")).set("min_front_rows", solver.get_option("gpu_front_rows"));
            gj.set("host_f11", solver.result("gpu_host_f11")).set("kept_blocks", solver.result("gpu_kept_blocks"));
            gj.set("kept_bytes", solver.result("gpu_kept_bytes")).set("peak_bytes", solver.result("gpu_peak_bytes"));
            gj.set("device_assembled", solver.result("gpu_device_assembled")).set("too_large", solver.result("gpu_too_large"));
            out.set("gpu", gj);
        }
        if (x_out && st == direct::Status::success) out.set("solution", *x_out);
        if (invdiag_out && st == direct::Status::success) {
            Json ij;
            ij.set("file", *invdiag_out).set("seconds", invdiag_s);
            out.set("inverse_diagonal", ij);
        }
        if (args.flag("condest") && st == direct::Status::success) {
            Json cj;
            cj.set("one_norm", condest).set("seconds", condest_s);
            out.set("condition_estimate", cj);
        }
        if (st == direct::Status::success) {
            const auto d = solver.log_determinant();
            Json dj;
            dj.set("log_abs", d.log_abs);
            if constexpr (is_complex_v<V>) dj.set("phase", std::arg(d.sign));
            else dj.set("sign", d.sign);
            out.set("determinant", dj);
        }
        if (!schur.empty()) {
            Json sj;
            sj.set("size", static_cast<std::int64_t>(schur.size())).set("frobenius_norm", schur_norm).set("seconds", schur_s);
            if (auto o = args.get("schur-out")) sj.set("file", *o);
            out.set("schur", sj);
        }
        if (structure == direct::Structure::general && st == direct::Status::success) {
            Json lu_pivots;
            lu_pivots.set("perturbed", solver.result("perturbed_pivots"))
                .set("delayed", solver.result("delayed_pivots"))
                .set("delay_rounds", solver.result("delay_rounds"))
                .set("unmatched", solver.result("unmatched_columns"));
            out.set("pivots", lu_pivots);
        }
        std::cout << out.str() << "\n";
    } else {
        std::cout << "file            " << file << " (n = " << format_count(n) << ")\n"
                  << "structure       " << direct::to_string(structure) << "\n"
                  << "ordering        " << solver.ordering_used() << "\n"
                  << "nnz(L)          " << format_count(static_cast<std::int64_t>(solver.result("nnz_L"))) << "\n"
                  << "flops           " << flops << "\n"
                  << "supernodes      " << format_count(static_cast<std::int64_t>(solver.result("supernodes")))
                  << " (" << solver.result("levels") << " levels)\n"
                  << "memory estimate " << format_count(static_cast<std::int64_t>(solver.result("memory_estimate"))) << " bytes\n"
                  << "analyze         " << format_seconds(analyze_s) << "\n"
                  << "factorize       " << format_seconds(factor_s) << " (" << (factor_s > 0 ? flops / factor_s * 1e-9 : 0.0)
                  << " GFLOP/s)\n";
        if (solver.get_option("backend") == "cuda")
            std::cout << "gpu             " << format_count(static_cast<std::int64_t>(solver.result("gpu_fronts"))) << " fronts of >= "
                      << solver.get_option("gpu_front_rows") << " rows, " << solver.result("gpu_flops") / std::max(flops, 1.0) * 100
                      << "% of the flops, " << format_count(static_cast<std::int64_t>(solver.result("gpu_bytes")))
                      << " bytes copied, " << format_seconds(solver.result("gpu_seconds")) << "; "
                      << format_count(static_cast<std::int64_t>(solver.result("gpu_kept_blocks"))) << " contribution blocks ("
                      << format_count(static_cast<std::int64_t>(solver.result("gpu_kept_bytes"))) << " bytes) kept on the device, peak "
                      << format_count(static_cast<std::int64_t>(solver.result("gpu_peak_bytes"))) << " bytes; "
                      << format_count(static_cast<std::int64_t>(solver.result("gpu_device_assembled"))) << " fronts assembled on the device"
                      << (solver.result("gpu_too_large") > 0
                              ? "; " + format_count(static_cast<std::int64_t>(solver.result("gpu_too_large"))) + " fronts too large for the device (on the host)"
                              : std::string())
                      << "\n";
        if (single_requested && st == direct::Status::success)
            std::cout << "precision       "
                      << (solver.result("single_factor") != 0
                              ? "single (float factor, " + format_count(static_cast<std::int64_t>(solver.result("factor_bytes"))) +
                                    " bytes; the solve refines in double)"
                              : std::string("full (single was requested: the values do not fit float, or the single factor "
                                            "broke down or did not refine to full accuracy)"))
                      << "\n";
        if (structure == direct::Structure::general && st == direct::Status::success) {
            const auto rounds = static_cast<std::int64_t>(solver.result("delay_rounds"));
            std::cout << "pivots          " << format_count(static_cast<std::int64_t>(solver.result("perturbed_pivots")))
                      << " perturbed";
            if (rounds > 0)
                std::cout << ", " << format_count(static_cast<std::int64_t>(solver.result("delayed_pivots"))) << " delayed in "
                          << rounds << (rounds == 1 ? " round" : " rounds");
            std::cout << " (matching: " << format_count(static_cast<std::int64_t>(solver.result("unmatched_columns")))
                      << " unmatched columns)\n";
        }
        if (ldlt && st == direct::Status::success) {
            std::cout << "pivots          " << format_count(static_cast<std::int64_t>(solver.result("two_by_two_pivots")))
                      << " 2x2 (" << format_count(static_cast<std::int64_t>(solver.result("pivot_pairs")))
                      << " pairs from the analysis), "
                      << format_count(static_cast<std::int64_t>(solver.result("perturbed_pivots"))) << " perturbed\n";
            if (has_inertia) {
                const direct::Inertia in = solver.inertia();
                std::cout << "inertia         " << format_count(in.positive) << " positive, " << format_count(in.negative)
                          << " negative, " << format_count(in.zero) << " zero\n";
            }
        }
        if (st == direct::Status::success) {
            const auto d = solver.log_determinant();
            std::cout << "log|det A|      " << d.log_abs;
            if constexpr (is_complex_v<V>) std::cout << " (phase " << std::arg(d.sign) << " rad)\n";
            else std::cout << " (sign " << (d.sign > 0 ? "+1" : d.sign < 0 ? "-1" : "0") << ")\n";
        }
        if (invdiag_out && st == direct::Status::success)
            std::cout << "diag(A^-1)      written to " << *invdiag_out << " (selected inversion, " << format_seconds(invdiag_s) << ")\n";
        if (args.flag("condest") && st == direct::Status::success)
            std::cout << "condition       " << condest << " (estimate of ||A||_1 ||A^-1||_1, " << format_seconds(condest_s) << ")\n";
        if (!schur.empty() && st == direct::Status::success) {
            const auto o = args.get("schur-out");
            std::cout << "schur           " << format_count(static_cast<std::int64_t>(schur.size())) << " x "
                      << format_count(static_cast<std::int64_t>(schur.size())) << " dense complement (||S||_F " << schur_norm
                      << ", extracted in " << format_seconds(schur_s) << (o ? ", written to " + *o : std::string()) << ")\n";
        }
        if (st == direct::Status::success) {
            std::cout << "solve           " << format_seconds(solve_s) << " (" << info.refinement_steps << " refinement steps"
                      << (info.krylov_iterations > 0 ? ", " + std::to_string(info.krylov_iterations) + " GMRES iterations" : std::string())
                      << (op == direct::Transpose::transpose ? ", A^T x = b" : op == direct::Transpose::conjugate_transpose ? ", A^H x = b" : "")
                      << (nrhs > 1 ? ", " + format_count(nrhs) + " right-hand sides" : std::string()) << ")\n"
                      << "residual        " << info.residual << " (backward error " << info.backward_error
                      << (nrhs > 1 ? "; the largest of the columns" : "") << ")\n";
            if (x_out) std::cout << "solution        written to " << *x_out << " (" << format_count(n) << " x " << format_count(nrhs) << ")\n";
            if (info.status != direct::Status::success)
                std::cout << "status          " << direct::to_string(info.status)
                          << ": the backward error stayed above sqrt(eps) (perturbed pivots the refinement could not"
                             " recover; more --refine steps, --options refinement=gmres, more delayed pivoting (LU: --options"
                             " delayed_pivots=8), or --options matching=0, may help)\n";
        }
        else
            std::cout << "status          " << direct::to_string(st) << " at column "
                      << static_cast<std::int64_t>(solver.result("failing_column"))
                      << (!non_finite.empty() ? " (" + non_finite + ")"
                          : st == direct::Status::not_positive_definite ? std::string(" (for a symmetric indefinite matrix: --structure symmetric, LDL^T)")
                                                                        : std::string())
                      << "\n";
    }
    return st == direct::Status::success && info.status == direct::Status::success ? exit_ok : exit_numerical;
}

int factor(const Args& args) {
    args.expect_only({"structure", "ordering", "backend", "refine", "threads", "method", "options", "schur", "schur-out", "transpose",
                      "inverse-diagonal", "factor-precision", "output"});  // method: `solve --method direct` lands here
    if (args.get("method", "direct") != "direct") throw UsageError("factor is the direct method; --method must be direct");
    if (args.positional().empty() || args.positional().size() > 2) throw UsageError("factor expects A.mtx [b.mtx]");
    const io::MmHeader h = io::read_mtx_header(args.positional()[0]);
    return h.field == io::MmField::complex ? run_factor<std::complex<double>>(args) : run_factor<double>(args);
}

const bool registered = register_command({
    "factor",
    "sparse direct solve: ordering, symbolic analysis, multifrontal Cholesky, LDL^T or LU, solve with refinement",
    "usage: gigasparse factor A.mtx [b.mtx] [-o x.mtx] [--structure spd|hpd|symmetric|hermitian|general]\n"
    "                         [--ordering auto|amd|nd|natural] [--backend cpu|reference|cuda]\n"
    "                         [--refine N] [--factor-precision full|single] [--threads T] [--options name=value,...]\n"
    "                         [--schur 1-100,205,... [--schur-out S.mtx]] [--transpose N|T|H] [--condest]\n"
    "                         [--inverse-diagonal D.mtx] [--json]\n\n"
    "Analyzes A (fill-reducing ordering, elimination tree, supernodes), factors it (LL^T / LL^H for\n"
    "spd/hpd; LDL^T / LDL^H for symmetric/hermitian: Bunch-Kaufman pivoting inside each front, weak\n"
    "diagonals paired with a strong neighbour by the analysis, symmetric scaling, tiny pivots perturbed\n"
    "and recovered by refinement; LU for general: rows permuted and scaled by a maximum-product matching,\n"
    "partial pivoting inside each front's fully summed rows, tiny pivots perturbed) and\n"
    "solves A x = b (b: an n x k Matrix Market array, its k columns solved together; all ones when omitted;\n"
    "-o writes the solution x, n x k, as a Matrix Market array) with at most N steps\n"
    "of iterative refinement (default 2; 10 with --factor-precision single, which computes and stores the factor\n"
    "in float / complex<float> — half the memory — and refines in double to the same accuracy, falling back\n"
    "to a full-precision factor where single cannot deliver it); --transpose T solves A^T x = b, H solves A^H x = b, with the\n"
    "same factors; --condest adds an estimate of the 1-norm condition number (Higham-Tisseur block\n"
    "estimator: a few two-column solves with A and A^H); --inverse-diagonal writes diag(A^-1) (selected inversion of the\n"
    "factor, no solves; LU solves for the entries off its pattern) as an n x 1 Matrix Market array. --backend reference factors with the sequential reference\n"
    "numeric phase (left-looking, no BLAS; the test oracle) instead of the multifrontal one; --backend cuda\n"
    "factors the LL^T fronts of at least gpu_front_rows rows (default 2048; --options gpu_front_rows=N) on the GPU\n"
    "(cuSOLVER potrf, cuBLAS trsm and syrk; LU: getrf, trsm and gemm; LDL^T: blocks of pivot columns, their\n"
    "Bunch-Kaufman tests on the host, trsm, gemm and syrkx on the GPU;\n"
    "real values; prints the fronts, their share of the flops and the\n"
    "bytes copied; \"gpu\" in JSON; exit code 4 with the reason without a GPU).\n"
    "Symmetric files are read as their stored lower triangle. --options sets any solver option by name\n"
    "(docs/direct.md: e.g. pivot_perturbation=0,matching=0,pivot_block=128).\n"
    "Prints the ordering, nnz(L), flops (sum of squared column counts), supernodes and levels, the\n"
    "memory estimate, phase times, log|det A| with its sign, and the relative residual ||b - Ax||_2 / ||b||_2; for LDL^T also\n"
    "the 2x2 and perturbed pivots and the inertia (positive, negative, zero eigenvalues of D), for LU\n"
    "the perturbed pivots and the columns the matching could not match (structurally singular).\n"
    "--schur takes 1-based variables (ranges inclusive): they are ordered last and not factored; the\n"
    "dense Schur complement S = A22 - A21 A11^-1 A12 is extracted (rows and columns in the given order),\n"
    "its Frobenius norm printed and, with --schur-out, written as a Matrix Market array; the solve still\n"
    "solves with A (through a dense LU of S).\n\n"
    "--json  one JSON object: \"nnz_L\", \"flops\", \"residual\", \"backward_error\" (the largest over the columns of b),\n"
    "        \"transpose\", \"nrhs\", \"solution\" (with -o), \"status\" (of the\n"
    "        factorization), \"solve_status\" (not_converged: backward error above sqrt(eps) after refinement), and\n"
    "        \"times\" with analyze, factorize, solve and total (total excludes reading); LDL^T adds\n"
    "        \"pivots\": {pairs, two_by_two, perturbed, positive, negative, zero}; LU: \"pivots\": {perturbed, delayed, delay_rounds, unmatched};\n"
    "        --schur adds \"schur\": {size, frobenius_norm, seconds, file}; --condest \"condition_estimate\":\n"
    "        {one_norm, seconds}; --inverse-diagonal \"inverse_diagonal\": {file, seconds}; \"determinant\": {log_abs, sign (real)\n"
    "        or phase (complex, radians)} of A from the factors.\n"
    "exit codes: 0 ok, 1 not positive definite / zero pivot / solve not converged, 2 usage error, 3 unreadable or malformed file,\n"
    "            4 not supported (e.g. --backend reference with a non-definite structure)\n",
    {"condest"},
    factor,
});

}  // namespace
}  // namespace gigasparse::cli
