// src/direct/numeric/omp/small_front.cpp: small_front, small_panel and the one-RHS sweeps for each value
// type, in three instruction-set clones
// (GCC target_clones: the loader picks the best one the CPU supports).
#include "direct/numeric/omp/small_front.hpp"

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
    GIGASPARSE_SMALL_FRONT_CLONES void forward_one(std::int64_t f, std::int64_t w, const V* panel, V* z) {  \
        small::forward_loops(f, w, panel, z);                                                       \
    }                                                                                               \
    GIGASPARSE_SMALL_FRONT_CLONES void backward_one(std::int64_t f, std::int64_t w, const V* panel, V* z) { \
        small::backward_loops(f, w, panel, z);                                                      \
    }
GIGASPARSE_SMALL_FRONT(float)
GIGASPARSE_SMALL_FRONT(double)
GIGASPARSE_SMALL_FRONT(std::complex<float>)
GIGASPARSE_SMALL_FRONT(std::complex<double>)
#undef GIGASPARSE_SMALL_FRONT

}  // namespace gigasparse::direct
