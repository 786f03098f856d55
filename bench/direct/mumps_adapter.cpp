// bench/direct/mumps_adapter.cpp: MUMPS 5.5 sequential (Debian libmumps-seq-dev) LDLᵀ for SPD input (SYM = 1),
// centralized assembled lower triangle, its automatic ordering (ICNTL(7) = 7); multithreaded only
// through OpenBLAS (the Debian build has no OpenMP).
#include "competitors.hpp"

#include <cmath>

#ifdef GIGASPARSE_BENCH_HAVE_MUMPS
#include <algorithm>
#include <ctime>
#include <vector>

#include <dmumps_c.h>
#include <mpi.h>

#include <gigasparse/core/timer.hpp>
#endif

namespace gigasparse::bench {

double residual_ones(const Csr<double, std::int64_t>& a, const double* x) {
    double rr = 0;
    for (std::int64_t i = 0; i < a.nrows; ++i) {
        double s = 1.0;
        for (auto k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) s -= a.values[k] * x[a.col_idx[k]];
        rr += s * s;
    }
    return std::sqrt(rr / static_cast<double>(a.nrows > 0 ? a.nrows : 1));
}

#ifdef GIGASPARSE_BENCH_HAVE_MUMPS
namespace {

const char* mumps_ordering(int k) {
    switch (k) {
        case 0: return "amd";
        case 1: return "user";
        case 2: return "amf";
        case 3: return "scotch";
        case 4: return "pord";
        case 5: return "metis";
        case 6: return "qamd";
        default: return "other";
    }
}

// The sequential MUMPS still calls MPI_Init's stand-in once per process.
void ensure_mpi() {
    static bool mpi_up = [] {
        int argc = 0;
        char** argv = nullptr;
        MPI_Init(&argc, &argv);
        return true;
    }();
    (void)mpi_up;
}

bool call(DMUMPS_STRUC_C& id, int job, DirectResult& r, const char* what) {
    id.job = job;
    dmumps_c(&id);
    if (id.infog[0] < 0) {
        r.error = std::string("MUMPS ") + what + ": INFOG(1) = " + std::to_string(id.infog[0]) +
                  ", INFOG(2) = " + std::to_string(id.infog[1]);
        return false;
    }
    return true;
}

// The matrix in MUMPS's form: 1-based coordinates (MUMPS_INT is 32-bit in the Debian build) of the lower
// triangle (symmetric kinds) or of every entry (general); src: each entry's position in a's CSR order.
struct Triplets {
    std::vector<MUMPS_INT> irn, jcn;
    std::vector<std::int64_t> src;
    std::vector<double> val;
};
Triplets triplets(const Csr<double, std::int64_t>& a, bool general) {
    Triplets t;
    for (std::int64_t i = 0; i < a.nrows; ++i)
        for (auto k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
            if (general || a.col_idx[k] <= i) {
                t.irn.push_back(static_cast<MUMPS_INT>(i + 1));
                t.jcn.push_back(static_cast<MUMPS_INT>(a.col_idx[k] + 1));
                t.src.push_back(k);
                t.val.push_back(a.values[k]);
            }
    return t;
}

// An instance on t (sym 0: unsymmetric, 1: SPD, 2: general symmetric with delayed pivots), silent, with its
// automatic ordering choice (ICNTL(7) = 7) and a 60% workspace margin (ICNTL(14)).
void init_mumps(DMUMPS_STRUC_C& id, int sym, std::int64_t n, Triplets& t) {
    ensure_mpi();
    id = DMUMPS_STRUC_C{};
    id.comm_fortran = -987654;  // USE_COMM_WORLD
    id.par = 1;
    id.sym = sym;
    id.job = -1;
    dmumps_c(&id);
    id.icntl[0] = id.icntl[1] = id.icntl[2] = -1;  // no output
    id.icntl[3] = 0;
    id.icntl[6] = 7;
    id.icntl[13] = 60;
    id.n = static_cast<MUMPS_INT>(n);
    id.nnz = static_cast<MUMPS_INT8>(t.val.size());
    id.irn = t.irn.data();
    id.jcn = t.jcn.data();
    id.a = t.val.data();
}

}  // namespace

DirectResult run_mumps(const Csr<double, std::int64_t>& a, int repeats, int kind, const std::vector<std::int64_t>* schur) {
    const bool indefinite = kind == 1, general = kind == 2;
    DirectResult r;
    r.available = true;
    (void)MPI_COMM_WORLD;  // defined (static) by the sequential mpi.h
    Triplets tr = triplets(a, general);
    DMUMPS_STRUC_C id;
    init_mumps(id, general ? 0 : indefinite ? 2 : 1, a.nrows, tr);
    std::vector<MUMPS_INT> listvar;
    std::vector<double> schur_values;
    const std::int64_t ks = schur ? static_cast<std::int64_t>(schur->size()) : 0;
    if (ks > 0) {  // centralized Schur complement (dense, k x k) computed by the factorization
        for (auto v : *schur) listvar.push_back(static_cast<MUMPS_INT>(v + 1));
        schur_values.assign(static_cast<std::size_t>(ks * ks), 0.0);
        id.icntl[18] = 1;  // ICNTL(19)
        id.size_schur = static_cast<MUMPS_INT>(ks);
        id.listvar_schur = listvar.data();
        id.schur = schur_values.data();
    }
    Timer t;
    bool good = call(id, 1, r, "analysis");
    r.analyze = t.lap();
    if (good) good = call(id, 2, r, "factorization");
    r.factorize = t.lap();
    r.refactorize = r.refactorize_cpu = 1e300;
    for (int k = 0; good && k < repeats; ++k) {
        t.reset();
        std::clock_t c0 = std::clock();
        good = call(id, 2, r, "refactorization");
        const double wall = t.seconds(), used = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
        if (wall < r.refactorize) r.refactorize = wall, r.refactorize_cpu = used;  // CPU time of the best repetition
    }
    if (good) {
        r.ordering = mumps_ordering(id.infog[6]);
        // INFOG(29): entries in the factors (may be given in millions when negative); RINFOG(3): flops.
        r.nnz_L = id.infog[28] >= 0 ? static_cast<double>(id.infog[28]) : -1e6 * static_cast<double>(id.infog[28]);
        r.flops = id.rinfog[2];
        // INFOG(13): delayed pivots; INFOG(12): negative pivots.
        if (indefinite || general) r.perturbed = static_cast<double>(id.infog[12]);
        if (indefinite) r.negative = static_cast<double>(id.infog[11]);
    }
    if (good && ks > 0) {
        for (std::int64_t i = 0; i < ks; ++i) r.schur_diag.push_back(schur_values[static_cast<std::size_t>(i * ks + i)]);
    } else if (good) {
        std::vector<double> x(static_cast<std::size_t>(a.nrows), 1.0);
        id.rhs = x.data();
        id.nrhs = 1;
        id.lrhs = id.n;
        t.reset();
        good = call(id, 3, r, "solve");
        r.solve = t.seconds();
        if (good) r.residual = residual_ones(a, x.data());
    }
    r.ok = good;
    id.job = -2;
    dmumps_c(&id);
    return r;
}
BatchResult run_mumps_batch(const Csr<double, std::int64_t>& a, const std::vector<double>& values, std::int64_t count, int kind) {
    const bool indefinite = kind == 1, general = kind == 2;
    BatchResult r;
    r.available = true;
    Triplets tr = triplets(a, general);
    auto load = [&](std::int64_t t) {
        for (std::size_t e = 0; e < tr.src.size(); ++e) tr.val[e] = values[static_cast<std::size_t>(t * a.nnz() + tr.src[e])];
    };
    load(0);
    DMUMPS_STRUC_C id;
    init_mumps(id, general ? 0 : indefinite ? 2 : 1, a.nrows, tr);
    DirectResult d;
    Timer t;
    bool good = call(id, 1, d, "analysis");
    r.analyze = t.lap();
    Csr<double, std::int64_t> at = a;
    std::vector<double> x(static_cast<std::size_t>(a.nrows));
    for (std::int64_t k = 0; good && k < count; ++k) {
        load(k);
        t.reset();
        good = call(id, 2, d, "factorization");
        r.factorize += t.lap();
        std::fill(x.begin(), x.end(), 1.0);
        id.rhs = x.data();
        id.nrhs = 1;
        id.lrhs = id.n;
        if (good) good = call(id, 3, d, "solve");
        r.solve += t.lap();
        std::copy(values.begin() + k * a.nnz(), values.begin() + (k + 1) * a.nnz(), at.values.begin());
        if (good) r.max_residual = std::max(r.max_residual, residual_ones(at, x.data()));
    }
    r.ok = good;
    r.error = d.error;
    id.job = -2;
    dmumps_c(&id);
    return r;
}
InverseDiagonalResult run_mumps_inverse_diagonal(const Csr<double, std::int64_t>& a, int kind) {
    const bool indefinite = kind == 1, general = kind == 2;
    InverseDiagonalResult r;
    r.available = true;
    Triplets tr = triplets(a, general);
    DMUMPS_STRUC_C id;
    init_mumps(id, general ? 0 : indefinite ? 2 : 1, a.nrows, tr);
    // the requested entries: (j, j) for every column j, as a sparse right-hand side in compressed columns
    std::vector<MUMPS_INT> ptr(static_cast<std::size_t>(a.nrows + 1)), rows(static_cast<std::size_t>(a.nrows));
    for (std::int64_t j = 0; j <= a.nrows; ++j) ptr[static_cast<std::size_t>(j)] = static_cast<MUMPS_INT>(j + 1);
    for (std::int64_t j = 0; j < a.nrows; ++j) rows[static_cast<std::size_t>(j)] = static_cast<MUMPS_INT>(j + 1);
    r.diagonal.assign(static_cast<std::size_t>(a.nrows), 0.0);
    DirectResult d;
    Timer t;
    bool good = call(id, 1, d, "analysis");
    r.analyze = t.lap();
    if (good) good = call(id, 2, d, "factorization");
    r.factorize = t.lap();
    if (good) {
        id.icntl[29] = 1;  // ICNTL(30): selected entries of A⁻¹
        id.nz_rhs = static_cast<MUMPS_INT>(a.nrows);
        id.nrhs = static_cast<MUMPS_INT>(a.nrows);
        id.irhs_ptr = ptr.data();
        id.irhs_sparse = rows.data();
        id.rhs_sparse = r.diagonal.data();
        t.reset();
        good = call(id, 3, d, "inverse entries");
        r.inverse = t.seconds();
    }
    r.ok = good;
    r.error = d.error;
    id.job = -2;
    dmumps_c(&id);
    return r;
}
#else
InverseDiagonalResult run_mumps_inverse_diagonal(const Csr<double, std::int64_t>&, int) { return {}; }
DirectResult run_mumps(const Csr<double, std::int64_t>&, int, int, const std::vector<std::int64_t>*) { return {}; }
BatchResult run_mumps_batch(const Csr<double, std::int64_t>&, const std::vector<double>&, std::int64_t, int) { return {}; }
#endif

}  // namespace gigasparse::bench
