// tests/cuda/gpu_test_support.hpp: what every GPU test file shares, built for the GPU (label cuda) or on the
// CPU simulator of tests/cuda_sim (GIGASPARSE_CUDA_SIM, label unit): skipping without a device, the
// problem sizes of each, a fresh simulated device per test, and the checks every simulated run passes.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include <gigasparse/config.hpp>
#include <gigasparse/cuda/device.hpp>

#ifdef GIGASPARSE_CUDA_SIM
#include "cuda_sim/runtime.hpp"
#endif

namespace {

#ifdef GIGASPARSE_CUDA_SIM
inline constexpr bool simulated = true;

[[maybe_unused]] bool no_gpu(std::string&) { return false; }

// Device allocations still live once the device has run what is queued: gigasparse's streams
// outlive a computation (they are kept for reuse), and the frees queued on them last.
std::int64_t live_allocations() {
    cuda_sim::drain();
    return cuda_sim::stats().allocations_live;
}

// A simulated run must leave no device memory behind, no sticky error and, in the racecheck build, no
// race; with memory pools it allocates only stream-ordered.
struct SimulatedRunChecks {
    std::int64_t races = 0;
    SimulatedRunChecks() {
        cuda_sim::reset();
        races = cuda_sim::race_reports();
    }
    void expect_clean(const char* what) const {
        EXPECT_EQ(live_allocations(), 0) << "device memory leaked by " << what;
        EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess) << cuda_sim::last_error_detail();
        EXPECT_EQ(cuda_sim::race_reports(), races) << "ThreadSanitizer reported a race (above)";
        if (cuda_sim::config().memory_pools) {
            EXPECT_EQ(cuda_sim::stats().malloc_calls + cuda_sim::stats().free_calls, 0)
                << "cudaMalloc/cudaFree in " << what << ": they synchronize the device (stream-ordered allocation only)";
            EXPECT_GT(cuda_sim::stats().pool_allocs, 0);
        }
    }
};

// Each test starts on a fresh simulated device (a sticky error of one test must not fail the next).
struct ResetSimulator : ::testing::EmptyTestEventListener {
    void OnTestStart(const ::testing::TestInfo&) override {
        cuda_sim::config() = cuda_sim::default_config();
        cuda_sim::reset();
    }
};
const bool simulator_reset_registered = [] {
    ::testing::UnitTest::GetInstance()->listeners().Append(new ResetSimulator);
    return true;
}();
#else
inline constexpr bool simulated = false;

bool no_gpu(std::string& why) {
    if (!gigasparse::config::with_cuda) {
        why = "gigasparse was built without the CUDA backend";
        return true;
    }
    if (gigasparse::cuda::device_count() == 0) {
        why = "no CUDA device present: " + gigasparse::cuda::device_summary();
        return true;
    }
    return false;
}
#endif

// Problem sizes: the simulator runs a thread per fiber, about 10^3 times slower than the GPU, so
// its cases are smaller versions that reach the same paths.
constexpr std::int64_t sim_or(std::int64_t in_simulator, std::int64_t on_gpu) { return simulated ? in_simulator : on_gpu; }

// scripts/device-check sets GIGASPARSE_REQUIRE_GPU=1: there a missing device (driver/runtime
// mismatch, no GPU visible) must fail the test instead of skipping it silently.
[[maybe_unused]] bool gpu_required() {
    const char* e = std::getenv("GIGASPARSE_REQUIRE_GPU");
    return e && *e && std::string(e) != "0";
}

#define SKIP_WITHOUT_GPU()                                                   \
    do {                                                                     \
        std::string why_;                                                    \
        if (no_gpu(why_)) {                                                  \
            if (gpu_required()) FAIL() << "GIGASPARSE_REQUIRE_GPU: " << why_; \
            GTEST_SKIP() << why_;                                            \
        }                                                                    \
    } while (0)

}  // namespace
