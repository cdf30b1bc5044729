// What makes a lapis::DualView a subview: which part of the whole allocation it sees, and how its
// views are made (Kokkos::subview of the whole array's views, or views of a BufferPart). The
// extents and device strides are kept here too, so that asking for them allocates nothing.
#pragma once

#include <Kokkos_Core.hpp>

#include <array>
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace lapis::detail {

template <class DeviceView, class HostView>
struct Slice {
  static constexpr std::size_t rank = static_cast<std::size_t>(DeviceView::rank);
  std::array<std::size_t, rank> extents{};
  std::array<std::size_t, rank> device_strides{};  // in elements
  std::function<DeviceView()> device_view;
  std::function<HostView()> host_view;
};

template <class T, class = void>
struct is_index_pair : std::false_type {};
template <class T>
struct is_index_pair<T, std::void_t<decltype(std::declval<T>().first), decltype(std::declval<T>().second)>>
    : std::bool_constant<std::is_integral_v<std::decay_t<decltype(std::declval<T>().first)>> &&
                         std::is_integral_v<std::decay_t<decltype(std::declval<T>().second)>>> {};

template <class Arg>
inline constexpr bool is_subview_argument = std::is_integral_v<Arg> || is_index_pair<Arg>::value ||
                                            std::is_same_v<Arg, std::decay_t<decltype(Kokkos::ALL)>>;

// Whether index i lies in [0, bound].
template <class Index>
constexpr bool at_most(Index i, std::size_t bound) noexcept {
  if constexpr (std::is_signed_v<Index>)
    if (i < 0) return false;
  return static_cast<std::size_t>(i) <= bound;
}

// The extents a subview of `extents` by `args` keeps, and the dimensions of `extents` they run along
// (each taken from `dims`): an
// index drops its dimension, Kokkos::ALL keeps it whole, a [first, second) pair keeps that range.
// Throws std::out_of_range for an index or range outside its extent (Kokkos checks only in debug
// builds, and aborts).
template <std::size_t SubRank, std::size_t Rank, class... Args>
std::pair<std::array<std::size_t, SubRank>, std::array<std::size_t, SubRank>> slice_of(
    const std::array<std::size_t, Rank>& extents, const std::array<std::size_t, Rank>& dims, const Args&... args) {
  static_assert(sizeof...(Args) == Rank, "lapis::subview: one argument per dimension");
  static_assert((is_subview_argument<Args> && ...),
                "lapis::subview: each argument is an index, Kokkos::ALL or a pair of indices");
  std::array<std::size_t, SubRank> kept_extents{}, kept_dims{};
  std::size_t d = 0, kept = 0;
  const auto refuse = [&](const std::string& what) {
    throw std::out_of_range("lapis::subview: " + what + " is outside extent " + std::to_string(extents[d]) +
                            " of dimension " + std::to_string(d));
  };
  const auto take = [&](const auto& arg) {
    using Arg = std::decay_t<decltype(arg)>;
    if constexpr (std::is_integral_v<Arg>) {
      if (!at_most(arg, extents[d]) || static_cast<std::size_t>(arg) == extents[d])
        refuse("index " + std::to_string(arg));
    } else if constexpr (is_index_pair<Arg>::value) {
      if (!at_most(arg.first, extents[d]) || !at_most(arg.second, extents[d]) ||
          static_cast<std::size_t>(arg.second) < static_cast<std::size_t>(arg.first))
        refuse("range [" + std::to_string(arg.first) + ", " + std::to_string(arg.second) + ")");
      kept_extents[kept] = static_cast<std::size_t>(arg.second) - static_cast<std::size_t>(arg.first);
      kept_dims[kept++] = dims[d];
    } else {
      kept_extents[kept] = extents[d];
      kept_dims[kept++] = dims[d];
    }
    ++d;
  };
  (take(args), ...);
  return {kept_extents, kept_dims};
}

}  // namespace lapis::detail
