// A typed, unmanaged Kokkos::View over one side of a type-erased buffer (or of a part of one).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "lapis/core/shape.hpp"

namespace lapis {

// How a view of layout `Layout` addresses an array of `shape` with byte `strides`: LayoutStride any
// non-negative strides that are multiples of the element size; LayoutRight / LayoutLeft an array
// laid out in their order, where a rank-2 view may have a padded leading stride (as Kokkos's own
// subviews of rank 2 do: a range of columns keeps LayoutRight).
enum class LayoutFit { none, direct, padded };

template <class Layout, std::size_t Rank>
LayoutFit layout_fit(const Shape& shape, const Strides& strides) {
  if constexpr (std::is_same_v<Layout, Kokkos::LayoutStride>) {
    return strides_fit_view(shape, strides) ? LayoutFit::direct : LayoutFit::none;
  } else {
    constexpr bool right = std::is_same_v<Layout, Kokkos::LayoutRight>;
    if (is_contiguous(shape, strides, right ? Order::right : Order::left)) return LayoutFit::direct;
    if constexpr (Rank == 2) {
      const std::size_t lead = right ? 0 : 1, inner = 1 - lead;
      const auto item = static_cast<std::ptrdiff_t>(shape.itemsize);
      if ((strides[inner] == item || shape.extents[inner] <= 1) && item != 0 &&
          strides[lead] >= item * static_cast<std::ptrdiff_t>(shape.extents[inner]) && strides[lead] % item == 0)
        return LayoutFit::padded;
    }
    return LayoutFit::none;
  }
}

// A view of type ViewType over `data`, which holds an array of `shape` with byte `strides` that
// ViewType's layout can address (layout_fit; std::invalid_argument otherwise). The view does not
// own the memory.
template <class ViewType>
ViewType make_view(void* data, const Shape& shape, const Strides& strides) {
  using value_type = typename ViewType::non_const_value_type;
  using layout_type = typename ViewType::array_layout;
  constexpr std::size_t rank = static_cast<std::size_t>(ViewType::rank);
  auto* const first = static_cast<value_type*>(data);
  const LayoutFit fit = layout_fit<layout_type, rank>(shape, strides);
  if (fit == LayoutFit::none)
    throw std::invalid_argument("lapis: a view of this layout cannot address an array of shape " + shape_text(shape) +
                                " with these strides (take it as a LayoutStride view)");
  if constexpr (!std::is_same_v<layout_type, Kokkos::LayoutStride> && rank == 2) {
    if (fit == LayoutFit::padded) {
      // the columns (rows) before the padding of a contiguous array of `padded` columns (rows)
      constexpr bool right = std::is_same_v<layout_type, Kokkos::LayoutRight>;
      const std::size_t lead = right ? 0 : 1, inner = 1 - lead;
      const auto padded = static_cast<std::size_t>(strides[lead]) / sizeof(value_type);
      using Unmanaged = Kokkos::View<value_type**, layout_type, typename ViewType::device_type,
                                     Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
      const std::pair<std::size_t, std::size_t> used(0, shape.extents[inner]);
      if constexpr (right)
        return ViewType(Kokkos::subview(Unmanaged(first, shape.extents[0], padded), Kokkos::ALL, used));
      else return ViewType(Kokkos::subview(Unmanaged(first, padded, shape.extents[1]), used, Kokkos::ALL));
    }
  }
  layout_type layout;
  for (std::size_t i = 0; i != rank; ++i) {
    layout.dimension[i] = shape.extents[i];
    if constexpr (std::is_same_v<layout_type, Kokkos::LayoutStride>)
      layout.stride[i] = static_cast<std::size_t>(strides[i]) / sizeof(value_type);
  }
  return ViewType(first, layout);
}

}  // namespace lapis
