// All of lapis's kernels: each takes Kokkos views (with an execution-space instance) or
// lapis::DualView arguments (reading the inputs' device sides, overwriting the output's).
#pragma once

#include "lapis/kernels/arithmetic.hpp"
#include "lapis/kernels/avgpool_nchw.hpp"
#include "lapis/kernels/batchnorm_nchw.hpp"
#include "lapis/kernels/cg.hpp"
#include "lapis/kernels/conv2d_nchw.hpp"
#include "lapis/kernels/dot.hpp"
#include "lapis/kernels/gemm.hpp"
#include "lapis/kernels/linear.hpp"
#include "lapis/kernels/matadd.hpp"
#include "lapis/kernels/maxpool_nchw.hpp"
#include "lapis/kernels/sparse_matadd.hpp"
#include "lapis/kernels/spmm_dcsr.hpp"
#include "lapis/kernels/spmv_csr.hpp"
