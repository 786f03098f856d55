// src/spgemm/reference/spgemm_reference.cpp: the reference backend of SpgemmPlan: delegates to reference::spgemm.
#include <algorithm>

#include <gigasparse/reference/kernels.hpp>

#include "spgemm/kernels.hpp"

namespace gigasparse::spgemm {

template <class V, class I>
void symbolic(ReferenceBackend, CsrView<V, I> a, CsrView<V, I> b, std::span<offset_t> row_ptr) {
    const Csr<V, I> c = reference::spgemm(a, b);
    std::copy(c.row_ptr.begin(), c.row_ptr.end(), row_ptr.begin());
}

template <class V, class I>
void numeric(ReferenceBackend, CsrView<V, I> a, CsrView<V, I> b, Csr<V, I>& c) {
    c = reference::spgemm(a, b);
}

#define GIGASPARSE_INSTANTIATE_SPGEMM_REF(V, I)                                                      \
    template void symbolic(ReferenceBackend, CsrView<V, I>, CsrView<V, I>, std::span<offset_t>); \
    template void numeric(ReferenceBackend, CsrView<V, I>, CsrView<V, I>, Csr<V, I>&);
GIGASPARSE_FOR_EACH_VALUE_INDEX(GIGASPARSE_INSTANTIATE_SPGEMM_REF)
#undef GIGASPARSE_INSTANTIATE_SPGEMM_REF

}  // namespace gigasparse::spgemm
