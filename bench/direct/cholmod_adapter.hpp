// bench/direct/cholmod_adapter.hpp: CHOLMOD supernodal Cholesky behind a plain interface (benchmark only).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <gigasparse/core/matrix.hpp>

namespace gigasparse::bench {

struct CholmodResult {
    double analyze = 0, factorize = 0, refactorize = 0, solve = 0;  // wall seconds
    double refactorize_cpu = 0;                                      // process CPU seconds
    double nnz_L = 0, flops = 0, residual = 0;
    std::string ordering;
    std::vector<std::int64_t> perm;  // perm[new] = old
    bool ok = false;
};

// Full symmetric CSR (== CSC) input; CHOLMOD's default ordering (or "amd"/"metis"); x = A \ ones.
CholmodResult run_cholmod(const Csr<double, std::int64_t>& a, const std::string& ordering, int repeats);

}  // namespace gigasparse::bench
