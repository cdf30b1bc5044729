// 2-D convolution (cross-correlation, as torch.nn.Conv2d computes it) of an NCHW array x with
// weights of shape (K, C, R, S), an optional bias of K, a stride and a zero padding equal in both
// dimensions: out(n, k, p, q) = bias(k) + sum over c, r, s of x(n, c, p*stride - padding + r,
// q*stride - padding + s) * w(k, c, r, s). A direct kernel: one thread per output element.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

#include "lapis/kernels/dualview_args.hpp"

namespace lapis::kernels {

struct Conv2d {
  std::int64_t stride = 1, padding = 0;
};

// The extents of the result, or std::invalid_argument for arguments torch would refuse.
inline Extents<4> conv2d_nchw_extents(const Extents<4>& x, const Extents<4>& w, const Conv2d& c) {
  if (c.stride < 1 || c.padding < 0) detail::refuse("conv2d_nchw", "stride must be positive and padding >= 0");
  if (w[1] != x[1])
    detail::refuse("conv2d_nchw", "w: has " + std::to_string(w[1]) + " input channels; x has " + std::to_string(x[1]));
  const std::int64_t h = x[2] + 2 * c.padding - w[2], v = x[3] + 2 * c.padding - w[3];
  if (h < 0 || v < 0)
    detail::refuse("conv2d_nchw", "the kernel " + detail::shape_text(w) + " is larger than the padded input " +
                                      detail::shape_text(x));
  return {x[0], w[0], h / c.stride + 1, v / c.stride + 1};
}

inline void check_conv2d_bias_extents(const Extents<4>& w, const Extents<1>& bias) {
  if (bias[0] != w[0])
    detail::refuse("conv2d_nchw", "bias: has " + std::to_string(bias[0]) + " entries; w has " + std::to_string(w[0]) +
                                      " output channels");
}

// `bias` may be an empty view (no bias).
template <class ExecutionSpace, class XView, class WView, class BView, class OutView>
void conv2d_nchw(const ExecutionSpace& exec, const XView& x, const WView& w, const BView& bias, const OutView& out,
                 const Conv2d& c) {
  using T = typename OutView::non_const_value_type;
  using Policy = Kokkos::MDRangePolicy<ExecutionSpace, Kokkos::Rank<4>, Kokkos::IndexType<std::int64_t>>;
  const std::int64_t C = x.extent(1), H = x.extent(2), W = x.extent(3), R = w.extent(2), S = w.extent(3);
  const bool biased = bias.extent(0) != 0;
  Kokkos::parallel_for(
      "lapis::conv2d_nchw",
      Policy(exec, {0, 0, 0, 0},
             {std::int64_t(out.extent(0)), std::int64_t(out.extent(1)), std::int64_t(out.extent(2)),
              std::int64_t(out.extent(3))}),
      KOKKOS_LAMBDA(std::int64_t n, std::int64_t k, std::int64_t p, std::int64_t q) {
        T sum = biased ? T(bias(k)) : T(0);
        for (std::int64_t ch = 0; ch < C; ++ch)
          for (std::int64_t r = 0; r < R; ++r) {
            const std::int64_t h = p * c.stride - c.padding + r;
            if (h < 0 || h >= H) continue;
            for (std::int64_t s = 0; s < S; ++s) {
              const std::int64_t v = q * c.stride - c.padding + s;
              if (v >= 0 && v < W) sum += x(n, ch, h, v) * w(k, ch, r, s);
            }
          }
        out(n, k, p, q) = sum;
      });
}

namespace detail {
// Runs the kernel on the DualViews' device sides; bias_view() gives the bias's (called with the
// runtime held).
template <class X, class Wt, class Out, class BiasView>
void conv2d_on_device_sides(X& x, Wt& w, Out& out, const Conv2d& c, const BiasView& bias_view) {
  require_result_extents("conv2d_nchw", "out", extents_of(out), conv2d_nchw_extents(extents_of(x), extents_of(w), c));
  const RuntimeUse use;  // from taking the sides' addresses to queuing the kernel
  auto x_ = input(x);
  auto w_ = input(w);
  auto b_ = bias_view();
  auto out_ = output(out);
  const ExecutionGuard guard;
  conv2d_nchw(typename Out::execution_space(), x_, w_, b_, out_, c);
}
}  // namespace detail

template <class X, class Wt, class Out, class = std::enable_if_t<detail::all_dual_views<X, Wt, Out>>>
void conv2d_nchw(X& x, Wt& w, Out& out, const Conv2d& c) {
  using NoBias = Kokkos::View<const typename Out::non_const_value_type*, typename Out::t_dev::device_type>;
  detail::conv2d_on_device_sides(x, w, out, c, [] { return NoBias(); });
}

template <class X, class Wt, class B, class Out, class = std::enable_if_t<detail::all_dual_views<X, Wt, B, Out>>>
void conv2d_nchw(X& x, Wt& w, B& bias, Out& out, const Conv2d& c) {
  check_conv2d_bias_extents(extents_of(w), extents_of(bias));
  detail::conv2d_on_device_sides(x, w, out, c, [&] { return detail::input(bias); });
}

}  // namespace lapis::kernels
