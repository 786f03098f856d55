// include/gigasparse/gigasparse.hpp: umbrella header of the public API.
#pragma once

#include <gigasparse/config.hpp>
#include <gigasparse/core/convert.hpp>
#include <gigasparse/core/error.hpp>
#include <gigasparse/core/matrix.hpp>
#include <gigasparse/core/timer.hpp>
#include <gigasparse/core/types.hpp>
#include <gigasparse/cuda/device.hpp>
#include <gigasparse/cuda/device_matrix.hpp>
#include <gigasparse/cuda/spgemm.hpp>
#include <gigasparse/cuda/spgemm_plan.hpp>
#include <gigasparse/direct/batch.hpp>
#include <gigasparse/direct/solver.hpp>
#include <gigasparse/gen/generators.hpp>
#include <gigasparse/io/matrix_market.hpp>
#include <gigasparse/iterative/krylov.hpp>
#include <gigasparse/iterative/lusgs.hpp>
#include <gigasparse/iterative/preconditioner.hpp>
#include <gigasparse/iterative/triangular_solve.hpp>
#include <gigasparse/reference/kernels.hpp>
#include <gigasparse/spgemm.hpp>
