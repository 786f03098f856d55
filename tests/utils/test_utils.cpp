// tests/utils/test_utils.cpp: implementations of the shared test helpers.
#include "utils/test_utils.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <gigasparse/core/convert.hpp>

namespace gigasparse::test {

std::string matrix_dir() {
    const char* env = std::getenv("GIGASPARSE_MATRIX_DIR");
    std::string dir = env ? env : GIGASPARSE_MATRIX_DIR;
    return std::filesystem::is_directory(dir) ? dir : std::string();
}

std::vector<ManifestEntry> read_manifest() {
    std::vector<ManifestEntry> out;
    const std::string dir = matrix_dir();
    if (dir.empty()) return out;
    std::ifstream in(dir + "/MANIFEST.tsv");
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
        std::vector<std::string> f;
        std::stringstream ss(line);
        std::string cell;
        while (std::getline(ss, cell, '\t')) f.push_back(cell);
        if (f.size() < 9) continue;
        out.push_back({f[0], f[1], f[6], f[7], f[8], std::stoll(f[3]), std::stoll(f[4]), std::stoll(f[5])});
    }
    return out;
}

template <class V, class I>
Csr<V, I> random_csr(std::int64_t m, std::int64_t n, double per_row, std::uint64_t seed, double empty_row_fraction) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0), p(0.0, 1.0);
    Coo<V, I> coo{m, n, {}, {}, {}};
    if (n > 0)
        for (std::int64_t i = 0; i < m; ++i) {
            if (p(rng) < empty_row_fraction) continue;
            const auto len = static_cast<std::int64_t>(std::min<double>(static_cast<double>(n), std::floor(per_row * 2 * p(rng) + 0.5)));
            for (std::int64_t k = 0; k < len; ++k) {
                coo.row.push_back(static_cast<I>(i));
                coo.col.push_back(static_cast<I>(std::uniform_int_distribution<std::int64_t>(0, n - 1)(rng)));
                if constexpr (is_complex_v<V>) coo.val.push_back(V(u(rng), u(rng)));
                else coo.val.push_back(static_cast<V>(u(rng)));
            }
        }
    return coo_to_csr(coo);
}

template <class V>
std::vector<V> random_vector(std::int64_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<V> v(static_cast<std::size_t>(n));
    for (auto& x : v) {
        if constexpr (is_complex_v<V>) x = V(static_cast<real_t<V>>(u(rng)), static_cast<real_t<V>>(u(rng)));
        else x = static_cast<V>(u(rng));
    }
    return v;
}

template <class V, class I>
Csr<V, I> banded(std::int64_t n, std::int64_t w, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    Csr<V, I> a(n, n);
    for (std::int64_t i = 0; i < n; ++i) {
        for (std::int64_t j = std::max<std::int64_t>(0, i - w); j <= std::min(n - 1, i + w); ++j) {
            a.col_idx.push_back(static_cast<I>(j));
            a.values.push_back(static_cast<V>(u(rng)));
        }
        a.row_ptr[i + 1] = static_cast<offset_t>(a.col_idx.size());
    }
    return a;
}

template <class V, class I>
Csr<V, I> unsort_rows(const Csr<V, I>& a, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    Csr<V, I> b = a;
    for (std::int64_t i = 0; i < a.nrows; ++i) {
        std::vector<std::pair<I, V>> row;
        for (offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) row.emplace_back(a.col_idx[k], a.values[k]);
        std::shuffle(row.begin(), row.end(), rng);
        for (std::size_t k = 0; k < row.size(); ++k) {
            b.col_idx[a.row_ptr[i] + k] = row[k].first;
            b.values[a.row_ptr[i] + k] = row[k].second;
        }
    }
    return b;
}

template <class V, class I>
std::vector<std::vector<V>> to_dense(CsrView<V, I> a) {
    std::vector<std::vector<V>> d(static_cast<std::size_t>(a.nrows), std::vector<V>(static_cast<std::size_t>(a.ncols), V(0)));
    for (std::int64_t i = 0; i < a.nrows; ++i)
        for (offset_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) d[i][a.col_idx[k]] += a.values[k];
    return d;
}

template <class V, class I>
::testing::AssertionResult csr_near(CsrView<V, I> e, CsrView<V, I> a, double rtol) {
    if (e.nrows != a.nrows || e.ncols != a.ncols)
        return ::testing::AssertionFailure() << "shape " << a.nrows << "x" << a.ncols << " != expected " << e.nrows << "x" << e.ncols;
    for (std::int64_t i = 0; i <= e.nrows; ++i)
        if (e.row_ptr[i] != a.row_ptr[i])
            return ::testing::AssertionFailure() << "row_ptr differs at row " << i << ": " << a.row_ptr[i] << " != expected " << e.row_ptr[i];
    for (std::int64_t i = 0; i < e.nrows; ++i) {
        double scale = 0;
        for (offset_t k = e.row_ptr[i]; k < e.row_ptr[i + 1]; ++k) scale = std::max(scale, static_cast<double>(std::abs(e.values[k])));
        for (offset_t k = e.row_ptr[i]; k < e.row_ptr[i + 1]; ++k) {
            if (e.col_idx[k] != a.col_idx[k])
                return ::testing::AssertionFailure() << "column differs in row " << i << " position " << k - e.row_ptr[i] << ": "
                                                     << a.col_idx[k] << " != expected " << e.col_idx[k];
            const double diff = static_cast<double>(std::abs(e.values[k] - a.values[k]));
            if (!(diff <= rtol * std::max(scale, 1e-300)))
                return ::testing::AssertionFailure() << "value differs at (" << i << ", " << e.col_idx[k] << "): |diff| = " << diff
                                                     << " > " << rtol << " * " << scale;
        }
    }
    return ::testing::AssertionSuccess();
}

#define GIGASPARSE_INSTANTIATE(V, I)                                                               \
    template Csr<V, I> random_csr(std::int64_t, std::int64_t, double, std::uint64_t, double);      \
    template Csr<V, I> unsort_rows(const Csr<V, I>&, std::uint64_t);                               \
    template Csr<V, I> banded(std::int64_t, std::int64_t, std::uint64_t);                          \
    template std::vector<std::vector<V>> to_dense(CsrView<V, I>);                                  \
    template ::testing::AssertionResult csr_near(CsrView<V, I>, CsrView<V, I>, double);
GIGASPARSE_FOR_EACH_VALUE_INDEX(GIGASPARSE_INSTANTIATE)
#undef GIGASPARSE_INSTANTIATE
#define GIGASPARSE_INSTANTIATE(V) template std::vector<V> random_vector(std::int64_t, std::uint64_t);
GIGASPARSE_FOR_EACH_VALUE(GIGASPARSE_INSTANTIATE)
#undef GIGASPARSE_INSTANTIATE

}  // namespace gigasparse::test
