// The byte offset of the i-th element, in C order, of an array with any byte strides: what
// type-erased kernels (fill_items, convert_items) use to walk a DualView side of any rank.
#pragma once

#include <Kokkos_Core.hpp>

#include <array>
#include <cstddef>

#include "lapis/core/shape.hpp"

namespace lapis::detail {

struct StridedIndex {
  std::size_t rank;
  std::array<std::size_t, max_rank> extents;
  Strides strides;

  StridedIndex(const Shape& shape, const Strides& side_strides)
      : rank(shape.rank), extents(shape.extents), strides(side_strides) {}

  KOKKOS_INLINE_FUNCTION std::ptrdiff_t operator()(std::size_t i) const {
    std::ptrdiff_t offset = 0;
    for (std::size_t k = rank; k-- > 0;) {
      offset += static_cast<std::ptrdiff_t>(i % extents[k]) * strides[k];
      i /= extents[k];
    }
    return offset;
  }
};

}  // namespace lapis::detail
