// src/iterative/cuda/krylov_value.hpp: the value types of the GPU iterative backend. The public API takes the
// library's std::complex, which device code cannot use (libstdc++'s is a GNU built-in type), and ::cuda::std::complex
// multiplies by C99 Annex G (a NaN recovery branch per product: ptxas spilled for it in bicg_s_kernel). So the kernels
// and the dispatch code compute on device_value_t<H>: Complex<T> below for complex values — the arithmetic the CPU
// backend compiles with -fcx-fortran-rules (plain products; quotients by Smith's algorithm) — and H itself for real
// ones. Complex<T> has std::complex<T>'s layout: the host reads b and x in their own type and copies their bytes;
// the device reads them as Complex. The CPU simulator's build uses the same type. And the few operations that differ
// between real and complex values: the conjugate of a dot product's left factor, the real part of a scalar the host
// tests.
#pragma once

#include <cmath>
#include <complex>
#include <type_traits>

#include <gigasparse/core/types.hpp>
#include <gigasparse/cuda/abi.hpp>

#ifdef __CUDACC__
#define GIGASPARSE_VALUE_HD __host__ __device__
#else
#define GIGASPARSE_VALUE_HD
#endif

namespace gigasparse {
namespace cuda {
inline namespace GIGASPARSE_CUDA_ABI {
namespace krylov {

template <class T>
struct Complex {
    T x = 0, y = 0;  // real and imaginary parts (std::complex<T>'s layout)

    Complex() = default;
    GIGASPARSE_VALUE_HD constexpr Complex(T re) : x(re) {}  // NOLINT: implicit, as std::complex's
    GIGASPARSE_VALUE_HD constexpr Complex(T re, T im) : x(re), y(im) {}
    GIGASPARSE_VALUE_HD constexpr T real() const { return x; }
    GIGASPARSE_VALUE_HD constexpr T imag() const { return y; }

    GIGASPARSE_VALUE_HD Complex& operator+=(Complex b) { x += b.x; y += b.y; return *this; }
    GIGASPARSE_VALUE_HD Complex& operator-=(Complex b) { x -= b.x; y -= b.y; return *this; }
    GIGASPARSE_VALUE_HD Complex& operator*=(Complex b) { return *this = *this * b; }
    GIGASPARSE_VALUE_HD Complex& operator/=(Complex b) { return *this = *this / b; }

    friend GIGASPARSE_VALUE_HD Complex operator+(Complex a, Complex b) { return {a.x + b.x, a.y + b.y}; }
    friend GIGASPARSE_VALUE_HD Complex operator-(Complex a, Complex b) { return {a.x - b.x, a.y - b.y}; }
    friend GIGASPARSE_VALUE_HD Complex operator-(Complex a) { return {-a.x, -a.y}; }
    friend GIGASPARSE_VALUE_HD Complex operator*(Complex a, Complex b) { return {a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x}; }
    friend GIGASPARSE_VALUE_HD Complex operator*(Complex a, T b) { return {a.x * b, a.y * b}; }
    friend GIGASPARSE_VALUE_HD Complex operator*(T a, Complex b) { return {a * b.x, a * b.y}; }
    friend GIGASPARSE_VALUE_HD Complex operator/(Complex a, T b) { return {a.x / b, a.y / b}; }
    // Smith's algorithm: no overflow of |b|² for large b
    friend GIGASPARSE_VALUE_HD Complex operator/(Complex a, Complex b) {
        if ((b.x < 0 ? -b.x : b.x) >= (b.y < 0 ? -b.y : b.y)) {
            const T r = b.y / b.x, d = b.x + b.y * r;
            return {(a.x + a.y * r) / d, (a.y - a.x * r) / d};
        }
        const T r = b.x / b.y, d = b.x * r + b.y;
        return {(a.x * r + a.y) / d, (a.y * r - a.x) / d};
    }
    friend GIGASPARSE_VALUE_HD bool operator==(Complex a, Complex b) { return a.x == b.x && a.y == b.y; }
    friend GIGASPARSE_VALUE_HD bool operator!=(Complex a, Complex b) { return !(a == b); }
    friend GIGASPARSE_VALUE_HD Complex conj(Complex a) { return {a.x, -a.y}; }
    friend GIGASPARSE_VALUE_HD T abs(Complex a) {
        using std::hypot;
        return hypot(a.x, a.y);
    }
};

}  // namespace krylov
}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace cuda

// Complex is complex for the library's traits (real_t, finite_value, the GMRES rotations)
template <class T>
struct is_complex<cuda::krylov::Complex<T>> : std::true_type {};
template <class T>
struct real_type<cuda::krylov::Complex<T>> {
    using type = T;
};

namespace cuda {
inline namespace GIGASPARSE_CUDA_ABI {
namespace krylov {

template <class H>
struct device_value {
    using type = H;
};
template <class T>
struct device_value<std::complex<T>> {
    using type = Complex<T>;
};
template <class V>
struct host_value {
    using type = V;
};
template <class T>
struct host_value<Complex<T>> {
    using type = std::complex<T>;
};
template <class H>
using device_value_t = typename device_value<H>::type;  // what the kernels compute with
template <class V>
using host_value_t = typename host_value<V>::type;      // what the API takes

static_assert(sizeof(Complex<double>) == sizeof(std::complex<double>) && alignof(Complex<double>) == alignof(std::complex<double>));
static_assert(sizeof(Complex<float>) == sizeof(std::complex<float>) && alignof(Complex<float>) == alignof(std::complex<float>));
static_assert(std::is_trivially_copyable_v<Complex<double>>);

// a host-typed pointer as the device type (the same layout), for copies of bytes and for the device
template <class H>
device_value_t<H>* dev(H* p) {
    return reinterpret_cast<device_value_t<H>*>(p);
}
template <class H>
const device_value_t<H>* dev(const H* p) {
    return reinterpret_cast<const device_value_t<H>*>(p);
}

// h as the device type, by value (pointers are reinterpreted only where bytes are copied)
template <class H>
device_value_t<H> device_value_of(const H& h) {
    if constexpr (is_complex_v<H>) return device_value_t<H>(h.real(), h.imag());
    else return h;
}

// conj(v) (v itself for a real value): the left factor of every inner product, xᴴy
template <class V>
GIGASPARSE_VALUE_HD inline V dconj(const V& v) {
    if constexpr (is_complex_v<V>) return conj(v);  // Complex's (found by argument-dependent lookup)
    else return v;
}

// the real part, in double (what the host and the stopping tests compare)
template <class V>
GIGASPARSE_VALUE_HD inline double re(const V& v) {
    if constexpr (is_complex_v<V>) return static_cast<double>(v.real());
    else return static_cast<double>(v);
}

// std::complex (the API's values, read on the host only): host overloads, so that no __host__ __device__
// function calls std::complex's host-only members
template <class T>
inline double re(const std::complex<T>& v) {
    return static_cast<double>(v.real());
}
template <class T>
inline double abs2(const std::complex<T>& v) {
    return static_cast<double>(v.real()) * v.real() + static_cast<double>(v.imag()) * v.imag();
}

// |v|² in double
template <class V>
GIGASPARSE_VALUE_HD inline double abs2(const V& v) {
    if constexpr (is_complex_v<V>) return static_cast<double>(v.real()) * v.real() + static_cast<double>(v.imag()) * v.imag();
    else return static_cast<double>(v) * v;
}

// the value v (real), as the scalar type V
template <class V>
GIGASPARSE_VALUE_HD inline V from_real(double v) {
    return V(static_cast<real_t<V>>(v));
}

}  // namespace krylov
}  // namespace GIGASPARSE_CUDA_ABI
}  // namespace cuda
}  // namespace gigasparse
