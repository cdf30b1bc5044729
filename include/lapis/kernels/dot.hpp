// The dot product of two vectors; the scalar comes back through a Kokkos reduction (it is not a
// DualView, and not counted in the transfer statistics).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

#include "lapis/kernels/dualview_args.hpp"

namespace lapis::kernels {

inline void check_dot_extents(const Extents<1>& x, const Extents<1>& y) {
  if (x != y) detail::refuse("dot", "lengths differ (" + std::to_string(x[0]) + " and " + std::to_string(y[0]) + ")");
}

template <class ExecutionSpace, class XView, class YView>
typename XView::non_const_value_type dot(const ExecutionSpace& exec, const XView& x, const YView& y) {
  using T = typename XView::non_const_value_type;
  T result = 0;
  Kokkos::parallel_reduce(
      "lapis::dot", Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, x.extent(0)),
      KOKKOS_LAMBDA(std::int64_t i, T & sum) { sum += x(i) * y(i); }, result);
  return result;
}

template <class X, class Y, class = std::enable_if_t<detail::all_dual_views<X, Y>>>
auto dot(X& x, Y& y) {
  check_dot_extents(extents_of(x), extents_of(y));
  const RuntimeUse use;  // from taking the sides' addresses to queuing the kernel
  auto X_ = detail::input(x);
  auto Y_ = detail::input(y);
  const ExecutionGuard guard;
  return dot(typename X::execution_space(), X_, Y_);
}

}  // namespace lapis::kernels
