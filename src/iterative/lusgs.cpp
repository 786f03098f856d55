// src/iterative/lusgs.cpp: the CFD-like 5x5-block proxy generator and LU-SGS block sweeps over sweep schedules.
#include <gigasparse/iterative/lusgs.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>

#include <gigasparse/core/error.hpp>

#include "iterative/schedule.hpp"

namespace gigasparse::iterative {

namespace {

struct Face {
    std::int64_t c, d;
};

std::vector<Face> mesh_faces(const CfdProxyOptions& o) {
    std::vector<Face> f;
    auto id = [&](std::int64_t x, std::int64_t y, std::int64_t z) { return (z * o.ny + y) * o.nx + x; };
    for (std::int64_t z = 0; z < o.nz; ++z)
        for (std::int64_t y = 0; y < o.ny; ++y)
            for (std::int64_t x = 0; x < o.nx; ++x) {
                if (x + 1 < o.nx) f.push_back({id(x, y, z), id(x + 1, y, z)});
                if (y + 1 < o.ny) f.push_back({id(x, y, z), id(x, y + 1, z)});
                if (z + 1 < o.nz) f.push_back({id(x, y, z), id(x, y, z + 1)});
            }
    return f;
}

// Inverts the b x b row-major block in place (Gauss–Jordan, partial pivoting); false when singular.
template <class V>
bool invert_block(V* a, int b) {
    V inv[25] = {};
    for (int i = 0; i < b; ++i) inv[i * b + i] = V(1);
    for (int c = 0; c < b; ++c) {
        int p = c;
        for (int r = c + 1; r < b; ++r)
            if (std::abs(a[r * b + c]) > std::abs(a[p * b + c])) p = r;
        if (a[p * b + c] == V(0)) return false;
        for (int k = 0; k < b; ++k) std::swap(a[c * b + k], a[p * b + k]), std::swap(inv[c * b + k], inv[p * b + k]);
        const V piv = a[c * b + c];
        for (int k = 0; k < b; ++k) a[c * b + k] /= piv, inv[c * b + k] /= piv;
        for (int r = 0; r < b; ++r)
            if (r != c && a[r * b + c] != V(0)) {
                const V f = a[r * b + c];
                for (int k = 0; k < b; ++k) a[r * b + k] -= f * a[c * b + k], inv[r * b + k] -= f * inv[c * b + k];
            }
    }
    std::copy(inv, inv + b * b, a);
    return true;
}

}  // namespace

template <class V, class I>
Bsr<V, I> cfd_proxy(const CfdProxyOptions& o) {
    if (o.nx < 1 || o.ny < 1 || o.nz < 1 || o.block < 1 || o.block > 5) throw InvalidArgument("cfd_proxy: sizes must be >= 1, block 1..5");
    const std::int64_t n = o.nx * o.ny * o.nz;
    const int b = o.block, bb = b * b;
    std::mt19937_64 rng(o.seed);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<std::int64_t> label(static_cast<std::size_t>(n));
    std::iota(label.begin(), label.end(), 0);
    if (o.renumber) std::shuffle(label.begin(), label.end(), rng);
    std::vector<std::vector<std::pair<std::int64_t, std::vector<double>>>> rows(static_cast<std::size_t>(n));
    std::vector<double> diag(static_cast<std::size_t>(n), o.sigma);
    for (const Face& f : mesh_faces(o)) {
        const double lambda = 1.0 + 0.5 * (u(rng) + 1.0);  // spectral radius of the face in [1, 2]
        std::vector<double> j(bb), lo(bb), up(bb);
        double fro = 0;
        for (auto& v : j) v = u(rng), fro += v * v;
        for (int k = 0; k < bb; ++k) j[k] *= 0.9 * lambda / std::sqrt(fro);  // ||J||_F = 0.9 λ
        for (int k = 0; k < bb; ++k) {
            const double id = k % (b + 1) == 0 ? lambda : 0.0;
            lo[k] = 0.5 * (j[k] - id);   // A_cd
            up[k] = 0.5 * (-j[k] - id);  // A_dc
        }
        rows[label[f.c]].push_back({label[f.d], lo});
        rows[label[f.d]].push_back({label[f.c], up});
        diag[label[f.c]] += lambda;
        diag[label[f.d]] += lambda;
    }
    Bsr<V, I> a;
    a.nbrows = a.nbcols = n;
    a.block = b;
    a.row_ptr.assign(1, 0);
    for (std::int64_t i = 0; i < n; ++i) {
        std::vector<double> d(bb, 0.0);
        for (int k = 0; k < b; ++k) d[k * (b + 1)] = diag[i];
        rows[i].push_back({i, d});
        std::sort(rows[i].begin(), rows[i].end(), [](const auto& x, const auto& y) { return x.first < y.first; });
        for (const auto& [col, vals] : rows[i]) {
            a.col_idx.push_back(static_cast<I>(col));
            for (const double v : vals) a.values.push_back(static_cast<V>(v));
        }
        a.row_ptr.push_back(static_cast<offset_t>(a.col_idx.size()));
    }
    return a;
}

template <class V, class I>
struct LuSgs<V, I>::Impl {
    Bsr<V, I> a, p;                          // original and permuted
    std::vector<std::int64_t> perm;          // block perm[new] = old (empty: identity)
    std::vector<V> dinv;                     // inverse diagonal blocks of p
    std::vector<std::int64_t> lo_end, up_begin;  // per block row: [row_ptr, lo_end) strictly lower, [up_begin, row_end) strictly upper
    std::vector<std::int64_t> dep_ptr_lo, dep_lo, dep_ptr_up, dep_up;
    Schedule fwd, bwd;
    mutable std::vector<std::atomic<std::int64_t>> flags_fwd, flags_bwd;
    mutable std::int64_t epoch = 0;
    mutable std::vector<V> work;
    Backend be = Backend::omp;
};

namespace {

// B = P A Pᵀ on blocks.
template <class V, class I>
Bsr<V, I> permute_blocks(const Bsr<V, I>& a, const std::vector<std::int64_t>& perm) {
    if (perm.empty()) return a;
    const std::int64_t bb = std::int64_t(a.block) * a.block;
    std::vector<std::int64_t> inv(perm.size());
    for (std::size_t k = 0; k < perm.size(); ++k) inv[perm[k]] = static_cast<std::int64_t>(k);
    Bsr<V, I> b;
    b.nbrows = a.nbrows, b.nbcols = a.nbcols, b.block = a.block;
    b.row_ptr.assign(1, 0);
    std::vector<std::pair<std::int64_t, offset_t>> row;
    for (std::int64_t i = 0; i < a.nbrows; ++i) {
        const std::int64_t old = perm[i];
        row.clear();
        for (offset_t k = a.row_ptr[old]; k < a.row_ptr[old + 1]; ++k) row.push_back({inv[a.col_idx[k]], k});
        std::sort(row.begin(), row.end());
        for (const auto& [c, k] : row) {
            b.col_idx.push_back(static_cast<I>(c));
            b.values.insert(b.values.end(), a.values.begin() + k * bb, a.values.begin() + (k + 1) * bb);
        }
        b.row_ptr.push_back(static_cast<offset_t>(b.col_idx.size()));
    }
    return b;
}

// The block pattern as a point CSR (for the orderings).
template <class V, class I>
Csr<V, I> block_pattern(const Bsr<V, I>& a) {
    Csr<V, I> c(a.nbrows, a.nbcols);
    c.row_ptr.assign(a.row_ptr.begin(), a.row_ptr.end());
    c.col_idx.assign(a.col_idx.begin(), a.col_idx.end());
    c.values.assign(c.col_idx.size(), V(1));
    return c;
}

}  // namespace

template <class V, class I>
LuSgs<V, I>::LuSgs(const Bsr<V, I>& a, const OrderingOptions& ordering, const ScheduleOptions& schedule) : impl_(std::make_unique<Impl>()) {
    if (a.nbrows != a.nbcols || a.block < 1 || a.block > 5) throw NotSupported("LuSgs: square block matrices with block size 1..5 only");
    if (schedule.backend == Backend::cuda) throw NotSupported("LuSgs: the cuda backend is part 2 of the iterative pillar");
    Impl& m = *impl_;
    m.be = schedule.backend;
    m.a = a;
    const Csr<V, I> pattern = block_pattern(a);
    const Ordering ord = compute_ordering(pattern.view(), ordering);
    m.perm = ord.perm;
    m.p = permute_blocks(a, m.perm);
    const int b = a.block, bb = b * b;
    const std::int64_t n = a.nbrows;
    m.dinv.assign(static_cast<std::size_t>(n * bb), V(0));
    m.lo_end.resize(n), m.up_begin.resize(n);
    m.dep_ptr_lo.assign(1, 0), m.dep_ptr_up.assign(1, 0);
    for (std::int64_t i = 0; i < n; ++i) {
        offset_t k = m.p.row_ptr[i];
        while (k < m.p.row_ptr[i + 1] && m.p.col_idx[k] < i) m.dep_lo.push_back(m.p.col_idx[k++]);
        m.lo_end[i] = k;
        const bool has_diag = k < m.p.row_ptr[i + 1] && m.p.col_idx[k] == i;
        if (has_diag) std::copy(m.p.values.begin() + k * bb, m.p.values.begin() + (k + 1) * bb, m.dinv.begin() + i * bb);
        if ((!has_diag || !invert_block(m.dinv.data() + i * bb, b)) && this->info_.status.ok)
            this->info_.status = {false, m.perm.empty() ? i : m.perm[i], "LU-SGS: singular or missing diagonal block at block row " +
                                                                               std::to_string(m.perm.empty() ? i : m.perm[i])};
        m.up_begin[i] = has_diag ? k + 1 : k;
        for (offset_t e = m.up_begin[i]; e < m.p.row_ptr[i + 1]; ++e) m.dep_up.push_back(m.p.col_idx[e]);
        m.dep_ptr_lo.push_back(static_cast<std::int64_t>(m.dep_lo.size()));
        m.dep_ptr_up.push_back(static_cast<std::int64_t>(m.dep_up.size()));
    }
    m.fwd = build_schedule(SweepGraph{n, true, m.dep_ptr_lo, m.dep_lo}, ord.block_ptr, schedule);
    m.bwd = build_schedule(SweepGraph{n, false, m.dep_ptr_up, m.dep_up}, ord.block_ptr, schedule);
    m.flags_fwd = std::vector<std::atomic<std::int64_t>>(m.fwd.task_ptr.size());
    m.flags_bwd = std::vector<std::atomic<std::int64_t>>(m.bwd.task_ptr.size());
    m.work.resize(static_cast<std::size_t>(n * b));
    this->info_.kind = PrecondKind::sgs;
    this->info_.ordering = ord.kind;
    this->info_.ordering_description = ord.description;
    this->info_.lower = m.fwd.stats;
    this->info_.upper = m.bwd.stats;
    this->info_.depth = std::max(m.fwd.stats.depth, m.bwd.stats.depth);
}

template <class V, class I>
LuSgs<V, I>::~LuSgs() = default;

template <class V, class I>
void LuSgs<V, I>::apply(std::span<const V> r, std::span<V> z) const {
    const Impl& m = *impl_;
    const int b = m.p.block, bb = b * b;
    const std::int64_t n = m.p.nbrows;
    if (static_cast<std::int64_t>(r.size()) != n * b || static_cast<std::int64_t>(z.size()) != n * b)
        throw DimensionMismatch("LuSgs::apply: vectors must have " + std::to_string(n * b) + " entries");
    if (!this->info_.status.ok) return copy<V>(m.be, r, z);
    V* w = m.work.data();
    for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t src = m.perm.empty() ? i : m.perm[i];
        for (int c = 0; c < b; ++c) w[i * b + c] = r[src * b + c];
    }
    const V* val = m.p.values.data();
    const I* col = m.p.col_idx.data();
    auto forward = [&](std::int64_t i) {  // y_i = D_i⁻¹ (r_i - Σ_{j<i} A_ij y_j)
        V s[5];
        for (int c = 0; c < b; ++c) s[c] = w[i * b + c];
        for (offset_t k = m.p.row_ptr[i]; k < m.lo_end[i]; ++k) {
            const V* blk = val + k * bb;
            const V* y = w + static_cast<std::int64_t>(col[k]) * b;
            for (int rr = 0; rr < b; ++rr)
                for (int c = 0; c < b; ++c) s[rr] -= blk[rr * b + c] * y[c];
        }
        const V* d = m.dinv.data() + i * bb;
        for (int rr = 0; rr < b; ++rr) {
            V t(0);
            for (int c = 0; c < b; ++c) t += d[rr * b + c] * s[c];
            w[i * b + rr] = t;
        }
    };
    auto backward = [&](std::int64_t i) {  // z_i = y_i - D_i⁻¹ Σ_{j>i} A_ij z_j
        V s[5] = {};
        for (offset_t k = m.up_begin[i]; k < m.p.row_ptr[i + 1]; ++k) {
            const V* blk = val + k * bb;
            const V* y = w + static_cast<std::int64_t>(col[k]) * b;
            for (int rr = 0; rr < b; ++rr)
                for (int c = 0; c < b; ++c) s[rr] += blk[rr * b + c] * y[c];
        }
        const V* d = m.dinv.data() + i * bb;
        for (int rr = 0; rr < b; ++rr) {
            V t(0);
            for (int c = 0; c < b; ++c) t += d[rr * b + c] * s[c];
            w[i * b + rr] -= t;
        }
    };
    execute(m.fwd, forward, m.flags_fwd.data(), ++m.epoch);
    execute(m.bwd, backward, m.flags_bwd.data(), m.epoch);
    for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t dst = m.perm.empty() ? i : m.perm[i];
        for (int c = 0; c < b; ++c) z[dst * b + c] = w[i * b + c];
    }
}

template <class V, class I>
std::vector<double> LuSgs<V, I>::iterate(std::span<const V> b, std::span<V> x, int sweeps) const {
    const Impl& m = *impl_;
    std::vector<V> r(b.size()), dx(b.size());
    std::vector<double> drop;
    const double bn = static_cast<double>(nrm2<V>(m.be, b));
    for (int s = 0; s <= sweeps; ++s) {
        bsr_spmv<V, I>(m.be, m.a, std::span<const V>(x.data(), x.size()), r, V(-1), V(0));
        axpy<V>(m.be, V(1), b, r);  // r = b - A x
        drop.push_back(static_cast<double>(nrm2<V>(m.be, r)) / (bn > 0 ? bn : 1.0));
        if (s == sweeps) break;
        apply(r, dx);
        axpy<V>(m.be, V(1), dx, x);
    }
    return drop;
}

#define GS_INST(V, I)                                                  \
    template Bsr<V, I> cfd_proxy<V, I>(const CfdProxyOptions&);       \
    template class LuSgs<V, I>;
GIGASPARSE_FOR_EACH_REAL_VALUE_INDEX(GS_INST)
#undef GS_INST

}  // namespace gigasparse::iterative
