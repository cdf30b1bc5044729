// Fills contiguous memory with copies of one element given as raw bytes, in parallel on an
// execution space: lets type-erased code (Python's lapis.full) fill any element type.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstring>
#include <stdexcept>

namespace lapis {

inline constexpr std::size_t max_itemsize = 16;  // complex<double>

namespace detail {
struct ItemBytes {
  unsigned char bytes[max_itemsize];
};
}  // namespace detail

template <class ExecutionSpace>
void fill_items(const ExecutionSpace& exec, void* data, std::size_t count, const void* item, std::size_t itemsize) {
  if (itemsize > max_itemsize) throw std::invalid_argument("lapis::fill_items: item larger than 16 bytes");
  detail::ItemBytes pattern{};
  std::memcpy(pattern.bytes, item, itemsize);
  auto* out = static_cast<unsigned char*>(data);
  Kokkos::parallel_for(
      "lapis::fill_items", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, count), KOKKOS_LAMBDA(std::size_t i) {
        for (std::size_t b = 0; b < itemsize; ++b) out[i * itemsize + b] = pattern.bytes[b];
      });
  exec.fence();
}

}  // namespace lapis
