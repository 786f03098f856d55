// src/iterative/schedule.cpp: analysis of a sweep: subgraph DAG levels, (level, thread) tasks, sparsified waits, statistics.
#include "iterative/schedule.hpp"

#include <algorithm>
#include <string>

#include <gigasparse/core/error.hpp>

namespace gigasparse::iterative {

namespace {

// Position of row i in sweep order and back.
std::int64_t pos_of(const SweepGraph& g, std::int64_t i) { return g.forward ? i : g.n - 1 - i; }

struct Blocks {
    std::int64_t count = 0;
    std::vector<std::int64_t> of_row;  // block id in sweep order (block 0 runs first)
    std::vector<std::int64_t> rows;    // rows in sweep order, grouped by block
    std::vector<std::int64_t> ptr;     // block b: rows[ptr[b] .. ptr[b+1])
};

Blocks make_blocks(const SweepGraph& g, std::span<const std::int64_t> block_ptr) {
    Blocks b;
    b.of_row.resize(static_cast<std::size_t>(g.n));
    if (block_ptr.empty()) {
        b.count = g.n;
        b.ptr.resize(static_cast<std::size_t>(g.n + 1));
        for (std::int64_t k = 0; k <= g.n; ++k) b.ptr[k] = k;
        b.rows.resize(static_cast<std::size_t>(g.n));
        for (std::int64_t p = 0; p < g.n; ++p) b.rows[p] = g.forward ? p : g.n - 1 - p, b.of_row[b.rows[p]] = p;
        return b;
    }
    if (block_ptr.front() != 0 || block_ptr.back() != g.n || !std::is_sorted(block_ptr.begin(), block_ptr.end()))
        throw InvalidArgument("TriangularSolve::analyze: block_ptr must rise from 0 to " + std::to_string(g.n));
    const std::int64_t nb = static_cast<std::int64_t>(block_ptr.size()) - 1;
    b.ptr.assign(1, 0);
    for (std::int64_t q = 0; q < nb; ++q) {
        const std::int64_t blk = g.forward ? q : nb - 1 - q;  // backward sweeps run blocks and rows in reverse
        if (block_ptr[blk] == block_ptr[blk + 1]) continue;
        for (std::int64_t k = 0; k < block_ptr[blk + 1] - block_ptr[blk]; ++k) {
            const std::int64_t row = g.forward ? block_ptr[blk] + k : block_ptr[blk + 1] - 1 - k;
            b.of_row[row] = b.count;
            b.rows.push_back(row);
        }
        b.ptr.push_back(static_cast<std::int64_t>(b.rows.size()));
        ++b.count;
    }
    return b;
}

// Levels and critical-path weights of blocks and rows; fills the statistics.
std::vector<std::int64_t> block_levels(const SweepGraph& g, const Blocks& b, std::vector<std::int64_t>& weight, ScheduleStats& st) {
    std::vector<std::int64_t> level(static_cast<std::size_t>(b.count), 0), cp(static_cast<std::size_t>(b.count), 0);
    std::vector<std::int64_t> row_level(static_cast<std::size_t>(g.n), 0);
    weight.assign(static_cast<std::size_t>(b.count), 0);
    for (std::int64_t blk = 0; blk < b.count; ++blk) {
        std::int64_t lv = 0, before = 0;
        for (std::int64_t k = b.ptr[blk]; k < b.ptr[blk + 1]; ++k) {
            const std::int64_t i = b.rows[k];
            weight[blk] += 2 + g.dep_ptr[i + 1] - g.dep_ptr[i];
            for (std::int64_t e = g.dep_ptr[i]; e < g.dep_ptr[i + 1]; ++e) {
                const std::int64_t j = g.dep[e], bj = b.of_row[j];
                if (pos_of(g, j) >= pos_of(g, i) || bj > blk)
                    throw InvalidArgument("TriangularSolve::analyze: a dependency points forward in the sweep");
                row_level[i] = std::max(row_level[i], row_level[j] + 1);
                if (bj != blk) lv = std::max(lv, level[bj] + 1), before = std::max(before, cp[bj]);
            }
            st.row_depth = std::max(st.row_depth, row_level[i] + 1);
        }
        level[blk] = lv;
        cp[blk] = before + weight[blk];
        st.depth = std::max(st.depth, lv + 1);
        st.critical_path = std::max(st.critical_path, cp[blk]);
    }
    return level;
}

// Splits each level's blocks into up to `threads` contiguous chunks of similar weight: the tasks.
void make_tasks(Schedule& s, const Blocks& b, const std::vector<std::int64_t>& level, const std::vector<std::int64_t>& weight,
                std::int64_t min_weight, std::vector<std::int64_t>& task_of_block) {
    std::vector<std::vector<std::int64_t>> by_level(static_cast<std::size_t>(s.stats.depth));
    for (std::int64_t blk = 0; blk < b.count; ++blk) by_level[level[blk]].push_back(blk);
    task_of_block.assign(static_cast<std::size_t>(b.count), 0);
    s.task_ptr.assign(1, 0);
    s.level_ptr.assign(1, 0);
    s.thread_tasks.assign(static_cast<std::size_t>(s.threads), {});
    for (const auto& blocks : by_level) {
        std::int64_t total = 0;
        for (const std::int64_t blk : blocks) total += weight[blk];
        const std::int64_t chunks = std::clamp<std::int64_t>(total / std::max<std::int64_t>(min_weight, 1), 1, s.threads);
        std::size_t next = 0;
        std::int64_t acc = 0;
        for (std::int64_t c = 0; c < chunks; ++c) {
            const std::int64_t target = total * (c + 1) / chunks;
            const std::int64_t task = static_cast<std::int64_t>(s.task_ptr.size()) - 1;
            while (next < blocks.size() && (acc < target || c == chunks - 1)) {
                const std::int64_t blk = blocks[next++];
                acc += weight[blk];
                task_of_block[blk] = task;
                s.order.insert(s.order.end(), b.rows.begin() + b.ptr[blk], b.rows.begin() + b.ptr[blk + 1]);
            }
            if (static_cast<std::int64_t>(s.order.size()) == s.task_ptr.back()) continue;  // empty chunk
            s.task_ptr.push_back(static_cast<std::int64_t>(s.order.size()));
            s.task_thread.push_back(static_cast<int>(c));
            s.thread_tasks[c].push_back(task);
        }
        s.level_ptr.push_back(static_cast<std::int64_t>(s.task_ptr.size()) - 1);
    }
}

// Predecessor tasks on other threads (same-thread predecessors are earlier in that thread's list).
void make_waits(Schedule& s, const SweepGraph& g, const Blocks& b, const std::vector<std::int64_t>& task_of_block) {
    const std::int64_t ntasks = static_cast<std::int64_t>(s.task_ptr.size()) - 1;
    s.wait_ptr.assign(1, 0);
    std::vector<std::int64_t> preds;
    for (std::int64_t t = 0; t < ntasks; ++t) {
        preds.clear();
        for (std::int64_t k = s.task_ptr[t]; k < s.task_ptr[t + 1]; ++k) {
            const std::int64_t i = s.order[k];
            for (std::int64_t e = g.dep_ptr[i]; e < g.dep_ptr[i + 1]; ++e) {
                const std::int64_t pt = task_of_block[b.of_row[g.dep[e]]];
                if (pt != t && s.task_thread[pt] != s.task_thread[t]) preds.push_back(pt);
            }
        }
        std::sort(preds.begin(), preds.end());
        preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
        s.wait.insert(s.wait.end(), preds.begin(), preds.end());
        s.wait_ptr.push_back(static_cast<std::int64_t>(s.wait.size()));
    }
    s.stats.waits = static_cast<std::int64_t>(s.wait.size());
}

}  // namespace

Schedule build_schedule(const SweepGraph& g, std::span<const std::int64_t> block_ptr, const ScheduleOptions& options) {
    Schedule s;
    s.sync = options.backend == Backend::reference ? SyncKind::sequential : options.sync;
    s.threads = s.sync == SyncKind::sequential ? 1 : (options.threads > 0 ? options.threads : omp_get_max_threads());
    const Blocks b = make_blocks(g, block_ptr);
    s.stats.rows = g.n;
    s.stats.subgraphs = b.count;
    std::vector<std::int64_t> weight, task_of_block;
    const auto level = block_levels(g, b, weight, s.stats);
    std::int64_t total = 0;
    for (const std::int64_t w : weight) total += w;
    s.stats.nnz = total - g.n;
    s.stats.parallelism = s.stats.critical_path > 0 ? double(total) / double(s.stats.critical_path) : 1.0;
    if (s.threads == 1) {  // one task, rows in sweep order: the plain sequential sweep (best locality)
        s.order = b.rows;
        s.task_ptr = {0, g.n};
        s.task_thread = {0};
        s.level_ptr = {0, 1};
        s.thread_tasks = {{0}};
        s.wait_ptr = {0, 0};
    } else {
        make_tasks(s, b, level, weight, options.min_task_weight, task_of_block);
        make_waits(s, g, b, task_of_block);
    }
    s.stats.tasks = static_cast<std::int64_t>(s.task_ptr.size()) - 1;
    s.single_thread = std::all_of(s.task_thread.begin(), s.task_thread.end(), [](int t) { return t == 0; });
    s.stats.threads = s.threads;
    s.stats.sync = s.sync;
    return s;
}

}  // namespace gigasparse::iterative
