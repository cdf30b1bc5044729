// Elementwise arithmetic with scalars: add, subtract, multiply, divide, maximum (numpy.maximum: a NaN
// wins; maximum(x, 0) is a ReLU) and axpby (alpha * x + beta * y), for arrays of rank 0 to 4. Each
// operand is an array of the result's shape or a scalar (a value, or a rank-0 DualView read on the
// device). The output may be one of the inputs (an update in place).
//
// An operand's kind is known at compile time (a number, a typed DualView) or only at run time (an
// Argument: what a binding such as lapis.kernels has); both go through the same checks and kernel.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "lapis/core/any_dual_buffer.hpp"
#include "lapis/detail/data_type.hpp"
#include "lapis/execution/kernel_call.hpp"
#include "lapis/execution/elementwise.hpp"
#include "lapis/kernels/operation.hpp"

namespace lapis::kernels {

// Each Operation as a functor of its own, named as the Operation.
namespace operations {
#define LAPIS_BINARY_OPERATION(operation, expression)     \
  struct operation {                                      \
    template <class T>                                    \
    KOKKOS_INLINE_FUNCTION T operator()(T x, T y) const { \
      return expression;                                  \
    }                                                     \
  };
LAPIS_BINARY_OPERATION(add, x + y)
LAPIS_BINARY_OPERATION(subtract, x - y)
LAPIS_BINARY_OPERATION(multiply, x* y)
LAPIS_BINARY_OPERATION(divide, x / y)
LAPIS_BINARY_OPERATION(maximum, x != x || x > y ? x : y)  // numpy.maximum: a NaN wins
#undef LAPIS_BINARY_OPERATION
}  // namespace operations

// The operations, chosen at run time by one kernel (the branch is the same for every element).
struct Arithmetic {
  Operation op;
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(T x, T y) const {
    switch (op) {
#define LAPIS_OPERATION_CASE(operation) \
  case Operation::operation: return operations::operation{}(x, y);
      LAPIS_OPERATIONS(LAPIS_OPERATION_CASE)
#undef LAPIS_OPERATION_CASE
    }
    return T{};  // not an Operation
  }
};

// Arithmetic with its operation chosen once, for a loop over many elements (contiguous_runs.hpp).
template <class Continue>
void resolved(const Arithmetic& f, const Continue& next) {
  switch (f.op) {
#define LAPIS_OPERATION_CASE(operation) \
  case Operation::operation: return next(operations::operation{});
    LAPIS_OPERATIONS(LAPIS_OPERATION_CASE)
#undef LAPIS_OPERATION_CASE
  }
}

// alpha * x + beta * y, its scalars being Operands of their own (read once per element).
template <class Alpha, class Beta>
struct Axpby {
  Alpha alpha;
  Beta beta;
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(T x, T y) const {
    return alpha() * x + beta() * y;
  }
};

// alpha * x + beta * y with its scalars read once.
template <class T>
struct ScaledSum {
  T alpha, beta;
  T operator()(T x, T y) const { return alpha * x + beta * y; }
};

// Axpby with its scalars read once, on the host, as the kernel runs (contiguous_runs.hpp).
template <class Alpha, class Beta, class Continue>
void resolved(const Axpby<Alpha, Beta>& f, const Continue& next) {
  next(ScaledSum<typename Alpha::value_type>{f.alpha(), f.beta()});
}

// An operand whose kind is known only at run time: a number (`buffer` empty), or a buffer of T
// elements, which is a scalar read on the device when its rank is 0 and an array of the output's
// shape otherwise.
template <class T>
struct Argument {
  std::shared_ptr<AnyDualBuffer> buffer;
  T value{};
};

template <class T>
struct is_argument : std::false_type {};
template <class T>
struct is_argument<Argument<T>> : std::true_type {};

namespace detail {

template <class T>
inline constexpr bool operand_v =
    std::is_arithmetic_v<std::decay_t<T>> || is_dual_view_v<std::decay_t<T>> || is_argument<std::decay_t<T>>::value;

// An argument's extents, added to `extents`: none for a value, {} for a scalar.
template <class Arg>
void add_extents(BroadcastExtents& extents, const char* name, const Arg& arg) {
  if constexpr (is_dual_view_v<std::decay_t<Arg>>) {
    const auto e = extents_of(arg);
    extents.add(name, e.data(), e.data() + e.size());
  } else if constexpr (is_argument<std::decay_t<Arg>>::value) {
    if (!arg.buffer) return;
    const Shape& shape = arg.buffer->shape();
    extents.add(name, shape.extents.data(), shape.extents.data() + shape.rank);
  }
}

// Throws std::invalid_argument unless `arg` is a scalar (a value or a rank-0 array).
template <class Arg>
void require_scalar(const char* kernel, const char* name, const Arg& arg) {
  if constexpr (is_dual_view_v<std::decay_t<Arg>>) {
    static_assert(std::decay_t<Arg>::rank == 0, "lapis::kernels: this operand is a scalar");
  } else if constexpr (is_argument<std::decay_t<Arg>>::value) {
    if (arg.buffer && arg.buffer->shape().rank != 0)
      refuse(kernel, std::string(name) + ": expected a scalar (a number or a 0-d array), got shape " +
                         shape_text(arg.buffer->shape()));
  }
}

// An argument as an operand of a kernel writing `Out`: a value, a rank-0 DualView broadcast over a
// larger output (read on the device), or the device side of an array, synced for reading.
template <class Out, class Arg>
auto operand(const KernelCall& call, const char* name, Arg& arg) {
  using T = typename Out::non_const_value_type;
  using Result = Operand<typename Out::t_dev_const>;
  using Array = DualView<data_type_t<const T, Out::rank>, Kokkos::LayoutStride, typename Out::device_type>;
  using Rank0 = DualView<const T, Kokkos::LayoutStride, typename Out::device_type>;
  if constexpr (std::is_arithmetic_v<std::decay_t<Arg>>) {
    return Result::value(static_cast<T>(arg));
  } else if constexpr (is_argument<std::decay_t<Arg>>::value) {
    if (!arg.buffer) return Result::value(static_cast<T>(arg.value));
    if (arg.buffer->shape().rank == 0 && Out::rank != 0) {
      Rank0 scalar(arg.buffer);
      return Result::on_device(call.reads(scalar).data());
    }
    if (arg.buffer->shape().rank != Out::rank)
      refuse(call.name(),
             std::string(name) + ": shape " + shape_text(arg.buffer->shape()) + " does not fit the result");
    Array array(arg.buffer);
    return Result::array(call.reads(array));
  } else if constexpr (std::decay_t<Arg>::rank == 0 && Out::rank != 0) {
    return Result::on_device(call.reads(arg).data());
  } else {
    return Result::array(call.reads(arg));
  }
}

// The result's extents of out = f(x, y), checked: the operands' one shape, scalars fitting any.
template <class X, class Y>
BroadcastExtents result_extents(const char* kernel, const X& x, const Y& y) {
  BroadcastExtents extents(kernel);
  add_extents(extents, "x", x);
  add_extents(extents, "y", y);
  return extents.result();
}

// out = f(x, y) over DualViews, Arguments and values, the call `call`, extents checked first.
template <class F, class X, class Y, class Out>
void elementwise_on_dual_views(const KernelCall& call, const F& f, X& x, Y& y, Out& out) {
  require_result_extents(call.name(), "out", extents_of(out), result_extents(call.name(), x, y));
  auto x_ = operand<Out>(call, "x", x);
  auto y_ = operand<Out>(call, "y", y);
  auto out_ = call.writes(out);
  call.launch<typename Out::execution_space>(
      [&](const auto& exec) { elementwise(call.name(), exec, f, out_, x_, y_); });
}

}  // namespace detail

// out = x op y, each operand a number, a DualView or an Argument; out may be x or y.
template <class X, class Y, class Out, class = std::enable_if_t<detail::operand_v<X> && detail::operand_v<Y>>>
void arithmetic(Operation op, X&& x, Y&& y, Out& out) {
  const detail::KernelCall call(name(op));
  detail::elementwise_on_dual_views(call, Arithmetic{op}, x, y, out);
}
// add(x, y, out), subtract(x, y, out), ...: arithmetic with each Operation.
#define LAPIS_OPERATION_FUNCTION(operation)                                                                      \
  template <class X, class Y, class Out, class = std::enable_if_t<detail::operand_v<X> && detail::operand_v<Y>>> \
  void operation(X&& x, Y&& y, Out& out) {                                                                       \
    arithmetic(Operation::operation, x, y, out);                                                                 \
  }
LAPIS_OPERATIONS(LAPIS_OPERATION_FUNCTION)
#undef LAPIS_OPERATION_FUNCTION

// out = alpha * x + beta * y; alpha and beta are scalars: values, rank-0 DualViews or Arguments.
template <class Alpha, class X, class Beta, class Y, class Out,
          class = std::enable_if_t<detail::operand_v<Alpha> && detail::operand_v<Beta>>>
void axpby(Alpha&& alpha, X&& x, Beta&& beta, Y&& y, Out& out) {
  detail::require_scalar("axpby", "alpha", alpha);
  detail::require_scalar("axpby", "beta", beta);
  using Rank0 = DualView<typename Out::non_const_value_type, Kokkos::LayoutRight, typename Out::device_type>;
  const detail::KernelCall call("axpby");
  auto a = detail::operand<Rank0>(call, "alpha", alpha);
  auto b = detail::operand<Rank0>(call, "beta", beta);
  detail::elementwise_on_dual_views(call, Axpby<decltype(a), decltype(b)>{a, b}, x, y, out);
}

}  // namespace lapis::kernels
