// include/gigasparse/direct/options.hpp: structures, views, orderings, status and options of the direct solver.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gigasparse::direct {

// Matrix class: selects the factorization (LLᴴ for spd/hpd, LDLᵀ/LDLᴴ for symmetric/hermitian, LU for general).
enum class Structure { general, symmetric, hermitian, spd, hpd };

// Which stored entries of the CSR input are read. For symmetric structures, `full` reads the lower
// triangle (i >= j) and ignores the rest; `lower`/`upper` read that triangle. For `general` only
// `full` is allowed.
enum class MatrixView { full, lower, upper };

// Fill-reducing ordering: auto chooses between amd and nd by ordering_cost (flops + level_weight × depth).
enum class OrderingAlg { automatic, amd, nd, natural, user };

// Numeric phase of factorize/refactorize: cpu = multifrontal supernodal (BLAS, threads); reference =
// sequential left-looking column Cholesky without BLAS (the oracle), same factor layout; cuda = cpu with the
// large LLᴴ fronts on the GPU.
enum class NumericBackend { cpu, reference, cuda };

// Numerical outcome of a phase (never thrown): not_positive_definite (LLᴴ), zero_pivot (LDLᵀ/LDLᴴ with
// pivot_perturbation = 0, or a NaN/Inf value; LU too), not_converged (a solve whose backward error after
// refinement stays above √ε: SolveInfo::status).
enum class Status { success, not_positive_definite, zero_pivot, not_converged };

// The system a solve solves with the factors of A: A x = b, Aᵀ x = b or Aᴴ x = b (scipy's trans = 'N', 'T',
// 'H'; MUMPS ICNTL(9), PARDISO iparm[11]). One factorization serves all three.
enum class Transpose { none, transpose, conjugate_transpose };

// Precision of the factor's panels: full (the value type) or single (float / complex<float> panels and
// contribution blocks for double / complex<double> values, the solve refining in the value type against the
// original matrix: half the factor memory and bandwidth, the accuracy of a full-precision solve when
// κ(A)·ε_single is well below 1). For float / complex<float> values both are the same.
enum class FactorPrecision { full, single };

// How solve() refines: plain (x += op(A)⁻¹ r through the factors only); gmres (plain steps, then, when they end above
// 10 × refinement_tolerance, flexible GMRES on op(A) d = r preconditioned by the factors, real values; as cuSOLVER's
// IRS refinement solvers); automatic (plain, and GMRES for a single-precision factor with the automatic step count
// when the budget of a double factorization allows 20 iterations or more).
enum class RefinementMethod { automatic, plain, gmres };
// backend cuda: where a front sent to the GPU is assembled: automatic (where fewer bytes cross the bus), always on
// the host (its panel uploaded), always on the device (A's entries and the host children's blocks uploaded)
enum class GpuAssembly { automatic, host, device };

const char* to_string(Structure s);
const char* to_string(MatrixView v);
const char* to_string(OrderingAlg a);
const char* to_string(Status s);
const char* to_string(NumericBackend b);
const char* to_string(Transpose t);
const char* to_string(FactorPrecision p);
const char* to_string(RefinementMethod m);
const char* to_string(GpuAssembly a);
// Parse the spellings of to_string (and "auto", "metis" for nd); throw InvalidArgument otherwise.
Structure parse_structure(std::string_view s);
MatrixView parse_view(std::string_view s);
OrderingAlg parse_ordering(std::string_view s);
NumericBackend parse_numeric_backend(std::string_view s);
Transpose parse_transpose(std::string_view s);  // N|T|H, none|transpose|conjugate_transpose
FactorPrecision parse_factor_precision(std::string_view s);  // full|single (double|float)
RefinementMethod parse_refinement(std::string_view s);       // auto|plain|gmres
GpuAssembly parse_gpu_assembly(std::string_view s);         // auto|host|device

// Relaxed-amalgamation limits (seed §amalgamate): merged panels at most max_width columns; explicit
// zeros of the whole factor at most zero_fraction · nnz(L); panels up to min_width merged eagerly.
// The CPU default leaves the width unbounded (the seed's 256 is a GPU kernel limit): merging the chains
// of narrow separator supernodes near the root adds almost no zeros (lap3d_80: +2%) and removes one
// contribution-block copy per link (lap3d_60 on 2 threads: 3.8 s → 2.6 s).
struct AmalgamationLimits {
    std::int64_t max_width = std::int64_t{1} << 20;
    double zero_fraction = 0.1;
    std::int64_t min_width = 16;
    bool enabled = true;
};

// Options of a DirectSolver; also settable by name through DirectSolver::set_option.
struct DirectOptions {
    OrderingAlg ordering = OrderingAlg::automatic;
    // option "backend": cpu | reference | cuda (the cpu backend with the fronts of at least gpu_front_rows rows on the
    // GPU: LLᵀ by cuSOLVER potrf, cuBLAS trsm and syrk; LU by getrf, trsm and gemm (F11 on the host where a pivot
    // needs perturbing); LDLᵀ in blocks of pivot columns (each block's Bunch–Kaufman tests on the host) by trsm,
    // gemm and syrkx; real values)
    NumericBackend backend = NumericBackend::cpu;
    AmalgamationLimits amalgamation{};
    double level_weight = 1e8;          // flops charged per supernodal level in ordering_cost
    // auto: ND is evaluated only when AMD's flops / nnz(L) reach this ratio (CHOLMOD's rule: below it
    // AMD's fill is already good and METIS costs far more analysis time); 0 always evaluates both.
    double auto_nd_ratio = 500;
    // Maximum iterative-refinement steps in solve; -1 (auto, the default): 2 for a full-precision factor, 10 for
    // a single-precision one (each step gains about -log10(κ ε_single) digits). A step that raises the backward
    // error is undone and ends the refinement.
    std::int64_t refinement_steps = -1;
    FactorPrecision factor_precision = FactorPrecision::full;  // option "factor_precision": full | single
    RefinementMethod refinement = RefinementMethod::automatic;  // option "refinement": auto | plain | gmres
    double refinement_tolerance = 1e-15;  // stop when the normwise backward error is below
    std::int64_t index_base = 0;        // 0 or 1: base of the CSR row offsets and column indices
    std::int64_t threads = 0;           // 0: omp_get_max_threads()
    std::int64_t subtree_factor = 4;    // parallel subtrees per thread (OpenMP task granularity)
    // Fronts with at least this many rows are factored by the blocked tile kernel (recursive potrf/trsm,
    // gemm/herk tiles, near the root on all threads); 0 sends every front there.
    std::int64_t blocked_front_rows = 1024;
    std::int64_t front_block = 384;     // panel block and tile width of the blocked kernel
    // backend cuda: fronts with at least this many rows go to the GPU (the copies — the panel down, A's entries
    // or the panel up, the blocks of children factored on the host — must be paid by the m² w flops of the update).
    std::int64_t gpu_front_rows = 2048;
    GpuAssembly gpu_assembly = GpuAssembly::automatic;  // option "gpu_assembly": auto | host | device
    // Fronts with fewer rows than this are factored in plain loops without BLAS calls (small_front.hpp:
    // the per-call overhead of OpenBLAS outweighs its kernels there, and its buffer lock serializes
    // concurrent subtrees); 0 sends every front to the BLAS. 64: docs/performance/direct-cpu.md.
    std::int64_t small_front_rows = 64;
    // Fronts with fewer rows than this (and at least small_front_rows) factor their panel (the potrf
    // and trsm part) in the same loops and update their contribution block with one BLAS herk; 0: none.
    std::int64_t loop_panel_rows = 192;
    // LDLᵀ / LDLᴴ: a 1×1 pivot with |d| <= pivot_perturbation · max|a_ij| (of the scaled matrix, see
    // pivot_scaling: pivot_perturbation itself; LU: pivots of the scaled matrix) becomes ±that value (static
    // pivoting; the solve's refinement recovers the accuracy). Negative: √ε of the value type (1.5e-8 in
    // double) for LDLᵀ, 450 ε (1e-13) for LU; 0: no perturbation, a zero pivot is Status::zero_pivot.
    double pivot_perturbation = -1;
    // LDLᵀ / LDLᴴ: columns per Bunch–Kaufman pivot search block inside a front (pivots are chosen within it).
    std::int64_t pivot_block = 64;
    // LDLᵀ / LDLᴴ analysis: columns with |a_ii| <= pivot_pair_threshold · max_j≠i |a_ij| are paired with a
    // strong neighbour, and the pair is ordered as one vertex and kept in one supernode (a 2×2 pivot
    // candidate; weak_diagonal_pairs in symbolic.hpp). Negative: no pairs.
    double pivot_pair_threshold = 0.1;
    // LDLᵀ / LDLᴴ: factor S A S with S diagonal such that the pivot candidates have magnitude 1 (a_ii of an
    // unpaired column, a_ij of a pair: the scaling a maximum matching gives, from the greedy pairs); the
    // perturbation threshold is then pivot_perturbation itself. Without it, on a badly scaled matrix
    // (boyd1: diagonals 6..1e4, couplings 1e9) the threshold relative to max|a_ij| perturbs sound pivots.
    bool pivot_scaling = true;
    // LU: permute the rows by a maximum-product matching (large entries on the diagonal) before the
    // ordering, and (with pivot_scaling) scale rows and columns by its duals (every entry <= 1).
    bool matching = true;
    // LU: rounds of delayed pivoting. After a factorization with perturbed pivots, each perturbed column (with the
    // row its front chose for it) is moved into its parent's front, where the rows of the parent are pivot
    // candidates too, by a second analysis of the same pattern (the ordering kept, the delayed columns forced into
    // the parent's supernode) and a second factorization; a round that perturbs no fewer pivots is undone. Pivots
    // of a root front cannot move. 0: static pivoting only (perturbation and refinement).
    std::int64_t delayed_pivots = 4;
    // LU, delayed pivoting: a pivot u_kk with |u_kk| < pivot_threshold · max_i |a_ik| over the rows of its front
    // that could not be pivot candidates there (its contribution-block rows) is delayed too (MUMPS's CNTL(1)); 0:
    // only perturbed pivots are.
    double pivot_threshold = 0.01;
    // LU, delayed pivoting: a round whose analysis needs more than delay_growth times the flops of the first
    // factorization is not run (thousands of delayed columns can multiply the fill; >= 1).
    double delay_growth = 4;
};

}  // namespace gigasparse::direct
