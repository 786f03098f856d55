// bench/spgemm/bench_spgemm.cpp: SpGEMM benchmark: gigasparse cpu (MAGNUS/OpenMP) against the reference,
// SuiteSparse:GraphBLAS, Intel MKL and Eigen in the same run on the same inputs, every output checked against
// ours. Peak memory: our extra heap (every operator new of the process is counted) and, for every library,
// the resident-set high-water mark of its first call. Prints a table and writes JSON (run context + one
// object per input).
#include <malloc.h>
#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <new>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/timer.hpp>
#include <gigasparse/gen/generators.hpp>
#include <gigasparse/io/matrix_market.hpp>
#include <gigasparse/reference/kernels.hpp>
#include <gigasparse/spgemm.hpp>

#include "common/context.hpp"
#include "common/json.hpp"
#include "competitors.hpp"

namespace gs = gigasparse;
using gs::bench::Matrix;
using gs::tools::Json;

// Heap accounting of this process (operator new/delete: std::vector and everything else of ours): live bytes
// and their high-water mark since the last reset. A 16-byte header keeps each block's size.
namespace heap {
std::atomic<std::int64_t> live{0}, peak{0};
void* allocate(std::size_t n) {
    void* p = std::malloc(n + 16);
    if (!p) throw std::bad_alloc();
    *static_cast<std::size_t*>(p) = n;
    const std::int64_t now = live.fetch_add(static_cast<std::int64_t>(n), std::memory_order_relaxed) + static_cast<std::int64_t>(n);
    std::int64_t old = peak.load(std::memory_order_relaxed);
    while (now > old && !peak.compare_exchange_weak(old, now, std::memory_order_relaxed)) {
    }
    return static_cast<char*>(p) + 16;
}
void release(void* q) noexcept {
    if (!q) return;
    void* p = static_cast<char*>(q) - 16;
    live.fetch_sub(static_cast<std::int64_t>(*static_cast<std::size_t*>(p)), std::memory_order_relaxed);
    std::free(p);
}
void reset_peak() { peak.store(live.load()); }
}  // namespace heap

void* operator new(std::size_t n) { return heap::allocate(n); }
void* operator new[](std::size_t n) { return heap::allocate(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    try {
        return heap::allocate(n);
    } catch (...) {
        return nullptr;
    }
}
void operator delete(void* p) noexcept { heap::release(p); }
void operator delete[](void* p) noexcept { heap::release(p); }
void operator delete(void* p, std::size_t) noexcept { heap::release(p); }
void operator delete[](void* p, std::size_t) noexcept { heap::release(p); }

namespace {

// Resident-set high-water mark of one call above the resident set before it (Linux: clear_refs 5 resets
// VmHWM). Counts every library's memory, whichever allocator it uses. -1 when /proc is not available.
std::int64_t status_kib(const char* key) {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(key, 0) == 0) return std::stoll(line.substr(std::string(key).size()));
    return -1;
}
template <class F>
std::int64_t rss_peak_delta(F&& fn) {
    malloc_trim(0);  // give freed memory back first, so that the call's own pages show
    const std::int64_t before = status_kib("VmRSS:");
    { std::ofstream("/proc/self/clear_refs") << "5"; }
    fn();
    const std::int64_t hwm = status_kib("VmHWM:");
    return before < 0 || hwm < 0 ? -1 : (hwm - before) * 1024;
}

struct Config {
    int threads = 2;
    int repeats = 3;
    std::vector<int> rmat_scales = {14, 15, 16, 17, 18};
    std::vector<int> rmat_ab_nnz = {4, 8, 16, 32};  // A with k nnz/row x B with 8 (gMAGNUS set), at scale rmat_ab_scale
    int rmat_ab_scale = 16;
    std::int64_t poisson_n = 64;
    std::vector<std::string> matrices = {"bcsstk13", "ex6", "ego-Facebook", "ca-CondMat", "astro-ph", "wing", "bcsstk16", "email-Enron",
                                         "cont-201_kkt", "MIT8", "bcsstk33_pattern", "soc-Slashdot0902", "wave"};
    std::string matrix_dir = GIGASPARSE_BENCH_MATRIX_DIR;
    std::string json_path;
    double stream_gbs = 32.0;            // measured STREAM copy bandwidth, 2 cores (issue 3)
    double first_touch_gbs = 0;          // first touch of fresh memory (0 = measured at start, huge pages advised)
    double max_reference_work = 1.5e9;   // reference runs only when products + nrows*ncols stays below this
    double max_products = 3.0e9;         // inputs beyond are skipped (memory and time)
    double max_eigen_products = 2.0e8;   // Eigen (sequential) runs only up to this many products
    std::string competitors = "graphblas,mkl,eigen";
    std::int64_t serial_products = -1;   // SpgemmOptions::serial_products (-1 = the library default)
    std::int64_t fused_products = -1;    // SpgemmOptions::fused_products (-1 = the library default)
};

struct Input {
    std::string name;
    Matrix a, b;
};

// Random values in [0.5, 1.5] on a pattern (generators give ones; checks need varied values).
Matrix with_values(Matrix m, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.5, 1.5);
    for (auto& v : m.values) v = u(rng);
    return m;
}

double products_of(const Matrix& a, const Matrix& b) {
    double n = 0;
    for (std::int64_t i = 0; i < a.nrows; ++i)
        for (gs::offset_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) n += static_cast<double>(b.row_ptr[a.col_idx[p] + 1] - b.row_ptr[a.col_idx[p]]);
    return n;
}

// Best wall time: one warm-up, then `repeats` runs (slow runs: the warm-up plus one more; runs under 0.2 s:
// 4 x repeats, as scheduler ticks of a shared machine hit short runs hardest).
template <class F>
double time_best(int repeats, F&& fn, std::int64_t* rss = nullptr) {
    gs::Timer t;
    if (rss) *rss = rss_peak_delta(fn);  // the warm-up call also gives the memory high-water mark
    else fn();
    double best = t.seconds();
    const int n = best > 2.0 ? 1 : best < 0.2 ? 4 * repeats : repeats;
    for (int r = 0; r < n; ++r) {
        t.reset();
        fn();
        best = std::min(best, t.seconds());
    }
    return best;
}

// "ok" when b has a's pattern and values within 1e-9 relative to the row maximum, else what differs.
std::string compare(const Matrix& ours, const Matrix& other) {
    if (ours.nrows != other.nrows || ours.ncols != other.ncols) return "shape differs";
    if (ours.row_ptr != other.row_ptr) return "row pointers differ (nnz " + std::to_string(ours.nnz()) + " vs " + std::to_string(other.nnz()) + ")";
    if (ours.col_idx != other.col_idx) return "columns differ";
    for (std::int64_t i = 0; i < ours.nrows; ++i) {
        double scale = 0;
        for (gs::offset_t p = ours.row_ptr[i]; p < ours.row_ptr[i + 1]; ++p) scale = std::max(scale, std::abs(ours.values[p]));
        for (gs::offset_t p = ours.row_ptr[i]; p < ours.row_ptr[i + 1]; ++p)
            if (std::abs(ours.values[p] - other.values[p]) > 1e-9 * scale) return "values differ in row " + std::to_string(i);
    }
    return "ok";
}

// First touch of fresh anonymous memory with `threads` threads, huge pages advised (as the library does for
// C): GB/s of the second of two 256 MiB tries (the first may pay for memory compaction).
double measure_first_touch(int threads) {
    const std::size_t n = std::size_t(256) << 20;
    double gbs = 0;
    for (int rep = 0; rep < 2; ++rep) {
        gs::Timer t;
        void* p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return 0;
        madvise(p, n, MADV_HUGEPAGE);
        auto* b = static_cast<unsigned char*>(p);
#pragma omp parallel for schedule(static) num_threads(threads)
        for (std::int64_t k = 0; k < static_cast<std::int64_t>(n / 4096); ++k) b[static_cast<std::size_t>(k) * 4096] = 1;
        gbs = static_cast<double>(n) / t.seconds() * 1e-9;
        munmap(p, n);
    }
    return gbs;
}

// MAGNUS ideal bound (notes §1.6): both passes read A, B rows and products; C written once.
double bound_seconds(const Matrix& a, double products, gs::offset_t nnz_c, double gbs) {
    const double read = 2.0 * static_cast<double>(a.nrows + 1) * 8 + static_cast<double>(a.nnz()) * (4 * 8 + 2 * 4 + 8) + products * (2 * 4 + 8);
    const double write = static_cast<double>(a.nrows + 1) * 8 + static_cast<double>(nnz_c) * (4 + 8);
    return (read + write) / (gbs * 1e9);
}

std::vector<Input> make_inputs(const Config& cfg) {
    std::vector<Input> in;
    for (int s : cfg.rmat_scales) {
        gs::gen::RmatOptions o;
        o.scale = s;
        o.edge_factor = 8;
        o.seed = 1;
        const Matrix a = with_values(gs::gen::rmat<double, std::int32_t>(o), 11);
        in.push_back({"rmat" + std::to_string(s) + "_ef8^2", a, a});
    }
    for (int k : cfg.rmat_ab_nnz) {
        gs::gen::RmatOptions oa, ob;
        oa.scale = ob.scale = cfg.rmat_ab_scale;
        oa.edge_factor = k;
        ob.edge_factor = 8;
        oa.seed = 2;
        ob.seed = 3;
        in.push_back({"rmat" + std::to_string(cfg.rmat_ab_scale) + "_ef" + std::to_string(k) + "*ef8", with_values(gs::gen::rmat<double, std::int32_t>(oa), 12),
                      with_values(gs::gen::rmat<double, std::int32_t>(ob), 13)});
    }
    if (cfg.poisson_n > 0) {
        const Matrix p = gs::gen::poisson3d<double, std::int32_t>(cfg.poisson_n, cfg.poisson_n, cfg.poisson_n, 7);
        in.push_back({"poisson3d_" + std::to_string(cfg.poisson_n) + "^2", p, p});
    }
    std::vector<std::string> names = cfg.matrices;
    if (names.size() == 1 && names[0] == "all") {  // every matrix of the directory, by name
        names.clear();
        for (const auto& e : std::filesystem::directory_iterator(cfg.matrix_dir)) {
            const std::string f = e.path().filename().string();
            if (f.size() > 7 && f.substr(f.size() - 7) == ".mtx.gz") names.push_back(f.substr(0, f.size() - 7));
        }
        std::sort(names.begin(), names.end());
    }
    for (const auto& name : names) {
        const std::string path = cfg.matrix_dir + "/" + name + ".mtx.gz";
        try {
            const Matrix a = with_values(gs::io::read_mtx<double, std::int32_t>(path), 14);
            if (a.nrows != a.ncols) {
                std::cerr << "bench_spgemm: skipping " << name << ": not square (" << a.nrows << " x " << a.ncols << "), no A^2\n";
                continue;
            }
            in.push_back({name + "^2", a, a});
        } catch (const std::exception& e) {
            std::cerr << "bench_spgemm: skipping " << path << ": " << e.what() << "\n";
        }
    }
    return in;
}

std::string fmt(double v, int prec = 3) {
    if (!(v >= 0)) return "-";
    std::ostringstream s;
    s.setf(std::ios::fixed);
    s.precision(prec);
    s << v;
    return s.str();
}

struct Row {
    std::string name;
    double products = 0;
    gs::offset_t nnz_c = 0;
    double t_ours = -1, t_ref = -1, t_gb = -1, t_mkl = -1, t_eigen = -1;
};

Json run_input(const Config& cfg, const Input& in, std::vector<std::unique_ptr<gs::bench::Competitor>>& comps, Row& row) {
    row.name = in.name;
    row.products = products_of(in.a, in.b);
    Json j;
    j.set("input", in.name).set("nrows", in.a.nrows).set("ncols", in.b.ncols).set("nnz_a", in.a.nnz()).set("nnz_b", in.b.nnz());
    j.set("products", row.products);
    if (row.products > cfg.max_products) return j.set("skipped", "too many products");
    gs::SpgemmOptions opt;
    opt.threads = cfg.threads;
    if (cfg.serial_products >= 0) opt.serial_products = cfg.serial_products;
    if (cfg.fused_products >= 0) opt.fused_products = cfg.fused_products;
    Matrix ours;
    gs::SpgemmStats stats, best_stats;
    double best = std::numeric_limits<double>::infinity();
    // Our extra memory, exact: the heap high-water mark of one call above what was live before it, minus C.
    heap::reset_peak();
    const std::int64_t live0 = heap::live.load();
    ours = gs::multiply<double, std::int32_t>(in.a, in.b, opt, &stats);
    const std::int64_t c_bytes = static_cast<std::int64_t>(ours.row_ptr.size() * sizeof(gs::offset_t) + ours.col_idx.size() * sizeof(std::int32_t) +
                                                           ours.values.size() * sizeof(double));
    const std::int64_t extra = heap::peak.load() - live0 - c_bytes;
    ours = Matrix();
    std::int64_t rss_ours = -1;
    time_best(
        cfg.repeats,
        [&] {
            gs::Timer t;
            ours = Matrix();  // the previous result is freed first and inside the timing, as every competitor adapter does
            ours = gs::multiply<double, std::int32_t>(in.a, in.b, opt, &stats);
            if (t.seconds() < best) {
                best = t.seconds();
                best_stats = stats;
            }
        },
        &rss_ours);
    row.t_ours = best;
    row.nnz_c = ours.nnz();
    const double flops = 2.0 * row.products;
    Json times, gflops, checks, phases, cats, memory;
    memory.set("c_bytes", c_bytes).set("gigasparse_extra_heap", extra).set("gigasparse_extra_fraction_of_c", static_cast<double>(extra) / static_cast<double>(std::max<std::int64_t>(c_bytes, 1)));
    memory.set("rss_peak_gigasparse", rss_ours).set("gigasparse_workspace", stats.workspace_bytes).set("gigasparse_plan", stats.plan_bytes);
    times.set("gigasparse", best);
    gflops.set("gigasparse", flops / best * 1e-9);
    phases.set("setup", best_stats.setup_seconds).set("symbolic", best_stats.symbolic_seconds).set("numeric", best_stats.numeric_seconds).set("fused", best_stats.fused);
    for (int c = 0; c < gs::spgemm_category_count; ++c) cats.set(gs::to_string(static_cast<gs::SpgemmCategory>(c)), best_stats.category_rows[c]);
    if (row.products + static_cast<double>(in.a.nrows) * static_cast<double>(in.b.ncols) <= cfg.max_reference_work) {
        Matrix ref;
        row.t_ref = time_best(1, [&] { ref = gs::reference::spgemm<double, std::int32_t>(in.a, in.b); });
        times.set("reference", row.t_ref);
        gflops.set("reference", flops / row.t_ref * 1e-9);
        checks.set("gigasparse_vs_reference", compare(ref, ours));
    }
    for (auto& c : comps) {
        if (c->name() == "eigen" && row.products > cfg.max_eigen_products) {
            checks.set(c->name(), "skipped (sequential; products above --eigen-max-products)");
            continue;
        }
        try {
            c->prepare(in.a, in.b);
            std::int64_t rss = -1;
            const double t = time_best(cfg.repeats, [&] { c->run(); }, &rss);
            (c->name() == "graphblas" ? row.t_gb : c->name() == "mkl" ? row.t_mkl : row.t_eigen) = t;
            memory.set("rss_peak_" + c->name(), rss);
            times.set(c->name(), t);
            gflops.set(c->name(), flops / t * 1e-9);
            checks.set(c->name(), compare(ours, c->result()));
        } catch (const std::exception& e) {
            checks.set(c->name(), std::string("failed: ") + e.what());
        }
    }
    const double bound = bound_seconds(in.a, row.products, row.nnz_c, cfg.stream_gbs);
    // The same bound plus the first touch of C (page faults of fresh memory; issue 3 asks to model it).
    const double bound_ft = bound + (cfg.first_touch_gbs > 0 ? static_cast<double>(c_bytes) / (cfg.first_touch_gbs * 1e9) : 0.0);
    j.set("nnz_c", row.nnz_c).set("memory", memory).set("times", times).set("gflops", gflops).set("phases", phases).set("categories", cats);
    j.set("fine_chunk_cols", best_stats.fine_chunk_cols).set("bound_seconds", bound).set("times_bound", best / bound)
        .set("bound_first_touch_seconds", bound_ft).set("times_bound_first_touch", best / bound_ft).set("checks", checks);
    std::cout << "  " << in.name << ": ours " << fmt(best * 1e3, 1) << " ms, extra heap " << fmt(100.0 * static_cast<double>(extra) / static_cast<double>(std::max<std::int64_t>(c_bytes, 1)), 1)
              << "% of C, checks " << checks.str() << "\n" << std::flush;
    return j;
}

void print_table(const std::vector<Row>& rows) {
    std::printf("\n%-24s %12s %12s %9s %9s %9s %9s %9s %8s %8s\n", "input", "products", "nnz(C)", "ours", "ref", "GrB", "MKL", "Eigen", "xGrB", "xMKL");
    std::printf("%-24s %12s %12s %9s %9s %9s %9s %9s %8s %8s\n", "", "", "", "GFLOP/s", "GFLOP/s", "GFLOP/s", "GFLOP/s", "GFLOP/s", "", "");
    auto gf = [](const Row& r, double t) { return t > 0 ? fmt(2 * r.products / t * 1e-9, 2) : std::string("-"); };
    double lg = 0, lm = 0;
    int ng = 0, nm = 0;
    for (const auto& r : rows) {
        if (r.t_ours < 0) continue;
        const double sg = r.t_gb > 0 ? r.t_gb / r.t_ours : -1, sm = r.t_mkl > 0 ? r.t_mkl / r.t_ours : -1;
        if (sg > 0) lg += std::log(sg), ++ng;
        if (sm > 0) lm += std::log(sm), ++nm;
        std::printf("%-24s %12.0f %12lld %9s %9s %9s %9s %9s %8s %8s\n", r.name.c_str(), r.products, static_cast<long long>(r.nnz_c), gf(r, r.t_ours).c_str(),
                    gf(r, r.t_ref).c_str(), gf(r, r.t_gb).c_str(), gf(r, r.t_mkl).c_str(), gf(r, r.t_eigen).c_str(), fmt(sg, 2).c_str(), fmt(sm, 2).c_str());
    }
    std::printf("geometric-mean speedup: %s x over GraphBLAS (%d inputs), %s x over MKL (%d inputs)\n", ng ? fmt(std::exp(lg / ng), 2).c_str() : "-", ng,
                nm ? fmt(std::exp(lm / nm), 2).c_str() : "-", nm);
}

std::vector<int> int_list(const std::string& s) {
    std::vector<int> v;
    std::stringstream ss(s);
    std::string x;
    while (std::getline(ss, x, ',')) if (!x.empty()) v.push_back(std::stoi(x));
    return v;
}

std::vector<std::string> str_list(const std::string& s) {
    std::vector<std::string> v;
    std::stringstream ss(s);
    std::string x;
    while (std::getline(ss, x, ',')) if (!x.empty()) v.push_back(x);
    return v;
}

Config parse(int argc, char** argv) {
    Config c;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) throw std::runtime_error("missing value after " + a);
            return argv[++i];
        };
        if (a == "--threads") c.threads = std::stoi(next());
        else if (a == "--repeats") c.repeats = std::stoi(next());
        else if (a == "--rmat-scales") c.rmat_scales = int_list(next());
        else if (a == "--rmat-ab") c.rmat_ab_nnz = int_list(next());
        else if (a == "--rmat-ab-scale") c.rmat_ab_scale = std::stoi(next());
        else if (a == "--poisson") c.poisson_n = std::stoll(next());
        else if (a == "--matrices") c.matrices = str_list(next());
        else if (a == "--matrix-dir") c.matrix_dir = next();
        else if (a == "--json") c.json_path = next();
        else if (a == "--stream-gbs") c.stream_gbs = std::stod(next());
        else if (a == "--first-touch-gbs") c.first_touch_gbs = std::stod(next());
        else if (a == "--eigen-max-products") c.max_eigen_products = std::stod(next());
        else if (a == "--max-products") c.max_products = std::stod(next());
        else if (a == "--competitors") c.competitors = next();
        else if (a == "--serial-products") c.serial_products = std::stoll(next());
        else if (a == "--fused-products") c.fused_products = std::stoll(next());
        else if (a == "--quick") c.rmat_scales = {12, 13}, c.rmat_ab_nnz = {4}, c.rmat_ab_scale = 12, c.poisson_n = 20, c.matrices = {"bcsstk13", "ca-CondMat"};
        else throw std::runtime_error("unknown option " + a +
                                      " (--threads N --repeats R --rmat-scales 14,15 --rmat-ab 4,8 --rmat-ab-scale S --poisson N "
                                      "--matrices a,b|all --matrix-dir D --json FILE --stream-gbs G --eigen-max-products P --max-products P "
                                      "--competitors graphblas,mkl,eigen --first-touch-gbs G --serial-products N --fused-products N --quick)");
    }
    return c;
}

}  // namespace

int main(int argc, char** argv) try {
    Config cfg = parse(argc, argv);
    omp_set_num_threads(cfg.threads);
    if (cfg.first_touch_gbs <= 0) cfg.first_touch_gbs = measure_first_touch(cfg.threads);
    std::vector<std::unique_ptr<gs::bench::Competitor>> comps;
    for (auto make : {gs::bench::make_graphblas, gs::bench::make_mkl, gs::bench::make_eigen})
        if (auto c = make(cfg.threads))
            if (cfg.competitors.find(c->name()) != std::string::npos) comps.push_back(std::move(c));
    std::cout << "bench_spgemm: " << cfg.threads << " threads, competitors:";
    for (auto& c : comps) std::cout << " " << c->name();
    std::cout << "\n";
    const std::vector<Input> inputs = make_inputs(cfg);
    std::vector<Row> rows;
    std::string results;
    const Json context = gs::tools::run_context();
    auto loadavg = [] {  // the 1-, 5- and 15-minute load averages (a shared machine: record how busy it was)
        std::ifstream in("/proc/loadavg");
        std::string a, b, c;
        in >> a >> b >> c;
        return a + " " + b + " " + c;
    };
    const std::string load_start = loadavg();
    for (const auto& in : inputs) {
        Row r;
        const Json j = run_input(cfg, in, comps, r);
        rows.push_back(r);
        if (!results.empty()) results += ',';
        results += j.str();
        if (!cfg.json_path.empty()) {  // rewritten after every input: a long run interrupted keeps what it measured
            Json out;
            out.set("benchmark", "spgemm").set("context", context).set("stream_gbs", cfg.stream_gbs).set("first_touch_gbs", cfg.first_touch_gbs);
            out.set("loadavg_start", load_start).set("loadavg_end", loadavg()).set("threads", cfg.threads);
            out.set_raw("results", "[" + results + "]");
            std::ofstream(cfg.json_path) << out.str() << "\n";
        }
    }
    print_table(rows);
    if (!cfg.json_path.empty()) std::cout << "wrote " << cfg.json_path << "\n";
    return 0;
} catch (const std::exception& e) {
    std::cerr << "bench_spgemm: " << e.what() << "\n";
    return 1;
}
