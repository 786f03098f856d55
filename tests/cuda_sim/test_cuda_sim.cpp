// tests/cuda_sim/test_cuda_sim.cpp: the CUDA simulator itself: barriers and warp collectives, thread
// orders that expose a missing barrier, stream order, and each check that turns a GPU bug into a
// test failure (barrier divergence, host pointers, freeing in-use buffers, shared-memory limits,
// device capacity), plus the CUB subset's documented semantics. Built twice: the racecheck build
// (ThreadSanitizer) must also report each race these tests commit on purpose, and no other.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include <cub/block/block_scan.cuh>
#include <cub/device/device_partition.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#ifdef GIGASPARSE_CUDA_SIM_RACECHECK
// Some tests race on purpose: the fixture checks each test's number of reports, not the exit code.
// Each test counts its own reports: no report may be dropped as a duplicate of an earlier test's.
extern "C" const char* __tsan_default_options() { return "exitcode=0 suppress_equal_stacks=0 suppress_equal_addresses=0"; }
#endif

namespace {

// Fresh simulator state for each test; restores the default configuration afterwards. In the
// racecheck build, a test reports no race unless it sets races_expected_, and then at least one.
class CudaSim : public ::testing::Test {
protected:
    void SetUp() override {
        cuda_sim::config() = cuda_sim::Config{};
        cuda_sim::reset();
    }
    void TearDown() override {
        for (cudaEvent_t e : events_) cudaEventDestroy(e);
        for (cudaStream_t s : streams_) cudaStreamDestroy(s);  // runs what is still queued (frees)
        EXPECT_EQ(cuda_sim::stats().allocations_live, live_at_start_) << "device memory leaked";
        if (cuda_sim::racecheck()) {
            if (races_expected_) EXPECT_GT(cuda_sim::race_reports(), races_at_start_) << "the racecheck build missed this test's race";
            else EXPECT_EQ(cuda_sim::race_reports(), races_at_start_) << "ThreadSanitizer reported a race (above)";
        }
        cuda_sim::config() = cuda_sim::Config{};
        cuda_sim::reset();
    }
    // A non-blocking stream and an event, destroyed after the test (before its leak check).
    cudaStream_t stream() {
        cudaStream_t s = nullptr;
        EXPECT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
        streams_.push_back(s);
        return s;
    }
    cudaEvent_t event() {
        cudaEvent_t e = nullptr;
        EXPECT_EQ(cudaEventCreate(&e), cudaSuccess);
        events_.push_back(e);
        return e;
    }
    template <class T>
    T* device(std::size_t n) {
        void* p = nullptr;
        EXPECT_EQ(cudaMalloc(&p, n * sizeof(T)), cudaSuccess);
        return static_cast<T*>(p);
    }
    template <class T>
    std::vector<T> to_host(const T* d, std::size_t n) {
        std::vector<T> h(n);
        EXPECT_EQ(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
        return h;
    }
    template <class... P, class... A>
    cudaError_t run(void (*k)(P...), unsigned grid, unsigned block, std::size_t smem, cudaStream_t s, A... args) {
        cudaLaunchConfig_t cfg{};
        cfg.gridDim = dim3(grid);
        cfg.blockDim = dim3(block);
        cfg.dynamicSmemBytes = smem;
        cfg.stream = s;
        return cudaLaunchKernelEx(&cfg, k, args...);
    }
    // Whether the racecheck build has reported a race since `since` (always true in other builds).
    static bool raced_since(std::int64_t since) { return !cuda_sim::racecheck() || cuda_sim::race_reports() > since; }
    std::vector<cudaStream_t> streams_;
    std::vector<cudaEvent_t> events_;
    std::int64_t live_at_start_ = cuda_sim::stats().allocations_live;
    std::int64_t races_at_start_ = cuda_sim::race_reports();
    bool races_expected_ = false;
};

// out[blockIdx * blockDim + t] = value thread 0 of the block published (with or without a barrier).
template <bool Barrier>
__global__ void broadcast_kernel(int value, int* out) {
    __shared__ int s;
    if (threadIdx.x == 0) s = value + static_cast<int>(blockIdx.x);
    if constexpr (Barrier) __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// Each warp's lane 0 publishes to its warp through shared memory, with or without __syncwarp; the
// warps of a block share nothing (hash_rows_warp_kernel's pattern).
template <bool Sync>
__global__ void warp_broadcast_kernel(int value, int* out) {
    __shared__ int s[32];
    const unsigned warp = threadIdx.x / 32;
    if (threadIdx.x % 32 == 0) s[warp] = value + static_cast<int>(warp);
    if constexpr (Sync) __syncwarp();
    out[threadIdx.x] = s[warp];
}

__global__ void divergent_barrier_kernel(int* out) {
    if (threadIdx.x >= 16) return;
    __syncthreads();
    out[threadIdx.x] = 1;
}

// Warp sums with __shfl_down_sync, one per warp.
__global__ void warp_sum_kernel(const int* in, int* out) {
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[t];
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
    if (threadIdx.x % 32 == 0) out[t / 32] = v;
}

// Each warp's inclusive prefix sums (__shfl_up_sync, 64-bit), the warp reversed (__shfl_sync), and
// lane 3 of each 8-lane segment (__shfl_sync with a width; a source lane past the width wraps).
__global__ void shuffle_kernel(const long long* in, long long* scan, long long* reversed, long long* seg3) {
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = static_cast<int>(threadIdx.x % 32);
    long long v = in[t];
    for (int o = 1; o < 32; o *= 2) {
        const long long u = __shfl_up_sync(0xffffffffu, v, o);
        if (lane >= o) v += u;
    }
    scan[t] = v;
    reversed[t] = __shfl_sync(0xffffffffu, in[t], 31 - lane);
    seg3[t] = __shfl_sync(0xffffffffu, in[t], 3 + 8, 8);
}

// Each warp's ballot of in[t] % 3 == 0, and the lanes below each lane that passed (a compaction).
__global__ void ballot_kernel(const int* in, unsigned* ballots, int* ranks) {
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    const bool pass = in[t] % 3 == 0;
    const unsigned b = __ballot_sync(0xffffffffu, pass);
    if (threadIdx.x % 32 == 0) ballots[t / 32] = b;
    ranks[t] = pass ? __popc(b & ((1u << (threadIdx.x % 32)) - 1)) : -1;
}

// Two branches of each warp, each with its own mask and number of collectives: lanes 0-15 scan
// their values (four __shfl_up_sync, width 16), lanes 16-31 take one ballot; then the whole warp
// reverses its values (a full-mask __shfl_sync, which waits for the first branch's lanes).
__global__ void branch_collectives_kernel(const int* in, int* scan, unsigned* ballots, int* reversed) {
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = static_cast<int>(threadIdx.x % 32);
    int v = in[t];
    if (lane < 16) {
        for (int o = 1; o < 16; o *= 2) {
            const int u = __shfl_up_sync(0x0000ffffu, v, o, 16);
            if (lane >= o) v += u;
        }
        scan[t] = v;
    } else {
        const unsigned b = __ballot_sync(0xffff0000u, in[t] % 2 == 0);
        if (lane == 16) ballots[t / 32] = b;
    }
    reversed[t] = __shfl_sync(0xffffffffu, in[t], 31 - lane);
}

// Lane 0 syncs with a mask that names lane 1 only.
__global__ void foreign_mask_kernel() {
    if (threadIdx.x == 0) __syncwarp(0x2u);
}

__global__ void copy_kernel(const int* in, int* out, int n) {
    const int t = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (t < n) out[t] = in[t];
}

// Thread b of block b adds one to *c, atomically or not.
template <bool Atomic>
__global__ void block_count_kernel(unsigned* c) {
    if (threadIdx.x != blockIdx.x % blockDim.x) return;
    if constexpr (Atomic) atomicAdd(c, 1u);
    else *c += 1;
}

// Thread 0 publishes through shared memory; a shuffle orders the lanes of each warp, not the warps.
template <unsigned Reader>
__global__ void shuffle_publish_kernel(int* out) {
    __shared__ int x;
    if (threadIdx.x == 0) x = 42;
    const int v = __shfl_down_sync(0xffffffffu, static_cast<int>(threadIdx.x), 1);
    if (threadIdx.x == Reader) out[0] = x + 0 * v;
}

// Two scans in one TempStorage: CUB requires a barrier before the storage is reused.
template <bool Barrier>
__global__ void two_scans_kernel(const unsigned* in, unsigned* out) {
    __shared__ typename cub::BlockScan<unsigned, 64>::TempStorage tmp;
    unsigned a = 0, b = 0;
    cub::BlockScan<unsigned, 64>(tmp).ExclusiveSum(in[threadIdx.x], a);
    if constexpr (Barrier) __syncthreads();
    cub::BlockScan<unsigned, 64>(tmp).ExclusiveSum(a, b);
    out[threadIdx.x] = b;
}

template <int THREADS>
__global__ void block_scan_kernel(const unsigned* in, unsigned* out) {
    __shared__ typename cub::BlockScan<unsigned, THREADS>::TempStorage tmp;
    unsigned prefix = 0;
    cub::BlockScan<unsigned, THREADS>(tmp).ExclusiveSum(in[threadIdx.x], prefix);
    out[threadIdx.x] = prefix;
}

__global__ void dynamic_shared_kernel(int* out) {
    GIGASPARSE_DYNAMIC_SHARED(raw);
    int* s = reinterpret_cast<int*>(raw);
    s[threadIdx.x] = static_cast<int>(threadIdx.x);
    __syncthreads();
    out[threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}

TEST_F(CudaSim, BarrierPublishesSharedWritesInEveryOrder) {
    int* out = device<int>(3 * 64);
    for (cuda_sim::Order o : {cuda_sim::Order::forward, cuda_sim::Order::reverse, cuda_sim::Order::random}) {
        cuda_sim::config().order = o;
        const int value = 100 * (static_cast<int>(o) + 1);
        ASSERT_EQ(run(&broadcast_kernel<true>, 3, 64, 0, nullptr, value, out), cudaSuccess);
        const auto h = to_host(out, 3 * 64);
        for (int i = 0; i < 3 * 64; ++i) ASSERT_EQ(h[i], value + i / 64) << "order " << static_cast<int>(o) << " element " << i;
    }
    EXPECT_GE(cuda_sim::stats().barriers, 9);
    cudaFree(out);
}

// Without the barrier, threads that run before thread 0 read a stale value: reverse order shows it.
TEST_F(CudaSim, MissingBarrierGivesWrongResultsInReverseOrder) {
    races_expected_ = true;
    int* out = device<int>(64);
    cuda_sim::config().order = cuda_sim::Order::reverse;
    ASSERT_EQ(run(&broadcast_kernel<false>, 1, 64, 0, nullptr, 7, out), cudaSuccess);
    const auto h = to_host(out, 64);
    EXPECT_EQ(h[0], 7);
    EXPECT_NE(h[63], 7) << "thread 63 ran first and cannot have seen thread 0's write";
    cudaFree(out);
}

// __syncwarp orders the lanes of a warp (in every thread order, and for racecheck); without it,
// lanes that run before lane 0 read a stale value.
TEST_F(CudaSim, SyncwarpPublishesWithinTheWarp) {
    int* out = device<int>(96);
    for (cuda_sim::Order o : {cuda_sim::Order::forward, cuda_sim::Order::reverse, cuda_sim::Order::random}) {
        cuda_sim::config().order = o;
        const std::int64_t races = cuda_sim::race_reports();
        ASSERT_EQ(run(&warp_broadcast_kernel<true>, 1, 96, 0, nullptr, 5, out), cudaSuccess);
        const auto h = to_host(out, 96);
        for (int i = 0; i < 96; ++i) ASSERT_EQ(h[i], 5 + i / 32) << "order " << static_cast<int>(o) << " thread " << i;
        EXPECT_EQ(cuda_sim::race_reports(), races);
    }
    cudaFree(out);
}

TEST_F(CudaSim, MissingSyncwarpGivesWrongResultsInReverseOrder) {
    races_expected_ = true;
    int* out = device<int>(64);
    cuda_sim::config().order = cuda_sim::Order::reverse;
    const std::int64_t races = cuda_sim::race_reports();
    ASSERT_EQ(run(&warp_broadcast_kernel<false>, 1, 64, 0, nullptr, 7, out), cudaSuccess);
    if (cuda_sim::racecheck()) {
        EXPECT_GT(cuda_sim::race_reports(), races) << "lane 31's read is not ordered after lane 0's write";
    } else {
        const auto h = to_host(out, 64);
        EXPECT_NE(h[31], 7) << "lane 31 ran first and cannot have seen lane 0's write";
    }
    cudaFree(out);
}

TEST_F(CudaSim, BarrierNotReachedByAllThreadsFailsTheKernel) {
    int* out = device<int>(64);
    const cudaStream_t s = stream();
    ASSERT_EQ(run(&divergent_barrier_kernel, 1, 64, 0, s, out), cudaSuccess);  // launches are asynchronous
    EXPECT_EQ(cudaStreamSynchronize(s), cudaErrorLaunchFailure);
    EXPECT_NE(cuda_sim::last_error_detail().find("__syncthreads reached by 16 of 64"), std::string::npos) << cuda_sim::last_error_detail();
    EXPECT_EQ(cudaGetLastError(), cudaErrorLaunchFailure) << "the error is sticky";
    EXPECT_EQ(cudaGetLastError(), cudaErrorLaunchFailure);
    cuda_sim::reset();
    cudaFree(out);
}

TEST_F(CudaSim, ShuffleDownSumsEachWarp) {
    std::vector<int> h(256);
    std::iota(h.begin(), h.end(), 1);
    int* in = device<int>(256);
    int* out = device<int>(8);
    ASSERT_EQ(cudaMemcpy(in, h.data(), 256 * sizeof(int), cudaMemcpyHostToDevice), cudaSuccess);
    cuda_sim::config().order = cuda_sim::Order::random;
    ASSERT_EQ(run(&warp_sum_kernel, 2, 128, 0, nullptr, in, out), cudaSuccess);
    const auto sums = to_host(out, 8);
    for (int w = 0; w < 8; ++w) EXPECT_EQ(sums[w], 32 * (32 * w + 1) + 31 * 32 / 2) << "warp " << w;
    cudaFree(in);
    cudaFree(out);
}

TEST_F(CudaSim, ShuffleUpAndIndexedShuffles) {
    std::vector<long long> h(128);
    for (int i = 0; i < 128; ++i) h[i] = (1LL << 40) + i * i;
    long long* in = device<long long>(128);
    long long* scan = device<long long>(128);
    long long* reversed = device<long long>(128);
    long long* seg3 = device<long long>(128);
    ASSERT_EQ(cudaMemcpy(in, h.data(), 128 * sizeof(long long), cudaMemcpyHostToDevice), cudaSuccess);
    for (const cuda_sim::Order order : {cuda_sim::Order::forward, cuda_sim::Order::reverse, cuda_sim::Order::random}) {
        cuda_sim::config().order = order;
        ASSERT_EQ(run(&shuffle_kernel, 2, 64, 0, nullptr, in, scan, reversed, seg3), cudaSuccess);
        const auto sc = to_host(scan, 128), rv = to_host(reversed, 128), s3 = to_host(seg3, 128);
        for (int t = 0; t < 128; ++t) {
            const int w = t / 32 * 32, lane = t % 32;
            long long sum = 0;
            for (int l = 0; l <= lane; ++l) sum += h[w + l];
            EXPECT_EQ(sc[t], sum) << "thread " << t;
            EXPECT_EQ(rv[t], h[w + 31 - lane]) << "thread " << t;
            EXPECT_EQ(s3[t], h[t / 8 * 8 + 3]) << "thread " << t;
        }
    }
    cudaFree(in);
    cudaFree(scan);
    cudaFree(reversed);
    cudaFree(seg3);
}

TEST_F(CudaSim, CollectivesOfDivergentBranchesWaitForTheirOwnLanes) {
    std::vector<int> h(128);
    for (int i = 0; i < 128; ++i) h[i] = (i * 37) % 101;
    int* in = device<int>(128);
    int* scan = device<int>(128);
    unsigned* ballots = device<unsigned>(4);
    int* reversed = device<int>(128);
    ASSERT_EQ(cudaMemcpy(in, h.data(), 128 * sizeof(int), cudaMemcpyHostToDevice), cudaSuccess);
    for (const cuda_sim::Order order : {cuda_sim::Order::forward, cuda_sim::Order::reverse, cuda_sim::Order::random}) {
        cuda_sim::config().order = order;
        ASSERT_EQ(run(&branch_collectives_kernel, 2, 64, 0, nullptr, in, scan, ballots, reversed), cudaSuccess);
        const auto sc = to_host(scan, 128), rv = to_host(reversed, 128);
        const auto b = to_host(ballots, 4);
        for (int w = 0; w < 4; ++w) {
            unsigned expect = 0;
            int sum = 0;
            for (int l = 0; l < 32; ++l) {
                const int t = 32 * w + l;
                if (l < 16) {
                    sum += h[t];
                    EXPECT_EQ(sc[t], sum) << "thread " << t;
                } else if (h[t] % 2 == 0) {
                    expect |= 1u << l;
                }
                EXPECT_EQ(rv[t], h[32 * w + 31 - l]) << "thread " << t << ": released before the other branch's lanes arrived";
            }
            EXPECT_EQ(b[w], expect) << "warp " << w;
        }
    }
    cudaFree(in);
    cudaFree(scan);
    cudaFree(ballots);
    cudaFree(reversed);
}

TEST_F(CudaSim, CollectiveWhoseMaskLeavesOutItsCallerFailsTheKernel) {
    const cudaStream_t s = stream();
    ASSERT_EQ(run(&foreign_mask_kernel, 1, 32, 0, s), cudaSuccess);  // launches are asynchronous
    EXPECT_EQ(cudaStreamSynchronize(s), cudaErrorLaunchFailure);
    EXPECT_NE(cuda_sim::last_error_detail().find("called by lane 0, which it does not name"), std::string::npos) << cuda_sim::last_error_detail();
    cuda_sim::reset();
}

TEST_F(CudaSim, BallotCollectsEachWarpsPredicates) {
    std::vector<int> h(128);
    for (int i = 0; i < 128; ++i) h[i] = (i * 7) % 10;
    int* in = device<int>(128);
    unsigned* ballots = device<unsigned>(4);
    int* ranks = device<int>(128);
    ASSERT_EQ(cudaMemcpy(in, h.data(), 128 * sizeof(int), cudaMemcpyHostToDevice), cudaSuccess);
    cuda_sim::config().order = cuda_sim::Order::random;
    ASSERT_EQ(run(&ballot_kernel, 2, 64, 0, nullptr, in, ballots, ranks), cudaSuccess);
    const auto b = to_host(ballots, 4);
    const auto r = to_host(ranks, 128);
    for (int w = 0; w < 4; ++w) {
        unsigned expect = 0;
        int rank = 0;
        for (int l = 0; l < 32; ++l)
            if (h[32 * w + l] % 3 == 0) {
                expect |= 1u << l;
                EXPECT_EQ(r[32 * w + l], rank++) << "warp " << w << " lane " << l;
            } else {
                EXPECT_EQ(r[32 * w + l], -1);
            }
        EXPECT_EQ(b[w], expect) << "warp " << w;
    }
    cudaFree(in);
    cudaFree(ballots);
    cudaFree(ranks);
}

TEST_F(CudaSim, StreamWorkRunsOnlyWhenTheHostWaits) {
    races_expected_ = true;  // the host reads h while the copy into it is queued
    const cudaStream_t s = stream();
    int* d = device<int>(4);
    ASSERT_EQ(cudaMemsetAsync(d, 0, 4 * sizeof(int), s), cudaSuccess);
    int h[4] = {9, 9, 9, 9};
    ASSERT_EQ(cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, s), cudaSuccess);
    EXPECT_EQ(h[0], 9) << "read before cudaStreamSynchronize: a missing wait must show";
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    EXPECT_EQ(h[0], 0);
    cudaFree(d);
}

// cudaMemcpy2DAsync: a w x w block of column-major arrays with other leading dimensions, host -> device -> device
// -> host; rows past an allocation and a width above a pitch are refused.
TEST_F(CudaSim, Memcpy2DCopiesTheRowsOfABlock) {
    const cudaStream_t s = stream();
    constexpr std::size_t ld = 7, w = 3;
    double host[ld * w], back[5 * w];
    for (std::size_t k = 0; k < ld * w; ++k) host[k] = static_cast<double>(k);
    for (auto& v : back) v = -1;
    double* d = device<double>(ld * w);
    double* blk = device<double>(w * w);
    ASSERT_EQ(cudaMemsetAsync(d, 0, ld * w * sizeof(double), s), cudaSuccess);
    ASSERT_EQ(cudaMemcpy2DAsync(d, ld * sizeof(double), host, ld * sizeof(double), w * sizeof(double), w, cudaMemcpyHostToDevice, s), cudaSuccess);
    host[0] = 99;  // a pageable source is consumed by the call
    ASSERT_EQ(cudaMemcpy2DAsync(blk, w * sizeof(double), d, ld * sizeof(double), w * sizeof(double), w, cudaMemcpyDeviceToDevice, s), cudaSuccess);
    ASSERT_EQ(cudaMemcpy2DAsync(back, 5 * sizeof(double), blk, w * sizeof(double), w * sizeof(double), w, cudaMemcpyDeviceToHost, s), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    for (std::size_t j = 0; j < w; ++j)
        for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(back[i + j * 5], i < w ? static_cast<double>(i + j * ld) : -1.0) << i << "," << j;
    EXPECT_EQ(cudaMemcpy2DAsync(blk, w * sizeof(double), d, ld * sizeof(double), w * sizeof(double), w + 1, cudaMemcpyDeviceToDevice, s),
              cudaErrorInvalidValue);
    (void)cudaGetLastError();
    EXPECT_EQ(cudaMemcpy2DAsync(blk, sizeof(double), d, ld * sizeof(double), w * sizeof(double), 1, cudaMemcpyDeviceToDevice, s),
              cudaErrorInvalidPitchValue);
    (void)cudaGetLastError();
    cudaFree(d);
    cudaFree(blk);
}

TEST_F(CudaSim, CrossStreamReadsNeedAnEventWait) {
    races_expected_ = true;  // the pass without the wait
    const cudaStream_t a = stream(), b = stream();
    const cudaEvent_t e = event();
    int* in = device<int>(32);
    int* out = device<int>(32);
    for (bool wait : {false, true}) {
        ASSERT_EQ(cudaMemsetAsync(in, 0, 32 * sizeof(int), a), cudaSuccess);
        ASSERT_EQ(cudaEventRecord(e, a), cudaSuccess);
        if (wait) {
            ASSERT_EQ(cudaStreamWaitEvent(b, e), cudaSuccess);
        }
        ASSERT_EQ(run(&copy_kernel, 1, 32, 0, b, in, out, 32), cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(b), cudaSuccess);
        const auto h = to_host(out, 32);
        if (wait) EXPECT_EQ(h[5], 0);
        else EXPECT_NE(h[5], 0) << "stream b ran before stream a's memset without a wait";
        ASSERT_EQ(cudaStreamSynchronize(a), cudaSuccess);
    }
    float ms = -1;
    EXPECT_EQ(cudaEventElapsedTime(&ms, e, e), cudaSuccess);
    cudaFree(in);
    cudaFree(out);
}

// A capture records the stream's work without running it; each launch of the graph runs it again, in
// stream order; what cannot be captured fails and invalidates the capture.
TEST_F(CudaSim, StreamCaptureRecordsAndGraphLaunchesReplay) {
    const cudaStream_t s = stream();
    unsigned* count = device<unsigned>(1);
    int* in = device<int>(32);
    int* out = device<int>(32);
    ASSERT_EQ(cudaMemsetAsync(count, 0, sizeof(unsigned), s), cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(in, 0, 32 * sizeof(int), s), cudaSuccess);
    ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), cudaSuccess);
    cudaStreamCaptureStatus status{};
    ASSERT_EQ(cudaStreamIsCapturing(s, &status), cudaSuccess);
    EXPECT_EQ(status, cudaStreamCaptureStatusActive);
    ASSERT_EQ(run(&block_count_kernel<true>, 3, 32, 0, s, count), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(out, in, 32 * sizeof(int), cudaMemcpyDeviceToDevice, s), cudaSuccess);
    cudaGraph_t g = nullptr;
    ASSERT_EQ(cudaStreamEndCapture(s, &g), cudaSuccess);
    ASSERT_NE(g, nullptr);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    EXPECT_EQ(to_host(count, 1)[0], 0u) << "captured work ran at capture";
    EXPECT_NE(to_host(out, 32)[0], 0) << "a captured copy ran at capture";
    cudaGraphExec_t x = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
    ASSERT_EQ(cudaGraphDestroy(g), cudaSuccess);  // the executable graph keeps its work
    ASSERT_EQ(cudaGraphLaunch(x, s), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(x, s), cudaSuccess);
    EXPECT_EQ(cuda_sim::stats().graph_launches, 2);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    EXPECT_EQ(to_host(count, 1)[0], 6u) << "two launches of a graph of one 3-block kernel";
    EXPECT_EQ(to_host(out, 32)[0], 0);
    ASSERT_EQ(cudaGraphExecDestroy(x), cudaSuccess);

    // what cannot be captured: the call fails, the capture is invalidated, nothing is recorded or run
    for (int what = 0; what < 3; ++what) {
        SCOPED_TRACE(what);
        int h[32] = {};
        ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), cudaSuccess);
        ASSERT_EQ(run(&block_count_kernel<true>, 1, 32, 0, s, count), cudaSuccess);
        const cudaError_t e = what == 0   ? cudaStreamSynchronize(s)
                              : what == 1 ? cudaMemcpyAsync(h, out, sizeof h, cudaMemcpyDeviceToHost, s)
                                          : cudaEventRecord(event(), s);
        EXPECT_EQ(e, cudaErrorStreamCaptureUnsupported);
        EXPECT_EQ(run(&block_count_kernel<true>, 1, 32, 0, s, count), cudaErrorStreamCaptureInvalidated);
        ASSERT_EQ(cudaStreamIsCapturing(s, &status), cudaSuccess);
        EXPECT_EQ(status, cudaStreamCaptureStatusInvalidated);
        EXPECT_EQ(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
        EXPECT_EQ(g, nullptr);
        (void)cudaGetLastError();
        ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
        EXPECT_EQ(to_host(count, 1)[0], 6u);
    }
    EXPECT_EQ(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureUnmatched);
    EXPECT_EQ(cudaStreamBeginCapture(nullptr, cudaStreamCaptureModeThreadLocal), cudaErrorStreamCaptureUnsupported);
    (void)cudaGetLastError();
    EXPECT_EQ(cuda_sim::stats().captures, 1);
    cudaFree(count);
    cudaFree(in);
    cudaFree(out);
}

TEST_F(CudaSim, FreeingABufferQueuedWorkUsesFails) {
    const cudaStream_t s = stream();
    int* in = device<int>(32);
    int* out = device<int>(32);
    ASSERT_EQ(run(&copy_kernel, 1, 32, 0, s, in, out, 32), cudaSuccess);
    EXPECT_EQ(cudaFree(in), cudaErrorLaunchFailure);
    EXPECT_NE(cuda_sim::last_error_detail().find("queued work still uses"), std::string::npos) << cuda_sim::last_error_detail();
    cuda_sim::reset();  // drops the queued kernel
    EXPECT_EQ(cudaFree(in), cudaSuccess);
    cudaFree(out);
}

TEST_F(CudaSim, HostPointersAreNotKernelArguments) {
    std::vector<int> host(32), out_host(32);
    int* out = device<int>(32);
    // inside the host buffer: its start may be where a device allocation ends (an end pointer is
    // a valid kernel argument), as the allocator places blocks
    EXPECT_EQ(run(&copy_kernel, 1, 31, 0, nullptr, host.data() + 1, out, 31), cudaErrorInvalidDevicePointer);
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevicePointer);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "a launch error is not sticky";
    cudaFree(out);
}

TEST_F(CudaSim, DynamicSharedMemoryNeedsTheAttributeAboveTheDefault) {
    int* out = device<int>(1024);
    EXPECT_EQ(run(&dynamic_shared_kernel, 1, 256, 256 * sizeof(int), nullptr, out), cudaSuccess);
    EXPECT_EQ(to_host(out, 256)[3], 252);
    const std::size_t big = 100000;
    EXPECT_EQ(run(&dynamic_shared_kernel, 1, 256, big, nullptr, out), cudaErrorInvalidValue);
    const void* k = reinterpret_cast<const void*>(&dynamic_shared_kernel);
    EXPECT_EQ(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(big)), cudaSuccess);
    EXPECT_EQ(run(&dynamic_shared_kernel, 1, 256, big, nullptr, out), cudaSuccess);
    EXPECT_EQ(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 232448), cudaErrorInvalidValue)
        << "dynamic + static shared memory above the opt-in maximum";
    EXPECT_EQ(run(&dynamic_shared_kernel, 1, 2048, 0, nullptr, out), cudaErrorInvalidConfiguration);
    (void)cudaGetLastError();
    cudaFree(out);
}

TEST_F(CudaSim, DeviceCapacityIsEnforced) {
    cuda_sim::config().device_memory = 1 << 20;
    void* a = nullptr;
    void* b = nullptr;
    ASSERT_EQ(cudaMalloc(&a, 600 << 10), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&b, 600 << 10), cudaErrorMemoryAllocation);
    std::size_t free_b = 0, total_b = 0;
    ASSERT_EQ(cudaMemGetInfo(&free_b, &total_b), cudaSuccess);
    EXPECT_EQ(total_b, std::size_t(1) << 20);
    EXPECT_EQ(free_b, (std::size_t(1) << 20) - (600 << 10));
    (void)cudaGetLastError();
    cudaFree(a);
}

// A pool as gigasparse creates it (device 0, keeps up to `threshold` bytes past a synchronization).
cudaMemPool_t make_pool(std::uint64_t threshold) {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    cudaMemPool_t pool = nullptr;
    EXPECT_EQ(cudaMemPoolCreate(&pool, &props), cudaSuccess);
    EXPECT_EQ(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold), cudaSuccess);
    return pool;
}
std::uint64_t pool_attr(cudaMemPool_t pool, cudaMemPoolAttr a) {
    std::uint64_t v = 0;
    EXPECT_EQ(cudaMemPoolGetAttribute(pool, a, &v), cudaSuccess);
    return v;
}

TEST_F(CudaSim, MemoryPoolsReserveCapacityUpToTheirReleaseThreshold) {
    cuda_sim::config().device_memory = 1 << 20;
    const cudaStream_t s = stream();
    for (const std::uint64_t threshold : {std::uint64_t(0), ~std::uint64_t(0)}) {
        cudaMemPool_t pool = make_pool(threshold);
        void* a = nullptr;
        void* b = nullptr;
        ASSERT_EQ(cudaMallocFromPoolAsync(&a, 400 << 10, pool, s), cudaSuccess);
        ASSERT_EQ(cudaFreeAsync(a, s), cudaSuccess);
        EXPECT_EQ(pool_attr(pool, cudaMemPoolAttrUsedMemCurrent), 400u << 10) << "the free has not run yet";
        ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
        EXPECT_EQ(pool_attr(pool, cudaMemPoolAttrUsedMemCurrent), 0u);
        std::size_t free_b = 0, total_b = 0;
        ASSERT_EQ(cudaMemGetInfo(&free_b, &total_b), cudaSuccess);
        if (threshold == 0) {
            EXPECT_EQ(pool_attr(pool, cudaMemPoolAttrReservedMemCurrent), 0u) << "released at the synchronization";
            EXPECT_EQ(free_b, total_b);
        } else {
            EXPECT_EQ(pool_attr(pool, cudaMemPoolAttrReservedMemCurrent), 400u << 10) << "kept for the next allocation";
            EXPECT_EQ(free_b, total_b - (400 << 10)) << "a pool's reserve is not free device memory";
            void* m = nullptr;
            EXPECT_EQ(cudaMalloc(&m, 700 << 10), cudaErrorMemoryAllocation) << "the reserve takes device capacity";
            (void)cudaGetLastError();
            ASSERT_EQ(cudaMallocFromPoolAsync(&b, 300 << 10, pool, s), cudaSuccess);
            EXPECT_EQ(pool_attr(pool, cudaMemPoolAttrReservedMemCurrent), 400u << 10) << "served from the reserve";
            EXPECT_EQ(cudaMallocFromPoolAsync(&a, 800 << 10, pool, s), cudaErrorMemoryAllocation);
            (void)cudaGetLastError();
            ASSERT_EQ(cudaFreeAsync(b, s), cudaSuccess);
            ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
            ASSERT_EQ(cudaMemPoolTrimTo(pool, 0), cudaSuccess);
            EXPECT_EQ(pool_attr(pool, cudaMemPoolAttrReservedMemCurrent), 0u);
        }
        EXPECT_EQ(cudaMemPoolDestroy(pool), cudaSuccess);
    }
    cuda_sim::config().memory_pools = false;
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    cudaMemPool_t none = nullptr;
    int supported = 1;
    ASSERT_EQ(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, 0), cudaSuccess);
    EXPECT_EQ(supported, 0);
    EXPECT_EQ(cudaMemPoolCreate(&none, &props), cudaErrorNotSupported);
    (void)cudaGetLastError();
}

// Stream-ordered allocation: the allocating stream's order is what makes the memory usable. Work of
// another stream not ordered after the allocation finds its writes overwritten by the allocation's
// garbage fill (and, racecheck, a race is reported); ordered through an event, it is correct.
TEST_F(CudaSim, PoolAllocationsAreOrderedOnTheirStream) {
    races_expected_ = true;  // the pass without the event
    cudaMemPool_t pool = make_pool(~std::uint64_t(0));
    const cudaStream_t a = stream(), b = stream();
    const cudaEvent_t e = event();
    int* in = device<int>(32);
    ASSERT_EQ(cudaMemsetAsync(in, 0, 32 * sizeof(int), nullptr), cudaSuccess);
    for (bool wait : {false, true}) {
        int* out = nullptr;
        ASSERT_EQ(cudaMallocFromPoolAsync(&out, 32 * sizeof(int), pool, a), cudaSuccess);
        ASSERT_EQ(cudaEventRecord(e, a), cudaSuccess);
        if (wait) {
            ASSERT_EQ(cudaStreamWaitEvent(b, e), cudaSuccess);
        }
        ASSERT_EQ(run(&copy_kernel, 1, 32, 0, b, in, out, 32), cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(b), cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(a), cudaSuccess);
        const auto h = to_host(out, 32);
        if (wait) EXPECT_EQ(h[5], 0);
        else EXPECT_NE(h[5], 0) << "stream b wrote before stream a allocated: the fill overwrote it";
        ASSERT_EQ(cudaFreeAsync(out, b), cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(b), cudaSuccess);
    }
    cudaFree(in);
    EXPECT_EQ(cudaMemPoolDestroy(pool), cudaSuccess);
}

TEST_F(CudaSim, PoolFreesAreCheckedAgainstLaterAndUnorderedUses) {
    cudaMemPool_t pool = make_pool(~std::uint64_t(0));
    const cudaStream_t a = stream(), b = stream();
    int* in = device<int>(32);
    int* out = device<int>(32);
    int* p = nullptr;
    // a use enqueued after the free
    ASSERT_EQ(cudaMallocFromPoolAsync(&p, 32 * sizeof(int), pool, a), cudaSuccess);
    ASSERT_EQ(cudaFreeAsync(p, a), cudaSuccess);
    EXPECT_EQ(run(&copy_kernel, 1, 32, 0, a, p, out, 32), cudaErrorLaunchFailure);
    EXPECT_NE(cuda_sim::last_error_detail().find("after its cudaFreeAsync"), std::string::npos) << cuda_sim::last_error_detail();
    EXPECT_EQ(cudaFreeAsync(p, a), cudaErrorLaunchFailure) << "a second free of a lost device";
    cuda_sim::reset();  // runs the queued free
    EXPECT_EQ(cuda_sim::stats().allocations_live, live_at_start_ + 2);
    // a use still queued on another stream when the free runs
    ASSERT_EQ(cudaMallocFromPoolAsync(&p, 32 * sizeof(int), pool, a), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(a), cudaSuccess);
    ASSERT_EQ(run(&copy_kernel, 1, 32, 0, b, p, out, 32), cudaSuccess);
    ASSERT_EQ(cudaFreeAsync(p, a), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(a), cudaErrorLaunchFailure);
    EXPECT_NE(cuda_sim::last_error_detail().find("not ordered before it"), std::string::npos) << cuda_sim::last_error_detail();
    cuda_sim::reset();
    // freeing cudaMalloc memory asynchronously, or a pointer inside an allocation
    EXPECT_EQ(cudaFreeAsync(in, a), cudaErrorInvalidDevicePointer);
    EXPECT_EQ(cudaFreeAsync(in + 1, a), cudaErrorInvalidDevicePointer);
    (void)cudaGetLastError();
    cudaFree(in);
    cudaFree(out);
    EXPECT_EQ(cudaMemPoolDestroy(pool), cudaSuccess);
}

// A free queued on one stream while another stream's use is queued, not ordered with it: when the
// use runs first (its stream synchronized first), only the racecheck build sees that the free races
// with the read.
TEST_F(CudaSim, RacecheckPoolFreeMustBeOrderedAfterOtherStreamsUses) {
    if (!cuda_sim::racecheck()) GTEST_SKIP() << "only the racecheck build sees a use that has already run";
    races_expected_ = true;
    cudaMemPool_t pool = make_pool(~std::uint64_t(0));
    const cudaStream_t a = stream(), b = stream();
    int* out = device<int>(32);
    int* p = nullptr;
    ASSERT_EQ(cudaMallocFromPoolAsync(&p, 32 * sizeof(int), pool, a), cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(p, 0, 32 * sizeof(int), a), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(a), cudaSuccess);
    ASSERT_EQ(run(&copy_kernel, 1, 32, 0, b, p, out, 32), cudaSuccess);
    const std::int64_t before = cuda_sim::race_reports();
    ASSERT_EQ(cudaFreeAsync(p, a), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(b), cudaSuccess);  // the read runs; stream a does not learn of it
    ASSERT_EQ(cudaStreamSynchronize(a), cudaSuccess);
    EXPECT_GT(cuda_sim::race_reports(), before) << "the free is not ordered after stream b's read";
    cudaFree(out);
    EXPECT_EQ(cudaMemPoolDestroy(pool), cudaSuccess);
}

TEST_F(CudaSim, CubBlockScanAndItsBlockSizeCheck) {
    std::vector<unsigned> h(128);
    for (unsigned i = 0; i < 128; ++i) h[i] = i % 5;
    unsigned* in = device<unsigned>(128);
    unsigned* out = device<unsigned>(128);
    ASSERT_EQ(cudaMemcpy(in, h.data(), 128 * sizeof(unsigned), cudaMemcpyHostToDevice), cudaSuccess);
    cuda_sim::config().order = cuda_sim::Order::random;
    ASSERT_EQ(run(&block_scan_kernel<128>, 1, 128, 0, nullptr, in, out), cudaSuccess);
    const auto r = to_host(out, 128);
    unsigned run_sum = 0;
    for (unsigned i = 0; i < 128; ++i) {
        ASSERT_EQ(r[i], run_sum) << i;
        run_sum += h[i];
    }
    const cudaStream_t s = stream();
    ASSERT_EQ(run(&block_scan_kernel<128>, 1, 64, 0, s, in, out), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(s), cudaErrorLaunchFailure) << "BlockScan<128> in a block of 64";
    cuda_sim::reset();
    cudaFree(in);
    cudaFree(out);
}

TEST_F(CudaSim, CubDeviceAlgorithmsFollowCubSemantics) {
    const std::vector<int> vals = {10, 11, 12, 13, 14, 15};
    const std::vector<char> flags = {1, 0, 1, 0, 0, 1};
    const std::vector<unsigned> keys = {0x13, 0x02, 0x11, 0x03, 0x12, 0x01};  // sort by the low 4 bits
    int* dv = device<int>(6);
    int* dout = device<int>(6);
    char* df = device<char>(6);
    int* dn = device<int>(1);
    unsigned* dk = device<unsigned>(6);
    unsigned* dk2 = device<unsigned>(6);
    cudaMemcpy(dv, vals.data(), 6 * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(df, flags.data(), 6, cudaMemcpyHostToDevice);
    cudaMemcpy(dk, keys.data(), 6 * sizeof(unsigned), cudaMemcpyHostToDevice);
    std::size_t bytes = 0;
    ASSERT_EQ(cub::DevicePartition::Flagged(nullptr, bytes, dv, df, dout, dn, 6), cudaSuccess);
    void* temp = nullptr;
    ASSERT_EQ(cudaMalloc(&temp, bytes), cudaSuccess);
    ASSERT_EQ(cub::DevicePartition::Flagged(temp, bytes, dv, df, dout, dn, 6), cudaSuccess);
    EXPECT_EQ(to_host(dout, 6), (std::vector<int>{10, 12, 15, 14, 13, 11})) << "rejected items come last, reversed";
    EXPECT_EQ(to_host(dn, 1)[0], 3);
    ASSERT_EQ(cub::DeviceRadixSort::SortPairs(temp, bytes, dk, dk2, dv, dout, 6, 0, 4), cudaSuccess);
    EXPECT_EQ(to_host(dk2, 6), (std::vector<unsigned>{0x11, 0x01, 0x02, 0x12, 0x13, 0x03})) << "stable, by bits [0, 4) only";
    EXPECT_EQ(to_host(dout, 6), (std::vector<int>{12, 15, 11, 14, 10, 13}));
    ASSERT_EQ(cub::DeviceScan::ExclusiveSum(temp, bytes, dv, dout, 6), cudaSuccess);
    EXPECT_EQ(to_host(dout, 6), (std::vector<int>{0, 10, 21, 33, 46, 60}));
    std::size_t too_small = 8;
    EXPECT_THROW((void)cub::DeviceScan::InclusiveSum(temp, too_small, dv, dout, 6), std::logic_error) << "temporary storage too small";
    for (void* p : {static_cast<void*>(dv), static_cast<void*>(dout), static_cast<void*>(df), static_cast<void*>(dn), static_cast<void*>(dk),
                    static_cast<void*>(dk2), temp})
        cudaFree(p);
}

// Racecheck: races between the blocks of one kernel are reported (between different thread
// indices: a stream's blocks share one context per thread index), relaxed atomics are not races.
TEST_F(CudaSim, RacecheckBlocksOfAKernelAreUnordered) {
    races_expected_ = true;
    unsigned* c = device<unsigned>(2);
    ASSERT_EQ(cudaMemsetAsync(c, 0, 2 * sizeof(unsigned)), cudaSuccess);
    const std::int64_t before = cuda_sim::race_reports();
    ASSERT_EQ(run(&block_count_kernel<true>, 4, 32, 0, nullptr, c), cudaSuccess);
    EXPECT_EQ(cuda_sim::race_reports(), before) << "atomics of different blocks are not a race";
    ASSERT_EQ(run(&block_count_kernel<false>, 4, 32, 0, nullptr, c + 1), cudaSuccess);
    EXPECT_TRUE(raced_since(before)) << "plain writes of four blocks to one word";
    const auto h = to_host(c, 2);
    EXPECT_EQ(h[0], 4u);
    cudaFree(c);
}

// Racecheck: a warp collective orders the lanes that take part in it, and no other thread.
TEST_F(CudaSim, RacecheckWarpCollectiveOrdersOnlyItsLanes) {
    races_expected_ = true;
    int* out = device<int>(1);
    const std::int64_t before = cuda_sim::race_reports();
    ASSERT_EQ(run(&shuffle_publish_kernel<1>, 1, 64, 0, nullptr, out), cudaSuccess);
    EXPECT_EQ(cuda_sim::race_reports(), before) << "lane 1 read after a shuffle with lane 0";
    EXPECT_EQ(to_host(out, 1)[0], 42);
    ASSERT_EQ(run(&shuffle_publish_kernel<32>, 1, 64, 0, nullptr, out), cudaSuccess);
    EXPECT_TRUE(raced_since(before)) << "thread 32 is in another warp: nothing orders it after thread 0";
    cudaFree(out);
}

// Racecheck: reusing a cub::BlockScan's TempStorage without a barrier is a race (CUB's rule).
TEST_F(CudaSim, RacecheckBlockScanStorageReuseNeedsABarrier) {
    races_expected_ = true;
    std::vector<unsigned> h(64, 1);
    unsigned* in = device<unsigned>(64);
    unsigned* out = device<unsigned>(64);
    ASSERT_EQ(cudaMemcpy(in, h.data(), 64 * sizeof(unsigned), cudaMemcpyHostToDevice), cudaSuccess);
    const std::int64_t before = cuda_sim::race_reports();
    ASSERT_EQ(run(&two_scans_kernel<true>, 1, 64, 0, nullptr, in, out), cudaSuccess);
    EXPECT_EQ(cuda_sim::race_reports(), before);
    const auto r = to_host(out, 64);
    EXPECT_EQ(r[10], 45u) << "exclusive scan of 0, 1, ..., 9";
    ASSERT_EQ(run(&two_scans_kernel<false>, 1, 64, 0, nullptr, in, out), cudaSuccess);
    EXPECT_TRUE(raced_since(before));
    cudaFree(in);
    cudaFree(out);
}

}  // namespace
