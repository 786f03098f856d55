// python/src/reference.cpp: the sequential reference kernels (SpMV, SpGEMM, add, triangular solve) and
// the structural checks the Python layer runs at its boundary.
#include <complex>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/reference/kernels.hpp>

#include <nanobind/stl/complex.h>

#include "common.hpp"

namespace gigasparse::python {

namespace {

// A Python scalar (int, float or complex) in the value type V; imaginary parts of real V must be 0.
template <class V>
V scalar_as(std::complex<double> s, const char* what) {
    if constexpr (is_complex_v<V>) {
        return V(static_cast<real_t<V>>(s.real()), static_cast<real_t<V>>(s.imag()));
    } else {
        if (s.imag() != 0.0) throw InvalidArgument(std::string(what) + " is complex but the matrix is real");
        return static_cast<V>(s.real());
    }
}

// Checks the invariants a kernel relies on; `sorted` also requires canonical rows, `finite` no NaN/Inf.
template <class V, class I>
void check(CsrView<V, I> a, bool sorted, bool finite) {
    ValidateOptions o;
    o.sorted = sorted;
    o.finite = finite;
    validate(a, o);
}

}  // namespace

void register_reference(nb::module_& m) {
    m.def(
        "validate",
        [](const CsrArg& a, bool sorted, bool finite) {
            dispatch(a.data.dtype(), a.indices.dtype(), [&]<class V, class I>() {
                auto in = csr_input<V, I>(a, "A");
                nb::gil_scoped_release release;
                check(in.view, sorted, finite);
                return nb::object();
            });
        },
        nb::arg("a"), nb::arg("sorted") = true, nb::arg("finite") = false,
        "Raises InvalidStructure naming the first row or entry that breaks the CSR invariants.");
    m.def(
        "ref_spmv",
        [](const CsrArg& a, const Array1& x, const MutArray1& y, std::complex<double> alpha, std::complex<double> beta) {
            dispatch(a.data.dtype(), a.indices.dtype(), [&]<class V, class I>() {
                auto in = csr_input<V, I>(a, "A");
                auto xs = as_span<V>(x, "x");
                auto ys = as_mut_span<V>(y, "y");
                const V al = scalar_as<V>(alpha, "alpha"), be = scalar_as<V>(beta, "beta");
                nb::gil_scoped_release release;
                check(in.view, false, false);
                reference::spmv<V, I>(in.view, xs, ys, al, be);
                return nb::object();
            });
        },
        nb::arg("a"), nb::arg("x"), nb::arg("y"), nb::arg("alpha"), nb::arg("beta"), "y = alpha*A*x + beta*y in place.");
    m.def(
        "ref_spgemm",
        [](const CsrArg& a, const CsrArg& b) {
            return dispatch(a.data.dtype(), a.indices.dtype(), [&]<class V, class I>() {
                auto ia = csr_input<V, I>(a, "A");
                auto ib = csr_input<V, I>(b, "B");
                Csr<V, I> c;
                {
                    nb::gil_scoped_release release;
                    check(ia.view, false, false);
                    check(ib.view, false, false);
                    c = reference::spgemm<V, I>(ia.view, ib.view);
                }
                return csr_output(std::move(c));
            });
        },
        nb::arg("a"), nb::arg("b"), "C = A*B (Gustavson).");
    m.def(
        "ref_add",
        [](const CsrArg& a, const CsrArg& b, std::complex<double> alpha, std::complex<double> beta) {
            return dispatch(a.data.dtype(), a.indices.dtype(), [&]<class V, class I>() {
                auto ia = csr_input<V, I>(a, "A");
                auto ib = csr_input<V, I>(b, "B");
                const V al = scalar_as<V>(alpha, "alpha"), be = scalar_as<V>(beta, "beta");
                Csr<V, I> c;
                {
                    nb::gil_scoped_release release;
                    check(ia.view, true, false);
                    check(ib.view, true, false);
                    c = reference::add<V, I>(ia.view, ib.view, al, be);
                }
                return csr_output(std::move(c));
            });
        },
        nb::arg("a"), nb::arg("b"), nb::arg("alpha"), nb::arg("beta"), "C = alpha*A + beta*B.");
    m.def(
        "ref_triangular_solve",
        [](const CsrArg& t, const MutArray1& x, bool lower, bool unit_diagonal) {
            std::int64_t bad = -1;
            dispatch(t.data.dtype(), t.indices.dtype(), [&]<class V, class I>() {
                auto in = csr_input<V, I>(t, "T");
                auto xs = as_mut_span<V>(x, "b");
                if (in.view.nrows != in.view.ncols)
                    throw DimensionMismatch("triangular_solve: T is " + std::to_string(in.view.nrows) + " x " +
                                            std::to_string(in.view.ncols) + ", not square");
                if (static_cast<std::int64_t>(xs.size()) != in.view.nrows)
                    throw DimensionMismatch("triangular_solve: b has " + std::to_string(xs.size()) + " entries, need " +
                                            std::to_string(in.view.nrows));
                nb::gil_scoped_release release;
                check(in.view, true, false);
                bad = reference::triangular_solve<V, I>(in.view, lower ? Triangle::lower : Triangle::upper, xs, unit_diagonal);
                return nb::object();
            });
            return bad;
        },
        nb::arg("t"), nb::arg("x"), nb::arg("lower"), nb::arg("unit_diagonal"),
        "Solves T x = b in place; returns -1 or the first row with a zero or missing diagonal.");
}

}  // namespace gigasparse::python
