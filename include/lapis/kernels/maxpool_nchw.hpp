// 2-D max pooling of an NCHW array with the semantics of torch.nn.MaxPool2d (square kernel, equal
// stride, padding and dilation in both dimensions): padding never wins the max, and a NaN in a
// window propagates.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <stdexcept>

#include "lapis/execution/kernel_call.hpp"
#include "lapis/execution/multi_index_loop.hpp"

namespace lapis::kernels {

struct Pool2d {
  std::int64_t kernel_size = 3, stride = 1, padding = 1, dilation = 2;

  // Output extent along a dimension of `n`; throws std::invalid_argument for settings torch refuses.
  std::int64_t output_extent(std::int64_t n) const {
    if (kernel_size < 1 || stride < 1 || dilation < 1 || padding < 0)
      throw std::invalid_argument("maxpool_nchw: kernel_size, stride and dilation must be positive, padding >= 0");
    if (padding > kernel_size / 2)
      throw std::invalid_argument("maxpool_nchw: padding must be at most half of kernel_size");
    const std::int64_t out = (n + 2 * padding - dilation * (kernel_size - 1) - 1) / stride + 1;
    if (n + 2 * padding - dilation * (kernel_size - 1) - 1 < 0 || out < 1)
      throw std::invalid_argument("maxpool_nchw: the input is too small for this kernel: the output would be empty");
    return out;
  }
};

inline Extents<4> maxpool_nchw_extents(const Extents<4>& x, const Pool2d& p) {
  return {x[0], x[1], p.output_extent(x[2]), p.output_extent(x[3])};
}

template <class ExecutionSpace, class XView, class YView>
void maxpool_nchw(const ExecutionSpace& exec, const XView& X, const YView& Y, const Pool2d& p) {
  using T = typename YView::non_const_value_type;
  const std::int64_t H = X.extent(2), W = X.extent(3);
  const T lowest = -std::numeric_limits<T>::infinity();
  const detail::BoxExtents extents = {std::int64_t(Y.extent(0)), std::int64_t(Y.extent(1)), std::int64_t(Y.extent(2)),
                                      std::int64_t(Y.extent(3))};
  detail::for_each_multi_index<4>(
      "lapis::maxpool_nchw", exec, extents,
      KOKKOS_LAMBDA(std::int64_t n, std::int64_t c, std::int64_t oh, std::int64_t ow) {
        T best = lowest;
        for (std::int64_t kh = 0; kh < p.kernel_size; ++kh) {
          const std::int64_t h = oh * p.stride - p.padding + kh * p.dilation;
          if (h < 0 || h >= H) continue;
          for (std::int64_t kw = 0; kw < p.kernel_size; ++kw) {
            const std::int64_t w = ow * p.stride - p.padding + kw * p.dilation;
            if (w < 0 || w >= W) continue;
            const T v = X(n, c, h, w);
            if (v > best || v != v) best = v;
            if (best != best) break;
          }
          if (best != best) break;
        }
        Y(n, c, oh, ow) = best;
      });
}

template <class X, class Y, class = std::enable_if_t<detail::all_dual_views<X, Y>>>
void maxpool_nchw(X& x, Y& y, const Pool2d& p) {
  detail::require_result_extents("maxpool_nchw", "out", extents_of(y), maxpool_nchw_extents(extents_of(x), p));
  detail::on_device_sides(
      "maxpool_nchw", [&p](const auto& exec, const auto& x_, const auto& y_) { maxpool_nchw(exec, x_, y_, p); },
      detail::reads(x), detail::writes(y));
}

}  // namespace lapis::kernels
