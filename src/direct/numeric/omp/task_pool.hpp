// src/direct/numeric/omp/task_pool.hpp: a small fork-join pool of plain threads for the tiles of large fronts.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gigasparse::direct {

// run(n, fn) calls fn(0) .. fn(n-1) on the calling thread and `threads - 1` workers (tasks pulled from
// an atomic counter) and returns when all are done. Idle workers block on a condition variable: they
// never spin, so they take no core from anyone (the OpenMP busy-wait problem of the subtree phase).
// Which thread runs a task never changes what the task computes, so results do not depend on the
// number of threads. A pool of 1 thread runs everything inline.
class TaskPool {
public:
    explicit TaskPool(int threads) {
        for (int k = 1; k < threads; ++k) workers_.emplace_back([this] { work(); });
    }
    TaskPool(const TaskPool&) = delete;
    TaskPool& operator=(const TaskPool&) = delete;
    ~TaskPool() {
        {
            std::lock_guard<std::mutex> lk(m_);
            stop_ = true;
        }
        wake_.notify_all();
        for (auto& t : workers_) t.join();
    }

    int size() const { return static_cast<int>(workers_.size()) + 1; }

    template <class F>
    void run(std::int64_t ntasks, F&& fn) {
        if (ntasks <= 0) return;
        if (workers_.empty() || ntasks == 1) {
            for (std::int64_t t = 0; t < ntasks; ++t) fn(t);
            return;
        }
        {
            std::lock_guard<std::mutex> lk(m_);
            job_ = std::function<void(std::int64_t)>(std::forward<F>(fn));
            ntasks_ = ntasks;
            next_.store(0, std::memory_order_relaxed);
            busy_ = static_cast<int>(workers_.size());
            ++generation_;
        }
        wake_.notify_all();
        pull();
        std::unique_lock<std::mutex> lk(m_);
        done_.wait(lk, [this] { return busy_ == 0; });
        job_ = nullptr;
    }

private:
    void pull() {
        for (std::int64_t t = next_.fetch_add(1); t < ntasks_; t = next_.fetch_add(1)) job_(t);
    }
    void work() {
        std::uint64_t seen = 0;
        for (;;) {
            {
                std::unique_lock<std::mutex> lk(m_);
                wake_.wait(lk, [&] { return stop_ || generation_ != seen; });
                if (stop_) return;
                seen = generation_;
            }
            pull();
            std::lock_guard<std::mutex> lk(m_);
            if (--busy_ == 0) done_.notify_one();
        }
    }

    std::vector<std::thread> workers_;
    std::mutex m_;
    std::condition_variable wake_, done_;
    std::function<void(std::int64_t)> job_;
    std::int64_t ntasks_ = 0;
    std::atomic<std::int64_t> next_{0};
    int busy_ = 0;
    std::uint64_t generation_ = 0;
    bool stop_ = false;
};

}  // namespace gigasparse::direct
