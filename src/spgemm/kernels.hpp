// src/spgemm/kernels.hpp: the kernel contract of SpGEMM: one overload per backend, tag first.
// The front end (plan.cpp) validates, runs analyze() and allocates C (the OpenMP numeric kernel sizes it).
#pragma once

#include <span>

#include <gigasparse/core/matrix.hpp>

#include "spgemm/analysis.hpp"
#include "spgemm/omp/workspace.hpp"

namespace gigasparse::spgemm {

struct ReferenceBackend {};
struct OmpBackend {};

// Symbolic: row_ptr (nrows+1 entries) receives the row pointers of C.
template <class V, class I>
void symbolic(OmpBackend, const Analysis& an, CsrView<V, I> a, CsrView<V, I> b, omp::Workspaces<V>& ws, int threads,
              std::span<offset_t> row_ptr);
// Numeric: c.row_ptr is set; sizes c.col_idx / c.values to nnz(C) (reserved storage is kept and grown into
// block by block, see OutputGrowth) and fills them (rows sorted).
template <class V, class I>
void numeric(OmpBackend, const Analysis& an, CsrView<V, I> a, CsrView<V, I> b, omp::Workspaces<V>& ws, int threads, Csr<V, I>& c);

// Fused symbolic + numeric for small products (multiply() only): fills all of c from an Analysis that went
// through configure() only (no row pass). Every row takes the sort-row kernels. Returns the bytes of the
// per-thread output buffers it used (freed on return).
template <class V, class I>
std::int64_t multiply_fused(OmpBackend, const Analysis& an, CsrView<V, I> a, CsrView<V, I> b, omp::Workspaces<V>& ws, int threads,
                            Csr<V, I>& c);

template <class V, class I>
void symbolic(ReferenceBackend, CsrView<V, I> a, CsrView<V, I> b, std::span<offset_t> row_ptr);
template <class V, class I>
void numeric(ReferenceBackend, CsrView<V, I> a, CsrView<V, I> b, Csr<V, I>& c);

}  // namespace gigasparse::spgemm
