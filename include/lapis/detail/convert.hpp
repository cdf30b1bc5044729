// Copies an array of any byte strides into a C-contiguous one, in parallel on an execution space,
// converting each element as numpy's astype does between bool, integer and real floating types; a
// copy between equal types works for every element type (float16 and complex included). Lets
// type-erased code (Python's DualView.copy and astype) copy on the side that holds the data.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "lapis/core/element_type.hpp"
#include "lapis/runtime/execution_lock.hpp"
#include "lapis/core/shape.hpp"
#include "lapis/detail/strided_index.hpp"

namespace lapis {
namespace detail {

struct Item16 {
  std::uint64_t low, high;
};

// One element as numpy's astype converts it: floats to integers truncated toward zero, then wrapped
// into the target's range as an int64 is (-1.0 to uint8 is 255), uint64 taking [2**63, 2**64) as it
// is. Where numpy's results come from its build's instructions instead (NaN, infinities, floats below
// -2**63 or from 2**63 on, from 2**64 on for uint64), lapis gives 0.
template <class To, class From>
KOKKOS_INLINE_FUNCTION To converted(From x) {
  if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To> && !std::is_same_v<To, bool>) {
    constexpr double two_63 = 9223372036854775808.0;
    const double value = static_cast<double>(x);
    if constexpr (std::is_same_v<To, std::uint64_t>)
      if (value >= two_63 && value < 2 * two_63) return static_cast<std::uint64_t>(value);
    if (!(value >= -two_63 && value < two_63)) return To(0);  // NaN included
    return static_cast<To>(static_cast<std::int64_t>(value));
  } else {
    return static_cast<To>(x);
  }
}

template <class To, class From, class ExecutionSpace>
void convert_typed(const ExecutionSpace& exec, void* to, const void* from, const Shape& shape, const Strides& strides) {
  auto* out = static_cast<To*>(to);
  const auto* in = static_cast<const unsigned char*>(from);
  const StridedIndex at(shape, strides);
  const ExecutionGuard guard;
  Kokkos::parallel_for(
      "lapis::convert_items", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, shape.size()), KOKKOS_LAMBDA(std::size_t i) {
        From item;
        memcpy(&item, in + at(i), sizeof(From));  // a borrowed side may be misaligned
        out[i] = converted<To>(item);
      });
}

// Calls f(T{}) for the C++ type T of a bool, integer or real floating element type (the rows of
// LAPIS_ELEMENT_TYPES with a C++ type and a kind other than complex); false for any other.
template <class F>
bool with_real_type(ElementType type, F&& f) {
  switch (type) {
#define LAPIS_REAL_TYPE_CASE(element, cpp, name, itemsize, kind, ...) \
  case ElementType::element:                                          \
    if constexpr (!std::is_void_v<cpp> && (kind) != 'c') {            \
      return f(cpp{}), true;                                          \
    } else {                                                          \
      return false;                                                   \
    }
    LAPIS_ELEMENT_TYPES(LAPIS_REAL_TYPE_CASE)
#undef LAPIS_REAL_TYPE_CASE
  }
  return false;
}

// Calls f(T{}) for an unsigned type T of `itemsize` bytes (Item16 for 16).
template <class F>
void with_item_of_size(std::size_t itemsize, F&& f) {
  switch (itemsize) {
    case 1: return f(std::uint8_t{});
    case 2: return f(std::uint16_t{});
    case 4: return f(std::uint32_t{});
    case 8: return f(std::uint64_t{});
    case 16: return f(Item16{});
    default:
      throw std::invalid_argument("lapis::convert_items: no item type of " + std::to_string(itemsize) + " bytes");
  }
}

}  // namespace detail

// `from` holds an array of `shape` (elements shape.element) with byte `strides`; `to` receives it
// C-contiguous as `to_type` elements. Throws std::invalid_argument for types it cannot convert
// between. Queued on `exec`: fence it before reading `to` elsewhere.
template <class ExecutionSpace>
void convert_items(const ExecutionSpace& exec, void* to, ElementType to_type, const void* from, const Shape& shape,
                   const Strides& strides) {
  if (shape.size() == 0) return;
  if (to_type == shape.element) {
    detail::with_item_of_size(shape.itemsize, [&](auto item) {
      using Item = decltype(item);
      detail::convert_typed<Item, Item>(exec, to, from, shape, strides);
    });
    return;
  }
  bool converted = false;
  detail::with_real_type(shape.element, [&](auto from_item) {
    converted = detail::with_real_type(to_type, [&](auto to_item) {
      detail::convert_typed<decltype(to_item), decltype(from_item)>(exec, to, from, shape, strides);
    });
  });
  if (!converted)
    throw std::invalid_argument(std::string("lapis: cannot convert ") + name(shape.element) + " elements to " +
                                name(to_type) + " (conversions are between bool, integer and float32/float64 types)");
}

}  // namespace lapis
