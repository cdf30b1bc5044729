// Kokkos::subview's arguments (an index, Kokkos::ALL, a [first, second) pair) as the dimensions of
// a selection (core/part.hpp), whose bounds lapis::slice checks for every kind of part.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "lapis/core/part.hpp"

namespace lapis::detail {

template <class T, class = void>
struct is_index_pair : std::false_type {};
template <class T>
struct is_index_pair<T, std::void_t<decltype(std::declval<T>().first), decltype(std::declval<T>().second)>>
    : std::bool_constant<std::is_integral_v<std::decay_t<decltype(std::declval<T>().first)>> &&
                         std::is_integral_v<std::decay_t<decltype(std::declval<T>().second)>>> {};

// Dimension `d` (of extent `extent`) as the subview argument `arg` selects it. Throws
// std::out_of_range for what Kokkos::subview never takes and a Python slice means otherwise (a
// negative index, a pair whose second comes before its first); the bounds are lapis::slice's to
// check, for every kind of part.
template <class Arg>
SliceDimension slice_dimension(const Arg& arg, std::size_t extent, std::size_t d) {
  const auto refuse = [&](const std::string& what) {
    throw std::out_of_range("lapis::subview: " + what + " is outside extent " + std::to_string(extent) +
                            " of dimension " + std::to_string(d));
  };
  const auto checked = [&](auto i) {
    if constexpr (std::is_signed_v<decltype(i)>)
      if (i < 0) refuse("index " + std::to_string(i));
    if (static_cast<std::uint64_t>(i) > static_cast<std::uint64_t>(INT64_MAX)) refuse("index " + std::to_string(i));
    return static_cast<std::int64_t>(i);
  };
  if constexpr (std::is_integral_v<Arg>) {
    return SliceDimension{true, checked(arg), 0, 1};
  } else if constexpr (is_index_pair<Arg>::value) {
    const std::int64_t first = checked(arg.first), second = checked(arg.second);
    if (second < first) refuse("range [" + std::to_string(first) + ", " + std::to_string(second) + ")");
    return SliceDimension{false, first, second, 1};
  } else {
    static_assert(std::is_same_v<Arg, std::decay_t<decltype(Kokkos::ALL)>>,
                  "lapis::subview: each argument is an index, Kokkos::ALL or a pair of indices");
    return SliceDimension{false, 0, static_cast<std::int64_t>(extent), 1};
  }
}

}  // namespace lapis::detail
