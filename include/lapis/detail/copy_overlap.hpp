// Copies the elements two views of one rank have in common (each extent the smaller of the two):
// what a resize keeps. copy_overlap copies bytes (Kokkos::deep_copy); assign_overlap assigns element
// by element on the host, in order, for elements that are not bytes (Views, types holding Views).
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <utility>

#include "lapis/runtime/execution_lock.hpp"

namespace lapis::detail {

template <class To, class From, std::size_t... I>
void copy_overlap(const To& to, const From& from, std::index_sequence<I...>) {
  if constexpr (sizeof...(I) == 0) {
    Kokkos::deep_copy(to, from);
  } else {
    const auto overlap = [&](std::size_t i) {
      return std::make_pair(std::size_t{0}, std::min<std::size_t>(to.extent(i), from.extent(i)));
    };
    Kokkos::deep_copy(Kokkos::subview(to, overlap(I)...), Kokkos::subview(from, overlap(I)...));
  }
}

template <class To, class From>
void copy_overlap(const To& to, const From& from) {
  static_assert(To::rank == From::rank);
  const ExecutionGuard guard;
  copy_overlap(to, from, std::make_index_sequence<To::rank>{});
}

template <class To, class From, std::size_t... I>
void assign_overlap(const To& to, const From& from, std::index_sequence<I...>) {
  const std::array<std::size_t, sizeof...(I)> common{std::min<std::size_t>(to.extent(I), from.extent(I))...};
  const std::size_t total = (std::size_t{1} * ... * common[I]);
  std::array<std::size_t, sizeof...(I)> index{};
  for (std::size_t n = 0; n < total; ++n) {
    std::size_t rest = n;
    for (std::size_t r = sizeof...(I); r-- > 0;) {
      index[r] = rest % common[r];
      rest /= common[r];
    }
    to(index[I]...) = from(index[I]...);
  }
}

template <class To, class From>
void assign_overlap(const To& to, const From& from) {
  static_assert(To::rank == From::rank);
  assign_overlap(to, from, std::make_index_sequence<To::rank>{});
}

}  // namespace lapis::detail
