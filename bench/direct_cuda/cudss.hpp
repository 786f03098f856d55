// bench/direct_cuda/cudss.hpp: NVIDIA cuDSS, bench_direct_cuda's GPU competitor, opened at run time (dlopen):
// no cuDSS is needed to build the benchmark (CI, this machine), and a GPU machine without it still runs
// every other variant. The library is GIGASPARSE_CUDSS_LIB (a file), else libcudss.so.0 on the loader's
// path; scripts/device-bundle packs the pinned wheel's library (nvidia-cudss-cu13 0.7.1.6, the version whose
// C ABI cudss.cpp declares: cuDSS 1.0 changed cudssMatrixCreateCsr's arguments) and scripts/device-check
// unpacks it there.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <gigasparse/core/matrix.hpp>

namespace gigasparse::bench {

struct CudssApi;  // the entry points (cudss.cpp)

// The opened library: ok() with its entry points and version, or error() saying why not.
class CudssLibrary {
public:
    // path: a file; empty: $GIGASPARSE_CUDSS_LIB when set, else "libcudss.so.0"
    static CudssLibrary open(const std::string& path = "");
    CudssLibrary() = default;
    CudssLibrary(CudssLibrary&&) noexcept;
    CudssLibrary& operator=(CudssLibrary&&) noexcept;
    ~CudssLibrary();
    bool ok() const { return api_ != nullptr; }
    const std::string& error() const { return error_; }
    const std::string& version() const { return version_; }  // "0.7.1"
    const std::string& path() const { return path_; }
    const CudssApi& api() const { return *api_; }

private:
    void* handle_ = nullptr;
    CudssApi* api_ = nullptr;
    std::string error_ = "not opened", version_, path_;
};

enum class CudssStructure { spd, symmetric, general };  // CUDSS_MTYPE_SPD (lower triangle), SYMMETRIC (lower), GENERAL

// One cuDSS run on a matrix: analysis (its reordering and symbolic factorization), a factorization, `repeats`
// refactorizations (each timed; the values already on the device, as cuDSS's refactorization is used), then a
// solve of A x = b (x copied back). Times include a device synchronization.
struct CudssRun {
    std::string status = "not run";  // "ok" (whatever the factorization's outcome) or "failed: ..."
    int info = 0;                    // CUDSS_DATA_INFO after the factorization (0: success)
    double analyze_s = -1, first_s = -1, best_s = -1, solve_s = -1;
    std::vector<double> runs_s;
    std::int64_t factor_nnz = -1;  // CUDSS_DATA_LU_NNZ
    std::vector<double> x;         // empty when there was no solve
    bool ok() const { return status == "ok"; }
};

// Runs cuDSS on a (square, CSR, sorted columns; for spd/symmetric the lower triangle is passed) with right-hand
// side b; never throws (a failure is the run's status).
CudssRun run_cudss(const CudssLibrary& lib, CsrView<double, std::int32_t> a, CudssStructure structure, const std::vector<double>& b, int repeats);

// Name of a cuDSS status code (CUDSS_STATUS_*), for messages.
std::string cudss_status_name(int status);

}  // namespace gigasparse::bench
