// tests/cuda_sim/cuda_sim/runtime.hpp: a CPU simulator of the CUDA subset gigasparse's kernels and
// dispatch code use, so that the real CUDA sources (not a rewrite of them) run and are tested on
// machines without a GPU, under AddressSanitizer too.
//
// How it runs CUDA code:
//   * each thread of a block is a fiber (its own stack); __syncthreads and the warp collectives
//     (__shfl_down_sync) switch fibers, so barriers have their real meaning. Threads run
//     between barriers in forward, reverse or seeded random order (Config::order): a result that
//     depends on that order is a race or a missing barrier;
//   * __shared__ variables are thread_local (one copy per block, since blocks run one after the
//     other); dynamic shared memory is a fresh heap block of exactly the launch's size, filled with
//     garbage, so overruns reach AddressSanitizer and reads before writes give wrong results;
//   * device memory is host memory from cudaMalloc, filled with garbage, with a capacity
//     (Config::device_memory) so out-of-memory paths run; each stream is a queue executed only when
//     the host waits (cudaStreamSynchronize, an event the stream waits for, a synchronous copy), so
//     a missing wait leaves the data unwritten and the test fails;
//   * stream-ordered allocation (cudaMallocFromPoolAsync, cudaFreeAsync) from memory pools that
//     reserve device capacity and keep it up to their release threshold, returning the rest at a
//     synchronization or cudaMemPoolTrimTo. The garbage fill is queued on the allocating stream, so
//     work of another stream that is not ordered after it finds its results overwritten (and the
//     racecheck build reports the race); the free is queued too, and a use enqueued after it, or
//     still queued on another stream when it runs, is an error;
//   * checked like the hardware: block and grid limits, dynamic shared memory above the function's
//     attribute, cub::BlockScan with a block of another size; beyond the hardware: barriers not
//     reached by every thread, a warp collective whose mask leaves out its caller or names exited
//     lanes (lanes waiting with one mask pass together when they are all the lanes it names: two
//     branches' collectives are their own, a whole-warp one waits for every branch), kernel or CUB
//     arguments that are not device pointers, cudaFree of a buffer that queued work still uses. A
//     failed kernel makes a sticky cudaErrorLaunchFailure as on a GPU; cuda_sim::last_error_detail()
//     says which check, in which kernel, block and thread.
// Racecheck (the same sources built with -fsanitize=thread, target gigasparse_cuda_sim_racecheck):
//     ThreadSanitizer is told CUDA's happens-before order, so it reports what compute-sanitizer's
//     racecheck would and more: two threads of a block touching the same word between barriers
//     (shared or global memory, one of them writing, not both atomic), two blocks of one kernel
//     doing so (threads of different indices: a stream's blocks reuse one context per thread
//     index), kernels of two streams not ordered by an event, the host reading what device work
//     writes before a synchronization. Each simulated thread is a ThreadSanitizer fiber; a barrier
//     or warp collective orders its participants only; each block runs on a fresh OS thread (so
//     its __shared__ variables are fresh) created from its stream's context, which learns of the
//     block only when the whole kernel ends; a stream's context learns of the host at enqueue and
//     of other streams through events, and the host learns of a stream when it synchronizes.
// Not simulated: timing, concurrency itself (threads between barriers and blocks run one after
// the other: a race gives a wrong result only in the racecheck build's report, or in an order
// that shows it), warp divergence, static shared-memory sizes (cudaFuncGetAttributes reports
// Config::static_shared_bytes).
//
// Use: put tests/cuda_sim/include before any CUDA include path and define GIGASPARSE_CUDA_SIM (the
// CMake target gigasparse_cuda_sim does both); its cuda_runtime.h and cub/ headers include this.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#ifndef GIGASPARSE_CUDA_SIM
#define GIGASPARSE_CUDA_SIM 1
#endif

// ---------------------------------------------------------------- CUDA language extensions
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ thread_local
#define __align__(n) alignas(n)
// Dynamic shared memory of the running block (the kernels declare it through this macro).
#define GIGASPARSE_DYNAMIC_SHARED(name) unsigned char* name = ::cuda_sim::dynamic_shared()

struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
// CUDA's 16-byte vector type (a kernel's 128-bit loads and stores). Copied as one 16-byte block,
// which g++ makes one 16-byte access (the memory profile counts one request, as nvcc's STS.128/
// LDS.128), where the members' copy made four 4-byte ones.
struct alignas(16) uint4 {
    unsigned x, y, z, w;
    uint4() = default;
    constexpr uint4(unsigned x_, unsigned y_, unsigned z_, unsigned w_) : x(x_), y(y_), z(z_), w(w_) {}
    uint4(const uint4& o) { __builtin_memcpy(this, &o, sizeof(uint4)); }
    uint4& operator=(const uint4& o) {
        __builtin_memcpy(this, &o, sizeof(uint4));
        return *this;
    }
};
inline constexpr uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return uint4(x, y, z, w); }
inline thread_local dim3 threadIdx{0, 0, 0};
inline thread_local dim3 blockIdx{0, 0, 0};
inline thread_local dim3 blockDim{1, 1, 1};
inline thread_local dim3 gridDim{1, 1, 1};
inline constexpr int warpSize = 32;

// ---------------------------------------------------------------- runtime types
enum cudaError_t {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidPitchValue = 12,
    cudaErrorInvalidDevicePointer = 17,
    cudaErrorInvalidMemcpyDirection = 21,
    cudaErrorInvalidDeviceFunction = 98,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorNotReady = 600,
    cudaErrorIllegalAddress = 700,
    cudaErrorLaunchFailure = 719,
    cudaErrorNotSupported = 801,
    cudaErrorStreamCaptureUnsupported = 900,
    cudaErrorStreamCaptureInvalidated = 901,
    cudaErrorStreamCaptureUnmatched = 903,
};
enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4,
};
enum cudaFuncAttribute {
    cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
};
inline constexpr unsigned cudaStreamNonBlocking = 0x01;
enum cudaDeviceAttr {  // the values of CUDA's driver_types.h
    cudaDevAttrMultiProcessorCount = 16,
    cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
    cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
    cudaDevAttrReservedSharedMemoryPerBlock = 111,
    cudaDevAttrMemoryPoolsSupported = 115,
};

struct CUstream_st;
struct CUevent_st;
struct CUmemPoolHandle_st;
struct CUgraph_st;
struct CUgraphExec_st;
using cudaStream_t = CUstream_st*;
using cudaEvent_t = CUevent_st*;
using cudaMemPool_t = CUmemPoolHandle_st*;
using cudaGraph_t = CUgraph_st*;
using cudaGraphExec_t = CUgraphExec_st*;
enum cudaStreamCaptureMode { cudaStreamCaptureModeGlobal = 0, cudaStreamCaptureModeThreadLocal = 1, cudaStreamCaptureModeRelaxed = 2 };
enum cudaStreamCaptureStatus { cudaStreamCaptureStatusNone = 0, cudaStreamCaptureStatusActive = 1, cudaStreamCaptureStatusInvalidated = 2 };

enum cudaMemAllocationType { cudaMemAllocationTypeInvalid = 0, cudaMemAllocationTypePinned = 1 };
enum cudaMemAllocationHandleType { cudaMemHandleTypeNone = 0 };
enum cudaMemLocationType { cudaMemLocationTypeInvalid = 0, cudaMemLocationTypeDevice = 1 };
struct cudaMemLocation {
    cudaMemLocationType type;
    int id;
};
struct cudaMemPoolProps {
    cudaMemAllocationType allocType;
    cudaMemAllocationHandleType handleTypes;
    cudaMemLocation location;
    void* win32SecurityAttributes;
    std::size_t maxSize;
    unsigned short usage;
    unsigned char reserved[54];
};
enum cudaMemPoolAttr {
    cudaMemPoolReuseFollowEventDependencies = 1,
    cudaMemPoolReuseAllowOpportunistic = 2,
    cudaMemPoolReuseAllowInternalDependencies = 3,
    cudaMemPoolAttrReleaseThreshold = 4,
    cudaMemPoolAttrReservedMemCurrent = 5,
    cudaMemPoolAttrReservedMemHigh = 6,
    cudaMemPoolAttrUsedMemCurrent = 7,
    cudaMemPoolAttrUsedMemHigh = 8,
};

struct cudaDeviceProp {
    char name[256];
    std::size_t totalGlobalMem;
    std::size_t sharedMemPerBlock;
    std::size_t sharedMemPerBlockOptin;
    std::size_t sharedMemPerMultiprocessor;
    int regsPerBlock;
    int warpSize;
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    int multiProcessorCount;
    int major, minor;
    int memoryBusWidth;
    int l2CacheSize;
};
struct cudaFuncAttributes {
    std::size_t sharedSizeBytes;
    std::size_t constSizeBytes;
    std::size_t localSizeBytes;
    int maxThreadsPerBlock;
    int numRegs;
    int maxDynamicSharedSizeBytes;
};
struct cudaLaunchAttribute {
    int id;
};
struct cudaLaunchConfig_t {
    dim3 gridDim;
    dim3 blockDim;
    std::size_t dynamicSmemBytes;
    cudaStream_t stream;
    cudaLaunchAttribute* attrs;
    unsigned numAttrs;
};

// ---------------------------------------------------------------- simulator control (tests)
namespace cuda_sim {

enum class Order { forward, reverse, random };

struct Config {
    std::size_t device_memory = std::size_t(4) << 30;  // capacity reported and enforced by cudaMalloc
    std::size_t shared_optin = 232448;                 // H100/H200: 227 KiB per block
    std::size_t static_shared_bytes = 2304;            // what cudaFuncGetAttributes reports for every kernel
    int sm_count = 132;
    Order order = Order::forward;                       // thread order between barriers
    std::uint64_t seed = 1;                             // for Order::random
    bool garbage_fill = true;                           // new device and dynamic shared memory hold 0xA5 bytes
    bool memory_pools = true;                           // cudaDevAttrMemoryPoolsSupported (false: cudaMemPoolCreate fails)
    bool stream_capture = true;                         // false: cudaStreamBeginCapture fails (a runtime that will not capture)
    bool trace = false;  // each stream operation and host wait printed to stderr as it is queued (GIGASPARSE_CUDA_SIM_TRACE=1)
};

struct Stats {
    // barriers: __syncthreads released; warp_collectives: a lane's shuffle, ballot or __syncwarp, each
    std::int64_t launches = 0, blocks = 0, threads = 0, barriers = 0, warp_collectives = 0;
    std::int64_t device_bytes_live = 0, device_bytes_peak = 0, allocations_live = 0;  // allocations (cudaMalloc and pools)
    std::int64_t pool_bytes_reserved = 0;  // device capacity the pools hold (allocated from them or cached)
    std::int64_t malloc_calls = 0, free_calls = 0, pool_allocs = 0;  // cudaMalloc, cudaFree, cudaMallocFromPoolAsync calls
    std::int64_t host_waits = 0;  // the host waiting for the device: cudaStreamSynchronize, cudaDeviceSynchronize, cudaMemcpy
    std::int64_t captures = 0, graph_launches = 0;  // cudaStreamEndCapture that made a graph; cudaGraphLaunch
    std::int64_t func_attribute_calls = 0;          // cudaFuncGetAttributes and cudaFuncSetAttribute
    std::int64_t atomic_cas64 = 0;                  // a lane's 64-bit atomicCAS (packed hash tables, 64-bit keys)
    // Operations put on a stream (outside a capture): launches, copies, memsets, stream-ordered
    // allocations and frees, event records and waits — each costs a small product host and device
    // time — by call ("launch" for kernels).
    std::int64_t stream_ops = 0;
    std::map<std::string, std::int64_t> stream_ops_by_call;
    std::int64_t streams_created = 0, events_created = 0;  // cudaStreamCreateWithFlags, cudaEventCreate(WithFlags)
    std::int64_t mem_info_calls = 0;                        // cudaMemGetInfo (some 10 µs of host time each)
    std::map<std::string, std::int64_t> kernels;  // launches run, by the name given to name_next_launch ("kernel" without)
    std::map<std::string, std::int64_t> kernel_blocks;  // blocks run, by the same names
};

// The defaults, with the thread order and seed from GIGASPARSE_CUDA_SIM_ORDER=forward|reverse|random
// and GIGASPARSE_CUDA_SIM_SEED when set (to run a whole suite in another order).
Config default_config();
Config& config();  // starts as default_config()
Stats stats();
// Clears the sticky error, the statistics and the streams' queues (not allocations: a test checks
// allocations_live == 0 itself).
void reset();
// Runs the work queued on every stream, as a device does without the host waiting (not a host
// wait): what is left on streams that outlive a computation (gigasparse keeps its streams).
void drain();
// What a device reset does to the kernels' attributes: every cudaFuncAttributeMaxDynamicSharedMemorySize
// set so far is forgotten.
void clear_function_attributes();
// What the last failure was, in words (kernel, block, thread, check); empty when none.
std::string last_error_detail();
// Names the next kernel launch in error messages (src/cuda/base/launch.hpp calls it).
void name_next_launch(const char* name);
// Racecheck builds (ThreadSanitizer): whether this is one, and how many races it has reported so far.
bool racecheck();
std::int64_t race_reports();

// Memory-access profile (tests/cuda_sim/memory_profile.cpp: a program whose kernels' every load and
// store is reported here, see memory_profile_hooks.cpp). The accesses of one warp instruction — the
// same code site, the lanes aligned as a converged warp issues them (runtime.cpp, cost_requests: a
// loop's unconditional accesses anchor its conditional ones) — are one request; a global request costs the distinct 32-byte
// sectors it touches (counted from the start of each allocation, which a GPU aligns to 256 bytes), a
// shared one the wavefronts of its bank conflicts (the most distinct 4-byte words it touches in one
// of the 32 banks). Device allocations and shared memory are counted — dynamic, and the __shared__
// variables (thread_local here: the program's thread-local storage of the block's OS thread, its
// banks counted from that storage's start) — not registers and the stack.
struct AccessCounts {
    std::int64_t requests = 0;      // warp instructions
    std::int64_t transactions = 0;  // global: 32-byte sectors; shared: wavefronts
    std::int64_t bytes = 0;         // distinct bytes the lanes asked for (a broadcast counts once)
    std::int64_t lanes = 0;         // lane accesses
    std::int64_t ideal = 0;         // the fewest transactions those bytes need, request by request: 32 (global) or 128 (shared) bytes each
    std::int64_t same_word = 0;     // the most lanes of a request on one 4-byte word, summed over requests: an atomic's serialized
                                    // passes (the GPU's shared atomics take a pass per lane on one address; a load broadcasts)
};
struct KernelAccesses {
    std::int64_t launches = 0, blocks = 0;
    AccessCounts global_load, global_store, shared_load, shared_store;
    AccessCounts shared_atomic;  // the shared atomics among those (their same_word: serialized passes)
};
// Starts (on) or stops counting; starting clears what was counted.
void set_memory_profile(bool on);
// What was counted, by kernel name (name_next_launch's).
std::map<std::string, KernelAccesses> memory_profile();
// The same by code site (the instrumented call's return address) within each kernel: which access
// of the source takes the sectors or wavefronts.
struct SiteAccesses {
    bool shared = false, store = false, static_shared = false;  // static_shared: a __shared__ variable's
    bool atomic = false;                                         // accesses made by an atomic (atomic_scope)
    AccessCounts counts;
};
std::map<std::string, std::map<const void*, SiteAccesses>> memory_profile_sites();
// From the instrumented code: `bytes` at p read or written by the code at `site`. Ignored outside a
// kernel and when the profile is off.
void record_access(const void* p, std::size_t bytes, bool store, const void* site);

// Atomics mark their accesses (enter, then leave): the profile's shared_atomic.
void atomic_scope(bool enter);
void count_atomic_cas64();  // Stats::atomic_cas64
struct AtomicScope {
    AtomicScope() { atomic_scope(true); }
    ~AtomicScope() { atomic_scope(false); }
    AtomicScope(const AtomicScope&) = delete;
    AtomicScope& operator=(const AtomicScope&) = delete;
};

unsigned char* dynamic_shared();
void block_barrier();
void warp_barrier(unsigned mask);
// A warp collective's exchange: the calling lane publishes `mine`, waits for the lanes of mask (one
// warp barrier) and gets the 32 values its warp's lanes had published, as the barrier's release
// found them (the scheduler copies them then, and every released lane reads them before its warp's
// next release: no second barrier before the slots are reused).
const std::uint64_t* warp_exchange(unsigned mask, std::uint64_t mine);
[[noreturn]] void fail(const std::string& what);  // from device code: fails the running kernel
void opaque_use(const void* p);                    // the compiler cannot drop what computed *p
[[noreturn]] void fail_host(const std::string& what);

// A pointer handed to device work must lie in a live device allocation (or be null); `uses` lists
// those pointers so cudaFree can refuse to free what queued work still reads.
struct Op {
    std::string what;
    std::vector<const void*> uses;
    std::function<void()> run;
    bool device_work = true;         // a copy, memset or CUB call: runs as one unit of device work; false for stream control
    std::unique_ptr<char> enqueued;  // racecheck: what the host had done when it enqueued the operation (set by enqueue)
    const void* frees = nullptr;     // cudaFreeAsync: the allocation it frees (freed even when the queue is dropped)
};
cudaError_t enqueue(cudaStream_t s, Op op);
bool is_device_pointer(const void* p);
// Bytes of the live allocation from p to its end (-1 when p is not device memory).
std::int64_t device_bytes_from(const void* p);

struct Launch {
    const void* kernel;
    dim3 grid, block;
    std::size_t smem;
    std::function<void()> body;  // one thread's execution of the kernel
};
cudaError_t launch(const cudaLaunchConfig_t* cfg, Launch l, std::vector<const void*> pointer_args);

template <class T>
void collect_pointer(std::vector<const void*>& out, const T& v) {
    if constexpr (std::is_pointer_v<T>) out.push_back(static_cast<const void*>(v));
}

}  // namespace cuda_sim

// ---------------------------------------------------------------- runtime API (host)
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaMalloc(void** p, std::size_t bytes);
template <class T>
cudaError_t cudaMalloc(T** p, std::size_t bytes) {
    return cudaMalloc(reinterpret_cast<void**>(p), bytes);
}
cudaError_t cudaFree(void* p);
cudaError_t cudaMemGetInfo(std::size_t* free_bytes, std::size_t* total_bytes);
cudaError_t cudaMemPoolCreate(cudaMemPool_t* pool, const cudaMemPoolProps* props);
cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool);
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value);
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value);
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, std::size_t min_bytes_to_keep);
cudaError_t cudaMallocFromPoolAsync(void** p, std::size_t bytes, cudaMemPool_t pool, cudaStream_t s);
template <class T>
cudaError_t cudaMallocFromPoolAsync(T** p, std::size_t bytes, cudaMemPool_t pool, cudaStream_t s) {
    return cudaMallocFromPoolAsync(reinterpret_cast<void**>(p), bytes, pool, s);
}
cudaError_t cudaFreeAsync(void* p, cudaStream_t s);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, cudaStream_t s = nullptr);
cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind);
// height rows of width bytes, dpitch / spitch bytes apart (the rows of a sub-matrix of a column-major array)
cudaError_t cudaMemcpy2DAsync(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width, std::size_t height,
                              cudaMemcpyKind kind, cudaStream_t s = nullptr);
cudaError_t cudaMemsetAsync(void* p, int value, std::size_t bytes, cudaStream_t s = nullptr);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags = 0);
inline constexpr unsigned cudaEventDefault = 0x00;
inline constexpr unsigned cudaEventDisableTiming = 0x02;
cudaError_t cudaEventCreate(cudaEvent_t* e);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned flags);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = nullptr);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t stop);
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char* cudaGetErrorName(cudaError_t e);
const char* cudaGetErrorString(cudaError_t e);
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func);
// Stream capture and graphs: work enqueued on a capturing stream (kernels, device-to-device copies, memsets)
// is recorded, not run; a launch of the instantiated graph enqueues the recorded work again. What the
// simulator cannot record (a copy with host memory, events, stream-ordered allocation, a synchronization of
// the stream) fails that call with cudaErrorStreamCaptureUnsupported and invalidates the capture, as on a GPU.
cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t* graph);
cudaError_t cudaStreamIsCapturing(cudaStream_t s, cudaStreamCaptureStatus* status);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long flags = 0);
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t s);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr, int value);

template <class... Exp, class... Act>
cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t* cfg, void (*kernel)(Exp...), Act&&... args) {
    static_assert(sizeof...(Exp) == sizeof...(Act), "kernel argument count");
    auto params = std::make_shared<std::tuple<std::decay_t<Exp>...>>(std::forward<Act>(args)...);
    std::vector<const void*> pointers;
    std::apply([&](const auto&... v) { (cuda_sim::collect_pointer(pointers, v), ...); }, *params);
    cuda_sim::Launch l{reinterpret_cast<const void*>(kernel), cfg->gridDim, cfg->blockDim, cfg->dynamicSmemBytes,
                       [kernel, params] { std::apply(kernel, *params); }};
    return cuda_sim::launch(cfg, std::move(l), std::move(pointers));
}

// ---------------------------------------------------------------- device intrinsics
inline void __syncthreads() { cuda_sim::block_barrier(); }

namespace cuda_sim {
// A warp shuffle: each lane publishes v, then reads the value of lane src(lane, seg) (seg: the first
// lane of its width-wide segment), or keeps its own when src returns a lane outside the segment.
template <class T, class Src>
T warp_shuffle(unsigned mask, T v, int width, Src src) {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8, "a warp shuffle of a type over 8 bytes");
    const unsigned linear = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const int lane = static_cast<int>(linear % warpSize);
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    const std::uint64_t* got = warp_exchange(mask, bits);
    const int seg = lane / width * width;
    const int from = src(lane, seg);
    T r = v;
    if (from >= seg && from < seg + width) std::memcpy(&r, &got[from], sizeof(T));
    return r;
}
}  // namespace cuda_sim

template <class T>
T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = warpSize) {
    return cuda_sim::warp_shuffle(mask, v, width, [delta](int lane, int) { return lane + static_cast<int>(delta); });
}
template <class T>
T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = warpSize) {
    return cuda_sim::warp_shuffle(mask, v, width, [delta](int lane, int) { return lane - static_cast<int>(delta); });
}
// Lane src_lane of the caller's segment (src_lane modulo width, as on the GPU).
template <class T>
T __shfl_sync(unsigned mask, T v, int src_lane, int width = warpSize) {
    return cuda_sim::warp_shuffle(mask, v, width, [src_lane, width](int, int seg) { return seg + ((src_lane % width) + width) % width; });
}

// Barrier (and memory order) of the lanes named in mask.
inline void __syncwarp(unsigned mask = 0xffffffffu) { cuda_sim::warp_barrier(mask); }

// Bit l set when lane l (named in mask) passed a nonzero predicate.
inline unsigned __ballot_sync(unsigned mask, int pred) {
    const std::uint64_t* got = cuda_sim::warp_exchange(mask, pred != 0);
    unsigned r = 0;
    for (unsigned l = 0; l < static_cast<unsigned>(warpSize); ++l)
        if (((mask >> l) & 1u) && got[l]) r |= 1u << l;
    return r;
}

inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }

// Relaxed atomics, as on the GPU: under ThreadSanitizer (racecheck build) they are atomics and
// order nothing, so only a barrier, a kernel boundary or stream order publishes plain writes.
template <class T>
inline T sim_atomic_add(T* p, T v) {
    const cuda_sim::AtomicScope scope;
    return std::atomic_ref<T>(*p).fetch_add(v, std::memory_order_relaxed);
}
inline unsigned atomicAdd(unsigned* p, unsigned v) { return sim_atomic_add(p, v); }
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) { return sim_atomic_add(p, v); }
inline float atomicAdd(float* p, float v) { return sim_atomic_add(p, v); }
inline double atomicAdd(double* p, double v) { return sim_atomic_add(p, v); }
template <class T>
inline T sim_atomic_cas(T* p, T expected, T desired) {
    const cuda_sim::AtomicScope scope;
    std::atomic_ref<T>(*p).compare_exchange_strong(expected, desired, std::memory_order_relaxed);
    return expected;  // the old value either way
}
inline unsigned atomicCAS(unsigned* p, unsigned e, unsigned d) { return sim_atomic_cas(p, e, d); }
inline unsigned long long atomicCAS(unsigned long long* p, unsigned long long e, unsigned long long d) {
    cuda_sim::count_atomic_cas64();
    return sim_atomic_cas(p, e, d);
}
inline unsigned atomicOr(unsigned* p, unsigned v) {
    const cuda_sim::AtomicScope scope;
    return std::atomic_ref<unsigned>(*p).fetch_or(v, std::memory_order_relaxed);
}
// The old value; *p becomes min(*p, v).
inline unsigned long long atomicMin(unsigned long long* p, unsigned long long v) {
    const cuda_sim::AtomicScope scope;
    std::atomic_ref<unsigned long long> a(*p);
    unsigned long long old = a.load(std::memory_order_relaxed);
    while (v < old && !a.compare_exchange_weak(old, v, std::memory_order_relaxed)) {
    }
    return old;
}
// The old value; *p becomes max(*p, v).
inline unsigned long long atomicMax(unsigned long long* p, unsigned long long v) {
    const cuda_sim::AtomicScope scope;
    std::atomic_ref<unsigned long long> a(*p);
    unsigned long long old = a.load(std::memory_order_relaxed);
    while (v > old && !a.compare_exchange_weak(old, v, std::memory_order_relaxed)) {
    }
    return old;
}
