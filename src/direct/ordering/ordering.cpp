// src/direct/ordering/ordering.cpp: AMD (SuiteSparse amd_l_order), nested dissection (METIS_NodeND), user orderings.
#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

#include <metis.h>
#include <suitesparse/amd.h>
#include <suitesparse/camd.h>

#include <gigasparse/core/error.hpp>
#include <gigasparse/direct/symbolic.hpp>

namespace gigasparse::direct {

std::vector<idx> order_amd(const SymmetricPattern& p) {
    const idx n = p.n;
    std::vector<idx> perm(static_cast<std::size_t>(n));
    std::iota(perm.begin(), perm.end(), idx{0});
    if (n <= 1 || p.row_idx.empty()) return perm;  // no edges: any order is fill-free
    double control[AMD_CONTROL], info[AMD_INFO];
    amd_l_defaults(control);
    static_assert(sizeof(SuiteSparse_long) == sizeof(idx));
    auto status = amd_l_order(n, reinterpret_cast<const SuiteSparse_long*>(p.col_ptr.data()),
                              reinterpret_cast<const SuiteSparse_long*>(p.row_idx.data()),
                              reinterpret_cast<SuiteSparse_long*>(perm.data()), control, info);
    if (status == AMD_OUT_OF_MEMORY) throw OutOfMemory("direct: AMD ran out of memory");
    if (status != AMD_OK && status != AMD_OK_BUT_JUMBLED)
        throw InvalidStructure("direct: AMD rejected the pattern (status " + std::to_string(status) + ")");
    return perm;
}

std::vector<idx> order_camd(const SymmetricPattern& p, std::span<const std::uint8_t> last) {
    const idx n = p.n;
    std::vector<idx> perm(static_cast<std::size_t>(n));
    std::iota(perm.begin(), perm.end(), idx{0});
    if (n <= 1) return perm;
    if (p.row_idx.empty()) {  // no edges: the constraint alone
        std::stable_partition(perm.begin(), perm.end(), [&](idx v) { return !last[v]; });
        return perm;
    }
    std::vector<SuiteSparse_long> c(static_cast<std::size_t>(n));
    for (idx i = 0; i < n; ++i) c[i] = last[i] ? 1 : 0;
    double control[CAMD_CONTROL], info[CAMD_INFO];
    camd_l_defaults(control);
    auto status = camd_l_order(n, reinterpret_cast<const SuiteSparse_long*>(p.col_ptr.data()),
                               reinterpret_cast<const SuiteSparse_long*>(p.row_idx.data()),
                               reinterpret_cast<SuiteSparse_long*>(perm.data()), control, info, c.data());
    if (status == CAMD_OUT_OF_MEMORY) throw OutOfMemory("direct: CAMD ran out of memory");
    if (status != CAMD_OK && status != CAMD_OK_BUT_JUMBLED)
        throw InvalidStructure("direct: CAMD rejected the pattern (status " + std::to_string(status) + ")");
    return perm;
}

std::vector<idx> order_nd(const SymmetricPattern& p) {
    const idx n = p.n;
    std::vector<idx> perm(static_cast<std::size_t>(n));
    std::iota(perm.begin(), perm.end(), idx{0});
    if (n <= 1 || p.row_idx.empty()) return perm;
    if (n > std::numeric_limits<idx_t>::max() ||
        static_cast<idx>(p.row_idx.size()) > std::numeric_limits<idx_t>::max())
        throw NotSupported("direct: the pattern is too large for the 32-bit METIS build");
    std::vector<idx_t> xadj(p.col_ptr.begin(), p.col_ptr.end()), adjncy(p.row_idx.begin(), p.row_idx.end());
    std::vector<idx_t> mperm(static_cast<std::size_t>(n)), miperm(static_cast<std::size_t>(n));
    idx_t nv = static_cast<idx_t>(n);
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_NUMBERING] = 0;
    int rc = METIS_NodeND(&nv, xadj.data(), adjncy.data(), nullptr, options, mperm.data(), miperm.data());
    if (rc == METIS_ERROR_MEMORY) throw OutOfMemory("direct: METIS_NodeND ran out of memory");
    if (rc != METIS_OK) throw InvalidStructure("direct: METIS_NodeND failed (status " + std::to_string(rc) + ")");
    // METIS: row i of the permuted matrix is row perm[i] of A, i.e. perm[new] = old.
    for (idx k = 0; k < n; ++k) perm[k] = mperm[k];
    return perm;
}

std::vector<idx> validate_user_permutation(std::span<const std::int64_t> perm, idx n, idx base) {
    if (static_cast<idx>(perm.size()) != n)
        throw DimensionMismatch("direct: user permutation has " + std::to_string(perm.size()) +
                                " entries, expected " + std::to_string(n));
    std::vector<idx> out(static_cast<std::size_t>(n));
    std::vector<char> seen(static_cast<std::size_t>(n), 0);
    for (idx k = 0; k < n; ++k) {
        idx v = perm[k] - base;
        if (v < 0 || v >= n || seen[v])
            throw InvalidArgument("direct: user permutation is not a permutation (entry " + std::to_string(k) +
                                  " = " + std::to_string(perm[k]) + ", base " + std::to_string(base) + ")");
        seen[v] = 1;
        out[k] = v;
    }
    return out;
}

}  // namespace gigasparse::direct
