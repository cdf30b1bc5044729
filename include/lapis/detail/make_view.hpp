// A typed, unmanaged Kokkos::View over one side of a type-erased buffer.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <type_traits>

#include "lapis/core/shape.hpp"

namespace lapis {

// `data` holds an array of `shape` with byte `strides`; ViewType's layout is LayoutStride (any
// non-negative strides that are multiples of the element size) or, for contiguous data, the
// layout the data has. The view does not own the memory.
template <class ViewType>
ViewType make_view(void* data, const Shape& shape, const Strides& strides) {
  using value_type = typename ViewType::non_const_value_type;
  constexpr std::size_t rank = static_cast<std::size_t>(ViewType::rank);
  typename ViewType::array_layout layout;
  for (std::size_t i = 0; i != rank; ++i) {
    layout.dimension[i] = shape.extents[i];
    if constexpr (std::is_same_v<typename ViewType::array_layout, Kokkos::LayoutStride>)
      layout.stride[i] = static_cast<std::size_t>(strides[i]) / sizeof(value_type);
  }
  return ViewType(static_cast<value_type*>(data), layout);
}

}  // namespace lapis
