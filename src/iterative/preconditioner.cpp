// src/iterative/preconditioner.cpp: the preconditioner factory and the Jacobi, ILU(0), IC(0) and SGS preconditioners.
#include <gigasparse/iterative/preconditioner.hpp>

#include <string>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>
#include <gigasparse/core/timer.hpp>

#include "iterative/auto_ordering.hpp"

namespace gigasparse::iterative {

const char* to_string(PrecondKind k) {
    switch (k) {
        case PrecondKind::none: return "none";
        case PrecondKind::jacobi: return "jacobi";
        case PrecondKind::ilu0: return "ilu0";
        case PrecondKind::ic0: return "ic0";
        case PrecondKind::sgs: return "sgs";
    }
    return "unknown";
}

PrecondKind parse_precond(const std::string& name) {
    if (name == "none") return PrecondKind::none;
    if (name == "jacobi") return PrecondKind::jacobi;
    if (name == "ilu0") return PrecondKind::ilu0;
    if (name == "ic0") return PrecondKind::ic0;
    if (name == "sgs") return PrecondKind::sgs;
    throw InvalidArgument("unknown preconditioner '" + name + "' (none, jacobi, ilu0, ic0, sgs)");
}

namespace {

template <class V>
PrecondStatus failure(std::int64_t row, const std::string& what) {
    return PrecondStatus{false, row, what + " at row " + std::to_string(row)};
}

template <class V>
class Identity final : public Preconditioner<V> {
public:
    explicit Identity(Backend be) : be_(be) {}
    void apply(std::span<const V> r, std::span<V> z) const override { copy<V>(be_, r, z); }

private:
    Backend be_;
};

template <class V>
class Jacobi final : public Preconditioner<V> {
public:
    template <class I>
    Jacobi(CsrView<V, I> a, Backend be) : be_(be), dinv_(extract_diagonal(a)) {
        for (std::int64_t i = 0; i < a.nrows; ++i) {
            if (dinv_[i] == V(0) && this->info_.status.ok) this->info_.status = failure<V>(i, "Jacobi: zero or missing diagonal");
            dinv_[i] = dinv_[i] == V(0) ? V(1) : V(1) / dinv_[i];
        }
    }
    void apply(std::span<const V> r, std::span<V> z) const override {
        if (!this->info_.status.ok) return copy<V>(be_, r, z);
        pointwise_mult<V>(be_, dinv_, r, z);
    }

private:
    Backend be_;
    std::vector<V> dinv_;
};

// Base of the sweep preconditioners: P A Pᵀ, gather/scatter of vectors, two scheduled sweeps.
template <class V, class I>
class SweepPreconditioner : public Preconditioner<V> {
public:
    void apply(std::span<const V> r, std::span<V> z) const override {
        if (!this->info_.status.ok) return copy<V>(be_, r, z);
        gather(r, work_);
        sweeps(work_);
        scatter(work_, z);
    }

protected:
    SweepPreconditioner(CsrView<V, I> a, const Ordering& ord, const ScheduleOptions& so) : be_(so.backend), sched_(so), ord_(ord) {
        b_ = ord.perm.empty() ? Csr<V, I>{} : permute_symmetric(a, ord.perm);
        if (ord.perm.empty()) b_.nrows = a.nrows, b_.ncols = a.ncols, b_.row_ptr.assign(a.row_ptr.begin(), a.row_ptr.end()),
                              b_.col_idx.assign(a.col_idx.begin(), a.col_idx.end()), b_.values.assign(a.values.begin(), a.values.end());
        work_.resize(static_cast<std::size_t>(a.nrows));
        this->info_.ordering = ord.kind;
        this->info_.ordering_description = ord.description;
    }
    virtual void sweeps(std::vector<V>& y) const = 0;

public:
    // L, middle and U of the sweeps and the permutation (see SweepFactors).
    virtual void export_factors(SweepFactors<V, I>& f) const = 0;
    void export_common(SweepFactors<V, I>& f) const { f.perm = ord_.perm; }

protected:
    std::int64_t original_row(std::int64_t i) const { return ord_.perm.empty() || i < 0 ? i : ord_.perm[i]; }
    void fail(std::int64_t new_row, const std::string& what) { this->info_.status = failure<V>(original_row(new_row), what); }
    void finish(const TriangularSolve<V, I>& lo, const TriangularSolve<V, I>& up) {
        this->info_.lower = lo.stats();
        this->info_.upper = up.stats();
        this->info_.depth = std::max(lo.stats().depth, up.stats().depth);
    }

    Backend be_;
    ScheduleOptions sched_;
    Ordering ord_;
    Csr<V, I> b_;
    mutable std::vector<V> work_;

private:
    void gather(std::span<const V> r, std::vector<V>& y) const {
        const std::int64_t n = static_cast<std::int64_t>(y.size());
        if (ord_.perm.empty()) return copy<V>(be_, r, y);
#pragma omp parallel for schedule(static) if (be_ == Backend::omp && n > 8192)
        for (std::int64_t i = 0; i < n; ++i) y[i] = r[ord_.perm[i]];
    }
    void scatter(const std::vector<V>& y, std::span<V> z) const {
        const std::int64_t n = static_cast<std::int64_t>(y.size());
        if (ord_.perm.empty()) return copy<V>(be_, y, z);
#pragma omp parallel for schedule(static) if (be_ == Backend::omp && n > 8192)
        for (std::int64_t i = 0; i < n; ++i) z[ord_.perm[i]] = y[i];
    }
};

template <class V, class I>
class Ilu0 final : public SweepPreconditioner<V, I> {
public:
    Ilu0(CsrView<V, I> a, const Ordering& ord, const ScheduleOptions& so) : SweepPreconditioner<V, I>(a, ord, so) {
        lower_.analyze(this->b_, Triangle::lower, true, so, ord.block_ptr);
        upper_.analyze(this->b_, Triangle::upper, false, so, ord.block_ptr);
        this->finish(lower_, upper_);
        if (const std::int64_t bad = ilu0_factorize(this->b_, lower_); bad >= 0) this->fail(bad, "ILU(0): zero or missing pivot");
    }
    void export_factors(SweepFactors<V, I>& f) const override {
        this->export_common(f);
        f.lower = extract_triangle(this->b_.view(), Triangle::lower, false);
        f.unit_lower = true;
        f.upper = extract_triangle(this->b_.view(), Triangle::upper, true);
    }

private:
    void sweeps(std::vector<V>& y) const override {
        lower_.solve(y);
        upper_.solve(y);
    }
    TriangularSolve<V, I> lower_, upper_;
};

template <class V, class I>
class Ic0 final : public SweepPreconditioner<V, I> {
public:
    Ic0(CsrView<V, I> a, const Ordering& ord, const ScheduleOptions& so) : SweepPreconditioner<V, I>(a, ord, so) {
        l_ = extract_triangle(this->b_.view(), Triangle::lower, true);
        lower_.analyze(l_, Triangle::lower, false, so, ord.block_ptr);
        const std::int64_t bad = ic0_factorize(l_, lower_);
        lt_ = transpose(l_.view(), is_complex_v<V>);  // Lᵀ, or Lᴴ for complex values (A ≈ L Lᴴ)
        upper_.analyze(lt_, Triangle::upper, false, so, ord.block_ptr);
        this->finish(lower_, upper_);
        if (bad >= 0) this->fail(bad, "IC(0): non-positive pivot (matrix not SPD enough for IC(0)) or missing diagonal");
    }
    void export_factors(SweepFactors<V, I>& f) const override {
        this->export_common(f);
        f.lower = l_;
        f.upper = lt_;
    }

private:
    void sweeps(std::vector<V>& y) const override {
        lower_.solve(y);
        upper_.solve(y);
    }
    Csr<V, I> l_, lt_;
    TriangularSolve<V, I> lower_, upper_;
};

// Symmetric Gauss–Seidel: M = (D + L) D⁻¹ (D + U).
template <class V, class I>
class Sgs final : public SweepPreconditioner<V, I> {
public:
    Sgs(CsrView<V, I> a, const Ordering& ord, const ScheduleOptions& so) : SweepPreconditioner<V, I>(a, ord, so) {
        lower_.analyze(this->b_, Triangle::lower, false, so, ord.block_ptr);
        upper_.analyze(this->b_, Triangle::upper, false, so, ord.block_ptr);
        this->finish(lower_, upper_);
        d_ = extract_diagonal(this->b_.view());
        for (std::int64_t i = 0; i < this->b_.nrows; ++i)
            if (d_[i] == V(0)) {
                this->fail(i, "SGS: zero or missing diagonal");
                return;
            }
    }
    void export_factors(SweepFactors<V, I>& f) const override {
        this->export_common(f);
        f.lower = extract_triangle(this->b_.view(), Triangle::lower, true);
        f.middle = d_;
        f.upper = extract_triangle(this->b_.view(), Triangle::upper, true);
    }

private:
    void sweeps(std::vector<V>& y) const override {
        lower_.solve(y);
        pointwise_mult<V>(this->be_, d_, y, y);
        upper_.solve(y);
    }
    std::vector<V> d_;
    TriangularSolve<V, I> lower_, upper_;
};

template <class V, class I>
std::unique_ptr<Preconditioner<V>> build(CsrView<V, I> a, PrecondKind kind, const Ordering& ord, const ScheduleOptions& so) {
    switch (kind) {
        case PrecondKind::none: return std::make_unique<Identity<V>>(so.backend);
        case PrecondKind::jacobi: return std::make_unique<Jacobi<V>>(a, so.backend);
        case PrecondKind::ilu0: return std::make_unique<Ilu0<V, I>>(a, ord, so);
        case PrecondKind::ic0: return std::make_unique<Ic0<V, I>>(a, ord, so);
        case PrecondKind::sgs: return std::make_unique<Sgs<V, I>>(a, ord, so);
    }
    throw InvalidArgument("make_preconditioner: unknown kind");
}

}  // namespace

template <class V, class I>
std::unique_ptr<Preconditioner<V>> make_preconditioner(CsrView<V, I> a, const PrecondOptions& options) {
    if (a.nrows != a.ncols) throw DimensionMismatch("make_preconditioner: matrix is not square");
    if (options.schedule.backend == Backend::cuda)
        throw NotSupported("make_preconditioner: the GPU's preconditioners are built by cuda::solve (gigasparse/cuda/iterative.hpp)");
    validate(a, ValidateOptions{true, true});
    Timer timer;
    const bool sweeps = options.kind != PrecondKind::none && options.kind != PrecondKind::jacobi;
    std::string reason;
    std::unique_ptr<Preconditioner<V>> m;
    if (sweeps && options.ordering.kind == OrderingKind::automatic) {
        AutoChoice choice = choose_ordering(a, options, reason);
        ScheduleOptions so = options.schedule;
        if (choice.sequential) so.sync = SyncKind::sequential;
        m = build(a, options.kind, choice.ordering, so);
    }
    else m = build(a, options.kind, sweeps ? compute_ordering(a, options.ordering) : Ordering{}, options.schedule);
    PrecondInfo& info = const_cast<PrecondInfo&>(m->info());  // the object is ours and not const
    info.kind = options.kind;
    info.auto_reason = reason;
    info.setup_seconds = timer.seconds();
    return m;
}

template <class V, class I>
SweepFactors<V, I> sweep_factors(CsrView<V, I> a, const PrecondOptions& options) {
    if (options.kind != PrecondKind::ilu0 && options.kind != PrecondKind::ic0 && options.kind != PrecondKind::sgs)
        throw InvalidArgument(std::string("sweep_factors: ") + to_string(options.kind) + " has no sweeps (ilu0, ic0, sgs)");
    const auto m = make_preconditioner(a, options);
    SweepFactors<V, I> f;
    dynamic_cast<const SweepPreconditioner<V, I>&>(*m).export_factors(f);
    f.info = m->info();
    return f;
}

#define GS_INST(V, I)                                                                                     \
    template std::unique_ptr<Preconditioner<V>> make_preconditioner<V, I>(CsrView<V, I>, const PrecondOptions&); \
    template SweepFactors<V, I> sweep_factors<V, I>(CsrView<V, I>, const PrecondOptions&);
GIGASPARSE_FOR_EACH_VALUE_INDEX(GS_INST)
#undef GS_INST

}  // namespace gigasparse::iterative
