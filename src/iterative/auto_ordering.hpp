// src/iterative/auto_ordering.hpp: the probe-based choice of an ordering for a sweep preconditioner (internal).
#pragma once

#include <memory>
#include <string>

#include <gigasparse/iterative/preconditioner.hpp>

namespace gigasparse::iterative {

// Sets up the preconditioner under each candidate ordering, probes convergence with a few
// Krylov iterations and times one iteration; returns the preconditioner built with the ordering
// of least predicted time to solution (setup + iterations × per-iteration time), kept from its
// probe (not rebuilt), and explains the choice in `reason`.
template <class V, class I>
std::unique_ptr<Preconditioner<V>> choose_ordering(CsrView<V, I> a, const PrecondOptions& options, std::string& reason);

}  // namespace gigasparse::iterative
