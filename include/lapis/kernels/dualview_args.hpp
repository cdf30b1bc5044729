// How kernels take lapis::DualView arguments: the device side of each input, synced according to
// its sync policy, and the device side of the output for overwriting (nothing uploaded, marked
// modified). Every kernel here overwrites its whole output.
#pragma once

#include "lapis/dualview.hpp"

namespace lapis::kernels::detail {

template <class DV>
auto input(DV& dv) {
  return dv.view_device();
}

template <class DV>
auto output(DV& dv) {
  return dv.view_device_for_overwrite();
}

template <class... T>
inline constexpr bool all_dual_views = (is_dual_view_v<T> && ...);

}  // namespace lapis::kernels::detail
