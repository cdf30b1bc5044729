// The dot product and the 2-norm of vectors, either as a host scalar (the reduction waits for the
// device and hands its value back: not a DualView, and not counted in the transfer statistics) or
// into a rank-0 DualView that stays on the device, where later kernels read it in place (a solver
// keeps its scalars there).
#pragma once

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <string>

#include "lapis/execution/kernel_call.hpp"
#include "lapis/execution/reduction.hpp"
#include "lapis/execution/unit_stride.hpp"

namespace lapis::kernels {

inline void check_dot_extents(const Extents<1>& x, const Extents<1>& y) {
  if (x != y) detail::refuse("dot", "lengths differ (" + std::to_string(x[0]) + " and " + std::to_string(y[0]) + ")");
}

namespace detail {
template <class ExecutionSpace, class XView, class YView, class Result>
void dot_loop(const ExecutionSpace& exec, const XView& x, const YView& y, Result& result) {
  using T = typename XView::non_const_value_type;
  reduce_each_index(
      "lapis::dot", exec, static_cast<std::int64_t>(x.extent(0)),
      KOKKOS_LAMBDA(std::int64_t i, T& sum) { sum += x(i) * y(i); }, result);
}
}  // namespace detail

// `result` is a host scalar (the call waits) or a rank-0 device view (the call returns once queued).
template <class ExecutionSpace, class XView, class YView, class Result>
void dot(const ExecutionSpace& exec, const XView& x, const YView& y, Result& result) {
  if (detail::strided_by_one(x) && detail::strided_by_one(y)) {
    detail::dot_loop(exec, detail::unit_stride(x), detail::unit_stride(y), result);
  } else {
    detail::dot_loop(exec, x, y, result);
  }
}

template <class ExecutionSpace, class XView, class YView>
typename XView::non_const_value_type dot(const ExecutionSpace& exec, const XView& x, const YView& y) {
  typename XView::non_const_value_type result = 0;
  dot(exec, x, y, result);
  return result;
}

// sqrt(x . x) into a rank-0 device view.
template <class ExecutionSpace, class XView, class ResultView>
void norm2(const ExecutionSpace& exec, const XView& x, const ResultView& result) {
  dot(exec, x, x, result);
  Kokkos::parallel_for(
      "lapis::norm2(sqrt)", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, 1),
      KOKKOS_LAMBDA(int) { result() = detail::sqrt(result()); });
}

template <class X, class Y, class = std::enable_if_t<detail::all_dual_views<X, Y>>>
auto dot(X& x, Y& y) {
  check_dot_extents(extents_of(x), extents_of(y));
  return detail::on_device_sides(
      "dot", [](const auto&... views) { return dot(views...); }, detail::reads(x), detail::reads(y));
}

// x . y into the rank-0 DualView `out` (its device side, marked modified): nothing is copied.
template <class X, class Y, class Out, class = std::enable_if_t<detail::all_dual_views<X, Y, Out>>>
void dot(X& x, Y& y, Out& out) {
  static_assert(Out::rank == 0, "lapis::kernels::dot: out is a rank-0 DualView");
  check_dot_extents(extents_of(x), extents_of(y));
  detail::on_device_sides(
      "dot", [](const auto& exec, const auto& x_, const auto& y_, auto out_) { dot(exec, x_, y_, out_); },
      detail::reads(x), detail::reads(y), detail::writes(out));
}

template <class X, class = std::enable_if_t<detail::all_dual_views<X>>>
auto norm2(X& x) {
  return std::sqrt(dot(x, x));
}

template <class X, class Out, class = std::enable_if_t<detail::all_dual_views<X, Out>>>
void norm2(X& x, Out& out) {
  static_assert(Out::rank == 0, "lapis::kernels::norm2: out is a rank-0 DualView");
  detail::on_device_sides(
      "norm2", [](const auto&... views) { norm2(views...); }, detail::reads(x), detail::writes(out));
}

}  // namespace lapis::kernels
