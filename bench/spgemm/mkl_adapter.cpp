// bench/spgemm/mkl_adapter.cpp: Intel MKL inspector-executor mkl_sparse_sp2m (FULL_MULT) followed by
// mkl_sparse_order (MKL may leave rows unsorted); linked to libmkl_gnu_thread (GNU OpenMP), 32-bit MKL_INT.
#include "competitors.hpp"

#ifdef GIGASPARSE_BENCH_HAVE_MKL
#include <mkl.h>
#include <mkl_spblas.h>

#include <stdexcept>
#include <vector>

namespace gigasparse::bench {
namespace {

void ok(sparse_status_t s, const char* what) {
    if (s != SPARSE_STATUS_SUCCESS) throw std::runtime_error(std::string("MKL: ") + what + " failed (" + std::to_string(s) + ")");
}

// MKL keeps pointers to these arrays: they live as long as the handle.
struct MklCsr {
    std::vector<MKL_INT> rp, ci;
    std::vector<double> v;
    sparse_matrix_t h = nullptr;
    void make(const Matrix& m) {
        if (m.nnz() > 2147483647) throw std::runtime_error("MKL: nnz beyond 32-bit MKL_INT");
        rp.assign(m.row_ptr.begin(), m.row_ptr.end());
        ci.assign(m.col_idx.begin(), m.col_idx.end());
        v = m.values;
        if (ci.empty()) {
            ci.push_back(0);
            v.push_back(0);
        }
        ok(mkl_sparse_d_create_csr(&h, SPARSE_INDEX_BASE_ZERO, static_cast<MKL_INT>(m.nrows), static_cast<MKL_INT>(m.ncols), rp.data(),
                                   rp.data() + 1, ci.data(), v.data()),
           "create_csr");
    }
    ~MklCsr() {
        if (h) mkl_sparse_destroy(h);
    }
};

class Mkl final : public Competitor {
public:
    explicit Mkl(int threads) {
        mkl_set_num_threads(threads);
    }
    ~Mkl() override {
        if (c_) mkl_sparse_destroy(c_);
    }
    std::string name() const override { return "mkl"; }
    void prepare(const Matrix& a, const Matrix& b) override {
        a_ = std::make_unique<MklCsr>();
        b_ = std::make_unique<MklCsr>();
        a_->make(a);
        b_->make(b);
    }
    void run() override {
        if (c_) mkl_sparse_destroy(c_);
        c_ = nullptr;
        matrix_descr d{};
        d.type = SPARSE_MATRIX_TYPE_GENERAL;
        ok(mkl_sparse_sp2m(SPARSE_OPERATION_NON_TRANSPOSE, d, a_->h, SPARSE_OPERATION_NON_TRANSPOSE, d, b_->h, SPARSE_STAGE_FULL_MULT, &c_),
           "sp2m");
        ok(mkl_sparse_order(c_), "order");
    }
    Matrix result() override {
        sparse_index_base_t base;
        MKL_INT nr = 0, nc = 0, *rs = nullptr, *re = nullptr, *ci = nullptr;
        double* v = nullptr;
        ok(mkl_sparse_d_export_csr(c_, &base, &nr, &nc, &rs, &re, &ci, &v), "export_csr");
        Matrix m(nr, nc);
        for (MKL_INT i = 0; i < nr; ++i) {
            for (MKL_INT p = rs[i] - base; p < re[i] - base; ++p) {
                m.col_idx.push_back(ci[p] - base);
                m.values.push_back(v[p]);
            }
            m.row_ptr[i + 1] = static_cast<offset_t>(m.col_idx.size());
        }
        return m;
    }

private:
    std::unique_ptr<MklCsr> a_, b_;
    sparse_matrix_t c_ = nullptr;
};

}  // namespace

std::unique_ptr<Competitor> make_mkl(int threads) { return std::make_unique<Mkl>(threads); }

}  // namespace gigasparse::bench
#else
namespace gigasparse::bench {
std::unique_ptr<Competitor> make_mkl(int) { return nullptr; }
}  // namespace gigasparse::bench
#endif
