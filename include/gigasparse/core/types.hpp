// include/gigasparse/core/types.hpp: the closed set of value and index types, and their traits.
#pragma once

#include <cmath>
#include <complex>
#include <concepts>
#include <cstdint>
#include <type_traits>

namespace gigasparse {

// Offsets and counts that can pass 2^31 (row pointers, nnz, intermediate product sizes).
using offset_t = std::int64_t;

template <class T>
struct is_complex : std::false_type {};
template <class T>
struct is_complex<std::complex<T>> : std::true_type {};
template <class T>
inline constexpr bool is_complex_v = is_complex<T>::value;

// Value types the library is instantiated for.
template <class V>
concept Scalar = std::same_as<V, float> || std::same_as<V, double> ||
                 std::same_as<V, std::complex<float>> || std::same_as<V, std::complex<double>>;

// Real scalars only (SpGEMM CPU/GPU kernels, most iterative kernels).
template <class V>
concept RealScalar = std::same_as<V, float> || std::same_as<V, double>;

// Column index types the library is instantiated for.
template <class I>
concept Index = std::same_as<I, std::int32_t> || std::same_as<I, std::int64_t>;

// The real type underlying a scalar (double for complex<double>).
template <class V>
struct real_type {
    using type = V;
};
template <class T>
struct real_type<std::complex<T>> {
    using type = T;
};
template <class V>
using real_t = typename real_type<V>::type;

// Complex conjugate that is the identity on real types.
template <class V>
constexpr V conj_if_complex(const V& v) {
    if constexpr (is_complex_v<V>) {
        return std::conj(v);
    } else {
        return v;
    }
}

// No NaN or Inf (in either part of a complex value).
template <class V>
inline bool finite_value(const V& v) {
    if constexpr (is_complex_v<V>) {
        return std::isfinite(v.real()) && std::isfinite(v.imag());
    } else {
        return std::isfinite(v);
    }
}

// Human-readable names, used in error messages, JSON and test names.
template <class V>
constexpr const char* type_name() {
    if constexpr (std::same_as<V, float>) return "float";
    else if constexpr (std::same_as<V, double>) return "double";
    else if constexpr (std::same_as<V, std::complex<float>>) return "complex64";
    else if constexpr (std::same_as<V, std::complex<double>>) return "complex128";
    else if constexpr (std::same_as<V, std::int32_t>) return "int32";
    else if constexpr (std::same_as<V, std::int64_t>) return "int64";
    else return "unknown";
}

}  // namespace gigasparse

// Explicit-instantiation helpers: the one documented macro family of the project.
// Use at the bottom of a .cpp: GIGASPARSE_FOR_EACH_VALUE_INDEX(MY_INSTANTIATE) where
// MY_INSTANTIATE(V, I) expands to a `template ...;` declaration.
#define GIGASPARSE_FOR_EACH_INDEX_(M, V) \
    M(V, std::int32_t)                   \
    M(V, std::int64_t)
#define GIGASPARSE_FOR_EACH_REAL_VALUE_INDEX(M) \
    GIGASPARSE_FOR_EACH_INDEX_(M, float)        \
    GIGASPARSE_FOR_EACH_INDEX_(M, double)
#define GIGASPARSE_FOR_EACH_VALUE_INDEX(M)                  \
    GIGASPARSE_FOR_EACH_REAL_VALUE_INDEX(M)                 \
    GIGASPARSE_FOR_EACH_INDEX_(M, std::complex<float>)      \
    GIGASPARSE_FOR_EACH_INDEX_(M, std::complex<double>)
#define GIGASPARSE_FOR_EACH_VALUE(M) \
    M(float)                         \
    M(double)                        \
    M(std::complex<float>)           \
    M(std::complex<double>)
#define GIGASPARSE_FOR_EACH_REAL_VALUE(M) \
    M(float)                              \
    M(double)
