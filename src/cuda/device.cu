// src/cuda/device.cu: CUDA device queries and the axpy smoke kernel that exercises the toolchain.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gigasparse/cuda/device.hpp>

#include "cuda/base/check.hpp"
#include "cuda/base/memory_pool.hpp"

namespace gigasparse::cuda {
namespace {

__global__ void axpy_kernel(long long n, double a, const double* x, double* y) {
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}

}  // namespace

int device_count() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError();  // no driver or no device: clear the sticky error, report none
        return 0;
    }
    return count;
}

std::string device_summary(int device) {
    if (device_count() <= device) return "no CUDA device available (driver or GPU missing)";
    cudaDeviceProp p{};
    check(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties");
    return std::string(p.name) + " (sm_" + std::to_string(p.major) + std::to_string(p.minor) + ", " + std::to_string(p.multiProcessorCount) +
           " SMs, " + std::to_string(p.totalGlobalMem / (1024.0 * 1024 * 1024)).substr(0, 5) + " GiB)";
}

std::int64_t cached_memory_bytes(int device) {
    if (device_count() <= device) return 0;
    return pool_cached_bytes(memory_pool(device));
}

void release_cached_memory(int device) {
    if (device_count() <= device) return;
    int current = 0;
    check(cudaGetDevice(&current), "cudaGetDevice");
    check(cudaSetDevice(device), "cudaSetDevice");
    trim_memory_pool(memory_pool(device));
    check(cudaSetDevice(current), "cudaSetDevice");
}

double smoke_axpy(long long n) {
    if (n <= 0) return 0.0;
    std::vector<double> x(n), y(n);
    for (long long i = 0; i < n; ++i) {
        x[i] = 0.5 * static_cast<double>(i % 97);
        y[i] = 1.0 + static_cast<double>(i % 13);
    }
    double *dx = nullptr, *dy = nullptr;
    check(cudaMalloc(&dx, n * sizeof(double)), "cudaMalloc");
    check(cudaMalloc(&dy, n * sizeof(double)), "cudaMalloc");
    check(cudaMemcpy(dx, x.data(), n * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemcpy(dy, y.data(), n * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
    const int block = 256;
    axpy_kernel<<<static_cast<unsigned>((n + block - 1) / block), block>>>(n, 2.0, dx, dy);
    check_launch("axpy_kernel");
    std::vector<double> out(n);
    check(cudaMemcpy(out.data(), dy, n * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy");
    check(cudaFree(dx), "cudaFree");
    check(cudaFree(dy), "cudaFree");
    double err = 0;
    for (long long i = 0; i < n; ++i) err = std::max(err, std::abs(out[i] - (y[i] + 2.0 * x[i])));
    return err;
}

}  // namespace gigasparse::cuda
