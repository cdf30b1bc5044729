// The kernels of include/lapis/kernels, instantiated once per element type (and index type) over
// type-erased buffers: inputs' device sides are synced and read, the output's device side is
// overwritten. Kokkos-free, like bridge.hpp; shapes and dtypes are checked by the caller, sparse
// structure here (on the device), before the output is touched.
#pragma once

#include <cstdint>

#include "lapis/any_dual_buffer.hpp"

namespace lapis::python {

enum class Scalar { float32, float64 };
enum class Index { int32, int64 };

void gemm(Scalar scalar, AnyDualBuffer& a, AnyDualBuffer& b, AnyDualBuffer& c);
void batched_gemm(Scalar scalar, AnyDualBuffer& a, AnyDualBuffer& b, AnyDualBuffer& c);
void matadd(Scalar scalar, AnyDualBuffer& a, AnyDualBuffer& b, AnyDualBuffer& c);
// Output extent along a dimension of `n`; throws std::invalid_argument for settings torch refuses.
std::int64_t maxpool_output_extent(std::int64_t n, std::int64_t kernel_size, std::int64_t stride,
                                   std::int64_t padding, std::int64_t dilation);
void maxpool_nchw(Scalar scalar, AnyDualBuffer& x, AnyDualBuffer& y, std::int64_t kernel_size, std::int64_t stride,
                  std::int64_t padding, std::int64_t dilation);
void spmv(Scalar scalar, Index index, AnyDualBuffer& indptr, AnyDualBuffer& indices, AnyDualBuffer& data,
          AnyDualBuffer& x, AnyDualBuffer& y);
void spmm_dcsr(Scalar scalar, Index index, AnyDualBuffer& rows, AnyDualBuffer& indptr, AnyDualBuffer& indices,
               AnyDualBuffer& data, AnyDualBuffer& b, AnyDualBuffer& c);
double dot(Scalar scalar, AnyDualBuffer& x, AnyDualBuffer& y);

}  // namespace lapis::python
