// src/iterative/minres_rotation.hpp: the scalar recurrence of MINRES (Paige and Saunders), shared by the host solver
// (krylov.cpp) and the GPU one (cuda/krylov_kernels.cuh, one thread of its step kernel): the QR factorization of the
// Lanczos tridiagonal by Givens rotations as its columns arrive, and the step along the new direction. In double
// for every value type (complex: alfa = vᴴAv and the M⁻¹ norms are real for a Hermitian A and an HPD M).
#pragma once

#include <cfloat>
#include <cmath>

#ifdef __CUDACC__
#define GIGASPARSE_MINRES_HD __host__ __device__
#else
#define GIGASPARSE_MINRES_HD
#endif

namespace gigasparse::iterative {

struct MinresRotation {
    double beta = 0, oldb = 0;  // ||r2||_{M⁻¹} of the newest Lanczos vector and of the one before (0 before the first)
    double dbar = 0, epsln = 0;  // the entries the last rotation carries into the next column
    double cs = -1, sn = 0;      // the last rotation
    double phibar = 0;           // the residual norm the recurrence minimizes (M⁻¹ norm)
    double phi = 0;              // x += phi w: this step along the new direction
    double oldeps = 0, delta = 0, gamma = 1;  // w = (v - oldeps w_older - delta w_newer) / gamma
};

// A start from a residual of M⁻¹ norm beta.
GIGASPARSE_MINRES_HD inline MinresRotation minres_start(double beta) {
    MinresRotation s;
    s.beta = beta;
    s.phibar = beta;
    return s;
}

// Column k of the tridiagonal (diagonal alfa = vᴴAv, subdiagonal sqrt(bb), bb = r2ᴴM⁻¹r2 >= 0 of the next Lanczos
// vector): the last rotation applied to it, a new one zeroing the subdiagonal, and the step phi; phibar becomes the
// new residual norm.
GIGASPARSE_MINRES_HD inline void minres_rotate(MinresRotation& s, double alfa, double bb) {
    using std::hypot;
    using std::sqrt;
    s.oldb = s.beta;
    s.beta = sqrt(bb);
    s.oldeps = s.epsln;
    s.delta = s.cs * s.dbar + s.sn * alfa;
    const double gbar = s.sn * s.dbar - s.cs * alfa;
    s.epsln = s.sn * s.beta;
    s.dbar = -s.cs * s.beta;
    const double h = hypot(gbar, s.beta);
    s.gamma = h < DBL_MIN ? DBL_MIN : h;  // a zero column (a singular A): no division by zero; NaN stays NaN
    s.cs = gbar / s.gamma;
    s.sn = s.beta / s.gamma;
    s.phi = s.cs * s.phibar;
    s.phibar = s.sn * s.phibar;
}

}  // namespace gigasparse::iterative
