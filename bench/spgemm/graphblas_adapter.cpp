// bench/spgemm/graphblas_adapter.cpp: SuiteSparse:GraphBLAS GrB_mxm (PLUS_TIMES, FP64, by-row, auto method),
// output materialized and sorted (GrB_Matrix_wait) inside the timing.
#include "competitors.hpp"

#ifdef GIGASPARSE_BENCH_HAVE_GRAPHBLAS
extern "C" {  // GraphBLAS.h (7.4) has no C++ linkage guards
#include <GraphBLAS.h>
}

#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace gigasparse::bench {
namespace {

void ok(GrB_Info info, const char* what) {
    if (info != GrB_SUCCESS) throw std::runtime_error(std::string("GraphBLAS: ") + what + " failed (" + std::to_string(info) + ")");
}

template <class T, class S>
T* copy_out(const S* src, std::size_t n) {
    T* p = static_cast<T*>(std::malloc(std::max<std::size_t>(1, n) * sizeof(T)));
    for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<T>(src[i]);
    return p;
}

GrB_Matrix import(const Matrix& m) {
    GrB_Matrix g = nullptr;
    const auto n = static_cast<std::size_t>(m.nnz());
    GrB_Index* ap = copy_out<GrB_Index>(m.row_ptr.data(), m.row_ptr.size());
    GrB_Index* aj = copy_out<GrB_Index>(m.col_idx.data(), n);
    double* ax = copy_out<double>(m.values.data(), n);
    ok(GxB_Matrix_import_CSR(&g, GrB_FP64, static_cast<GrB_Index>(m.nrows), static_cast<GrB_Index>(m.ncols), &ap, &aj,
                             reinterpret_cast<void**>(&ax), (m.row_ptr.size()) * sizeof(GrB_Index), std::max<std::size_t>(1, n) * sizeof(GrB_Index),
                             std::max<std::size_t>(1, n) * sizeof(double), false, false, nullptr),
       "import");
    return g;
}

class GraphBlas final : public Competitor {
public:
    explicit GraphBlas(int threads) {
        static const bool initialized = [] { return GrB_init(GrB_NONBLOCKING) == GrB_SUCCESS; }();
        if (!initialized) throw std::runtime_error("GraphBLAS: GrB_init failed");
        GxB_Global_Option_set(GxB_GLOBAL_NTHREADS, threads);
    }
    ~GraphBlas() override { clear(); }
    std::string name() const override { return "graphblas"; }
    void prepare(const Matrix& a, const Matrix& b) override {
        clear();
        a_ = import(a);
        b_ = import(b);
        nrows_ = a.nrows;
        ncols_ = b.ncols;
    }
    void run() override {
        if (c_) GrB_Matrix_free(&c_);
        ok(GrB_Matrix_new(&c_, GrB_FP64, static_cast<GrB_Index>(nrows_), static_cast<GrB_Index>(ncols_)), "new");
        ok(GrB_mxm(c_, nullptr, nullptr, GrB_PLUS_TIMES_SEMIRING_FP64, a_, b_, nullptr), "mxm");
        ok(GrB_Matrix_wait(c_, GrB_MATERIALIZE), "wait");
    }
    Matrix result() override {
        GrB_Index *cp = nullptr, *cj = nullptr, nr = 0, nc = 0, ps = 0, js = 0, xs = 0;
        void* cx = nullptr;
        bool iso = false, jumbled = false;
        GrB_Type type;
        ok(GxB_Matrix_export_CSR(&c_, &type, &nr, &nc, &cp, &cj, &cx, &ps, &js, &xs, &iso, &jumbled, nullptr), "export");
        Matrix m(static_cast<std::int64_t>(nr), static_cast<std::int64_t>(nc));
        const auto n = static_cast<std::size_t>(cp[nr]);
        m.row_ptr.assign(cp, cp + nr + 1);
        m.col_idx.assign(cj, cj + n);
        const double* x = static_cast<const double*>(cx);
        m.values.resize(n);
        for (std::size_t k = 0; k < n; ++k) m.values[k] = iso ? x[0] : x[k];
        std::free(cp);
        std::free(cj);
        std::free(cx);
        if (jumbled) throw std::runtime_error("GraphBLAS: result left jumbled");
        return m;
    }

private:
    void clear() {
        if (a_) GrB_Matrix_free(&a_);
        if (b_) GrB_Matrix_free(&b_);
        if (c_) GrB_Matrix_free(&c_);
    }
    GrB_Matrix a_ = nullptr, b_ = nullptr, c_ = nullptr;
    std::int64_t nrows_ = 0, ncols_ = 0;
};

}  // namespace

std::unique_ptr<Competitor> make_graphblas(int threads) { return std::make_unique<GraphBlas>(threads); }

}  // namespace gigasparse::bench
#else
namespace gigasparse::bench {
std::unique_ptr<Competitor> make_graphblas(int) { return nullptr; }
}  // namespace gigasparse::bench
#endif
