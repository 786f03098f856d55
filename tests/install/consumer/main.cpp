// tests/install/consumer/main.cpp: uses the installed library through the umbrella header: squares a 3x3 matrix
// with the reference and the MAGNUS backend.
#include <iostream>

#include <gigasparse/gigasparse.hpp>

int main() {
    gigasparse::Coo<double, int> coo{3, 3, {0, 1, 2, 0}, {0, 1, 2, 2}, {1, 2, 3, 4}};
    const auto a = gigasparse::coo_to_csr(coo);
    const auto c = gigasparse::reference::spgemm(a.view(), a.view());
    const auto m = gigasparse::multiply<double, int>(a.view(), a.view());
    // A*A keeps the diagonal and (0,2) = 1*4 + 4*3 = 16.
    std::cout << "nnz(A*A) = " << c.nnz() << ", (A*A)(0,2) = " << c.values[1] << (gigasparse::equal(c.view(), m.view()) ? "" : " MISMATCH")
              << "\n";
    return 0;
}
