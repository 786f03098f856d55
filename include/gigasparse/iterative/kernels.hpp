// include/gigasparse/iterative/kernels.hpp: SpMV (CSR, BSR) and vector operations of the iterative pillar, per backend.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <gigasparse/core/matrix.hpp>

namespace gigasparse::iterative {

// Where a kernel runs. reference = sequential oracle; omp = OpenMP threads on the host; cuda: these
// host-vector entry points throw NotSupported for it: the GPU backend keeps the matrix and the vectors
// on the device (cuda::DeviceMatrix, cuda::spmv, cuda::solve in gigasparse/cuda/iterative.hpp).
enum class Backend { reference, omp, cuda };

const char* to_string(Backend b);

// Block CSR: nbrows x nbcols blocks of size block x block, each stored row-major
// (values[k*block*block + r*block + c]). Block size 1..5 is supported by bsr_spmv.
template <class V, class I>
struct Bsr {
    std::int64_t nbrows = 0;
    std::int64_t nbcols = 0;
    int block = 1;
    std::vector<offset_t> row_ptr{0};
    std::vector<I> col_idx;
    std::vector<V> values;

    offset_t nnzb() const { return row_ptr.empty() ? 0 : row_ptr.back(); }
    std::int64_t nrows() const { return nbrows * block; }
    std::int64_t ncols() const { return nbcols * block; }
};

// The CSR matrix regrouped into block x block blocks (dimensions must be multiples of block);
// blocks absent from A are not stored, missing entries inside a stored block are zero.
template <class V, class I>
Bsr<V, I> csr_to_bsr(CsrView<V, I> a, int block);

// The BSR matrix expanded to point CSR (every entry of every stored block is kept).
template <class V, class I>
Csr<V, I> bsr_to_csr(const Bsr<V, I>& a);

// y = alpha * A x + beta * y (beta == 0 ignores the old y, even NaN). The omp backend splits
// rows into one contiguous range per thread holding about the same number of nonzeros.
template <class V, class I>
void spmv(Backend be, CsrView<V, I> a, std::span<const V> x, std::span<V> y, V alpha = V(1), V beta = V(0));

// y = alpha * A x + beta * y for a block matrix, block size 1..5.
template <class V, class I>
void bsr_spmv(Backend be, const Bsr<V, I>& a, std::span<const V> x, std::span<V> y, V alpha = V(1), V beta = V(0));

// Vector operations (all lengths must agree; DimensionMismatch otherwise).
template <class V>
V dot(Backend be, std::span<const V> x, std::span<const V> y);  // xᵀ y
template <class V>
V nrm2(Backend be, std::span<const V> x);  // ||x||_2
template <class V>
V nrm_inf(Backend be, std::span<const V> x);  // max |x_i|
template <class V>
void axpy(Backend be, V alpha, std::span<const V> x, std::span<V> y);  // y += alpha x
template <class V>
void axpby(Backend be, V alpha, std::span<const V> x, V beta, std::span<V> y);  // y = alpha x + beta y
template <class V>
void scal(Backend be, V alpha, std::span<V> x);  // x *= alpha
template <class V>
void copy(Backend be, std::span<const V> x, std::span<V> y);  // y = x
template <class V>
void fill(Backend be, V value, std::span<V> x);  // x = value
template <class V>
void pointwise_mult(Backend be, std::span<const V> d, std::span<const V> x, std::span<V> y);  // y_i = d_i x_i
// True when every entry is finite (no NaN, no Inf).
template <class V>
bool all_finite(Backend be, std::span<const V> x);

}  // namespace gigasparse::iterative
