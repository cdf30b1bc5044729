// Global average pooling of an NCHW array to (N, C), as torch.nn.AdaptiveAvgPool2d(1) followed by a
// flatten: out(n, c) = the mean of x(n, c, :, :).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "lapis/execution/kernel_call.hpp"
#include "lapis/execution/multi_index_loop.hpp"

namespace lapis::kernels {

inline Extents<2> global_avgpool_nchw_extents(const Extents<4>& x) {
  if (x[2] * x[3] == 0) detail::refuse("global_avgpool_nchw", "x: an empty image has no mean");
  return {x[0], x[1]};
}

template <class ExecutionSpace, class XView, class OutView>
void global_avgpool_nchw(const ExecutionSpace& exec, const XView& x, const OutView& out) {
  using T = typename OutView::non_const_value_type;
  const std::int64_t H = x.extent(2), W = x.extent(3);
  const detail::BoxExtents extents = {std::int64_t(out.extent(0)), std::int64_t(out.extent(1))};
  detail::for_each_multi_index<2>(
      "lapis::global_avgpool_nchw", exec, extents, KOKKOS_LAMBDA(std::int64_t n, std::int64_t c) {
        T sum = 0;
        for (std::int64_t h = 0; h < H; ++h)
          for (std::int64_t w = 0; w < W; ++w) sum += x(n, c, h, w);
        out(n, c) = sum / T(H * W);
      });
}

template <class X, class Out, class = std::enable_if_t<detail::all_dual_views<X, Out>>>
void global_avgpool_nchw(X& x, Out& out) {
  detail::require_result_extents("global_avgpool_nchw", "out", extents_of(out),
                                 global_avgpool_nchw_extents(extents_of(x)));
  detail::on_device_sides(
      "global_avgpool_nchw", [](const auto&... views) { global_avgpool_nchw(views...); }, detail::reads(x),
      detail::writes(out));
}

}  // namespace lapis::kernels
