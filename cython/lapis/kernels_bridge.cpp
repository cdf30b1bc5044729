#include "kernels_bridge.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
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

// One kernel call from Python: each argument is adopted once, by name and role, as the typed
// DualView the kernel takes (its rank checked; an argument the kernel writes refused first when it
// may not be written, before anything is synced, so that a call that cannot run moves nothing);
// run() then calls the kernel. A kernel's call returns once the kernel is queued: whatever lapis does
// next runs on the same execution space instance, after it. Memory lent by another library
// (from_dlpack) is used on that library's own streams as soon as the call returns, so run()
// finishes a kernel that touches any: every kernel's arguments pass through here, so none can
// forget to.
class PythonCall {
 public:
  explicit PythonCall(const char* kernel) : kernel_(kernel) {}

  template <class T, std::size_t Rank>
  Typed<const T, Rank> input(const char* name, const Buffer& buffer) {
    note(buffer);
    return typed<const T, Rank>(kernel_, name, buffer);
  }

  // An argument the kernel writes: its output, or one it updates in place.
  template <class T, std::size_t Rank>
  Typed<T, Rank> written(const char* name, const Buffer& buffer) {
    require_writable(*buffer, Side::device, std::string(kernel_) + ": " + name);
    note(buffer);
    return typed<T, Rank>(kernel_, name, buffer);
  }

  // An elementwise operand: an array or rank-0 DualView, or a number.
  template <class T>
  kernels::Argument<T> operand(const OperandArg& arg) {
    if (arg.buffer) note(arg.buffer);
    return {arg.buffer, static_cast<T>(arg.value)};
  }

  template <class Kernel>
  auto run(const Kernel& kernel) {
    if constexpr (std::is_void_v<decltype(kernel())>) {
      kernel();
      finish();
    } else {
      auto result = kernel();
      finish();
      return result;
    }
  }

 private:
  void note(const Buffer& buffer) { borrowed_ = borrowed_ || buffer->borrowed(Side::device); }
  void finish() const {
    if (borrowed_) DefaultDevice::execution_space().fence();
  }

  const char* kernel_;
  bool borrowed_ = false;
};

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

template <class F>
void with_types(ElementType type, ElementType index, F&& f) {
  with_type(type, [&](auto t) {
    if (index == ElementType::int32) return f(t, std::int32_t{});
    if (index != ElementType::int64)
      throw ElementTypeError(std::string("lapis's sparse kernels index in int32 or int64, not ") + name(index));
    f(t, std::int64_t{});
  });
}

// Runs kernel(a, b, out) on inputs and an output of rank `Rank`.
template <std::size_t Rank, class Kernel>
void binary(const char* kernel_name, ElementType type, const Buffer& a, const Buffer& b, const Buffer& out,
            const Kernel& kernel) {
  with_type(type, [&](auto t) {
    using T = decltype(t);
    PythonCall call(kernel_name);
    auto A = call.input<T, Rank>("a", a);
    auto B = call.input<T, Rank>("b", b);
    auto C = call.written<T, Rank>("out", out);
    call.run([&] { kernel(A, B, C); });
  });
}

// Runs kernel(call, T{}, out) for the output's rank (0 to 4) and element type, `out` being the
// typed DualView.
template <class Kernel>
void on_elementwise_output(const char* name, ElementType type, const Buffer& out, const Kernel& kernel) {
  with_rank<0>(name, "out", *out, [&](auto rank) {
    with_type(type, [&](auto t) {
      PythonCall call(name);
      auto C = call.written<decltype(t), rank>("out", out);
      kernel(call, t, C);
    });
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

void gemm(ElementType type, const Buffer& a, const Buffer& b, const Buffer& out) {
  binary<2>("gemm", type, a, b, out, [](auto&... args) { kernels::gemm(args...); });
}

void batched_gemm(ElementType type, const Buffer& a, const Buffer& b, const Buffer& out) {
  binary<3>("batched_gemm", type, a, b, out, [](auto&... args) { kernels::batched_gemm(args...); });
}

void matadd(ElementType type, const Buffer& a, const Buffer& b, const Buffer& out) {
  with_rank("matadd", "a", *a, [&](auto rank) {
    binary<rank>("matadd", type, a, b, out, [](auto&... args) { kernels::matadd(args...); });
  });
}

void maxpool_nchw(ElementType type, const Buffer& x, const Buffer& out, std::int64_t kernel_size, std::int64_t stride,
                  std::int64_t padding, std::int64_t dilation) {
  with_type(type, [&](auto t) {
    using T = decltype(t);
    PythonCall call("maxpool_nchw");
    auto X = call.input<T, 4>("x", x);
    auto Y = call.written<T, 4>("out", out);
    call.run([&] { kernels::maxpool_nchw(X, Y, kernels::Pool2d{kernel_size, stride, padding, dilation}); });
  });
}

void conv2d_nchw(ElementType type, const Buffer& x, const Buffer& w, const Buffer& bias, const Buffer& out,
                 std::int64_t stride, std::int64_t padding) {
  with_type(type, [&](auto t) {
    using T = decltype(t);
    PythonCall call("conv2d_nchw");
    auto X = call.input<T, 4>("x", x);
    auto W = call.input<T, 4>("w", w);
    auto Y = call.written<T, 4>("out", out);
    const kernels::Conv2d settings{stride, padding};
    if (bias) {
      auto B = call.input<T, 1>("bias", bias);
      call.run([&] { kernels::conv2d_nchw(X, W, B, Y, settings); });
    } else {
      call.run([&] { kernels::conv2d_nchw(X, W, Y, settings); });
    }
  });
}

void batchnorm_nchw(ElementType type, const Buffer& x, const Buffer& mean, const Buffer& var, const Buffer& weight,
                    const Buffer& bias, double eps, const Buffer& out) {
  with_type(type, [&](auto t) {
    using T = decltype(t);
    PythonCall call("batchnorm_nchw");
    auto X = call.input<T, 4>("x", x);
    auto M = call.input<T, 1>("mean", mean);
    auto V = call.input<T, 1>("var", var);
    auto W = call.input<T, 1>("weight", weight);
    auto B = call.input<T, 1>("bias", bias);
    auto Y = call.written<T, 4>("out", out);
    call.run([&] { kernels::batchnorm_nchw(X, M, V, W, B, eps, Y); });
  });
}

void global_avgpool_nchw(ElementType type, const Buffer& x, const Buffer& out) {
  with_type(type, [&](auto t) {
    using T = decltype(t);
    PythonCall call("global_avgpool_nchw");
    auto X = call.input<T, 4>("x", x);
    auto Y = call.written<T, 2>("out", out);
    call.run([&] { kernels::global_avgpool_nchw(X, Y); });
  });
}

void linear(ElementType type, const Buffer& x, const Buffer& weight, const Buffer& bias, const Buffer& out) {
  with_type(type, [&](auto t) {
    using T = decltype(t);
    PythonCall call("linear");
    auto X = call.input<T, 2>("x", x);
    auto W = call.input<T, 2>("weight", weight);
    auto B = call.input<T, 1>("bias", bias);
    auto Y = call.written<T, 2>("out", out);
    call.run([&] { kernels::linear(X, W, B, Y); });
  });
}

void spmv(ElementType type, ElementType index, const Buffer& indptr, const Buffer& indices, const Buffer& data,
          const Buffer& x, const Buffer& out, std::int64_t rows, std::int64_t columns) {
  kernels::detail::require_result_extents("spmv", "out", extents<1>("spmv", "out", *out),
                                          Extents<1>{spmv_shape(*indptr, *indices, *data, *x, rows, columns)[0]});
  with_types(type, index, [&](auto t, auto i) {
    using T = decltype(t);
    using I = decltype(i);
    PythonCall call("spmv");
    auto P = call.input<I, 1>("indptr", indptr);
    auto J = call.input<I, 1>("indices", indices);
    auto D = call.input<T, 1>("data", data);
    auto X = call.input<T, 1>("x", x);
    auto Y = call.written<T, 1>("out", out);
    call.run([&] { kernels::spmv_csr(P, J, D, X, Y); });
  });
}

void spmm_dcsr(ElementType type, ElementType index, const Buffer& rows, const Buffer& indptr, const Buffer& indices,
               const Buffer& data, const Buffer& b, const Buffer& out, std::int64_t nrows, std::int64_t columns) {
  const ShapeList result = spmm_dcsr_shape(*rows, *indptr, *indices, *data, *b, nrows, columns);
  kernels::detail::require_result_extents("spmm_dcsr", "out", extents<2>("spmm_dcsr", "out", *out),
                                          Extents<2>{result[0], result[1]});
  with_types(type, index, [&](auto t, auto i) {
    using T = decltype(t);
    using I = decltype(i);
    PythonCall call("spmm_dcsr");
    auto R = call.input<I, 1>("rows", rows);
    auto P = call.input<I, 1>("indptr", indptr);
    auto J = call.input<I, 1>("indices", indices);
    auto D = call.input<T, 1>("data", data);
    auto B = call.input<T, 2>("b", b);
    auto C = call.written<T, 2>("out", out);
    call.run([&] { kernels::spmm_dcsr(R, P, J, D, B, C); });
  });
}

std::vector<Buffer> sparse_matadd(ElementType type, ElementType index, const Buffer& a_indptr, const Buffer& a_indices,
                                  const Buffer& a_data, const Buffer& b_indptr, const Buffer& b_indices,
                                  const Buffer& b_data, std::int64_t rows, std::int64_t columns) {
  std::vector<Buffer> result;
  with_types(type, index, [&](auto t, auto i) {
    using T = decltype(t);
    using I = decltype(i);
    PythonCall call("sparse_matadd");
    auto ap = call.input<I, 1>("a.indptr", a_indptr);
    auto ai = call.input<I, 1>("a.indices", a_indices);
    auto ad = call.input<T, 1>("a.data", a_data);
    auto bp = call.input<I, 1>("b.indptr", b_indptr);
    auto bi = call.input<I, 1>("b.indices", b_indices);
    auto bd = call.input<T, 1>("b.data", b_data);
    auto c = call.run([&] { return kernels::sparse_matadd(ap, ai, ad, bp, bi, bd, rows, columns); });
    result = {c.indptr.buffer(), c.indices.buffer(), c.data.buffer()};
  });
  return result;
}

double dot(ElementType type, const Buffer& x, const Buffer& y) {
  return with_type(type, [&](auto t) -> double {
    using T = decltype(t);
    PythonCall call("dot");
    auto X = call.input<T, 1>("x", x);
    auto Y = call.input<T, 1>("y", y);
    return call.run([&] { return kernels::dot(X, Y); });
  });
}

void dot_into(ElementType type, const Buffer& x, const Buffer& y, const Buffer& out) {
  with_type(type, [&](auto t) {
    using T = decltype(t);
    PythonCall call("dot");
    auto X = call.input<T, 1>("x", x);
    auto Y = call.input<T, 1>("y", y);
    auto R = call.written<T, 0>("out", out);
    call.run([&] { kernels::dot(X, Y, R); });
  });
}

double norm2(ElementType type, const Buffer& x) {
  return with_type(type, [&](auto t) -> double {
    PythonCall call("norm");
    auto X = call.input<decltype(t), 1>("x", x);
    return call.run([&] { return kernels::norm2(X); });
  });
}

void norm2_into(ElementType type, const Buffer& x, const Buffer& out) {
  with_type(type, [&](auto t) {
    using T = decltype(t);
    PythonCall call("norm");
    auto X = call.input<T, 1>("x", x);
    auto R = call.written<T, 0>("out", out);
    call.run([&] { kernels::norm2(X, R); });
  });
}

void arithmetic(kernels::Operation op, ElementType type, const OperandArg& x, const OperandArg& y, const Buffer& out) {
  on_elementwise_output(kernels::name(op), type, out, [&](PythonCall& call, auto t, auto& C) {
    using T = decltype(t);
    auto X = call.operand<T>(x);
    auto Y = call.operand<T>(y);
    call.run([&] { kernels::arithmetic(op, X, Y, C); });
  });
}

void axpby(ElementType type, const OperandArg& alpha, const OperandArg& x, const OperandArg& beta, const OperandArg& y,
           const Buffer& out) {
  on_elementwise_output("axpby", type, out, [&](PythonCall& call, auto t, auto& C) {
    using T = decltype(t);
    auto A = call.operand<T>(alpha);
    auto X = call.operand<T>(x);
    auto B = call.operand<T>(beta);
    auto Y = call.operand<T>(y);
    call.run([&] { kernels::axpby(A, X, B, Y, C); });
  });
}

void cg_step(ElementType type, const Buffer& rz, const Buffer& pq, const Buffer& p, const Buffer& q, const Buffer& x,
             const Buffer& r, const Buffer& rr) {
  with_type(type, [&](auto t) {
    using T = decltype(t);
    PythonCall call("cg_step");
    auto X = call.written<T, 1>("x", x);
    auto R = call.written<T, 1>("r", r);
    auto RR = call.written<T, 0>("rr", rr);
    auto RZ = call.input<T, 0>("rz", rz);
    auto PQ = call.input<T, 0>("pq", pq);
    auto P = call.input<T, 1>("p", p);
    auto Q = call.input<T, 1>("q", q);
    call.run([&] { kernels::cg_step(RZ, PQ, P, Q, X, R, RR); });
  });
}

void cg_precondition(ElementType type, const Buffer& m, const Buffer& r, const Buffer& z, const Buffer& rz) {
  with_type(type, [&](auto t) {
    using T = decltype(t);
    PythonCall call("cg_precondition");
    auto Z = call.written<T, 1>("z", z);
    auto RZ = call.written<T, 0>("rz", rz);
    auto M = call.input<T, 1>("m", m);
    auto R = call.input<T, 1>("r", r);
    call.run([&] { kernels::cg_precondition(M, R, Z, RZ); });
  });
}

void cg_direction(ElementType type, const Buffer& z, const Buffer& rz, const Buffer& rz_old, const Buffer& p) {
  with_type(type, [&](auto t) {
    using T = decltype(t);
    PythonCall call("cg_direction");
    auto P = call.written<T, 1>("p", p);
    auto Z = call.input<T, 1>("z", z);
    auto RZ = call.input<T, 0>("rz", rz);
    auto RZ_OLD = call.input<T, 0>("rz_old", rz_old);
    call.run([&] { kernels::cg_direction(Z, RZ, RZ_OLD, P); });
  });
}

}  // namespace lapis::python
