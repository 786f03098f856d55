// bench/direct/pardiso_adapter.cpp: MKL PARDISO (pip mkl-devel, libmkl_gnu_thread) for real SPD input
// (mtype 2), real unsymmetric input (mtype 11, LU) or real symmetric indefinite input (mtype -2: Bunch-Kaufman pivoting inside the supernodes, pivot
// perturbation 1e-8, and the symmetric scaling + weighted matching MKL recommends for such matrices): upper triangle in 0-based CSR with 32-bit indices, nested dissection (iparm[1] = 2, METIS),
// the default supernodal factorization, threads through mkl_set_num_threads.
#include "competitors.hpp"

#ifdef GIGASPARSE_BENCH_HAVE_MKL
#include <algorithm>
#include <ctime>
#include <vector>

#include <mkl.h>
#include <mkl_pardiso.h>

#include <gigasparse/core/timer.hpp>
#endif

namespace gigasparse::bench {

#ifdef GIGASPARSE_BENCH_HAVE_MKL
DirectResult run_pardiso(const Csr<double, std::int64_t>& a, int repeats, int threads, int kind,
                         const std::vector<std::int64_t>* schur, bool single) {
    const bool indefinite = kind == 1, general = kind == 2;
    DirectResult r;
    r.available = true;
    if (a.nnz() > 2147483647) {
        r.error = "PARDISO: nnz beyond 32-bit MKL_INT";
        return r;
    }
    mkl_set_num_threads(threads);
    std::vector<MKL_INT> ia(1, 0), ja;
    std::vector<double> av;
    for (std::int64_t i = 0; i < a.nrows; ++i) {
        for (auto k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
            if (general || a.col_idx[k] >= i) {
                ja.push_back(static_cast<MKL_INT>(a.col_idx[k]));
                av.push_back(a.values[k]);
            }
        ia.push_back(static_cast<MKL_INT>(ja.size()));
    }
    void* pt[64] = {};
    MKL_INT iparm[64] = {};
    MKL_INT mtype = general ? 11 : indefinite ? -2 : 2, maxfct = 1, mnum = 1, nrhs = 1, msglvl = 0, error = 0, idum = 0;
    MKL_INT n = static_cast<MKL_INT>(a.nrows);
    iparm[0] = 1;    // iparm set here
    iparm[1] = 2;    // METIS nested dissection
    iparm[7] = 0;    // no iterative refinement steps (as the others: raw factor + solve)
    iparm[9] = indefinite ? 8 : 13;  // pivot perturbation 1e-8 (default for mtype -2), 1e-13 (mtype 11)
    iparm[10] = indefinite || general ? 1 : 0;  // scaling (with the matching below; the default for mtype 11)
    iparm[12] = indefinite || general ? 1 : 0;  // weighted matching (2×2 candidates for -2, MC64-like for 11)
    iparm[17] = -1;  // report nonzeros in the factor
    iparm[18] = -1;  // report the factorization's Mflop count
    iparm[34] = 1;   // zero-based indices
    double ddum = 0;
    std::vector<double> b(static_cast<std::size_t>(a.nrows), 1.0), x(b.size(), 0.0);
    // single: iparm[27] = 1, PARDISO's single-precision mode — a, b and x in float and every internal computation
    // in float (no refinement in double: the solution has float accuracy).
    std::vector<float> af, bf, xf;
    if (single) {
        iparm[27] = 1;
        af.assign(av.begin(), av.end());
        bf.assign(b.begin(), b.end());
        xf.assign(x.size(), 0.0f);
    }
    void* a_in = single ? static_cast<void*>(af.data()) : static_cast<void*>(av.data());
    void* b_in = single ? static_cast<void*>(bf.data()) : static_cast<void*>(b.data());
    void* x_out = single ? static_cast<void*>(xf.data()) : static_cast<void*>(x.data());
    // Schur complement: perm marks the set, iparm[35] = 2 (as PETSc's interface: the Schur complement and the
    // interior factor); the dense complement (row-major) comes back in x of the factorization phase.
    const std::int64_t ks = schur ? static_cast<std::int64_t>(schur->size()) : 0;
    std::vector<MKL_INT> perm(static_cast<std::size_t>(a.nrows), 0);
    std::vector<double> schur_values;
    if (ks > 0) {
        for (auto v : *schur) perm[static_cast<std::size_t>(v)] = 1;
        iparm[35] = 2;
        schur_values.assign(static_cast<std::size_t>(ks * ks), 0.0);
    }
    auto phase = [&](MKL_INT ph, const char* what) {
        void* out = ph == 33 ? x_out : ph == 22 && ks > 0 ? static_cast<void*>(schur_values.data()) : static_cast<void*>(&ddum);
        pardiso(pt, &maxfct, &mnum, &mtype, &ph, &n, a_in, ia.data(), ja.data(), ks > 0 ? perm.data() : &idum, &nrhs,
                iparm, &msglvl, ph == 33 ? b_in : static_cast<void*>(&ddum), out, &error);
        if (error != 0) r.error = std::string("PARDISO ") + what + ": error " + std::to_string(error);
        return error == 0;
    };
    Timer t;
    bool good = phase(11, "analysis");
    r.analyze = t.lap();
    if (good) good = phase(22, "factorization");
    r.factorize = t.lap();
    r.refactorize = r.refactorize_cpu = 1e300;
    for (int k = 0; good && k < repeats; ++k) {
        t.reset();
        std::clock_t c0 = std::clock();
        good = phase(22, "refactorization");
        const double wall = t.seconds(), used = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
        if (wall < r.refactorize) r.refactorize = wall, r.refactorize_cpu = used;  // CPU time of the best repetition
    }
    if (good) {
        r.ordering = "metis";
        r.nnz_L = static_cast<double>(iparm[17]);
        r.flops = 1e6 * static_cast<double>(iparm[18]);
        if (indefinite || general) r.perturbed = static_cast<double>(iparm[13]);
        if (indefinite) r.negative = static_cast<double>(iparm[22]);
    }
    if (good && ks > 0) {
        for (std::int64_t i = 0; i < ks; ++i) r.schur_diag.push_back(schur_values[static_cast<std::size_t>(i * ks + i)]);
    } else if (good) {
        t.reset();
        good = phase(33, "solve");
        r.solve = t.seconds();
        if (good && single) std::copy(xf.begin(), xf.end(), x.begin());
        if (good) r.residual = residual_ones(a, x.data());
    }
    r.ok = good;
    MKL_INT release = -1;
    pardiso(pt, &maxfct, &mnum, &mtype, &release, &n, &ddum, ia.data(), ja.data(), &idum, &nrhs, iparm, &msglvl, &ddum,
            &ddum, &error);
    return r;
}
BatchResult run_pardiso_batch(const Csr<double, std::int64_t>& a, const std::vector<double>& values, std::int64_t count,
                              int threads, int kind) {
    const bool indefinite = kind == 1, general = kind == 2;
    BatchResult r;
    r.available = true;
    mkl_set_num_threads(threads);
    std::vector<MKL_INT> ia(1, 0), ja;
    std::vector<std::int64_t> src;
    for (std::int64_t i = 0; i < a.nrows; ++i) {
        for (auto k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
            if (general || a.col_idx[k] >= i) ja.push_back(static_cast<MKL_INT>(a.col_idx[k])), src.push_back(k);
        ia.push_back(static_cast<MKL_INT>(ja.size()));
    }
    std::vector<double> av(src.size());
    auto load = [&](std::int64_t t) {
        for (std::size_t e = 0; e < src.size(); ++e) av[e] = values[static_cast<std::size_t>(t * a.nnz() + src[e])];
    };
    load(0);
    void* pt[64] = {};
    MKL_INT iparm[64] = {};
    MKL_INT mtype = general ? 11 : indefinite ? -2 : 2, maxfct = 1, mnum = 1, nrhs = 1, msglvl = 0, error = 0, idum = 0;
    MKL_INT n = static_cast<MKL_INT>(a.nrows);
    iparm[0] = 1;
    iparm[1] = 2;
    iparm[7] = 0;
    iparm[9] = indefinite ? 8 : 13;
    iparm[10] = indefinite || general ? 1 : 0;
    iparm[12] = indefinite || general ? 1 : 0;
    iparm[34] = 1;
    double ddum = 0;
    std::vector<double> b(static_cast<std::size_t>(a.nrows), 1.0), x(b.size(), 0.0);
    auto phase = [&](MKL_INT ph, const char* what) {
        pardiso(pt, &maxfct, &mnum, &mtype, &ph, &n, av.data(), ia.data(), ja.data(), &idum, &nrhs, iparm, &msglvl,
                ph == 33 ? b.data() : &ddum, ph == 33 ? x.data() : &ddum, &error);
        if (error != 0) r.error = std::string("PARDISO ") + what + ": error " + std::to_string(error);
        return error == 0;
    };
    Timer t;
    bool good = phase(11, "analysis");
    r.analyze = t.lap();
    Csr<double, std::int64_t> at = a;
    for (std::int64_t k = 0; good && k < count; ++k) {
        load(k);
        t.reset();
        good = phase(22, "factorization");
        r.factorize += t.lap();
        if (good) good = phase(33, "solve");
        r.solve += t.lap();
        std::copy(values.begin() + k * a.nnz(), values.begin() + (k + 1) * a.nnz(), at.values.begin());
        if (good) r.max_residual = std::max(r.max_residual, residual_ones(at, x.data()));
    }
    r.ok = good;
    MKL_INT release = -1;
    pardiso(pt, &maxfct, &mnum, &mtype, &release, &n, &ddum, ia.data(), ja.data(), &idum, &nrhs, iparm, &msglvl, &ddum,
            &ddum, &error);
    return r;
}
#else
DirectResult run_pardiso(const Csr<double, std::int64_t>&, int, int, int, const std::vector<std::int64_t>*, bool) { return {}; }
BatchResult run_pardiso_batch(const Csr<double, std::int64_t>&, const std::vector<double>&, std::int64_t, int, int) { return {}; }
#endif

}  // namespace gigasparse::bench
