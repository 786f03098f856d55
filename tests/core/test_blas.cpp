// tests/core/test_blas.cpp: BLAS kernel-set introspection and the OPENBLAS_CORETYPE recommendation.
#include <gtest/gtest.h>

#include <cblas.h>

#include <gigasparse/core/blas.hpp>

using gigasparse::openblas_core_isa;
using gigasparse::recommended_openblas_core;

TEST(Blas, CoreNamesMapToTheirIsa) {
    EXPECT_EQ(openblas_core_isa("Prescott"), "sse");
    EXPECT_EQ(openblas_core_isa("NEHALEM"), "sse");
    EXPECT_EQ(openblas_core_isa("Sandybridge"), "avx");
    EXPECT_EQ(openblas_core_isa("Haswell"), "avx2");
    EXPECT_EQ(openblas_core_isa("Zen"), "avx2");
    EXPECT_EQ(openblas_core_isa("SkylakeX"), "avx512");
    EXPECT_EQ(openblas_core_isa("SapphireRapids"), "avx512");
    EXPECT_EQ(openblas_core_isa("armv8"), "");
    EXPECT_EQ(openblas_core_isa(""), "");
}

TEST(Blas, RecommendsOnlyWiderKernelsThanTheLoadedOnes) {
    EXPECT_EQ(recommended_openblas_core("Prescott", "avx512"), "SkylakeX");  // OpenBLAS 0.3.21 on family 6 model 207
    EXPECT_EQ(recommended_openblas_core("Prescott", "avx2"), "Haswell");
    EXPECT_EQ(recommended_openblas_core("Sandybridge", "avx2"), "Haswell");
    EXPECT_EQ(recommended_openblas_core("Haswell", "avx512"), "SkylakeX");
    EXPECT_EQ(recommended_openblas_core("SkylakeX", "avx512"), "");
    EXPECT_EQ(recommended_openblas_core("Cooperlake", "avx512"), "");
    EXPECT_EQ(recommended_openblas_core("Haswell", "avx2"), "");
    EXPECT_EQ(recommended_openblas_core("SkylakeX", "avx2"), "");  // never narrower
    EXPECT_EQ(recommended_openblas_core("armv8", "avx512"), "");   // unknown kernel set: leave it
    EXPECT_EQ(recommended_openblas_core("", "avx512"), "");        // not OpenBLAS
}

TEST(Blas, InfoOfThisProcessIsConsistent) {
    // one real BLAS call, so the executable needs the BLAS library like every solver does
    double a = 2.0, b = 3.0, c = 0.0;
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 1, 1, 1, 1.0, &a, 1, &b, 1, 0.0, &c, 1);
    EXPECT_EQ(c, 6.0);
    const gigasparse::BlasInfo info = gigasparse::blas_info();
    EXPECT_FALSE(info.library.empty());  // dgemm_ is linked in
#if defined(__x86_64__)
    EXPECT_FALSE(info.cpu_isa.empty());
#endif
    EXPECT_EQ(info.kernel_isa, openblas_core_isa(info.core));
    EXPECT_EQ(info.recommended, recommended_openblas_core(info.core, info.cpu_isa));
}
