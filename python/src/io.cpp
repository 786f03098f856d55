// python/src/io.cpp: Matrix Market reading and writing (sparse coordinate and dense array files).
#include <algorithm>

#include <gigasparse/io/matrix_market.hpp>

#include <nanobind/stl/string.h>

#include "common.hpp"

namespace gigasparse::python {

namespace {

const char* format_name(io::MmFormat f) { return f == io::MmFormat::coordinate ? "coordinate" : "array"; }

const char* field_name(io::MmField f) {
    switch (f) {
        case io::MmField::real: return "real";
        case io::MmField::integer: return "integer";
        case io::MmField::complex: return "complex";
        case io::MmField::pattern: return "pattern";
    }
    return "real";
}

const char* symmetry_name(Symmetry s) {
    switch (s) {
        case Symmetry::general: return "general";
        case Symmetry::symmetric: return "symmetric";
        case Symmetry::skew_symmetric: return "skew-symmetric";
        case Symmetry::hermitian: return "hermitian";
    }
    return "general";
}

Symmetry symmetry_from_name(const std::string& s) {
    if (s == "general") return Symmetry::general;
    if (s == "symmetric") return Symmetry::symmetric;
    if (s == "skew-symmetric" || s == "skew_symmetric") return Symmetry::skew_symmetric;
    if (s == "hermitian") return Symmetry::hermitian;
    throw InvalidArgument("unknown symmetry '" + s + "' (expected general, symmetric, skew-symmetric or hermitian)");
}

// (rows, cols, entries, format, field, symmetry), the order of scipy.io.mminfo.
nb::object header(const std::string& path) {
    io::MmHeader h;
    {
        nb::gil_scoped_release release;
        h = io::read_mtx_header(path);
    }
    return nb::make_tuple(h.nrows, h.ncols, h.nnz, format_name(h.format), field_name(h.field), symmetry_name(h.symmetry));
}

nb::object read_sparse(const std::string& path, const std::string& value, const std::string& index) {
    return dispatch(dtype_from_name(value), dtype_from_name(index), [&]<class V, class I>() {
        Csr<V, I> a;
        {
            nb::gil_scoped_release release;
            a = io::read_mtx<V, I>(path);
        }
        return csr_output(std::move(a));
    });
}

nb::object read_dense(const std::string& path, const std::string& value) {
    return dispatch_value(dtype_from_name(value), [&]<class V>() {
        DenseMatrix<V> a;
        {
            nb::gil_scoped_release release;
            a = io::read_mtx_dense<V>(path);
        }
        return to_numpy_fortran(std::move(a.data), a.nrows, a.ncols);
    });
}

io::MmWriteOptions write_options(const std::string& symmetry, bool pattern, int precision, const std::string& comment) {
    io::MmWriteOptions o;
    o.symmetry = symmetry_from_name(symmetry);
    o.pattern = pattern;
    o.precision = precision;
    o.comment = comment;
    return o;
}

void write_sparse(const std::string& path, const CsrArg& a, const std::string& symmetry, bool pattern, int precision,
                  const std::string& comment) {
    const auto options = write_options(symmetry, pattern, precision, comment);
    dispatch(a.data.dtype(), a.indices.dtype(), [&]<class V, class I>() {
        auto in = csr_input<V, I>(a, "A");
        nb::gil_scoped_release release;
        io::write_mtx<V, I>(path, in.view, options);
        return nb::object();
    });
}

// `a` is a column-major 2-D array (the Python layer passes np.asfortranarray).
void write_dense(const std::string& path, nb::ndarray<nb::ro, nb::ndim<2>, nb::f_contig, nb::device::cpu> a,
                 const std::string& symmetry, int precision, const std::string& comment) {
    const auto options = write_options(symmetry, false, precision, comment);
    dispatch_value(a.dtype(), [&]<class V>() {
        DenseMatrix<V> d(static_cast<std::int64_t>(a.shape(0)), static_cast<std::int64_t>(a.shape(1)));
        const V* src = static_cast<const V*>(a.data());
        std::copy(src, src + d.data.size(), d.data.begin());
        nb::gil_scoped_release release;
        io::write_mtx_dense<V>(path, d, options);
        return nb::object();
    });
}

}  // namespace

void register_io(nb::module_& m) {
    m.def("mtx_header", &header, nb::arg("path"), "Banner and size line of a Matrix Market file.");
    m.def("read_mtx", &read_sparse, nb::arg("path"), nb::arg("dtype"), nb::arg("index_dtype"),
          "Reads a coordinate file as (data, indices, indptr, shape), symmetric kinds expanded.");
    m.def("read_mtx_dense", &read_dense, nb::arg("path"), nb::arg("dtype"), "Reads an array file (column-major).");
    m.def("write_mtx", &write_sparse, nb::arg("path"), nb::arg("a"), nb::arg("symmetry"), nb::arg("pattern"),
          nb::arg("precision"), nb::arg("comment"), "Writes a coordinate file atomically.");
    m.def("write_mtx_dense", &write_dense, nb::arg("path"), nb::arg("a"), nb::arg("symmetry"), nb::arg("precision"),
          nb::arg("comment"), "Writes an array file atomically.");
}

}  // namespace gigasparse::python
