// python/src/module.cpp: the compiled extension gigasparse._gigasparse (build facts and registration).
#include <gigasparse/config.hpp>
#include <gigasparse/core/blas.hpp>
#include <gigasparse/cuda/device.hpp>

#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>

#include "common.hpp"

namespace gigasparse::python {

std::string dtype_name(const nb::dlpack::dtype& d) {
    const char* kind = "unknown";
    switch (static_cast<nb::dlpack::dtype_code>(d.code)) {
        case nb::dlpack::dtype_code::Int: kind = "int"; break;
        case nb::dlpack::dtype_code::UInt: kind = "uint"; break;
        case nb::dlpack::dtype_code::Float: kind = "float"; break;
        case nb::dlpack::dtype_code::Complex: kind = "complex"; break;
        case nb::dlpack::dtype_code::Bool: kind = "bool"; break;
        default: break;
    }
    return std::string(kind) + std::to_string(d.bits);
}

nb::dlpack::dtype dtype_from_name(const std::string& name) {
    if (name == "float32") return nb::dtype<float>();
    if (name == "float64") return nb::dtype<double>();
    if (name == "complex64") return nb::dtype<std::complex<float>>();
    if (name == "complex128") return nb::dtype<std::complex<double>>();
    if (name == "int32") return nb::dtype<std::int32_t>();
    if (name == "int64") return nb::dtype<std::int64_t>();
    throw InvalidArgument("unsupported dtype '" + name + "'");
}

}  // namespace gigasparse::python

NB_MODULE(_gigasparse, m) {
    namespace gp = gigasparse::python;
    m.doc() = "Compiled core of gigasparse; use the `gigasparse` package instead of this module.";
    m.attr("__version__") = gigasparse::config::version;
    m.attr("with_cuda") = gigasparse::config::with_cuda;
    m.def("cuda_device_count", &gigasparse::cuda::device_count,
          "Number of usable CUDA devices (0 without the CUDA backend or without a GPU).");
    m.def("cuda_device_summary", &gigasparse::cuda::device_summary, nanobind::arg("device") = 0,
          "A one-line description of a CUDA device, or why there is none.");
    m.def("cuda_cached_memory_bytes", &gigasparse::cuda::cached_memory_bytes, nanobind::arg("device") = 0,
          "Device bytes gigasparse's memory pool keeps for its next GPU computations (0 without CUDA).");
    m.def("cuda_release_memory", &gigasparse::cuda::release_cached_memory, nanobind::arg("device") = 0,
          "Returns the memory gigasparse's pool keeps on a device to the driver.");
    m.def(
        "blas_info",
        [] {
            const gigasparse::BlasInfo b = gigasparse::blas_info();
            return std::map<std::string, std::string>{{"library", b.library},     {"core", b.core},           {"forced_core", b.forced_core},
                                                      {"cpu_isa", b.cpu_isa},     {"kernel_isa", b.kernel_isa}, {"recommended", b.recommended}};
        },
        "The BLAS this module runs: library, OpenBLAS kernel set, CPU ISA and the OPENBLAS_CORETYPE that would widen the kernels.");
    gp::register_errors(m);
    gp::register_io(m);
    gp::register_gen(m);
    gp::register_reference(m);
    gp::register_spgemm(m);
    gp::register_direct(m);
    gp::register_iterative(m);
}
