// include/gigasparse/iterative/triangular_solve.hpp: the TriangularSolve plan: analyze a sweep's dependencies once, solve many times.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include <gigasparse/core/matrix.hpp>
#include <gigasparse/iterative/kernels.hpp>

namespace gigasparse::iterative {

// How the tasks of a schedule wait for each other: point_to_point = each task waits only on the
// tasks it depends on (spin on per-task flags); barrier = all threads meet after every level;
// sequential = one thread, rows in order (the reference).
enum class SyncKind { point_to_point, barrier, sequential };

const char* to_string(SyncKind s);

struct ScheduleOptions {
    Backend backend = Backend::omp;  // reference forces sequential
    SyncKind sync = SyncKind::point_to_point;
    int threads = 0;                     // 0: omp_get_max_threads()
    std::int64_t min_task_weight = 512;  // a level lighter than threads*this runs on fewer threads
};

// What the analysis found. depth = levels of the subgraph DAG (what the critical chain of
// synchronizations is); row_depth = levels of the row DAG (the level-set depth of a plain
// level-scheduled solve); critical_path = nonzeros on the heaviest dependency chain of subgraphs.
struct ScheduleStats {
    std::int64_t rows = 0;
    std::int64_t nnz = 0;  // entries of the triangle used, diagonal included
    std::int64_t depth = 0;
    std::int64_t row_depth = 0;
    std::int64_t subgraphs = 0;
    std::int64_t tasks = 0;            // (level, thread) bundles executed
    std::int64_t waits = 0;            // cross-thread dependencies kept after sparsification
    std::int64_t critical_path = 0;    // weight (row + nonzeros) of the heaviest chain
    double parallelism = 0;            // total weight / critical_path
    int threads = 1;
    SyncKind sync = SyncKind::sequential;
};

// Solves T x = b for the lower or upper triangle of t (entries of the other triangle are
// ignored; rows must be sorted). The plan keeps a view of t: t must outlive the plan, and its
// values may change between solves as long as the pattern does not (so a factorization can
// reuse the analysis). block_ptr optionally groups consecutive rows into subgraphs that one thread
// processes in order (from an Ordering); by default each row is its own subgraph. Solves of one
// plan must not run concurrently.
template <class V, class I>
class TriangularSolve {
public:
    TriangularSolve();
    ~TriangularSolve();
    TriangularSolve(TriangularSolve&&) noexcept;
    TriangularSolve& operator=(TriangularSolve&&) noexcept;

    void analyze(CsrView<V, I> t, Triangle part, bool unit_diagonal, const ScheduleOptions& options = {},
                 std::span<const std::int64_t> block_ptr = {});
    bool analyzed() const;

    // x holds b on entry and the solution on return. Returns -1, or the first row (in sweep
    // order) whose diagonal is zero or missing (x unspecified then).
    std::int64_t solve(std::span<V> x) const;

    // Calls row_fn(i) for every row with the schedule's dependencies respected: when it is called
    // for row i, it has returned for every row that row i's triangle entries refer to. Used by the
    // parallel ILU(0)/IC(0) factorizations.
    void for_each_row(const std::function<void(std::int64_t)>& row_fn) const;

    const ScheduleStats& stats() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace gigasparse::iterative
