// Extents, item size and byte strides of one side of a DualView, independent of the element type.
// The type-erased core works on these, so that Python's many dtypes and ranks share one compiled
// implementation.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "lapis/core/element_type.hpp"

namespace lapis {

inline constexpr std::size_t max_rank = 8;

// Byte strides, one per dimension; may be negative or zero for borrowed memory.
using Strides = std::array<std::ptrdiff_t, max_rank>;

// Element order of a contiguous side: right = C order (last index fastest), left = Fortran order.
enum class Order { right, left };

struct Shape {
  std::size_t rank = 0;
  std::array<std::size_t, max_rank> extents{};
  std::size_t itemsize = 1;
  ElementType element = ElementType::opaque;

  // Throws std::invalid_argument when the element count or byte size does not fit a size_t.
  std::size_t size() const {
    std::size_t n = 1;
    for (std::size_t i = 0; i < rank; ++i) {
      if (extents[i] != 0 && n > std::numeric_limits<std::size_t>::max() / extents[i]) too_big();
      n *= extents[i];
    }
    return n;
  }
  std::size_t nbytes() const {
    const std::size_t n = size();
    if (itemsize != 0 && n > std::numeric_limits<std::ptrdiff_t>::max() / itemsize) too_big();
    return n * itemsize;
  }

 private:
  [[noreturn]] static void too_big() { throw std::invalid_argument("array is too big"); }
};

inline Strides contiguous_strides(const Shape& shape, Order order) {
  Strides strides{};
  std::ptrdiff_t step = static_cast<std::ptrdiff_t>(shape.itemsize);
  for (std::size_t k = 0; k < shape.rank; ++k) {
    const std::size_t i = order == Order::right ? shape.rank - 1 - k : k;
    strides[i] = step;
    step *= static_cast<std::ptrdiff_t>(shape.extents[i] == 0 ? 1 : shape.extents[i]);
  }
  return strides;
}

// True when `strides` address the elements exactly as a contiguous array in `order` would.
// Dimensions of extent 1 may have any stride (as numpy reports them).
inline bool is_contiguous(const Shape& shape, const Strides& strides, Order order) {
  const Strides expected = contiguous_strides(shape, order);
  for (std::size_t i = 0; i < shape.rank; ++i)
    if (shape.extents[i] > 1 && strides[i] != expected[i]) return false;
  return true;
}

// True when a Kokkos::LayoutStride view can address memory with these strides: they must be
// non-negative multiples of the item size.
inline bool strides_fit_view(const Shape& shape, const Strides& strides) {
  const auto item = static_cast<std::ptrdiff_t>(shape.itemsize);
  for (std::size_t i = 0; i < shape.rank; ++i)
    if (strides[i] < 0 || (item != 0 && strides[i] % item != 0)) return false;
  return true;
}

// True when `data` is aligned for elements of `itemsize` bytes (the largest power of two dividing
// the item size, at most 8: stricter than a complex number needs, never looser), as a kernel
// reading it as typed elements requires. A field of a packed structured array may not be.
inline bool aligned_for_items(const void* data, std::size_t itemsize) {
  std::size_t alignment = 1;
  while (alignment < 8 && itemsize % (alignment * 2) == 0) alignment *= 2;
  return reinterpret_cast<std::uintptr_t>(data) % alignment == 0;
}

// As Python writes shapes: "(2, 3)", "(4,)", "()".
template <class ExtentList>
std::string shape_text(const ExtentList& extents) {
  std::string text = "(";
  for (std::size_t i = 0; i < extents.size(); ++i) text += (i ? ", " : "") + std::to_string(extents[i]);
  return text + (extents.size() == 1 ? ",)" : ")");
}
inline std::string shape_text(const Shape& shape) {
  return shape_text(std::vector<std::size_t>(shape.extents.begin(), shape.extents.begin() + shape.rank));
}

}  // namespace lapis
