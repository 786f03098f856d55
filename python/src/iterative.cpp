// python/src/iterative.cpp: Krylov solvers (CG, BiCGStab, GMRES, FGMRES) and the preconditioners
// (Jacobi, ILU(0), IC(0), SGS over ordered, scheduled sweeps), real values, either index type.
#include <algorithm>
#include <memory>
#include <variant>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/iterative/krylov.hpp>
#include <gigasparse/iterative/lusgs.hpp>
#include <gigasparse/iterative/triangular_solve.hpp>
#include <gigasparse/cuda/device.hpp>
#include <gigasparse/cuda/device_matrix.hpp>
#include <gigasparse/cuda/iterative.hpp>
#include <gigasparse/iterative/preconditioner.hpp>

#include <nanobind/stl/string.h>

#include "common.hpp"

namespace gigasparse::python {

namespace {

iterative::Backend parse_backend(const std::string& s) {
    if (s == "omp" || s == "cpu") return iterative::Backend::omp;
    if (s == "reference") return iterative::Backend::reference;
    if (s == "cuda") return iterative::Backend::cuda;
    throw InvalidArgument("unknown backend '" + s + "' (omp, reference, cuda)");
}

iterative::SyncKind parse_sync(const std::string& s) {
    if (s == "p2p" || s == "point_to_point") return iterative::SyncKind::point_to_point;
    if (s == "barrier") return iterative::SyncKind::barrier;
    if (s == "sequential") return iterative::SyncKind::sequential;
    throw InvalidArgument("unknown sync '" + s + "' (p2p, barrier, sequential)");
}

nb::dict schedule_dict(const iterative::ScheduleStats& s) {
    nb::dict d;
    d["rows"] = s.rows;
    d["nnz"] = s.nnz;
    d["depth"] = s.depth;
    d["row_depth"] = s.row_depth;
    d["subgraphs"] = s.subgraphs;
    d["tasks"] = s.tasks;
    d["waits"] = s.waits;
    d["critical_path"] = s.critical_path;
    d["parallelism"] = s.parallelism;
    d["threads"] = s.threads;
    d["sync"] = iterative::to_string(s.sync);
    return d;
}

// A preconditioner of whichever real value type the matrix has; keeps the matrix arrays alive.
class Precond {
public:
    Precond(const CsrArg& a, const std::string& kind, const std::string& ordering, const std::string& backend,
            const std::string& sync, int threads, const nb::dict& extra)
        : a_(a), value_(a.data.dtype()) {
        iterative::PrecondOptions o;
        o.kind = iterative::parse_precond(kind);
        o.ordering.kind = iterative::parse_ordering(ordering);
        o.ordering.threads = threads;
        o.schedule.backend = parse_backend(backend);
        o.schedule.sync = parse_sync(sync);
        o.schedule.threads = threads;
        for (auto [key, value] : extra) {
            const std::string k = nb::cast<std::string>(key);
            if (k == "abmc_block_rows") o.ordering.abmc_block_rows = nb::cast<std::int64_t>(value);
            else if (k == "dc_levels") o.ordering.dc_levels = nb::cast<int>(value);
            else if (k == "dc_relax_from_level") o.ordering.dc_relax_from_level = nb::cast<int>(value);
            else if (k == "dc_min_leaf") o.ordering.dc_min_leaf = nb::cast<std::int64_t>(value);
            else if (k == "dc_split") {
                const std::string v = nb::cast<std::string>(value);
                if (v == "auto") o.ordering.dc_split = iterative::OrderingOptions::DcSplit::automatic;
                else if (v == "index") o.ordering.dc_split = iterative::OrderingOptions::DcSplit::index;
                else if (v == "metis") o.ordering.dc_split = iterative::OrderingOptions::DcSplit::metis;
                else throw InvalidArgument("preconditioner: dc_split must be 'auto', 'index' or 'metis'");
            } else if (k == "dc_twisted") o.ordering.dc_twisted = nb::cast<bool>(value);
            else if (k == "dc_leaf_rcm") o.ordering.dc_leaf_rcm = nb::cast<bool>(value);
            else if (k == "probe_rows") o.probe_rows = nb::cast<std::int64_t>(value);
            else if (k == "min_task_weight") o.schedule.min_task_weight = nb::cast<std::int64_t>(value);
            else if (k == "probe_iterations") o.probe_iterations = nb::cast<int>(value);
            else if (k == "probe_tol") o.probe_tol = nb::cast<double>(value);
            else throw InvalidArgument("preconditioner: unknown option '" + k + "'");
        }
        dispatch(a.data.dtype(), a.indices.dtype(), [&]<class V, class I>() {
            auto in = csr_input<V, I>(a_, "A");
            std::unique_ptr<iterative::Preconditioner<V>> p;
            {
                nb::gil_scoped_release release;
                p = iterative::make_preconditioner<V, I>(in.view, o);
            }
            n_ = in.view.nrows;
            p_ = std::move(p);
            return nb::object();
        });
    }

    // z = M⁻¹ r (a new vector).
    nb::object apply(const Array1& r) {
        return dispatch_value(value_, [&]<class V>() -> nb::object {
            auto rs = as_span<V>(r, "r");
            if (static_cast<std::int64_t>(rs.size()) != n_)
                throw DimensionMismatch("preconditioner: r has " + std::to_string(rs.size()) + " entries, need " + std::to_string(n_));
            std::vector<V> z(rs.size());
            {
                nb::gil_scoped_release release;
                get<V>().apply(rs, z);
            }
            return to_numpy(std::move(z));
        });
    }

    nb::dict info() {
        nb::dict d;
        dispatch_value(value_, [&]<class V>() {
            {
                const auto& i = get<V>().info();
                d["kind"] = iterative::to_string(i.kind);
                d["ordering"] = iterative::to_string(i.ordering);
                d["ordering_description"] = i.ordering_description;
                d["auto_reason"] = i.auto_reason;
                d["depth"] = i.depth;
                d["setup_seconds"] = i.setup_seconds;
                d["ok"] = i.status.ok;
                d["failed_row"] = i.status.row;
                d["message"] = i.status.message;
                d["lower"] = schedule_dict(i.lower);
                d["upper"] = schedule_dict(i.upper);
            }
            return nb::object();
        });
        return d;
    }

    std::int64_t n() const { return n_; }
    const nb::dlpack::dtype& value() const { return value_; }

    template <class V>
    const iterative::Preconditioner<V>& get() const {
        return *std::get<std::unique_ptr<iterative::Preconditioner<V>>>(p_);
    }

private:
    CsrArg a_;
    nb::dlpack::dtype value_;
    std::int64_t n_ = 0;
    std::variant<std::unique_ptr<iterative::Preconditioner<float>>, std::unique_ptr<iterative::Preconditioner<double>>,
                 std::unique_ptr<iterative::Preconditioner<std::complex<float>>>, std::unique_ptr<iterative::Preconditioner<std::complex<double>>>>
        p_;
};

// out = f(in) for a Python callable f that returns a contiguous 1-D array of V of the right length
// (the Python layer wraps user callables so); the GIL is taken for the call.
template <class V>
void call_python(const nb::object& f, std::span<const V> in, std::span<V> out, const char* what) {
    nb::gil_scoped_acquire gil;
    nb::object r = f(to_numpy(std::vector<V>(in.begin(), in.end())));
    auto arr = nb::cast<nb::ndarray<const V, nb::ndim<1>, nb::c_contig, nb::device::cpu>>(r, false);
    if (arr.shape(0) != out.size())
        throw DimensionMismatch(std::string(what) + " returned " + std::to_string(arr.shape(0)) + " entries, expected " +
                                std::to_string(out.size()));
    std::copy(arr.data(), arr.data() + out.size(), out.begin());
}

// A preconditioner given as a Python callable (scipy LinearOperator, function).
template <class V>
class PythonPrecond final : public iterative::Preconditioner<V> {
public:
    explicit PythonPrecond(nb::object f) : f_(std::move(f)) {}
    void apply(std::span<const V> r, std::span<V> z) const override { call_python<V>(f_, r, z, "M"); }

private:
    nb::object f_;
};

nb::dict result_dict(const iterative::SolveResult& r) {
    nb::dict d;
    d["converged"] = r.converged;
    d["reason"] = iterative::to_string(r.reason);
    d["iterations"] = r.iterations;
    d["residual"] = r.residual;
    d["residual_history"] = to_numpy(std::vector<double>(r.residual_history));
    d["seconds"] = r.seconds;
    d["message"] = r.message;
    return d;
}

// A block matrix from scipy's BSR arrays (nbrows, nbcols, block, indptr, indices, data with the blocks
// row-major); copied into the library's Bsr after checking the structure.
template <class V, class I>
iterative::Bsr<V, I> bsr_input(std::int64_t nbrows, std::int64_t nbcols, int block, const Array1& indptr,
                               const Array1& indices, const Array1& data) {
    if (block < 1 || block > 5) throw NotSupported("BSR: block size " + std::to_string(block) + " (supported: 1..5)");
    if (nbrows < 0 || nbcols < 0) throw InvalidArgument("BSR: negative shape");
    if (static_cast<std::int64_t>(indptr.shape(0)) != nbrows + 1)
        throw InvalidStructure("BSR: indptr has " + std::to_string(indptr.shape(0)) + " entries, expected " +
                               std::to_string(nbrows + 1));
    iterative::Bsr<V, I> b;
    b.nbrows = nbrows;
    b.nbcols = nbcols;
    b.block = block;
    if (has_dtype<std::int64_t>(indptr.dtype())) {
        auto p = as_span<std::int64_t>(indptr, "BSR indptr");
        b.row_ptr.assign(p.begin(), p.end());
    } else {
        auto p = as_span<std::int32_t>(indptr, "BSR indptr");
        b.row_ptr.assign(p.begin(), p.end());
    }
    auto ci = as_span<I>(indices, "BSR indices");
    auto vs = as_span<V>(data, "BSR data");
    if (b.row_ptr.front() != 0) throw InvalidStructure("BSR: indptr[0] != 0");
    for (std::int64_t r = 0; r < nbrows; ++r)
        if (b.row_ptr[r + 1] < b.row_ptr[r]) throw InvalidStructure("BSR: indptr decreases at block row " + std::to_string(r));
    const offset_t nnzb = b.row_ptr.back();
    if (static_cast<offset_t>(ci.size()) < nnzb) throw InvalidStructure("BSR: fewer indices than indptr[-1]");
    if (static_cast<offset_t>(vs.size()) < nnzb * block * block) throw InvalidStructure("BSR: fewer values than blocks");
    for (offset_t k = 0; k < nnzb; ++k)
        if (ci[k] < 0 || ci[k] >= nbcols)
            throw InvalidStructure("BSR: block column index " + std::to_string(ci[k]) + " out of range at block " + std::to_string(k));
    b.col_idx.assign(ci.begin(), ci.begin() + nnzb);
    b.values.assign(vs.begin(), vs.begin() + nnzb * block * block);
    return b;
}

// A TriangularSolve plan over a scipy CSR matrix it keeps alive.
class TriSolve {
public:
    TriSolve(const CsrArg& t, bool lower, bool unit_diagonal, const std::string& backend, const std::string& sync,
             int threads, std::int64_t min_task_weight, const Array1& block_ptr)
        : t_(t), value_(t.data.dtype()) {
        iterative::ScheduleOptions o;
        o.backend = parse_backend(backend);
        o.sync = parse_sync(sync);
        o.threads = threads;
        o.min_task_weight = min_task_weight;
        dispatch(t.data.dtype(), t.indices.dtype(), [&]<class V, class I>() {
            auto h = std::make_unique<Holder<V, I>>();
            h->in = csr_input<V, I>(t_, "T");
            if (h->in.view.nrows != h->in.view.ncols) throw DimensionMismatch("TriangularSolve: the matrix is not square");
            std::span<const std::int64_t> bp;
            if (block_ptr.shape(0) > 0) bp = as_span<std::int64_t>(block_ptr, "block_ptr");
            {
                nb::gil_scoped_release release;
                validate(h->in.view, ValidateOptions{});
                h->plan.analyze(h->in.view, lower ? Triangle::lower : Triangle::upper, unit_diagonal, o, bp);
            }
            n_ = h->in.view.nrows;
            stats_ = h->plan.stats();
            p_ = std::move(h);
            return nb::object();
        });
    }

    nb::object solve(const Array1& b) {
        return dispatch(value_, t_.indices.dtype(), [&]<class V, class I>() -> nb::object {
            auto bs = as_span<V>(b, "b");
            if (static_cast<std::int64_t>(bs.size()) != n_)
                throw DimensionMismatch("TriangularSolve: b has " + std::to_string(bs.size()) + " entries, need " + std::to_string(n_));
            std::vector<V> x(bs.begin(), bs.end());
            std::int64_t bad;
            {
                nb::gil_scoped_release release;
                bad = std::get<std::unique_ptr<Holder<V, I>>>(p_)->plan.solve(x);
            }
            if (bad >= 0) throw InvalidArgument("TriangularSolve: singular matrix (zero or missing diagonal in row " + std::to_string(bad) + ")");
            return to_numpy(std::move(x));
        });
    }

    nb::dict stats() const { return schedule_dict(stats_); }
    std::int64_t n() const { return n_; }

private:
    template <class V, class I>
    struct Holder {
        CsrInput<V, I> in;
        iterative::TriangularSolve<V, I> plan;
    };
    CsrArg t_;
    nb::dlpack::dtype value_;
    std::int64_t n_ = 0;
    iterative::ScheduleStats stats_;
    std::variant<std::monostate, std::unique_ptr<Holder<float, std::int32_t>>, std::unique_ptr<Holder<float, std::int64_t>>,
                 std::unique_ptr<Holder<double, std::int32_t>>, std::unique_ptr<Holder<double, std::int64_t>>,
                 std::unique_ptr<Holder<std::complex<float>, std::int32_t>>, std::unique_ptr<Holder<std::complex<float>, std::int64_t>>,
                 std::unique_ptr<Holder<std::complex<double>, std::int32_t>>, std::unique_ptr<Holder<std::complex<double>, std::int64_t>>>
        p_;
};

// An LU-SGS preconditioner over a block matrix (copied into the library's Bsr).
class LuSgsCore {
public:
    LuSgsCore(std::int64_t nbrows, std::int64_t nbcols, int block, const Array1& indptr, const Array1& indices,
              const Array1& data, const std::string& ordering, const std::string& backend, const std::string& sync,
              int threads)
        : value_(data.dtype()), index_(indices.dtype()) {
        if (nbrows != nbcols) throw DimensionMismatch("LU-SGS: the matrix must be square");
        iterative::OrderingOptions oo;
        oo.kind = iterative::parse_ordering(ordering);
        oo.threads = threads;
        iterative::ScheduleOptions so;
        so.backend = parse_backend(backend);
        so.sync = parse_sync(sync);
        so.threads = threads;
        dispatch_real(value_, index_, [&]<class V, class I>() {
            auto h = std::make_unique<Holder<V, I>>();
            h->a = bsr_input<V, I>(nbrows, nbcols, block, indptr, indices, data);
            {
                nb::gil_scoped_release release;
                h->m = std::make_unique<iterative::LuSgs<V, I>>(h->a, oo, so);
            }
            n_ = nbrows * block;
            p_ = std::move(h);
            return nb::object();
        });
    }

    nb::object apply(const Array1& r) {
        return dispatch(value_, index_, [&]<class V, class I>() -> nb::object {
            if constexpr (!RealScalar<V>) {
                return nb::object();
            } else {
                auto rs = as_span<V>(r, "r");
                if (static_cast<std::int64_t>(rs.size()) != n_)
                    throw DimensionMismatch("LU-SGS: r has " + std::to_string(rs.size()) + " entries, need " + std::to_string(n_));
                std::vector<V> z(rs.size());
                {
                    nb::gil_scoped_release release;
                    std::get<std::unique_ptr<Holder<V, I>>>(p_)->m->apply(rs, z);
                }
                return to_numpy(std::move(z));
            }
        });
    }

    // `sweeps` stationary LU-SGS steps on x in place; returns the relative residual after each.
    nb::object iterate(const Array1& b, const MutArray1& x, int sweeps) {
        return dispatch(value_, index_, [&]<class V, class I>() -> nb::object {
            if constexpr (!RealScalar<V>) {
                return nb::object();
            } else {
                auto bs = as_span<V>(b, "b");
                auto xs = as_mut_span<V>(x, "x");
                if (static_cast<std::int64_t>(bs.size()) != n_ || static_cast<std::int64_t>(xs.size()) != n_)
                    throw DimensionMismatch("LU-SGS: b and x need " + std::to_string(n_) + " entries");
                if (sweeps < 0) throw InvalidArgument("LU-SGS: sweeps must be >= 0");
                std::vector<double> drop;
                {
                    nb::gil_scoped_release release;
                    drop = std::get<std::unique_ptr<Holder<V, I>>>(p_)->m->iterate(bs, xs, sweeps);
                }
                return to_numpy(std::move(drop));
            }
        });
    }

    std::int64_t n() const { return n_; }

private:
    template <class V, class I>
    struct Holder {
        iterative::Bsr<V, I> a;
        std::unique_ptr<iterative::LuSgs<V, I>> m;
    };
    nb::dlpack::dtype value_, index_;
    std::int64_t n_ = 0;
    std::variant<std::monostate, std::unique_ptr<Holder<float, std::int32_t>>, std::unique_ptr<Holder<float, std::int64_t>>,
                 std::unique_ptr<Holder<double, std::int32_t>>, std::unique_ptr<Holder<double, std::int64_t>>>
        p_;
};

template <class V, class I>
nb::object bsr_output(iterative::Bsr<V, I>&& b) {
    return nb::make_tuple(b.nbrows, b.nbcols, b.block, to_numpy(std::move(b.row_ptr)), to_numpy(std::move(b.col_idx)),
                          to_numpy(std::move(b.values)));
}

}  // namespace

void register_iterative(nb::module_& m) {
    nb::class_<TriSolve>(m, "TriangularSolveCore", "gigasparse::iterative::TriangularSolve over a CSR tuple.")
        .def(nb::init<const CsrArg&, bool, bool, const std::string&, const std::string&, int, std::int64_t, const Array1&>(),
             nb::arg("t"), nb::arg("lower"), nb::arg("unit_diagonal"), nb::arg("backend"), nb::arg("sync"), nb::arg("threads"),
             nb::arg("min_task_weight"), nb::arg("block_ptr"))
        .def("solve", &TriSolve::solve, nb::arg("b"), "x = T^-1 b (a new vector)")
        .def_prop_ro("stats", &TriSolve::stats)
        .def_prop_ro("n", &TriSolve::n);
    nb::class_<LuSgsCore>(m, "LuSgsCore", "gigasparse::iterative::LuSgs over BSR arrays.")
        .def(nb::init<std::int64_t, std::int64_t, int, const Array1&, const Array1&, const Array1&, const std::string&,
                      const std::string&, const std::string&, int>(),
             nb::arg("nbrows"), nb::arg("nbcols"), nb::arg("block"), nb::arg("indptr"), nb::arg("indices"), nb::arg("data"),
             nb::arg("ordering"), nb::arg("backend"), nb::arg("sync"), nb::arg("threads"))
        .def("apply", &LuSgsCore::apply, nb::arg("r"), "z = M^-1 r")
        .def("iterate", &LuSgsCore::iterate, nb::arg("b"), nb::arg("x"), nb::arg("sweeps"))
        .def_prop_ro("n", &LuSgsCore::n);
    m.def(
        "bsr_spmv",
        [](std::int64_t nbrows, std::int64_t nbcols, int block, const Array1& indptr, const Array1& indices,
           const Array1& data, const Array1& x, const MutArray1& y, double alpha, double beta, const std::string& backend) {
            const auto be = parse_backend(backend);
            dispatch_real(data.dtype(), indices.dtype(), [&]<class V, class I>() {
                auto a = bsr_input<V, I>(nbrows, nbcols, block, indptr, indices, data);
                auto xs = as_span<V>(x, "x");
                auto ys = as_mut_span<V>(y, "y");
                if (static_cast<std::int64_t>(xs.size()) != a.ncols() || static_cast<std::int64_t>(ys.size()) != a.nrows())
                    throw DimensionMismatch("bsr_spmv: x or y has the wrong length");
                nb::gil_scoped_release release;
                iterative::bsr_spmv<V, I>(be, a, xs, ys, static_cast<V>(alpha), static_cast<V>(beta));
                return nb::object();
            });
        },
        nb::arg("nbrows"), nb::arg("nbcols"), nb::arg("block"), nb::arg("indptr"), nb::arg("indices"), nb::arg("data"),
        nb::arg("x"), nb::arg("y"), nb::arg("alpha"), nb::arg("beta"), nb::arg("backend"),
        "y = alpha*A*x + beta*y in place for a BSR matrix (square blocks 1..5).");
    m.def(
        "cfd_proxy",
        [](std::int64_t nx, std::int64_t ny, std::int64_t nz, int block, double sigma, bool renumber, std::uint64_t seed,
           const std::string& value, const std::string& index) {
            iterative::CfdProxyOptions o;
            o.nx = nx;
            o.ny = ny;
            o.nz = nz;
            o.block = block;
            o.sigma = sigma;
            o.renumber = renumber;
            o.seed = seed;
            return dispatch_real(dtype_from_name(value), dtype_from_name(index), [&]<class V, class I>() {
                iterative::Bsr<V, I> b;
                {
                    nb::gil_scoped_release release;
                    b = iterative::cfd_proxy<V, I>(o);
                }
                return bsr_output(std::move(b));
            });
        },
        nb::arg("nx"), nb::arg("ny"), nb::arg("nz"), nb::arg("block"), nb::arg("sigma"), nb::arg("renumber"), nb::arg("seed"),
        nb::arg("dtype"), nb::arg("index_dtype"),
        "The LU-SGS test operator: (nbrows, nbcols, block, indptr, indices, data) with the blocks row-major.");
    nb::class_<Precond>(m, "PrecondCore", "Type-erased gigasparse::iterative::Preconditioner (use gigasparse.ilu0, ...).")
        .def(nb::init<const CsrArg&, const std::string&, const std::string&, const std::string&, const std::string&, int,
                      const nb::dict&>(),
             nb::arg("a"), nb::arg("kind"), nb::arg("ordering"), nb::arg("backend"), nb::arg("sync"), nb::arg("threads"),
             nb::arg("options"))
        .def("apply", &Precond::apply, nb::arg("r"), "z = M^-1 r")
        .def_prop_ro("info", &Precond::info)
        .def_prop_ro("n", &Precond::n);
    m.def(
        "spmv",
        [](const CsrArg& a, const Array1& x, const MutArray1& y, double alpha, double beta, const std::string& backend) {
            const auto be = parse_backend(backend);
            dispatch_real(a.data.dtype(), a.indices.dtype(), [&]<class V, class I>() {
                auto in = csr_input<V, I>(a, "A");
                auto xs = as_span<V>(x, "x");
                auto ys = as_mut_span<V>(y, "y");
                nb::gil_scoped_release release;
                ValidateOptions vo;
                vo.sorted = false;
                validate(in.view, vo);
                iterative::spmv<V, I>(be, in.view, xs, ys, static_cast<V>(alpha), static_cast<V>(beta));
                return nb::object();
            });
        },
        nb::arg("a"), nb::arg("x"), nb::arg("y"), nb::arg("alpha"), nb::arg("beta"), nb::arg("backend"),
        "y = alpha*A*x + beta*y in place (rows split by nonzeros over the OpenMP threads).");
    m.def(
        "krylov",
        [](const std::string& method, nb::object a, std::int64_t n, const std::string& value, const Array1& b,
           const MutArray1& x, nb::object m, double tol, std::int64_t maxit, int restart, const std::string& backend,
           bool history) {
            iterative::SolverOptions o;
            o.method = iterative::parse_method(method);
            o.tol = tol;
            o.maxit = maxit;
            o.restart = restart;
            o.backend = parse_backend(backend);
            o.record_history = history;
            const bool matrix = nb::isinstance<nb::tuple>(a);
            const CsrArg csr = matrix ? nb::cast<CsrArg>(a) : CsrArg{};
            const auto vdt = matrix ? csr.data.dtype() : dtype_from_name(value);
            const auto idt = matrix ? csr.indices.dtype() : nb::dtype<std::int64_t>();
            return dispatch(vdt, idt, [&]<class V, class I>() {
                auto bs = as_span<V>(b, "b");
                auto xs = as_mut_span<V>(x, "x0");
                // Objects holding Python references are made and destroyed with the GIL held.
                CsrInput<V, I> in;
                iterative::LinearOperator<V> op;
                if (matrix) {
                    in = csr_input<V, I>(csr, "A");
                    if (in.view.nrows != in.view.ncols) throw DimensionMismatch("krylov: the matrix is not square");
                    n = in.view.nrows;
                } else {
                    op.n = n;
                    op.apply = [a](std::span<const V> u, std::span<V> v) { call_python<V>(a, u, v, "A"); };
                }
                const iterative::Preconditioner<V>* pre = nullptr;
                std::unique_ptr<PythonPrecond<V>> pymp;
                if (nb::isinstance<Precond>(m)) {
                    const Precond& mp = nb::cast<const Precond&>(m);
                    if (!(mp.value() == vdt))
                        throw InvalidArgument("M was built for " + dtype_name(mp.value()) + " values, A has " + dtype_name(vdt));
                    if (mp.n() != n) throw DimensionMismatch("M and A differ in size");
                    pre = &mp.template get<V>();
                } else if (!m.is_none()) {
                    pymp = std::make_unique<PythonPrecond<V>>(m);
                    pre = pymp.get();
                }
                iterative::SolveResult r;
                {
                    nb::gil_scoped_release release;
                    if (matrix) {
                        ValidateOptions vo;
                        vo.sorted = false;
                        vo.finite = true;
                        validate(in.view, vo);
                        op = iterative::csr_operator<V, I>(in.view, o.backend);
                    }
                    r = iterative::solve<V>(op, bs, xs, pre, o);
                }
                return nb::object(result_dict(r));
            });
        },
        nb::arg("method"), nb::arg("a"), nb::arg("n"), nb::arg("dtype"), nb::arg("b"), nb::arg("x"), nb::arg("m").none(),
        nb::arg("tol"), nb::arg("maxit"), nb::arg("restart"), nb::arg("backend"), nb::arg("history"),
        "Solves A x = b in place from the guess in x; A is a CSR tuple or a callable, M None, a PrecondCore or a "
        "callable; returns the result as a dict.");

    m.def(
        "krylov_cuda",
        [](const std::string& method, const CsrArg& a, const Array1& b, const MutArray1& x, const std::string& precond,
           const std::string& ordering, double tol, std::int64_t maxit, bool history, int device, int restart) {
            cuda::GpuSolveOptions o;
            o.method = iterative::parse_method(method);
            o.restart = restart;
            o.precond = cuda::parse_gpu_precond(precond);
            if (!ordering.empty()) o.ordering.kind = iterative::parse_ordering(ordering);
            o.tol = tol;
            o.maxit = maxit;
            o.record_history = history;
            cuda::check_options(o);  // misuse is reported with or without a device
            return dispatch(a.data.dtype(), a.indices.dtype(), [&]<class V, class I>() {
                auto bs = as_span<V>(b, "b");
                auto xs = as_mut_span<V>(x, "x0");
                const CsrInput<V, I> in = csr_input<V, I>(a, "A");
                iterative::SolveResult r;
                cuda::GpuSolveStats st;
                {
                    nb::gil_scoped_release release;
                    if (cuda::device_count() == 0) throw NotSupported("the cuda backend needs a CUDA device: " + cuda::device_summary());
                    const auto d = cuda::DeviceMatrix<V, I>::upload(in.view, device);
                    r = cuda::solve<V, I>(d, bs, xs, o, &st);
                }
                nb::dict res = result_dict(r);
                nb::dict gpu;
                gpu["device"] = cuda::device_summary(device);
                gpu["threads_per_row"] = st.threads_per_row;
                gpu["long_rows"] = st.long_rows;
                gpu["spmv_calls"] = st.spmv_calls;
                gpu["sweep_levels"] = st.sweep_levels;
                gpu["graph_launches"] = st.graph_launches;
                gpu["ordering"] = st.ordering;
                gpu["device_bytes"] = st.device_bytes;
                gpu["setup_ms"] = st.setup_ms;
                gpu["solve_ms"] = st.solve_ms;
                gpu["download_ms"] = st.download_ms;
                res["gpu"] = gpu;
                return nb::object(res);
            });
        },
        nb::arg("method"), nb::arg("a"), nb::arg("b"), nb::arg("x"), nb::arg("precond"), nb::arg("ordering"), nb::arg("tol"),
        nb::arg("maxit"), nb::arg("history"), nb::arg("device"), nb::arg("restart") = 30,
        "Solves A x = b on the GPU (CG, BiCGStab, GMRES(restart) or FGMRES; precond none, jacobi, ilu0, ic0 or sgs), x in place; returns the "
        "result as a dict with the GPU's account under 'gpu'.");
}

}  // namespace gigasparse::python
