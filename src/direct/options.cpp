// src/direct/options.cpp: names of the direct-solver enums and their parsing.
#include <gigasparse/core/error.hpp>
#include <gigasparse/direct/options.hpp>

namespace gigasparse::direct {

const char* to_string(Structure s) {
    switch (s) {
        case Structure::general: return "general";
        case Structure::symmetric: return "symmetric";
        case Structure::hermitian: return "hermitian";
        case Structure::spd: return "spd";
        case Structure::hpd: return "hpd";
    }
    return "?";
}
const char* to_string(MatrixView v) {
    switch (v) {
        case MatrixView::full: return "full";
        case MatrixView::lower: return "lower";
        case MatrixView::upper: return "upper";
    }
    return "?";
}
const char* to_string(OrderingAlg a) {
    switch (a) {
        case OrderingAlg::automatic: return "auto";
        case OrderingAlg::amd: return "amd";
        case OrderingAlg::nd: return "nd";
        case OrderingAlg::natural: return "natural";
        case OrderingAlg::user: return "user";
    }
    return "?";
}
const char* to_string(Status s) {
    switch (s) {
        case Status::success: return "success";
        case Status::not_positive_definite: return "not_positive_definite";
        case Status::zero_pivot: return "zero_pivot";
        case Status::not_converged: return "not_converged";
    }
    return "?";
}

const char* to_string(NumericBackend b) {
    switch (b) {
        case NumericBackend::cpu: return "cpu";
        case NumericBackend::reference: return "reference";
        case NumericBackend::cuda: return "cuda";
    }
    return "?";
}

const char* to_string(Transpose t) {
    switch (t) {
        case Transpose::none: return "none";
        case Transpose::transpose: return "transpose";
        case Transpose::conjugate_transpose: return "conjugate_transpose";
    }
    return "?";
}

const char* to_string(FactorPrecision p) {
    switch (p) {
        case FactorPrecision::full: return "full";
        case FactorPrecision::single: return "single";
    }
    return "?";
}

const char* to_string(RefinementMethod m) {
    switch (m) {
        case RefinementMethod::automatic: return "auto";
        case RefinementMethod::plain: return "plain";
        case RefinementMethod::gmres: return "gmres";
    }
    return "?";
}

Structure parse_structure(std::string_view s) {
    if (s == "general" || s == "G") return Structure::general;
    if (s == "symmetric" || s == "S") return Structure::symmetric;
    if (s == "hermitian" || s == "H") return Structure::hermitian;
    if (s == "spd" || s == "SPD") return Structure::spd;
    if (s == "hpd" || s == "HPD") return Structure::hpd;
    throw InvalidArgument("direct: unknown structure '" + std::string(s) + "' (general|symmetric|hermitian|spd|hpd)");
}
MatrixView parse_view(std::string_view s) {
    if (s == "full" || s == "F") return MatrixView::full;
    if (s == "lower" || s == "L") return MatrixView::lower;
    if (s == "upper" || s == "U") return MatrixView::upper;
    throw InvalidArgument("direct: unknown view '" + std::string(s) + "' (full|lower|upper)");
}
OrderingAlg parse_ordering(std::string_view s) {
    if (s == "auto" || s == "default") return OrderingAlg::automatic;
    if (s == "amd") return OrderingAlg::amd;
    if (s == "nd" || s == "metis") return OrderingAlg::nd;
    if (s == "natural") return OrderingAlg::natural;
    if (s == "user") return OrderingAlg::user;
    throw InvalidArgument("direct: unknown ordering '" + std::string(s) + "' (auto|amd|nd|natural|user)");
}

NumericBackend parse_numeric_backend(std::string_view s) {
    if (s == "cpu" || s == "default") return NumericBackend::cpu;
    if (s == "reference") return NumericBackend::reference;
    if (s == "cuda") return NumericBackend::cuda;
    throw InvalidArgument("direct: unknown backend '" + std::string(s) + "' (cpu|reference|cuda)");
}

Transpose parse_transpose(std::string_view s) {
    if (s == "N" || s == "n" || s == "none") return Transpose::none;
    if (s == "T" || s == "t" || s == "transpose") return Transpose::transpose;
    if (s == "H" || s == "h" || s == "C" || s == "conjugate_transpose") return Transpose::conjugate_transpose;
    throw InvalidArgument("direct: unknown transpose '" + std::string(s) + "' (N|T|H)");
}

const char* to_string(GpuAssembly a) {
    switch (a) {
        case GpuAssembly::automatic: return "auto";
        case GpuAssembly::host: return "host";
        case GpuAssembly::device: return "device";
    }
    return "?";
}

GpuAssembly parse_gpu_assembly(std::string_view s) {
    if (s == "auto" || s == "automatic") return GpuAssembly::automatic;
    if (s == "host") return GpuAssembly::host;
    if (s == "device") return GpuAssembly::device;
    throw InvalidArgument("direct: unknown gpu_assembly '" + std::string(s) + "' (auto|host|device)");
}

RefinementMethod parse_refinement(std::string_view s) {
    if (s == "auto" || s == "automatic") return RefinementMethod::automatic;
    if (s == "plain" || s == "classical") return RefinementMethod::plain;
    if (s == "gmres") return RefinementMethod::gmres;
    throw InvalidArgument("direct: unknown refinement '" + std::string(s) + "' (auto|plain|gmres)");
}

FactorPrecision parse_factor_precision(std::string_view s) {
    if (s == "full" || s == "double" || s == "working") return FactorPrecision::full;
    if (s == "single" || s == "float" || s == "mixed") return FactorPrecision::single;
    throw InvalidArgument("direct: unknown factor precision '" + std::string(s) + "' (full|single)");
}

}  // namespace gigasparse::direct
