// bench/spgemm/competitors.hpp: adapters of the SpGEMM competitors (SuiteSparse:GraphBLAS, Intel MKL, Eigen), each
// timed from ready inputs to a sorted CSR result; import/export of the operands stays outside the timing.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <gigasparse/core/matrix.hpp>

namespace gigasparse::bench {

using Matrix = Csr<double, std::int32_t>;

// One competitor: prepare(A, B) converts the operands (untimed), run() computes C = A·B (timed), result()
// converts the last C back to our CSR (untimed) for the output check.
class Competitor {
public:
    virtual ~Competitor() = default;
    virtual std::string name() const = 0;
    virtual void prepare(const Matrix& a, const Matrix& b) = 0;
    virtual void run() = 0;
    virtual Matrix result() = 0;
};

// nullptr when the library was not found at configure time.
std::unique_ptr<Competitor> make_graphblas(int threads);
std::unique_ptr<Competitor> make_mkl(int threads);
std::unique_ptr<Competitor> make_eigen(int threads);  // sequential (Eigen's sparse product has no threads)

}  // namespace gigasparse::bench
