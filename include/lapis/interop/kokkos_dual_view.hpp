// Conversions between Kokkos::DualView and lapis::DualView that share the two views (nothing is
// copied): existing Kokkos code hands its DualViews to lapis, and gets lapis's back. The two kinds
// keep their own modified flags: a conversion carries the pending mark over once, when it is made.
#pragma once

#include <Kokkos_DualView.hpp>

#include "lapis/dualview.hpp"

namespace lapis {

// A lapis::DualView of type LapisDualView over a Kokkos::DualView's views.
template <class LapisDualView, class DataType, class... Properties>
LapisDualView from_kokkos(const Kokkos::DualView<DataType, Properties...>& kokkos) {
  static_assert(is_dual_view_v<LapisDualView>, "lapis::from_kokkos: the result type must be a lapis::DualView");
  LapisDualView dv(kokkos.view_device(), kokkos.view_host());
  if (kokkos.need_sync_device()) dv.modify_host();
  else if (kokkos.need_sync_host()) dv.modify_device();
  return dv;
}

// A Kokkos::DualView over a lapis::DualView's views (which keep lapis's buffer alive).
template <class DataType, class... Properties>
auto to_kokkos(const DualView<DataType, Properties...>& dv) {
  using Lapis = DualView<DataType, Properties...>;
  Kokkos::DualView<DataType, typename Lapis::array_layout, typename Lapis::device_type> kokkos(dv.view_device(),
                                                                                               dv.view_host());
  if (dv.need_sync_device()) kokkos.modify_host();
  else if (dv.need_sync_host()) kokkos.modify_device();
  return kokkos;
}

}  // namespace lapis
