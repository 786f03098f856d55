// tests/cuda_sim/memory_profile.cpp: how gMAGNUS's kernels use memory, counted on the CPU simulator.
// This file is compiled with every load and store reported (GCC's kernel AddressSanitizer
// instrumentation turned into calls of cuda_sim::record_access by memory_profile_hooks.cpp), so each
// product below gives, per kernel, its warp requests to global memory and the 32-byte sectors they
// touch (coalescing), and its requests to shared memory (dynamic, and __shared__ variables) and
// their wavefronts (bank conflicts) — what Nsight Compute's memory tables report on a GPU, here without one. Each case
// prints its table and checks the accesses the design claims coalesced or conflict-free.
// Lanes are aligned as a converged warp issues their accesses (cuda_sim's cost_requests: a loop's
// unconditional accesses anchor its conditional ones). Approximate where the GPU differs: g++'s
// code, not nvcc's (loads merged or split differently; vectorization is off), divergent paths
// without such an anchor paired by execution count, L1/L2 hits not modelled (a sector is a
// request's cost, not a DRAM transfer), atomics counted as accesses.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/cuda/spgemm.hpp>
#include <gigasparse/cuda/spgemm_plan.hpp>
#include <gigasparse/reference/kernels.hpp>

#include "cuda/gpu_test_support.hpp"
#include "cuda_sim/runtime.hpp"
#include "spgemm/cuda/device_matrix.cuh"
#include "spgemm/cuda/gmagnus_dispatch.cuh"
#include "spgemm/cuda/plan.cuh"
#include "spgemm_cuda_host/power_law.hpp"
#include "utils/test_utils.hpp"

namespace gs = gigasparse;
using gs::cuda::GpuSpgemmOptions;
using gs::cuda::GpuSpgemmStats;

namespace {

// The kernels' profile of A·B with options o (checked against the reference).
template <class V, class I>
std::map<std::string, cuda_sim::KernelAccesses> profile(const gs::Csr<V, I>& a, const gs::Csr<V, I>& b, const GpuSpgemmOptions& o,
                                                        GpuSpgemmStats* st) {
    const SimulatedRunChecks checks;
    cuda_sim::set_memory_profile(true);
    const auto c = gs::cuda::gmagnus::multiply(a.view(), b.view(), o, st);
    cuda_sim::set_memory_profile(false);
    checks.expect_clean("a profiled product");
    const double tol = std::is_same_v<V, float> ? 1e-4 : 1e-10;
    EXPECT_TRUE(gs::test::csr_near(gs::reference::spgemm(a.view(), b.view()).view(), c.view(), tol));
    return cuda_sim::memory_profile();
}

// Sectors (global) or wavefronts (shared) a request, and how well they were used: global, the
// bytes the lanes asked for over the sectors' bytes (Nsight Compute's sector utilization: a store
// of one float takes a whole sector, 0.125); shared, the fewest wavefronts the bytes needed over
// those taken (1: free of bank conflicts).
double per_request(const cuda_sim::AccessCounts& c) { return c.requests ? double(c.transactions) / double(c.requests) : 0.0; }
// Lanes on one word a shared atomic request (the GPU serializes them, a pass a lane).
double same_word(const cuda_sim::AccessCounts& c) { return c.requests ? double(c.same_word) / double(c.requests) : 0.0; }
double efficiency(const cuda_sim::AccessCounts& c, bool shared) {
    if (!c.transactions) return 1.0;
    return shared ? double(c.ideal) / double(c.transactions) : double(c.bytes) / (32.0 * double(c.transactions));
}

void print_sites(const std::map<std::string, std::map<const void*, cuda_sim::SiteAccesses>>& sites);  // below

void print(const std::string& title, const std::map<std::string, cuda_sim::KernelAccesses>& p) {
    std::printf("\n%s\n", title.c_str());
    std::printf("%-34s %6s | %9s %5s %5s | %9s %5s %5s | %9s %5s %5s | %9s %5s %5s | %9s %5s\n", "kernel", "blocks", "gld req", "sec/r", "eff", "gst req",
                "sec/r", "eff", "sld req", "wf/r", "eff", "sst req", "wf/r", "eff", "atom req", "same");
    for (const auto& [name, k] : p) {
        std::printf("%-34s %6lld", name.c_str(), static_cast<long long>(k.blocks));
        int i = 0;
        for (const auto* c : {&k.global_load, &k.global_store, &k.shared_load, &k.shared_store})
            std::printf(" | %9lld %5.2f %5.2f", static_cast<long long>(c->requests), per_request(*c), efficiency(*c, i++ >= 2));
        std::printf(" | %9lld %5.2f\n", static_cast<long long>(k.shared_atomic.requests), same_word(k.shared_atomic));
    }
    std::printf("(sec/r: 32-byte sectors a warp request; wf/r: shared-memory wavefronts a request; eff: global, the bytes asked for over\n"
                " the sectors' bytes; shared, the fewest wavefronts those bytes need over those taken — 1 is coalesced or conflict-free;\n"
                " atom req: the shared requests made by atomics (also counted as loads or stores); same: their most lanes on one word,\n"
                " a request's serialized passes on the GPU)\n");
    print_sites(cuda_sim::memory_profile_sites());
}

// The source line of a code site (the instrumented call's return address), innermost inlined
// function first: addr2line over this program (built with -g).
std::string where(const void* site) {
    Dl_info info{};
    if (!dladdr(site, &info) || !info.dli_fname) return "?";
    const auto offset = reinterpret_cast<std::uintptr_t>(site) - reinterpret_cast<std::uintptr_t>(info.dli_fbase) - 1;
    char hex[32];
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(offset));
    const std::string cmd = "addr2line -i -s -e '" + std::string(info.dli_fname) + "' " + hex + " 2>/dev/null";
    std::FILE* f = popen(cmd.c_str(), "r");
    if (!f) return "?";
    std::string out;
    char line[512];
    while (std::fgets(line, sizeof line, f)) {
        std::string l(line);
        while (!l.empty() && (l.back() == '\n' || l.back() == '\r')) l.pop_back();
        out += (out.empty() ? "" : " < ") + l;
    }
    pclose(f);
    return out.empty() ? "?" : out;
}

// GIGASPARSE_MEMORY_PROFILE_SITES=kernel[,kernel...] (or "all"): those kernels' accesses by code site,
// the most transactions first.
void print_sites(const std::map<std::string, std::map<const void*, cuda_sim::SiteAccesses>>& sites) {
    const char* env = std::getenv("GIGASPARSE_MEMORY_PROFILE_SITES");
    if (!env || !*env) return;
    const std::string want = std::string(",") + env + ",";
    for (const auto& [name, by_site] : sites) {
        if (want != ",all," && want.find("," + name + ",") == std::string::npos) continue;
        std::vector<std::pair<const void*, cuda_sim::SiteAccesses>> v(by_site.begin(), by_site.end());
        std::sort(v.begin(), v.end(), [](const auto& x, const auto& y) { return x.second.counts.transactions > y.second.counts.transactions; });
        std::printf("  %s by site:\n", name.c_str());
        for (const auto& [site, a] : v) {
            const char* kind = a.static_shared ? (a.atomic ? "__shared__ atomic" : a.store ? "__shared__ store" : "__shared__ load")
                                : a.shared       ? (a.atomic ? "shared atomic" : a.store ? "shared store" : "shared load")
                                                 : (a.atomic ? "global atomic" : a.store ? "global store" : "global load");
            std::printf("    %-17s %9lld req %6.2f/req eff %4.2f same word %5.2f  %s\n", kind, static_cast<long long>(a.counts.requests), per_request(a.counts),
                        efficiency(a.counts, a.shared), same_word(a.counts), where(site).c_str());
        }
    }
    std::fflush(stdout);
}

const cuda_sim::KernelAccesses& kernel(const std::map<std::string, cuda_sim::KernelAccesses>& p, const std::string& name) {
    static const cuda_sim::KernelAccesses none;
    const auto it = p.find(name);
    EXPECT_NE(it, p.end()) << name << " did not run";
    return it == p.end() ? none : it->second;
}

// ---------------------------------------------------------------- the profile itself, on known patterns
__global__ void copy_kernel(const float* in, float* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}
__global__ void strided_kernel(const float* in, float* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[std::int64_t(i) * 32 % n];
}
// Shared memory: a conflict-free store, a broadcast load, a 32-way conflicted store, 8-byte stores.
__global__ void banks_kernel(float* out) {
    GIGASPARSE_DYNAMIC_SHARED(smem);
    auto* f = reinterpret_cast<float*>(smem);
    auto* d = reinterpret_cast<double*>(smem + 32 * 32 * 4);
    const unsigned t = threadIdx.x;
    f[t] = float(t);
    __syncthreads();
    const float x = f[0];
    f[t * 32 % 1024] = x;
    d[t] = x;
    __syncthreads();
    out[t] = f[t] + float(d[t]);
}

// A __shared__ array (a static variable, not the dynamic buffer): two conflict-free stores, a
// broadcast load (an index the compiler cannot fold: g++'s instrumentation skips a constant index
// it proves in bounds), a 2-way conflicted load (words 2t: lanes t and t + 16 share a bank).
__global__ void static_banks_kernel(float* out) {
    __shared__ float s[64];
    const unsigned t = threadIdx.x;
    s[t] = float(t);
    s[t + 32] = float(t);
    __syncthreads();
    out[t] = s[t / 32] + s[2 * t];
}

// A conditional store in a loop: half the lanes store in each iteration, lane l in iterations of
// its parity. A warp issues it once an iteration (8 requests of 16 lanes, 4 sectors each); pairing
// each lane's i-th store instead would join iterations 0 and 1, 2 and 3, ... (4 requests of 8 sectors).
__global__ void divergent_kernel(const float* in, float* out) {
    const unsigned lane = threadIdx.x;
    for (unsigned i = 0; i < 8; ++i) {
        const float x = in[i * 32 + lane];
        if ((lane + i) % 2 == 0) out[i * 32 + lane] = x;
    }
}

// Shared atomics: every lane on one word (32 passes on the GPU), then each on its own.
__global__ void atomics_kernel(unsigned* out) {
    __shared__ unsigned s[32];
    const unsigned t = threadIdx.x;
    s[t] = 0;
    __syncthreads();
    atomicAdd(&s[t / 32], 1u);
    atomicAdd(&s[t], 1u);
    __syncthreads();
    out[t] = s[t];
}

template <class... P, class... A>
void run(const char* name, void (*k)(P...), unsigned grid, unsigned block, std::size_t smem, A... args) {
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(block);
    cfg.dynamicSmemBytes = smem;
    cuda_sim::name_next_launch(name);
    ASSERT_EQ(cudaLaunchKernelEx(&cfg, k, args...), cudaSuccess);
}

TEST(MemoryProfile, CountsKnownPatterns) {
    cuda_sim::reset();
    constexpr int n = 4096;
    float *in = nullptr, *out = nullptr;
    ASSERT_EQ(cudaMalloc(&in, n * sizeof(float)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&out, n * sizeof(float)), cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(in, 0, n * sizeof(float)), cudaSuccess);
    cuda_sim::set_memory_profile(true);
    run("copy", copy_kernel, n / 256, 256, 0, static_cast<const float*>(in), out, n);
    run("strided", strided_kernel, n / 256, 256, 0, static_cast<const float*>(in), out, n);
    run("banks", banks_kernel, 1, 32, 32 * 32 * 4 + 32 * 8, out);
    run("divergent", divergent_kernel, 1, 32, 0, static_cast<const float*>(in), out);
    run("static banks", static_banks_kernel, 1, 32, 0, out);
    run("atomics", atomics_kernel, 1, 32, 0, reinterpret_cast<unsigned*>(out));
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    cuda_sim::set_memory_profile(false);
    const auto p = cuda_sim::memory_profile();
    print("known patterns", p);
    // a warp's 32 consecutive floats: 4 sectors, all of them used
    const auto& copy = kernel(p, "copy");
    EXPECT_EQ(copy.blocks, n / 256);
    EXPECT_EQ(copy.global_load.requests, n / 32);
    EXPECT_EQ(copy.global_load.transactions, n / 32 * 4);
    EXPECT_EQ(copy.global_store.transactions, n / 32 * 4);
    EXPECT_DOUBLE_EQ(efficiency(copy.global_load, false), 1.0);
    // floats 128 bytes apart: a sector each, an eighth of it used
    const auto& strided = kernel(p, "strided");
    EXPECT_EQ(strided.global_load.transactions, n / 32 * 32);
    EXPECT_DOUBLE_EQ(efficiency(strided.global_load, false), 0.125);
    EXPECT_DOUBLE_EQ(efficiency(strided.global_store, false), 1.0);
    const auto& banks = kernel(p, "banks");
    // stores: f[t] (1 wavefront), f[32 t] (32: one bank), d[t] (2: 256 bytes); loads: f[0] (broadcast, 1), f[t] (1), d[t] (2)
    EXPECT_EQ(banks.shared_store.requests, 3);
    EXPECT_EQ(banks.shared_store.transactions, 1 + 32 + 2);
    EXPECT_EQ(banks.shared_store.ideal, 1 + 1 + 2);
    EXPECT_EQ(banks.shared_load.requests, 3);
    EXPECT_EQ(banks.shared_load.transactions, 1 + 1 + 2);
    EXPECT_EQ(banks.global_store.transactions, 4);
    const auto& sbanks = kernel(p, "static banks");  // __shared__ variables count as shared memory
    EXPECT_EQ(sbanks.shared_store.requests, 2);
    EXPECT_EQ(sbanks.shared_store.transactions, 2);
    EXPECT_EQ(sbanks.shared_load.requests, 2);
    EXPECT_EQ(sbanks.shared_load.transactions, 1 + 2);
    EXPECT_EQ(sbanks.shared_load.ideal, 1 + 1);
    const auto& atomics = kernel(p, "atomics");  // 32 lanes on one word, then on 32 words
    EXPECT_EQ(atomics.shared_atomic.requests, 2);
    EXPECT_EQ(atomics.shared_atomic.same_word, 32 + 1);
    EXPECT_EQ(atomics.shared_store.requests, 1 + 2);  // (the zeroing store, and the atomics)
    const auto& divergent = kernel(p, "divergent");
    EXPECT_EQ(divergent.global_load.requests, 8);
    EXPECT_EQ(divergent.global_load.transactions, 8 * 4);
    EXPECT_EQ(divergent.global_store.requests, 8);
    EXPECT_EQ(divergent.global_store.lanes, 8 * 16);
    EXPECT_EQ(divergent.global_store.transactions, 8 * 4);
    ASSERT_EQ(cudaFree(in), cudaSuccess);
    ASSERT_EQ(cudaFree(out), cudaSuccess);
    EXPECT_EQ(cuda_sim::stats().allocations_live, 0);
}

// The heavy path at the H200's shared-memory budget: R-MAT A (4096 rows) times a B of 2^18 columns,
// so C's columns take 8 dense chunks (a multisplit level), every row above 256 products heavy.
TEST(MemoryProfile, HeavyPath) {
    const auto a = gs::test::rmat_like<float, std::int32_t>(12, 12, 8.0, 11);
    const auto b = gs::test::rmat_like<float, std::int32_t>(12, 18, 8.0, 12);
    GpuSpgemmOptions o;
    o.heavy_threshold = 256;
    o.dense_wide_rows = false;
    o.small_products = false;
    GpuSpgemmStats st;
    const auto p = profile(a, b, o, &st);
    EXPECT_GT(st.heavy_rows, 0);
    print("heavy path: R-MAT 2^12 x 2^12 (8 a row) times 2^12 x 2^18 (8 a row), heavy_threshold 256", p);
    // the owner map's runs (outer_owner_run) put a warp's lanes in distinct banks: 1.40 and 2.00
    // wavefronts a load and a store with runs of 12 halfwords
    const auto& outer = kernel(p, "outer_product_kernel");
    EXPECT_GE(efficiency(outer.shared_load, true), 0.95);
    EXPECT_GE(efficiency(outer.shared_store, true), 0.95);
    // the multisplit reads its level's columns and values coalesced, and writes each chunk's run
    // from the permuted shared buffer coalesced (Alg. 5's point)
    const auto& split = kernel(p, "multisplit_kernel");
    EXPECT_GT(split.blocks, 0);
    EXPECT_GE(efficiency(split.global_load, false), 0.95);
    EXPECT_GE(efficiency(split.global_store, false), 0.9);
    // a warp's consecutive elements mostly share a (row, chunk) slot: one atomic a run of them
    // (warp_run_add), where the lanes' own atomics put 24.7 of 32 on one word, in the histogram
    // kernel's and the multisplit kernel's counting and permute alike
    EXPECT_LE(same_word(split.shared_atomic), 1.5);
    EXPECT_LE(same_word(kernel(p, "histogram_kernel").shared_atomic), 1.5);
    // heavy chunks written from their bitmaps: only occupied words, sparse batches 32 entries a
    // store (0.59 of the stores' sector bytes used; 0.25 when every word with entries took a store)
    EXPECT_GE(efficiency(kernel(p, "dense_segments_kernel").global_store, false), 0.5);
    // the chunks' value slots (dense_slot) spread R-MAT's columns over the banks: 1.47 wavefronts a
    // shared load, 1.96 with a column's value at its own offset
    EXPECT_LE(per_request(kernel(p, "dense_segments_kernel").shared_load), 1.7);
    const auto& unstage = kernel(p, "unstage_rows_kernel");  // a warp a row: contiguous copies
    EXPECT_GE(efficiency(unstage.global_load, false), 0.7);
    EXPECT_GE(efficiency(unstage.global_store, false), 0.7);
}

// The light rows: R-MAT A² on the binned path (hash bins, warp rows, dense rows).
TEST(MemoryProfile, LightRows) {
    const auto a = gs::test::rmat_like<float, std::int32_t>(12, 12, 8.0, 11);
    GpuSpgemmOptions o;
    o.small_products = false;
    GpuSpgemmStats st;
    const auto p = profile(a, a, o, &st);
    print("light rows: R-MAT 2^12 (8 a row) squared, binned", p);
    // the block walk: consecutive threads read consecutive entries of a B row
    EXPECT_GE(efficiency(kernel(p, "hash_rows_kernel (once)").global_load, false), 0.6);
    // dense rows set a bitmap bit only when a read finds it unset: 3.78 lanes on one word an atomic
    // request (bits and hash inserts) when every product set its own
    EXPECT_LE(same_word(kernel(p, "hash_rows_kernel (once)").shared_atomic), 3.0);
    EXPECT_GE(efficiency(kernel(p, "unstage_rows_kernel").global_store, false), 0.75);
    const auto& scan = kernel(p, "small_scan_kernel (inclusive)");  // the setup's scans (as small_finish_kernel's)
    EXPECT_GE(efficiency(scan.global_load, false), 0.8);
    EXPECT_GE(efficiency(scan.global_store, false), 0.8);
}

// The binned path with every light row hashed (no dense rows): the table-layout profiles' options.
GpuSpgemmOptions hashed_light_rows() {
    GpuSpgemmOptions o;
    o.small_products = false;
    o.dense_light_rows = false;
    return o;
}

// The light rows hashed (no dense rows), their tables split (keys and values) and packed (a 64-bit
// (column, value) word a slot, GpuSpgemmOptions::packed_tables): the hash kernels' shared-memory
// requests. The simulator counts a float atomicAdd as one atomic access; on the GPU it is a
// compare-and-swap loop (a load and a CAS), so the split inserts cost more there than counted here.
TEST(MemoryProfile, PackedTables) {
    const auto a = gs::test::rmat_like<float, std::int32_t>(12, 12, 8.0, 11);
    GpuSpgemmOptions o = hashed_light_rows();
    struct Requests {
        std::int64_t load = 0, store = 0, atomic = 0;
    } r[2];
    for (const bool packed : {false, true}) {
        o.packed_tables = packed;
        GpuSpgemmStats st;
        const auto p = profile(a, a, o, &st);
        for (const auto& [name, k] : p)
            if (name.rfind("hash_rows", 0) == 0) {
                r[packed].load += k.shared_load.requests;
                r[packed].store += k.shared_store.requests;
                r[packed].atomic += k.shared_atomic.requests;
            }
        print(packed ? "light rows hashed, packed tables: R-MAT 2^12 (8 a row) squared, binned" : "light rows hashed, split tables: R-MAT 2^12 (8 a row) squared, binned", p);
    }
    std::printf("hashed light rows' shared requests, split / packed tables: loads %lld / %lld, stores %lld / %lld, atomics %lld / %lld\n",
                static_cast<long long>(r[0].load), static_cast<long long>(r[1].load), static_cast<long long>(r[0].store),
                static_cast<long long>(r[1].store), static_cast<long long>(r[0].atomic), static_cast<long long>(r[1].atomic));
    ASSERT_GT(r[0].atomic, 0);
    // a product: the key's CAS and the value's add (split), one CAS for a new column and two for a
    // held one (packed); the compaction and the sort load and store one word an entry, not two
    EXPECT_LT(r[1].atomic, r[0].atomic);
    EXPECT_LT(r[1].load, r[0].load);
    EXPECT_LT(r[1].store, r[0].store);
}

// The light rows hashed (no dense rows), their tables sorted by the bitonic network and written by
// rank (GpuSpgemmOptions::rank_sort, the default): the same product, the hash kernels' shared
// requests and global stores, and the product's block barriers and warp collectives (lanes'
// shuffles, most of them the sort's warp steps). The output by rank passes over the entries twice a
// window where the network passes k(k+1)/2 times over 2^k: fewer shared loads, barriers and
// shuffles; more shared stores (each window's bitmap cleared, its bits, prefixes and inverse map
// stored: 584 K against the network's 431 K requests here); its global stores leave through the
// inverse map in the row's order, as coalesced as the sorted write (each entry stored from its
// table slot took 26 sectors a request, 4.6 sorted).
TEST(MemoryProfile, RankSort) {
    const auto a = gs::test::rmat_like<float, std::int32_t>(12, 12, 8.0, 11);
    GpuSpgemmOptions o = hashed_light_rows();
    struct Counts {
        std::int64_t load = 0, store = 0, gst = 0, gst_sectors = 0, barriers = 0, collectives = 0;
    } r[2];
    for (const bool rank : {false, true}) {
        o.rank_sort = rank;
        GpuSpgemmStats st;
        cuda_sim::reset();
        const auto p = profile(a, a, o, &st);
        const cuda_sim::Stats s = cuda_sim::stats();
        r[rank].barriers = s.barriers;
        r[rank].collectives = s.warp_collectives;
        for (const auto& [name, k] : p)
            if (name.rfind("hash_rows", 0) == 0) {
                r[rank].load += k.shared_load.requests;
                r[rank].store += k.shared_store.requests;
                r[rank].gst += k.global_store.requests;
                r[rank].gst_sectors += k.global_store.transactions;
            }
        print(rank ? "light rows hashed, written by rank: R-MAT 2^12 (8 a row) squared, binned"
                   : "light rows hashed, sorted: R-MAT 2^12 (8 a row) squared, binned",
              p);
    }
    const auto per = [](std::int64_t x, std::int64_t n) { return n ? double(x) / double(n) : 0.0; };
    std::printf("hashed light rows, sorted / by rank: shared loads %lld / %lld, shared stores %lld / %lld, global stores %lld / %lld "
                "(%.2f / %.2f sectors a request); the product's block barriers %lld / %lld, warp collectives (lanes) %lld / %lld\n",
                static_cast<long long>(r[0].load), static_cast<long long>(r[1].load), static_cast<long long>(r[0].store),
                static_cast<long long>(r[1].store), static_cast<long long>(r[0].gst), static_cast<long long>(r[1].gst),
                per(r[0].gst_sectors, r[0].gst), per(r[1].gst_sectors, r[1].gst), static_cast<long long>(r[0].barriers),
                static_cast<long long>(r[1].barriers), static_cast<long long>(r[0].collectives), static_cast<long long>(r[1].collectives));
    ASSERT_GT(r[0].load, 0);
    EXPECT_LT(r[1].load, r[0].load);
    EXPECT_LT(r[1].barriers, r[0].barriers);
    ASSERT_GT(r[1].gst, 0);
    EXPECT_LE(per(r[1].gst_sectors, r[1].gst), 1.1 * per(r[0].gst_sectors, r[0].gst));
    EXPECT_LT(r[1].collectives, r[0].collectives);
}

// A plan's later numeric phases (Phase::known, GpuSpgemmOptions::keep_c_pattern): the light rows'
// product and the heavy path's, each profiled in its second numeric phase, after the first kept C's
// columns. Light rows of hash bins add each product at its place in C's row (the product map; a
// third case without it: their tables filled with the known columns), hash chunks fill their
// tables with the known columns and only add; dense chunks and dense rows read their values at the
// known columns.
TEST(MemoryProfile, PlanKnownColumns) {
    struct Case {
        const char* title;
        gs::Csr<float, std::int32_t> a, b;
        GpuSpgemmOptions o;
    };
    GpuSpgemmOptions light, heavy;
    light.small_products = heavy.small_products = false;
    heavy.heavy_threshold = 256;
    heavy.dense_wide_rows = false;
    GpuSpgemmOptions tables = light;  // the light rows' known tables instead of the product map
    tables.light_product_map = false;
    Case cases[] = {{"plan, second numeric phase: R-MAT 2^12 (8 a row) squared, binned", gs::test::rmat_like<float, std::int32_t>(12, 12, 8.0, 11),
                     gs::test::rmat_like<float, std::int32_t>(12, 12, 8.0, 11), light},
                    {"plan, second numeric phase without the product map: R-MAT 2^12 (8 a row) squared, binned",
                     gs::test::rmat_like<float, std::int32_t>(12, 12, 8.0, 11), gs::test::rmat_like<float, std::int32_t>(12, 12, 8.0, 11), tables},
                    {"plan, second numeric phase: the heavy path's product", gs::test::rmat_like<float, std::int32_t>(12, 12, 8.0, 11),
                     gs::test::rmat_like<float, std::int32_t>(12, 18, 8.0, 12), heavy}};
    bool dense_chunks = false;
    // the light rows' shared-memory requests (loads, stores), by the product map and by the known tables
    std::int64_t light_shared[2][2] = {};
    for (auto& [title, a, b, o] : cases) {
        const SimulatedRunChecks checks;
        {
            gs::cuda::GpuSpgemmPlan<float, std::int32_t> plan(o);
            plan.symbolic(a.view(), b.view());
            (void)plan.numeric(a.view(), b.view());  // the first keeps C's columns
            for (auto& v : a.values) v = 1.5f - v;  // new values
            cuda_sim::set_memory_profile(true);
            const auto c = plan.numeric(a.view(), b.view());
            cuda_sim::set_memory_profile(false);
            EXPECT_TRUE(gs::test::csr_near(gs::reference::spgemm(a.view(), b.view()).view(), c.view(), 1e-4)) << title;
            EXPECT_GT(plan.stats().known_pattern_bytes, 0) << title;
        }
        checks.expect_clean(title);
        const auto p = cuda_sim::memory_profile();
        print(title, p);
        if (p.count("dense_segments_kernel (known)")) {  // the known columns' reads by slot (dense_slot): 3.77 wavefronts, 6.71 without
            dense_chunks = true;
            EXPECT_LE(per_request(kernel(p, "dense_segments_kernel (known)").shared_load), 4.5);
        }
        for (const auto& [name, k] : p) {  // no pattern work: only the known kernels and the mapped light rows accumulate
            EXPECT_TRUE((name.find("hash") == std::string::npos && name.find("dense") == std::string::npos) || name.find("(known)") != std::string::npos)
                << title << ": " << name;
            EXPECT_EQ(name.find("product_map"), std::string::npos) << title << ": the map is built once, by the first numeric phase";
            const int by = name.rfind("mapped_rows", 0) == 0 ? 0 : name.rfind("hash_rows", 0) == 0 ? 1 : -1;
            if (by >= 0 && o.light_product_map == (by == 0)) {
                light_shared[by][0] += k.shared_load.requests;
                light_shared[by][1] += k.shared_store.requests;
            }
        }
    }
    EXPECT_TRUE(dense_chunks) << "the heavy path's plan accumulates dense chunks";
    // the same light rows through the map: no table to fill with the known columns (stores a quarter
    // of the tables': 19 K and 77 K requests), no probes; the walk's searches, the same in both, are
    // most of the loads (544 K and 586 K)
    std::printf("light rows' shared requests, product map / known tables: loads %lld / %lld, stores %lld / %lld\n",
                static_cast<long long>(light_shared[0][0]), static_cast<long long>(light_shared[1][0]), static_cast<long long>(light_shared[0][1]),
                static_cast<long long>(light_shared[1][1]));
    EXPECT_GT(light_shared[0][0], 0);
    EXPECT_LT(light_shared[0][0], light_shared[1][0]);
    EXPECT_LT(light_shared[0][1] * 4, light_shared[1][1]);
}

// A small product with long rows (the small-product path): a band of 4000 rows (17 a row) with
// rows 10, 2000 and 3999 full, squared — rows of a few hundred products a warp each, the full rows'
// and their neighbours' (more than 4096 products) a block each.
TEST(MemoryProfile, SmallProduct) {
    gs::Coo<float, std::int32_t> coo;
    coo.nrows = coo.ncols = 4000;
    for (std::int32_t i = 0; i < 4000; ++i)
        for (std::int32_t j = 0; j < 4000; ++j)
            if (i == 10 || i == 2000 || i == 3999 || (j >= i - 8 && j <= i + 8)) {
                coo.row.push_back(i);
                coo.col.push_back(j);
                coo.val.push_back(0.25f + static_cast<float>((7 * i + j) % 9));
            }
    const auto m = gs::coo_to_csr(coo);
    GpuSpgemmStats st;
    const auto p = profile(m, m, GpuSpgemmOptions{}, &st);
    EXPECT_TRUE(st.small_product);
    print("small product: a band of 4000 rows with three full rows, squared", p);
    EXPECT_GT(st.small_long_rows, 0);
    EXPECT_GE(efficiency(kernel(p, "small_long_rows_kernel").global_load, false), 0.7);  // a block walk
    // the band's long rows: consecutive products share bitmap words, set only when a read finds a bit
    // unset (17.8 lanes on one word an atomic request, with the value adds, when every product set its own)
    EXPECT_LE(same_word(kernel(p, "small_long_rows_kernel").shared_atomic), 14.0);
    // the long rows' list, then the row offsets' scan: each warp load and store 32 consecutive counts
    // (a thread's 16 consecutive counts took 26-30 sectors a request, 0.26-0.30 of their bytes used;
    // the blocks' partials, interleaved pairs, and the list's few entries use less)
    for (const char* name : {"small_finish_kernel", "small_finish_kernel (after long rows)"})
        EXPECT_GE(efficiency(kernel(p, name).global_load, false), 0.6) << name;
    EXPECT_GE(efficiency(kernel(p, "small_finish_kernel (after long rows)").global_store, false), 0.8);
}

}  // namespace
