// Elementwise arithmetic with scalars: add, subtract, multiply, divide, maximum (numpy.maximum: a NaN
// wins; maximum(x, 0) is a ReLU) and axpby (alpha * x + beta * y), for arrays of rank 0 to 4. Each operand is an array of the result's
// shape or a scalar (a value, or a rank-0 DualView read on the device). The output may be one of
// the inputs (an update in place).
#pragma once

#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>
#include <vector>

#include "lapis/kernels/dualview_args.hpp"
#include "lapis/kernels/elementwise.hpp"

namespace lapis::kernels {

struct Add {
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(T x, T y) const { return x + y; }
};
struct Subtract {
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(T x, T y) const { return x - y; }
};
struct Multiply {
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(T x, T y) const { return x * y; }
};
struct Divide {
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(T x, T y) const { return x / y; }
};
struct Maximum {
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(T x, T y) const { return x != x || x > y ? x : y; }
};

// alpha * x + beta * y, its scalars being Operands of their own (read once per element).
template <class Alpha, class Beta>
struct Axpby {
  Alpha alpha;
  Beta beta;
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(T x, T y) const { return alpha() * x + beta() * y; }
};

namespace detail {

template <class T>
inline constexpr bool operand_v = std::is_arithmetic_v<std::decay_t<T>> || is_dual_view_v<std::decay_t<T>>;

// An argument's extents for broadcast_extents: none for a value, {} for a rank-0 DualView.
template <class Arg>
void add_extents(std::vector<std::string>& names, std::vector<std::vector<std::int64_t>>& extents, const char* name,
                 const Arg& arg) {
  if constexpr (is_dual_view_v<std::decay_t<Arg>>) {
    const auto e = extents_of(arg);
    names.emplace_back(name);
    extents.emplace_back(e.begin(), e.end());
  }
}

// An argument as an operand of a kernel writing `Out`: a value, a rank-0 DualView broadcast over a
// larger output (read on the device), or the device side of an array, synced for reading.
template <class Out, class Arg>
auto operand(Arg& arg) {
  using T = typename Out::non_const_value_type;
  using Scalar = Operand<typename Out::t_dev_const>;
  if constexpr (std::is_arithmetic_v<std::decay_t<Arg>>) {
    return Scalar::value(static_cast<T>(arg));
  } else if constexpr (std::decay_t<Arg>::rank == 0 && Out::rank != 0) {
    return Scalar::on_device(input(arg).data());
  } else {
    auto view = input(arg);
    return Operand<decltype(view)>::array(view);
  }
}

// out = f(x, y) over DualViews and scalars, extents checked first.
template <class F, class X, class Y, class Out>
void elementwise_on_dual_views(const char* kernel, const F& f, X& x, Y& y, Out& out) {
  std::vector<std::string> names;
  std::vector<std::vector<std::int64_t>> extents;
  add_extents(names, extents, "x", x);
  add_extents(names, extents, "y", y);
  const auto result = broadcast_extents(kernel, names, extents);
  const auto actual = extents_of(out);
  if (std::vector<std::int64_t>(actual.begin(), actual.end()) != result)
    refuse(kernel, "out: shape " + shape_text(actual) + " does not match the result's " + shape_text(result));
  const RuntimeUse use;  // from taking the sides' addresses to queuing the kernel
  auto x_ = operand<Out>(x);
  auto y_ = operand<Out>(y);
  auto out_ = output(out);
  const ExecutionGuard guard;
  elementwise(kernel, typename Out::execution_space(), f, out_, x_, y_);
}

}  // namespace detail

template <class X, class Y, class Out, class = std::enable_if_t<detail::operand_v<X> && detail::operand_v<Y>>>
void add(X&& x, Y&& y, Out& out) {
  detail::elementwise_on_dual_views("add", Add{}, x, y, out);
}
template <class X, class Y, class Out, class = std::enable_if_t<detail::operand_v<X> && detail::operand_v<Y>>>
void subtract(X&& x, Y&& y, Out& out) {
  detail::elementwise_on_dual_views("subtract", Subtract{}, x, y, out);
}
template <class X, class Y, class Out, class = std::enable_if_t<detail::operand_v<X> && detail::operand_v<Y>>>
void multiply(X&& x, Y&& y, Out& out) {
  detail::elementwise_on_dual_views("multiply", Multiply{}, x, y, out);
}
template <class X, class Y, class Out, class = std::enable_if_t<detail::operand_v<X> && detail::operand_v<Y>>>
void divide(X&& x, Y&& y, Out& out) {
  detail::elementwise_on_dual_views("divide", Divide{}, x, y, out);
}
template <class X, class Y, class Out, class = std::enable_if_t<detail::operand_v<X> && detail::operand_v<Y>>>
void maximum(X&& x, Y&& y, Out& out) {
  detail::elementwise_on_dual_views("maximum", Maximum{}, x, y, out);
}

// out = alpha * x + beta * y; alpha and beta are values or rank-0 DualViews.
template <class Alpha, class X, class Beta, class Y, class Out,
          class = std::enable_if_t<detail::operand_v<Alpha> && detail::operand_v<Beta>>>
void axpby(Alpha&& alpha, X&& x, Beta&& beta, Y&& y, Out& out) {
  if constexpr (is_dual_view_v<std::decay_t<Alpha>>)
    static_assert(std::decay_t<Alpha>::rank == 0, "lapis::kernels::axpby: alpha is a scalar");
  if constexpr (is_dual_view_v<std::decay_t<Beta>>)
    static_assert(std::decay_t<Beta>::rank == 0, "lapis::kernels::axpby: beta is a scalar");
  using T = typename Out::non_const_value_type;
  using Scalar = Operand<Kokkos::View<const T, typename Out::t_dev::device_type>>;
  const RuntimeUse use;  // alpha's and beta's addresses are taken first
  const auto scalar = [](auto& s) {
    if constexpr (std::is_arithmetic_v<std::decay_t<decltype(s)>>)
      return Scalar::value(static_cast<T>(s));
    else
      return Scalar::on_device(detail::input(s).data());
  };
  detail::elementwise_on_dual_views("axpby", Axpby<Scalar, Scalar>{scalar(alpha), scalar(beta)}, x, y, out);
}

}  // namespace lapis::kernels
