// tests/cuda_sim/memory_profile.cpp: how gMAGNUS's kernels use memory, counted on the CPU simulator.
// This file is compiled with every load and store reported (GCC's kernel AddressSanitizer
// instrumentation turned into calls of cuda_sim::record_access by memory_profile_hooks.cpp), so each
// product below gives, per kernel, its warp requests to global memory and the 32-byte sectors they
// touch (coalescing), and its requests to dynamic shared memory and their wavefronts (bank
// conflicts) — what Nsight Compute's memory tables report on a GPU, here without one. Each case
// prints its table and checks the accesses the design claims coalesced or conflict-free.
// Approximate where the GPU differs: g++'s code, not nvcc's (loads merged or split differently;
// vectorization is off), lanes paired by the executions of a code site (divergent lanes that reach a
// site at different iterations are still paired), L1/L2 hits not modelled (a sector is a request's
// cost, not a DRAM transfer), atomics counted as accesses.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/cuda/spgemm.hpp>
#include <gigasparse/io/matrix_market.hpp>
#include <gigasparse/reference/kernels.hpp>

#include "cuda/gpu_test_support.hpp"
#include "cuda_sim/runtime.hpp"
#include "spgemm/cuda/gmagnus_dispatch.cuh"
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

// Sectors (global) or wavefronts (shared) a request, and the fraction of them the lanes' bytes
// needed at least (1: coalesced / conflict-free).
double per_request(const cuda_sim::AccessCounts& c) { return c.requests ? double(c.transactions) / double(c.requests) : 0.0; }
double efficiency(const cuda_sim::AccessCounts& c) { return c.transactions ? double(c.ideal) / double(c.transactions) : 1.0; }

void print(const std::string& title, const std::map<std::string, cuda_sim::KernelAccesses>& p) {
    std::printf("\n%s\n", title.c_str());
    std::printf("%-34s %6s | %9s %5s %5s | %9s %5s %5s | %9s %5s %5s | %9s %5s %5s\n", "kernel", "blocks", "gld req", "sec/r", "eff", "gst req",
                "sec/r", "eff", "sld req", "wf/r", "eff", "sst req", "wf/r", "eff");
    for (const auto& [name, k] : p) {
        std::printf("%-34s %6lld", name.c_str(), static_cast<long long>(k.blocks));
        for (const auto* c : {&k.global_load, &k.global_store, &k.shared_load, &k.shared_store})
            std::printf(" | %9lld %5.2f %5.2f", static_cast<long long>(c->requests), per_request(*c), efficiency(*c));
        std::printf("\n");
    }
    std::printf("(sec/r: 32-byte sectors a warp request; wf/r: shared-memory wavefronts a request; eff: the fewest the bytes asked for need,\n"
                " over those taken — 1 is coalesced or free of bank conflicts)\n");
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
    EXPECT_DOUBLE_EQ(efficiency(copy.global_load), 1.0);
    // floats 128 bytes apart: a sector each, an eighth of it used
    const auto& strided = kernel(p, "strided");
    EXPECT_EQ(strided.global_load.transactions, n / 32 * 32);
    EXPECT_DOUBLE_EQ(efficiency(strided.global_load), 0.125);
    EXPECT_DOUBLE_EQ(efficiency(strided.global_store), 1.0);
    const auto& banks = kernel(p, "banks");
    // stores: f[t] (1 wavefront), f[32 t] (32: one bank), d[t] (2: 256 bytes); loads: f[0] (broadcast, 1), f[t] (1), d[t] (2)
    EXPECT_EQ(banks.shared_store.requests, 3);
    EXPECT_EQ(banks.shared_store.transactions, 1 + 32 + 2);
    EXPECT_EQ(banks.shared_store.ideal, 1 + 1 + 2);
    EXPECT_EQ(banks.shared_load.requests, 3);
    EXPECT_EQ(banks.shared_load.transactions, 1 + 1 + 2);
    EXPECT_EQ(banks.global_store.transactions, 4);
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
    EXPECT_GT(kernel(p, "multisplit_kernel").blocks, 0);
    print("heavy path: R-MAT 2^12 x 2^12 (8 a row) times 2^12 x 2^18 (8 a row), heavy_threshold 256", p);
}

// The light rows: R-MAT A² on the binned path (hash bins, warp rows, dense rows).
TEST(MemoryProfile, LightRows) {
    const auto a = gs::test::rmat_like<float, std::int32_t>(12, 12, 8.0, 11);
    GpuSpgemmOptions o;
    o.small_products = false;
    GpuSpgemmStats st;
    const auto p = profile(a, a, o, &st);
    print("light rows: R-MAT 2^12 (8 a row) squared, binned", p);
}

// A small product with long rows (the small-product path): bcsstk13² of the shared matrices.
TEST(MemoryProfile, SmallProduct) {
    const auto m = gs::io::read_mtx<float, std::int32_t>(gs::test::matrix_dir() + "/bcsstk13.mtx.gz");
    GpuSpgemmStats st;
    const auto p = profile(m, m, GpuSpgemmOptions{}, &st);
    EXPECT_TRUE(st.small_product);
    print("small product: bcsstk13 squared", p);
}

}  // namespace
