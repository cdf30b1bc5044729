// Fills an array with copies of one element given as raw bytes, in parallel on an
// execution space: lets type-erased code (Python's lapis.full) fill any element type.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstring>
#include <stdexcept>

#include "lapis/runtime/execution_lock.hpp"
#include "lapis/core/shape.hpp"
#include "lapis/detail/strided_index.hpp"

namespace lapis {

inline constexpr std::size_t max_itemsize = 16;  // complex<double>

namespace detail {
struct ItemBytes {
  unsigned char bytes[max_itemsize];
};
}  // namespace detail

// `data` addresses an array of `shape` with byte `strides` (as a DualView side may be: a borrowed
// buffer that the device shares has the caller's strides). Queued on `exec`: the item is copied.
template <class ExecutionSpace>
void fill_items(const ExecutionSpace& exec, void* data, const Shape& shape, const Strides& strides, const void* item) {
  const std::size_t itemsize = shape.itemsize;
  if (itemsize > max_itemsize) throw std::invalid_argument("lapis::fill_items: item larger than 16 bytes");
  detail::ItemBytes pattern{};
  std::memcpy(pattern.bytes, item, itemsize);
  auto* base = static_cast<unsigned char*>(data);
  const detail::StridedIndex at(shape, strides);
  const ExecutionGuard guard;
  Kokkos::parallel_for(
      "lapis::fill_items", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, shape.size()), KOKKOS_LAMBDA(std::size_t i) {
        const std::ptrdiff_t offset = at(i);
        for (std::size_t b = 0; b < itemsize; ++b) base[offset + static_cast<std::ptrdiff_t>(b)] = pattern.bytes[b];
      });
}

}  // namespace lapis
