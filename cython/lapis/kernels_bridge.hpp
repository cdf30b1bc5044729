// The kernels of include/lapis/kernels over type-erased buffers, instantiated once per element type
// (and index type): each buffer is adopted as a typed lapis::DualView and the kernel's DualView
// overload runs, so syncing, overwriting and every check of extents and sparse structure are the
// C++ API's own. Kokkos-free, like bridge.hpp. The *_shape functions give a result's shape (to
// allocate it) or throw std::invalid_argument naming the argument; a wrong rank is refused the same
// way. Each kernel takes the element type of its floating-point arrays (float32 or float64) and,
// for sparse kernels, of the matrix's indices (int32 or int64), which say which instantiation runs;
// the caller checks that the arrays have them, and any other type is an ElementTypeError.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lapis/core/any_dual_buffer.hpp"
#include "lapis/core/element_type.hpp"
#include "lapis/kernels/operation.hpp"

namespace lapis::python {

using Buffer = std::shared_ptr<AnyDualBuffer>;
using ShapeList = std::vector<std::int64_t>;

// An operand of an elementwise kernel (lapis::kernels::Argument without its element type): an array
// or a rank-0 DualView (`buffer`), or a Python number (`buffer` empty), converted to the kernel's
// element type.
struct OperandArg {
  Buffer buffer;
  double value = 0;
};

ShapeList gemm_shape(const AnyDualBuffer& a, const AnyDualBuffer& b);
ShapeList batched_gemm_shape(const AnyDualBuffer& a, const AnyDualBuffer& b);
ShapeList matadd_shape(const AnyDualBuffer& a, const AnyDualBuffer& b);
ShapeList maxpool_nchw_shape(const AnyDualBuffer& x, std::int64_t kernel_size, std::int64_t stride,
                             std::int64_t padding, std::int64_t dilation);
ShapeList conv2d_nchw_shape(const AnyDualBuffer& x, const AnyDualBuffer& w, std::int64_t stride, std::int64_t padding);
ShapeList global_avgpool_nchw_shape(const AnyDualBuffer& x);
ShapeList linear_shape(const AnyDualBuffer& x, const AnyDualBuffer& weight, const AnyDualBuffer& bias);
ShapeList spmv_shape(const AnyDualBuffer& indptr, const AnyDualBuffer& indices, const AnyDualBuffer& data,
                     const AnyDualBuffer& x, std::int64_t rows, std::int64_t columns);
ShapeList spmm_dcsr_shape(const AnyDualBuffer& rows, const AnyDualBuffer& indptr, const AnyDualBuffer& indices,
                          const AnyDualBuffer& data, const AnyDualBuffer& b, std::int64_t nrows, std::int64_t columns);
// The shape of the elementwise result of x and y: their one shape, rank-0 ones and numbers fitting any.
ShapeList elementwise_shape(const std::string& kernel, const OperandArg& x, const OperandArg& y);

void gemm(ElementType type, const Buffer& a, const Buffer& b, const Buffer& out);
void batched_gemm(ElementType type, const Buffer& a, const Buffer& b, const Buffer& out);
void matadd(ElementType type, const Buffer& a, const Buffer& b, const Buffer& out);
void maxpool_nchw(ElementType type, const Buffer& x, const Buffer& out, std::int64_t kernel_size, std::int64_t stride,
                  std::int64_t padding, std::int64_t dilation);
// bias may be empty (none).
void conv2d_nchw(ElementType type, const Buffer& x, const Buffer& w, const Buffer& bias, const Buffer& out,
                 std::int64_t stride, std::int64_t padding);
void batchnorm_nchw(ElementType type, const Buffer& x, const Buffer& mean, const Buffer& var, const Buffer& weight,
                    const Buffer& bias, double eps, const Buffer& out);
void global_avgpool_nchw(ElementType type, const Buffer& x, const Buffer& out);
void linear(ElementType type, const Buffer& x, const Buffer& weight, const Buffer& bias, const Buffer& out);
// The sparse kernels take the matrix's shape (rows, columns) as Python does; the C++ API reads it
// from the output's and the dense operand's extents, so out's are checked against it first.
void spmv(ElementType type, ElementType index, const Buffer& indptr, const Buffer& indices, const Buffer& data,
          const Buffer& x, const Buffer& out, std::int64_t rows, std::int64_t columns);
void spmm_dcsr(ElementType type, ElementType index, const Buffer& rows, const Buffer& indptr, const Buffer& indices,
               const Buffer& data, const Buffer& b, const Buffer& out, std::int64_t nrows, std::int64_t columns);
// C = A + B for canonical CSR matrices of one shape: C's indptr, indices and data, new buffers.
std::vector<Buffer> sparse_matadd(ElementType type, ElementType index, const Buffer& a_indptr, const Buffer& a_indices,
                                  const Buffer& a_data, const Buffer& b_indptr, const Buffer& b_indices,
                                  const Buffer& b_data, std::int64_t rows, std::int64_t columns);
double dot(ElementType type, const Buffer& x, const Buffer& y);
// Into a rank-0 `out`, on the device.
void dot_into(ElementType type, const Buffer& x, const Buffer& y, const Buffer& out);
double norm2(ElementType type, const Buffer& x);
void norm2_into(ElementType type, const Buffer& x, const Buffer& out);
void arithmetic(kernels::Operation op, ElementType type, const OperandArg& x, const OperandArg& y, const Buffer& out);
void axpby(ElementType type, const OperandArg& alpha, const OperandArg& x, const OperandArg& beta, const OperandArg& y,
           const Buffer& out);
// The fused conjugate-gradient updates (kernels/cg.hpp); rz, pq, rr and rz_old are rank 0.
void cg_step(ElementType type, const Buffer& rz, const Buffer& pq, const Buffer& p, const Buffer& q, const Buffer& x,
             const Buffer& r, const Buffer& rr);
void cg_precondition(ElementType type, const Buffer& m, const Buffer& r, const Buffer& z, const Buffer& rz);
void cg_direction(ElementType type, const Buffer& z, const Buffer& rz, const Buffer& rz_old, const Buffer& p);

}  // namespace lapis::python
