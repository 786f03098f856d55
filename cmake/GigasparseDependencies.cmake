# cmake/GigasparseDependencies.cmake: finds the chosen dependencies and wraps them as imported targets.
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(ZLIB REQUIRED)
find_package(Threads REQUIRED)

# OpenBLAS (with its LAPACK) linked explicitly: Debian's default libblas may be the slow reference one.
find_library(GIGASPARSE_OPENBLAS_LIB NAMES openblas REQUIRED)
find_path(GIGASPARSE_CBLAS_INCLUDE NAMES cblas.h PATH_SUFFIXES openblas REQUIRED)
find_library(GIGASPARSE_LAPACK_LIB NAMES lapack)
find_library(GIGASPARSE_METIS_LIB NAMES metis REQUIRED)
find_path(GIGASPARSE_METIS_INCLUDE NAMES metis.h REQUIRED)
find_library(GIGASPARSE_AMD_LIB NAMES amd REQUIRED)
find_library(GIGASPARSE_CAMD_LIB NAMES camd REQUIRED)  # constrained AMD: Schur variables ordered last
find_library(GIGASPARSE_SSCONFIG_LIB NAMES suitesparseconfig REQUIRED)
find_path(GIGASPARSE_SUITESPARSE_INCLUDE NAMES amd.h PATH_SUFFIXES suitesparse REQUIRED)

if(NOT TARGET gigasparse::openblas)
  add_library(gigasparse::openblas INTERFACE IMPORTED)
  set(_gs_blas ${GIGASPARSE_OPENBLAS_LIB})
  if(GIGASPARSE_LAPACK_LIB)
    list(PREPEND _gs_blas ${GIGASPARSE_LAPACK_LIB})
  endif()
  set_target_properties(gigasparse::openblas PROPERTIES INTERFACE_LINK_LIBRARIES "${_gs_blas}"
                        INTERFACE_INCLUDE_DIRECTORIES "${GIGASPARSE_CBLAS_INCLUDE}")
  add_library(gigasparse::metis INTERFACE IMPORTED)
  set_target_properties(gigasparse::metis PROPERTIES INTERFACE_LINK_LIBRARIES "${GIGASPARSE_METIS_LIB}"
                        INTERFACE_INCLUDE_DIRECTORIES "${GIGASPARSE_METIS_INCLUDE}")
  add_library(gigasparse::amd INTERFACE IMPORTED)
  set_target_properties(gigasparse::amd PROPERTIES INTERFACE_LINK_LIBRARIES "${GIGASPARSE_AMD_LIB};${GIGASPARSE_CAMD_LIB};${GIGASPARSE_SSCONFIG_LIB}"
                        INTERFACE_INCLUDE_DIRECTORIES "${GIGASPARSE_SUITESPARSE_INCLUDE}")
endif()

if(GIGASPARSE_WITH_CUDA)
  find_package(CUDAToolkit REQUIRED)
endif()
