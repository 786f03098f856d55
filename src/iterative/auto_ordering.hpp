// src/iterative/auto_ordering.hpp: the model-based choice of an ordering for a sweep preconditioner (internal).
#pragma once

#include <string>

#include <gigasparse/iterative/preconditioner.hpp>

namespace gigasparse::iterative {

// Chooses the ordering of least predicted time to solution for a sweep preconditioner of A:
//   predicted = ordering time + iterations × (SpMV + preconditioner sweeps + vector operations).
// Iterations: every candidate preconditioner is built and solved on a small sub-problem (a
// breadth-first ball of about options.probe_rows rows around the middle row, sequential
// backend); the counts are extrapolated to the full size from the natural-order growth between
// two ball sizes. Per-iteration time: a model of each ordering's sweep from measured rates (one
// SpMV, one plain sequential sweep, the cost of a cross-thread handoff and of a parallel region)
// and the ordering's structure (levels, colors, largest leaf and separators). Only DC's ordering
// is computed at full size before the choice (when it can win); the chosen ordering is returned
// and used as is by the preconditioner. `reason` lists every candidate's figures.
struct AutoChoice {
    Ordering ordering;
    bool sequential = false;  // run the sweeps sequentially (row-level orderings: natural, rcm)
};

template <class V, class I>
AutoChoice choose_ordering(CsrView<V, I> a, const PrecondOptions& options, std::string& reason);

}  // namespace gigasparse::iterative
