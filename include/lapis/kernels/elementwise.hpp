// Visiting every element of a view of rank 1 to 4 in one flat parallel loop, whatever its layout.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace lapis::kernels::detail {

// Calls f(i0, ..., i{R-1}) for the element at C-order position `flat` of a view with `extents`.
template <std::size_t Rank, class F>
KOKKOS_INLINE_FUNCTION void at_flat_index(std::int64_t flat, const std::int64_t (&extents)[4], const F& f) {
  std::int64_t i[4] = {0, 0, 0, 0};
  for (std::size_t k = Rank; k-- > 0;) {
    i[k] = flat % extents[k];
    flat /= extents[k];
  }
  if constexpr (Rank == 1) f(i[0]);
  else if constexpr (Rank == 2) f(i[0], i[1]);
  else if constexpr (Rank == 3) f(i[0], i[1], i[2]);
  else f(i[0], i[1], i[2], i[3]);
}

}  // namespace lapis::kernels::detail
