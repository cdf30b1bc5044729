#include "kernels_bridge.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
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

// What an array argument holds: values of the type the kernel computes in, or a sparse structure's
// indices.
struct Values {};
struct Indices {};

// A kernel's array argument: its name (for errors), its buffer, its rank and whether the kernel
// writes it (an output, or an argument updated in place).
template <class Of, std::size_t Rank, bool Written>
struct ArrayArg {
  const char* name;
  const Buffer& buffer;
};

template <std::size_t Rank>
ArrayArg<Values, Rank, false> input(const char* name, const Buffer& buffer) {
  return {name, buffer};
}
template <std::size_t Rank>
ArrayArg<Indices, Rank, false> index_input(const char* name, const Buffer& buffer) {
  return {name, buffer};
}
template <std::size_t Rank>
ArrayArg<Values, Rank, true> written(const char* name, const Buffer& buffer) {
  return {name, buffer};
}

// An elementwise operand: an array or rank-0 DualView, or a number.
struct OperandRef {
  const OperandArg& arg;
};
OperandRef operand(const OperandArg& arg) { return {arg}; }

// One kernel call from Python, computing in T and indexing in I: takes each argument as the typed
// DualView the kernel takes (its rank checked), and notes whether any is lent by another library.
template <class T, class I>
class PythonCall {
 public:
  explicit PythonCall(const char* kernel) : kernel_(kernel) {}

  template <class Of, std::size_t Rank, bool Written>
  void require_writable_if_written(const ArrayArg<Of, Rank, Written>& arg) const {
    if constexpr (Written) require_writable(*arg.buffer, Side::device, std::string(kernel_) + ": " + arg.name);
  }
  void require_writable_if_written(const OperandRef&) const {}

  template <class Of, std::size_t Rank, bool Written>
  auto adopt(const ArrayArg<Of, Rank, Written>& arg) {
    note(arg.buffer);
    using Element = std::conditional_t<std::is_same_v<Of, Indices>, I, T>;
    return typed<std::conditional_t<Written, Element, const Element>, Rank>(kernel_, arg.name, arg.buffer);
  }
  kernels::Argument<T> adopt(const OperandRef& operand) {
    if (operand.arg.buffer) note(operand.arg.buffer);
    return {operand.arg.buffer, static_cast<T>(operand.arg.value)};
  }

  // A kernel's call returns once the kernel is queued: whatever lapis does next runs on the same
  // execution space instance, after it. Memory lent by another library (from_dlpack) is used on
  // that library's own streams as soon as the call returns, so such a call is finished here (where
  // the kernel may still run then).
  void finish() const {
    using ExecutionSpace = DefaultDevice::execution_space;
    if constexpr (!finishes_before_returning<ExecutionSpace>)
      if (borrowed_) default_instance<ExecutionSpace>().fence();
  }

 private:
  void note(const Buffer& buffer) { borrowed_ = borrowed_ || buffer->borrowed(Side::device); }

  const char* kernel_;
  bool borrowed_ = false;
};

// Calls kernel(views...) with one typed view per argument, in the order given. An argument the
// kernel writes is refused first when it may not be written, before anything is adopted or synced,
// so that a call that cannot run moves nothing. Every kernel's arguments pass through here, so none
// can forget to finish a call on borrowed memory.
template <class T, class I, class Kernel, class... Args>
auto run_typed(const char* name, const Kernel& kernel, const Args&... args) {
  PythonCall<T, I> call(name);
  (call.require_writable_if_written(args), ...);
  std::tuple views{call.adopt(args)...};  // braced: adopted (and rank-checked) left to right
  if constexpr (std::is_void_v<decltype(std::apply(kernel, views))>) {
    std::apply(kernel, views);
    call.finish();
  } else {
    auto result = std::apply(kernel, views);
    call.finish();
    return result;
  }
}

// Every kernel call goes through here: it holds the runtime from the first address it takes to the
// queued kernel, so that a finalize on another thread waits for it.
template <class F>
auto with_type(ElementType type, F&& f) {
  const RuntimeUse use;
  if (type == ElementType::float32) return f(float{});
  if (type != ElementType::float64)
    throw ElementTypeError(std::string("lapis kernels compute in float32 or float64, not ") + name(type));
  return f(double{});
}

// Runs kernel(views...) computing in `type`.
template <class Kernel, class... Args>
auto run_kernel(const char* name, ElementType type, const Kernel& kernel, const Args&... args) {
  return with_type(type, [&](auto t) { return run_typed<decltype(t), void>(name, kernel, args...); });
}

// Runs kernel(views...) computing in `type` over a sparse structure indexed in `index`.
template <class Kernel, class... Args>
auto run_kernel(const char* name, ElementType type, ElementType index, const Kernel& kernel, const Args&... args) {
  return with_type(type, [&](auto t) {
    if (index == ElementType::int32) return run_typed<decltype(t), std::int32_t>(name, kernel, args...);
    if (index != ElementType::int64)
      throw ElementTypeError(std::string("lapis's sparse kernels index in int32 or int64, not ") + lapis::name(index));
    return run_typed<decltype(t), std::int64_t>(name, kernel, args...);
  });
}

}  // namespace

ShapeList elementwise_shape(const std::string& kernel, const OperandArg& x, const OperandArg& y) {
  const auto value = [](const OperandArg& arg) { return kernels::Argument<double>{arg.buffer, arg.value}; };
  return kernels::detail::result_extents(kernel.c_str(), value(x), value(y));
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

ShapeList conv2d_nchw_shape(const AnyDualBuffer& x, const AnyDualBuffer& w, std::int64_t stride, std::int64_t padding) {
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
  return shape_list(kernels::spmv_csr_extents(extents<1>("spmv", "indptr", indptr),
                                              extents<1>("spmv", "indices", indices), extents<1>("spmv", "data", data),
                                              extents<1>("spmv", "x", x), rows, columns));
}

ShapeList spmm_dcsr_shape(const AnyDualBuffer& rows, const AnyDualBuffer& indptr, const AnyDualBuffer& indices,
                          const AnyDualBuffer& data, const AnyDualBuffer& b, std::int64_t nrows, std::int64_t columns) {
  const char* k = "spmm_dcsr";
  return shape_list(kernels::spmm_dcsr_extents(extents<1>(k, "rows", rows), extents<1>(k, "indptr", indptr),
                                               extents<1>(k, "indices", indices), extents<1>(k, "data", data),
                                               extents<2>(k, "b", b), nrows, columns));
}

void gemm(ElementType type, const Buffer& a, const Buffer& b, const Buffer& out) {
  run_kernel(
      "gemm", type, [](auto&... v) { kernels::gemm(v...); }, input<2>("a", a), input<2>("b", b),
      written<2>("out", out));
}

void batched_gemm(ElementType type, const Buffer& a, const Buffer& b, const Buffer& out) {
  run_kernel(
      "batched_gemm", type, [](auto&... v) { kernels::batched_gemm(v...); }, input<3>("a", a), input<3>("b", b),
      written<3>("out", out));
}

void matadd(ElementType type, const Buffer& a, const Buffer& b, const Buffer& out) {
  with_rank("matadd", "a", *a, [&](auto rank) {
    run_kernel(
        "matadd", type, [](auto&... v) { kernels::matadd(v...); }, input<rank>("a", a), input<rank>("b", b),
        written<rank>("out", out));
  });
}

void maxpool_nchw(ElementType type, const Buffer& x, const Buffer& out, std::int64_t kernel_size, std::int64_t stride,
                  std::int64_t padding, std::int64_t dilation) {
  const kernels::Pool2d settings{kernel_size, stride, padding, dilation};
  run_kernel(
      "maxpool_nchw", type, [&](auto&... v) { kernels::maxpool_nchw(v..., settings); }, input<4>("x", x),
      written<4>("out", out));
}

void conv2d_nchw(ElementType type, const Buffer& x, const Buffer& w, const Buffer& bias, const Buffer& out,
                 std::int64_t stride, std::int64_t padding) {
  const kernels::Conv2d settings{stride, padding};
  const auto kernel = [&](auto&... v) { kernels::conv2d_nchw(v..., settings); };
  if (bias) {
    run_kernel("conv2d_nchw", type, kernel, input<4>("x", x), input<4>("w", w), input<1>("bias", bias),
               written<4>("out", out));
  } else {
    run_kernel("conv2d_nchw", type, kernel, input<4>("x", x), input<4>("w", w), written<4>("out", out));
  }
}

void batchnorm_nchw(ElementType type, const Buffer& x, const Buffer& mean, const Buffer& var, const Buffer& weight,
                    const Buffer& bias, double eps, const Buffer& out) {
  run_kernel(
      "batchnorm_nchw", type,
      [&](auto& X, auto& M, auto& V, auto& W, auto& B, auto& Y) { kernels::batchnorm_nchw(X, M, V, W, B, eps, Y); },
      input<4>("x", x), input<1>("mean", mean), input<1>("var", var), input<1>("weight", weight),
      input<1>("bias", bias), written<4>("out", out));
}

void global_avgpool_nchw(ElementType type, const Buffer& x, const Buffer& out) {
  run_kernel(
      "global_avgpool_nchw", type, [](auto&... v) { kernels::global_avgpool_nchw(v...); }, input<4>("x", x),
      written<2>("out", out));
}

void linear(ElementType type, const Buffer& x, const Buffer& weight, const Buffer& bias, const Buffer& out) {
  run_kernel(
      "linear", type, [](auto&... v) { kernels::linear(v...); }, input<2>("x", x), input<2>("weight", weight),
      input<1>("bias", bias), written<2>("out", out));
}

void spmv(ElementType type, ElementType index, const Buffer& indptr, const Buffer& indices, const Buffer& data,
          const Buffer& x, const Buffer& out, std::int64_t rows, std::int64_t columns) {
  kernels::detail::require_result_extents("spmv", "out", extents<1>("spmv", "out", *out),
                                          Extents<1>{spmv_shape(*indptr, *indices, *data, *x, rows, columns)[0]});
  run_kernel(
      "spmv", type, index, [](auto&... v) { kernels::spmv_csr(v...); }, index_input<1>("indptr", indptr),
      index_input<1>("indices", indices), input<1>("data", data), input<1>("x", x), written<1>("out", out));
}

void spmm_dcsr(ElementType type, ElementType index, const Buffer& rows, const Buffer& indptr, const Buffer& indices,
               const Buffer& data, const Buffer& b, const Buffer& out, std::int64_t nrows, std::int64_t columns) {
  const ShapeList result = spmm_dcsr_shape(*rows, *indptr, *indices, *data, *b, nrows, columns);
  kernels::detail::require_result_extents("spmm_dcsr", "out", extents<2>("spmm_dcsr", "out", *out),
                                          Extents<2>{result[0], result[1]});
  run_kernel(
      "spmm_dcsr", type, index, [](auto&... v) { kernels::spmm_dcsr(v...); }, index_input<1>("rows", rows),
      index_input<1>("indptr", indptr), index_input<1>("indices", indices), input<1>("data", data), input<2>("b", b),
      written<2>("out", out));
}

std::vector<Buffer> sparse_matadd(ElementType type, ElementType index, const Buffer& a_indptr, const Buffer& a_indices,
                                  const Buffer& a_data, const Buffer& b_indptr, const Buffer& b_indices,
                                  const Buffer& b_data, std::int64_t rows, std::int64_t columns) {
  return run_kernel(
      "sparse_matadd", type, index,
      [&](auto&... v) {
        auto c = kernels::sparse_matadd(v..., rows, columns);
        return std::vector<Buffer>{c.indptr.buffer(), c.indices.buffer(), c.data.buffer()};
      },
      index_input<1>("a.indptr", a_indptr), index_input<1>("a.indices", a_indices), input<1>("a.data", a_data),
      index_input<1>("b.indptr", b_indptr), index_input<1>("b.indices", b_indices), input<1>("b.data", b_data));
}

double dot(ElementType type, const Buffer& x, const Buffer& y) {
  return run_kernel(
      "dot", type, [](auto&... v) -> double { return kernels::dot(v...); }, input<1>("x", x), input<1>("y", y));
}

void dot_into(ElementType type, const Buffer& x, const Buffer& y, const Buffer& out) {
  run_kernel(
      "dot", type, [](auto&... v) { kernels::dot(v...); }, input<1>("x", x), input<1>("y", y), written<0>("out", out));
}

double norm2(ElementType type, const Buffer& x) {
  return run_kernel("norm", type, [](auto&... v) -> double { return kernels::norm2(v...); }, input<1>("x", x));
}

void norm2_into(ElementType type, const Buffer& x, const Buffer& out) {
  run_kernel("norm", type, [](auto&... v) { kernels::norm2(v...); }, input<1>("x", x), written<0>("out", out));
}

void arithmetic(kernels::Operation op, ElementType type, const OperandArg& x, const OperandArg& y, const Buffer& out) {
  const char* name = kernels::name(op);
  with_rank<0>(name, "out", *out, [&](auto rank) {
    run_kernel(
        name, type, [&](auto&... v) { kernels::arithmetic(op, v...); }, operand(x), operand(y),
        written<rank>("out", out));
  });
}

void axpby(ElementType type, const OperandArg& alpha, const OperandArg& x, const OperandArg& beta, const OperandArg& y,
           const Buffer& out) {
  with_rank<0>("axpby", "out", *out, [&](auto rank) {
    run_kernel(
        "axpby", type, [](auto&... v) { kernels::axpby(v...); }, operand(alpha), operand(x), operand(beta), operand(y),
        written<rank>("out", out));
  });
}

void cg_step(ElementType type, const Buffer& rz, const Buffer& pq, const Buffer& p, const Buffer& q, const Buffer& x,
             const Buffer& r, const Buffer& rr) {
  run_kernel(
      "cg_step", type, [](auto&... v) { kernels::cg_step(v...); }, input<0>("rz", rz), input<0>("pq", pq),
      input<1>("p", p), input<1>("q", q), written<1>("x", x), written<1>("r", r), written<0>("rr", rr));
}

void cg_precondition(ElementType type, const Buffer& m, const Buffer& r, const Buffer& z, const Buffer& rz) {
  run_kernel(
      "cg_precondition", type, [](auto&... v) { kernels::cg_precondition(v...); }, input<1>("m", m), input<1>("r", r),
      written<1>("z", z), written<0>("rz", rz));
}

void cg_direction(ElementType type, const Buffer& z, const Buffer& rz, const Buffer& rz_old, const Buffer& p) {
  run_kernel(
      "cg_direction", type, [](auto&... v) { kernels::cg_direction(v...); }, input<1>("z", z), input<0>("rz", rz),
      input<0>("rz_old", rz_old), written<1>("p", p));
}

}  // namespace lapis::python
