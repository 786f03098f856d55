// python/src/gen.cpp: the deterministic matrix generators (R-MAT, Erdős–Rényi, Poisson, KKT, ...).
#include <gigasparse/gen/generators.hpp>

#include <nanobind/stl/string.h>

#include "common.hpp"

namespace gigasparse::python {

namespace {

// Runs `make<V, I>()` without the GIL for the requested dtypes and returns the CSR tuple.
template <class F>
nb::object generate(const std::string& value, const std::string& index, F&& make) {
    return dispatch(dtype_from_name(value), dtype_from_name(index), [&]<class V, class I>() {
        Csr<V, I> a;
        {
            nb::gil_scoped_release release;
            a = make.template operator()<V, I>();
        }
        return csr_output(std::move(a));
    });
}

}  // namespace

void register_gen(nb::module_& m) {
    m.def(
        "gen_rmat",
        [](int scale, double edge_factor, double a, double b, double c, bool permute, bool symmetrize, std::uint64_t seed,
           const std::string& value, const std::string& index) {
            gen::RmatOptions o;
            o.scale = scale;
            o.edge_factor = edge_factor;
            o.a = a;
            o.b = b;
            o.c = c;
            o.permute_vertices = permute;
            o.symmetrize = symmetrize;
            o.seed = seed;
            return generate(value, index, [&]<class V, class I>() { return gen::rmat<V, I>(o); });
        },
        nb::arg("scale"), nb::arg("edge_factor"), nb::arg("a"), nb::arg("b"), nb::arg("c"), nb::arg("permute"),
        nb::arg("symmetrize"), nb::arg("seed"), nb::arg("dtype"), nb::arg("index_dtype"));
    m.def(
        "gen_erdos_renyi",
        [](std::int64_t nrows, std::int64_t ncols, double nnz_per_row, std::uint64_t seed, const std::string& value,
           const std::string& index) {
            return generate(value, index,
                            [&]<class V, class I>() { return gen::erdos_renyi<V, I>(nrows, ncols, nnz_per_row, seed); });
        },
        nb::arg("nrows"), nb::arg("ncols"), nb::arg("nnz_per_row"), nb::arg("seed"), nb::arg("dtype"), nb::arg("index_dtype"));
    m.def(
        "gen_poisson2d",
        [](std::int64_t nx, std::int64_t ny, int points, const std::string& value, const std::string& index) {
            return generate(value, index, [&]<class V, class I>() { return gen::poisson2d<V, I>(nx, ny, points); });
        },
        nb::arg("nx"), nb::arg("ny"), nb::arg("points"), nb::arg("dtype"), nb::arg("index_dtype"));
    m.def(
        "gen_poisson3d",
        [](std::int64_t nx, std::int64_t ny, std::int64_t nz, int points, const std::string& value, const std::string& index) {
            return generate(value, index, [&]<class V, class I>() { return gen::poisson3d<V, I>(nx, ny, nz, points); });
        },
        nb::arg("nx"), nb::arg("ny"), nb::arg("nz"), nb::arg("points"), nb::arg("dtype"), nb::arg("index_dtype"));
    m.def(
        "gen_anisotropic2d",
        [](std::int64_t nx, std::int64_t ny, double eps, const std::string& value, const std::string& index) {
            return generate(value, index, [&]<class V, class I>() { return gen::anisotropic2d<V, I>(nx, ny, eps); });
        },
        nb::arg("nx"), nb::arg("ny"), nb::arg("eps"), nb::arg("dtype"), nb::arg("index_dtype"));
    m.def(
        "gen_convection_diffusion",
        [](std::int64_t nx, std::int64_t ny, std::int64_t nz, double bx, double by, double bz, const std::string& value,
           const std::string& index) {
            return generate(value, index,
                            [&]<class V, class I>() { return gen::convection_diffusion<V, I>(nx, ny, nz, bx, by, bz); });
        },
        nb::arg("nx"), nb::arg("ny"), nb::arg("nz"), nb::arg("bx"), nb::arg("by"), nb::arg("bz"), nb::arg("dtype"),
        nb::arg("index_dtype"));
    m.def(
        "gen_kkt",
        [](std::int64_t n, std::int64_t mm, double h_nnz, double a_nnz, double delta, std::uint64_t seed,
           const std::string& value, const std::string& index) {
            gen::KktOptions o;
            o.n = n;
            o.m = mm;
            o.h_nnz_per_row = h_nnz;
            o.a_nnz_per_row = a_nnz;
            o.delta = delta;
            o.seed = seed;
            return generate(value, index, [&]<class V, class I>() { return gen::kkt<V, I>(o); });
        },
        nb::arg("n"), nb::arg("m"), nb::arg("h_nnz_per_row"), nb::arg("a_nnz_per_row"), nb::arg("delta"), nb::arg("seed"),
        nb::arg("dtype"), nb::arg("index_dtype"));
    m.def(
        "gen_random_sparse",
        [](std::int64_t nrows, std::int64_t ncols, double nnz_per_row, std::uint64_t seed, const std::string& value,
           const std::string& index) {
            return generate(value, index,
                            [&]<class V, class I>() { return gen::random_sparse<V, I>(nrows, ncols, nnz_per_row, seed); });
        },
        nb::arg("nrows"), nb::arg("ncols"), nb::arg("nnz_per_row"), nb::arg("seed"), nb::arg("dtype"), nb::arg("index_dtype"));
}

}  // namespace gigasparse::python
