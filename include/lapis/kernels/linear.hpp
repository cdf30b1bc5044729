// A fully connected layer, as torch.nn.Linear: out = x @ weight^T + bias for x of (N, F), weight of
// (O, F) and bias of O.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

#include "lapis/execution/kernel_call.hpp"
#include "lapis/execution/multi_index_loop.hpp"
#include "lapis/execution/matrix_product.hpp"

namespace lapis::kernels {

inline Extents<2> linear_extents(const Extents<2>& x, const Extents<2>& weight, const Extents<1>& bias) {
  if (weight[1] != x[1])
    detail::refuse("linear",
                   "weight: has " + std::to_string(weight[1]) + " input features; x has " + std::to_string(x[1]));
  if (bias[0] != weight[0])
    detail::refuse("linear", "bias: has " + std::to_string(bias[0]) + " entries; weight has " +
                                 std::to_string(weight[0]) + " outputs");
  return {x[0], weight[0]};
}

// The bias in every row, then x weight^T added through the vendor BLAS (matrix_product.hpp).
template <class ExecutionSpace, class XView, class WView, class BView, class OutView>
void linear(const ExecutionSpace& exec, const XView& x, const WView& weight, const BView& bias, const OutView& out) {
  const detail::BoxExtents extents = {std::int64_t(out.extent(0)), std::int64_t(out.extent(1))};
  detail::for_each_multi_index<2>(
      "lapis::linear_bias", exec, extents, KOKKOS_LAMBDA(std::int64_t n, std::int64_t o) { out(n, o) = bias(o); });
  matrix_product(exec, Transpose::no, x, Transpose::yes, weight, out, /*accumulate=*/true);
}

template <class X, class Wt, class B, class Out, class = std::enable_if_t<detail::all_dual_views<X, Wt, B, Out>>>
void linear(X& x, Wt& weight, B& bias, Out& out) {
  detail::require_result_extents("linear", "out", extents_of(out),
                                 linear_extents(extents_of(x), extents_of(weight), extents_of(bias)));
  detail::on_device_sides(
      "linear", [](const auto&... views) { linear(views...); }, detail::reads(x), detail::reads(weight),
      detail::reads(bias), detail::writes(out));
}

}  // namespace lapis::kernels
