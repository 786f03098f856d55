// tests/cuda_sim/runtime.cpp: the CUDA simulator's fibers, device memory, streams, events and errors
// (see cuda_sim/runtime.hpp for what is simulated and what is checked).
#include "cuda_sim/runtime.hpp"

#include <link.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <unordered_map>

#if defined(__SANITIZE_ADDRESS__)
#define CUDA_SIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CUDA_SIM_ASAN 1
#endif
#endif
#ifdef CUDA_SIM_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

// Racecheck build: this file is not instrumented itself (its bookkeeping would race with the
// kernels it schedules); it tells ThreadSanitizer the order through the annotations below.
#ifdef GIGASPARSE_CUDA_SIM_RACECHECK
#define CUDA_SIM_TSAN 1
#include <pthread.h>
#include <sanitizer/tsan_interface.h>
extern "C" void AnnotateIgnoreSyncBegin(const char* file, int line);
extern "C" void AnnotateIgnoreSyncEnd(const char* file, int line);
extern "C" void __tsan_ignore_thread_begin();
extern "C" void __tsan_ignore_thread_end();
#endif

namespace cuda_sim {
namespace {
struct FiberPool;
}
}  // namespace cuda_sim

struct CUstream_st {
    std::deque<std::pair<std::uint64_t, cuda_sim::Op>> queue;
    std::uint64_t next_seq = 1;
    bool blocking = true;  // created without cudaStreamNonBlocking: ordered with the legacy default stream
    void* race = nullptr;  // racecheck: the stream's context (what its work may assume done)
    char done = 0;         // racecheck: the stream's context released here, for the host to learn it
    std::unique_ptr<cuda_sim::FiberPool> fibers;  // for the threads of the blocks of its kernels
    // stream capture: enqueued work is recorded into `captured` instead of the queue
    enum class Capture { none, active, invalidated } capture = Capture::none;
    std::vector<std::shared_ptr<const cuda_sim::Op>> captured;
};
// A graph: the work a capture recorded, in order (shared with the executable graphs made from it).
struct CUgraph_st {
    std::vector<std::shared_ptr<const cuda_sim::Op>> nodes;
};
struct CUgraphExec_st {
    std::vector<std::shared_ptr<const cuda_sim::Op>> nodes;
};
struct CUmemPoolHandle_st {
    std::uint64_t release_threshold = 0;  // bytes kept reserved past a synchronization
    std::int64_t reserved = 0, used = 0, reserved_high = 0, used_high = 0;
};
struct CUevent_st {
    CUstream_st* stream = nullptr;
    std::uint64_t seq = 0;     // the record operation's place in its stream
    bool complete = false;
    bool timing = true;  // false: created with cudaEventDisableTiming
    double time_ms = 0;
    std::shared_ptr<char> recorded;  // racecheck: released by the last record operation
};

namespace cuda_sim {
namespace {

using clock_type = std::chrono::steady_clock;
const clock_type::time_point t_start = clock_type::now();
double now_ms() { return std::chrono::duration<double, std::milli>(clock_type::now() - t_start).count(); }

// ---------------------------------------------------------------- global state
struct State {
    Config cfg;
    Stats st;
    cudaError_t sticky = cudaSuccess;   // a failed kernel: every later call returns it
    cudaError_t last = cudaSuccess;     // cudaGetLastError
    std::string detail;
    std::map<const unsigned char*, std::size_t> allocations;  // base -> bytes
    struct AllocInfo {
        CUmemPoolHandle_st* pool = nullptr;  // from cudaMallocFromPoolAsync; null for cudaMalloc
        bool free_queued = false;            // cudaFreeAsync enqueued, not yet run
    };
    std::map<const unsigned char*, AllocInfo> alloc_info;  // base -> how it was allocated
    std::int64_t malloc_bytes = 0;                         // live cudaMalloc bytes (pools count what they reserve)
    std::set<CUmemPoolHandle_st*> pools;
    std::set<CUstream_st*> streams;
    std::set<CUevent_st*> events;
    std::set<CUgraph_st*> graphs;
    std::set<CUgraphExec_st*> graph_execs;
    std::map<const void*, int> max_dynamic_smem;  // cudaFuncAttributeMaxDynamicSharedMemorySize
    std::string next_name;
    std::uint64_t launch_count = 0;
};
State& S();
}  // namespace

Config default_config() {
    Config c;
    if (const char* o = std::getenv("GIGASPARSE_CUDA_SIM_ORDER")) {
        const std::string v = o;
        if (v == "reverse") c.order = Order::reverse;
        else if (v == "random") c.order = Order::random;
    }
    if (const char* sd = std::getenv("GIGASPARSE_CUDA_SIM_SEED")) c.seed = std::strtoull(sd, nullptr, 10);
    if (const char* t = std::getenv("GIGASPARSE_CUDA_SIM_TRACE")) c.trace = std::string(t) == "1";
    return c;
}

namespace {
State& S() {
    static State s = [] {
        State x;
        x.cfg = default_config();
        return x;
    }();
    return s;
}

// ---------------------------------------------------------------- racecheck
// ThreadSanitizer learns CUDA's happens-before order through these (no-ops in other builds): each
// simulated thread, block, stream and the host is a context; release/acquire on an address order
// two contexts. A stream's context ignores memory accesses (it runs only simulator bookkeeping on
// the host's stack) but not synchronization.
namespace race {
#ifdef CUDA_SIM_TSAN
constexpr bool on = true;
void* current() { return __tsan_get_current_fiber(); }
void* create() { return __tsan_create_fiber(0); }
void destroy(void* c) { __tsan_destroy_fiber(c); }
void to(void* c) { __tsan_switch_to_fiber(c, __tsan_switch_to_fiber_no_sync); }
void release(const void* a) { __tsan_release(const_cast<void*>(a)); }
void acquire(const void* a) { __tsan_acquire(const_cast<void*>(a)); }
void ignore(bool begin) { begin ? __tsan_ignore_thread_begin() : __tsan_ignore_thread_end(); }
void* create_stream_context() {
    void* here = current();
    void* c = create();
    to(c);
    __tsan_ignore_thread_begin();
    to(here);
    return c;
}
void destroy_stream_context(void* c) {
    void* here = current();
    to(c);
    __tsan_ignore_thread_end();
    to(here);
    destroy(c);
}
#else
constexpr bool on = false;
void* current() { return nullptr; }
void* create() { return nullptr; }
void destroy(void*) {}
void to(void*) {}
void release(const void*) {}
void acquire(const void*) {}
void ignore(bool) {}
void* create_stream_context() { return nullptr; }
void destroy_stream_context(void*) {}
#endif
// The rest of a scope runs in context c (null: the current one).
class In {
public:
    explicit In(void* c) : prev_(current()) {
        if (c) to(c);
    }
    ~In() {
        if (prev_) to(prev_);
    }
    In(const In&) = delete;
    In& operator=(const In&) = delete;

private:
    void* prev_;
};
// The host learns what stream s has done.
void host_learns(CUstream_st* s) {
    if (!on) return;
    {
        In in(s->race);
        release(&s->done);
    }
    acquire(&s->done);
}
std::atomic<std::int64_t> reports{0};
}  // namespace race

cudaError_t set_error(cudaError_t e, const std::string& detail) {
    State& s = S();
    s.last = e;
    s.detail = detail;
    std::fprintf(stderr, "cuda_sim: %s: %s\n", cudaGetErrorName(e), detail.c_str());
    return e;
}
cudaError_t set_sticky(const std::string& detail) {
    S().sticky = cudaErrorLaunchFailure;
    return set_error(cudaErrorLaunchFailure, detail);
}
// Every runtime call first reports a sticky failure, as the CUDA runtime does.
#define CUDA_SIM_STICKY()                                 \
    do {                                                  \
        if (S().sticky != cudaSuccess) return S().sticky; \
    } while (0)

// The live allocation p points into; with past_end, also the one p is one past the end of (an end
// pointer passed to a kernel). A host buffer may start right where a device allocation ends.
const std::pair<const unsigned char*, std::size_t>* find_allocation(const void* p, bool past_end = false) {
    State& s = S();
    const auto* q = static_cast<const unsigned char*>(p);
    auto it = s.allocations.upper_bound(q);
    if (it == s.allocations.begin()) return nullptr;
    --it;
    if (q > it->first + it->second || (q == it->first + it->second && !past_end)) return nullptr;
    return reinterpret_cast<const std::pair<const unsigned char*, std::size_t>*>(&*it);
}

std::int64_t pools_reserved() {
    std::int64_t b = 0;
    for (const CUmemPoolHandle_st* p : S().pools) b += p->reserved;
    return b;
}
// Device capacity in use: cudaMalloc allocations and what the pools reserve.
std::int64_t capacity_used() { return S().malloc_bytes + pools_reserved(); }
void update_pool_stats() { S().st.pool_bytes_reserved = pools_reserved(); }
// A new allocation of host memory standing in for device memory (garbage filled by the caller).
void* new_block(std::size_t bytes, CUmemPoolHandle_st* pool) {
    State& s = S();
    void* m = std::malloc(bytes);
    if (!m) return nullptr;
    const auto* base = static_cast<const unsigned char*>(m);
    s.allocations[base] = bytes;
    s.alloc_info[base] = State::AllocInfo{pool, false};
    s.st.device_bytes_live += static_cast<std::int64_t>(bytes);
    s.st.device_bytes_peak = std::max(s.st.device_bytes_peak, s.st.device_bytes_live);
    ++s.st.allocations_live;
    return m;
}
// Drops an allocation from the bookkeeping (the caller frees its memory); false when unknown.
bool forget_block(const unsigned char* base) {
    State& s = S();
    const auto it = s.allocations.find(base);
    if (it == s.allocations.end()) return false;
    const auto bytes = static_cast<std::int64_t>(it->second);
    const State::AllocInfo info = s.alloc_info[base];
    if (info.pool) info.pool->used -= bytes;
    else s.malloc_bytes -= bytes;
    s.st.device_bytes_live -= bytes;
    --s.st.allocations_live;
    s.allocations.erase(it);
    s.alloc_info.erase(base);
    return true;
}
void delete_block(const unsigned char* base) {
    if (forget_block(base)) std::free(const_cast<unsigned char*>(base));
}
// At a stream, event or device synchronization each pool returns what it reserves beyond its
// release threshold and its allocations.
void release_pools() {
    for (CUmemPoolHandle_st* p : S().pools) {
        const auto keep = static_cast<std::int64_t>(std::min<std::uint64_t>(p->release_threshold, INT64_MAX));
        if (p->reserved > keep) p->reserved = std::max(p->used, keep);
    }
    update_pool_stats();
}
// Queued work of any stream that uses the allocation at base (empty: none). A queued free uses only
// its own allocation (which cannot be freed twice), not the one ending where it starts.
std::string queued_user(const unsigned char* base) {
    for (CUstream_st* st : S().streams)
        for (const auto& [seq, op] : st->queue) {
            if (op.frees) continue;
            for (const void* u : op.uses) {
                // the allocation u lies in, else the one it is the end pointer of (blocks may be adjacent)
                const auto* a = find_allocation(u);
                if (!a) a = find_allocation(u, true);
                if (a && a->first == base) return op.what;
            }
        }
    return {};
}

// The operation running now (not thread_local: streams run on the host's thread, and a block's
// thread, racecheck, runs while the host's waits for it): the fibers of its stream, and,
// racecheck, where its device work releases for the stream to learn of it when the operation ends.
struct Running {
    const char* done = nullptr;
    FiberPool* fibers = nullptr;
};
Running running;

// ---------------------------------------------------------------- fibers
// A fiber switch saves the callee-saved registers on the current stack and moves to the other stack
// (x86-64 System V; no signal-mask system call as in swapcontext, so a switch costs nanoseconds).
extern "C" void gigasparse_cuda_sim_switch(void** save_sp, void* load_sp);
asm(R"(
    .text
    .globl gigasparse_cuda_sim_switch
    .hidden gigasparse_cuda_sim_switch
    .type gigasparse_cuda_sim_switch, @function
gigasparse_cuda_sim_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size gigasparse_cuda_sim_switch, .-gigasparse_cuda_sim_switch
)");

// Kernels need little stack; AddressSanitizer's redzones need more. Small stacks keep the switch
// from missing the TLB on every fiber.
#ifdef CUDA_SIM_ASAN
constexpr std::size_t fiber_stack_bytes = std::size_t(256) << 10;
#else
constexpr std::size_t fiber_stack_bytes = std::size_t(32) << 10;
#endif

enum class FiberState { runnable, block_barrier, warp_barrier, done };

struct Fiber {
    void* sp = nullptr;
    unsigned char* stack = nullptr;
    FiberState state = FiberState::runnable;
    unsigned warp_mask = 0;
    void* race = nullptr;  // racecheck: this simulated thread's context
};
// The fibers of a stream's blocks (the host's for the legacy default stream): thread t of every
// block runs on fiber t, with its stack and, racecheck, its context (creating a context costs a
// millisecond and a megabyte). The kernels of one stream are ordered anyway; the blocks of one
// kernel are then ordered where the same thread index's context carries the order: races between
// blocks are reported between different thread indices, and after the blocks' last barrier.
// Streams have their own fibers, so the order of one stream does not hide races with another.
struct FiberPool {
    std::vector<Fiber> fibers;
    FiberPool() = default;
    FiberPool(const FiberPool&) = delete;
    FiberPool& operator=(const FiberPool&) = delete;
    ~FiberPool() {
        for (Fiber& f : fibers) {
            if (f.stack) munmap(f.stack, fiber_stack_bytes);
            if (f.race) race::destroy(f.race);
        }
    }
};
FiberPool& host_fibers() {
    static FiberPool p;
    return p;
}

// The memory-access profile of one block (set_memory_profile): each thread's accesses in order,
// with the number of warp collectives and block barriers it had passed (its epoch), grouped into
// warp requests when the block ends (cost_requests).
struct ProfileBlock {
    struct Access {
        const void* site;
        std::uint32_t epoch;
        bool shared, store, static_shared, atomic;
        const unsigned char* base;  // the allocation's start (shared: the block's dynamic shared memory, or its __shared__ variables' storage)
        std::uint64_t offset;
        std::uint32_t bytes;
    };
    std::vector<std::vector<Access>> stream;  // per thread
    std::vector<std::uint32_t> epoch;         // per thread
};

struct Profile {
    bool on = false;
    std::map<std::string, std::pair<std::int64_t, std::int64_t>> runs;  // by kernel: launches, blocks
    std::map<std::string, std::map<const void*, SiteAccesses>> sites;    // by kernel (its totals are their sums)
    std::pair<std::int64_t, std::int64_t>* running = nullptr;            // the running launch's
    std::map<const void*, SiteAccesses>* running_sites = nullptr;
};
Profile& profile_state() {
    static Profile p;
    return p;
}
bool profile_on() { return profile_state().on; }

// A block's accesses grouped into warp requests and costed: global in distinct 32-byte sectors,
// shared in wavefronts (the most distinct 4-byte words of one bank). The lanes of a warp are aligned
// as a converged warp issues their accesses: between two warp collectives or barriers (an epoch),
// a site every lane with accesses in the epoch ran equally often is uniform (a loop's unconditional
// load); an access pairs with the other lanes' accesses of its site made after the same execution
// of the same uniform site (the last one before it), counted from there — so a conditional store
// in iteration i of a loop pairs with the other lanes' stores of iteration i, not with their i-th
// store (which, lanes skipping different iterations, would pair stores of different iterations).
void cost_requests(const ProfileBlock& b) {
    if (!profile_state().running) return;
    ++profile_state().running->second;
    struct Key {
        const void* site;
        const void* anchor;
        std::uint32_t anchor_n, n;
        bool operator==(const Key& o) const { return site == o.site && anchor == o.anchor && anchor_n == o.anchor_n && n == o.n; }
    };
    struct KeyHash {
        std::size_t operator()(const Key& x) const {
            return std::hash<const void*>()(x.site) ^ (std::hash<const void*>()(x.anchor) * 31) ^ (std::size_t(x.anchor_n) * 0x9E3779B97F4A7C15ull) ^
                   (std::size_t(x.n) << 40);
        }
    };
    std::unordered_map<Key, std::vector<const ProfileBlock::Access*>, KeyHash> requests;
    std::unordered_map<const void*, std::vector<std::uint32_t>> counts;  // site -> executions by lane in the epoch
    std::unordered_map<const void*, bool> uniform;                      // site -> every lane with accesses ran it as often
    const auto l_first = [](const std::vector<std::size_t>& end, const std::vector<std::size_t>& at) {  // a lane with accesses
        std::size_t l = 0;
        while (end[l] == at[l]) ++l;
        return l;
    };
    std::vector<std::pair<const void*, std::uint32_t>> since;          // executions of each site since the anchor
    std::vector<std::pair<const unsigned char*, std::uint64_t>> units, bytes, words;
    std::unordered_map<unsigned, unsigned> per_bank;
    const std::size_t nthreads = b.stream.size();
    for (std::size_t w0 = 0; w0 < nthreads; w0 += 32) {
        const std::size_t lanes = std::min<std::size_t>(32, nthreads - w0);
        std::vector<std::size_t> at(lanes, 0);  // each lane's position in its stream
        while (true) {
            // the next epoch any lane has accesses in, and each lane's accesses of it
            std::uint32_t e = UINT32_MAX;
            for (std::size_t l = 0; l < lanes; ++l)
                if (at[l] < b.stream[w0 + l].size()) e = std::min(e, b.stream[w0 + l][at[l]].epoch);
            if (e == UINT32_MAX) break;
            std::vector<std::size_t> end(lanes);
            counts.clear();
            for (std::size_t l = 0; l < lanes; ++l) {
                const auto& st = b.stream[w0 + l];
                std::size_t x = at[l];
                while (x < st.size() && st[x].epoch == e) {
                    auto& c = counts[st[x].site];
                    if (c.empty()) c.assign(lanes, 0);
                    ++c[l];
                    ++x;
                }
                end[l] = x;
            }
            uniform.clear();
            const std::size_t first = l_first(end, at);
            for (const auto& [site, c] : counts) {
                bool u = true;
                for (std::size_t m = 0; m < lanes && u; ++m)
                    if (end[m] > at[m] && c[m] != c[first]) u = false;
                uniform[site] = u;
            }
            requests.clear();
            for (std::size_t l = 0; l < lanes; ++l) {
                if (end[l] == at[l]) continue;
                const void* anchor = nullptr;
                std::uint32_t anchor_n = 0;
                std::unordered_map<const void*, std::uint32_t> uniform_seen;
                since.clear();
                for (std::size_t x = at[l]; x < end[l]; ++x) {
                    const ProfileBlock::Access& a = b.stream[w0 + l][x];
                    if (uniform[a.site]) {
                        anchor = a.site;
                        anchor_n = uniform_seen[a.site]++;
                        since.clear();
                        requests[Key{a.site, anchor, anchor_n, 0}].push_back(&a);
                        continue;
                    }
                    std::uint32_t n = 0;
                    bool found = false;
                    for (auto& [site, count] : since)
                        if (site == a.site) {
                            n = count++;
                            found = true;
                            break;
                        }
                    if (!found) since.emplace_back(a.site, 1);
                    requests[Key{a.site, anchor, anchor_n, n}].push_back(&a);
                }
                at[l] = end[l];
            }
            for (const auto& [key, acc] : requests) {
                const bool shared = acc.front()->shared, store = acc.front()->store;
                SiteAccesses& site = (*profile_state().running_sites)[key.site];
                site.shared = shared;
                site.store = store;
                site.static_shared = acc.front()->static_shared;
                site.atomic = acc.front()->atomic;
                units.clear();
                bytes.clear();
                words.clear();
                for (const ProfileBlock::Access* a : acc) {
                    const std::uint64_t unit = shared ? 4 : 32;
                    for (std::uint64_t u = a->offset / unit; u <= (a->offset + a->bytes - 1) / unit; ++u) units.emplace_back(a->base, u);
                    for (std::uint64_t x = a->offset; x < a->offset + a->bytes; ++x) bytes.emplace_back(a->base, x);
                    words.emplace_back(a->base, a->offset / 4);
                }
                std::sort(words.begin(), words.end());
                std::int64_t same_word = 0;
                for (std::size_t x = 0, y = 0; x < words.size(); x = y) {
                    while (y < words.size() && words[y] == words[x]) ++y;
                    same_word = std::max<std::int64_t>(same_word, static_cast<std::int64_t>(y - x));
                }
                std::sort(units.begin(), units.end());
                units.erase(std::unique(units.begin(), units.end()), units.end());
                std::sort(bytes.begin(), bytes.end());
                const auto distinct = static_cast<std::int64_t>(std::unique(bytes.begin(), bytes.end()) - bytes.begin());
                std::int64_t taken = 0;
                if (!shared) {
                    taken = static_cast<std::int64_t>(units.size());
                } else {
                    per_bank.clear();
                    unsigned most = 0;
                    for (const auto& u : units) most = std::max(most, ++per_bank[static_cast<unsigned>(u.second % 32)]);
                    taken = most;
                }
                const std::int64_t ideal = (distinct + (shared ? 127 : 31)) / (shared ? 128 : 32);
                AccessCounts& t = site.counts;
                ++t.requests;
                t.lanes += static_cast<std::int64_t>(acc.size());
                t.bytes += distinct;
                t.transactions += taken;
                t.ideal += ideal;
                t.same_word += same_word;
            }
        }
    }
}

struct BlockRun {
    std::vector<Fiber>* fibers = nullptr;
    unsigned nthreads = 0;
    unsigned current = 0;
    const std::function<void()>* body = nullptr;
    void* sched_sp = nullptr;
    unsigned char* smem = nullptr;
    std::size_t smem_bytes = 0;
    ProfileBlock* profile = nullptr;  // set_memory_profile(true): this block's requests
    bool in_atomic = false;           // profile: the running thread is inside an atomic (atomic_scope)
    const unsigned char* static_smem = nullptr;  // profile: this thread's copy of the program's thread_locals (__shared__ variables)
    std::size_t static_smem_bytes = 0;
    std::vector<unsigned> round;  // the order of a round: every runnable thread runs once (until it waits or exits)
    std::size_t at = 0;           // the running thread's position in round
    std::vector<std::uint64_t> warp_slots;    // what each lane published at its warp collective (warp_exchange)
    std::vector<std::uint64_t> warp_results;  // each warp's slots as its last release found them
    std::string error;
    unsigned done = 0, at_block = 0, at_warp = 0;  // fibers in each waiting state
    const void* sched_bottom = nullptr;  // the scheduler's stack, for AddressSanitizer's fiber switches
    std::size_t sched_size = 0;
    const void* from_bottom = nullptr;  // the stack a fiber started from
    std::size_t from_size = 0;
    void* sched_race = nullptr;  // racecheck: the block's (scheduler's) context
    std::deque<char> syncs;      // racecheck: a fresh address for each barrier and for the block's end
    const char* end = nullptr;   // racecheck: where each thread releases when it ends (syncs.front())

    // Racecheck: everything each fiber in `who` did happens before what any of them does next.
    void order(const std::vector<unsigned>& who) {
        if (!race::on || who.empty()) return;
        const char* at = &syncs.emplace_back();
        for (unsigned t : who) {
            race::to((*fibers)[t].race);
            race::release(at);
        }
        for (unsigned t : who) {
            race::to((*fibers)[t].race);
            race::acquire(at);
        }
        race::to(sched_race);
    }
};

thread_local BlockRun* tl_run = nullptr;
struct FiberAbort {};  // thrown by fail() inside a fiber, caught at the fiber's entry

void set_thread_index(unsigned t) {
    if (blockDim.y == 1 && blockDim.z == 1) {  // every gigasparse kernel: no division at each switch
        threadIdx = dim3{t, 0, 0};
        return;
    }
    threadIdx.x = t % blockDim.x;
    threadIdx.y = (t / blockDim.x) % blockDim.y;
    threadIdx.z = t / (blockDim.x * blockDim.y);
}

void asan_start(void** fake, const void* bottom, std::size_t size) {
#ifdef CUDA_SIM_ASAN
    __sanitizer_start_switch_fiber(fake, bottom, size);
#else
    (void)fake, (void)bottom, (void)size;
#endif
}
void asan_finish(void* fake, const void** bottom, std::size_t* size) {
#ifdef CUDA_SIM_ASAN
    __sanitizer_finish_switch_fiber(fake, bottom, size);
#else
    (void)fake, (void)bottom, (void)size;
#endif
}

[[noreturn]] void fiber_entry() {
    BlockRun* r = tl_run;
    // (the stack it came from into the block's fields, not locals: their redzones would stay
    // poisoned in the frame this function never leaves, where the next block's prepare writes)
    asan_finish(nullptr, &r->from_bottom, &r->from_size);
    if (!r->sched_bottom) {  // the block's first fiber is started by the scheduler
        r->sched_bottom = r->from_bottom;
        r->sched_size = r->from_size;
    }
    try {
        (*r->body)();
    } catch (const FiberAbort&) {
        // fail() recorded the error
    }
    Fiber& f = (*r->fibers)[r->current];
    f.state = FiberState::done;
    ++r->done;
    race::release(r->end);  // the block's end learns of this thread
    race::to(r->sched_race);
    asan_start(nullptr, r->sched_bottom, r->sched_size);  // this fiber's stack is done
    gigasparse_cuda_sim_switch(&f.sp, r->sched_sp);
    std::abort();  // never resumed
}

// A fresh fiber: its first switch pops six zero registers and returns into fiber_entry with the
// stack aligned as after a call.
void prepare(Fiber& f) {
    auto* top = reinterpret_cast<std::uintptr_t*>(f.stack + fiber_stack_bytes);
    std::uintptr_t* sp = top - 8;  // 16-byte aligned
    for (int i = 0; i < 6; ++i) sp[i] = 0;
    sp[6] = reinterpret_cast<std::uintptr_t>(&fiber_entry);
    sp[7] = 0;
    f.sp = sp;
}

// From device code: waits until released. The fiber hands over to the next runnable fiber of the
// round's order itself (one switch a thread and barrier, where going through the scheduler took
// two), or to the scheduler at the round's end.
[[gnu::always_inline]] inline void yield(FiberState why) {
    BlockRun* r = tl_run;
    std::vector<Fiber>& fibers = *r->fibers;
    Fiber& f = fibers[r->current];
    f.state = why;
    (why == FiberState::warp_barrier ? r->at_warp : r->at_block) += 1;
    void* fake = nullptr;
    std::size_t p = r->at + 1;
    while (p < r->round.size() && fibers[r->round[p]].state != FiberState::runnable) ++p;
    r->at = p;
    if (p < r->round.size()) {
        const unsigned t = r->round[p];
        Fiber& next = fibers[t];
        r->current = t;
        set_thread_index(t);
        race::to(next.race);
        asan_start(&fake, next.stack, fiber_stack_bytes);
        gigasparse_cuda_sim_switch(&f.sp, next.sp);
    } else {
        race::to(r->sched_race);
        asan_start(&fake, r->sched_bottom, r->sched_size);
        gigasparse_cuda_sim_switch(&f.sp, r->sched_sp);
    }
    asan_finish(fake, nullptr, nullptr);
}

// From the scheduler: runs thread t (round position at) and the runnable threads after it in the
// round, until one hands back.
void resume(BlockRun& r, unsigned t, std::size_t at) {
    Fiber& f = (*r.fibers)[t];
    r.current = t;
    r.at = at;
    set_thread_index(t);
    void* fake = nullptr;
    race::to(f.race);
    asan_start(&fake, f.stack, fiber_stack_bytes);
    gigasparse_cuda_sim_switch(&r.sched_sp, f.sp);
    asan_finish(fake, nullptr, nullptr);
}

// The calling OS thread's copy of the program's thread-local storage (its PT_TLS segment): in this
// simulator the __shared__ variables of the kernels (#define __shared__ thread_local), which the
// memory profile counts as shared memory. Empty when the program has none.
std::pair<const unsigned char*, std::size_t> program_thread_locals() {
    std::pair<const unsigned char*, std::size_t> r{nullptr, 0};
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* out) {
            for (int i = 0; i < info->dlpi_phnum; ++i)
                if (info->dlpi_phdr[i].p_type == PT_TLS && info->dlpi_tls_data) {
                    *static_cast<std::pair<const unsigned char*, std::size_t>*>(out) = {static_cast<const unsigned char*>(info->dlpi_tls_data),
                                                                                         info->dlpi_phdr[i].p_memsz};
                    break;
                }
            return 1;  // the program is the first object
        },
        &r);
    return r;
}

std::string block_name() {
    return "block (" + std::to_string(blockIdx.x) + "," + std::to_string(blockIdx.y) + "," + std::to_string(blockIdx.z) + ")";
}

// Runs the block's threads to completion; returns an error description or "".
// The random thread order comes from the seed, the launch and the block only (and the generator
// lives on the block's own thread, racecheck).
std::string run_block(unsigned nthreads, const std::function<void()>& body, unsigned char* smem, std::size_t smem_bytes, std::uint64_t order_seed) {
    std::mt19937_64 rng(order_seed);
    std::vector<Fiber>& fibers = running.fibers->fibers;
    if (fibers.size() < nthreads) fibers.resize(nthreads);
    BlockRun r;
    r.fibers = &fibers;
    r.nthreads = nthreads;
    r.body = &body;
    r.smem = smem;
    r.smem_bytes = smem_bytes;
    std::unique_ptr<ProfileBlock> profile;
    if (profile_on()) {
        profile = std::make_unique<ProfileBlock>();
        profile->stream.resize(nthreads);
        profile->epoch.assign(nthreads, 0);
        r.profile = profile.get();
        static thread_local const auto tls = program_thread_locals();
        r.static_smem = tls.first;
        r.static_smem_bytes = tls.second;
    }
    r.warp_slots.assign(static_cast<std::size_t>((nthreads + 31) / 32) * 32, 0);
    r.warp_results = r.warp_slots;
    r.sched_race = race::current();
    r.end = &r.syncs.emplace_back();
    for (unsigned t = 0; t < nthreads; ++t) {
        Fiber& f = fibers[t];
        if (!f.stack) {
            void* m = mmap(nullptr, fiber_stack_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (m == MAP_FAILED) return "cannot map a fiber stack";
            f.stack = static_cast<unsigned char*>(m);
        }
        if (race::on && !f.race) f.race = race::create();
        prepare(f);
        f.state = FiberState::runnable;
    }
    if (race::on) {  // every thread knows what the block's start knows
        const char* start = &r.syncs.emplace_back();
        race::release(start);
        for (unsigned t = 0; t < nthreads; ++t) {
            race::to(fibers[t].race);
            race::acquire(start);
        }
        race::to(r.sched_race);
    }
    BlockRun* saved = tl_run;
    tl_run = &r;
    std::vector<unsigned>& order = r.round;
    order.resize(nthreads);
    const Order how = S().cfg.order;
    for (unsigned t = 0; t < nthreads; ++t) order[t] = how == Order::reverse ? nthreads - 1 - t : t;
    std::string err;
    while (true) {
        if (how == Order::random) std::shuffle(order.begin(), order.end(), rng);
        for (std::size_t p = 0; p < nthreads; ++p)
            if (fibers[order[p]].state == FiberState::runnable) {
                resume(r, order[p], p);  // the fibers run on from there
                if (!r.error.empty()) break;
                p = r.at;  // where the last of them handed back
            }
        if (!r.error.empty()) break;  // read after the block's end below (a thread wrote it)
        const unsigned done = r.done, at_block = r.at_block, at_warp = r.at_warp;
        if (done == nthreads) break;
        // warp collectives: the lanes waiting with one mask are released when they are all the lanes it
        // names (CUDA: every lane named executes the same collective with the same mask). Lanes of
        // two branches, each its own mask, pass their own collectives; a lane at a whole-warp
        // collective waits for the lanes still at their branch's (its mask names them, theirs
        // differs), where merging the masks had released it with their values.
        bool released = false;
        for (unsigned w0 = 0; at_warp > 0 && w0 < nthreads; w0 += 32) {
            const unsigned lanes = std::min(32u, nthreads - w0);
            unsigned waiting = 0, exited = 0;
            for (unsigned l = 0; l < lanes; ++l) {
                const FiberState st = fibers[w0 + l].state;
                if (st == FiberState::warp_barrier) waiting |= 1u << l;
                else if (st == FiberState::done) exited |= 1u << l;
            }
            const unsigned in_block = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
            bool copied = false;
            for (unsigned rest = waiting; rest != 0 && err.empty();) {
                const unsigned l0 = static_cast<unsigned>(__builtin_ctz(rest));
                const unsigned mask = fibers[w0 + l0].warp_mask;
                unsigned group = 0;  // the lanes waiting with this mask
                for (unsigned l = l0; l < lanes; ++l)
                    if (((rest >> l) & 1u) && fibers[w0 + l].warp_mask == mask) group |= 1u << l;
                rest &= ~group;
                if (mask & ~in_block)
                    err = "warp collective with mask " + std::to_string(mask) + " names lanes beyond the block's " + std::to_string(nthreads) + " threads";
                else if (!((mask >> l0) & 1u))
                    err = "warp collective with mask " + std::to_string(mask) + " called by lane " + std::to_string(l0) + ", which it does not name";
                else if (mask & exited)
                    err = "warp collective (mask " + std::to_string(mask) + ") waits for lanes that have exited";
                if (!err.empty() || group != mask) continue;
                // what the lanes published, for warp_exchange: each released lane reads it when the
                // next round resumes it, before this warp's next release (after that round); one
                // copy serves every group of the warp this scan releases. (The simulator's
                // bookkeeping, not the kernel's accesses: hidden from racecheck, whose memmove
                // interceptor would see the copy.)
                if (!copied) {
                    race::ignore(true);
                    std::copy_n(r.warp_slots.begin() + w0, lanes, r.warp_results.begin() + w0);
                    race::ignore(false);
                    copied = true;
                }
                for (unsigned l = 0; l < lanes; ++l)
                    if (group & (1u << l)) {
                        fibers[w0 + l].state = FiberState::runnable;
                        --r.at_warp;
                    }
                if (race::on) {
                    std::vector<unsigned> who;
                    for (unsigned l = 0; l < lanes; ++l)
                        if (group & (1u << l)) who.push_back(w0 + l);
                    r.order(who);
                }
                released = true;
            }
            if (!err.empty()) break;
        }
        if (!err.empty()) break;
        if (released) continue;
        if (at_block > 0 && at_block + done == nthreads) {
            if (done > 0) {
                err = "__syncthreads reached by " + std::to_string(at_block) + " of " + std::to_string(nthreads) + " threads; the others had exited";
                break;
            }
            ++S().st.barriers;
            for (unsigned t = 0; t < nthreads; ++t) fibers[t].state = FiberState::runnable;
            r.at_block = 0;
            if (race::on) {
                std::vector<unsigned> all(nthreads);
                for (unsigned t = 0; t < nthreads; ++t) all[t] = t;
                r.order(all);
            }
            continue;
        }
        err = "deadlock: " + std::to_string(at_block) + " threads at __syncthreads, " + std::to_string(at_warp) +
              " at a warp collective that cannot complete, " + std::to_string(done) + " exited";
        break;
    }
    tl_run = saved;
    for (unsigned t = 0; t < nthreads; ++t)
        if (fibers[t].state != FiberState::done) {  // stopped by an error: abandoned where they are
            race::to(fibers[t].race);
            race::release(r.end);
#ifdef CUDA_SIM_ASAN
            __asan_unpoison_memory_region(fibers[t].stack, fiber_stack_bytes);  // their frames' scopes stay poisoned
#endif
        }
    race::to(r.sched_race);
    race::acquire(r.end);  // the block's end knows what all its threads did
    if (!r.error.empty()) err = r.error;
    if (profile) cost_requests(*profile);
    return err;
}

// ---------------------------------------------------------------- streams
void execute(cudaStream_t s, std::uint64_t upto);

// Runs fn as one unit of device work: a block of a kernel, a copy, a CUB call. Racecheck: on a
// fresh OS thread (fresh thread_local __shared__ variables and context), which knows what the
// stream knows; the stream does not learn of it before the whole operation ends, so the blocks of
// one kernel stay unordered.
void device_work(const std::function<void()>& fn) {
#ifdef CUDA_SIM_TSAN
    struct Work {
        const std::function<void()>* fn;
        const char* done;
        std::exception_ptr error;
    } w{&fn, running.done, nullptr};
    pthread_t t;
    const auto body = [](void* p) -> void* {
        auto* w = static_cast<Work*>(p);
        try {
            (*w->fn)();
        } catch (...) {
            w->error = std::current_exception();
        }
        race::release(w->done);
        return nullptr;
    };
    pthread_attr_t attr;  // a small stack: ThreadSanitizer clears the shadow of the whole stack at the start
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, std::size_t(512) << 10);
    const int started = pthread_create(&t, &attr, body, &w);
    pthread_attr_destroy(&attr);
    if (started != 0) fail_host("cannot start a thread for device work");
    AnnotateIgnoreSyncBegin(__FILE__, __LINE__);
    pthread_join(t, nullptr);
    AnnotateIgnoreSyncEnd(__FILE__, __LINE__);
    if (w.error) std::rethrow_exception(w.error);
#else
    fn();
#endif
}

// Runs op in stream s's context (the host's for the legacy default stream, s == nullptr), and
// destroys it there: what its device work read is freed after that work.
void run_op(cudaStream_t s, Op&& queued) {
    if (S().sticky != cudaSuccess) {  // a failed kernel stops the device; its memory is still released
        if (queued.frees) delete_block(static_cast<const unsigned char*>(queued.frees));
        return;
    }
    race::In in(s ? s->race : nullptr);
    const auto op = std::make_unique<const Op>(std::move(queued));  // on the heap: device work does not read the host's stack
    if (op->enqueued) race::acquire(op->enqueued.get());  // what the host had done when it enqueued op
    const auto done = std::make_unique<char>();
    const Running outer = running;
    running = Running{done.get(), s ? s->fibers.get() : &host_fibers()};
    try {
        if (op->device_work) device_work(op->run);
        else op->run();
    } catch (...) {
        running = outer;
        throw;
    }
    running = outer;
    race::acquire(done.get());
}

void execute(cudaStream_t s, std::uint64_t upto) {
    while (!s->queue.empty() && s->queue.front().first <= upto) {
        Op op = std::move(s->queue.front().second);
        s->queue.pop_front();
        run_op(s, std::move(op));
    }
}
void execute_all() {
    for (CUstream_st* s : S().streams) execute(s, UINT64_MAX);
}
// The legacy default stream waits for all work (the simulator runs it) and, racecheck, the host
// learns of the blocking streams (those created without cudaStreamNonBlocking).
void legacy_stream_wait() {
    execute_all();
    for (CUstream_st* b : S().streams)
        if (b->blocking) race::host_learns(b);
}

bool valid_stream(cudaStream_t s) { return s == nullptr || S().streams.count(s) > 0; }

void fill_garbage(void* p, std::size_t n) {
    if (S().cfg.garbage_fill && n > 0) std::memset(p, 0xA5, n);
}

}  // namespace

// ---------------------------------------------------------------- control
Config& config() { return S().cfg; }
Stats stats() { return S().st; }
void count_atomic_cas64() { ++S().st.atomic_cas64; }
void drain() { execute_all(); }
void clear_function_attributes() { S().max_dynamic_smem.clear(); }
void reset() {
    State& s = S();
    for (CUstream_st* st : s.streams) {
        for (const auto& [seq, op] : st->queue)
            if (op.frees) delete_block(static_cast<const unsigned char*>(op.frees));
        st->queue.clear();
    }
    s.sticky = cudaSuccess;
    s.last = cudaSuccess;
    s.detail.clear();
    const Stats keep = s.st;
    s.st = Stats{};
    s.st.device_bytes_live = keep.device_bytes_live;
    s.st.device_bytes_peak = keep.device_bytes_live;
    s.st.allocations_live = keep.allocations_live;
    update_pool_stats();
}
std::string last_error_detail() { return S().detail; }
bool racecheck() { return race::on; }
std::int64_t race_reports() { return race::reports.load(); }
void name_next_launch(const char* name) { S().next_name = name ? name : ""; }

unsigned char* dynamic_shared() {
    if (!tl_run) fail_host("dynamic shared memory used outside a kernel");
    return tl_run->smem;
}
void set_memory_profile(bool on) {
    Profile& p = profile_state();
    p.on = on;
    if (on) {
        p.runs.clear();
        p.sites.clear();
    }
    p.running = nullptr;
    p.running_sites = nullptr;
}
std::map<std::string, KernelAccesses> memory_profile() {
    std::map<std::string, KernelAccesses> out;
    for (const auto& [name, run] : profile_state().runs) {
        KernelAccesses& k = out[name];
        k.launches = run.first;
        k.blocks = run.second;
        for (const auto& [at, a] : profile_state().sites[name]) {
            for (AccessCounts* c : {a.shared ? (a.store ? &k.shared_store : &k.shared_load) : (a.store ? &k.global_store : &k.global_load),
                                    a.atomic && a.shared ? &k.shared_atomic : nullptr}) {
                if (!c) continue;
                c->requests += a.counts.requests;
                c->transactions += a.counts.transactions;
                c->bytes += a.counts.bytes;
                c->lanes += a.counts.lanes;
                c->ideal += a.counts.ideal;
                c->same_word += a.counts.same_word;
            }
        }
    }
    return out;
}
std::map<std::string, std::map<const void*, SiteAccesses>> memory_profile_sites() { return profile_state().sites; }
void atomic_scope(bool enter) {
    if (tl_run) tl_run->in_atomic = enter;
}
void record_access(const void* p, std::size_t bytes, bool store, const void* site) {
    static thread_local bool inside = false;  // the containers below may be the instrumented copies
    BlockRun* r = tl_run;
    if (!r || !r->profile || inside || bytes == 0) return;
    const auto* q = static_cast<const unsigned char*>(p);
    const unsigned char* base = nullptr;
    bool shared = false;
    if (q >= r->smem && q < r->smem + r->smem_bytes) {
        base = r->smem;
        shared = true;
    } else if (q >= r->static_smem && q < r->static_smem + r->static_smem_bytes) {  // a __shared__ variable
        base = r->static_smem;
        shared = true;
    } else {
        inside = true;
        const auto* a = find_allocation(p);
        inside = false;
        if (!a) return;  // the stack, kernel parameters
        base = a->first;
    }
    inside = true;
    ProfileBlock& b = *r->profile;
    b.stream[r->current].push_back(ProfileBlock::Access{site, b.epoch[r->current], shared, store, base == r->static_smem, r->in_atomic, base, static_cast<std::uint64_t>(q - base),
                                                        static_cast<std::uint32_t>(bytes)});
    inside = false;
}
void fail(const std::string& what) {
    if (!tl_run) fail_host(what);
    if (tl_run->error.empty()) tl_run->error = "thread " + std::to_string(tl_run->current) + ": " + what;
    throw FiberAbort{};  // unwinds this thread's frames; the block stops at the error
}
void opaque_use(const void*) {}
void fail_host(const std::string& what) { throw std::logic_error("cuda_sim: " + what); }

void block_barrier() {
    if (!tl_run) fail_host("__syncthreads outside a kernel");
    if (tl_run->profile) ++tl_run->profile->epoch[tl_run->current];
    yield(FiberState::block_barrier);
}
namespace {
[[gnu::always_inline]] inline void warp_wait(unsigned mask) {
    if (!tl_run) fail_host("warp collective outside a kernel");
    ++S().st.warp_collectives;
    if (tl_run->profile) ++tl_run->profile->epoch[tl_run->current];
    (*tl_run->fibers)[tl_run->current].warp_mask = mask;
    yield(FiberState::warp_barrier);
}
}  // namespace
void warp_barrier(unsigned mask) { warp_wait(mask); }
const std::uint64_t* warp_exchange(unsigned mask, std::uint64_t mine) {
    if (!tl_run) fail_host("warp collective outside a kernel");
    tl_run->warp_slots[tl_run->current] = mine;
    warp_wait(mask);
    return tl_run->warp_results.data() + tl_run->current / 32 * 32;  // (current: this thread again)
}

bool is_device_pointer(const void* p) { return p == nullptr || find_allocation(p, true) != nullptr; }
std::int64_t device_bytes_from(const void* p) {
    const auto* a = find_allocation(p);
    if (!a) return -1;
    return static_cast<std::int64_t>(a->first + a->second - static_cast<const unsigned char*>(p));
}

// A call the simulator cannot record in a capture: it fails and invalidates the capture, as on a GPU.
static cudaError_t refuse_capture(cudaStream_t s, const std::string& what) {
    s->capture = CUstream_st::Capture::invalidated;
    return set_error(cudaErrorStreamCaptureUnsupported, what + ": not allowed (or not simulated) while the stream is being captured");
}
static bool capturing(cudaStream_t s) { return s != nullptr && S().streams.count(s) && s->capture != CUstream_st::Capture::none; }

cudaError_t enqueue(cudaStream_t s, Op op) {
    CUDA_SIM_STICKY();
    if (!valid_stream(s)) return set_error(cudaErrorInvalidResourceHandle, op.what + ": unknown stream");
    for (const void* p : op.uses)
        if (!is_device_pointer(p)) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "%p", p);
            return set_error(cudaErrorInvalidDevicePointer, op.what + ": argument " + buf + " is not device memory");
        }
    for (const void* p : op.uses)
        if (const auto* a = find_allocation(p, true); a && p != op.frees && S().alloc_info[a->first].free_queued)
            return set_sticky(op.what + " uses a buffer after its cudaFreeAsync was enqueued");
    if (s != nullptr && s->capture != CUstream_st::Capture::none) {
        if (s->capture == CUstream_st::Capture::invalidated) return set_error(cudaErrorStreamCaptureInvalidated, op.what + ": the capture was invalidated");
        if (op.frees) return refuse_capture(s, op.what + " (stream-ordered free)");
        auto node = std::make_shared<Op>();
        node->what = op.what;
        node->uses = op.uses;
        node->run = op.run;
        node->device_work = op.device_work;
        s->captured.push_back(std::move(node));
        return cudaSuccess;
    }
    ++S().st.stream_ops;
    ++S().st.stream_ops_by_call[op.what.rfind("cuda", 0) == 0 ? op.what : "launch"];
    if (S().cfg.trace) std::fprintf(stderr, "cuda_sim: op %lld %s\n", static_cast<long long>(S().st.stream_ops), op.what.c_str());
    if (s == nullptr) {  // the legacy default stream runs at once
        legacy_stream_wait();
        run_op(nullptr, std::move(op));
        return S().sticky;
    }
    op.enqueued = std::make_unique<char>();
    race::release(op.enqueued.get());
    s->queue.emplace_back(s->next_seq++, std::move(op));
    return cudaSuccess;
}

cudaError_t launch(const cudaLaunchConfig_t* cfg, Launch l, std::vector<const void*> pointer_args) {
    State& s = S();
    CUDA_SIM_STICKY();
    const std::string kernel = s.next_name.empty() ? "kernel" : s.next_name;
    std::string name = kernel;
    s.next_name.clear();
    const std::uint64_t id = ++s.launch_count;
    name += " (launch " + std::to_string(id) + ")";
    const dim3 g = l.grid, b = l.block;
    const std::uint64_t threads = std::uint64_t(b.x) * b.y * b.z;
    if (threads == 0 || threads > 1024 || b.x > 1024 || b.y > 1024 || b.z > 64 || g.x == 0 || g.y == 0 || g.z == 0 || g.x > 2147483647u ||
        g.y > 65535 || g.z > 65535)
        return set_error(cudaErrorInvalidConfiguration, name + ": grid (" + std::to_string(g.x) + "," + std::to_string(g.y) + "," + std::to_string(g.z) +
                                                            ") block (" + std::to_string(b.x) + "," + std::to_string(b.y) + "," + std::to_string(b.z) + ")");
    const auto it = s.max_dynamic_smem.find(l.kernel);
    const std::size_t smem_limit = it != s.max_dynamic_smem.end() ? static_cast<std::size_t>(it->second) : 49152 - s.cfg.static_shared_bytes;
    if (l.smem > smem_limit)
        return set_error(cudaErrorInvalidValue, name + ": " + std::to_string(l.smem) + " bytes of dynamic shared memory above the function's limit of " +
                                                    std::to_string(smem_limit));
    Op op;
    op.what = name;
    op.uses = std::move(pointer_args);
    auto launch_state = std::make_shared<Launch>(std::move(l));
    op.device_work = false;  // each block is a unit of device work
    op.run = [launch_state, name, kernel, id] {
        const Launch& L = *launch_state;
        State& st = S();
        ++st.st.launches;
        ++st.st.kernels[kernel];
        if (profile_on()) {
            profile_state().running = &profile_state().runs[kernel];
            profile_state().running_sites = &profile_state().sites[kernel];
            ++profile_state().running->first;
        }
        const unsigned n = L.block.x * L.block.y * L.block.z;
        for (unsigned z = 0; z < L.grid.z; ++z)
            for (unsigned y = 0; y < L.grid.y; ++y)
                for (unsigned x = 0; x < L.grid.x; ++x) {
                    ++st.st.blocks;
                    ++st.st.kernel_blocks[kernel];
                    st.st.threads += n;
                    std::string err;
                    device_work([&] {
                        gridDim = L.grid;
                        blockDim = L.block;
                        blockIdx = dim3(x, y, z);
                        std::unique_ptr<unsigned char[]> smem(new unsigned char[std::max<std::size_t>(L.smem, 1)]);
                        fill_garbage(smem.get(), L.smem);
                        const std::uint64_t block = x + std::uint64_t(L.grid.x) * (y + std::uint64_t(L.grid.y) * z);
                        err = run_block(n, L.body, smem.get(), L.smem, st.cfg.seed + id * 0x9E3779B97F4A7C15ull + block);
                        if (!err.empty()) err = block_name() + ", " + err;
                    });
                    if (!err.empty()) {
                        set_sticky(name + ", " + err);
                        return;
                    }
                }
    };
    return enqueue(cfg->stream, std::move(op));
}

}  // namespace cuda_sim

using namespace cuda_sim;

#ifdef CUDA_SIM_TSAN
// ThreadSanitizer calls this for each report it prints (a weak hook in its runtime).
namespace __tsan {
struct ReportDesc;
bool OnReport(const ReportDesc*, bool suppressed) {
    if (!suppressed) cuda_sim::race::reports.fetch_add(1);
    return suppressed;
}
}  // namespace __tsan
#endif

// ---------------------------------------------------------------- runtime API
cudaError_t cudaSetDevice(int device) {
    CUDA_SIM_STICKY();
    return device == 0 ? cudaSuccess : set_error(cudaErrorInvalidDevice, "cudaSetDevice(" + std::to_string(device) + "): the simulator has device 0");
}
cudaError_t cudaGetDevice(int* device) {
    CUDA_SIM_STICKY();
    *device = 0;
    return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
    CUDA_SIM_STICKY();
    if (device != 0) return set_error(cudaErrorInvalidDevice, "cudaDeviceGetAttribute: no such device");
    const Config& c = S().cfg;
    switch (attr) {
        case cudaDevAttrMultiProcessorCount: *value = c.sm_count; return cudaSuccess;
        case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = static_cast<int>(c.shared_optin); return cudaSuccess;
        // as on sm_80/sm_90: the SM holds one opt-in block and the runtime's 1 KiB reserve
        case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = static_cast<int>(c.shared_optin) + 1024; return cudaSuccess;
        case cudaDevAttrReservedSharedMemoryPerBlock: *value = 1024; return cudaSuccess;
        case cudaDevAttrMemoryPoolsSupported: *value = c.memory_pools ? 1 : 0; return cudaSuccess;
    }
    return set_error(cudaErrorInvalidValue, "cudaDeviceGetAttribute: attribute not simulated");
}
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int device) {
    CUDA_SIM_STICKY();
    if (device != 0) return set_error(cudaErrorInvalidDevice, "cudaGetDeviceProperties: no such device");
    *p = cudaDeviceProp{};
    std::snprintf(p->name, sizeof p->name, "gigasparse CUDA simulator (CPU)");
    const Config& c = S().cfg;
    p->totalGlobalMem = c.device_memory;
    p->sharedMemPerBlock = 49152;
    p->sharedMemPerBlockOptin = c.shared_optin;
    p->sharedMemPerMultiprocessor = c.shared_optin + 1024;
    p->regsPerBlock = 65536;
    p->warpSize = 32;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = p->maxThreadsDim[1] = 1024;
    p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 2147483647;
    p->maxGridSize[1] = p->maxGridSize[2] = 65535;
    p->multiProcessorCount = c.sm_count;
    p->major = 9;
    p->minor = 0;
    p->memoryBusWidth = 6144;
    p->l2CacheSize = 50 << 20;
    return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize() {
    CUDA_SIM_STICKY();
    ++S().st.host_waits;
    if (S().cfg.trace) std::fprintf(stderr, "cuda_sim: host wait (cudaDeviceSynchronize)\n");
    execute_all();
    for (CUstream_st* s : S().streams) race::host_learns(s);
    release_pools();
    return S().sticky;
}

cudaError_t cudaMalloc(void** p, std::size_t bytes) {
    CUDA_SIM_STICKY();
    State& s = S();
    *p = nullptr;
    ++s.st.malloc_calls;
    if (bytes == 0) return cudaSuccess;
    if (static_cast<std::int64_t>(bytes) > static_cast<std::int64_t>(s.cfg.device_memory) - capacity_used())
        return set_error(cudaErrorMemoryAllocation, "cudaMalloc(" + std::to_string(bytes) + "): " + std::to_string(capacity_used()) + " of " +
                                                        std::to_string(s.cfg.device_memory) + " bytes in use");
    void* m = new_block(bytes, nullptr);
    if (!m) return set_error(cudaErrorMemoryAllocation, "cudaMalloc: host allocation failed");
    fill_garbage(m, bytes);
    s.malloc_bytes += static_cast<std::int64_t>(bytes);
    *p = m;
    return cudaSuccess;
}

cudaError_t cudaFree(void* p) {
    State& s = S();
    ++s.st.free_calls;
    if (!p) return cudaSuccess;
    const auto* base = static_cast<const unsigned char*>(p);
    const auto it = s.allocations.find(base);
    if (it == s.allocations.end()) return set_error(cudaErrorInvalidDevicePointer, "cudaFree of a pointer that is not the start of a device allocation");
    if (s.alloc_info[base].free_queued) return set_error(cudaErrorInvalidDevicePointer, "cudaFree of a buffer whose cudaFreeAsync is already enqueued");
    // queued work that still uses the buffer: on a GPU it would read freed memory
    if (const std::string user = queued_user(base); !user.empty())
        return set_sticky("cudaFree of a buffer that queued work still uses: " + user);
    for (CUstream_st* st : s.streams) race::host_learns(st);  // cudaFree waits for the device
    delete_block(base);
    update_pool_stats();
    return s.sticky;
}

cudaError_t cudaMemGetInfo(std::size_t* free_bytes, std::size_t* total_bytes) {
    CUDA_SIM_STICKY();
    State& s = S();
    ++s.st.mem_info_calls;
    *total_bytes = s.cfg.device_memory;
    *free_bytes = static_cast<std::size_t>(std::max<std::int64_t>(0, static_cast<std::int64_t>(s.cfg.device_memory) - capacity_used()));
    return cudaSuccess;
}

// ---------------------------------------------------------------- memory pools
cudaError_t cudaMemPoolCreate(cudaMemPool_t* pool, const cudaMemPoolProps* props) {
    CUDA_SIM_STICKY();
    if (!S().cfg.memory_pools) return set_error(cudaErrorNotSupported, "cudaMemPoolCreate: this device has no memory pools (Config::memory_pools)");
    if (!props || props->allocType != cudaMemAllocationTypePinned || props->location.type != cudaMemLocationTypeDevice || props->location.id != 0 ||
        props->handleTypes != cudaMemHandleTypeNone)
        return set_error(cudaErrorInvalidValue, "cudaMemPoolCreate: pinned device memory of device 0 without export handles is what is simulated");
    *pool = new CUmemPoolHandle_st;
    S().pools.insert(*pool);
    return cudaSuccess;
}
cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool) {
    if (!S().pools.count(pool)) return set_error(cudaErrorInvalidValue, "cudaMemPoolDestroy: unknown pool");
    if (pool->used > 0) return set_error(cudaErrorInvalidValue, "cudaMemPoolDestroy: allocations from the pool are still live");
    S().pools.erase(pool);
    delete pool;
    update_pool_stats();
    return cudaSuccess;
}
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value) {
    CUDA_SIM_STICKY();
    if (!S().pools.count(pool) || !value) return set_error(cudaErrorInvalidValue, "cudaMemPoolSetAttribute: unknown pool or no value");
    switch (attr) {
        case cudaMemPoolAttrReleaseThreshold: pool->release_threshold = *static_cast<std::uint64_t*>(value); return cudaSuccess;
        case cudaMemPoolReuseFollowEventDependencies:
        case cudaMemPoolReuseAllowOpportunistic:
        case cudaMemPoolReuseAllowInternalDependencies: return cudaSuccess;  // reuse is not simulated: every allocation is fresh
        default: return set_error(cudaErrorInvalidValue, "cudaMemPoolSetAttribute: read-only attribute " + std::to_string(attr));
    }
}
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value) {
    CUDA_SIM_STICKY();
    if (!S().pools.count(pool) || !value) return set_error(cudaErrorInvalidValue, "cudaMemPoolGetAttribute: unknown pool or no value");
    auto* v = static_cast<std::uint64_t*>(value);
    switch (attr) {
        case cudaMemPoolAttrReleaseThreshold: *v = pool->release_threshold; return cudaSuccess;
        case cudaMemPoolAttrReservedMemCurrent: *v = static_cast<std::uint64_t>(pool->reserved); return cudaSuccess;
        case cudaMemPoolAttrReservedMemHigh: *v = static_cast<std::uint64_t>(pool->reserved_high); return cudaSuccess;
        case cudaMemPoolAttrUsedMemCurrent: *v = static_cast<std::uint64_t>(pool->used); return cudaSuccess;
        case cudaMemPoolAttrUsedMemHigh: *v = static_cast<std::uint64_t>(pool->used_high); return cudaSuccess;
        default: *static_cast<int*>(value) = 1; return cudaSuccess;  // the reuse flags: on
    }
}
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, std::size_t keep) {
    CUDA_SIM_STICKY();
    if (!S().pools.count(pool)) return set_error(cudaErrorInvalidValue, "cudaMemPoolTrimTo: unknown pool");
    pool->reserved = std::max(pool->used, std::min(pool->reserved, static_cast<std::int64_t>(std::min<std::size_t>(keep, INT64_MAX))));
    update_pool_stats();
    return cudaSuccess;
}
// The pointer is returned at once; the allocation's garbage fill is device work of stream s, so
// only work ordered after it on s (or through an event) sees the memory as allocated.
cudaError_t cudaMallocFromPoolAsync(void** p, std::size_t bytes, cudaMemPool_t pool, cudaStream_t s) {
    CUDA_SIM_STICKY();
    State& st = S();
    *p = nullptr;
    ++st.st.pool_allocs;
    if (!st.pools.count(pool)) return set_error(cudaErrorInvalidValue, "cudaMallocFromPoolAsync: unknown pool");
    if (!valid_stream(s)) return set_error(cudaErrorInvalidResourceHandle, "cudaMallocFromPoolAsync: unknown stream");
    if (capturing(s)) return refuse_capture(s, "cudaMallocFromPoolAsync");
    if (bytes == 0) return cudaSuccess;
    const auto b = static_cast<std::int64_t>(bytes);
    const std::int64_t grow = std::max<std::int64_t>(0, pool->used + b - pool->reserved);
    if (grow > static_cast<std::int64_t>(st.cfg.device_memory) - capacity_used())
        return set_error(cudaErrorMemoryAllocation, "cudaMallocFromPoolAsync(" + std::to_string(bytes) + "): " + std::to_string(capacity_used()) +
                                                        " of " + std::to_string(st.cfg.device_memory) + " bytes in use or reserved, " +
                                                        std::to_string(pool->reserved - pool->used) + " free in the pool");
    void* m = new_block(bytes, pool);
    if (!m) return set_error(cudaErrorMemoryAllocation, "cudaMallocFromPoolAsync: host allocation failed");
    pool->used += b;
    pool->reserved += grow;
    pool->used_high = std::max(pool->used_high, pool->used);
    pool->reserved_high = std::max(pool->reserved_high, pool->reserved);
    update_pool_stats();
    Op op;
    op.what = "cudaMallocFromPoolAsync";
    op.uses.push_back(m);
    op.run = [m, bytes] { fill_garbage(m, bytes); };
    *p = m;
    return enqueue(s, std::move(op));
}
// Queued on s: when s reaches it, work still queued on another stream that uses the buffer is not
// ordered before the free (an error); work enqueued after it that uses the buffer is refused.
cudaError_t cudaFreeAsync(void* p, cudaStream_t s) {
    State& st = S();
    if (!p) return cudaSuccess;
    const auto* base = static_cast<const unsigned char*>(p);
    const bool live = st.allocations.count(base) > 0;
    if (st.sticky != cudaSuccess) {  // the device is lost: what it held is released at once
        if (live && st.alloc_info[base].pool && !st.alloc_info[base].free_queued) {
            delete_block(base);
            update_pool_stats();
        }
        return st.sticky;
    }
    if (!live) return set_error(cudaErrorInvalidDevicePointer, "cudaFreeAsync of a pointer that is not the start of a device allocation");
    const State::AllocInfo& info = st.alloc_info[base];
    if (!info.pool) return set_error(cudaErrorInvalidDevicePointer, "cudaFreeAsync of a cudaMalloc allocation (free it with cudaFree)");
    if (info.free_queued) return set_error(cudaErrorInvalidDevicePointer, "cudaFreeAsync of a buffer whose cudaFreeAsync is already enqueued");
    if (!valid_stream(s)) return set_error(cudaErrorInvalidResourceHandle, "cudaFreeAsync: unknown stream");
    Op op;
    op.what = "cudaFreeAsync";
    op.uses.push_back(p);
    op.frees = p;
    op.device_work = false;  // the bookkeeping runs in the stream's context; the free itself is device work
    op.run = [base] {
        const auto it = S().allocations.find(base);
        if (it == S().allocations.end()) return;
        if (const std::string user = queued_user(base); !user.empty())
            set_sticky("cudaFreeAsync reached while work queued on another stream, not ordered before it, still uses the buffer: " + user);
        forget_block(base);
        update_pool_stats();
        // racecheck: a write of the whole buffer in the stream's order (races with unordered uses)
        device_work([base] { std::free(const_cast<unsigned char*>(base)); });
    };
    const cudaError_t e = enqueue(s, std::move(op));
    if (e == cudaSuccess && st.allocations.count(base)) st.alloc_info[base].free_queued = true;
    return e;
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, cudaStream_t s) {
    CUDA_SIM_STICKY();
    if (bytes == 0) return cudaSuccess;
    const bool dst_dev = find_allocation(dst) != nullptr, src_dev = find_allocation(src) != nullptr;
    const bool want_dst_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    const bool want_src_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    if (kind != cudaMemcpyDefault && kind != cudaMemcpyHostToHost && (dst_dev != want_dst_dev || src_dev != want_src_dev))
        return set_error(cudaErrorInvalidValue, "cudaMemcpyAsync: pointers do not match the direction " + std::to_string(kind));
    if (dst_dev && device_bytes_from(dst) < static_cast<std::int64_t>(bytes))
        return set_error(cudaErrorInvalidValue, "cudaMemcpyAsync: " + std::to_string(bytes) + " bytes past the end of the destination allocation");
    if (src_dev && device_bytes_from(src) < static_cast<std::int64_t>(bytes))
        return set_error(cudaErrorInvalidValue, "cudaMemcpyAsync: " + std::to_string(bytes) + " bytes past the end of the source allocation");
    if (capturing(s) && (!dst_dev || !src_dev)) return refuse_capture(s, "cudaMemcpyAsync with host memory");
    Op op;
    op.what = "cudaMemcpyAsync";
    if (dst_dev) op.uses.push_back(dst);
    if (src_dev) {
        op.uses.push_back(src);
        op.run = [dst, src, bytes] { std::memcpy(dst, src, bytes); };
    } else {  // pageable host source: consumed when the call returns
        auto copy = std::make_shared<std::vector<unsigned char>>(static_cast<const unsigned char*>(src), static_cast<const unsigned char*>(src) + bytes);
        op.run = [dst, copy] { std::memcpy(dst, copy->data(), copy->size()); };
    }
    return enqueue(s, std::move(op));
}
cudaError_t cudaMemcpy2DAsync(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width, std::size_t height,
                              cudaMemcpyKind kind, cudaStream_t s) {
    CUDA_SIM_STICKY();
    if (width == 0 || height == 0) return cudaSuccess;
    if (width > dpitch || width > spitch) return set_error(cudaErrorInvalidPitchValue, "cudaMemcpy2DAsync: width above a pitch");
    const bool dst_dev = find_allocation(dst) != nullptr, src_dev = find_allocation(src) != nullptr;
    const bool want_dst_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    const bool want_src_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    if (kind != cudaMemcpyDefault && kind != cudaMemcpyHostToHost && (dst_dev != want_dst_dev || src_dev != want_src_dev))
        return set_error(cudaErrorInvalidValue, "cudaMemcpy2DAsync: pointers do not match the direction " + std::to_string(kind));
    const auto extent = [&](std::size_t pitch) { return static_cast<std::int64_t>((height - 1) * pitch + width); };
    if (dst_dev && device_bytes_from(dst) < extent(dpitch))
        return set_error(cudaErrorInvalidValue, "cudaMemcpy2DAsync: rows past the end of the destination allocation");
    if (src_dev && device_bytes_from(src) < extent(spitch))
        return set_error(cudaErrorInvalidValue, "cudaMemcpy2DAsync: rows past the end of the source allocation");
    if (capturing(s) && (!dst_dev || !src_dev)) return refuse_capture(s, "cudaMemcpy2DAsync with host memory");
    Op op;
    op.what = "cudaMemcpy2DAsync";
    if (dst_dev) op.uses.push_back(dst);
    auto* d = static_cast<unsigned char*>(dst);
    if (src_dev) {
        op.uses.push_back(src);
        const auto* sp = static_cast<const unsigned char*>(src);
        op.run = [d, dpitch, sp, spitch, width, height] {
            for (std::size_t r = 0; r < height; ++r) std::memcpy(d + r * dpitch, sp + r * spitch, width);
        };
    } else {  // pageable host source: consumed when the call returns
        auto copy = std::make_shared<std::vector<unsigned char>>(width * height);
        for (std::size_t r = 0; r < height; ++r) std::memcpy(copy->data() + r * width, static_cast<const unsigned char*>(src) + r * spitch, width);
        op.run = [d, dpitch, copy, width, height] {
            for (std::size_t r = 0; r < height; ++r) std::memcpy(d + r * dpitch, copy->data() + r * width, width);
        };
    }
    return enqueue(s, std::move(op));
}
cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
    ++S().st.host_waits;
    if (S().cfg.trace) std::fprintf(stderr, "cuda_sim: host wait (cudaMemcpy)\n");
    return cudaMemcpyAsync(dst, src, bytes, kind, nullptr);  // the default stream runs at once
}
cudaError_t cudaMemsetAsync(void* p, int value, std::size_t bytes, cudaStream_t s) {
    CUDA_SIM_STICKY();
    if (bytes == 0) return cudaSuccess;
    if (device_bytes_from(p) < static_cast<std::int64_t>(bytes))
        return set_error(cudaErrorInvalidValue, "cudaMemsetAsync: " + std::to_string(bytes) + " bytes not inside one device allocation");
    Op op;
    op.what = "cudaMemsetAsync";
    op.uses.push_back(p);
    op.run = [p, value, bytes] { std::memset(p, value, bytes); };
    return enqueue(s, std::move(op));
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned flags) {
    CUDA_SIM_STICKY();
    *s = new CUstream_st;
    (*s)->fibers = std::make_unique<FiberPool>();
    (*s)->blocking = (flags & cudaStreamNonBlocking) == 0;
    (*s)->race = race::create_stream_context();
    S().streams.insert(*s);
    ++S().st.streams_created;
    return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t s) {
    if (!s || !S().streams.count(s)) return set_error(cudaErrorInvalidResourceHandle, "cudaStreamDestroy: unknown stream");
    execute(s, UINT64_MAX);  // the stream's work still completes
    S().streams.erase(s);
    race::destroy_stream_context(s->race);
    delete s;
    return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t s) {
    CUDA_SIM_STICKY();
    if (!valid_stream(s)) return set_error(cudaErrorInvalidResourceHandle, "cudaStreamSynchronize: unknown stream");
    if (capturing(s)) return refuse_capture(s, "cudaStreamSynchronize");
    ++S().st.host_waits;
    if (S().cfg.trace) std::fprintf(stderr, "cuda_sim: host wait (cudaStreamSynchronize)\n");
    if (s == nullptr) {
        legacy_stream_wait();
    } else {
        execute(s, UINT64_MAX);
        race::host_learns(s);
    }
    release_pools();
    return S().sticky;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned) {
    CUDA_SIM_STICKY();
    if (!S().events.count(e)) return set_error(cudaErrorInvalidResourceHandle, "cudaStreamWaitEvent: unknown event");
    if (capturing(s)) return refuse_capture(s, "cudaStreamWaitEvent");
    CUstream_st* es = e->stream;
    const std::uint64_t seq = e->seq;
    if (!es) return cudaSuccess;  // never recorded: nothing to wait for
    Op op;
    op.what = "cudaStreamWaitEvent";
    op.device_work = false;
    op.run = [es, seq, recorded = e->recorded] {
        if (S().streams.count(es)) execute(es, seq);
        if (recorded) race::acquire(recorded.get());  // in s's context: what es had done at the record
    };
    return enqueue(s, std::move(op));
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned flags) {
    CUDA_SIM_STICKY();
    if ((flags & ~cudaEventDisableTiming) != 0) return set_error(cudaErrorInvalidValue, "cudaEventCreateWithFlags: flags not simulated");
    *e = new CUevent_st;
    (*e)->timing = (flags & cudaEventDisableTiming) == 0;
    S().events.insert(*e);
    ++S().st.events_created;
    return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t* e) { return cudaEventCreateWithFlags(e, cudaEventDefault); }
cudaError_t cudaEventDestroy(cudaEvent_t e) {
    if (!S().events.erase(e)) return set_error(cudaErrorInvalidResourceHandle, "cudaEventDestroy: unknown event");
    if (e->stream && S().streams.count(e->stream)) execute(e->stream, e->seq);  // its queued record completes first
    delete e;
    return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
    CUDA_SIM_STICKY();
    if (!S().events.count(e)) return set_error(cudaErrorInvalidResourceHandle, "cudaEventRecord: unknown event");
    if (!valid_stream(s)) return set_error(cudaErrorInvalidResourceHandle, "cudaEventRecord: unknown stream");
    if (capturing(s)) return refuse_capture(s, "cudaEventRecord");
    e->complete = false;
    if (s == nullptr) {
        execute_all();
        e->stream = nullptr;
        e->complete = true;
        e->time_ms = now_ms();
        return cudaSuccess;
    }
    e->stream = s;
    e->seq = s->next_seq;
    e->recorded = std::make_shared<char>();
    Op op;
    op.what = "cudaEventRecord";
    op.device_work = false;
    op.run = [e, recorded = e->recorded] {
        e->complete = true;
        e->time_ms = now_ms();
        race::release(recorded.get());  // in s's context
    };
    return enqueue(s, std::move(op));
}
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t stop) {
    CUDA_SIM_STICKY();
    if (!S().events.count(start) || !S().events.count(stop)) return set_error(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: unknown event");
    if (!start->timing || !stop->timing) return set_error(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: an event created with cudaEventDisableTiming");
    if (!start->complete || !stop->complete) return set_error(cudaErrorNotReady, "cudaEventElapsedTime: an event has not completed (no wait before reading it)");
    *ms = static_cast<float>(stop->time_ms - start->time_ms);
    return cudaSuccess;
}

cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode) {
    CUDA_SIM_STICKY();
    if (s == nullptr) return set_error(cudaErrorStreamCaptureUnsupported, "cudaStreamBeginCapture: the legacy default stream cannot be captured");
    if (!valid_stream(s)) return set_error(cudaErrorInvalidResourceHandle, "cudaStreamBeginCapture: unknown stream");
    if (s->capture != CUstream_st::Capture::none) return set_error(cudaErrorStreamCaptureUnsupported, "cudaStreamBeginCapture: already capturing");
    if (!S().cfg.stream_capture) return set_error(cudaErrorNotSupported, "cudaStreamBeginCapture: refused (Config::stream_capture is false)");
    s->capture = CUstream_st::Capture::active;
    s->captured.clear();
    return cudaSuccess;
}
cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t* graph) {
    CUDA_SIM_STICKY();
    *graph = nullptr;
    if (!capturing(s)) return set_error(cudaErrorStreamCaptureUnmatched, "cudaStreamEndCapture: the stream is not being captured");
    const bool ok = s->capture == CUstream_st::Capture::active;
    s->capture = CUstream_st::Capture::none;
    auto nodes = std::move(s->captured);
    s->captured.clear();
    if (!ok) return set_error(cudaErrorStreamCaptureInvalidated, "cudaStreamEndCapture: the capture was invalidated");
    *graph = new CUgraph_st{std::move(nodes)};
    S().graphs.insert(*graph);
    ++S().st.captures;
    return cudaSuccess;
}
cudaError_t cudaStreamIsCapturing(cudaStream_t s, cudaStreamCaptureStatus* status) {
    CUDA_SIM_STICKY();
    if (!valid_stream(s)) return set_error(cudaErrorInvalidResourceHandle, "cudaStreamIsCapturing: unknown stream");
    *status = !capturing(s) ? cudaStreamCaptureStatusNone
              : s->capture == CUstream_st::Capture::active ? cudaStreamCaptureStatusActive
                                                            : cudaStreamCaptureStatusInvalidated;
    return cudaSuccess;
}
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long) {
    CUDA_SIM_STICKY();
    if (!S().graphs.count(graph)) return set_error(cudaErrorInvalidValue, "cudaGraphInstantiate: unknown graph");
    *exec = new CUgraphExec_st{graph->nodes};
    S().graph_execs.insert(*exec);
    return cudaSuccess;
}
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t s) {
    CUDA_SIM_STICKY();
    if (!S().graph_execs.count(exec)) return set_error(cudaErrorInvalidValue, "cudaGraphLaunch: unknown executable graph");
    if (capturing(s)) return refuse_capture(s, "cudaGraphLaunch");
    ++S().st.graph_launches;
    for (const auto& node : exec->nodes) {
        Op op;
        op.what = node->what + " (graph)";
        op.uses = node->uses;
        op.run = node->run;
        op.device_work = node->device_work;
        if (const cudaError_t e = enqueue(s, std::move(op)); e != cudaSuccess) return e;
    }
    return cudaSuccess;
}
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
    if (!S().graph_execs.erase(exec)) return set_error(cudaErrorInvalidValue, "cudaGraphExecDestroy: unknown executable graph");
    delete exec;
    return cudaSuccess;
}
cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
    if (!S().graphs.erase(graph)) return set_error(cudaErrorInvalidValue, "cudaGraphDestroy: unknown graph");
    delete graph;
    return cudaSuccess;
}

cudaError_t cudaGetLastError() {
    State& s = S();
    const cudaError_t e = s.sticky != cudaSuccess ? s.sticky : s.last;
    s.last = cudaSuccess;
    return e;
}
cudaError_t cudaPeekAtLastError() { return S().sticky != cudaSuccess ? S().sticky : S().last; }

const char* cudaGetErrorName(cudaError_t e) {
    switch (e) {
        case cudaSuccess: return "cudaSuccess";
        case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
        case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
        case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
        case cudaErrorInvalidPitchValue: return "cudaErrorInvalidPitchValue";
        case cudaErrorInvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
        case cudaErrorInvalidMemcpyDirection: return "cudaErrorInvalidMemcpyDirection";
        case cudaErrorInvalidDeviceFunction: return "cudaErrorInvalidDeviceFunction";
        case cudaErrorNoDevice: return "cudaErrorNoDevice";
        case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
        case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
        case cudaErrorNotReady: return "cudaErrorNotReady";
        case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
        case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
        case cudaErrorNotSupported: return "cudaErrorNotSupported";
        case cudaErrorStreamCaptureUnsupported: return "cudaErrorStreamCaptureUnsupported";
        case cudaErrorStreamCaptureInvalidated: return "cudaErrorStreamCaptureInvalidated";
        case cudaErrorStreamCaptureUnmatched: return "cudaErrorStreamCaptureUnmatched";
    }
    return "cudaErrorUnknown";
}
// The simulator's detail of the last failure (what a compute-sanitizer report would say).
const char* cudaGetErrorString(cudaError_t e) {
    thread_local std::string text;
    text = std::string(e == cudaSuccess ? "no error" : "simulated failure") + (S().detail.empty() || e == cudaSuccess ? "" : ": " + S().detail);
    return text.c_str();
}

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* a, const void* func) {
    CUDA_SIM_STICKY();
    ++S().st.func_attribute_calls;
    *a = cudaFuncAttributes{};
    a->sharedSizeBytes = S().cfg.static_shared_bytes;
    a->maxThreadsPerBlock = 1024;
    const auto it = S().max_dynamic_smem.find(func);
    a->maxDynamicSharedSizeBytes = it != S().max_dynamic_smem.end() ? it->second : static_cast<int>(49152 - S().cfg.static_shared_bytes);
    return cudaSuccess;
}
cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr, int value) {
    CUDA_SIM_STICKY();
    ++S().st.func_attribute_calls;
    if (attr != cudaFuncAttributeMaxDynamicSharedMemorySize) return set_error(cudaErrorInvalidValue, "cudaFuncSetAttribute: attribute not simulated");
    if (value < 0 || static_cast<std::size_t>(value) + S().cfg.static_shared_bytes > S().cfg.shared_optin)
        return set_error(cudaErrorInvalidValue, "cudaFuncSetAttribute: " + std::to_string(value) + " bytes of dynamic shared memory + " +
                                                    std::to_string(S().cfg.static_shared_bytes) + " static exceed the opt-in maximum " +
                                                    std::to_string(S().cfg.shared_optin));
    S().max_dynamic_smem[func] = value;
    return cudaSuccess;
}
