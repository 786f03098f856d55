// tests/io/test_mm_fuzz.cpp: random mutations of valid files (plain and gzip) fail only with library errors, never crash or hang.
#include <gtest/gtest.h>

#include <complex>
#include <random>
#include <string>

#include <zlib.h>

#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>
#include <gigasparse/io/matrix_market.hpp>

#include "io/io_test_utils.hpp"
#include "utils/test_utils.hpp"

namespace gs = gigasparse;
namespace io = gigasparse::io;
using gs::test::TempDir;

namespace {

const char* seeds[] = {
    "%%MatrixMarket matrix coordinate real general\n% c\n3 4 5\n1 1 1.5\n2 3 -2e-3\n3 4 7\n1 4 nan\n3 1 +1\n",
    "%%MatrixMarket matrix coordinate pattern symmetric\n4 4 4\n1 1\n2 1\n4 3\n4 4\n",
    "%%MatrixMarket matrix coordinate complex hermitian\n3 3 3\n1 1 1 0\n2 1 1 -1\n3 2 0.5 2\n",
    "%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 2\n2 1 4\n3 1 -5\n",
    "%%MatrixMarket matrix array real general\n2 3\n1\n2\n3\n4\n5\n6\n",
    "%%MatrixMarket matrix array complex symmetric\n2 2\n1 0\n2 1\n3 -1\n",
};

// One random edit: replace, insert or delete a byte (from a set of characters that matter to
// the parser), duplicate or drop a line, or cut the text.
std::string mutate(std::string s, std::mt19937_64& rng) {
    static const std::string alphabet = "0123456789 \t\n\r-+.eEdDnaifx%%,";
    std::uniform_int_distribution<int> kind(0, 5);
    const auto pos = [&](std::size_t n) { return n == 0 ? std::size_t(0) : std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
    const char c = alphabet[pos(alphabet.size())];
    switch (kind(rng)) {
        case 0:
            if (!s.empty()) s[pos(s.size())] = c;
            break;
        case 1: s.insert(s.begin() + static_cast<std::ptrdiff_t>(pos(s.size() + 1)), c); break;
        case 2:
            if (!s.empty()) s.erase(pos(s.size()), 1);
            break;
        case 3: {
            const std::size_t a = s.find('\n', pos(s.size()));
            if (a != std::string::npos) {
                const std::size_t b = s.find('\n', a + 1);
                s.insert(a + 1, s.substr(a + 1, b == std::string::npos ? std::string::npos : b - a));
            }
            break;
        }
        case 4: s.resize(pos(s.size() + 1)); break;
        default: s.insert(pos(s.size() + 1), std::to_string(std::uniform_int_distribution<long long>(0, 1LL << 62)(rng))); break;
    }
    return s;
}

// Reads the file every way, swallowing library errors. A mutated size line can declare a huge
// but allocatable matrix (1e9 rows need 8 GB of row offsets, legitimately): such files are only
// header-checked, to keep the test's memory small.
template <class V, class I>
void read_quietly(const std::string& path) {
    io::MmHeader h;
    try {
        h = io::read_mtx_header(path);
    } catch (const gs::Error&) {
    }
    if (h.nrows > 1000000 || h.ncols > 1000000) return;
    try {
        const auto a = io::read_mtx<V, I>(path);
        gs::validate<V, I>(a);  // whatever is accepted is a valid matrix
    } catch (const gs::Error&) {
    }
    if (h.nrows * h.ncols > 10000000) return;
    try {
        (void)io::read_mtx_dense<V>(path);
    } catch (const gs::Error&) {
    }
}

}  // namespace

TEST(MmFuzz, MutationsFailCleanly) {
    TempDir dir("fuzz");
    const std::uint64_t seed = 20261129;
    SCOPED_TRACE(gs::test::seed_trace(seed));
    std::mt19937_64 rng(seed);
    for (int round = 0; round < 2000; ++round) {
        std::string text = seeds[round % std::size(seeds)];
        const int edits = 1 + static_cast<int>(rng() % 4);
        for (int e = 0; e < edits; ++e) text = mutate(text, rng);
        const std::string path = dir.file("f.mtx");
        if (round % 5 == 4) {
            gzFile g = gzopen(path.c_str(), "wb1");
            ASSERT_NE(g, nullptr);
            if (!text.empty()) gzwrite(g, text.data(), static_cast<unsigned>(text.size()));
            gzclose(g);
            std::string bytes = gs::test::read_bytes(path);
            if (round % 10 == 9) bytes.resize(bytes.size() * (rng() % 100) / 100);  // truncated gzip
            gs::test::write_text(path, bytes);
        } else {
            gs::test::write_text(path, text);
        }
        read_quietly<double, std::int32_t>(path);
        read_quietly<std::complex<float>, std::int64_t>(path);
    }
}
