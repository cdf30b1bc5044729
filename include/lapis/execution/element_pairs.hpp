// The GPU's form of a rank-1 elementwise loop (elementwise.hpp): each index of the loop does two
// elements, 256 apart, and reads both elements' operands before it writes either result. With one
// element per index, a thread's loads wait for nothing but leave the memory system one request in
// flight per thread; two, issued together, hide more of its latency. On an H100, a 1M-element
// float64 add: 6.3 us with one element per thread, 5.0 us with two (a device-to-device copy of one
// array: 4.5 us), measured side by side; at 8M, every shape runs at the memory's rate. An output
// that is one of the inputs stays fine: each element is read before it is written, by one thread.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace lapis::kernels::detail {

// Elements of a group: index j does elements j and j + pair_distance of its group of 2 * pair_distance
// elements, so that consecutive indices (a warp) read consecutive memory in each of their two loads.
inline constexpr std::int64_t pair_distance = 256;

template <class F, class Out, class X, class Y>
struct ElementPairs {
  F f;
  Out out;
  X x;
  Y y;
  std::int64_t count;

  // The loop's indices: pair_distance per group, the last group's missing elements skipped.
  std::int64_t indices() const { return (count + 2 * pair_distance - 1) / (2 * pair_distance) * pair_distance; }

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t j) const {
    const std::int64_t first = j / pair_distance * (2 * pair_distance) + j % pair_distance;
    const std::int64_t second = first + pair_distance;
    if (second < count) {
      const auto x0 = x(first), y0 = y(first), x1 = x(second), y1 = y(second);
      out(first) = f(x0, y0);
      out(second) = f(x1, y1);
    } else if (first < count) {
      out(first) = f(x(first), y(first));
    }
  }
};

}  // namespace lapis::kernels::detail
