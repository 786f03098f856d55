# cmake/GigasparseOptions.cmake: every build option of the project, in one place.
set(GIGASPARSE_CUDA "AUTO" CACHE STRING "Build the CUDA backend: AUTO (when nvcc is found), ON, OFF")
set_property(CACHE GIGASPARSE_CUDA PROPERTY STRINGS AUTO ON OFF)
option(GIGASPARSE_BUILD_TESTS "Build the test suite" ${PROJECT_IS_TOP_LEVEL})
option(GIGASPARSE_BUILD_BENCH "Build the benchmark drivers" ${PROJECT_IS_TOP_LEVEL})
option(GIGASPARSE_BUILD_CLI "Build the gigasparse command-line tool" ON)
option(GIGASPARSE_BUILD_PYTHON "Build the Python extension (set by scikit-build-core)" OFF)
option(GIGASPARSE_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
set(GIGASPARSE_MATRIX_DIR "${PROJECT_SOURCE_DIR}/../shared/matrices" CACHE PATH
    "Folder of the shared real test matrices (Matrix Market .mtx.gz with MANIFEST.tsv)")
# The test programs spend their time in the library, which keeps the build type's optimization; their own
# code (GoogleTest cases, checks) compiles 2-4 times faster at -O0 (-O3 → -O0: 49 → 17 s for test_schur.cpp;
# under AddressSanitizer -O1 → -O0: 82 → 22 s). A test that compiles library code into itself (the CUDA
# kernels on the simulator) says OPTIMIZED to gigasparse_add_test and keeps the build type's flags.
set(GIGASPARSE_TEST_OPTIMIZATION "-O0" CACHE STRING "Optimization flags of the test programs' own code (not of Debug builds)")
set(GIGASPARSE_CUDA_ARCHITECTURES "80;90" CACHE STRING "CUDA architectures to build for (A100, H100/H200)")

if(GIGASPARSE_CUDA STREQUAL "AUTO")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(GIGASPARSE_WITH_CUDA ON)
  else()
    set(GIGASPARSE_WITH_CUDA OFF)
  endif()
elseif(GIGASPARSE_CUDA)
  set(GIGASPARSE_WITH_CUDA ON)
else()
  set(GIGASPARSE_WITH_CUDA OFF)
endif()

if(GIGASPARSE_WITH_CUDA)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES ${GIGASPARSE_CUDA_ARCHITECTURES})
  endif()
  enable_language(CUDA)
  # CMake 3.25 predates nvcc's C++20 support: teach it the dialect flag, then require C++20.
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
  set(CMAKE_CUDA_STANDARD 20)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
endif()
message(STATUS "gigasparse: CUDA backend ${GIGASPARSE_WITH_CUDA}")

if(GIGASPARSE_SANITIZE)
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined> $<$<COMPILE_LANGUAGE:CXX>:-fno-omit-frame-pointer>
                      $<$<COMPILE_LANGUAGE:CXX>:-fno-sanitize-recover=undefined>)
  add_link_options(-fsanitize=address,undefined)
endif()
