// src/iterative/backend_kernels.hpp: the kernel contract of the iterative pillar, one overload per backend tag.
#pragma once

#include <span>

#include <gigasparse/iterative/kernels.hpp>

namespace gigasparse::iterative {

struct ReferenceTag {};
struct OmpTag {};

// SpMV: y = alpha A x + beta y (shapes already checked by the front end).
template <class V, class I>
void spmv(ReferenceTag, CsrView<V, I> a, const V* x, V* y, V alpha, V beta);
template <class V, class I>
void spmv(OmpTag, CsrView<V, I> a, const V* x, V* y, V alpha, V beta);

template <class V, class I>
void bsr_spmv(ReferenceTag, const Bsr<V, I>& a, const V* x, V* y, V alpha, V beta);
template <class V, class I>
void bsr_spmv(OmpTag, const Bsr<V, I>& a, const V* x, V* y, V alpha, V beta);

// Vector kernels (length n, pointers valid).
template <class V>
V dot(ReferenceTag, std::int64_t n, const V* x, const V* y);
template <class V>
V dot(OmpTag, std::int64_t n, const V* x, const V* y);
template <class V>
V nrm_inf(ReferenceTag, std::int64_t n, const V* x);
template <class V>
V nrm_inf(OmpTag, std::int64_t n, const V* x);
template <class V>
void axpby(ReferenceTag, std::int64_t n, V alpha, const V* x, V beta, V* y);
template <class V>
void axpby(OmpTag, std::int64_t n, V alpha, const V* x, V beta, V* y);
template <class V>
void pointwise_mult(ReferenceTag, std::int64_t n, const V* d, const V* x, V* y);
template <class V>
void pointwise_mult(OmpTag, std::int64_t n, const V* d, const V* x, V* y);
template <class V>
bool all_finite(ReferenceTag, std::int64_t n, const V* x);
template <class V>
bool all_finite(OmpTag, std::int64_t n, const V* x);

// Below this length the omp vector kernels run on one thread (fork/join costs more than the work).
inline constexpr std::int64_t omp_min_length = 8192;

}  // namespace gigasparse::iterative
