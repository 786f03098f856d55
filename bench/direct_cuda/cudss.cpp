// bench/direct_cuda/cudss.cpp: cuDSS opened with dlopen, and one analysis/factorization/solve with it.
// The entry points are declared here from cuDSS 0.7's documented C interface (handles are pointers to
// opaque structs, enumerations are C ints); only the calls and constants the benchmark uses.
#include "cudss.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <utility>

#include <cuda_runtime.h>
#include <library_types.h>

#include <gigasparse/core/timer.hpp>

namespace gigasparse::bench {

// cuDSS 0.7 constants (enumerator values of its C header)
namespace cudss_c {
constexpr int mtype_general = 0, mtype_symmetric = 1, mtype_spd = 3;
constexpr int view_full = 0, view_lower = 1;
constexpr int base_zero = 0;
constexpr int layout_col_major = 0;
constexpr int phase_analysis = 1 | 2, phase_factorization = 4, phase_refactorization = 8;
constexpr int phase_solve = 0x10 | 0x20 | 0x40 | 0x80 | 0x100 | 0x200;  // permutations, forward, diagonal, backward, refinement
constexpr int data_info = 0, data_lu_nnz = 1;
}  // namespace cudss_c

struct CudssApi {
    int (*create)(void** handle);
    int (*destroy)(void* handle);
    int (*config_create)(void** config);
    int (*config_destroy)(void* config);
    int (*data_create)(void* handle, void** data);
    int (*data_destroy)(void* handle, void* data);
    int (*matrix_create_csr)(void** matrix, std::int64_t nrows, std::int64_t ncols, std::int64_t nnz, void* row_start, void* row_end, void* col_indices,
                             void* values, int index_type, int value_type, int mtype, int mview, int index_base);
    int (*matrix_create_dn)(void** matrix, std::int64_t nrows, std::int64_t ncols, std::int64_t ld, void* values, int value_type, int layout);
    int (*matrix_destroy)(void* matrix);
    int (*execute)(void* handle, int phase, void* config, void* data, void* a, void* x, void* b);
    int (*data_get)(void* handle, void* data, int param, void* value, std::size_t size, std::size_t* written);
    int (*get_property)(int type, int* value);  // libraryPropertyType: MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL
};

std::string cudss_status_name(int status) {
    static const char* const names[] = {"SUCCESS", "NOT_INITIALIZED", "ALLOC_FAILED", "INVALID_VALUE", "NOT_SUPPORTED", "EXECUTION_FAILED", "INTERNAL_ERROR"};
    if (status >= 0 && status < static_cast<int>(std::size(names))) return std::string("CUDSS_STATUS_") + names[status];
    return "cuDSS status " + std::to_string(status);
}

namespace {

template <class F>
bool bind(void* lib, const char* name, F& fn, std::string& missing) {
    void* p = dlsym(lib, name);
    if (!p) {
        missing += missing.empty() ? name : std::string(", ") + name;
        return false;
    }
    fn = reinterpret_cast<F>(p);
    return true;
}

}  // namespace

CudssLibrary CudssLibrary::open(const std::string& path) {
    CudssLibrary lib;
    const char* env = std::getenv("GIGASPARSE_CUDSS_LIB");
    lib.path_ = !path.empty() ? path : env && *env ? env : "libcudss.so.0";
    lib.handle_ = dlopen(lib.path_.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib.handle_) {
        const char* e = dlerror();
        lib.error_ = "cannot load " + lib.path_ + ": " + (e ? e : "unknown error") + " (set GIGASPARSE_CUDSS_LIB, or see scripts/device-bundle)";
        return lib;
    }
    auto api = std::make_unique<CudssApi>();
    std::string missing;
    bool all = true;
    all &= bind(lib.handle_, "cudssCreate", api->create, missing);
    all &= bind(lib.handle_, "cudssDestroy", api->destroy, missing);
    all &= bind(lib.handle_, "cudssConfigCreate", api->config_create, missing);
    all &= bind(lib.handle_, "cudssConfigDestroy", api->config_destroy, missing);
    all &= bind(lib.handle_, "cudssDataCreate", api->data_create, missing);
    all &= bind(lib.handle_, "cudssDataDestroy", api->data_destroy, missing);
    all &= bind(lib.handle_, "cudssMatrixCreateCsr", api->matrix_create_csr, missing);
    all &= bind(lib.handle_, "cudssMatrixCreateDn", api->matrix_create_dn, missing);
    all &= bind(lib.handle_, "cudssMatrixDestroy", api->matrix_destroy, missing);
    all &= bind(lib.handle_, "cudssExecute", api->execute, missing);
    all &= bind(lib.handle_, "cudssDataGet", api->data_get, missing);
    all &= bind(lib.handle_, "cudssGetProperty", api->get_property, missing);
    if (!all) {
        lib.error_ = lib.path_ + " lacks " + missing;
        return lib;
    }
    int major = -1, minor = -1, patch = -1;
    if (api->get_property(MAJOR_VERSION, &major) != 0 || api->get_property(MINOR_VERSION, &minor) != 0 || api->get_property(PATCH_LEVEL, &patch) != 0) {
        lib.error_ = lib.path_ + ": cudssGetProperty failed";
        return lib;
    }
    lib.version_ = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
    if (major != 0 || minor != 7) {
        lib.error_ = lib.path_ + " is cuDSS " + lib.version_ + "; this benchmark declares cuDSS 0.7's C interface (scripts/device-bundle pins it)";
        return lib;
    }
    lib.api_ = api.release();
    lib.error_.clear();
    return lib;
}

CudssLibrary::CudssLibrary(CudssLibrary&& o) noexcept { *this = std::move(o); }

CudssLibrary& CudssLibrary::operator=(CudssLibrary&& o) noexcept {
    if (this != &o) {
        delete api_;
        handle_ = std::exchange(o.handle_, nullptr);
        api_ = std::exchange(o.api_, nullptr);
        error_ = std::move(o.error_);
        version_ = std::move(o.version_);
        path_ = std::move(o.path_);
    }
    return *this;
}

CudssLibrary::~CudssLibrary() {
    delete api_;
    api_ = nullptr;
    // the library stays loaded: cuDSS registers its kernels with the CUDA runtime, which may outlive this object
    handle_ = nullptr;
}

namespace {

void check_cuda(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
    }
}

void check_cudss(int s, const char* what) {
    if (s != 0) throw std::runtime_error(std::string(what) + ": " + cudss_status_name(s));
}

struct DeviceArray {
    void* p = nullptr;
    DeviceArray(std::size_t bytes, const void* host = nullptr) {
        check_cuda(cudaMalloc(&p, std::max<std::size_t>(bytes, 1)), "cudaMalloc");
        if (host && bytes) check_cuda(cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to the device");
    }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
    ~DeviceArray() { (void)cudaFree(p); }
};

// Everything cuDSS made, destroyed in reverse order on every exit.
struct Objects {
    const CudssApi& api;
    void *handle = nullptr, *config = nullptr, *data = nullptr, *a = nullptr, *x = nullptr, *b = nullptr;
    explicit Objects(const CudssApi& f) : api(f) {}
    Objects(const Objects&) = delete;
    Objects& operator=(const Objects&) = delete;
    ~Objects() {
        if (b) api.matrix_destroy(b);
        if (x) api.matrix_destroy(x);
        if (a) api.matrix_destroy(a);
        if (data) api.data_destroy(handle, data);
        if (config) api.config_destroy(config);
        if (handle) api.destroy(handle);
    }
};

}  // namespace

CudssRun run_cudss(const CudssLibrary& lib, CsrView<double, std::int32_t> a, CudssStructure structure, const std::vector<double>& b, int repeats) {
    CudssRun r;
    if (!lib.ok()) {
        r.status = "failed: " + lib.error();
        return r;
    }
    try {
        const std::int64_t n = a.nrows;
        if (a.ncols != n || static_cast<std::int64_t>(b.size()) != n) throw std::invalid_argument("a square matrix and a right-hand side of its size");
        const bool lower = structure != CudssStructure::general;
        // cuDSS 0.7 takes 32-bit row offsets with 32-bit columns; for spd/symmetric the lower triangle
        std::vector<std::int32_t> rows(static_cast<std::size_t>(n) + 1, 0), cols;
        std::vector<double> vals;
        cols.reserve(static_cast<std::size_t>(lower ? a.nnz() / 2 + n : a.nnz()));
        vals.reserve(cols.capacity());
        for (std::int64_t i = 0; i < n; ++i) {
            for (offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
                if (!lower || a.col_idx[k] <= i) {
                    cols.push_back(a.col_idx[k]);
                    vals.push_back(a.values[k]);
                }
            if (cols.size() > static_cast<std::size_t>(INT32_MAX)) throw std::length_error("more than 2^31-1 entries: beyond 32-bit row offsets");
            rows[static_cast<std::size_t>(i) + 1] = static_cast<std::int32_t>(cols.size());
        }
        const std::int64_t nnz = static_cast<std::int64_t>(cols.size());
        DeviceArray d_rows(rows.size() * sizeof(std::int32_t), rows.data()), d_cols(cols.size() * sizeof(std::int32_t), cols.data());
        DeviceArray d_vals(vals.size() * sizeof(double), vals.data()), d_b(b.size() * sizeof(double), b.data()), d_x(b.size() * sizeof(double));
        const CudssApi& f = lib.api();
        Objects o(f);
        check_cudss(f.create(&o.handle), "cudssCreate");
        check_cudss(f.config_create(&o.config), "cudssConfigCreate");
        check_cudss(f.data_create(o.handle, &o.data), "cudssDataCreate");
        const int mtype = structure == CudssStructure::spd ? cudss_c::mtype_spd : structure == CudssStructure::symmetric ? cudss_c::mtype_symmetric : cudss_c::mtype_general;
        check_cudss(f.matrix_create_csr(&o.a, n, n, nnz, d_rows.p, nullptr, d_cols.p, d_vals.p, CUDA_R_32I, CUDA_R_64F, mtype,
                                        lower ? cudss_c::view_lower : cudss_c::view_full, cudss_c::base_zero),
                    "cudssMatrixCreateCsr");
        check_cudss(f.matrix_create_dn(&o.x, n, 1, n, d_x.p, CUDA_R_64F, cudss_c::layout_col_major), "cudssMatrixCreateDn (x)");
        check_cudss(f.matrix_create_dn(&o.b, n, 1, n, d_b.p, CUDA_R_64F, cudss_c::layout_col_major), "cudssMatrixCreateDn (b)");
        auto phase = [&](int p, const char* what) {
            const Timer t;
            check_cudss(f.execute(o.handle, p, o.config, o.data, o.a, o.x, o.b), what);
            check_cuda(cudaDeviceSynchronize(), what);
            return t.seconds();
        };
        r.analyze_s = phase(cudss_c::phase_analysis, "cudssExecute(ANALYSIS)");
        r.first_s = phase(cudss_c::phase_factorization, "cudssExecute(FACTORIZATION)");
        std::size_t written = 0;
        check_cudss(f.data_get(o.handle, o.data, cudss_c::data_info, &r.info, sizeof r.info, &written), "cudssDataGet(INFO)");
        std::int64_t lu_nnz = -1;
        if (f.data_get(o.handle, o.data, cudss_c::data_lu_nnz, &lu_nnz, sizeof lu_nnz, &written) == 0) r.factor_nnz = lu_nnz;
        if (r.info == 0)
            for (int k = 0; k < repeats; ++k) {
                r.runs_s.push_back(phase(cudss_c::phase_refactorization, "cudssExecute(REFACTORIZATION)"));
                check_cudss(f.data_get(o.handle, o.data, cudss_c::data_info, &r.info, sizeof r.info, &written), "cudssDataGet(INFO)");
                if (r.info != 0) break;
            }
        r.best_s = r.runs_s.empty() ? r.first_s : *std::min_element(r.runs_s.begin(), r.runs_s.end());
        if (r.info == 0) {
            r.solve_s = phase(cudss_c::phase_solve, "cudssExecute(SOLVE)");
            r.x.resize(b.size());
            check_cuda(cudaMemcpy(r.x.data(), d_x.p, b.size() * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy to the host");
        }
        r.status = "ok";
    } catch (const std::exception& e) {
        r.status = std::string("failed: ") + e.what();
        r.x.clear();
    }
    return r;
}

}  // namespace gigasparse::bench
