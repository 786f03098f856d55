// tests/cuda_sim/offload_bytes.cpp: the bytes the direct solver's GPU fronts move across the bus, counted exactly on
// the CUDA simulator (the same GpuFrontOffload as on a GPU; its cuBLAS/cuSOLVER are the host's BLAS/LAPACK). For
// each problem it factors with every front of at least --rows rows offloaded, four ways:
//   copy all   every front assembled on the host, every contribution block back to the host (a budget of 0)
//   keep       host assembly, blocks kept on the device for an offloaded parent
//   auto       the default (option gpu_assembly): blocks kept, each front assembled where fewer bytes cross the bus
//   device     blocks kept, every front assembled on the device
// and checks each factor against the cpu backend's (max relative difference). The bus is what limits these
// fronts on a GPU whose dense kernels run at tens of TFLOP/s; this counts it without one.
//
// Usage: cuda_sim_offload_bytes [--n N] [--rows R] [--structure spd|symmetric|general|all]
//   spd: the 7-point Laplacian on an N³ grid; symmetric: it shifted by -0.5 (indefinite: LDLᵀ with 2×2 pivots);
//   general: convection-diffusion on the grid (LU). Prints one table.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <gigasparse/direct/solver.hpp>
#include <gigasparse/gen/generators.hpp>

#include "direct/numeric/cuda/gpu_fronts.cuh"
#include "direct/numeric/front_offload.hpp"
#include "direct/numeric/numeric.hpp"

namespace {

namespace gs = gigasparse;
namespace dr = gigasparse::direct;
using dr::GpuAssembly;

struct Way {
    const char* name;
    std::int64_t budget;  // -1: the device's free memory
    GpuAssembly assembly;
};

double max_rel_diff(const std::vector<double>& got, const std::vector<double>& ref) {
    double d = 0, s = 0;
    for (std::size_t k = 0; k < ref.size(); ++k) {
        d = std::max(d, std::abs(got[k] - ref[k]));
        s = std::max(s, std::abs(ref[k]));
    }
    return s > 0 ? d / s : d;
}

int run(const std::string& structure, std::int64_t n, std::int64_t rows) {
    gs::Csr<double, std::int32_t> a;
    dr::Structure st = dr::Structure::spd;
    if (structure == "general") {
        a = gs::gen::convection_diffusion<double, std::int32_t>(n, n, n, 40.0, -25.0, 10.0);
        st = dr::Structure::general;
    } else {
        a = gs::gen::poisson3d<double, std::int32_t>(n, n, n);
        if (structure == "symmetric") {
            st = dr::Structure::symmetric;
            for (std::int64_t r = 0; r < a.nrows; ++r)
                for (gs::offset_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
                    if (a.col_idx[k] == r) a.values[k] -= 0.5;
        }
    }
    dr::DirectSolver<double, std::int32_t> solver(st);
    if (st == dr::Structure::general) solver.set_option("matching", "0");  // the values as given
    solver.analyze(a.view());
    const dr::Symbolic& sym = solver.symbolic();
    dr::NumericParams prm;
    prm.threads = 2;
    prm.ldlt = st == dr::Structure::symmetric;
    prm.lu = st == dr::Structure::general;
    prm.tau = prm.ldlt || prm.lu ? 1e-12 : 0.0;
    prm.pivot_block = 64;
    prm.offload_rows = rows;
    std::int64_t fronts = 0;
    double panel_bytes = 0;
    for (dr::idx sn = 0; sn < sym.nsuper; ++sn) {
        const dr::idx f = sym.front_rows(sn);
        if (f < rows) continue;
        ++fronts;
        panel_bytes += 8.0 * f * sym.width(sn) * (prm.lu ? 2 : 1);
    }
    std::printf("%s, %lld³ grid: n %lld, %lld fronts of >= %lld rows offloaded (their panels %.3f GB)\n", structure.c_str(),
                static_cast<long long>(n), static_cast<long long>(a.nrows), static_cast<long long>(fronts), static_cast<long long>(rows),
                panel_bytes * 1e-9);
    dr::NumericFactor<double> ref;
    dr::allocate_numeric(sym, ref);
    dr::idx fail = -1;
    if (dr::factor_multifrontal<double>(sym, ref, a.values, fail, prm) != dr::Status::success) {
        std::fprintf(stderr, "offload_bytes: the cpu factorization failed at column %lld\n", static_cast<long long>(fail));
        return 1;
    }
    std::printf("  %-10s %10s %8s %10s %12s %10s %9s\n", "way", "GB bus", "kept", "kept GB", "dev assembled", "peak GB", "diff");
    int rc = 0;
    for (const Way& way : {Way{"copy all", 0, GpuAssembly::host}, Way{"keep", -1, GpuAssembly::host}, Way{"auto", -1, GpuAssembly::automatic},
                           Way{"device", -1, GpuAssembly::device}}) {
        gs::cuda::GpuFrontOffload off(0, way.budget);
        dr::NumericFactor<double> num;
        dr::allocate_numeric(sym, num);
        dr::NumericParams p = prm;
        p.offload = &off;
        p.offload_assembly = way.assembly;
        if (dr::factor_multifrontal<double>(sym, num, a.values, fail, p) != dr::Status::success) {
            std::printf("  %-10s FAILED at column %lld\n", way.name, static_cast<long long>(fail));
            rc = 1;
            continue;
        }
        const dr::FrontOffloadStats s = off.stats();
        const double diff = std::max(max_rel_diff(num.lx, ref.lx), max_rel_diff(num.ux, ref.ux));
        std::printf("  %-10s %10.3f %8lld %10.3f %12lld %10.3f %9.1e\n", way.name, static_cast<double>(s.bytes) * 1e-9,
                    static_cast<long long>(s.kept), static_cast<double>(s.kept_bytes) * 1e-9, static_cast<long long>(s.device_assembled),
                    static_cast<double>(s.peak_bytes) * 1e-9, diff);
        if (s.fronts != fronts || !(diff <= 1e-9)) rc = 1;
    }
    return rc;
}

}  // namespace

int main(int argc, char** argv) {
    std::int64_t n = 40, rows = 1024;
    std::string structure = "all";
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (i + 1 < argc && arg == "--n") n = std::atoll(argv[++i]);
        else if (i + 1 < argc && arg == "--rows") rows = std::atoll(argv[++i]);
        else if (i + 1 < argc && arg == "--structure") structure = argv[++i];
        else {
            std::fprintf(stderr, "usage: cuda_sim_offload_bytes [--n N] [--rows R] [--structure spd|symmetric|general|all]\n");
            return 2;
        }
    }
    if (structure != "all" && structure != "spd" && structure != "symmetric" && structure != "general") {
        std::fprintf(stderr, "offload_bytes: unknown structure '%s'\n", structure.c_str());
        return 2;
    }
    if (n < 2 || rows < 1) {
        std::fprintf(stderr, "offload_bytes: --n must be at least 2 and --rows at least 1\n");
        return 2;
    }
    int rc = 0;
    try {
        for (const std::string s : {"spd", "symmetric", "general"})
            if (structure == "all" || structure == s) rc |= run(s, n, rows);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "offload_bytes: %s\n", e.what());
        return 1;
    }
    return rc;
}
