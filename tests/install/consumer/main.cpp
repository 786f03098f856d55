// tests/install/consumer/main.cpp: uses the installed library: builds a 3x3 matrix and squares it.
#include <iostream>

#include <gigasparse/gigasparse.hpp>

int main() {
    gigasparse::Coo<double, int> coo{3, 3, {0, 1, 2, 0}, {0, 1, 2, 2}, {1, 2, 3, 4}};
    const auto a = gigasparse::coo_to_csr(coo);
    const auto c = gigasparse::reference::spgemm(a.view(), a.view());
    // A*A keeps the diagonal and (0,2) = 1*4 + 4*3 = 16.
    std::cout << "nnz(A*A) = " << c.nnz() << ", (A*A)(0,2) = " << c.values[1] << "\n";
    return 0;
}
