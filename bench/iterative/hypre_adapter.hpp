// bench/iterative/hypre_adapter.hpp: hypre (libhypre-dev, optional) PCG/BiCGSTAB with ILU(0) or BoomerAMG behind a plain interface.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <gigasparse/core/matrix.hpp>

namespace gigasparse::bench {

struct HypreResult {
    bool available = false;  // false when built without hypre
    bool converged = false;
    std::int64_t iterations = 0;
    double residual = 0, setup = 0, solve = 0;  // setup: preconditioner setup (matrix assembly excluded)
    std::string method;
};

// One MPI rank. amg = false: ILU(0) (hypre_ILU, block-Jacobi type 0 = one block = global ILU(0) in
// the given order, one application per iteration) preconditioning PCG (spd) or BiCGSTAB; amg =
// true: BoomerAMG V-cycle (defaults) as the reference of a scalable preconditioner. Relative
// two-norm residual tol, x0 = 0; `residual` is the true ||b - Ax|| / ||b|| recomputed here.
HypreResult hypre_solve(CsrView<double, std::int32_t> a, const std::vector<double>& b, bool spd, bool amg, double tol, std::int64_t maxit);

}  // namespace gigasparse::bench
