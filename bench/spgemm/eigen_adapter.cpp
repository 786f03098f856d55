// bench/spgemm/eigen_adapter.cpp: Eigen 3 sparse product C = A*B (row-major SparseMatrix<double, RowMajor, int>,
// conservative product: structural entries kept, rows sorted). Eigen's sparse-sparse product is sequential.
#include "competitors.hpp"

#ifdef GIGASPARSE_BENCH_HAVE_EIGEN
#include <Eigen/Sparse>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

namespace gigasparse::bench {
namespace {

using EigenCsr = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;

EigenCsr to_eigen(const Matrix& m) {
    if (m.nnz() > std::numeric_limits<int>::max()) throw std::runtime_error("Eigen: nnz beyond 32-bit StorageIndex");
    EigenCsr e(m.nrows, m.ncols);
    e.reserve(static_cast<Eigen::Index>(m.nnz()));
    e.makeCompressed();
    e.resizeNonZeros(static_cast<Eigen::Index>(m.nnz()));
    for (std::int64_t i = 0; i <= m.nrows; ++i) e.outerIndexPtr()[i] = static_cast<int>(m.row_ptr[static_cast<std::size_t>(i)]);
    std::vector<std::pair<int, double>> row;
    for (std::int64_t i = 0; i < m.nrows; ++i) {  // Eigen expects sorted inner indices
        const auto lo = static_cast<std::size_t>(m.row_ptr[static_cast<std::size_t>(i)]), hi = static_cast<std::size_t>(m.row_ptr[static_cast<std::size_t>(i) + 1]);
        row.clear();
        for (std::size_t k = lo; k < hi; ++k) row.emplace_back(m.col_idx[k], m.values[k]);
        std::sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
        for (std::size_t k = lo; k < hi; ++k) {
            e.innerIndexPtr()[k] = row[k - lo].first;
            e.valuePtr()[k] = row[k - lo].second;
        }
    }
    return e;
}

class Eigen3 final : public Competitor {
public:
    std::string name() const override { return "eigen"; }
    void prepare(const Matrix& a, const Matrix& b) override {
        a_ = to_eigen(a);
        b_ = to_eigen(b);
    }
    void run() override {
        c_ = EigenCsr();  // the result is allocated inside the timing, as for every library
        c_ = a_ * b_;
    }
    Matrix result() override {
        c_.makeCompressed();
        Matrix m(c_.rows(), c_.cols());
        const auto n = static_cast<std::size_t>(c_.nonZeros());
        m.row_ptr.assign(c_.outerIndexPtr(), c_.outerIndexPtr() + c_.rows() + 1);
        m.col_idx.assign(c_.innerIndexPtr(), c_.innerIndexPtr() + n);
        m.values.assign(c_.valuePtr(), c_.valuePtr() + n);
        return m;
    }

private:
    EigenCsr a_, b_, c_;
};

}  // namespace

std::unique_ptr<Competitor> make_eigen(int) { return std::make_unique<Eigen3>(); }

}  // namespace gigasparse::bench
#else
namespace gigasparse::bench {
std::unique_ptr<Competitor> make_eigen(int) { return nullptr; }
}  // namespace gigasparse::bench
#endif
