// What the nanobind and pybind11 test modules bind (tests/modules/nanobind/, tests/modules/pybind11/),
// written once: functions on typed lapis::DualViews that run Kokkos kernels of their own.
#pragma once

#include <lapis/dualview.hpp>

#include <cstddef>

namespace probe {

using Vector =
    lapis::DualView<double*, Kokkos::LayoutRight, lapis::DefaultDevice, lapis::sync::Lazy, lapis::alloc::DeviceFirst>;
using Range = Kokkos::RangePolicy<lapis::DefaultDevice::execution_space>;

// factor * x, as a new DualView left on the device: nothing is downloaded until the host reads it.
inline Vector scale(Vector x, double factor) {
  // First, so that it outlives the views: lapis.finalize() on another thread waits until it goes,
  // and once finalize has begun it throws RuntimeFinalizedError before anything touches Kokkos.
  const lapis::RuntimeUse use;
  Vector result(lapis::for_overwrite, "probe.scale", x.extent(0));
  const auto in = x.view_device(lapis::Access::read);  // a numpy x is uploaded here (counted, guarded)
  const auto out = result.view_device(lapis::Access::overwrite);
  const lapis::ExecutionGuard guard;  // around the dispatch alone: views and syncs take it themselves
  Kokkos::parallel_for(
      "probe::scale", Range(0, in.extent(0)), KOKKOS_LAMBDA(std::size_t i) { out(i) = factor * in(i); });
  return result;
}

// Every element of x set to value, in place: a numpy x holds it when the call returns (the DualView
// made for the call writes the device side back into the array as it goes).
inline void fill(Vector x, double value) {
  const lapis::RuntimeUse use;
  const auto view = x.view_device(lapis::Access::overwrite);  // nothing uploaded: all of it is written
  const lapis::ExecutionGuard guard;
  Kokkos::parallel_for("probe::fill", Range(0, view.extent(0)), KOKKOS_LAMBDA(std::size_t i) { view(i) = value; });
}

}  // namespace probe
