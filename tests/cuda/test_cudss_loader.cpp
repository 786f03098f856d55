// tests/cuda/test_cudss_loader.cpp: bench_direct_cuda's cuDSS loader (bench/direct_cuda/cudss.cpp) where cuDSS
// cannot be used: no such file, a library without cuDSS's entry points. The benchmark then runs without its
// competitor and says why; a cuDSS run on such a library is a failed status, not an exception or a crash.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <gigasparse/gen/generators.hpp>

#include "cudss.hpp"

namespace gb = gigasparse::bench;

namespace {

struct EnvGuard {  // sets GIGASPARSE_CUDSS_LIB for one test, restores it after
    std::string old;
    bool had = false;
    explicit EnvGuard(const char* value) {
        if (const char* v = std::getenv("GIGASPARSE_CUDSS_LIB")) old = v, had = true;
        if (value) setenv("GIGASPARSE_CUDSS_LIB", value, 1);
        else unsetenv("GIGASPARSE_CUDSS_LIB");
    }
    ~EnvGuard() {
        if (had) setenv("GIGASPARSE_CUDSS_LIB", old.c_str(), 1);
        else unsetenv("GIGASPARSE_CUDSS_LIB");
    }
};

}  // namespace

TEST(CudssLoader, MissingFileIsAClearError) {
    const gb::CudssLibrary lib = gb::CudssLibrary::open("/nonexistent/libcudss.so.0");
    EXPECT_FALSE(lib.ok());
    EXPECT_NE(lib.error().find("cannot load /nonexistent/libcudss.so.0"), std::string::npos) << lib.error();
    EXPECT_NE(lib.error().find("GIGASPARSE_CUDSS_LIB"), std::string::npos) << lib.error();
    EXPECT_TRUE(lib.version().empty());
}

TEST(CudssLoader, PathFromTheEnvironmentElseTheSoname) {
    {
        const EnvGuard env("/nonexistent/from-env/libcudss.so.0");
        const gb::CudssLibrary lib = gb::CudssLibrary::open();
        EXPECT_EQ(lib.path(), "/nonexistent/from-env/libcudss.so.0");
        EXPECT_FALSE(lib.ok());
    }
    {
        const EnvGuard env(nullptr);
        const gb::CudssLibrary lib = gb::CudssLibrary::open();
        EXPECT_EQ(lib.path(), "libcudss.so.0");
        if (lib.ok()) GTEST_SKIP() << "cuDSS " << lib.version() << " is installed here";
    }
}

TEST(CudssLoader, LibraryWithoutTheEntryPointsIsRefused) {
    // zlib: loaded by every gigasparse program, and no cuDSS
    const gb::CudssLibrary lib = gb::CudssLibrary::open("libz.so.1");
    if (lib.error().rfind("cannot load", 0) == 0) GTEST_SKIP() << lib.error();
    EXPECT_FALSE(lib.ok());
    EXPECT_NE(lib.error().find("lacks cudssCreate, cudssDestroy"), std::string::npos) << lib.error();
    EXPECT_NE(lib.error().find("cudssGetProperty"), std::string::npos) << lib.error();
}

TEST(CudssLoader, RunOnAnUnusableLibraryIsAFailedStatus) {
    const auto a = gigasparse::gen::poisson2d<double, std::int32_t>(5, 5);
    const std::vector<double> b(25, 1.0);
    gb::CudssLibrary lib = gb::CudssLibrary::open("/nonexistent/libcudss.so.0");
    gb::CudssLibrary moved = std::move(lib);  // moves keep the reason
    for (const auto st : {gb::CudssStructure::spd, gb::CudssStructure::symmetric, gb::CudssStructure::general}) {
        const gb::CudssRun r = gb::run_cudss(moved, a.view(), st, b, 3);
        EXPECT_FALSE(r.ok());
        EXPECT_EQ(r.status.rfind("failed: cannot load /nonexistent/libcudss.so.0", 0), 0u) << r.status;
        EXPECT_TRUE(r.x.empty());
        EXPECT_TRUE(r.runs_s.empty());
    }
    EXPECT_EQ(gb::cudss_status_name(0), "CUDSS_STATUS_SUCCESS");
    EXPECT_EQ(gb::cudss_status_name(5), "CUDSS_STATUS_EXECUTION_FAILED");
    EXPECT_EQ(gb::cudss_status_name(42), "cuDSS status 42");
}
