// bench/direct/competitors.hpp: MUMPS (sequential Debian build) and MKL PARDISO behind one plain interface
// (benchmark only, never linked into the library). Each adapter is compiled to a stub that reports
// "not built" when its library was not found at configure time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <gigasparse/core/matrix.hpp>

namespace gigasparse::bench {

struct DirectResult {
    bool available = false;       // the adapter was built (library found at configure time)
    bool ok = false;              // every phase succeeded
    std::string error;            // why not, when !ok
    std::string ordering;         // the ordering the solver used
    double analyze = 0, factorize = 0, refactorize = 0, solve = 0;  // wall seconds (refactorize: best of repeats)
    double refactorize_cpu = 0;   // process CPU seconds of the best refactorization
    double nnz_L = 0;             // entries of L as the solver reports them
    double flops = 0;             // the solver's own flop count (its convention), 0 if none
    double residual = 0;          // ||b - A x||_2 / ||b||_2 with b = ones, computed here from x
    double perturbed = -1;        // symmetric indefinite: pivots perturbed (PARDISO) or delayed (MUMPS), -1 if none
    double negative = -1;         // symmetric indefinite: negative pivots (inertia), -1 if not reported
    std::vector<double> schur_diag;  // with a Schur set: the diagonal of the Schur complement (in the set's order)
};

// Full CSR input (both triangles); kind 0: SPD, 1: symmetric indefinite, 2: general (LU); default
// ordering of each solver; x = A \ ones. schur (optional, increasing 0-based variables): the Schur complement
// is computed by the factorization (MUMPS ICNTL(19) = 1, PARDISO iparm[35] = 2 with perm marking the set),
// its diagonal returned, and no solve runs.
DirectResult run_mumps(const Csr<double, std::int64_t>& a, int repeats, int kind = 0,
                       const std::vector<std::int64_t>* schur = nullptr);
// single: PARDISO's single-precision mode (iparm[27] = 1: float arrays, float arithmetic throughout).
DirectResult run_pardiso(const Csr<double, std::int64_t>& a, int repeats, int threads, int kind = 0,
                         const std::vector<std::int64_t>* schur = nullptr, bool single = false);

// A uniform batch: count value sets (count x nnz(a), CSR order of a's full pattern) factored and solved (b = ones) one
// after the other after one analysis (MUMPS: job 1, then jobs 2 and 3 per matrix; PARDISO: phase 11, then 22 and 33).
struct BatchResult {
    bool available = false, ok = false;
    std::string error;
    double analyze = 0, factorize = 0, solve = 0;  // wall seconds; factorize and solve summed over the batch
    double max_residual = 0;                       // max over the items of ||1 - A_t x_t||_2 / ||1||_2
};
BatchResult run_mumps_batch(const Csr<double, std::int64_t>& a, const std::vector<double>& values, std::int64_t count, int kind);
BatchResult run_pardiso_batch(const Csr<double, std::int64_t>& a, const std::vector<double>& values, std::int64_t count,
                              int threads, int kind);

// diag(A⁻¹) of an SPD matrix by MUMPS's computation of selected entries of the inverse (ICNTL(30) = 1, the
// diagonal requested as a sparse right-hand side; job 3 after the analysis and factorization).
struct InverseDiagonalResult {
    bool available = false, ok = false;
    std::string error;
    double analyze = 0, factorize = 0, inverse = 0;  // wall seconds
    std::vector<double> diagonal;
};
InverseDiagonalResult run_mumps_inverse_diagonal(const Csr<double, std::int64_t>& a, int kind);  // kind: run_mumps's

// ||b - A x||_2 / ||b||_2 for b = ones.
double residual_ones(const Csr<double, std::int64_t>& a, const double* x);

}  // namespace gigasparse::bench
