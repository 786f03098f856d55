// src/direct/numeric/omp/small_front.cpp: small_front, small_panel and the one-RHS sweeps for each value
// type, in three instruction-set clones
// (GCC target_clones: the loader picks the best one the CPU supports).
#include "direct/numeric/omp/small_front.hpp"

#include "direct/numeric/omp/ldlt_front.hpp"
#include "direct/numeric/omp/lu_front.hpp"

namespace gigasparse::direct {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GIGASPARSE_SMALL_FRONT_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define GIGASPARSE_SMALL_FRONT_CLONES
#endif

#define GIGASPARSE_SMALL_FRONT(V)                                                                   \
    GIGASPARSE_SMALL_FRONT_CLONES std::int64_t small_front(std::int64_t f, std::int64_t w, V* panel, V* cb) { \
        return small::front_loops(f, w, panel, cb);                                                 \
    }                                                                                               \
    GIGASPARSE_SMALL_FRONT_CLONES std::int64_t small_panel(std::int64_t f, std::int64_t w, V* panel) {  \
        return small::panel_loops(f, w, panel);                                                     \
    }                                                                                               \
    GIGASPARSE_SMALL_FRONT_CLONES void forward_one(std::int64_t f, std::int64_t w, const V* panel, V* z,       \
                                                   const std::int8_t* psize) {                            \
        small::forward_loops(f, w, panel, z, psize);                                                \
    }                                                                                               \
    GIGASPARSE_SMALL_FRONT_CLONES void backward_one(std::int64_t f, std::int64_t w, const V* panel, V* z,      \
                                                    const std::int8_t* psize, bool conj) {                \
        small::backward_loops(f, w, panel, z, psize, conj);                                         \
    }                                                                                               \
    GIGASPARSE_SMALL_FRONT_CLONES std::int64_t ldlt_pivot_block(std::int64_t f, std::int64_t rend, std::int64_t k0,      \
                                                                std::int64_t k1, V* a, std::int64_t* piv,            \
                                                                std::int8_t* psize, double tau, bool herm,           \
                                                                std::int64_t& perturbed) {                           \
        return ldlt_detail::pivot_block(f, rend, k0, k1, a, piv, psize, tau, herm, perturbed);       \
    }                                                                                               \
    GIGASPARSE_SMALL_FRONT_CLONES void ldlt_cb_update(std::int64_t m, std::int64_t w, const V* wd, const V* l21,   \
                                                      std::int64_t ldl, V* cb, bool herm) {                   \
        ldlt_detail::cb_update_loops(m, w, wd, l21, ldl, cb, herm);                                 \
    }                                                                                               \
    GIGASPARSE_SMALL_FRONT_CLONES std::int64_t lu_pivot_block(std::int64_t f, std::int64_t w, std::int64_t rend,      \
                                                              std::int64_t k0, std::int64_t k1, V* a, V* u,          \
                                                              std::int64_t* piv, double tau, std::int64_t& perturbed) { \
        return lu_detail::pivot_block(f, w, rend, k0, k1, a, u, piv, tau, perturbed);               \
    }                                                                                               \
    GIGASPARSE_SMALL_FRONT_CLONES void lu_small_rest(std::int64_t f, std::int64_t w, V* a, V* u, V* cb) {           \
        lu_detail::small_rest(f, w, a, u, cb);                                                      \
    }                                                                                               \
    GIGASPARSE_SMALL_FRONT_CLONES void lu_backward_one(std::int64_t f, std::int64_t w, const V* panel, const V* upanel, \
                                                       V* z) {                                                      \
        small::lu_backward_loops(f, w, panel, upanel, z);                                           \
    }                                                                                               \
    GIGASPARSE_SMALL_FRONT_CLONES void forward_triangle(std::int64_t f, const V* panel, V* z, std::int64_t j0, std::int64_t j1,   \
                                                        const std::int8_t* psize) {                                         \
        small::forward_triangle_loops(f, panel, z, j0, j1, psize);                                  \
    }                                                                                               \
    GIGASPARSE_SMALL_FRONT_CLONES void forward_rows(std::int64_t f, const V* panel, V* z, std::int64_t j0, std::int64_t j1,       \
                                                    std::int64_t r0, std::int64_t r1, bool conj) {                          \
        small::forward_rows_loops(f, panel, z, j0, j1, r0, r1, conj);                               \
    }                                                                                               \
    GIGASPARSE_SMALL_FRONT_CLONES void lu_upper_triangle(std::int64_t f, const V* panel, V* z, std::int64_t j0, std::int64_t j1) { \
        small::lu_upper_triangle_loops(f, panel, z, j0, j1);                                        \
    }                                                                                               \
    GIGASPARSE_SMALL_FRONT_CLONES void lu_upper_t_triangle(std::int64_t f, const V* panel, V* z, std::int64_t j0, std::int64_t j1, \
                                                           bool conj) {                                                    \
        small::lu_upper_t_triangle_loops(f, panel, z, j0, j1, conj);                                \
    }                                                                                               \
    GIGASPARSE_SMALL_FRONT_CLONES void backward_triangle(std::int64_t f, const V* panel, V* z, std::int64_t j0, std::int64_t j1,  \
                                                         const std::int8_t* psize, bool conj) {                             \
        small::backward_triangle_loops(f, panel, z, j0, j1, psize, conj);                           \
    }                                                                                               \
    GIGASPARSE_SMALL_FRONT_CLONES void backward_columns(std::int64_t f, const V* panel, V* z, std::int64_t c0, std::int64_t c1,   \
                                                        std::int64_t r0, std::int64_t r1, bool conj) {                      \
        small::backward_columns_loops(f, panel, z, c0, c1, r0, r1, conj);                           \
    }                                                                                               \
    GIGASPARSE_SMALL_FRONT_CLONES void lu_forward_transposed_one(std::int64_t f, std::int64_t w, const V* panel,      \
                                                                 const V* upanel, V* z, bool conj) {                \
        small::lu_forward_transposed_loops(f, w, panel, upanel, z, conj);                           \
    }
GIGASPARSE_SMALL_FRONT(float)
GIGASPARSE_SMALL_FRONT(double)
GIGASPARSE_SMALL_FRONT(std::complex<float>)
GIGASPARSE_SMALL_FRONT(std::complex<double>)
#undef GIGASPARSE_SMALL_FRONT

}  // namespace gigasparse::direct
