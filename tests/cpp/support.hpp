// What the C++ test suites share: the two devices every test runs on, and small device kernels.
// The kernels live in free functions because CUDA forbids device lambdas in a test body.
#pragma once

#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include "lapis/dualview.hpp"
#include "lapis/core/transfer_stats.hpp"

namespace lapis::test {

// The default device (sides alias on a CPU build) and the simulated device (sides apart).
using Devices = ::testing::Types<DefaultDevice, SimulatedDevice>;

template <class Device>
constexpr bool apart = !device_traits<Device>::shares_host_memory;

inline TransferStats counts(std::uint64_t h2d, std::uint64_t h2d_bytes, std::uint64_t d2h, std::uint64_t d2h_bytes) {
  return {h2d, h2d_bytes, d2h, d2h_bytes};
}

template <class View>
using exec_of = typename View::execution_space;

// v(i, j) = offset + 10 i + j
template <class View>
void fill_pattern(const View& v, double offset) {
  Kokkos::parallel_for(
      "fill_pattern", Kokkos::RangePolicy<exec_of<View>>(0, v.extent(0)), KOKKOS_LAMBDA(int i) {
        for (std::size_t j = 0; j < v.extent(1); ++j) v(i, j) = offset + 10 * i + j;
      });
  Kokkos::fence();
}

// v(i, j) = sign * (C-order position of (i, j))
template <class View>
void fill_positions(const View& v, double sign) {
  const int columns = v.extent(1);
  Kokkos::parallel_for(
      "fill_positions", Kokkos::RangePolicy<exec_of<View>>(0, v.extent(0) * v.extent(1)),
      KOKKOS_LAMBDA(int k) { v(k / columns, k % columns) = sign * k; });
  Kokkos::fence();
}

// v(i, 0) = first, v(i, 1) = second
template <class View>
void fill_columns(const View& v, double first, double second) {
  Kokkos::parallel_for(
      "fill_columns", Kokkos::RangePolicy<exec_of<View>>(0, v.extent(0)), KOKKOS_LAMBDA(int i) {
        v(i, 0) = first;
        v(i, 1) = second;
      });
  Kokkos::fence();
}

template <class View>
void increment(const View& v) {
  Kokkos::parallel_for(
      "increment", Kokkos::RangePolicy<exec_of<View>>(0, v.extent(0)), KOKKOS_LAMBDA(int i) { v(i) += 1; });
  Kokkos::fence();
}

// v(i) = value, written on the device.
template <class View>
void set_device_value(const View& v, int i, typename View::non_const_value_type value) {
  Kokkos::parallel_for(
      "set_device_value", Kokkos::RangePolicy<exec_of<View>>(0, 1), KOKKOS_LAMBDA(int) { v(i) = value; });
  Kokkos::fence();
}

// One element of a device view, read on the device.
template <class View>
double read_element(const View& v, int i, int j) {
  double value = 0;
  Kokkos::parallel_reduce(
      "read_element", Kokkos::RangePolicy<exec_of<View>>(0, 1), KOKKOS_LAMBDA(int, double& out) { out = v(i, j); },
      value);
  return value;
}

}  // namespace lapis::test
