// bench/iterative/eigen_adapter.hpp: Eigen's ConjugateGradient+IncompleteCholesky and BiCGSTAB+IncompleteLUT behind a plain interface.
#pragma once

#include <cstdint>
#include <vector>

#include <gigasparse/core/matrix.hpp>

namespace gigasparse::bench {

struct EigenResult {
    bool available = false;
    bool converged = false;
    std::int64_t iterations = 0;
    double residual = 0, setup = 0, solve = 0;
};

// SPD: CG (Lower|Upper) with IncompleteCholesky (Eigen defaults: AMD ordering, shift); otherwise
// BiCGSTAB with IncompleteLUT (defaults). Relative-residual tolerance tol, x0 = 0.
EigenResult eigen_solve(CsrView<double, std::int32_t> a, const std::vector<double>& b, bool spd, double tol, std::int64_t maxit);

}  // namespace gigasparse::bench
