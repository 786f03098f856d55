// tests/cuda/test_direct_cuda.cpp: the direct solver's fronts on the GPU (backend cuda: cuSOLVER potrf, cuBLAS trsm
// and syrk). Built twice: for the GPU (tests/cuda, label cuda, skipped without a device: DirectSolver end to end)
// and on the CPU simulator of tests/cuda_sim (GIGASPARSE_CUDA_SIM, label unit: the same offload code against the
// simulator's cuBLAS/cuSOLVER, alone on dense fronts and inside the library's multifrontal factorization).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <gigasparse/core/error.hpp>
#include <gigasparse/direct/solver.hpp>
#include <gigasparse/gen/generators.hpp>

#include "cuda/gpu_test_support.hpp"
#include "direct/numeric/dense.hpp"
#include "direct/numeric/front_offload.hpp"
#include "direct/numeric/numeric.hpp"
#include "direct/numeric/omp/ldlt_front.hpp"
#include "direct/numeric/omp/task_pool.hpp"
#include "../direct/front_split_test_utils.hpp"

#ifdef GIGASPARSE_CUDA_SIM
#include "direct/numeric/cuda/gpu_fronts.cuh"
#endif

namespace gs = gigasparse;
namespace dr = gigasparse::direct;

namespace {

// The offload under test: the simulator's build of the GPU class, or the library's (a real device); budget_bytes
// as GpuFrontOffload's (-1: the device's free memory).
std::unique_ptr<dr::FrontOffload> make_offload(std::int64_t budget_bytes = -1) {
#ifdef GIGASPARSE_CUDA_SIM
    return std::make_unique<gs::cuda::GpuFrontOffload>(0, budget_bytes);
#else
    return dr::make_gpu_front_offload(0, budget_bytes);
#endif
}

// The fronts factor_multifrontal hands to the offload (real values, at least prm.offload_rows rows, not the Schur
// complement), and of those the ones whose parent goes there too: their contribution
// blocks stay on the device when it has room.
struct OffloadCounts {
    std::int64_t fronts = 0, kept = 0;
};
OffloadCounts offload_counts(const dr::Symbolic& sym, const dr::NumericParams& prm) {
    const auto offloaded = [&](dr::idx sn) {
        const dr::idx f = sym.front_rows(sn);
        return f >= prm.offload_rows && !sym.is_schur(sn);
    };
    OffloadCounts c;
    for (dr::idx sn = 0; sn < sym.nsuper; ++sn) {
        if (!offloaded(sn)) continue;
        ++c.fronts;
        c.kept += sym.sn_parent[sn] >= 0 && offloaded(sym.sn_parent[sn]);
    }
    return c;
}

// max |got - ref| / max |ref| over the entries of two factors (their common length)
double factor_rel_diff(const std::vector<double>& got, const std::vector<double>& ref) {
    double d = 0, s = 0;
    for (std::size_t k = 0; k < std::min(got.size(), ref.size()); ++k) {
        d = std::max(d, std::abs(got[k] - ref[k]));
        s = std::max(s, std::abs(ref[k]));
    }
    return d / std::max(s, 1e-300);
}

// After a factorization nothing stays on the device.
void expect_nothing_resident(const dr::Symbolic& sym, const dr::FrontOffload& off) {
    dr::idx resident = 0;
    for (dr::idx sn = 0; sn < sym.nsuper; ++sn) resident += off.resident(sn);
    EXPECT_EQ(resident, 0) << "contribution blocks left on the device after the factorization";
}

// A front on its own (no children, nothing kept).
template <class V>
dr::OffloadFront<V> front(std::int64_t f, std::int64_t w) {
    dr::OffloadFront<V> fr;
    fr.f = f, fr.w = w;
    return fr;
}

// A random SPD front of f rows, w fully summed columns: panel (f x w, ld f) and contribution block (m x m).
template <class V>
void random_front(std::int64_t f, std::int64_t w, std::uint64_t seed, std::vector<V>& panel, std::vector<V>& cb) {
    const std::int64_t m = f - w;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    // A = B Bᵀ + f I: SPD, its leading w columns the panel, its trailing block the contribution block
    std::vector<double> b(static_cast<std::size_t>(f * f));
    for (auto& v : b) v = u(rng);
    std::vector<double> a(static_cast<std::size_t>(f * f), 0.0);
    for (std::int64_t j = 0; j < f; ++j)
        for (std::int64_t i = j; i < f; ++i) {
            double s = i == j ? static_cast<double>(f) : 0.0;
            for (std::int64_t k = 0; k < f; ++k) s += b[i + k * f] * b[j + k * f];
            a[i + j * f] = s;
        }
    panel.assign(static_cast<std::size_t>(f * w), V(0));
    for (std::int64_t j = 0; j < w; ++j)
        for (std::int64_t i = j; i < f; ++i) panel[i + j * f] = static_cast<V>(a[i + j * f]);
    cb.assign(static_cast<std::size_t>(std::max<std::int64_t>(m * m, 1)), V(0));
    for (std::int64_t j = 0; j < m; ++j)
        for (std::int64_t i = j; i < m; ++i) cb[i + j * m] = static_cast<V>(a[(w + i) + (w + j) * f]);
}

// The host's partial Cholesky of the same front (the cpu backend's potrf / trsm / herk path).
template <class V>
int host_front(std::int64_t f, std::int64_t w, V* panel, V* cb) {
    const std::int64_t m = f - w;
    const int info = dr::dense::potrf(static_cast<int>(w), panel, static_cast<int>(f));
    if (info != 0 || m == 0) return info;
    dr::dense::trsm(CblasRight, CblasConjTrans, static_cast<int>(m), static_cast<int>(w), panel, static_cast<int>(f), panel + w, static_cast<int>(f));
    dr::dense::herk_minus(static_cast<int>(m), static_cast<int>(w), panel + w, static_cast<int>(f), cb, static_cast<int>(m));
    return 0;
}

gs::Csr<double, std::int32_t> shifted_poisson(std::int64_t m, double shift) {
    auto a = gs::gen::poisson3d<double, std::int32_t>(m, m, m);
    for (std::int64_t r = 0; r < a.nrows; ++r)
        for (gs::offset_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
            if (a.col_idx[k] == r) a.values[k] += shift;
    return a;
}

}  // namespace

// One front at a time: the offload's panel and contribution block equal the host's potrf/trsm/herk (double and
// float, with and without a contribution block), and a front that is not positive definite returns potrf's info.
TEST(CudaDirect, OffloadedFrontMatchesTheHost) {
    SKIP_WITHOUT_GPU();
#ifdef GIGASPARSE_CUDA_SIM
    const SimulatedRunChecks checks;
#endif
    auto off = make_offload();
    struct Shape {
        std::int64_t f, w;
    };
    for (const Shape sh : {Shape{40, 40}, Shape{70, 16}, Shape{129, 64}}) {
        SCOPED_TRACE("f " + std::to_string(sh.f) + " w " + std::to_string(sh.w));
        const std::int64_t m = sh.f - sh.w;
        std::vector<double> p, c, p2, c2;
        random_front(sh.f, sh.w, 7, p, c);
        p2 = p, c2 = c;
        ASSERT_EQ(off->factor(front<double>(sh.f, sh.w), p.data(), c.data()), 0);
        ASSERT_EQ(host_front(sh.f, sh.w, p2.data(), c2.data()), 0);
        EXPECT_LE(gs::test::lower_rel_diff(p, p2, sh.f, sh.w), 1e-13);
        if (m > 0) {
            EXPECT_LE(gs::test::lower_rel_diff(c, c2, m, m), 1e-12);
        }
        std::vector<float> pf, cf, pf2, cf2;
        random_front(sh.f, sh.w, 8, pf, cf);
        pf2 = pf, cf2 = cf;
        ASSERT_EQ(off->factor(front<float>(sh.f, sh.w), pf.data(), cf.data()), 0);
        ASSERT_EQ(host_front(sh.f, sh.w, pf2.data(), cf2.data()), 0);
        EXPECT_LE(gs::test::lower_rel_diff(pf, pf2, sh.f, sh.w), 1e-5);
    }
    const auto st = off->stats();
    EXPECT_EQ(st.fronts, 6);
    EXPECT_GT(st.flops, 0);
    EXPECT_GT(st.bytes, 0);
    // not positive definite at local column 5: potrf's info 6
    std::vector<double> p, c;
    random_front(30, 10, 9, p, c);
    p[5 + 5 * 30] = -1.0;
    EXPECT_EQ(off->factor(front<double>(30, 10), p.data(), c.data()), 6);
    // assembled on the device from A's entries alone (the host's panel and block are not read: NaN there), the
    // contribution block from zero
    {
        const std::int64_t f = 70, w = 16, m = f - w;
        std::vector<double> pa, ca;
        random_front(f, w, 10, pa, ca);
        std::vector<std::int64_t> pos;
        std::vector<double> val;
        for (std::size_t k = 0; k < pa.size(); ++k)
            if (pa[k] != 0) pos.push_back(static_cast<std::int64_t>(k)), val.push_back(pa[k]);
        std::vector<double> hp = pa, hc(ca.size(), 0.0);
        ASSERT_EQ(host_front(f, w, hp.data(), hc.data()), 0);
        auto fr = front<double>(f, w);
        fr.device_assembly = true;
        fr.a_pos = pos;
        fr.a_values = val;
        const double nan = std::numeric_limits<double>::quiet_NaN();
        std::vector<double> dp(pa.size(), nan), dc(ca.size(), nan);
        const auto before = off->stats();
        ASSERT_EQ(off->factor(fr, dp.data(), dc.data()), 0);
        EXPECT_EQ(off->stats().device_assembled - before.device_assembled, 1);
        EXPECT_EQ(off->stats().bytes - before.bytes, static_cast<std::int64_t>(pos.size()) * 16 + (f * w + m * m) * 8)
            << "A's entries up, the panel and the block down";
        EXPECT_LE(gs::test::lower_rel_diff(dp, hp, f, w), 1e-13);
        EXPECT_LE(gs::test::lower_rel_diff(dc, hc, m, m), 1e-12);
    }
    off.reset();
#ifdef GIGASPARSE_CUDA_SIM
    checks.expect_clean("the GPU fronts");
#endif
}

// One random indefinite front (f x w, seed) factored whole by the host's ldlt_front and by the offload's
// ldlt_factor (the device's blocks, each block's pivot tests on the host): the same pivots, 2×2 blocks and
// perturbations, and the same panel and contribution block within tol (relative). Returns the perturbed pivots.
template <class V>
std::int64_t expect_ldlt_offload_matches_host(dr::FrontOffload& off, std::int64_t f, std::int64_t w, std::uint64_t seed, double tol, const dr::LdltFrontParams& lp,
                                      dr::TaskPool& pool) {
    SCOPED_TRACE("f " + std::to_string(f) + " w " + std::to_string(w) + (sizeof(V) == 4 ? " float" : " double") + " tau " + std::to_string(lp.tau));
    const std::int64_t m = f - w;
    std::vector<V> p1, c1;
    gs::test::random_indefinite_front(f, w, seed, p1, c1);
    auto p2 = p1, c2 = c1;
    std::vector<std::int64_t> piv1(static_cast<std::size_t>(w)), piv2(piv1.size(), -1);
    std::vector<std::int8_t> ps1(piv1.size()), ps2(piv1.size(), -1);
    const auto r1 = dr::ldlt_front(f, w, p1.data(), c1.data(), piv1.data(), ps1.data(), nullptr, lp, pool);
    const dr::OffloadLdlt r2 = off.ldlt_factor(front<V>(f, w), lp.block, lp.tau, nullptr, piv2.data(), ps2.data(), p2.data(), c2.data());
    EXPECT_EQ(r1.fail, 0);
    EXPECT_EQ(r2.fail, 0);
    EXPECT_EQ(r2.perturbed, r1.perturbed);
    EXPECT_EQ(piv2, piv1);
    EXPECT_EQ(ps2, ps1);
    EXPECT_GT(gs::test::two_by_two_pivots(ps1), 0) << "the fronts are made to need 2x2 pivots";
    EXPECT_LE(gs::test::lower_rel_diff(p2, p1, f, w), tol);
    std::int64_t upper = 0;
    for (std::int64_t j = 1; j < w; ++j)
        for (std::int64_t i = 0; i < j; ++i) upper += p2[static_cast<std::size_t>(i + j * f)] != V(0);
    EXPECT_EQ(upper, 0) << "nonzeros in the strict upper triangle of F11";
    if (m > 0) {
        EXPECT_LE(gs::test::lower_rel_diff(c2, c1, m, m), tol);
    }
    return r1.perturbed;
}

// LDLᵀ and LU one front at a time, the LDLᵀ front and (the driver's fallback) LU's rows below F11 on the offload:
// the same pivots as the host's whole front, and the same factor and contribution block to rounding (double
// and float, fronts with 2×2 pivots / row swaps, with and without rows below F11, one block or several).
TEST(CudaDirect, OffloadedLdltAndLuFrontsMatchTheHost) {
    SKIP_WITHOUT_GPU();
#ifdef GIGASPARSE_CUDA_SIM
    const SimulatedRunChecks checks;
#endif
    auto off = make_offload();
    dr::TaskPool pool(2);
    dr::LdltFrontParams lp;
    lp.block = 16;
    std::int64_t expected_fronts = 0;
    for (const double tau : {0.0, 0.05, 0.5}) {  // 0.5: above most of the diagonal, pivots perturbed
        std::int64_t perturbed = 0;
        for (const auto& [f, w] : {std::pair<std::int64_t, std::int64_t>{12, 12}, {40, 40}, {70, 16}, {129, 64}, {300, 70}}) {
            lp.tau = tau;
            perturbed += expect_ldlt_offload_matches_host<double>(*off, f, w, 21, 1e-10, lp, pool);
            perturbed += expect_ldlt_offload_matches_host<float>(*off, f, w, 21, 2e-3, lp, pool);
            expected_fronts += 2;
        }
        if (tau == 0.5) {
            EXPECT_GT(perturbed, 0);
        }
    }
    // a zero pivot without perturbation: the host's failing column, and the front is not kept
    {
        lp.tau = 0;
        std::vector<double> p(9 * 3, 0.0), c(36, 0.0);
        std::vector<std::int64_t> piv(3);
        std::vector<std::int8_t> ps(3);
        EXPECT_EQ(dr::ldlt_front(9, 3, p.data(), c.data(), piv.data(), ps.data(), nullptr, lp, pool).fail, 1);
        auto fr = front<double>(9, 3);
        fr.sn = 0;  // a front of an analysis: would stay on the device if it were not dropped
        EXPECT_EQ(off->ldlt_factor(fr, lp.block, 0.0, nullptr, piv.data(), ps.data(), p.data(), c.data()).fail, 1);
        EXPECT_FALSE(off->resident(0));
    }
    // LU: F11 and its row pivots on the host, L21, U12ᵀ and the contribution block on the offload
    dr::LuFrontParams lup;
    lup.block = 16;
    // the driver's fallback: the device refuses F11 (tau above every pivot), lu_update finishes the front from the
    // host's F11 and pivots
    std::int64_t refused = 0;
    const auto lu_rest = [&](std::int64_t f, std::int64_t w, const std::int64_t* pv, auto* panel, auto* upanel, auto* cb) {
        std::vector<std::int64_t> unused(static_cast<std::size_t>(w), -1);
        const auto fr = front<std::remove_cvref_t<decltype(*panel)>>(f, w);
        EXPECT_FALSE(off->lu_factor(fr, 1e300, unused.data(), panel, upanel, cb));
        EXPECT_EQ(unused, std::vector<std::int64_t>(static_cast<std::size_t>(w), -1)) << "pivots written by a refused F11";
        ++refused;
        off->lu_update(fr, pv, panel, upanel, cb);
    };
    for (const auto& [f, w] : {std::pair<std::int64_t, std::int64_t>{40, 40}, {70, 16}, {129, 64}, {300, 70}}) {
        expected_fronts += gs::test::expect_lu_split_matches_whole<double>(f, w, 23, 1e-10, lup, pool, lu_rest);
        expected_fronts += gs::test::expect_lu_split_matches_whole<float>(f, w, 23, 2e-3, lup, pool, lu_rest);
    }
    const auto st = off->stats();
    EXPECT_EQ(st.fronts, expected_fronts);
    EXPECT_EQ(st.host_f11, refused);
    EXPECT_GT(st.flops, 0);
    off.reset();
#ifdef GIGASPARSE_CUDA_SIM
    checks.expect_clean("the GPU's LDLT and LU fronts");
#endif
}

// LU with F11 on the device too (lu_factor: cuSOLVER getrf): the same row pivots as the host's lu_front on random
// fronts (no near ties), the factor and contribution block to rounding, with and without rows below F11; a front
// whose F11 needs a perturbed pivot comes back untouched (the caller then factors F11 on the host).
TEST(CudaDirect, OffloadedLuFrontWithF11OnTheDevice) {
    SKIP_WITHOUT_GPU();
#ifdef GIGASPARSE_CUDA_SIM
    const SimulatedRunChecks checks;
#endif
    auto off = make_offload();
    dr::TaskPool pool(2);
    dr::LuFrontParams lp;
    lp.block = 16;
    for (const auto& [f, w] : {std::pair<std::int64_t, std::int64_t>{40, 40}, {70, 16}, {129, 64}, {300, 70}}) {
        SCOPED_TRACE("f " + std::to_string(f) + " w " + std::to_string(w));
        const std::int64_t m = f - w;
        std::vector<double> p1, u1, c1;
        gs::test::random_lu_front(f, w, 31, p1, u1, c1);
        auto p2 = p1, u2 = u1, c2 = c1;
        std::vector<std::int64_t> piv1(static_cast<std::size_t>(w)), piv2(piv1.size());
        ASSERT_EQ(dr::lu_front(f, w, p1.data(), u1.data(), c1.data(), piv1.data(), lp, pool).fail, 0);
        ASSERT_TRUE(off->lu_factor(front<double>(f, w), 1e-14, piv2.data(), p2.data(), u2.data(), c2.data()));
        EXPECT_EQ(piv2, piv1);
        EXPECT_LE(gs::test::rows_rel_diff(p2, p1, f, w), 1e-10);
        if (m > 0) {
            EXPECT_LE(gs::test::rows_rel_diff(u2, u1, f, w, w), 1e-10);
            EXPECT_LE(gs::test::rows_rel_diff(c2, c1, m, m), 1e-10);
        }
    }
    EXPECT_EQ(off->stats().fronts, 4);
    // F11 singular (its first column zero): nothing written back, counted
    std::vector<double> p, u, c;
    gs::test::random_lu_front(60, 20, 32, p, u, c);
    for (std::int64_t i = 0; i < 20; ++i) p[static_cast<std::size_t>(i)] = 0.0;
    const auto p0 = p, u0 = u, c0 = c;
    std::vector<std::int64_t> piv(20, -1);
    EXPECT_FALSE(off->lu_factor(front<double>(60, 20), 0.0, piv.data(), p.data(), u.data(), c.data()));
    EXPECT_EQ(p, p0);
    EXPECT_EQ(u, u0);
    EXPECT_EQ(c, c0);
    EXPECT_EQ(off->stats().host_f11, 1);
    EXPECT_EQ(off->stats().fronts, 4);
    off.reset();
#ifdef GIGASPARSE_CUDA_SIM
    checks.expect_clean("the GPU's LU fronts");
#endif
}

// Inside the multifrontal factorization: the fronts of at least offload_rows rows go to the offload and the
// factor equals the cpu backend's (the simulator's calls run the same BLAS as the host's, but another
// blocking: to rounding).
TEST(CudaDirect, MultifrontalWithOffloadedFronts) {
    SKIP_WITHOUT_GPU();
    const auto a = shifted_poisson(sim_or(9, 20), 0.0);
    dr::DirectSolver<double, std::int32_t> solver(dr::Structure::spd);
    solver.options().threads = 2;
    solver.analyze(a.view());
    ASSERT_EQ(solver.factorize(a.view()), dr::Status::success);
    const auto& sym = solver.symbolic();
    const auto off = make_offload();
    dr::NumericFactor<double> num;
    dr::allocate_numeric(sym, num);
    dr::NumericParams prm;
    prm.threads = 2;
    prm.offload = off.get();
    prm.offload_rows = 40;
    dr::idx fail = -1;
    ASSERT_EQ(dr::factor_multifrontal<double>(sym, num, a.values, fail, prm), dr::Status::success);
    const auto st = off->stats();
    EXPECT_GT(st.fronts, 0) << "no front of at least 40 rows";
    const OffloadCounts expected = offload_counts(sym, prm);
    EXPECT_EQ(st.fronts, expected.fronts);
    EXPECT_GT(expected.kept, 0) << "no offloaded front with an offloaded parent";
    EXPECT_EQ(st.kept, expected.kept) << "contribution blocks passed to the parent on the device";
    EXPECT_GT(st.kept_bytes, 0);
    EXPECT_GT(st.peak_bytes, 0);
    expect_nothing_resident(sym, *off);
    const auto& ref = solver.numeric().lx;
    const auto expect_factor_matches = [&](const dr::NumericFactor<double>& got) {
        ASSERT_EQ(got.lx.size(), ref.size());
        EXPECT_LE(factor_rel_diff(got.lx, ref), 1e-12);
    };
    expect_factor_matches(num);
    // no room on the device: every contribution block comes back to the host, the same factor, more bytes copied
    // (at least the blocks' own way down)
    {
        const auto tight = make_offload(0);
        dr::NumericFactor<double> num_tight;
        dr::allocate_numeric(sym, num_tight);
        dr::NumericParams tprm = prm;
        tprm.offload = tight.get();
        ASSERT_EQ(dr::factor_multifrontal<double>(sym, num_tight, a.values, fail, tprm), dr::Status::success);
        EXPECT_EQ(tight->stats().fronts, expected.fronts);
        EXPECT_EQ(tight->stats().kept, 0);
        EXPECT_GE(tight->stats().bytes - st.bytes, st.kept_bytes);
        expect_factor_matches(num_tight);
    }
    // each front assembled on the host, or each on the device (A's entries and the host children's blocks
    // uploaded): the same factor; the default takes whichever moves fewer bytes, here the device for some
    const std::int64_t cheaper_bytes = st.bytes;
    EXPECT_GT(st.device_assembled, 0);
    for (const auto mode : {dr::GpuAssembly::host, dr::GpuAssembly::device}) {
        const bool dev = mode == dr::GpuAssembly::device;
        SCOPED_TRACE(dev ? "device assembly" : "host assembly");
        const auto other = make_offload();
        dr::NumericFactor<double> num_mode;
        dr::allocate_numeric(sym, num_mode);
        dr::NumericParams mprm = prm;
        mprm.offload = other.get();
        mprm.offload_assembly = mode;
        ASSERT_EQ(dr::factor_multifrontal<double>(sym, num_mode, a.values, fail, mprm), dr::Status::success);
        EXPECT_EQ(other->stats().fronts, expected.fronts);
        EXPECT_EQ(other->stats().kept, expected.kept);
        EXPECT_EQ(other->stats().device_assembled, dev ? expected.fronts : 0);
        EXPECT_GE(other->stats().bytes, cheaper_bytes) << "the default moves the fewest bytes";
        expect_factor_matches(num_mode);
    }
    // refactorization through the same offload: the counts again (the stats are per call here: reset)
    off->reset_stats();
    dr::NumericFactor<double> num_again;
    dr::allocate_numeric(sym, num_again);
    ASSERT_EQ(dr::factor_multifrontal<double>(sym, num_again, a.values, fail, prm), dr::Status::success);
    EXPECT_EQ(off->stats().kept, expected.kept);
    expect_factor_matches(num_again);
    // not positive definite: the same status and failing column as the cpu backend
    const auto bad = shifted_poisson(sim_or(9, 20), -3.0);
    dr::DirectSolver<double, std::int32_t> cpu(dr::Structure::spd);
    cpu.analyze(bad.view());
    ASSERT_EQ(cpu.factorize(bad.view()), dr::Status::not_positive_definite);
    dr::NumericFactor<double> num2;
    dr::allocate_numeric(cpu.symbolic(), num2);
    dr::idx fail2 = -1, fail_cpu = -1;
    EXPECT_EQ(dr::factor_multifrontal<double>(cpu.symbolic(), num2, bad.values, fail2, prm), dr::Status::not_positive_definite);
    dr::NumericFactor<double> num3;
    dr::allocate_numeric(cpu.symbolic(), num3);
    dr::NumericParams plain;
    plain.threads = 2;
    EXPECT_EQ(dr::factor_multifrontal<double>(cpu.symbolic(), num3, bad.values, fail_cpu, plain), dr::Status::not_positive_definite);
    EXPECT_EQ(fail2, fail_cpu);
}

// A front the device cannot hold (offload_front_bytes above the memory free at begin) stays on the host, and
// the factorization still succeeds with the same factor: the simulator's device memory lowered until about half
// of the offloaded fronts fit.
TEST(CudaDirect, FrontsTooLargeForTheDeviceStayOnTheHost) {
#ifndef GIGASPARSE_CUDA_SIM
    GTEST_SKIP() << "needs the simulator's device-memory limit";
#else
    const auto a = shifted_poisson(9, 0.0);
    dr::DirectSolver<double, std::int32_t> solver(dr::Structure::spd);
    solver.options().threads = 2;
    solver.analyze(a.view());
    ASSERT_EQ(solver.factorize(a.view()), dr::Status::success);
    const auto& sym = solver.symbolic();
    const auto off = make_offload();
    dr::NumericParams prm;
    prm.threads = 2;
    prm.offload = off.get();
    prm.offload_rows = 40;
    const OffloadCounts all = offload_counts(sym, prm);
    std::vector<std::int64_t> need;
    for (dr::idx sn = 0; sn < sym.nsuper; ++sn)
        if (sym.front_rows(sn) >= prm.offload_rows) need.push_back(dr::offload_front_bytes(sym, sn));
    ASSERT_GE(need.size(), 4u);
    std::sort(need.begin(), need.end());
    dr::NumericFactor<double> num;
    dr::allocate_numeric(sym, num);
    dr::idx fail = -1;
    ASSERT_EQ(dr::factor_multifrontal<double>(sym, num, a.values, fail, prm), dr::Status::success);
    EXPECT_EQ(off->stats().fronts, all.fronts);
    EXPECT_EQ(off->stats().host_large, 0);
    // lower the device's memory so that the capacity lands between two middle footprints
    const std::int64_t target = (need[need.size() / 2 - 1] + need[need.size() / 2]) / 2;
    const std::int64_t capacity = off->stats().capacity_bytes;
    ASSERT_GT(capacity, target);
    const std::size_t saved = cuda_sim::config().device_memory;
    struct Restore {
        std::size_t bytes;
        ~Restore() { cuda_sim::config().device_memory = bytes; }
    } const restore{saved};
    cuda_sim::config().device_memory = saved - static_cast<std::size_t>(capacity - target);
    off->reset_stats();
    dr::NumericFactor<double> small;
    dr::allocate_numeric(sym, small);
    ASSERT_EQ(dr::factor_multifrontal<double>(sym, small, a.values, fail, prm), dr::Status::success);
    const auto st = off->stats();
    const auto taken = std::count_if(need.begin(), need.end(), [&](std::int64_t b) { return b <= st.capacity_bytes; });
    EXPECT_GT(taken, 0);
    EXPECT_LT(taken, static_cast<std::int64_t>(need.size()));
    EXPECT_EQ(st.fronts, taken);
    EXPECT_EQ(st.host_large, static_cast<std::int64_t>(need.size()) - taken);
    EXPECT_LE(st.peak_bytes, st.capacity_bytes);
    for (dr::idx sn = 0; sn < sym.nsuper; ++sn)
        EXPECT_EQ(off->takes(sn), sym.front_rows(sn) >= prm.offload_rows && dr::offload_front_bytes(sym, sn) <= st.capacity_bytes);
    expect_nothing_resident(sym, *off);
    const auto& ref = solver.numeric().lx;
    EXPECT_LE(factor_rel_diff(small.lx, ref), 1e-12);
#endif
}

// A 3D Laplacian's graph with small diagonal entries of alternating sign (2×2 pivots / row swaps in most
// fronts); upper: the factor of the entries above the diagonal (1: symmetric).
// jitter > 0: every magnitude times 1 + jitter u, u in [0, 1) a hash of the entry's unordered (row, column) pair
// (symmetric when upper is 1). Without it the values tie exactly, and Bunch–Kaufman's choices hang on rounding: on
// the host, values perturbed by one unit in the last place gave other pivots and a factor 1.5 apart (relative);
// with jitter 0.2 the pivots stayed and the factor moved by 5e-11 to 1.1e-10 (24³).
gs::Csr<double, std::int32_t> weak_diagonal_grid(double upper, double jitter = 0) {
    auto a = gs::gen::poisson3d<double, std::int32_t>(sim_or(9, 24), sim_or(9, 24), sim_or(9, 24));
    for (std::int64_t r = 0; r < a.nrows; ++r)
        for (gs::offset_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
            const auto i = static_cast<std::uint64_t>(std::min<std::int64_t>(r, a.col_idx[k]));
            const auto j = static_cast<std::uint64_t>(std::max<std::int64_t>(r, a.col_idx[k]));
            std::uint64_t h = (i * 0x9E3779B97F4A7C15ull) ^ (j * 0xC2B2AE3D27D4EB4Full);
            h ^= h >> 29;
            h *= 0xBF58476D1CE4E5B9ull;
            h ^= h >> 32;
            const double scale = 1 + jitter * static_cast<double>(h >> 11) / 9007199254740992.0;
            a.values[k] = scale * (a.col_idx[k] == r ? (r % 2 ? 0.05 : -0.05) : a.col_idx[k] > r ? -upper : -1.0);
        }
    return a;
}

// LDLᵀ (lu false) or LU with small pivots perturbed (tau 1e-12), 2 threads, the offload's threshold low enough
// for the grid's largest fronts.
dr::NumericParams pivoting_params(bool lu) {
    dr::NumericParams prm;
    prm.threads = 2;
    prm.ldlt = !lu;
    prm.lu = lu;
    prm.tau = 1e-12;
    prm.pivot_block = 16;
    prm.offload_rows = sim_or(60, 400);
    return prm;
}

// factor_multifrontal of the same values on the host alone and with `off` taking the fronts of at least
// prm.offload_rows rows: both succeed, with the same pivots and perturbations and the same factor to rounding.
struct HostAndDevice {
    dr::NumericFactor<double> host, dev;
};
HostAndDevice expect_offload_matches_host(const dr::Symbolic& sym, const std::vector<double>& values, dr::NumericParams prm, dr::FrontOffload* off,
                                          double bound = 1e-9) {
    HostAndDevice r;
    dr::allocate_numeric(sym, r.host);
    dr::allocate_numeric(sym, r.dev);
    dr::idx fail_h = -1, fail_d = -1;
    prm.offload = nullptr;
    EXPECT_EQ(dr::factor_multifrontal<double>(sym, r.host, values, fail_h, prm), dr::Status::success);
    prm.offload = off;
    EXPECT_EQ(dr::factor_multifrontal<double>(sym, r.dev, values, fail_d, prm), dr::Status::success);
    EXPECT_EQ(r.dev.piv, r.host.piv);
    EXPECT_EQ(r.dev.pivot_size, r.host.pivot_size);
    EXPECT_EQ(r.dev.perturbed, r.host.perturbed);
    for (const auto& [h, d] : {std::pair{&r.host.lx, &r.dev.lx}, std::pair{&r.host.ux, &r.dev.ux}}) {
        EXPECT_EQ(d->size(), h->size());
        EXPECT_LE(factor_rel_diff(*d, *h), bound);
    }
    return r;
}

// How far the host's factor moves when the values move by one unit in the last place (alternately up, down and not
// at all): the scale of the factor's sensitivity to rounding, with the same pivots (asserted: else the comparison of
// factors is ill-posed for this matrix).
double one_ulp_factor_change(const dr::Symbolic& sym, const std::vector<double>& values, dr::NumericParams prm) {
    prm.offload = nullptr;
    std::vector<double> moved = values;
    for (std::size_t k = 0; k < moved.size(); ++k) moved[k] *= 1 + std::numeric_limits<double>::epsilon() * static_cast<double>(static_cast<int>(k % 3) - 1);
    dr::NumericFactor<double> f0, f1;
    dr::allocate_numeric(sym, f0);
    dr::allocate_numeric(sym, f1);
    dr::idx fail0 = -1, fail1 = -1;
    EXPECT_EQ(dr::factor_multifrontal<double>(sym, f0, values, fail0, prm), dr::Status::success);
    EXPECT_EQ(dr::factor_multifrontal<double>(sym, f1, moved, fail1, prm), dr::Status::success);
    EXPECT_EQ(f1.piv, f0.piv) << "one ulp changes the pivots: the factors of this matrix cannot be compared entry by entry";
    EXPECT_EQ(f1.pivot_size, f0.pivot_size);
    return std::max(factor_rel_diff(f1.lx, f0.lx), factor_rel_diff(f1.ux, f0.ux));
}

// LDLᵀ inside the multifrontal factorization: the fronts of at least offload_rows rows on the offload (the root's,
// which has no rows below F11, too), and the factor equals the cpu backend's.
TEST(CudaDirect, MultifrontalLdltWithOffloadedFronts) {
    SKIP_WITHOUT_GPU();
    const auto a = weak_diagonal_grid(1.0, 0.2);
    dr::DirectSolver<double, std::int32_t> solver(dr::Structure::symmetric);
    solver.analyze(a.view());
    const auto& sym = solver.symbolic();
    const auto off = make_offload();
    dr::NumericParams prm = pivoting_params(false);
    // the device's other summation order (cuBLAS) against the host's: within 100 times what one ulp in the values
    // moves the factor (the first H200 run found 5.3e-9 on the tied values, beyond the 1e-9 set on the simulator)
    const double bound = std::max(1e-12, 100 * one_ulp_factor_change(sym, a.values, prm));
    RecordProperty("one_ulp_bound", std::to_string(bound));
    const HostAndDevice r = expect_offload_matches_host(sym, a.values, prm, off.get(), bound);
    const OffloadCounts expected = offload_counts(sym, prm);
    EXPECT_GT(expected.fronts, 0) << "no front of at least " << prm.offload_rows << " rows with rows below its pivots";
    EXPECT_GT(expected.kept, 0) << "no offloaded front with an offloaded parent";
    EXPECT_EQ(off->stats().fronts, expected.fronts);
    EXPECT_EQ(off->stats().kept, expected.kept);
    expect_nothing_resident(sym, *off);
    EXPECT_GT(std::count(r.host.pivot_size.begin(), r.host.pivot_size.end(), std::int8_t(2)), 0) << "no 2x2 pivots";
    // each front assembled on the host, or each on the device (F11 copied back for the host's pivoting)
    for (const auto mode : {dr::GpuAssembly::host, dr::GpuAssembly::device}) {
        const bool dev = mode == dr::GpuAssembly::device;
        SCOPED_TRACE(dev ? "device assembly" : "host assembly");
        off->reset_stats();
        prm.offload_assembly = mode;
        expect_offload_matches_host(sym, a.values, prm, off.get(), bound);
        EXPECT_EQ(off->stats().fronts, expected.fronts);
        EXPECT_EQ(off->stats().kept, expected.kept);
        EXPECT_EQ(off->stats().device_assembled, dev ? expected.fronts : 0);
    }
}

// LU inside the multifrontal factorization (unsymmetric values): every front of at least offload_rows rows
// wholly on the device (no pivot near tau), the root's too; the factor equals the cpu backend's. Then a tau
// above every pivot (each becomes ±tau): those fronts' F11 go back to the host, and the factor still matches.
TEST(CudaDirect, MultifrontalLuWithOffloadedFronts) {
    SKIP_WITHOUT_GPU();
    const auto a = weak_diagonal_grid(1.5);
    dr::DirectSolver<double, std::int32_t> solver(dr::Structure::general);
    solver.set_option("matching", "0");  // the values as given: row pivoting inside the fronts
    solver.analyze(a.view());
    const auto& sym = solver.symbolic();
    const auto off = make_offload();
    dr::NumericParams prm = pivoting_params(true);
    const HostAndDevice r = expect_offload_matches_host(sym, a.values, prm, off.get());
    const OffloadCounts expected = offload_counts(sym, prm);
    EXPECT_GT(expected.fronts, 1) << "no front of at least " << prm.offload_rows << " rows";
    EXPECT_GT(expected.kept, 0) << "no offloaded front with an offloaded parent";
    EXPECT_EQ(off->stats().fronts, expected.fronts);
    EXPECT_EQ(off->stats().kept, expected.kept);
    EXPECT_EQ(off->stats().host_f11, 0);
    expect_nothing_resident(sym, *off);
    std::int64_t swapped = 0;
    for (dr::idx sn = 0; sn < sym.nsuper; ++sn)
        for (dr::idx j = 0; j < sym.width(sn); ++j) swapped += r.host.piv[static_cast<std::size_t>(sym.super_ptr[sn] + j)] != j;
    EXPECT_GT(swapped, 0) << "no row swaps";
    off->reset_stats();
    prm.tau = 1e3;
    const HostAndDevice p = expect_offload_matches_host(sym, a.values, prm, off.get());
    EXPECT_GT(off->stats().host_f11, 0);
    EXPECT_EQ(off->stats().kept, expected.kept) << "blocks kept on the device through fronts whose F11 went to the host";
    EXPECT_GT(std::accumulate(p.host.perturbed.begin(), p.host.perturbed.end(), std::int64_t(0)), 0);
    // each front assembled on the host, or each on the device (A's entries into both panels), with the device's
    // F11 and with the host's (the assembled F11 copied back)
    for (const double tau : {1e-12, 1e3})
        for (const auto mode : {dr::GpuAssembly::host, dr::GpuAssembly::device}) {
            const bool dev = mode == dr::GpuAssembly::device;
            SCOPED_TRACE(std::string(dev ? "device assembly" : "host assembly") + ", tau " + std::to_string(tau));
            off->reset_stats();
            prm.tau = tau;
            prm.offload_assembly = mode;
            expect_offload_matches_host(sym, a.values, prm, off.get());
            EXPECT_EQ(off->stats().fronts, expected.fronts);
            EXPECT_EQ(off->stats().kept, expected.kept);
            EXPECT_EQ(off->stats().device_assembled, dev ? expected.fronts : 0);
            EXPECT_EQ(off->stats().host_f11 > 0, tau > 1);
        }
}

#ifndef GIGASPARSE_CUDA_SIM
// The public path: DirectSolver with backend cuda (double, and the single-precision factor), its results, and
// what it refuses.
TEST(CudaDirect, DirectSolverBackendCuda) {
    if (!gs::config::with_cuda) {
        const auto a = shifted_poisson(6, 0.0);
        dr::DirectSolver<double, std::int32_t> s(dr::Structure::spd);
        s.set_option("backend", "cuda");
        s.analyze(a.view());
        EXPECT_THROW(s.factorize(a.view()), gs::NotSupported);
        GTEST_SKIP() << "built without CUDA";
    }
    SKIP_WITHOUT_GPU();
    const auto a = shifted_poisson(40, 0.0);
    std::vector<double> b(static_cast<std::size_t>(a.nrows), 1.0), x(b.size());
    for (const std::string precision : {"full", "single"}) {
        SCOPED_TRACE(precision);
        dr::DirectSolver<double, std::int32_t> s(dr::Structure::spd);
        s.set_option("backend", "cuda");
        s.set_option("gpu_front_rows", "256");
        s.set_option("factor_precision", precision);
        s.analyze(a.view());
        ASSERT_EQ(s.factorize(a.view()), dr::Status::success);
        EXPECT_GT(s.result("gpu_fronts"), 0);
        EXPECT_GT(s.result("gpu_flops"), 0.3 * s.result("flops")) << "the large fronts near the root hold most of the flops";
        const auto info = s.solve(b, x);
        EXPECT_LE(info.backward_error, 1e-14);
        ASSERT_EQ(s.refactorize(a.values), dr::Status::success);  // the offload is kept
        EXPECT_GT(s.result("gpu_fronts"), 0);
    }
    // LDLᵀ of an indefinite matrix (the Laplacian shifted past its smallest eigenvalues): its large fronts split
    // between the host (F11) and the GPU
    const auto ind = shifted_poisson(40, -0.5);
    std::vector<double> bi(static_cast<std::size_t>(ind.nrows), 1.0), xi(bi.size());
    dr::DirectSolver<double, std::int32_t> ldlt(dr::Structure::symmetric);
    ldlt.set_option("backend", "cuda");
    ldlt.set_option("gpu_front_rows", "256");
    ldlt.analyze(ind.view());
    ASSERT_EQ(ldlt.factorize(ind.view()), dr::Status::success);
    EXPECT_GT(ldlt.result("gpu_fronts"), 0);
    EXPECT_LE(ldlt.solve(bi, xi).backward_error, 1e-13);
    // LU of an unsymmetric matrix: the large fronts' rows below F11 on the GPU
    const auto cd = gs::gen::convection_diffusion<double, std::int32_t>(40, 40, 40, 40.0, -25.0, 10.0);
    std::vector<double> bc(static_cast<std::size_t>(cd.nrows), 1.0), xc(bc.size());
    dr::DirectSolver<double, std::int32_t> lu(dr::Structure::general);
    lu.set_option("backend", "cuda");
    lu.set_option("gpu_front_rows", "256");
    lu.analyze(cd.view());
    ASSERT_EQ(lu.factorize(cd.view()), dr::Status::success);
    EXPECT_GT(lu.result("gpu_fronts"), 0);
    EXPECT_EQ(lu.result("gpu_host_f11"), 0) << "a diagonally dominant matrix needs no perturbed pivot";
    EXPECT_LE(lu.solve(bc, xc).backward_error, 1e-13);
    // complex values stay on the cpu backend
    dr::DirectSolver<std::complex<double>, std::int32_t> cx(dr::Structure::hpd);
    cx.set_option("backend", "cuda");
    gs::Csr<std::complex<double>, std::int32_t> ac(a.nrows, a.ncols);
    ac.row_ptr = a.row_ptr;
    ac.col_idx = a.col_idx;
    ac.values.assign(a.values.begin(), a.values.end());
    cx.analyze(ac.view());
    EXPECT_THROW(cx.factorize(ac.view()), gs::NotSupported);
}
#endif
