// python/src/direct.cpp: the sparse direct solver (analyze → factorize → refactorize → solve), type-erased
// over the value and index types of the matrix given at construction.
#include <memory>
#include <variant>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/direct/batch.hpp>
#include <gigasparse/direct/solver.hpp>

#include <nanobind/stl/complex.h>
#include <nanobind/stl/string.h>

#include "common.hpp"

namespace gigasparse::python {

namespace {

template <class V, class I>
using SolverPtr = std::unique_ptr<direct::DirectSolver<V, I>>;

class Direct {
public:
    Direct(const std::string& structure, const std::string& view, const std::string& value, const std::string& index)
        : value_(dtype_from_name(value)), index_(dtype_from_name(index)) {
        const auto s = direct::parse_structure(structure);
        const auto v = direct::parse_view(view);
        dispatch(value_, index_, [&]<class V, class I>() {
            solver_ = std::make_unique<direct::DirectSolver<V, I>>(s, v);
            return nb::object();
        });
    }

    void set_option(const std::string& name, const std::string& value) {
        with([&](auto& s) { s.set_option(name, value); });
    }
    std::string get_option(const std::string& name) {
        std::string r;
        with([&](auto& s) { r = s.get_option(name); });
        return r;
    }
    void set_user_permutation(const Array1& perm) {
        auto p = as_span<std::int64_t>(perm, "perm");
        with([&](auto& s) { s.set_user_permutation(p); });
    }

    void set_schur_indices(const Array1& indices) {
        auto v = as_span<std::int64_t>(indices, "schur");
        with([&](auto& s) { s.set_schur_indices(v); });
    }
    // The k x k Schur complement, column-major flattened (reshaped by the Python layer).
    nb::object schur_complement() {
        return dispatch(value_, index_, [&]<class V, class I>() {
            auto& s = *std::get<SolverPtr<V, I>>(solver_);
            DenseMatrix<V> S;
            {
                nb::gil_scoped_release release;
                S = s.schur_complement();
            }
            return to_numpy(std::move(S.data));
        });
    }
    // c = b2 - A21 A11⁻¹ b1 for the column-major n x nrhs b (flattened); k x nrhs out.
    nb::object schur_condense(const Array1& b, std::int64_t nrhs) {
        return dispatch(value_, index_, [&]<class V, class I>() {
            auto& s = *std::get<SolverPtr<V, I>>(solver_);
            auto bs = as_span<V>(b, "b");
            std::vector<V> c(static_cast<std::size_t>(s.schur_indices().size() * static_cast<std::size_t>(std::max<std::int64_t>(nrhs, 0))));
            {
                nb::gil_scoped_release release;
                if (bs.size() != static_cast<std::size_t>(s.result("n") * static_cast<double>(nrhs)))
                    throw DimensionMismatch("schur_condense: b must be n x nrhs");
                s.schur_condense(bs, std::span<V>(c), nrhs);
            }
            return to_numpy(std::move(c));
        });
    }
    nb::object schur_expand(const Array1& b, const Array1& x2, std::int64_t nrhs) {
        return dispatch(value_, index_, [&]<class V, class I>() {
            auto& s = *std::get<SolverPtr<V, I>>(solver_);
            auto bs = as_span<V>(b, "b");
            auto xs = as_span<V>(x2, "x2");
            std::vector<V> x(bs.size());
            {
                nb::gil_scoped_release release;
                if (bs.size() != static_cast<std::size_t>(s.result("n") * static_cast<double>(nrhs)))
                    throw DimensionMismatch("schur_expand: b must be n x nrhs");
                s.schur_expand(bs, xs, std::span<V>(x), nrhs);
            }
            return to_numpy(std::move(x));
        });
    }

    void analyze(const CsrArg& a) {
        typed([&]<class V, class I>(direct::DirectSolver<V, I>& s) {
            auto in = csr_input<V, I>(a, "A");
            nb::gil_scoped_release release;
            check_structure(in.view, false);
            s.analyze(in.view);
        });
    }

    std::string factorize(const CsrArg& a) {
        direct::Status st{};
        typed([&]<class V, class I>(direct::DirectSolver<V, I>& s) {
            auto in = csr_input<V, I>(a, "A");
            nb::gil_scoped_release release;
            check_structure(in.view, true);
            st = s.factorize(in.view);
        });
        return direct::to_string(st);
    }

    std::string refactorize(const Array1& values) {
        direct::Status st{};
        typed([&]<class V, class I>(direct::DirectSolver<V, I>& s) {
            auto v = as_span<V>(values, "values");
            nb::gil_scoped_release release;
            for (const V& x : v)
                if (!std::isfinite(std::abs(x))) throw InvalidStructure("refactorize: the values contain NaN or Inf");
            st = s.refactorize(v);
        });
        return direct::to_string(st);
    }

    // b is the column-major n x nrhs right-hand side, flattened; trans: N, T or H (op(A) x = b); returns
    // (x flattened, info dict).
    nb::object solve(const Array1& b, std::int64_t nrhs, const std::string& trans) {
        const direct::Transpose op = direct::parse_transpose(trans);
        return dispatch(value_, index_, [&]<class V, class I>() {
            auto& s = *std::get<SolverPtr<V, I>>(solver_);
            auto bs = as_span<V>(b, "b");
            std::vector<V> x(bs.size());
            direct::SolveInfo info;
            {
                nb::gil_scoped_release release;
                for (const V& v : bs)
                    if (!std::isfinite(std::abs(v))) throw InvalidArgument("solve: b contains NaN or Inf");
                info = s.solve(bs, std::span<V>(x), nrhs, op);
            }
            nb::dict d;
            d["status"] = direct::to_string(info.status);
            d["refinement_steps"] = info.refinement_steps;
            d["krylov_iterations"] = info.krylov_iterations;
            d["backward_error"] = info.backward_error;
            d["residual"] = info.residual;
            return nb::object(nb::make_tuple(to_numpy(std::move(x)), d));
        });
    }

    double result(const std::string& name) {
        double r = 0;
        with([&](auto& s) { r = s.result(name); });
        return r;
    }
    std::string ordering_used() {
        std::string r;
        with([&](auto& s) { r = s.ordering_used(); });
        return r;
    }
    nb::object permutation() {
        std::vector<std::int64_t> p;
        with([&](auto& s) {
            auto q = s.permutation();
            p.assign(q.begin(), q.end());
        });
        return to_numpy(std::move(p));
    }
    nb::object factor_l() {
        return dispatch(value_, index_, [&]<class V, class I>() {
            auto& s = *std::get<SolverPtr<V, I>>(solver_);
            Csr<V, std::int64_t> l;
            {
                nb::gil_scoped_release release;
                l = s.factor_L();
            }
            return csr_output(std::move(l));
        });
    }
    // LDLᵀ: D (block diagonal, pivoted order), the permutation of the factor, the symmetric scaling.
    nb::object factor_d() {
        return dispatch(value_, index_, [&]<class V, class I>() {
            auto& s = *std::get<SolverPtr<V, I>>(solver_);
            Csr<V, std::int64_t> d;
            {
                nb::gil_scoped_release release;
                d = s.factor_D();
            }
            return csr_output(std::move(d));
        });
    }
    nb::object factor_u() {
        return dispatch(value_, index_, [&]<class V, class I>() {
            auto& s = *std::get<SolverPtr<V, I>>(solver_);
            Csr<V, std::int64_t> u;
            {
                nb::gil_scoped_release release;
                u = s.factor_U();
            }
            return csr_output(std::move(u));
        });
    }
    nb::object row_permutation() {
        std::vector<std::int64_t> p;
        with([&](auto& s) { p = s.row_permutation(); });
        return to_numpy(std::move(p));
    }
    nb::object row_scaling() {
        std::vector<double> v;
        with([&](auto& s) {
            auto q = s.row_scaling();
            v.assign(q.begin(), q.end());
        });
        return to_numpy(std::move(v));
    }
    nb::object factor_permutation() {
        std::vector<std::int64_t> p;
        with([&](auto& s) { p = s.factor_permutation(); });
        return to_numpy(std::move(p));
    }
    nb::object scaling() {
        std::vector<double> v;
        with([&](auto& s) {
            auto q = s.scaling();
            v.assign(q.begin(), q.end());
        });
        return to_numpy(std::move(v));
    }
    // (sign, log |det|): sign a float (real) or a complex of modulus 1.
    nb::object log_determinant() {
        return dispatch(value_, index_, [&]<class V, class I>() {
            const auto d = std::get<SolverPtr<V, I>>(solver_)->log_determinant();
            return nb::object(nb::make_tuple(nb::cast(d.sign), d.log_abs));
        });
    }
    nb::object inverse_diagonal() {
        return dispatch(value_, index_, [&]<class V, class I>() {
            auto& s = *std::get<SolverPtr<V, I>>(solver_);
            std::vector<V> d;
            {
                nb::gil_scoped_release release;
                d = s.inverse_diagonal();
            }
            return to_numpy(std::move(d));
        });
    }
    nb::object selected_inverse() {
        return dispatch(value_, index_, [&]<class V, class I>() {
            auto& s = *std::get<SolverPtr<V, I>>(solver_);
            Csr<V, std::int64_t> z;
            {
                nb::gil_scoped_release release;
                z = s.selected_inverse();
            }
            return csr_output(std::move(z));
        });
    }
    double condition_estimate() {
        double r = 0;
        with([&](auto& s) {
            nb::gil_scoped_release release;
            r = s.condition_estimate();
        });
        return r;
    }
    bool analyzed() {
        bool r = false;
        with([&](auto& s) { r = s.analyzed(); });
        return r;
    }
    bool factorized() {
        bool r = false;
        with([&](auto& s) { r = s.factorized(); });
        return r;
    }

private:
    // Calls f(solver) on the solver whatever its types.
    template <class F>
    void with(F&& f) {
        std::visit([&](auto& p) { f(*p); }, solver_);
    }
    // Calls f.template operator()<V, I>(solver) with the solver's types.
    template <class F>
    void typed(F&& f) {
        dispatch(value_, index_, [&]<class V, class I>() {
            f.template operator()<V, I>(*std::get<SolverPtr<V, I>>(solver_));
            return nb::object();
        });
    }
    template <class V, class I>
    static void check_structure(CsrView<V, I> a, bool finite) {
        ValidateOptions o;
        o.sorted = false;
        o.finite = finite;
        validate(a, o);
    }

    nb::dlpack::dtype value_, index_;
    std::variant<SolverPtr<float, std::int32_t>, SolverPtr<float, std::int64_t>, SolverPtr<double, std::int32_t>,
                 SolverPtr<double, std::int64_t>, SolverPtr<std::complex<float>, std::int32_t>,
                 SolverPtr<std::complex<float>, std::int64_t>, SolverPtr<std::complex<double>, std::int32_t>,
                 SolverPtr<std::complex<double>, std::int64_t>>
        solver_;
};

template <class V, class I>
using BatchPtr = std::unique_ptr<direct::BatchDirectSolver<V, I>>;

// The batch solver: one pattern, count value sets (count x nnz, flattened), right-hand sides count x n x nrhs.
class BatchDirect {
public:
    BatchDirect(const std::string& structure, const std::string& view, const std::string& value, const std::string& index)
        : value_(dtype_from_name(value)), index_(dtype_from_name(index)) {
        const auto s = direct::parse_structure(structure);
        const auto v = direct::parse_view(view);
        dispatch(value_, index_, [&]<class V, class I>() {
            solver_ = std::make_unique<direct::BatchDirectSolver<V, I>>(s, v);
            return nb::object();
        });
    }
    void set_option(const std::string& name, const std::string& value) {
        std::visit([&](auto& p) { p->set_option(name, value); }, solver_);
    }
    void analyze(const CsrArg& a) {
        dispatch(value_, index_, [&]<class V, class I>() {
            auto in = csr_input<V, I>(a, "A");
            nb::gil_scoped_release release;
            ValidateOptions o;
            o.sorted = false;
            o.finite = false;
            validate(in.view, o);
            std::get<BatchPtr<V, I>>(solver_)->analyze(in.view);
            return nb::object();
        });
    }
    // Returns the statuses (a list of strings).
    nb::object factorize(const Array1& values, std::int64_t count) {
        return dispatch(value_, index_, [&]<class V, class I>() {
            auto v = as_span<V>(values, "values");
            std::vector<direct::Status> st;
            {
                nb::gil_scoped_release release;
                for (const V& x : v)
                    if (!std::isfinite(std::abs(x))) throw InvalidArgument("batch factorize: the values contain NaN or Inf");
                st = std::get<BatchPtr<V, I>>(solver_)->factorize(v, count);
            }
            nb::list out;
            for (auto s : st) out.append(direct::to_string(s));
            return nb::object(out);
        });
    }
    // (x flattened, list of info dicts)
    nb::object solve(const Array1& b, std::int64_t nrhs, const std::string& trans) {
        const direct::Transpose op = direct::parse_transpose(trans);
        return dispatch(value_, index_, [&]<class V, class I>() {
            auto bs = as_span<V>(b, "b");
            std::vector<V> x(bs.size());
            std::vector<direct::SolveInfo> info;
            {
                nb::gil_scoped_release release;
                for (const V& v : bs)
                    if (!std::isfinite(std::abs(v))) throw InvalidArgument("batch solve: b contains NaN or Inf");
                info = std::get<BatchPtr<V, I>>(solver_)->solve(bs, std::span<V>(x), nrhs, op);
            }
            nb::list infos;
            for (const auto& i : info) {
                nb::dict d;
                d["status"] = direct::to_string(i.status);
                d["refinement_steps"] = i.refinement_steps;
                d["krylov_iterations"] = i.krylov_iterations;
                d["backward_error"] = i.backward_error;
                d["residual"] = i.residual;
                infos.append(d);
            }
            return nb::object(nb::make_tuple(to_numpy(std::move(x)), infos));
        });
    }
    double result(const std::string& name) {
        double r = 0;
        std::visit([&](auto& p) { r = p->prototype().result(name); }, solver_);
        return r;
    }
    bool ran_in_parallel() {
        bool r = false;
        std::visit([&](auto& p) { r = p->ran_in_parallel(); }, solver_);
        return r;
    }

private:
    nb::dlpack::dtype value_, index_;
    std::variant<BatchPtr<float, std::int32_t>, BatchPtr<float, std::int64_t>, BatchPtr<double, std::int32_t>,
                 BatchPtr<double, std::int64_t>, BatchPtr<std::complex<float>, std::int32_t>,
                 BatchPtr<std::complex<float>, std::int64_t>, BatchPtr<std::complex<double>, std::int32_t>,
                 BatchPtr<std::complex<double>, std::int64_t>>
        solver_;
};

}  // namespace

void register_direct(nb::module_& m) {
    nb::class_<BatchDirect>(m, "BatchDirectCore", "Type-erased gigasparse::direct::BatchDirectSolver (use gigasparse.BatchDirectSolver).")
        .def(nb::init<const std::string&, const std::string&, const std::string&, const std::string&>(), nb::arg("structure"),
             nb::arg("view"), nb::arg("dtype"), nb::arg("index_dtype"))
        .def("set_option", &BatchDirect::set_option, nb::arg("name"), nb::arg("value"))
        .def("analyze", &BatchDirect::analyze, nb::arg("a"))
        .def("factorize", &BatchDirect::factorize, nb::arg("values"), nb::arg("count"))
        .def("solve", &BatchDirect::solve, nb::arg("b"), nb::arg("nrhs"), nb::arg("trans") = "N")
        .def("result", &BatchDirect::result, nb::arg("name"))
        .def_prop_ro("ran_in_parallel", &BatchDirect::ran_in_parallel);
    nb::class_<Direct>(m, "DirectCore", "Type-erased gigasparse::direct::DirectSolver (use gigasparse.DirectSolver).")
        .def(nb::init<const std::string&, const std::string&, const std::string&, const std::string&>(), nb::arg("structure"),
             nb::arg("view"), nb::arg("dtype"), nb::arg("index_dtype"))
        .def("set_option", &Direct::set_option, nb::arg("name"), nb::arg("value"))
        .def("get_option", &Direct::get_option, nb::arg("name"))
        .def("set_user_permutation", &Direct::set_user_permutation, nb::arg("perm"))
        .def("set_schur_indices", &Direct::set_schur_indices, nb::arg("indices"))
        .def("schur_complement", &Direct::schur_complement)
        .def("schur_condense", &Direct::schur_condense, nb::arg("b"), nb::arg("nrhs"))
        .def("schur_expand", &Direct::schur_expand, nb::arg("b"), nb::arg("x2"), nb::arg("nrhs"))
        .def("analyze", &Direct::analyze, nb::arg("a"))
        .def("factorize", &Direct::factorize, nb::arg("a"))
        .def("refactorize", &Direct::refactorize, nb::arg("values"))
        .def("solve", &Direct::solve, nb::arg("b"), nb::arg("nrhs"), nb::arg("trans") = "N")
        .def("result", &Direct::result, nb::arg("name"))
        .def("ordering_used", &Direct::ordering_used)
        .def("permutation", &Direct::permutation)
        .def("factor_L", &Direct::factor_l)
        .def("factor_D", &Direct::factor_d)
        .def("factor_U", &Direct::factor_u)
        .def("row_permutation", &Direct::row_permutation)
        .def("row_scaling", &Direct::row_scaling)
        .def("factor_permutation", &Direct::factor_permutation)
        .def("scaling", &Direct::scaling)
        .def("log_determinant", &Direct::log_determinant)
        .def("condition_estimate", &Direct::condition_estimate)
        .def("inverse_diagonal", &Direct::inverse_diagonal)
        .def("selected_inverse", &Direct::selected_inverse)
        .def_prop_ro("analyzed", &Direct::analyzed)
        .def_prop_ro("factorized", &Direct::factorized);
}

}  // namespace gigasparse::python
