// bench/iterative/bench_iterative.cpp: time to solution per ordering vs Eigen, sweep time per schedule, LU-SGS proxy; JSON + table.
#include <algorithm>
#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <string>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/timer.hpp>
#include <gigasparse/io/matrix_market.hpp>
#include <gigasparse/iterative/krylov.hpp>
#include <gigasparse/iterative/lusgs.hpp>

#include "common/blas_kernels.hpp"
#include "common/context.hpp"
#include "common/json.hpp"
#include "eigen_adapter.hpp"
#include "hypre_adapter.hpp"
#include "iterative/problems.hpp"

namespace gs = gigasparse;
namespace it = gigasparse::iterative;
using Mat = gs::Csr<double, std::int32_t>;
using gs::tools::Json;

namespace {

struct Problem {
    std::string name;
    Mat a;
    bool spd = true;
};

std::vector<std::string> records;
int repeats = 1;  // --repeat R: every solve R times, the fastest kept (load noise)

// The 1/5/15-minute load averages (what else ran on the machine), "" when unavailable.
std::string loadavg() {
    std::ifstream f("/proc/loadavg");
    std::string a, b, c;
    f >> a >> b >> c;
    return f ? a + " " + b + " " + c : std::string();
}

void emit(const Json& j) { records.push_back(j.str()); }

// gigasparse: IC(0)-PCG (SPD) or ILU(0)-BiCGStab, b = 1, tol 1e-8, one ordering (variant: a label for
// non-default ordering options).
void run_gigasparse(const Problem& p, it::OrderingKind ok, it::OrderingOptions oo = {}, const std::string& variant = "") {
    it::PrecondOptions po;
    po.kind = p.spd ? it::PrecondKind::ic0 : it::PrecondKind::ilu0;
    po.ordering = oo;
    po.ordering.kind = ok;
    it::SolverOptions so;
    so.method = p.spd ? it::Method::cg : it::Method::bicgstab;
    so.maxit = 5000;
    so.record_history = false;
    std::vector<double> b(p.a.nrows, 1.0), x(p.a.nrows, 0.0);
    std::unique_ptr<it::Preconditioner<double>> m;
    it::SolveResult r;
    double setup = 0, solve = 0;
    for (int rep = 0; rep < repeats; ++rep) {
        std::fill(x.begin(), x.end(), 0.0);
        gs::Timer t;
        auto mr = it::make_preconditioner(p.a.view(), po);
        const double s1 = t.lap();
        auto rr = it::solve<double>(it::csr_operator(p.a.view(), it::Backend::omp), b, x, mr.get(), so);
        const double s2 = t.lap();
        if (rep == 0 || s1 + s2 < setup + solve) m = std::move(mr), r = std::move(rr), setup = s1, solve = s2;
    }
    Json j;
    j.set("kind", "solve").set("problem", p.name).set("rows", p.a.nrows).set("nnz", p.a.nnz()).set("solver", "gigasparse");
    j.set("method", std::string(it::to_string(so.method)) + "+" + it::to_string(po.kind)).set("ordering", it::to_string(m->info().ordering));
    j.set("requested", it::to_string(ok)).set("repeats", repeats).set("iterations", r.iterations).set("converged", r.converged).set("residual", r.residual);
    j.set("depth", m->info().depth).set("setup", setup).set("solve", solve).set("total", setup + solve);
    j.set("ordering_description", m->info().ordering_description).set("sync", it::to_string(m->info().lower.sync));
    if (!variant.empty()) j.set("variant", variant);
    if (!m->info().auto_reason.empty()) j.set("auto_reason", m->info().auto_reason);
    emit(j);
    std::printf("%-22s %-10s %-6s(%-7s) iters %5lld  depth %6lld  setup %8.3f s  solve %8.3f s  total %8.3f s %s %s\n", p.name.c_str(),
                "gigasparse", it::to_string(ok), it::to_string(m->info().ordering), (long long)r.iterations, (long long)m->info().depth, setup,
                solve, setup + solve, r.converged ? "" : "NOT CONVERGED", variant.c_str());
}

void run_eigen(const Problem& p) {
    const std::vector<double> b(p.a.nrows, 1.0);
    auto r = gs::bench::eigen_solve(p.a.view(), b, p.spd, 1e-8, 5000);
    for (int rep = 1; rep < repeats && r.available; ++rep)
        if (const auto s = gs::bench::eigen_solve(p.a.view(), b, p.spd, 1e-8, 5000); s.setup + s.solve < r.setup + r.solve) r = s;
    if (!r.available) return;
    Json j;
    j.set("kind", "solve").set("problem", p.name).set("rows", p.a.nrows).set("nnz", p.a.nnz()).set("solver", "eigen");
    j.set("method", p.spd ? "cg+IncompleteCholesky" : "bicgstab+IncompleteLUT").set("iterations", r.iterations).set("converged", r.converged);
    j.set("residual", r.residual).set("setup", r.setup).set("solve", r.solve).set("total", r.setup + r.solve);
    emit(j);
    std::printf("%-22s %-10s %-15s iters %5lld  %14s  setup %8.3f s  solve %8.3f s  total %8.3f s %s\n", p.name.c_str(), "eigen", "",
                (long long)r.iterations, "", r.setup, r.solve, r.setup + r.solve, r.converged ? "" : "NOT CONVERGED");
}

// hypre (one MPI rank, sequential): ILU(0) or BoomerAMG preconditioning PCG (SPD) or BiCGSTAB.
void run_hypre(const Problem& p, bool amg) {
    const std::vector<double> b(p.a.nrows, 1.0);
    auto r = gs::bench::hypre_solve(p.a.view(), b, p.spd, amg, 1e-8, 5000);
    for (int rep = 1; rep < repeats && r.available; ++rep)
        if (const auto s = gs::bench::hypre_solve(p.a.view(), b, p.spd, amg, 1e-8, 5000); s.setup + s.solve < r.setup + r.solve) r = s;
    if (!r.available) return;
    Json j;
    j.set("kind", "solve").set("problem", p.name).set("rows", p.a.nrows).set("nnz", p.a.nnz()).set("solver", "hypre");
    j.set("method", r.method).set("iterations", r.iterations).set("converged", r.converged);
    j.set("residual", r.residual).set("setup", r.setup).set("solve", r.solve).set("total", r.setup + r.solve);
    emit(j);
    std::printf("%-22s %-10s %-15s iters %5lld  %14s  setup %8.3f s  solve %8.3f s  total %8.3f s %s\n", p.name.c_str(), "hypre", r.method.c_str(),
                (long long)r.iterations, "", r.setup, r.solve, r.setup + r.solve, r.converged ? "" : "NOT CONVERGED");
}

// DC variants on one problem: iterations against depth (the hybrid knob, twisted halves, split method).
void dc_variants(const Problem& p) {
    using S = it::OrderingOptions::DcSplit;
    struct Variant {
        const char* name;
        int levels;
        int relax_from;
        S split;
        bool twisted;
        bool leaf_rcm = false;
    };
    for (const Variant& v : {Variant{"dc 1 level, index split, twisted (default)", -1, -1, S::automatic, true},
                             Variant{"dc 1 level, index split, untwisted", -1, -1, S::automatic, false},
                             Variant{"dc 1 level, METIS split", -1, -1, S::metis, true},
                             Variant{"dc 1 level, index split, twisted, leaves RCM", -1, -1, S::automatic, true, true},
                             Variant{"dc 2 levels, twisted", 2, -1, S::automatic, true},
                             Variant{"dc 3 levels, twisted", 3, -1, S::automatic, true},
                             Variant{"dc 3 levels, separators colored", 3, 0, S::automatic, true}}) {
        it::OrderingOptions oo;
        oo.dc_levels = v.levels;
        oo.dc_relax_from_level = v.relax_from;
        oo.dc_split = v.split;
        oo.dc_twisted = v.twisted;
        oo.dc_leaf_rcm = v.leaf_rcm;
        run_gigasparse(p, it::OrderingKind::dc, oo, v.name);
    }
}

// Best-of-5 time of one lower sweep of the IC(0)/ILU(0) factor under an ordering and a sync kind.
void sweep_time(const Problem& p, it::OrderingKind ok, it::SyncKind sync, it::Backend be, bool dc_leaf_rcm = false) {
    it::OrderingOptions oo;
    oo.kind = ok;
    oo.dc_leaf_rcm = dc_leaf_rcm;
    const auto ord = it::compute_ordering(p.a.view(), oo);
    const Mat b = ord.perm.empty() ? p.a : gs::permute_symmetric(p.a.view(), ord.perm);
    it::TriangularSolve<double, std::int32_t> plan;
    plan.analyze(b.view(), gs::Triangle::lower, false, it::ScheduleOptions{be, sync, 0, 512}, ord.block_ptr);
    std::vector<double> x(b.nrows, 1.0);
    const double t = gs::tools::best_time(5, [&] {
        std::fill(x.begin(), x.end(), 1.0);
        plan.solve(x);
    });
    const auto& s = plan.stats();
    Json j;
    const std::string name = std::string(it::to_string(ok)) + (ok == it::OrderingKind::dc && dc_leaf_rcm ? " (leaves RCM)" : "");
    j.set("kind", "sweep").set("problem", p.name).set("ordering", name).set("sync", it::to_string(s.sync));
    j.set("threads", s.threads).set("depth", s.depth).set("subgraphs", s.subgraphs).set("critical_path", s.critical_path);
    j.set("parallelism", s.parallelism).set("seconds", t);
    emit(j);
    std::printf("%-22s sweep %-8s %-10s threads %2d depth %6lld subgraphs %8lld parallelism %6.1f  %9.3f ms\n", p.name.c_str(),
                name.c_str(), it::to_string(s.sync), s.threads, (long long)s.depth, (long long)s.subgraphs, s.parallelism, t * 1e3);
}

void lusgs_proxy(std::int64_t n) {
    it::CfdProxyOptions o;
    o.nx = o.ny = o.nz = n;
    o.renumber = true;
    const auto a = it::cfd_proxy<double, std::int32_t>(o);
    std::vector<double> b(a.nrows(), 1.0);
    for (const auto ok : {it::OrderingKind::natural, it::OrderingKind::rcm, it::OrderingKind::multicolor, it::OrderingKind::abmc, it::OrderingKind::dc}) {
        it::OrderingOptions oo;
        oo.kind = ok;
        gs::Timer t;
        const it::LuSgs<double, std::int32_t> m(a, oo, it::ScheduleOptions{});
        const double setup = t.lap();
        std::vector<double> x(a.nrows(), 0.0), z(a.nrows());
        const auto drop = m.iterate(b, x, 10);
        const double per_sweep = gs::tools::best_time(5, [&] { m.apply(b, z); });
        Json j;
        j.set("kind", "lusgs").set("problem", "cfd-proxy-" + std::to_string(n) + "^3-5x5-renumbered").set("ordering", it::to_string(ok));
        j.set("depth", m.info().depth).set("residual_after_10", drop.back()).set("sweep_seconds", per_sweep).set("setup", setup);
        emit(j);
        std::printf("lusgs %lld^3 5x5 %-8s depth %6lld  residual after 10 sweeps %.3e  sweep pair %8.3f ms\n", (long long)n, it::to_string(ok),
                    (long long)m.info().depth, drop.back(), per_sweep * 1e3);
    }
}

void solve_all(const Problem& p) {
    const bool auto_first = std::getenv("GS_BENCH_AUTO_FIRST") != nullptr;  // order-effect check
    if (auto_first) run_gigasparse(p, it::OrderingKind::automatic);
    for (const auto ok : {it::OrderingKind::natural, it::OrderingKind::rcm, it::OrderingKind::multicolor, it::OrderingKind::abmc, it::OrderingKind::dc})
        run_gigasparse(p, ok);
    if (!auto_first) run_gigasparse(p, it::OrderingKind::automatic);
    run_eigen(p);
    run_hypre(p, false);
    run_hypre(p, true);
}

}  // namespace

int main(int argc, char** argv) {
    gigasparse::tools::use_native_blas_kernels(argv);  // OpenBLAS kernels as wide as the CPU (see core/blas.hpp)
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress lines as they come
    // glibc raises its mmap threshold after a large block is freed, so later large arrays come from
    // the heap instead of fresh (huge-page eligible) mappings: the same solve then ran 10–25% slower
    // late in a run (measured: auto's RCM solve 0.250 s vs 0.155 s). A fixed threshold makes every
    // configuration independent of what ran before it.
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    const std::string load_start = loadavg();
    bool full = false;
    std::int64_t only3d = 0;
    std::string out = "bench_iterative.json", only;
    for (int k = 1; k < argc; ++k) {
        const std::string s = argv[k];
        if (s == "--full") full = true;
        else if (s == "--out" && k + 1 < argc) out = argv[++k];
        else if (s == "--only-3d" && k + 1 < argc) only3d = std::atoll(argv[++k]);
        else if (s == "--only" && k + 1 < argc) only = std::string(",") + argv[++k] + ",";
        else if (s == "--repeat" && k + 1 < argc) repeats = std::max(1, std::atoi(argv[++k]));
        else {
            std::cerr << "usage: bench_iterative [--full | --only-3d N] [--only PARTS] [--repeat R] [--out FILE.json]\n"
                         "  PARTS: comma-separated subset of poisson2d,poisson3d,aniso,convdiff,bcsstk13,cage8,sweeps,dcvariants,lusgs\n";
            return 2;
        }
    }
    const std::int64_t n2 = full ? 512 : 256, n3 = only3d > 0 ? only3d : full ? 100 : 48;
    std::vector<Problem> problems;
    if (only3d > 0) {  // the DC targets: 3D Poisson sweeps per schedule, natural vs DC time to solution, Eigen
        const Problem p{"poisson3d-" + std::to_string(n3), gs::test::poisson3d<double, std::int32_t>(n3, 7), true};
        sweep_time(p, it::OrderingKind::natural, it::SyncKind::sequential, it::Backend::reference);
        sweep_time(p, it::OrderingKind::dc, it::SyncKind::sequential, it::Backend::reference);  // DC's order on one thread
        sweep_time(p, it::OrderingKind::dc, it::SyncKind::sequential, it::Backend::reference, true);
        sweep_time(p, it::OrderingKind::dc, it::SyncKind::point_to_point, it::Backend::omp, true);
        for (const auto ok : {it::OrderingKind::natural, it::OrderingKind::dc, it::OrderingKind::abmc, it::OrderingKind::multicolor})
            for (const auto sync : {it::SyncKind::point_to_point, it::SyncKind::barrier}) sweep_time(p, ok, sync, it::Backend::omp);
        for (const auto ok : {it::OrderingKind::natural, it::OrderingKind::dc, it::OrderingKind::multicolor, it::OrderingKind::automatic})
            run_gigasparse(p, ok);
        run_eigen(p);
        run_hypre(p, false);
        run_hypre(p, true);
        problems.clear();
    }
    const auto want = [&](const char* part) { return only.empty() || only.find(std::string(",") + part + ",") != std::string::npos; };
    if (only3d == 0) {
        if (want("poisson2d")) problems.push_back({"poisson2d-" + std::to_string(n2), gs::test::poisson2d<double, std::int32_t>(n2), true});
        const Problem p3{"poisson3d-" + std::to_string(n3), want("poisson3d") || want("sweeps") || want("dcvariants")
                                                                ? gs::test::poisson3d<double, std::int32_t>(n3, 7)
                                                                : Mat{},
                         true};
        if (want("poisson3d")) problems.push_back(p3);
        if (want("aniso")) problems.push_back({"aniso2d-256-eps0.01", gs::test::anisotropic2d<double, std::int32_t>(256, 0.01), true});
        if (want("convdiff"))
            problems.push_back({"convdiff2d-256-b100", gs::test::convection_diffusion2d<double, std::int32_t>(256, 100, 100), false});
        const std::string dir = GIGASPARSE_BENCH_MATRIX_DIR;
        for (const auto& [file, spd] : {std::pair<std::string, bool>{"bcsstk13.mtx.gz", true}, {"cage8.mtx.gz", false}}) {
            if (!want(file.substr(0, file.find('.')).c_str())) continue;
            try {
                problems.push_back({file.substr(0, file.find('.')), gs::io::read_mtx<double, std::int32_t>(dir + "/" + file), spd});
            } catch (const gs::Error& e) {
                std::fprintf(stderr, "skipping %s: %s\n", file.c_str(), e.what());
                std::fflush(stderr);
            }
        }
        for (const auto& p : problems) solve_all(p);
        if (want("sweeps")) {
            sweep_time(p3, it::OrderingKind::natural, it::SyncKind::sequential, it::Backend::reference);
            sweep_time(p3, it::OrderingKind::dc, it::SyncKind::sequential, it::Backend::reference);  // DC's order on one thread
            sweep_time(p3, it::OrderingKind::dc, it::SyncKind::sequential, it::Backend::reference, true);
            sweep_time(p3, it::OrderingKind::dc, it::SyncKind::point_to_point, it::Backend::omp, true);
            for (const auto ok : {it::OrderingKind::natural, it::OrderingKind::dc, it::OrderingKind::abmc, it::OrderingKind::multicolor})
                for (const auto sync : {it::SyncKind::point_to_point, it::SyncKind::barrier}) sweep_time(p3, ok, sync, it::Backend::omp);
        }
        if (want("dcvariants")) dc_variants(p3);
        if (want("lusgs")) lusgs_proxy(full ? 40 : 24);
    }
    std::string arr = "[";
    for (std::size_t k = 0; k < records.size(); ++k) arr += (k ? "," : "") + records[k];
    arr += "]";
    Json root;
    root.set("benchmark", "iterative").set("context", gs::tools::run_context()).set("full", full);
    root.set("only", only.empty() ? (only3d > 0 ? "only-3d " + std::to_string(only3d) : std::string("all")) : only.substr(1, only.size() - 2));
    root.set("repeats", repeats).set("malloc_mmap_threshold", 128 * 1024).set("loadavg_start", load_start).set("loadavg_end", loadavg()).set_raw("records", arr);
    std::ofstream(out) << root.str() << "\n";
    std::printf("wrote %s\n", out.c_str());
    return 0;
}
