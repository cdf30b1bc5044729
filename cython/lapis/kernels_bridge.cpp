#include "kernels_bridge.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

#include "lapis/detail/data_type.hpp"
#include "lapis/dualview.hpp"
#include "lapis/kernels.hpp"
#include "lapis/runtime/runtime.hpp"
#include "lapis/runtime/spaces.hpp"

namespace lapis::python {
namespace {

using kernels::Extents;

// Sides may be strided (a borrowed array that the device shares), so the views are LayoutStride.
template <class T, std::size_t Rank>
using Typed = DualView<data_type_t<T, Rank>, Kokkos::LayoutStride, DefaultDevice>;

[[noreturn]] void refuse_rank(const char* kernel, const char* name, const std::string& expected, const Shape& shape) {
  const ShapeList actual(shape.extents.begin(), shape.extents.begin() + shape.rank);
  kernels::detail::refuse(kernel, std::string(name) + ": expected a " + expected + "-dimensional array, got shape " +
                                      kernels::detail::shape_text(actual));
}

// The extents of argument `name`, or std::invalid_argument unless it has rank `Rank`.
template <std::size_t Rank>
Extents<Rank> extents(const char* kernel, const char* name, const AnyDualBuffer& buffer) {
  const Shape& shape = buffer.shape();
  if (shape.rank != Rank) refuse_rank(kernel, name, std::to_string(Rank), shape);
  Extents<Rank> result{};
  for (std::size_t i = 0; i < Rank; ++i) result[i] = static_cast<std::int64_t>(shape.extents[i]);
  return result;
}

template <class T, std::size_t Rank>
Typed<T, Rank> typed(const char* kernel, const char* name, const Buffer& buffer) {
  extents<Rank>(kernel, name, *buffer);
  return Typed<T, Rank>(buffer);
}

// The argument `name` the kernel writes (its output, or one it updates in place), of rank `Rank`,
// refused first (ReadOnlyError) when it may not be written: before the kernel syncs its inputs, so
// that a call that cannot run moves nothing.
template <class T, std::size_t Rank>
Typed<T, Rank> written(const char* kernel, const char* name, const Buffer& buffer) {
  require_writable(*buffer, Side::device, std::string(kernel) + ": " + name);
  return typed<T, Rank>(kernel, name, buffer);
}

template <class T, std::size_t Rank>
Typed<T, Rank> output(const char* kernel, const Buffer& out) {
  return written<T, Rank>(kernel, "out", out);
}

template <std::size_t Rank>
ShapeList shape_list(const Extents<Rank>& extents) {
  return ShapeList(extents.begin(), extents.end());
}

// Calls f(std::integral_constant<std::size_t, R>) for the rank R of `buffer`, Lowest (0 or 1) to 4.
template <std::size_t Lowest = 1, class F>
auto with_rank(const char* kernel, const char* name, const AnyDualBuffer& buffer, F&& f) {
  switch (buffer.shape().rank) {
    case 0:
      if constexpr (Lowest == 0) return f(std::integral_constant<std::size_t, 0>{});
      break;
    case 1: return f(std::integral_constant<std::size_t, 1>{});
    case 2: return f(std::integral_constant<std::size_t, 2>{});
    case 3: return f(std::integral_constant<std::size_t, 3>{});
    case 4: return f(std::integral_constant<std::size_t, 4>{});
  }
  refuse_rank(kernel, name, Lowest == 0 ? "0- to 4" : "1- to 4", buffer.shape());
}

// A kernel's call returns once the kernel is queued: whatever lapis does next (another kernel, a
// sync, an export) runs on the same execution space instance, after it. Memory lent by another
// library (from_dlpack) is used on that library's own streams as soon as the call returns, so a
// kernel touching it is finished first.
template <class... Buffers>
void finish_if_borrowed(const Buffers&... buffers) {
  if ((buffers->borrowed(Side::device) || ...)) DefaultDevice::execution_space().fence();
}
void finish_if_borrowed(const Buffer& out, std::initializer_list<const OperandArg*> operands) {
  bool borrowed = out->borrowed(Side::device);
  for (const OperandArg* operand : operands)
    borrowed = borrowed || (operand->buffer && operand->buffer->borrowed(Side::device));
  if (borrowed) DefaultDevice::execution_space().fence();
}

// Every kernel call goes through here: it holds the runtime from the first address it takes to the
// queued kernel, so that a finalize on another thread waits for it.
template <class F>
auto with_type(FloatType type, F&& f) {
  const RuntimeUse use;
  return type == FloatType::float32 ? f(float{}) : f(double{});
}

template <class F>
void with_types(FloatType type, Index index, F&& f) {
  with_type(type, [&](auto t) {
    if (index == Index::int32) f(t, std::int32_t{});
    else f(t, std::int64_t{});
  });
}

// Runs kernel(a, b, out) on inputs and an output of rank `Rank`.
template <std::size_t Rank, class Kernel>
void binary(const char* kernel_name, FloatType type, const Buffer& a, const Buffer& b, const Buffer& out,
            const Kernel& kernel) {
  with_type(type, [&](auto t) {
    using T = decltype(t);
    auto A = typed<const T, Rank>(kernel_name, "a", a);
    auto B = typed<const T, Rank>(kernel_name, "b", b);
    auto C = output<T, Rank>(kernel_name, out);
    kernel(A, B, C);
    finish_if_borrowed(a, b, out);
  });
}

template <class T>
kernels::Argument<T> argument(const OperandArg& arg) {
  return {arg.buffer, static_cast<T>(arg.value)};
}

// Runs kernel(out) for the output's rank (0 to 4) and element type, `out` being the typed DualView.
template <class Kernel>
void on_elementwise_output(const char* name, FloatType type, const Buffer& out, const Kernel& kernel) {
  with_rank<0>(name, "out", *out, [&](auto rank) {
    with_type(type, [&](auto t) {
      auto C = output<decltype(t), rank>(name, out);
      kernel(t, C);
    });
  });
}

}  // namespace

ShapeList elementwise_shape(const std::string& kernel, const OperandArg& x, const OperandArg& y) {
  return kernels::detail::result_extents(kernel.c_str(), argument<double>(x), argument<double>(y));
}

ShapeList gemm_shape(const AnyDualBuffer& a, const AnyDualBuffer& b) {
  return shape_list(kernels::gemm_extents(extents<2>("gemm", "a", a), extents<2>("gemm", "b", b)));
}

ShapeList batched_gemm_shape(const AnyDualBuffer& a, const AnyDualBuffer& b) {
  return shape_list(
      kernels::batched_gemm_extents(extents<3>("batched_gemm", "a", a), extents<3>("batched_gemm", "b", b)));
}

ShapeList matadd_shape(const AnyDualBuffer& a, const AnyDualBuffer& b) {
  return with_rank("matadd", "a", a, [&](auto rank) {
    return shape_list(kernels::matadd_extents(extents<rank>("matadd", "a", a), extents<rank>("matadd", "b", b)));
  });
}

ShapeList maxpool_nchw_shape(const AnyDualBuffer& x, std::int64_t kernel_size, std::int64_t stride,
                             std::int64_t padding, std::int64_t dilation) {
  return shape_list(kernels::maxpool_nchw_extents(extents<4>("maxpool_nchw", "x", x),
                                                  kernels::Pool2d{kernel_size, stride, padding, dilation}));
}

ShapeList conv2d_nchw_shape(const AnyDualBuffer& x, const AnyDualBuffer& w, std::int64_t stride,
                            std::int64_t padding) {
  return shape_list(kernels::conv2d_nchw_extents(extents<4>("conv2d_nchw", "x", x), extents<4>("conv2d_nchw", "w", w),
                                                 kernels::Conv2d{stride, padding}));
}

ShapeList global_avgpool_nchw_shape(const AnyDualBuffer& x) {
  return shape_list(kernels::global_avgpool_nchw_extents(extents<4>("global_avgpool_nchw", "x", x)));
}

ShapeList linear_shape(const AnyDualBuffer& x, const AnyDualBuffer& weight, const AnyDualBuffer& bias) {
  return shape_list(kernels::linear_extents(extents<2>("linear", "x", x), extents<2>("linear", "weight", weight),
                                            extents<1>("linear", "bias", bias)));
}

ShapeList spmv_shape(const AnyDualBuffer& indptr, const AnyDualBuffer& indices, const AnyDualBuffer& data,
                     const AnyDualBuffer& x, std::int64_t rows, std::int64_t columns) {
  return shape_list(kernels::spmv_csr_extents(extents<1>("spmv", "indptr", indptr), extents<1>("spmv", "indices", indices),
                                              extents<1>("spmv", "data", data), extents<1>("spmv", "x", x), rows,
                                              columns));
}

ShapeList spmm_dcsr_shape(const AnyDualBuffer& rows, const AnyDualBuffer& indptr, const AnyDualBuffer& indices,
                          const AnyDualBuffer& data, const AnyDualBuffer& b, std::int64_t nrows, std::int64_t columns) {
  const char* k = "spmm_dcsr";
  return shape_list(kernels::spmm_dcsr_extents(extents<1>(k, "rows", rows), extents<1>(k, "indptr", indptr),
                                               extents<1>(k, "indices", indices), extents<1>(k, "data", data),
                                               extents<2>(k, "b", b), nrows, columns));
}

void gemm(FloatType type, const Buffer& a, const Buffer& b, const Buffer& out) {
  binary<2>("gemm", type, a, b, out, [](auto&... args) { kernels::gemm(args...); });
}

void batched_gemm(FloatType type, const Buffer& a, const Buffer& b, const Buffer& out) {
  binary<3>("batched_gemm", type, a, b, out, [](auto&... args) { kernels::batched_gemm(args...); });
}

void matadd(FloatType type, const Buffer& a, const Buffer& b, const Buffer& out) {
  with_rank("matadd", "a", *a, [&](auto rank) {
    binary<rank>("matadd", type, a, b, out, [](auto&... args) { kernels::matadd(args...); });
  });
}

void maxpool_nchw(FloatType type, const Buffer& x, const Buffer& out, std::int64_t kernel_size, std::int64_t stride,
                  std::int64_t padding, std::int64_t dilation) {
  with_type(type, [&](auto t) {
    using T = decltype(t);
    auto X = typed<const T, 4>("maxpool_nchw", "x", x);
    auto Y = output<T, 4>("maxpool_nchw", out);
    kernels::maxpool_nchw(X, Y, kernels::Pool2d{kernel_size, stride, padding, dilation});
    finish_if_borrowed(x, out);
  });
}

void conv2d_nchw(FloatType type, const Buffer& x, const Buffer& w, const Buffer& bias, const Buffer& out,
                 std::int64_t stride, std::int64_t padding) {
  with_type(type, [&](auto t) {
    using T = decltype(t);
    const char* k = "conv2d_nchw";
    auto X = typed<const T, 4>(k, "x", x);
    auto W = typed<const T, 4>(k, "w", w);
    auto Y = output<T, 4>(k, out);
    if (bias) {
      auto B = typed<const T, 1>(k, "bias", bias);
      kernels::conv2d_nchw(X, W, B, Y, kernels::Conv2d{stride, padding});
      finish_if_borrowed(x, w, bias, out);
    } else {
      kernels::conv2d_nchw(X, W, Y, kernels::Conv2d{stride, padding});
      finish_if_borrowed(x, w, out);
    }
  });
}

void batchnorm_nchw(FloatType type, const Buffer& x, const Buffer& mean, const Buffer& var, const Buffer& weight,
                    const Buffer& bias, double eps, const Buffer& out) {
  with_type(type, [&](auto t) {
    using T = decltype(t);
    const char* k = "batchnorm_nchw";
    auto X = typed<const T, 4>(k, "x", x);
    auto M = typed<const T, 1>(k, "mean", mean);
    auto V = typed<const T, 1>(k, "var", var);
    auto W = typed<const T, 1>(k, "weight", weight);
    auto B = typed<const T, 1>(k, "bias", bias);
    auto Y = output<T, 4>(k, out);
    kernels::batchnorm_nchw(X, M, V, W, B, eps, Y);
    finish_if_borrowed(x, mean, var, weight, bias, out);
  });
}

void global_avgpool_nchw(FloatType type, const Buffer& x, const Buffer& out) {
  with_type(type, [&](auto t) {
    using T = decltype(t);
    auto X = typed<const T, 4>("global_avgpool_nchw", "x", x);
    auto Y = output<T, 2>("global_avgpool_nchw", out);
    kernels::global_avgpool_nchw(X, Y);
    finish_if_borrowed(x, out);
  });
}

void linear(FloatType type, const Buffer& x, const Buffer& weight, const Buffer& bias, const Buffer& out) {
  with_type(type, [&](auto t) {
    using T = decltype(t);
    auto X = typed<const T, 2>("linear", "x", x);
    auto W = typed<const T, 2>("linear", "weight", weight);
    auto B = typed<const T, 1>("linear", "bias", bias);
    auto Y = output<T, 2>("linear", out);
    kernels::linear(X, W, B, Y);
    finish_if_borrowed(x, weight, bias, out);
  });
}

void spmv(FloatType type, Index index, const Buffer& indptr, const Buffer& indices, const Buffer& data,
          const Buffer& x, const Buffer& out, std::int64_t rows, std::int64_t columns) {
  kernels::detail::require_result_extents("spmv", "out", extents<1>("spmv", "out", *out),
                                          Extents<1>{spmv_shape(*indptr, *indices, *data, *x, rows, columns)[0]});
  with_types(type, index, [&](auto t, auto i) {
    using T = decltype(t);
    using I = decltype(i);
    auto P = typed<const I, 1>("spmv", "indptr", indptr);
    auto J = typed<const I, 1>("spmv", "indices", indices);
    auto D = typed<const T, 1>("spmv", "data", data);
    auto X = typed<const T, 1>("spmv", "x", x);
    auto Y = output<T, 1>("spmv", out);
    kernels::spmv_csr(P, J, D, X, Y);
    finish_if_borrowed(indptr, indices, data, x, out);
  });
}

void spmm_dcsr(FloatType type, Index index, const Buffer& rows, const Buffer& indptr, const Buffer& indices,
               const Buffer& data, const Buffer& b, const Buffer& out, std::int64_t nrows, std::int64_t columns) {
  const ShapeList result = spmm_dcsr_shape(*rows, *indptr, *indices, *data, *b, nrows, columns);
  kernels::detail::require_result_extents("spmm_dcsr", "out", extents<2>("spmm_dcsr", "out", *out),
                                          Extents<2>{result[0], result[1]});
  with_types(type, index, [&](auto t, auto i) {
    using T = decltype(t);
    using I = decltype(i);
    const char* k = "spmm_dcsr";
    auto R = typed<const I, 1>(k, "rows", rows);
    auto P = typed<const I, 1>(k, "indptr", indptr);
    auto J = typed<const I, 1>(k, "indices", indices);
    auto D = typed<const T, 1>(k, "data", data);
    auto B = typed<const T, 2>(k, "b", b);
    auto C = output<T, 2>(k, out);
    kernels::spmm_dcsr(R, P, J, D, B, C);
    finish_if_borrowed(rows, indptr, indices, data, b, out);
  });
}

std::vector<Buffer> sparse_matadd(FloatType type, Index index, const Buffer& a_indptr, const Buffer& a_indices,
                                  const Buffer& a_data, const Buffer& b_indptr, const Buffer& b_indices,
                                  const Buffer& b_data, std::int64_t rows, std::int64_t columns) {
  std::vector<Buffer> result;
  with_types(type, index, [&](auto t, auto i) {
    using T = decltype(t);
    using I = decltype(i);
    const char* k = "sparse_matadd";
    auto ap = typed<const I, 1>(k, "a.indptr", a_indptr);
    auto ai = typed<const I, 1>(k, "a.indices", a_indices);
    auto ad = typed<const T, 1>(k, "a.data", a_data);
    auto bp = typed<const I, 1>(k, "b.indptr", b_indptr);
    auto bi = typed<const I, 1>(k, "b.indices", b_indices);
    auto bd = typed<const T, 1>(k, "b.data", b_data);
    auto c = kernels::sparse_matadd(ap, ai, ad, bp, bi, bd, rows, columns);
    result = {c.indptr.buffer(), c.indices.buffer(), c.data.buffer()};
    finish_if_borrowed(a_indptr, a_indices, a_data, b_indptr, b_indices, b_data);
  });
  return result;
}

double dot(FloatType type, const Buffer& x, const Buffer& y) {
  return with_type(type, [&](auto t) -> double {
    using T = decltype(t);
    auto X = typed<const T, 1>("dot", "x", x);
    auto Y = typed<const T, 1>("dot", "y", y);
    return kernels::dot(X, Y);
  });
}

void dot_into(FloatType type, const Buffer& x, const Buffer& y, const Buffer& out) {
  with_type(type, [&](auto t) {
    using T = decltype(t);
    auto X = typed<const T, 1>("dot", "x", x);
    auto Y = typed<const T, 1>("dot", "y", y);
    auto R = output<T, 0>("dot", out);
    kernels::dot(X, Y, R);
    finish_if_borrowed(x, y, out);
  });
}

double norm2(FloatType type, const Buffer& x) {
  return with_type(type, [&](auto t) -> double {
    auto X = typed<const decltype(t), 1>("norm", "x", x);
    return kernels::norm2(X);
  });
}

void norm2_into(FloatType type, const Buffer& x, const Buffer& out) {
  with_type(type, [&](auto t) {
    using T = decltype(t);
    auto X = typed<const T, 1>("norm", "x", x);
    auto R = output<T, 0>("norm", out);
    kernels::norm2(X, R);
    finish_if_borrowed(x, out);
  });
}

void arithmetic(kernels::Operation op, FloatType type, const OperandArg& x, const OperandArg& y, const Buffer& out) {
  on_elementwise_output(kernels::name(op), type, out, [&](auto t, auto& C) {
    using T = decltype(t);
    kernels::arithmetic(op, argument<T>(x), argument<T>(y), C);
    finish_if_borrowed(out, {&x, &y});
  });
}

void axpby(FloatType type, const OperandArg& alpha, const OperandArg& x, const OperandArg& beta, const OperandArg& y,
           const Buffer& out) {
  on_elementwise_output("axpby", type, out, [&](auto t, auto& C) {
    using T = decltype(t);
    kernels::axpby(argument<T>(alpha), argument<T>(x), argument<T>(beta), argument<T>(y), C);
    finish_if_borrowed(out, {&alpha, &x, &beta, &y});
  });
}

void cg_step(FloatType type, const Buffer& rz, const Buffer& pq, const Buffer& p, const Buffer& q, const Buffer& x,
             const Buffer& r, const Buffer& rr) {
  with_type(type, [&](auto t) {
    using T = decltype(t);
    const char* k = "cg_step";
    auto X = written<T, 1>(k, "x", x);
    auto R = written<T, 1>(k, "r", r);
    auto RR = written<T, 0>(k, "rr", rr);
    auto RZ = typed<const T, 0>(k, "rz", rz);
    auto PQ = typed<const T, 0>(k, "pq", pq);
    auto P = typed<const T, 1>(k, "p", p);
    auto Q = typed<const T, 1>(k, "q", q);
    kernels::cg_step(RZ, PQ, P, Q, X, R, RR);
    finish_if_borrowed(rz, pq, p, q, x, r, rr);
  });
}

void cg_precondition(FloatType type, const Buffer& m, const Buffer& r, const Buffer& z, const Buffer& rz) {
  with_type(type, [&](auto t) {
    using T = decltype(t);
    const char* k = "cg_precondition";
    auto Z = written<T, 1>(k, "z", z);
    auto RZ = written<T, 0>(k, "rz", rz);
    auto M = typed<const T, 1>(k, "m", m);
    auto R = typed<const T, 1>(k, "r", r);
    kernels::cg_precondition(M, R, Z, RZ);
    finish_if_borrowed(m, r, z, rz);
  });
}

void cg_direction(FloatType type, const Buffer& z, const Buffer& rz, const Buffer& rz_old, const Buffer& p) {
  with_type(type, [&](auto t) {
    using T = decltype(t);
    const char* k = "cg_direction";
    auto P = written<T, 1>(k, "p", p);
    auto Z = typed<const T, 1>(k, "z", z);
    auto RZ = typed<const T, 0>(k, "rz", rz);
    auto RZ_OLD = typed<const T, 0>(k, "rz_old", rz_old);
    kernels::cg_direction(Z, RZ, RZ_OLD, P);
    finish_if_borrowed(z, rz, rz_old, p);
  });
}

}  // namespace lapis::python
