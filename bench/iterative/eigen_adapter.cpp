// bench/iterative/eigen_adapter.cpp: the Eigen competitor (compiled only when Eigen is found).
#include "eigen_adapter.hpp"

#include <gigasparse/core/timer.hpp>

#ifdef GIGASPARSE_BENCH_HAVE_EIGEN
#include <Eigen/IterativeLinearSolvers>
#include <Eigen/Sparse>
#endif

namespace gigasparse::bench {

#ifdef GIGASPARSE_BENCH_HAVE_EIGEN
namespace {

Eigen::SparseMatrix<double, Eigen::RowMajor, int> to_eigen(CsrView<double, std::int32_t> a) {
    std::vector<Eigen::Triplet<double>> t;
    t.reserve(static_cast<std::size_t>(a.nnz()));
    for (std::int64_t i = 0; i < a.nrows; ++i)
        for (offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) t.emplace_back(static_cast<int>(i), a.col_idx[k], a.values[k]);
    Eigen::SparseMatrix<double, Eigen::RowMajor, int> m(static_cast<int>(a.nrows), static_cast<int>(a.ncols));
    m.setFromTriplets(t.begin(), t.end());
    return m;
}

template <class Solver>
EigenResult run(Solver& s, const Eigen::SparseMatrix<double, Eigen::RowMajor, int>& m, const std::vector<double>& b, double tol,
                std::int64_t maxit) {
    EigenResult r;
    r.available = true;
    s.setTolerance(tol);
    s.setMaxIterations(static_cast<Eigen::Index>(maxit));
    Timer t;
    s.compute(m);
    r.setup = t.lap();
    const Eigen::Map<const Eigen::VectorXd> bv(b.data(), static_cast<Eigen::Index>(b.size()));
    Eigen::VectorXd x = s.solve(bv);
    r.solve = t.lap();
    r.iterations = s.iterations();
    r.residual = (bv - m * x).norm() / bv.norm();
    r.converged = s.info() == Eigen::Success;
    return r;
}

}  // namespace

EigenResult eigen_solve(CsrView<double, std::int32_t> a, const std::vector<double>& b, bool spd, double tol, std::int64_t maxit) {
    const auto m = to_eigen(a);
    if (spd) {
        Eigen::ConjugateGradient<Eigen::SparseMatrix<double, Eigen::RowMajor, int>, Eigen::Lower | Eigen::Upper,
                                 Eigen::IncompleteCholesky<double, Eigen::Lower>>
            s;
        return run(s, m, b, tol, maxit);
    }
    Eigen::BiCGSTAB<Eigen::SparseMatrix<double, Eigen::RowMajor, int>, Eigen::IncompleteLUT<double, int>> s;
    return run(s, m, b, tol, maxit);
}
#else
EigenResult eigen_solve(CsrView<double, std::int32_t>, const std::vector<double>&, bool, double, std::int64_t) { return {}; }
#endif

}  // namespace gigasparse::bench
