// tests/direct/test_transpose.cpp: transposed and conjugate-transposed solves (Aᵀ x = b, Aᴴ x = b) from the
// factors of A — LU through the transposed sweeps (Uᵀ leaves first, Lᵀ root first, the pivoting inside the
// supernodes undone), the symmetric structures through conjugation — checked against op(A) applied
// entry by entry and against a second solver factoring op(A) explicitly.
#include <array>
#include <cmath>
#include <complex>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>
#include <gigasparse/direct/batch.hpp>
#include <gigasparse/direct/solver.hpp>
#include <gigasparse/gen/generators.hpp>

#include "direct_test_utils.hpp"
#include "utils/test_utils.hpp"

namespace gigasparse::direct {
namespace {

template <class V>
double eps() {
    return static_cast<double>(std::numeric_limits<real_t<V>>::epsilon());
}

// A k x k grid (k x k x k with three dimensions) with two unknowns per point whose 2 x 2 block is
// [[0.01, 4], [3, 0.02]] and weak couplings to the neighbours (unsymmetric values; complex for complex V): both
// unknowns of a point share a supernode and partial pivoting exchanges their rows there — stable, no perturbation.
template <class V>
Csr<V, std::int32_t> paired_grid(std::int32_t k, int dims = 2) {
    Coo<V, std::int32_t> c;
    const std::int32_t kz = dims == 3 ? k : 1;
    c.nrows = c.ncols = 2 * k * k * kz;
    V unit(1);
    if constexpr (is_complex_v<V>) unit = V(0.8, 0.6);
    auto add = [&](std::int32_t i, std::int32_t j, V v) {
        c.row.push_back(i);
        c.col.push_back(j);
        c.val.push_back(v);
    };
    for (std::int32_t z = 0; z < kz; ++z)
        for (std::int32_t y = 0; y < k; ++y)
            for (std::int32_t x = 0; x < k; ++x) {
                const std::int32_t p = (z * k + y) * k + x;
                add(2 * p, 2 * p, V(0.01)), add(2 * p, 2 * p + 1, V(4) * unit), add(2 * p + 1, 2 * p, V(3)), add(2 * p + 1, 2 * p + 1, V(0.02));
                for (auto [dx, dy, dz] : {std::array{1, 0, 0}, std::array{-1, 0, 0}, std::array{0, 1, 0}, std::array{0, -1, 0}, std::array{0, 0, 1},
                                          std::array{0, 0, -1}}) {
                    if (x + dx < 0 || x + dx >= k || y + dy < 0 || y + dy >= k || z + dz < 0 || z + dz >= kz) continue;
                    const std::int32_t q = ((z + dz) * k + y + dy) * k + x + dx;
                    add(2 * p, 2 * q, V(-0.3)), add(2 * p + 1, 2 * q + 1, V(-0.2) * unit), add(2 * p, 2 * q + 1, V(0.1 + 0.01 * dx));
                    add(2 * p + 1, 2 * q, V(0.05 * (dy + dz)));
                }
            }
    return coo_to_csr(c);
}

// LU: op(A) x = b without refinement (the sweeps alone) and with it, against the entrywise residual and
// against a solver that factors op(A) itself.
template <class V>
void check_lu_transposed() {
    // "exchanges": paired_grid without the matching, so the fronts exchange rows (the pivoting the
    // transposed sweeps must undo)
    for (const char* matching : {"1", "0", "exchanges"})
        for (const char* ord : {"amd", "nd"})
            for (std::int64_t nrhs : {1, 3}) {
                SCOPED_TRACE(std::string("matching ") + matching + " " + ord + " nrhs " + std::to_string(nrhs));
                auto a = std::string(matching) == "exchanges" ? paired_grid<V>(14)
                                                              : test::random_general<V>(400, 4, 21, std::string(matching) == "0" ? 0.0 : 0.3);
                const std::int64_t n = a.nrows;
                if (std::string(matching) == "0")  // without the matching: a diagonal that needs no row exchange
                    for (std::int64_t i = 0; i < n; ++i)
                        for (auto k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
                            if (a.col_idx[k] == i) a.values[k] += V(5);
                DirectSolver<V, std::int32_t> s(Structure::general);
                s.set_option("matching", std::string(matching) == "1" ? "1" : "0");
                s.set_option("ordering", ord);
                s.set_option("refinement_steps", "0");
                s.analyze(a);
                ASSERT_EQ(s.factorize(a), Status::success);
                if (std::string(matching) == "exchanges") {
                    const Symbolic& sym = s.symbolic();
                    std::int64_t exchanged = 0;
                    for (idx sn = 0; sn < sym.nsuper; ++sn)
                        for (idx c = sym.super_ptr[sn]; c < sym.super_ptr[sn + 1]; ++c)
                            exchanged += s.numeric().piv[c] != c - sym.super_ptr[sn];
                    EXPECT_GT(exchanged, 0);
                }
                const auto b = gigasparse::test::random_vector<V>(n * nrhs, 9);
                for (Transpose op : {Transpose::none, Transpose::transpose, Transpose::conjugate_transpose}) {
                    SCOPED_TRACE(to_string(op));
                    std::vector<V> x(b.size());
                    s.set_option("refinement_steps", "0");
                    SolveInfo info = s.solve(b, x, nrhs, op);
                    EXPECT_EQ(info.status, Status::success);
                    EXPECT_EQ(info.refinement_steps, 0);
                    const double be0 = test::backward_error(a, op, b, x, nrhs);
                    EXPECT_LE(be0, 1e3 * eps<V>());
                    EXPECT_NEAR(info.backward_error, be0, 1e-2 * be0 + 1e-3 * eps<V>());  // the solver measures op(A) too
                    s.set_option("refinement_steps", "3");
                    info = s.solve(b, x, nrhs, op);
                    EXPECT_LE(test::backward_error(a, op, b, x, nrhs), 64 * eps<V>());
                    if (op == Transpose::none) continue;
                    // the same system factored explicitly
                    auto at = transpose<V, std::int32_t>(a, op == Transpose::conjugate_transpose);
                    DirectSolver<V, std::int32_t> t(Structure::general);
                    t.analyze(at);
                    ASSERT_EQ(t.factorize(at), Status::success);
                    std::vector<V> xt(b.size());
                    t.solve(b, xt, nrhs);
                    double diff = 0, xmax = 0;
                    for (std::size_t i = 0; i < x.size(); ++i) {
                        diff = std::max(diff, static_cast<double>(std::abs(x[i] - xt[i])));
                        xmax = std::max(xmax, static_cast<double>(std::abs(xt[i])));
                    }
                    EXPECT_LE(diff, 1e4 * eps<V>() * xmax);
                }
            }
}

TEST(Transpose, LuDouble) { check_lu_transposed<double>(); }
TEST(Transpose, LuFloat) { check_lu_transposed<float>(); }
TEST(Transpose, LuComplexDouble) { check_lu_transposed<std::complex<double>>(); }
TEST(Transpose, LuComplexFloat) { check_lu_transposed<std::complex<float>>(); }

TEST(Transpose, ComplexSymmetricAndHermitianStructures) {
    using V = std::complex<double>;
    const std::int64_t n = 300;
    struct Case {
        Structure st;
        Csr<V, std::int32_t> a;
    };
    const Case cases[] = {{Structure::hpd, test::random_hpd<V, std::int32_t>(n, 5, 3)},
                          {Structure::hermitian, test::random_indefinite<V, std::int32_t>(n, 5, 4, true, 0.1)},
                          {Structure::symmetric, test::random_indefinite<V, std::int32_t>(n, 5, 5, false, 0.1)}};
    const auto b = gigasparse::test::random_vector<V>(2 * n, 6);
    for (const auto& c : cases) {
        SCOPED_TRACE(to_string(c.st));
        DirectSolver<V, std::int32_t> s(c.st, MatrixView::lower);
        s.analyze(c.a);
        ASSERT_EQ(s.factorize(c.a), Status::success);
        std::vector<V> xn(b.size()), xt(b.size()), xh(b.size());
        s.solve(b, xn, 2);
        SolveInfo it = s.solve(b, xt, 2, Transpose::transpose);
        SolveInfo ih = s.solve(b, xh, 2, Transpose::conjugate_transpose);
        EXPECT_LE(test::backward_error(c.a, Transpose::transpose, b, xt, 2), 64 * eps<V>());
        EXPECT_LE(test::backward_error(c.a, Transpose::conjugate_transpose, b, xh, 2), 64 * eps<V>());
        EXPECT_LE(it.backward_error, 64 * eps<V>());
        EXPECT_LE(ih.backward_error, 64 * eps<V>());
        // the op that equals A gives the plain solve, bit for bit
        EXPECT_EQ(c.st == Structure::symmetric ? xt : xh, xn);
    }
    // real symmetric: every op is A
    auto a = test::random_indefinite<double, std::int32_t>(n, 5, 7, true, 0.1);
    DirectSolver<double, std::int32_t> s(Structure::symmetric, MatrixView::lower);
    s.analyze(a);
    ASSERT_EQ(s.factorize(a), Status::success);
    const auto br = gigasparse::test::random_vector<double>(n, 8);
    std::vector<double> x1(br.size()), x2(br.size());
    s.solve(br, x1);
    s.solve(br, x2, 1, Transpose::conjugate_transpose);
    EXPECT_EQ(x1, x2);
}

TEST(Transpose, LuWithASchurComplement) {
    using V = std::complex<double>;
    const std::int64_t n = 300;
    auto a = test::random_general<V>(n, 4, 31);
    DirectSolver<V, std::int32_t> s(Structure::general);
    std::vector<std::int64_t> schur;
    for (std::int64_t i = 0; i < n; i += 15) schur.push_back(i);
    s.set_schur_indices(schur);
    s.analyze(a);
    ASSERT_EQ(s.factorize(a), Status::success);
    const auto b = gigasparse::test::random_vector<V>(n, 12);
    for (Transpose op : {Transpose::transpose, Transpose::conjugate_transpose}) {
        std::vector<V> x(b.size());
        s.set_option("refinement_steps", "0");
        s.solve(b, x, 1, op);
        EXPECT_LE(test::backward_error(a, op, b, x, 1), 1e3 * eps<V>()) << to_string(op);
    }
}

TEST(Transpose, ParallelSweepsGiveTheSameBitsOnAnyThreadCount) {
    // A factor of over 2^20 entries: the one-right-hand-side sweeps run over the subtrees.
    auto a = gen::convection_diffusion<double, std::int32_t>(40, 40, 12, 40.0, 10.0, 5.0);
    test::expect_thread_independent(a, Structure::general, a.values, 1e-15, Transpose::transpose);
}

// One right-hand side through the top nodes shared by the solver's threads (LU: L11 and U11 in column blocks, the
// rows and columns outside a block in chunks), for A, Aᵀ and Aᴴ: a 3D grid whose large separators (team nodes, with
// rows below them) exchange rows inside their supernodes. Without refinement: the backward error of the sweeps alone,
// the same bits on 1, 2 and 3 threads, and the column equal to that of a two-column solve (BLAS per node, no team).
template <class V>
void check_lu_team_sweeps() {
    const auto a = paired_grid<V>(22, 3);
    const std::int64_t n = a.nrows;
    DirectSolver<V, std::int32_t> s(Structure::general);
    s.set_option("matching", "0");
    s.set_option("ordering", "nd");
    s.set_option("refinement_steps", "0");
    s.set_option("threads", "8");  // at analysis: more subtrees, so the second-level separators are top nodes
    s.analyze(a);
    ASSERT_EQ(s.factorize(a), Status::success);
    // multifrontal.cpp's team_node: a top node of >= 256 columns and >= 2^17 entries; here one with rows below it
    // and exchanged rows
    const Symbolic& sym = s.symbolic();
    ASSERT_GT(sym.subtree_root.size(), 1u);
    ASSERT_GE(sym.factor_entries, std::int64_t{1} << 20);
    bool team_below = false;
    for (idx sn : sym.top_nodes) {
        const idx w = sym.width(sn), f = sym.front_rows(sn);
        std::int64_t exchanged = 0;
        for (idx j = 0; j < w; ++j) exchanged += s.numeric().piv[sym.super_ptr[sn] + j] != j;
        team_below = team_below || (w >= 256 && static_cast<std::int64_t>(f) * w >= (std::int64_t{1} << 17) && f > w && exchanged > 0);
    }
    ASSERT_TRUE(team_below);
    const auto b = gigasparse::test::random_vector<V>(n, 17), b2 = gigasparse::test::random_vector<V>(2 * n, 18);
    for (Transpose op : {Transpose::none, Transpose::transpose, Transpose::conjugate_transpose}) {
        SCOPED_TRACE(to_string(op));
        std::vector<V> first;
        for (const char* threads : {"1", "2", "3"}) {
            s.set_option("threads", threads);
            std::vector<V> x(b.size());
            s.solve(b, x, 1, op);
            EXPECT_LE(test::backward_error(a, op, b, x, 1), 1e3 * eps<V>()) << threads;
            if (first.empty()) first = x;
            EXPECT_TRUE(first == x) << threads;
        }
        std::vector<V> bb(b2), x2(b2.size());
        std::copy(b.begin(), b.end(), bb.begin());
        s.solve(bb, x2, 2, op);
        double diff = 0, norm = 0;
        for (std::int64_t i = 0; i < n; ++i)
            diff = std::max(diff, static_cast<double>(std::abs(first[i] - x2[i]))), norm = std::max(norm, static_cast<double>(std::abs(first[i])));
        EXPECT_LE(diff, 1e3 * eps<V>() * norm);
    }
}

TEST(Transpose, LuTeamSweepsDouble) { check_lu_team_sweeps<double>(); }
TEST(Transpose, LuTeamSweepsComplexDouble) { check_lu_team_sweeps<std::complex<double>>(); }

TEST(Transpose, BatchItemsSolveTheirTransposes) {
    const std::int64_t n = 200, count = 3;
    auto a = test::random_general<double>(n, 4, 41);
    const std::size_t nnz = a.values.size();
    std::vector<double> values(nnz * count);
    for (std::int64_t t = 0; t < count; ++t)
        for (std::size_t k = 0; k < nnz; ++k) values[t * nnz + k] = a.values[k] * (1.0 + 0.25 * static_cast<double>(t));
    BatchDirectSolver<double, std::int32_t> batch(Structure::general);
    batch.analyze(a);
    for (Status st : batch.factorize(values, count)) ASSERT_EQ(st, Status::success);
    const auto b = gigasparse::test::random_vector<double>(n * count, 14);
    std::vector<double> x(b.size());
    auto infos = batch.solve(b, x, 1, Transpose::transpose);
    for (std::int64_t t = 0; t < count; ++t) {
        auto at = a;
        std::copy(values.begin() + t * nnz, values.begin() + (t + 1) * nnz, at.values.begin());
        std::vector<double> bt(b.begin() + t * n, b.begin() + (t + 1) * n), xt(x.begin() + t * n, x.begin() + (t + 1) * n);
        EXPECT_LE(test::backward_error(at, Transpose::transpose, bt, xt, 1), 64 * eps<double>()) << t;
        EXPECT_LE(infos[static_cast<std::size_t>(t)].backward_error, 64 * eps<double>());
    }
}

TEST(Transpose, Spellings) {
    EXPECT_EQ(parse_transpose("N"), Transpose::none);
    EXPECT_EQ(parse_transpose("T"), Transpose::transpose);
    EXPECT_EQ(parse_transpose("H"), Transpose::conjugate_transpose);
    EXPECT_EQ(parse_transpose(to_string(Transpose::conjugate_transpose)), Transpose::conjugate_transpose);
    EXPECT_THROW(parse_transpose("X"), InvalidArgument);
}

}  // namespace
}  // namespace gigasparse::direct
