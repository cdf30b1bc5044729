// Copies the elements two views of one rank have in common (each extent the smaller of the two):
// what a resize keeps.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
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

}  // namespace lapis::detail
