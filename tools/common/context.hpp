// tools/common/context.hpp: the run context recorded in every benchmark JSON (commit, machine, compiler, threads).
#pragma once

#include "common/json.hpp"

namespace gigasparse::tools {

// {"commit", "date", "host", "cpu", "cores", "threads", "compiler", "build_type", "cuda_device"}
Json run_context();

// Best (minimum) wall time in seconds of `repeats` calls of fn after one warm-up call.
template <class F>
double best_time(int repeats, F&& fn);

}  // namespace gigasparse::tools

#include <algorithm>
#include <limits>

#include <gigasparse/core/timer.hpp>

template <class F>
double gigasparse::tools::best_time(int repeats, F&& fn) {
    fn();
    double best = std::numeric_limits<double>::infinity();
    for (int r = 0; r < repeats; ++r) {
        Timer t;
        fn();
        best = std::min(best, t.seconds());
    }
    return best;
}
