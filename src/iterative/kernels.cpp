// src/iterative/kernels.cpp: front end of the iterative kernels: shape checks, backend dispatch, BSR conversion.
#include <algorithm>
#include <cmath>
#include <string>

#include <gigasparse/core/error.hpp>

#include "iterative/backend_kernels.hpp"

namespace gigasparse::iterative {

const char* to_string(Backend b) {
    switch (b) {
        case Backend::reference: return "reference";
        case Backend::omp: return "omp";
        case Backend::cuda: return "cuda";
    }
    return "unknown";
}

namespace {

[[noreturn]] void no_cuda(const char* what) {
    throw NotSupported(std::string(what) +
                       ": the GPU backend works on a device-resident matrix, not on host vectors: cuda::spmv and cuda::solve "
                       "(gigasparse/cuda/iterative.hpp)");
}

void check_len(const char* what, std::size_t got, std::int64_t want, const char* name) {
    if (static_cast<std::int64_t>(got) != want)
        throw DimensionMismatch(std::string(what) + ": " + name + " has " + std::to_string(got) + " entries, need " + std::to_string(want));
}

// Calls f(tag) with the tag of backend be.
template <class F>
decltype(auto) dispatch(Backend be, const char* what, F&& f) {
    if (be == Backend::reference) return f(ReferenceTag{});
    if (be == Backend::omp) return f(OmpTag{});
    no_cuda(what);
}

}  // namespace

template <class V, class I>
void spmv(Backend be, CsrView<V, I> a, std::span<const V> x, std::span<V> y, V alpha, V beta) {
    check_len("spmv", x.size(), a.ncols, "x");
    check_len("spmv", y.size(), a.nrows, "y");
    dispatch(be, "spmv", [&](auto tag) { spmv(tag, a, x.data(), y.data(), alpha, beta); });
}

template <class V, class I>
void bsr_spmv(Backend be, const Bsr<V, I>& a, std::span<const V> x, std::span<V> y, V alpha, V beta) {
    if (a.block < 1 || a.block > 5) throw NotSupported("bsr_spmv: block size " + std::to_string(a.block) + " (supported: 1..5)");
    check_len("bsr_spmv", x.size(), a.ncols(), "x");
    check_len("bsr_spmv", y.size(), a.nrows(), "y");
    dispatch(be, "bsr_spmv", [&](auto tag) { bsr_spmv(tag, a, x.data(), y.data(), alpha, beta); });
}

template <class V, class I>
Bsr<V, I> csr_to_bsr(CsrView<V, I> a, int block) {
    if (block < 1) throw InvalidArgument("csr_to_bsr: block size must be positive");
    if (a.nrows % block != 0 || a.ncols % block != 0)
        throw DimensionMismatch("csr_to_bsr: " + std::to_string(a.nrows) + " x " + std::to_string(a.ncols) + " is not a multiple of block " +
                                std::to_string(block));
    Bsr<V, I> b;
    b.nbrows = a.nrows / block;
    b.nbcols = a.ncols / block;
    b.block = block;
    b.row_ptr.assign(static_cast<std::size_t>(b.nbrows + 1), 0);
    std::vector<std::int64_t> slot(static_cast<std::size_t>(b.nbcols), -1);  // block column -> stored block (this block row)
    const std::int64_t bb = std::int64_t(block) * block;
    for (std::int64_t ib = 0; ib < b.nbrows; ++ib) {
        std::vector<std::int64_t> cols;
        for (std::int64_t i = ib * block; i < (ib + 1) * block; ++i)
            for (offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) cols.push_back(a.col_idx[k] / block);
        std::sort(cols.begin(), cols.end());
        cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
        for (const std::int64_t jb : cols) {
            slot[jb] = static_cast<std::int64_t>(b.col_idx.size());
            b.col_idx.push_back(static_cast<I>(jb));
        }
        b.values.resize(b.col_idx.size() * bb, V(0));
        for (std::int64_t i = ib * block; i < (ib + 1) * block; ++i)
            for (offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
                const std::int64_t j = a.col_idx[k];
                b.values[slot[j / block] * bb + (i % block) * block + j % block] += a.values[k];
            }
        b.row_ptr[ib + 1] = static_cast<offset_t>(b.col_idx.size());
    }
    return b;
}

template <class V, class I>
Csr<V, I> bsr_to_csr(const Bsr<V, I>& a) {
    const int bs = a.block;
    Csr<V, I> c(a.nrows(), a.ncols());
    for (std::int64_t ib = 0; ib < a.nbrows; ++ib)
        for (int r = 0; r < bs; ++r) {
            for (offset_t k = a.row_ptr[ib]; k < a.row_ptr[ib + 1]; ++k)
                for (int s = 0; s < bs; ++s) {
                    c.col_idx.push_back(static_cast<I>(static_cast<std::int64_t>(a.col_idx[k]) * bs + s));
                    c.values.push_back(a.values[k * bs * bs + r * bs + s]);
                }
            c.row_ptr[ib * bs + r + 1] = static_cast<offset_t>(c.col_idx.size());
        }
    return c;
}

template <class V>
V dot(Backend be, std::span<const V> x, std::span<const V> y) {
    check_len("dot", y.size(), static_cast<std::int64_t>(x.size()), "y");
    return dispatch(be, "dot", [&](auto tag) { return dot(tag, static_cast<std::int64_t>(x.size()), x.data(), y.data()); });
}

template <class V>
V nrm2(Backend be, std::span<const V> x) {
    return std::sqrt(dot<V>(be, x, x));
}

template <class V>
V nrm_inf(Backend be, std::span<const V> x) {
    return dispatch(be, "nrm_inf", [&](auto tag) { return nrm_inf(tag, static_cast<std::int64_t>(x.size()), x.data()); });
}

template <class V>
void axpby(Backend be, V alpha, std::span<const V> x, V beta, std::span<V> y) {
    check_len("axpby", y.size(), static_cast<std::int64_t>(x.size()), "y");
    dispatch(be, "axpby", [&](auto tag) { axpby(tag, static_cast<std::int64_t>(x.size()), alpha, x.data(), beta, y.data()); });
}

template <class V>
void axpy(Backend be, V alpha, std::span<const V> x, std::span<V> y) {
    axpby<V>(be, alpha, x, V(1), y);
}

template <class V>
void scal(Backend be, V alpha, std::span<V> x) {
    axpby<V>(be, V(0), x, alpha, x);
}

template <class V>
void copy(Backend be, std::span<const V> x, std::span<V> y) {
    axpby<V>(be, V(1), x, V(0), y);
}

template <class V>
void fill(Backend be, V value, std::span<V> x) {
    const std::int64_t n = static_cast<std::int64_t>(x.size());
    if (be == Backend::cuda) no_cuda("fill");
#pragma omp parallel for schedule(static) if (be == Backend::omp && n > omp_min_length)
    for (std::int64_t i = 0; i < n; ++i) x[i] = value;
}

template <class V>
void pointwise_mult(Backend be, std::span<const V> d, std::span<const V> x, std::span<V> y) {
    check_len("pointwise_mult", x.size(), static_cast<std::int64_t>(d.size()), "x");
    check_len("pointwise_mult", y.size(), static_cast<std::int64_t>(d.size()), "y");
    dispatch(be, "pointwise_mult", [&](auto tag) { pointwise_mult(tag, static_cast<std::int64_t>(d.size()), d.data(), x.data(), y.data()); });
}

template <class V>
bool all_finite(Backend be, std::span<const V> x) {
    return dispatch(be, "all_finite", [&](auto tag) { return all_finite(tag, static_cast<std::int64_t>(x.size()), x.data()); });
}

#define GS_INST_VI(V, I)                                                                              \
    template void spmv<V, I>(Backend, CsrView<V, I>, std::span<const V>, std::span<V>, V, V);        \
    template void bsr_spmv<V, I>(Backend, const Bsr<V, I>&, std::span<const V>, std::span<V>, V, V); \
    template Bsr<V, I> csr_to_bsr<V, I>(CsrView<V, I>, int);                                         \
    template Csr<V, I> bsr_to_csr<V, I>(const Bsr<V, I>&);
GIGASPARSE_FOR_EACH_VALUE_INDEX(GS_INST_VI)
#undef GS_INST_VI
#define GS_INST_V(V)                                                                         \
    template V dot<V>(Backend, std::span<const V>, std::span<const V>);                     \
    template V nrm2<V>(Backend, std::span<const V>);                                        \
    template V nrm_inf<V>(Backend, std::span<const V>);                                     \
    template void axpby<V>(Backend, V, std::span<const V>, V, std::span<V>);                \
    template void axpy<V>(Backend, V, std::span<const V>, std::span<V>);                    \
    template void scal<V>(Backend, V, std::span<V>);                                        \
    template void copy<V>(Backend, std::span<const V>, std::span<V>);                       \
    template void fill<V>(Backend, V, std::span<V>);                                        \
    template void pointwise_mult<V>(Backend, std::span<const V>, std::span<const V>, std::span<V>); \
    template bool all_finite<V>(Backend, std::span<const V>);
GIGASPARSE_FOR_EACH_VALUE(GS_INST_V)
#undef GS_INST_V

}  // namespace gigasparse::iterative
