// tests/cuda/test_smoke.cpp: the CUDA toolchain path runs a kernel (skipped without a GPU).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include <gigasparse/config.hpp>
#include <gigasparse/core/error.hpp>
#include <gigasparse/cuda/device.hpp>

namespace gs = gigasparse;

TEST(CudaSmoke, AxpyMatchesHost) {
    if (!gs::config::with_cuda) {
        EXPECT_THROW(gs::cuda::smoke_axpy(10), gs::NotSupported);
        GTEST_SKIP() << "gigasparse was built without the CUDA backend";
    }
    if (gs::cuda::device_count() == 0) {
        const char* req = std::getenv("GIGASPARSE_REQUIRE_GPU");  // set by scripts/device-check: a missing device is a failure there
        if (req && *req && std::string(req) != "0") FAIL() << "GIGASPARSE_REQUIRE_GPU: no CUDA device: " << gs::cuda::device_summary();
        GTEST_SKIP() << "no CUDA device present: " << gs::cuda::device_summary();
    }
    std::cout << "device: " << gs::cuda::device_summary() << "\n";
    EXPECT_EQ(gs::cuda::smoke_axpy(1'000'003), 0.0);
}
