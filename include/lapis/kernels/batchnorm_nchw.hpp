// Batch normalization of an NCHW array in inference form, as torch.nn.BatchNorm2d in eval mode:
// out(n, c, h, w) = (x(n, c, h, w) - mean(c)) / sqrt(var(c) + eps) * weight(c) + bias(c).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

#include "lapis/kernels/dot.hpp"
#include "lapis/execution/kernel_call.hpp"
#include "lapis/execution/multi_index_loop.hpp"

namespace lapis::kernels {

// The result's extents (x's), or std::invalid_argument unless each per-channel array has x's C entries and
// eps >= 0.
inline Extents<4> batchnorm_nchw_extents(const Extents<4>& x, const Extents<1>& mean, const Extents<1>& var,
                                         const Extents<1>& weight, const Extents<1>& bias, double eps) {
  const char* names[] = {"mean", "var", "weight", "bias"};
  const Extents<1>* arrays[] = {&mean, &var, &weight, &bias};
  for (int k = 0; k < 4; ++k)
    if ((*arrays[k])[0] != x[1])
      detail::refuse("batchnorm_nchw", std::string(names[k]) + ": has " + std::to_string((*arrays[k])[0]) +
                                           " entries; x has " + std::to_string(x[1]) + " channels");
  if (!(eps >= 0)) detail::refuse("batchnorm_nchw", "eps must be >= 0");
  return x;
}

template <class ExecutionSpace, class XView, class MView, class VView, class WView, class BView, class OutView>
void batchnorm_nchw(const ExecutionSpace& exec, const XView& x, const MView& mean, const VView& var,
                    const WView& weight, const BView& bias, double eps, const OutView& out) {
  using T = typename OutView::non_const_value_type;
  const T epsilon = T(eps);
  const detail::BoxExtents extents = {std::int64_t(out.extent(0)), std::int64_t(out.extent(1)),
                                      std::int64_t(out.extent(2)), std::int64_t(out.extent(3))};
  detail::for_each_multi_index<4>(
      "lapis::batchnorm_nchw", exec, extents,
      KOKKOS_LAMBDA(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w) {
        out(n, c, h, w) = (x(n, c, h, w) - mean(c)) / detail::sqrt(T(var(c)) + epsilon) * weight(c) + bias(c);
      });
}

template <class X, class M, class V, class Wt, class B, class Out,
          class = std::enable_if_t<detail::all_dual_views<X, M, V, Wt, B, Out>>>
void batchnorm_nchw(X& x, M& mean, V& var, Wt& weight, B& bias, double eps, Out& out) {
  detail::require_result_extents("batchnorm_nchw", "out", extents_of(out),
                                 batchnorm_nchw_extents(extents_of(x), extents_of(mean), extents_of(var),
                                                        extents_of(weight), extents_of(bias), eps));
  detail::on_device_sides(
      "batchnorm_nchw",
      [eps](const auto& exec, const auto& x_, const auto& mean_, const auto& var_, const auto& weight_,
            const auto& bias_, const auto& out_) { batchnorm_nchw(exec, x_, mean_, var_, weight_, bias_, eps, out_); },
      detail::reads(x), detail::reads(mean), detail::reads(var), detail::reads(weight), detail::reads(bias),
      detail::writes(out));
}

}  // namespace lapis::kernels
