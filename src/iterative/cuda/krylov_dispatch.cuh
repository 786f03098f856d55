// src/iterative/cuda/krylov_dispatch.cuh: the host side of the GPU iterative backend: the SpMV plan
// (lanes per row, the long rows), cuda::spmv, and the CG, BiCGStab, GMRES and MINRES drivers of cuda::solve. One stream
// per call; all vectors and scalars in device memory; the scalars of a batch of iterations read at once.
// V is the kernels' value type (krylov_value.hpp: krylov::Complex for complex values), H = host_value_t<V>
// the API's. Instantiated in krylov_double.cu, krylov_float.cu and krylov_complex.cu; the CPU simulator's tests compile
// it too.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <gigasparse/core/error.hpp>
#include <gigasparse/core/timer.hpp>
#include <gigasparse/cuda/abi.hpp>
#include <gigasparse/cuda/device_matrix.hpp>
#include <gigasparse/cuda/iterative.hpp>
#include <gigasparse/iterative/preconditioner.hpp>

#include "cuda/base/device_buffer.hpp"
#include "cuda/base/device_matrix.cuh"
#include "cuda/base/launch.hpp"
#include "iterative/cuda/krylov_kernels.cuh"
#include "iterative/cuda/krylov_math.hpp"
#include "iterative/cuda/krylov_value.hpp"
#include "iterative/cuda/level_sets.hpp"
#include "iterative/gmres_lsq.hpp"

namespace gigasparse::cuda {
inline namespace GIGASPARSE_CUDA_ABI {
namespace krylov {

// The SpMV of one matrix: lanes per row from its mean row length, and the list of its long rows
// (found once on the device; the count is read back to size their grid).
template <class V, class I>
class SpmvPlan {
public:
    using H = host_value_t<V>;
    SpmvPlan(const DeviceMatrix<H, I>& a, const GpuSpmvOptions& o, Placement where)
        : n_(a.nrows()), rp_(a.row_ptr()), ci_(a.col_idx()), val_(dev(a.values())) {
        threads_ = spmv_threads_per_row(a.nrows(), a.nnz());
        long_row_ = spmv_long_row_threshold(threads_, o.long_row);
        const count_t capacity = spmv_long_row_capacity(a.nrows(), a.nnz(), long_row_);
        if (capacity > 0 && n_ > 0) {
            rows_.allocate(capacity, where);
            DeviceBuffer<unsigned long long> count(1, where);
            check(cudaMemsetAsync(count.data(), 0, sizeof(unsigned long long), where.stream), "cudaMemsetAsync");
            launch("gigasparse::krylov::long_rows_kernel", long_rows_kernel<I>, elementwise_blocks(n_, max_grid_blocks), dim3(block_threads), 0,
                   where.stream, n_, rp_, long_row_, rows_.data(), count.data());
            unsigned long long h = 0;
            check(cudaMemcpyAsync(&h, count.data(), sizeof h, cudaMemcpyDeviceToHost, where.stream), "cudaMemcpyAsync D2H");
            check(cudaStreamSynchronize(where.stream), "cudaStreamSynchronize");
            long_rows_ = static_cast<count_t>(h);
        }
    }

    // y = alpha A x + beta y on stream s (x, y in device memory, length ncols / nrows); nothing when *skip
    // (a device flag, nullable) is set when the kernels run.
    void run(const V* x, V* y, V alpha, V beta, cudaStream_t s, const int* skip = nullptr) {
        ++calls_;
        if (n_ == 0) return;
        const count_t blocks = spmv_vector_blocks(n_, threads_, max_grid_blocks);
        switch (threads_) {
            case 1: vector<1>(blocks, x, y, alpha, beta, s, skip); break;
            case 2: vector<2>(blocks, x, y, alpha, beta, s, skip); break;
            case 4: vector<4>(blocks, x, y, alpha, beta, s, skip); break;
            case 8: vector<8>(blocks, x, y, alpha, beta, s, skip); break;
            case 16: vector<16>(blocks, x, y, alpha, beta, s, skip); break;
            default: vector<32>(blocks, x, y, alpha, beta, s, skip); break;
        }
        if (long_rows_ > 0)
            launch("gigasparse::krylov::spmv_long_rows_kernel", spmv_long_rows_kernel<V, I>, long_rows_, dim3(block_threads), 0, s, rows_.data(), rp_,
                   ci_, val_, x, y, alpha, beta, skip);
    }

    count_t calls() const { return calls_; }
    void add_calls(count_t n) { calls_ += n; }  // a graph's replays of the calls made while it was captured

    void fill(GpuSolveStats& st) const {
        st.threads_per_row = threads_;
        st.long_row_threshold = long_row_;
        st.long_rows = long_rows_;
        st.spmv_calls += calls_;
    }

private:
    template <int T>
    void vector(count_t blocks, const V* x, V* y, V alpha, V beta, cudaStream_t s, const int* skip) {
        launch("gigasparse::krylov::spmv_vector_kernel", spmv_vector_kernel<T, V, I>, blocks, dim3(block_threads), 0, s, n_, rp_, ci_, val_, x, y,
               alpha, beta, long_row_, skip);
    }

    count_t n_;
    const offset_t* rp_;
    const I* ci_;
    const V* val_;
    int threads_ = 1;
    count_t long_row_ = 0;
    count_t long_rows_ = 0;
    count_t calls_ = 0;
    DeviceBuffer<count_t> rows_;
};

template <class T>
void to_device(DeviceBuffer<T>& d, std::span<const T> h, Placement where) {
    d.allocate(static_cast<count_t>(h.size()), where);
    if (!h.empty()) check(cudaMemcpyAsync(d.data(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice, where.stream), "cudaMemcpyAsync H2D");
}

// The sweeps of an ILU(0), IC(0) or SGS preconditioner on the device: its factors (from
// iterative::sweep_factors on the host), the permutation, and each sweep's level sets; apply() runs a
// kernel per level.
template <class V, class I>
class SweepPlan {
public:
    using H = host_value_t<V>;
    SweepPlan(const iterative::SweepFactors<H, I>& f, Placement where)
        : n_(f.lower.nrows), unit_(f.unit_lower), lower_(cuda::upload(f.lower.view(), where.stream, where.tracker)),
          upper_(cuda::upload(f.upper.view(), where.stream, where.tracker)) {
        const LevelSets lo = level_sets(f.lower.view(), true), up = level_sets(f.upper.view(), false);
        lower_ptr_ = lo.level_ptr;
        upper_ptr_ = up.level_ptr;
        to_device(lower_rows_, std::span<const count_t>(lo.order), where);
        to_device(upper_rows_, std::span<const count_t>(up.order), where);
        to_device(perm_, std::span<const count_t>(f.perm), where);
        to_device(middle_, std::span<const V>(dev(f.middle.data()), f.middle.size()), where);
        if (!f.perm.empty()) work_.allocate(n_, where);
        // the host vectors above are read by the copies: wait before they go
        check(cudaStreamSynchronize(where.stream), "cudaStreamSynchronize");
    }

    // z = M⁻¹ r on stream s (r may alias z); nothing when *skip (a device flag, nullable) is set.
    void apply(const V* r, V* z, cudaStream_t s, const int* skip = nullptr) {
        if (n_ == 0) return;
        const count_t blocks = elementwise_blocks(n_, max_grid_blocks);
        V* y = perm_.size() > 0 ? work_.data() : z;
        if (perm_.size() > 0)
            launch("gigasparse::krylov::permute_kernel", permute_kernel<V>, blocks, dim3(block_threads), 0, s, n_, perm_.data(), r, y, true, skip);
        else if (r != z)
            check(cudaMemcpyAsync(z, r, static_cast<std::size_t>(n_) * sizeof(V), cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync D2D");
        sweep(lower_, lower_rows_, lower_ptr_, true, unit_, y, s, skip);
        if (middle_.size() > 0)
            launch("gigasparse::krylov::scale_kernel", scale_kernel<V>, blocks, dim3(block_threads), 0, s, n_, static_cast<const V*>(middle_.data()), y,
                   skip);
        sweep(upper_, upper_rows_, upper_ptr_, false, false, y, s, skip);
        if (perm_.size() > 0)
            launch("gigasparse::krylov::permute_kernel", permute_kernel<V>, blocks, dim3(block_threads), 0, s, n_, perm_.data(),
                   static_cast<const V*>(y), z, false, skip);
    }

    count_t levels() const { return static_cast<count_t>(lower_ptr_.size() + upper_ptr_.size()) - 2; }

private:
    void sweep(const DeviceCsr<H, I>& t, const DeviceBuffer<count_t>& rows, const std::vector<count_t>& ptr, bool lower, bool unit, V* y,
               cudaStream_t s, const int* skip) {
        for (std::size_t l = 0; l + 1 < ptr.size(); ++l) {
            const count_t count = ptr[l + 1] - ptr[l];
            launch("gigasparse::krylov::sweep_level_kernel", sweep_level_kernel<V, I>, elementwise_blocks(count, max_grid_blocks), dim3(block_threads),
                   0, s, count, static_cast<const count_t*>(rows.data() + ptr[l]), static_cast<const offset_t*>(t.row_ptr.data()),
                   static_cast<const I*>(t.col_idx.data()), dev(t.values.data()), lower, unit, y, skip);
        }
    }

    count_t n_;
    bool unit_;
    DeviceCsr<H, I> lower_, upper_;
    std::vector<count_t> lower_ptr_, upper_ptr_;
    DeviceBuffer<count_t> lower_rows_, upper_rows_, perm_;
    DeviceBuffer<V> middle_, work_;
};

template <class T>
void to_host(std::span<T> h, const DeviceBuffer<T>& d, cudaStream_t s) {
    if (!h.empty()) check(cudaMemcpyAsync(h.data(), d.data(), h.size() * sizeof(T), cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync D2H");
}

// The state every solve shares: the stream, memory, SpMV, Jacobi, partial sums and the result.
template <class V, class I>
struct Solve {
    using H = host_value_t<V>;
    const DeviceMatrix<H, I>& a;
    std::span<const H> b;  // read on the host in H (start); copied to and from the device as bytes
    std::span<H> x;
    const GpuSolveOptions& o;
    count_t n;
    Stream stream;
    MemoryTracker tracker;
    Placement where{stream.get(), &tracker};
    iterative::SolveResult res;
    Timer timer;
    double bnorm = 0;
    DeviceBuffer<V> xd, partial0, partial1, dinv;
    std::unique_ptr<SpmvPlan<V, I>> spmv;
    std::unique_ptr<SweepPlan<V, I>> sweeps;  // ilu0, ic0, sgs
    std::string ordering;                     // the sweeps' ordering
    count_t red_blocks;
    count_t graph_launches = 0;
    std::string precond_failure;  // non-empty: Jacobi found a bad diagonal, or the factorization failed

    Solve(const DeviceMatrix<H, I>& m, std::span<const H> rhs, std::span<H> sol, const GpuSolveOptions& opt)
        : a(m), b(rhs), x(sol), o(opt), n(m.nrows()), red_blocks(reduce_blocks(m.nrows())) {}

    DeviceBuffer<V> vec() { return DeviceBuffer<V>(n, where); }
    cudaStream_t s() const { return stream.get(); }

    // Checks the arguments (host-side); true when the answer is known without the device (b = 0).
    bool start() {
        if (!a.impl()) throw InvalidArgument("cuda::solve: A is an empty (default-constructed or moved-from) DeviceMatrix");
        if (a.nrows() != a.ncols()) throw DimensionMismatch("cuda::solve: A is " + std::to_string(a.nrows()) + " x " + std::to_string(a.ncols()) + ", not square");
        if (static_cast<count_t>(b.size()) != n || static_cast<count_t>(x.size()) != n)
            throw DimensionMismatch("cuda::solve: b and x must have " + std::to_string(n) + " entries");
        for (const H v : b)
            if (!finite_value(v)) throw InvalidStructure("cuda::solve: the right-hand side has NaN or Inf entries");
        for (const H v : x)
            if (!finite_value(v)) throw InvalidStructure("cuda::solve: the initial guess has NaN or Inf entries");
        check_options(o);
        long double s2 = 0;
        for (const H v : b) s2 += static_cast<long double>(abs2(v));
        bnorm = static_cast<double>(std::sqrt(s2));
        if (bnorm == 0) {
            std::fill(x.begin(), x.end(), H(0));
            res.iterations = 0;
            res.residual = 0;
            stop(iterative::StopReason::converged, "b = 0: x = 0");
            return true;
        }
        check(cudaSetDevice(a.device()), "cudaSetDevice");
        return false;
    }

    // The SpMV plan, Jacobi's inverse diagonal, x on the device, the partial-sum buffers.
    void setup() {
        spmv = std::make_unique<SpmvPlan<V, I>>(a, o.spmv, where);
        to_device(xd, std::span<const V>(dev(x.data()), x.size()), where);
        partial0.allocate(red_blocks, where);
        partial1.allocate(red_blocks, where);
        if (o.precond == GpuPrecond::jacobi) {
            dinv.allocate(n, where);
            DeviceBuffer<unsigned long long> first_bad(1, where);
            const auto init = static_cast<unsigned long long>(n);
            check(cudaMemcpyAsync(first_bad.data(), &init, sizeof init, cudaMemcpyHostToDevice, s()), "cudaMemcpyAsync H2D");
            launch("gigasparse::krylov::jacobi_kernel", jacobi_kernel<V, I>, elementwise_blocks(n, max_grid_blocks), dim3(block_threads), 0, s(), n,
                   a.row_ptr(), a.col_idx(), dev(a.values()), dinv.data(), first_bad.data());
            unsigned long long bad = 0;
            check(cudaMemcpyAsync(&bad, first_bad.data(), sizeof bad, cudaMemcpyDeviceToHost, s()), "cudaMemcpyAsync D2H");
            stream.sync();
            if (bad < static_cast<unsigned long long>(n))
                precond_failure = "Jacobi: zero, missing or non-finite diagonal at row " + std::to_string(bad);
        } else if (o.precond != GpuPrecond::none) {
            // the CPU backend's ordering and factorization, on a host copy of A
            const Csr<H, I> host = a.download();
            iterative::PrecondOptions po;
            po.kind = o.precond == GpuPrecond::ilu0 ? iterative::PrecondKind::ilu0
                      : o.precond == GpuPrecond::ic0 ? iterative::PrecondKind::ic0
                                                     : iterative::PrecondKind::sgs;
            po.ordering = o.ordering;
            const iterative::SweepFactors<H, I> f = iterative::sweep_factors(host.view(), po);
            ordering = f.info.ordering_description;
            if (!f.info.status.ok) precond_failure = f.info.status.message;
            else sweeps = std::make_unique<SweepPlan<V, I>>(f, where);
        }
    }
    // z = M⁻¹ r by the sweeps (only when they exist)
    void apply(const V* r, V* z, const int* skip = nullptr) { sweeps->apply(r, z, s(), skip); }

    // (tol ||b||)²: the device's convergence test on a squared residual norm
    double stop_norm2() const { return (o.tol * bnorm) * (o.tol * bnorm); }
    const V* dinv_ptr() const { return dinv.size() > 0 ? dinv.data() : nullptr; }

    // r = b - A x
    void residual(DeviceBuffer<V>& r) {
        check(cudaMemcpyAsync(r.data(), b.data(), b.size() * sizeof(V), cudaMemcpyHostToDevice, s()), "cudaMemcpyAsync H2D");
        spmv->run(xd.data(), r.data(), V(-1), V(1), s());
    }

    iterative::SolveResult& stop(iterative::StopReason why, std::string msg) {
        res.reason = why;
        res.converged = why == iterative::StopReason::converged;
        res.message = std::move(msg);
        res.seconds = timer.seconds();
        return res;
    }
    // As iterative's Krylov::record: true when the solve must stop (non-finite, or converged: decided on the
    // device by the same test where `converged` is given, so a frozen solve is never passed over).
    bool record(count_t it, double rnorm, std::optional<bool> converged = std::nullopt) {
        res.iterations = it;
        res.residual = rnorm / bnorm;
        if (o.record_history) res.residual_history.push_back(res.residual);
        if (!std::isfinite(rnorm)) return stop(iterative::StopReason::non_finite, "residual became non-finite"), true;
        if (converged.value_or(res.residual <= o.tol)) return stop(iterative::StopReason::converged, "relative residual below tolerance"), true;
        return false;
    }
    iterative::SolveResult& not_converged() {
        return stop(iterative::StopReason::max_iterations, "maximum iterations (" + std::to_string(o.maxit) + ") reached");
    }

    // iterations queued between two reads of their states (the ring's slots)
    count_t ring_slots() const { return std::clamp<count_t>(o.check_every, 1, 64); }
    // the stop bits of a state in device memory, as the skip flag of the SpMV, dot and sweep kernels
    template <class State>
    static const int* stop_flag(const DeviceBuffer<State>& st) {
        return reinterpret_cast<const int*>(reinterpret_cast<const char*>(st.data()) + offsetof(State, stop));
    }
    // the first `count` slots of a ring of states, once the work queued before them is done
    template <class State>
    void read_ring(std::vector<State>& seen, const DeviceBuffer<State>& ring, count_t count) {
        check(cudaMemcpyAsync(seen.data(), ring.data(), static_cast<std::size_t>(count) * sizeof(State), cudaMemcpyDeviceToHost, s()),
              "cudaMemcpyAsync D2H");
        stream.sync();
    }

    void dot(const V* u, const V* v, V* partial, const int* skip = nullptr) {
        launch("gigasparse::krylov::dot_kernel", dot_kernel<V>, red_blocks, dim3(block_threads), 0, s(), n, u, v, partial, skip);
    }
    template <class Kernel, class... Args>
    void finish(const char* name, Kernel k, Args... args) {
        launch(name, k, 1, dim3(block_threads), 0, s(), red_blocks, args...);
    }
    template <class Kernel, class... Args>
    void reduce(const char* name, Kernel k, Args... args) {
        launch(name, k, red_blocks, dim3(block_threads), 0, s(), n, args...);
    }
    template <class Kernel, class... Args>
    void elementwise(const char* name, Kernel k, Args... args) {
        launch(name, k, elementwise_blocks(n, max_grid_blocks), dim3(block_threads), 0, s(), n, args...);
    }
};

// A batch of queued iterations as one CUDA graph: captured the first time the batch is queued whole (its planned
// size: the same kernels, buffers and slots each time), replayed after; a batch cut short (by maxit), a solve
// with graphs off, or a runtime that will not capture runs kernel by kernel. SpMV calls are counted as run.
struct BatchGraph {
    Graph graph;
    count_t spmvs = 0;  // SpMV calls per replay
    bool failed = false;
};

template <class V, class I, class Queue>
void queue_batch(Solve<V, I>& k, BatchGraph& g, bool whole, Queue queue) {
    const bool use = k.o.graphs && whole && !g.failed;
    if (use && !g.graph.ready()) {
        const count_t before = k.spmv->calls();
        g.failed = !g.graph.capture(k.s(), queue);
        g.spmvs = k.spmv->calls() - before;
        k.spmv->add_calls(-g.spmvs);  // captured, not run
    }
    if (use && g.graph.ready()) {
        g.graph.launch(k.s());
        k.spmv->add_calls(g.spmvs);
        ++k.graph_launches;
    } else {
        queue();
    }
}

// Iterations 1..maxit queued in batches of check_every (at most 64): queue(slot) queues one iteration, whose
// kernels leave its state in the ring slot; the ring is read once per batch and over(it, state) reads each
// iteration in turn (true: the solve is over). A stop decided on the device freezes the solve there, so the
// iterations queued after it do nothing but launch, and the result is the same for any batch size.
// Each whole batch is one graph launch (queue_batch).
template <class V, class I, class State, class Queue, class Over>
void run_batches(Solve<V, I>& k, DeviceBuffer<State>& ring, std::vector<State>& seen, Queue queue, Over over) {
    BatchGraph graph;
    for (count_t it = 1; it <= k.o.maxit;) {
        const count_t batch = std::min<count_t>(ring.size(), k.o.maxit - it + 1);
        queue_batch(k, graph, batch == ring.size(), [&] {
            for (count_t b = 0; b < batch; ++b) queue(ring.data() + b);
        });
        k.read_ring(seen, ring, batch);
        for (count_t b = 0; b < batch; ++b)
            if (over(it + b, seen[static_cast<std::size_t>(b)])) return;
        it += batch;
    }
    k.not_converged();
}

// CG, in batches (run_batches); its stops, convergence included, decided on the device.
template <class V, class I>
void run_cg(Solve<V, I>& k, Event& iterate) {
    const V* dinv = k.dinv_ptr();
    const bool sweeps = k.sweeps != nullptr;
    auto r = k.vec(), p = k.vec(), q = k.vec();
    DeviceBuffer<V> z_own = dinv || sweeps ? k.vec() : DeviceBuffer<V>();
    V* z = dinv || sweeps ? z_own.data() : r.data();
    DeviceBuffer<CgState<V>> st(1, k.where), ring(k.ring_slots(), k.where);
    std::vector<CgState<V>> seen(static_cast<std::size_t>(ring.size()));
    const int* stopped = k.stop_flag(st);
    const double stop_norm2 = k.stop_norm2();
    // the host's reading of one iteration's scalars, in iterative::cg's order; true when the solve is over
    const auto over = [&](count_t it, const CgState<V>& h) {
        if (h.stop & cg_stop_pq)
            return k.stop(finite_value(h.pq) ? iterative::StopReason::breakdown : iterative::StopReason::non_finite,
                          finite_value(h.pq) ? "pᵀAp <= 0: the operator or preconditioner is not positive definite"
                                                                  : "pᵀAp is not finite"),
                   true;
        if (k.record(it, std::sqrt(re(h.rr)), (h.stop & cg_stop_converged) != 0)) return true;
        if (h.stop & cg_stop_rz) return k.stop(iterative::StopReason::breakdown, "rᵀz = 0"), true;
        return false;
    };
    k.residual(r);
    // z = M⁻¹ r, p = z, rᵀz, rᵀr
    if (sweeps) k.apply(r.data(), z);
    k.reduce("gigasparse::krylov::precond_dots_kernel", precond_dots_kernel<V>, dinv, static_cast<const V*>(r.data()), z, sweeps, p.data(),
             k.partial0.data(), k.partial1.data());
    check(cudaMemsetAsync(st.data(), 0, sizeof(CgState<V>), k.s()), "cudaMemsetAsync");
    k.finish("gigasparse::krylov::cg_beta_kernel", cg_beta_kernel<V>, static_cast<const V*>(k.partial0.data()),
             static_cast<const V*>(k.partial1.data()), stop_norm2, true, st.data(), ring.data());
    k.read_ring(seen, ring, 1);
    iterate.record(k.s());
    if (over(0, seen[0])) return;
    const auto queue = [&](CgState<V>* slot) {
        k.spmv->run(p.data(), q.data(), V(1), V(0), k.s(), stopped);
        k.dot(p.data(), q.data(), k.partial0.data(), stopped);
        k.finish("gigasparse::krylov::cg_alpha_kernel", cg_alpha_kernel<V>, static_cast<const V*>(k.partial0.data()), st.data());
        k.reduce("gigasparse::krylov::cg_update_kernel", cg_update_kernel<V>, static_cast<const CgState<V>*>(st.data()),
                 static_cast<const V*>(p.data()), static_cast<const V*>(q.data()), k.xd.data(), r.data(), dinv, sweeps ? nullptr : z,
                 k.partial0.data(), k.partial1.data());
        if (sweeps) {  // z = M⁻¹ r and the partials of rᵀz
            k.apply(r.data(), z, stopped);
            k.dot(r.data(), z, k.partial0.data(), stopped);
        }
        k.finish("gigasparse::krylov::cg_beta_kernel", cg_beta_kernel<V>, static_cast<const V*>(k.partial0.data()),
                 static_cast<const V*>(k.partial1.data()), stop_norm2, false, st.data(), slot);
        k.elementwise("gigasparse::krylov::cg_direction_kernel", cg_direction_kernel<V>, static_cast<const CgState<V>*>(st.data()),
                      static_cast<const V*>(z), p.data());
    };
    run_batches(k, ring, seen, queue, over);
}

// BiCGStab, in batches as CG: every stop (the early exit on a small ||s|| included) is decided on the device
// and freezes the solve when its iteration ends.
template <class V, class I>
void run_bicgstab(Solve<V, I>& k, Event& iterate) {
    const V* dinv = k.dinv_ptr();
    const bool precond = dinv || k.sweeps;
    auto r = k.vec(), rhat = k.vec(), p = k.vec(), v = k.vec(), s = k.vec(), t = k.vec();
    DeviceBuffer<V> phat_own = precond ? k.vec() : DeviceBuffer<V>(), shat_own = precond ? k.vec() : DeviceBuffer<V>();
    V* phat = precond ? phat_own.data() : p.data();
    V* shat = precond ? shat_own.data() : s.data();
    DeviceBuffer<BicgState<V>> st(1, k.where), ring(k.ring_slots(), k.where);
    std::vector<BicgState<V>> seen(static_cast<std::size_t>(ring.size()));
    const int* stopped = k.stop_flag(st);
    const double stop_norm2 = k.stop_norm2();
    k.residual(r);
    check(cudaMemcpyAsync(rhat.data(), r.data(), static_cast<std::size_t>(k.n) * sizeof(V), cudaMemcpyDeviceToDevice, k.s()), "cudaMemcpyAsync D2D");
    check(cudaMemsetAsync(p.data(), 0, static_cast<std::size_t>(k.n) * sizeof(V), k.s()), "cudaMemsetAsync");
    check(cudaMemsetAsync(v.data(), 0, static_cast<std::size_t>(k.n) * sizeof(V), k.s()), "cudaMemsetAsync");
    BicgState<V> init{};
    init.rho = init.alpha = init.omega = V(1);
    check(cudaMemcpyAsync(st.data(), &init, sizeof init, cudaMemcpyHostToDevice, k.s()), "cudaMemcpyAsync H2D");
    DeviceBuffer<V> rr0(1, k.where);
    k.dot(r.data(), r.data(), k.partial0.data());
    k.finish("gigasparse::krylov::sum_kernel", sum_kernel<V>, static_cast<const V*>(k.partial0.data()), rr0.data());
    V h_rr0{};
    check(cudaMemcpyAsync(&h_rr0, rr0.data(), sizeof h_rr0, cudaMemcpyDeviceToHost, k.s()), "cudaMemcpyAsync D2H");
    k.stream.sync();
    iterate.record(k.s());
    if (k.record(0, std::sqrt(re(h_rr0)))) return;
    const auto* cst = static_cast<const BicgState<V>*>(st.data());
    const auto queue = [&](BicgState<V>* slot) {
        k.dot(rhat.data(), r.data(), k.partial0.data(), stopped);
        k.finish("gigasparse::krylov::bicg_rho_kernel", bicg_rho_kernel<V>, static_cast<const V*>(k.partial0.data()), st.data());
        k.elementwise("gigasparse::krylov::bicg_direction_kernel", bicg_direction_kernel<V>, cst, static_cast<const V*>(r.data()),
                      static_cast<const V*>(v.data()), p.data(), dinv, phat);
        if (k.sweeps) k.apply(p.data(), phat, stopped);
        k.spmv->run(phat, v.data(), V(1), V(0), k.s(), stopped);
        k.dot(rhat.data(), v.data(), k.partial0.data(), stopped);
        k.finish("gigasparse::krylov::bicg_alpha_kernel", bicg_alpha_kernel<V>, static_cast<const V*>(k.partial0.data()), st.data());
        k.reduce("gigasparse::krylov::bicg_s_kernel", bicg_s_kernel<V>, cst, static_cast<const V*>(r.data()), static_cast<const V*>(v.data()), s.data(),
                 dinv, shat, k.partial0.data());
        k.finish("gigasparse::krylov::bicg_snorm_kernel", bicg_snorm_kernel<V>, static_cast<const V*>(k.partial0.data()), stop_norm2, st.data());
        if (k.sweeps) k.apply(s.data(), shat, stopped);
        k.spmv->run(shat, t.data(), V(1), V(0), k.s(), stopped);
        launch("gigasparse::krylov::dot2_kernel", dot2_kernel<V>, k.red_blocks, dim3(block_threads), 0, k.s(), k.n, static_cast<const V*>(t.data()),
               static_cast<const V*>(t.data()), static_cast<const V*>(t.data()), static_cast<const V*>(s.data()), k.partial0.data(), k.partial1.data(),
               stopped);
        k.finish("gigasparse::krylov::bicg_omega_kernel", bicg_omega_kernel<V>, static_cast<const V*>(k.partial0.data()),
                 static_cast<const V*>(k.partial1.data()), st.data());
        k.reduce("gigasparse::krylov::bicg_update_kernel", bicg_update_kernel<V>, cst, static_cast<const V*>(phat), static_cast<const V*>(shat),
                 static_cast<const V*>(s.data()), static_cast<const V*>(t.data()), k.xd.data(), r.data(), k.partial0.data());
        k.finish("gigasparse::krylov::bicg_finish_kernel", bicg_finish_kernel<V>, static_cast<const V*>(k.partial0.data()), stop_norm2, st.data(), slot);
    };
    // the host's reading of one iteration's state, in iterative::bicgstab's order; true when the solve is over
    const auto over = [&](count_t it, const BicgState<V>& h) {
        if (h.stop & bicg_stop_rho) return k.stop(iterative::StopReason::breakdown, "BiCGStab: rho = r̂ᵀr = 0"), true;
        if (h.stop & bicg_stop_rv)
            return k.stop(finite_value(h.rv) ? iterative::StopReason::breakdown : iterative::StopReason::non_finite,
                          "BiCGStab: r̂ᵀv = 0"),
                   true;
        if (h.stop & bicg_stop_s_converged) return k.record(it, std::sqrt(re(h.ss)), true), true;
        if (k.record(it, std::sqrt(re(h.rr)), (h.stop & bicg_stop_converged) != 0)) return true;
        if (h.stop & bicg_stop_omega) return k.stop(iterative::StopReason::breakdown, "BiCGStab: omega = 0 (stagnation)"), true;
        return false;
    };
    run_batches(k, ring, seen, queue, over);
}

// GMRES(m) and FGMRES as iterative::gmres / fgmres, right-preconditioned, with the whole cycle on the device: the
// basis (one array of m + 1 vectors), the preconditioned vectors (FGMRES: m more), the SpMV, the orthogonalization,
// the Givens rotations of the small least-squares problem and its back substitution. Classical Gram–Schmidt twice per
// step (CGS2: a pass of all j + 1 dot products, their sums, one update of w — twice — where the host's modified
// Gram–Schmidt needs j + 1 dependent dot products and updates); then one block rotates the new Hessenberg column
// (gmres_rotate_column, the host solver's arithmetic) and decides the stop. The steps of a cycle are queued in batches
// of check_every, each batch one graph launch (the same batch of every cycle replays one graph), and the host reads
// each batch's states once: a stop freezes the cycle on the device, so the result is the same for any batch size.
// The host reads the true residual's norm once per cycle, at its restart.
template <class V, class I>
void run_gmres(Solve<V, I>& k, Event& iterate, bool flexible) {
    const int m = k.o.restart;
    const count_t n = k.n, ld = n;
    const V* dinv = k.dinv_ptr();
    const bool precond = dinv || k.sweeps;
    DeviceBuffer<V> basis(n * (m + 1), k.where), zs(flexible && precond ? n * m : 0, k.where), w = k.vec(), r = k.vec();
    DeviceBuffer<V> z_own = precond && !flexible ? k.vec() : DeviceBuffer<V>();
    DeviceBuffer<V> partial(k.red_blocks * (m + 1), k.where), coef(m + 1, k.where), hcol(m + 1, k.where);
    DeviceBuffer<V> lsq_mem(static_cast<count_t>(m + 1) * m + 3 * static_cast<count_t>(m) + (m + 1), k.where);
    const GmresLsqRef<V> lsq{lsq_mem.data(), lsq_mem.data() + (m + 1) * m, lsq_mem.data() + (m + 1) * m + m, lsq_mem.data() + (m + 1) * m + 2 * m,
                             lsq_mem.data() + (m + 1) * m + 2 * m + (m + 1), m};
    DeviceBuffer<GmresState<V>> st(1, k.where), ring(std::min<count_t>(k.ring_slots(), m), k.where);
    std::vector<GmresState<V>> seen(static_cast<std::size_t>(ring.size()));
    const int q = static_cast<int>(ring.size());
    std::vector<BatchGraph> graphs(static_cast<std::size_t>((m + q - 1) / q));  // by the batch's first step
    const int* stopped = k.stop_flag(st);
    const double stop_norm = k.o.tol * k.bnorm;
    V* v = basis.data();
    // z = M⁻¹ u (z == u without a preconditioner)
    const auto apply = [&](const V* u, V* z, const int* skip) {
        if (k.sweeps) k.apply(u, z, skip);
        else if (dinv) k.elementwise("gigasparse::krylov::diag_apply_kernel", diag_apply_kernel<V>, dinv, u, z, skip);
    };
    // r = b - A x; the host reads ||r||
    const auto restart_residual = [&] {
        k.residual(r);
        k.dot(r.data(), r.data(), k.partial0.data());
        k.finish("gigasparse::krylov::sum_kernel", sum_kernel<V>, static_cast<const V*>(k.partial0.data()), hcol.data());
        V rr{};
        check(cudaMemcpyAsync(&rr, hcol.data(), sizeof rr, cudaMemcpyDeviceToHost, k.s()), "cudaMemcpyAsync D2H");
        k.stream.sync();
        return std::sqrt(re(rr));
    };
    // step j of a cycle (v_j given): its state into *slot
    const auto step = [&](int j, GmresState<V>* slot) {
        V* vj = v + static_cast<count_t>(j) * ld;
        V* zj = !precond ? vj : flexible ? zs.data() + static_cast<count_t>(j) * ld : z_own.data();
        apply(vj, zj, stopped);
        k.spmv->run(zj, w.data(), V(1), V(0), k.s(), stopped);
        for (int pass = 0; pass < 2; ++pass) {  // CGS2: h(0..j, j) = Vᵀ w, w -= V h, twice (the second corrects the first)
            launch("gigasparse::krylov::multi_dot_kernel", multi_dot_kernel<V>, k.red_blocks, dim3(block_threads), 0, k.s(), n,
                   static_cast<const V*>(v), ld, j + 1, static_cast<const V*>(w.data()), partial.data(), stopped);
            launch("gigasparse::krylov::multi_sum_kernel", multi_sum_kernel<V>, j + 1, dim3(block_threads), 0, k.s(), k.red_blocks,
                   static_cast<const V*>(partial.data()), coef.data(), hcol.data(), pass == 0, stopped);
            k.elementwise("gigasparse::krylov::multi_axpby_kernel", multi_axpby_kernel<V>, static_cast<const V*>(v), ld, j + 1,
                          static_cast<const V*>(coef.data()), V(-1), V(1), w.data(), stopped);
        }
        k.dot(w.data(), w.data(), k.partial0.data(), stopped);
        k.finish("gigasparse::krylov::gmres_rotate_kernel", gmres_rotate_kernel<V>, static_cast<const V*>(k.partial0.data()),
                 static_cast<const V*>(hcol.data()), j, lsq, stop_norm, st.data(), slot);
        k.elementwise("gigasparse::krylov::gmres_next_kernel", gmres_next_kernel<V>, static_cast<const GmresState<V>*>(st.data()),
                      static_cast<const V*>(w.data()), v + static_cast<count_t>(j + 1) * ld);
    };
    std::int64_t it = 0;
    double beta = restart_residual();
    iterate.record(k.s());
    if (k.record(0, beta)) return;
    while (it < k.o.maxit) {
        k.elementwise("gigasparse::krylov::axpby_kernel", axpby_kernel<V>, from_real<V>(1 / beta), static_cast<const V*>(r.data()), V(0), v);
        launch("gigasparse::krylov::gmres_start_kernel", gmres_start_kernel<V>, 1, dim3(32), 0, k.s(), lsq, from_real<V>(beta), st.data());
        int j = 0;  // steps of the cycle taken
        bool lucky = false, done = false;
        while (j < m && it < k.o.maxit && !done && !lucky) {
            const int planned = std::min(q, m - j);
            const int batch = static_cast<int>(std::min<std::int64_t>(planned, k.o.maxit - it));
            const int first = j;
            queue_batch(k, graphs[static_cast<std::size_t>(first / q)], batch == planned, [&] {
                for (int b = 0; b < batch; ++b) step(first + b, ring.data() + b);
            });
            k.read_ring(seen, ring, batch);
            for (int b = 0; b < batch; ++b) {
                const GmresState<V>& h = seen[static_cast<std::size_t>(b)];
                ++it, ++j;
                if (k.record(it, re(h.rnorm), (h.stop & gmres_stop_converged) != 0)) {
                    done = true;
                    break;
                }
                if (h.stop & gmres_stop_lucky) {
                    lucky = true;
                    break;
                }
            }
        }
        if (k.res.reason == iterative::StopReason::non_finite && done && !k.res.converged) return;
        launch("gigasparse::krylov::gmres_solve_kernel", gmres_solve_kernel<V>, 1, dim3(32), 0, k.s(), lsq, j);
        if (flexible && precond) {  // x += Σ y_i z_i
            k.elementwise("gigasparse::krylov::multi_axpby_kernel", multi_axpby_kernel<V>, static_cast<const V*>(zs.data()), ld, j,
                          static_cast<const V*>(lsq.y), V(1), V(1), k.xd.data(), static_cast<const int*>(nullptr));
        } else {  // w = Σ y_i v_i, x += M⁻¹ w
            k.elementwise("gigasparse::krylov::multi_axpby_kernel", multi_axpby_kernel<V>, static_cast<const V*>(v), ld, j,
                          static_cast<const V*>(lsq.y), V(1), V(0), w.data(), static_cast<const int*>(nullptr));
            V* zw = precond ? z_own.data() : w.data();  // (flexible with a preconditioner took the branch above)
            apply(w.data(), zw, nullptr);
            k.elementwise("gigasparse::krylov::axpby_kernel", axpby_kernel<V>, V(1), static_cast<const V*>(zw), V(1), k.xd.data());
        }
        if (done) return;
        beta = restart_residual();  // restart from the true residual
        if (iterative::gmres_restart_stops(k, beta, lucky)) return;
    }
    k.not_converged();
}

// MINRES as iterative::minres (Paige–Saunders, the same recurrence: iterative::minres_rotate), in batches
// (run_batches); its stops decided on the device. Seven launches an iteration besides the preconditioner's: v = y / beta,
// the SpMV, the Lanczos update with vᵀy's partials, their sum, the three-term shift with r2ᵀM⁻¹r2's partials (fused
// with Jacobi), the one-thread rotation, and the direction and x update. The residual it records is the M⁻¹ norm's,
// on the 2-norm scale of b (no preconditioner: the 2-norm residual).
template <class V, class I>
void run_minres(Solve<V, I>& k, Event& iterate) {
    const V* dinv = k.dinv_ptr();
    auto r1 = k.vec(), r2 = k.vec(), y = k.vec(), v = k.vec(), wa = k.vec(), wb = k.vec();
    DeviceBuffer<MinresState<V>> st(1, k.where), ring(k.ring_slots(), k.where);
    std::vector<MinresState<V>> seen(static_cast<std::size_t>(ring.size()));
    const int* stopped = k.stop_flag(st);
    // M⁻¹ u into z (z = u without a preconditioner)
    const auto precond = [&](const V* u, V* z, const int* skip) {
        if (k.sweeps) k.apply(u, z, skip);
        else if (dinv) k.elementwise("gigasparse::krylov::diag_apply_kernel", diag_apply_kernel<V>, dinv, u, z, skip);
        else if (u != z)
            check(cudaMemcpyAsync(z, u, static_cast<std::size_t>(k.n) * sizeof(V), cudaMemcpyDeviceToDevice, k.s()), "cudaMemcpyAsync D2D");
    };
    // uᵀ M⁻¹ u, read by the host (z: M⁻¹ u)
    DeviceBuffer<V> scalar(1, k.where);
    const auto m_norm2 = [&](const V* u, V* z) {
        precond(u, z, nullptr);
        k.dot(u, z, k.partial0.data());
        k.finish("gigasparse::krylov::sum_kernel", sum_kernel<V>, static_cast<const V*>(k.partial0.data()), scalar.data());
        V h{};
        check(cudaMemcpyAsync(&h, scalar.data(), sizeof h, cudaMemcpyDeviceToHost, k.s()), "cudaMemcpyAsync D2H");
        k.stream.sync();
        return re(h);
    };
    // bᵀM⁻¹b (b through r2 and y as scratch), then r1 = b - A x, y = M⁻¹ r1, beta² = r1ᵀy; r2 = r1
    check(cudaMemcpyAsync(r2.data(), k.b.data(), k.b.size() * sizeof(V), cudaMemcpyHostToDevice, k.s()), "cudaMemcpyAsync H2D");
    const double b_m2 = m_norm2(r2.data(), y.data());
    k.residual(r1);
    const double beta2 = m_norm2(r1.data(), y.data());
    iterate.record(k.s());
    if (!(beta2 >= 0) || !(b_m2 > 0)) {
        if (!std::isfinite(beta2) || !std::isfinite(b_m2)) k.stop(iterative::StopReason::non_finite, "MINRES: rᵀ M⁻¹ r is not finite");
        else k.stop(iterative::StopReason::breakdown, "MINRES: rᵀ M⁻¹ r <= 0: the preconditioner is not positive definite");
        return;
    }
    const double scale = k.bnorm / std::sqrt(b_m2);
    MinresState<V> init{};
    init.q = iterative::minres_start(std::sqrt(beta2));
    if (k.record(0, init.q.phibar * scale)) return;
    check(cudaMemcpyAsync(r2.data(), r1.data(), static_cast<std::size_t>(k.n) * sizeof(V), cudaMemcpyDeviceToDevice, k.s()), "cudaMemcpyAsync D2D");
    check(cudaMemsetAsync(wa.data(), 0, static_cast<std::size_t>(k.n) * sizeof(V), k.s()), "cudaMemsetAsync");
    check(cudaMemsetAsync(wb.data(), 0, static_cast<std::size_t>(k.n) * sizeof(V), k.s()), "cudaMemsetAsync");
    check(cudaMemcpyAsync(st.data(), &init, sizeof init, cudaMemcpyHostToDevice, k.s()), "cudaMemcpyAsync H2D");
    const auto* cst = static_cast<const MinresState<V>*>(st.data());
    const double stop_norm = k.o.tol * k.bnorm;
    const auto queue = [&](MinresState<V>* slot) {
        k.elementwise("gigasparse::krylov::minres_v_kernel", minres_v_kernel<V>, cst, static_cast<const V*>(y.data()), v.data(), stopped);
        k.spmv->run(v.data(), y.data(), V(1), V(0), k.s(), stopped);
        k.reduce("gigasparse::krylov::minres_lanczos_kernel", minres_lanczos_kernel<V>, cst, static_cast<const V*>(r1.data()),
                 static_cast<const V*>(v.data()), y.data(), k.partial0.data(), stopped);
        k.finish("gigasparse::krylov::minres_alfa_kernel", minres_alfa_kernel<V>, static_cast<const V*>(k.partial0.data()), st.data());
        k.reduce("gigasparse::krylov::minres_shift_kernel", minres_shift_kernel<V>, cst, r1.data(), r2.data(), y.data(), dinv, k.sweeps != nullptr,
                 k.partial0.data(), stopped);
        if (k.sweeps) {
            k.apply(r2.data(), y.data(), stopped);
            k.dot(r2.data(), y.data(), k.partial0.data(), stopped);
        }
        k.finish("gigasparse::krylov::minres_step_kernel", minres_step_kernel<V>, static_cast<const V*>(k.partial0.data()), scale, stop_norm, st.data(),
                 slot);
        k.elementwise("gigasparse::krylov::minres_update_kernel", minres_update_kernel<V>, cst, static_cast<const V*>(v.data()), wa.data(), wb.data(),
                      k.xd.data());
    };
    // the host's reading of one iteration's state, in iterative::minres's order; true when the solve is over
    const auto over = [&](count_t it, const MinresState<V>& h) {
        if (h.stop & minres_stop_alfa) return k.stop(iterative::StopReason::non_finite, "MINRES: vᵀAv is not finite"), true;
        if (h.stop & minres_stop_bb) {
            if (!std::isfinite(h.bb)) return k.stop(iterative::StopReason::non_finite, "MINRES: rᵀ M⁻¹ r is not finite"), true;
            return k.stop(iterative::StopReason::breakdown, "MINRES: rᵀ M⁻¹ r < 0: the preconditioner is not positive definite"), true;
        }
        if (k.record(it, h.rnorm, (h.stop & minres_stop_converged) != 0)) return true;
        if (h.stop & minres_stop_exhausted)
            return k.stop(iterative::StopReason::breakdown, "MINRES: Krylov space exhausted (beta = 0) before convergence"), true;
        return false;
    };
    run_batches(k, ring, seen, queue, over);
}

}  // namespace krylov

// (H: the API's value type; the kernels run on V = device_value_t<H>, the same bytes)
template <class H, class I>
void spmv(const DeviceMatrix<H, I>& a, std::span<const H> xh, std::span<H> yh, H alpha_h, H beta_h, const GpuSpmvOptions& o, GpuSolveStats* stats) {
    using V = krylov::device_value_t<H>;
    const std::span<const V> x(krylov::dev(xh.data()), xh.size());
    const std::span<V> y(krylov::dev(yh.data()), yh.size());
    const V alpha = krylov::device_value_of(alpha_h), beta = krylov::device_value_of(beta_h);
    if (!a.impl()) throw InvalidArgument("cuda::spmv: A is an empty (default-constructed or moved-from) DeviceMatrix");
    if (static_cast<std::int64_t>(x.size()) != a.ncols() || static_cast<std::int64_t>(y.size()) != a.nrows())
        throw DimensionMismatch("cuda::spmv: x must have " + std::to_string(a.ncols()) + " entries and y " + std::to_string(a.nrows()));
    check(cudaSetDevice(a.device()), "cudaSetDevice");
    Stream s;
    MemoryTracker tracker;
    const Placement where{s.get(), &tracker};
    krylov::SpmvPlan<V, I> plan(a, o, where);
    DeviceBuffer<V> xd, yd;
    krylov::to_device(xd, x, where);
    if (beta != V(0)) krylov::to_device(yd, std::span<const V>(y.data(), y.size()), where);
    else yd.allocate(static_cast<std::int64_t>(y.size()), where);
    plan.run(xd.data(), yd.data(), alpha, beta, s.get());
    krylov::to_host(y, yd, s.get());
    s.sync();
    if (stats) {
        *stats = GpuSolveStats{};
        plan.fill(*stats);
        stats->device_bytes = tracker.peak;
    }
}

template <class H, class I>
iterative::SolveResult solve(const DeviceMatrix<H, I>& a, std::span<const H> bh, std::span<H> xh, const GpuSolveOptions& o, GpuSolveStats* stats) {
    using V = krylov::device_value_t<H>;
    krylov::Solve<V, I> k(a, bh, xh, o);
    if (stats) *stats = GpuSolveStats{};
    if (k.start()) return k.res;
    Event t0, t1, t2, t3;
    t0.record(k.s());
    k.setup();
    if (!k.precond_failure.empty()) {
        k.stop(iterative::StopReason::preconditioner_failed, "preconditioner setup failed: " + k.precond_failure);
    } else {
        if (o.method == iterative::Method::cg) krylov::run_cg(k, t1);
        else if (o.method == iterative::Method::bicgstab) krylov::run_bicgstab(k, t1);
        else if (o.method == iterative::Method::minres) krylov::run_minres(k, t1);
        else krylov::run_gmres(k, t1, o.method == iterative::Method::fgmres);
        t2.record(k.s());
        krylov::to_host(std::span<V>(krylov::dev(xh.data()), xh.size()), k.xd, k.s());
        t3.record(k.s());
        k.stream.sync();
        k.res.seconds = k.timer.seconds();
    }
    if (stats) {
        k.spmv->fill(*stats);
        stats->device_bytes = k.tracker.peak;
        stats->ordering = k.ordering;
        if (k.sweeps) stats->sweep_levels = k.sweeps->levels();
        stats->graph_launches = k.graph_launches;
        if (k.precond_failure.empty()) {
            stats->setup_ms = t1.since(t0);
            stats->solve_ms = t2.since(t1);
            stats->download_ms = t3.since(t2);
        }
    }
    return k.res;
}

}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace gigasparse::cuda
