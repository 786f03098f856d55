// src/core/matrix.cpp: constructors and names of the core matrix types.
#include <gigasparse/core/error.hpp>
#include <gigasparse/core/matrix.hpp>

namespace gigasparse {

const char* to_string(Symmetry s) {
    switch (s) {
        case Symmetry::general: return "general";
        case Symmetry::symmetric: return "symmetric";
        case Symmetry::skew_symmetric: return "skew-symmetric";
        case Symmetry::hermitian: return "hermitian";
    }
    return "unknown";
}

template <class V, class I>
Csr<V, I>::Csr(std::int64_t rows, std::int64_t cols) : nrows(rows), ncols(cols), row_ptr(static_cast<std::size_t>(rows) + 1, 0) {
    if (rows < 0 || cols < 0) throw InvalidArgument("Csr: negative dimensions " + std::to_string(rows) + " x " + std::to_string(cols));
}

#define GIGASPARSE_INSTANTIATE(V, I) template struct Csr<V, I>;
GIGASPARSE_FOR_EACH_VALUE_INDEX(GIGASPARSE_INSTANTIATE)
#undef GIGASPARSE_INSTANTIATE

}  // namespace gigasparse
