// python/src/common.hpp: shared helpers of the bindings: dtype dispatch, zero-copy CSR views of scipy
// arrays, and handing C++ results to numpy without a copy.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <gigasparse/core/error.hpp>
#include <gigasparse/core/matrix.hpp>
#include <gigasparse/core/types.hpp>

namespace gigasparse::python {

namespace nb = nanobind;

// Any C-contiguous 1-D CPU array; the element type is checked at run time by the dispatchers.
using Array1 = nb::ndarray<nb::ro, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
// A writable 1-D CPU array (outputs and in-place vectors).
using MutArray1 = nb::ndarray<nb::ndim<1>, nb::c_contig, nb::device::cpu>;

template <class T>
bool has_dtype(const nb::dlpack::dtype& d) {
    return d == nb::dtype<T>();
}

// "float64", "int32", ... for error messages.
std::string dtype_name(const nb::dlpack::dtype& d);

// Calls f.template operator()<V>() for the value type named by `d` (float32/64, complex64/128).
template <class F>
nb::object dispatch_value(const nb::dlpack::dtype& d, F&& f) {
    if (has_dtype<float>(d)) return f.template operator()<float>();
    if (has_dtype<double>(d)) return f.template operator()<double>();
    if (has_dtype<std::complex<float>>(d)) return f.template operator()<std::complex<float>>();
    if (has_dtype<std::complex<double>>(d)) return f.template operator()<std::complex<double>>();
    throw InvalidArgument("unsupported value dtype " + dtype_name(d) + " (expected float32, float64, complex64 or complex128)");
}

// Calls f.template operator()<V, I>() for a value dtype and an index dtype (int32/int64).
template <class F>
nb::object dispatch(const nb::dlpack::dtype& value, const nb::dlpack::dtype& index, F&& f) {
    if (has_dtype<std::int32_t>(index))
        return dispatch_value(value, [&]<class V>() { return f.template operator()<V, std::int32_t>(); });
    if (has_dtype<std::int64_t>(index))
        return dispatch_value(value, [&]<class V>() { return f.template operator()<V, std::int64_t>(); });
    throw InvalidArgument("unsupported index dtype " + dtype_name(index) + " (expected int32 or int64)");
}

// Same as dispatch() but only for real value types (float32, float64).
template <class F>
nb::object dispatch_real(const nb::dlpack::dtype& value, const nb::dlpack::dtype& index, F&& f) {
    if (!has_dtype<float>(value) && !has_dtype<double>(value))
        throw NotSupported("this operation supports real values only (float32 or float64), got " + dtype_name(value));
    return dispatch(value, index, [&]<class V, class I>() {
        if constexpr (RealScalar<V>) return f.template operator()<V, I>();
        else return nb::object();
    });
}

// dtype from the names the Python layer passes ("float64", "int32", ...).
nb::dlpack::dtype dtype_from_name(const std::string& name);

// A typed read-only span over an array, checking its dtype.
template <class T>
std::span<const T> as_span(const Array1& a, const char* what) {
    if (!has_dtype<T>(a.dtype()))
        throw InvalidArgument(std::string(what) + " has dtype " + dtype_name(a.dtype()) + ", expected " + type_name<T>());
    return {static_cast<const T*>(a.data()), a.shape(0)};
}

template <class T>
std::span<T> as_mut_span(const MutArray1& a, const char* what) {
    if (!has_dtype<T>(a.dtype()))
        throw InvalidArgument(std::string(what) + " has dtype " + dtype_name(a.dtype()) + ", expected " + type_name<T>());
    return {static_cast<T*>(a.data()), a.shape(0)};
}

// A scipy CSR matrix as the Python layer passes it: (nrows, ncols, indptr, indices, data).
struct CsrArg {
    std::int64_t nrows = 0;
    std::int64_t ncols = 0;
    Array1 indptr;
    Array1 indices;
    Array1 data;
};

// A CsrView over a CsrArg: indices and values zero-copy; the row pointer zero-copy when it is
// int64, widened (O(nrows)) when scipy stores it as int32.
template <class V, class I>
struct CsrInput {
    std::vector<offset_t> widened;
    CsrView<V, I> view;
};

template <class V, class I>
CsrInput<V, I> csr_input(const CsrArg& a, const char* name) {
    CsrInput<V, I> in;
    const std::string n(name);
    if (a.nrows < 0 || a.ncols < 0) throw InvalidArgument(n + ": negative shape");
    if (static_cast<std::int64_t>(a.indptr.shape(0)) != a.nrows + 1)
        throw InvalidStructure(n + ": indptr has " + std::to_string(a.indptr.shape(0)) + " entries, expected nrows+1 = " +
                               std::to_string(a.nrows + 1));
    in.view.nrows = a.nrows;
    in.view.ncols = a.ncols;
    if (has_dtype<std::int64_t>(a.indptr.dtype())) {
        in.view.row_ptr = as_span<std::int64_t>(a.indptr, (n + ".indptr").c_str());
    } else {
        auto p = as_span<std::int32_t>(a.indptr, (n + ".indptr").c_str());
        in.widened.assign(p.begin(), p.end());
        in.view.row_ptr = in.widened;
    }
    in.view.col_idx = as_span<I>(a.indices, (n + ".indices").c_str());
    in.view.values = as_span<V>(a.data, (n + ".data").c_str());
    return in;
}

// Hands a vector to numpy without copying: the array owns the vector through a capsule.
template <class T>
nb::object to_numpy(std::vector<T>&& v) {
    auto* owned = new std::vector<T>(std::move(v));
    if (owned->empty()) owned->reserve(1);  // a non-null data pointer for empty arrays
    nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
    return nb::ndarray<nb::numpy, T, nb::ndim<1>>(owned->data(), {owned->size()}, owner).cast();
}

// A column-major nrows x ncols numpy array over an owned vector (no copy).
template <class T>
nb::object to_numpy_fortran(std::vector<T>&& v, std::int64_t nrows, std::int64_t ncols) {
    auto* owned = new std::vector<T>(std::move(v));
    if (owned->empty()) owned->reserve(1);
    nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
    const auto r = static_cast<std::size_t>(nrows), c = static_cast<std::size_t>(ncols);
    return nb::ndarray<nb::numpy, T, nb::ndim<2>, nb::f_contig>(owned->data(), {r, c}, owner, {1, static_cast<std::int64_t>(nrows)})
        .cast();
}

// A C++ CSR result as the tuple (data, indices, indptr, shape) for scipy. scipy keeps indices and
// indptr in one dtype: the row pointer is narrowed to I when nnz fits, otherwise the column indices
// are widened to int64. Values and (usually) column indices reach numpy without a copy.
template <class V, class I>
nb::object csr_output(Csr<V, I>&& c) {
    const nb::tuple shape = nb::make_tuple(c.nrows, c.ncols);
    if constexpr (std::is_same_v<I, std::int32_t>) {
        if (c.nnz() <= static_cast<offset_t>(INT32_MAX)) {
            std::vector<std::int32_t> ptr(c.row_ptr.begin(), c.row_ptr.end());
            return nb::make_tuple(to_numpy(std::move(c.values)), to_numpy(std::move(c.col_idx)), to_numpy(std::move(ptr)), shape);
        }
        std::vector<std::int64_t> idx(c.col_idx.begin(), c.col_idx.end());
        return nb::make_tuple(to_numpy(std::move(c.values)), to_numpy(std::move(idx)), to_numpy(std::move(c.row_ptr)), shape);
    } else {
        return nb::make_tuple(to_numpy(std::move(c.values)), to_numpy(std::move(c.col_idx)), to_numpy(std::move(c.row_ptr)), shape);
    }
}

// Registration of each binding file (called from module.cpp).
void register_errors(nb::module_& m);
void register_io(nb::module_& m);
void register_gen(nb::module_& m);
void register_reference(nb::module_& m);
void register_spgemm(nb::module_& m);
void register_direct(nb::module_& m);
void register_iterative(nb::module_& m);

}  // namespace gigasparse::python

// nanobind type caster for CsrArg: accepts the 5-tuple (nrows, ncols, indptr, indices, data).
namespace nanobind::detail {
template <>
struct type_caster<gigasparse::python::CsrArg> {
    NB_TYPE_CASTER(gigasparse::python::CsrArg,
                   const_name("tuple[int, int, numpy.typing.NDArray, numpy.typing.NDArray, numpy.typing.NDArray]"))

    bool from_python(handle src, uint8_t flags, cleanup_list* cleanup) noexcept {
        if (!PyTuple_Check(src.ptr()) || PyTuple_Size(src.ptr()) != 5) return false;
        make_caster<std::int64_t> r, c;
        make_caster<gigasparse::python::Array1> p, i, d;
        const uint8_t f = flags & ~static_cast<uint8_t>(cast_flags::convert);  // never copy silently here
        if (!r.from_python(PyTuple_GET_ITEM(src.ptr(), 0), flags, cleanup) ||
            !c.from_python(PyTuple_GET_ITEM(src.ptr(), 1), flags, cleanup) ||
            !p.from_python(PyTuple_GET_ITEM(src.ptr(), 2), f, cleanup) ||
            !i.from_python(PyTuple_GET_ITEM(src.ptr(), 3), f, cleanup) ||
            !d.from_python(PyTuple_GET_ITEM(src.ptr(), 4), f, cleanup))
            return false;
        value.nrows = r.value;
        value.ncols = c.value;
        value.indptr = p.value;
        value.indices = i.value;
        value.data = d.value;
        return true;
    }
    static handle from_cpp(const gigasparse::python::CsrArg&, rv_policy, cleanup_list*) noexcept { return handle(); }
};
}  // namespace nanobind::detail
