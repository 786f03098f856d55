// bench/iterative/hypre_adapter.cpp: the hypre competitor (compiled with hypre only when libHYPRE and MPI are found).
#include "hypre_adapter.hpp"

#include <cmath>
#include <cstdlib>

#include <gigasparse/core/timer.hpp>

#ifdef GIGASPARSE_BENCH_HAVE_HYPRE
#include <HYPRE.h>
#include <HYPRE_IJ_mv.h>
#include <HYPRE_parcsr_ls.h>
#include <mpi.h>
#endif

namespace gigasparse::bench {

#ifdef GIGASPARSE_BENCH_HAVE_HYPRE
namespace {

void init_once() {
    static const bool done = [] {
        int up = 0;
        MPI_Initialized(&up);
        if (!up) MPI_Init(nullptr, nullptr);
        HYPRE_Init();
        std::atexit([] {
            HYPRE_Finalize();
            int fin = 0;
            MPI_Finalized(&fin);
            if (!fin) MPI_Finalize();
        });
        return true;
    }();
    (void)done;
}

}  // namespace

HypreResult hypre_solve(CsrView<double, std::int32_t> a, const std::vector<double>& b, bool spd, bool amg, double tol, std::int64_t maxit) {
    init_once();
    HypreResult r;
    r.available = true;
    r.method = std::string(spd ? "pcg" : "bicgstab") + "+" + (amg ? "BoomerAMG" : "ILU(0)");
    const HYPRE_BigInt last = static_cast<HYPRE_BigInt>(a.nrows) - 1;
    HYPRE_IJMatrix ij;
    HYPRE_IJMatrixCreate(MPI_COMM_WORLD, 0, last, 0, last, &ij);
    HYPRE_IJMatrixSetObjectType(ij, HYPRE_PARCSR);
    std::vector<HYPRE_Int> ncols(static_cast<std::size_t>(a.nrows));
    std::vector<HYPRE_BigInt> rows(static_cast<std::size_t>(a.nrows)), cols(static_cast<std::size_t>(a.nnz()));
    for (std::int64_t i = 0; i < a.nrows; ++i) ncols[i] = static_cast<HYPRE_Int>(a.row_ptr[i + 1] - a.row_ptr[i]), rows[i] = i;
    for (offset_t k = 0; k < a.nnz(); ++k) cols[k] = a.col_idx[k];
    HYPRE_IJMatrixSetRowSizes(ij, ncols.data());
    HYPRE_IJMatrixInitialize(ij);
    HYPRE_IJMatrixSetValues(ij, static_cast<HYPRE_Int>(a.nrows), ncols.data(), rows.data(), cols.data(), a.values.data());
    HYPRE_IJMatrixAssemble(ij);
    HYPRE_ParCSRMatrix pa;
    HYPRE_IJMatrixGetObject(ij, reinterpret_cast<void**>(&pa));
    HYPRE_IJVector ib, ix;
    std::vector<double> zero(b.size(), 0.0);
    for (HYPRE_IJVector* v : {&ib, &ix}) {
        HYPRE_IJVectorCreate(MPI_COMM_WORLD, 0, last, v);
        HYPRE_IJVectorSetObjectType(*v, HYPRE_PARCSR);
        HYPRE_IJVectorInitialize(*v);
        HYPRE_IJVectorSetValues(*v, static_cast<HYPRE_Int>(a.nrows), rows.data(), v == &ib ? b.data() : zero.data());
        HYPRE_IJVectorAssemble(*v);
    }
    HYPRE_ParVector pb, px;
    HYPRE_IJVectorGetObject(ib, reinterpret_cast<void**>(&pb));
    HYPRE_IJVectorGetObject(ix, reinterpret_cast<void**>(&px));

    HYPRE_Solver pre;
    if (amg) {
        HYPRE_BoomerAMGCreate(&pre);
        HYPRE_BoomerAMGSetPrintLevel(pre, 0);
        HYPRE_BoomerAMGSetMaxIter(pre, 1);
        HYPRE_BoomerAMGSetTol(pre, 0.0);
    } else {
        HYPRE_ILUCreate(&pre);
        HYPRE_ILUSetType(pre, 0);  // block-Jacobi ILU(k): one rank = one block = ILU(0) of the whole matrix
        HYPRE_ILUSetLevelOfFill(pre, 0);
        HYPRE_ILUSetMaxIter(pre, 1);
        HYPRE_ILUSetTol(pre, 0.0);
        HYPRE_ILUSetPrintLevel(pre, 0);
    }
    const HYPRE_PtrToParSolverFcn psolve = amg ? HYPRE_BoomerAMGSolve : HYPRE_ILUSolve;
    const HYPRE_PtrToParSolverFcn psetup = amg ? HYPRE_BoomerAMGSetup : HYPRE_ILUSetup;
    HYPRE_Solver s;
    HYPRE_Int its = 0;
    double rel = 0;
    Timer t;
    if (spd) {
        HYPRE_ParCSRPCGCreate(MPI_COMM_WORLD, &s);
        HYPRE_PCGSetTol(s, tol);
        HYPRE_PCGSetMaxIter(s, static_cast<HYPRE_Int>(maxit));
        HYPRE_PCGSetTwoNorm(s, 1);
        HYPRE_PCGSetPrintLevel(s, 0);
        HYPRE_PCGSetPrecond(s, reinterpret_cast<HYPRE_PtrToSolverFcn>(psolve), reinterpret_cast<HYPRE_PtrToSolverFcn>(psetup), pre);
        HYPRE_ParCSRPCGSetup(s, pa, pb, px);
        r.setup = t.lap();
        HYPRE_ParCSRPCGSolve(s, pa, pb, px);
        r.solve = t.lap();
        HYPRE_PCGGetNumIterations(s, &its);
        HYPRE_PCGGetFinalRelativeResidualNorm(s, &rel);
        HYPRE_ParCSRPCGDestroy(s);
    } else {
        HYPRE_ParCSRBiCGSTABCreate(MPI_COMM_WORLD, &s);
        HYPRE_BiCGSTABSetTol(s, tol);
        HYPRE_BiCGSTABSetMaxIter(s, static_cast<HYPRE_Int>(maxit));
        HYPRE_BiCGSTABSetPrintLevel(s, 0);
        HYPRE_BiCGSTABSetPrecond(s, reinterpret_cast<HYPRE_PtrToSolverFcn>(psolve), reinterpret_cast<HYPRE_PtrToSolverFcn>(psetup), pre);
        HYPRE_ParCSRBiCGSTABSetup(s, pa, pb, px);
        r.setup = t.lap();
        HYPRE_ParCSRBiCGSTABSolve(s, pa, pb, px);
        r.solve = t.lap();
        HYPRE_BiCGSTABGetNumIterations(s, &its);
        HYPRE_BiCGSTABGetFinalRelativeResidualNorm(s, &rel);
        HYPRE_ParCSRBiCGSTABDestroy(s);
    }
    if (amg) HYPRE_BoomerAMGDestroy(pre);
    else HYPRE_ILUDestroy(pre);
    std::vector<double> x(b.size());
    HYPRE_IJVectorGetValues(ix, static_cast<HYPRE_Int>(a.nrows), rows.data(), x.data());
    double rn = 0, bn = 0;  // true residual
    for (std::int64_t i = 0; i < a.nrows; ++i) {
        double s_i = b[i];
        for (offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) s_i -= a.values[k] * x[a.col_idx[k]];
        rn += s_i * s_i, bn += b[i] * b[i];
    }
    r.iterations = its;
    r.residual = std::sqrt(rn / std::max(bn, 1e-300));
    r.converged = std::isfinite(rel) && rel <= tol && its < maxit;
    HYPRE_IJVectorDestroy(ib);
    HYPRE_IJVectorDestroy(ix);
    HYPRE_IJMatrixDestroy(ij);
    return r;
}
#else
HypreResult hypre_solve(CsrView<double, std::int32_t>, const std::vector<double>&, bool, bool, double, std::int64_t) { return {}; }
#endif

}  // namespace gigasparse::bench
