// src/iterative/schedule.hpp: internal task schedule of a data-dependent sweep (analysis result) and its OpenMP executor.
#pragma once

#include <omp.h>

#include <atomic>
#include <cstdint>
#include <span>
#include <thread>
#include <vector>

#include <gigasparse/iterative/triangular_solve.hpp>

namespace gigasparse::iterative {

// Tasks are numbered level-major (all tasks of level 0, then level 1, ...), so index order is a
// valid sequential order. Task t holds rows order[task_ptr[t] .. task_ptr[t+1]) in sweep order.
struct Schedule {
    int threads = 1;
    SyncKind sync = SyncKind::sequential;
    std::vector<std::int64_t> order, task_ptr;
    std::vector<int> task_thread;
    std::vector<std::int64_t> level_ptr;                  // tasks of level l: [level_ptr[l], level_ptr[l+1])
    std::vector<std::vector<std::int64_t>> thread_tasks;  // per thread, in level order
    std::vector<std::int64_t> wait_ptr, wait;             // cross-thread predecessors of each task
    ScheduleStats stats;
    bool single_thread = false;  // every task landed on thread 0: run without a parallel region
};

// The dependency structure of a sweep: row i depends on rows dep[dep_ptr[i] .. dep_ptr[i+1]).
// Rows run in increasing order (forward) or decreasing order (backward).
struct SweepGraph {
    std::int64_t n = 0;
    bool forward = true;
    std::span<const std::int64_t> dep_ptr;
    std::span<const std::int64_t> dep;
};

Schedule build_schedule(const SweepGraph& g, std::span<const std::int64_t> block_ptr, const ScheduleOptions& options);

namespace detail {

inline void wait_for(const std::atomic<std::int64_t>& flag, std::int64_t epoch) {
    int spins = 0;
    while (flag.load(std::memory_order_acquire) < epoch)
        if (++spins > 256) std::this_thread::yield();  // shared cores: let the producer run
}

template <class F>
void run_task(const Schedule& s, std::int64_t t, F& row_fn) {
    for (std::int64_t k = s.task_ptr[t]; k < s.task_ptr[t + 1]; ++k) row_fn(s.order[k]);
}

}  // namespace detail

// Runs row_fn on every row of the schedule. flags holds one counter per task; epoch must grow
// by one per call (flags start at 0).
template <class F>
void execute(const Schedule& s, F&& row_fn, std::atomic<std::int64_t>* flags, std::int64_t epoch) {
    const std::int64_t ntasks = static_cast<std::int64_t>(s.task_ptr.size()) - 1;
    if (s.sync == SyncKind::sequential || s.threads == 1 || s.single_thread) {
        for (std::int64_t t = 0; t < ntasks; ++t) detail::run_task(s, t, row_fn);
        return;
    }
#pragma omp parallel num_threads(s.threads)
    {
        const int me = omp_get_thread_num();
        if (omp_get_num_threads() != s.threads) {  // fewer threads than analyzed for: run in task order
            if (me == 0)
                for (std::int64_t t = 0; t < ntasks; ++t) detail::run_task(s, t, row_fn);
        } else if (s.sync == SyncKind::barrier) {
            const std::int64_t nlevels = static_cast<std::int64_t>(s.level_ptr.size()) - 1;
            for (std::int64_t l = 0; l < nlevels; ++l) {
                for (std::int64_t t = s.level_ptr[l]; t < s.level_ptr[l + 1]; ++t)
                    if (s.task_thread[t] == me) detail::run_task(s, t, row_fn);
#pragma omp barrier
            }
        } else {
            for (const std::int64_t t : s.thread_tasks[me]) {
                for (std::int64_t k = s.wait_ptr[t]; k < s.wait_ptr[t + 1]; ++k) detail::wait_for(flags[s.wait[k]], epoch);
                detail::run_task(s, t, row_fn);
                flags[t].store(epoch, std::memory_order_release);
            }
        }
    }
}

}  // namespace gigasparse::iterative
