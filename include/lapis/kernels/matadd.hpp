// C = A + B, elementwise, for views of equal extents and rank 1 to 4.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "lapis/kernels/dualview_args.hpp"
#include "lapis/kernels/elementwise.hpp"

namespace lapis::kernels {

template <std::size_t Rank>
Extents<Rank> matadd_extents(const Extents<Rank>& a, const Extents<Rank>& b) {
  if (a != b) detail::refuse("matadd", "shapes " + detail::shape_text(a) + " and " + detail::shape_text(b) + " differ");
  return a;
}

template <class ExecutionSpace, class AView, class BView, class CView>
void matadd(const ExecutionSpace& exec, const AView& A, const BView& B, const CView& C) {
  constexpr std::size_t rank = static_cast<std::size_t>(CView::rank);
  static_assert(rank >= 1 && rank <= 4, "lapis::kernels::matadd: rank 1 to 4");
  std::int64_t extents[4] = {1, 1, 1, 1};
  for (std::size_t k = 0; k < rank; ++k) extents[k] = C.extent(k);
  Kokkos::parallel_for(
      "lapis::matadd", Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, C.size()),
      KOKKOS_LAMBDA(std::int64_t flat) {
        detail::at_flat_index<rank>(flat, extents, [&](auto... i) { C(i...) = A(i...) + B(i...); });
      });
}

template <class A, class B, class C, class = std::enable_if_t<detail::all_dual_views<A, B, C>>>
void matadd(A& a, B& b, C& c) {
  detail::require_result_extents("matadd", "out", extents_of(c), matadd_extents(extents_of(a), extents_of(b)));
  detail::on_device_sides([](const auto&... views) { matadd(views...); }, a, b, c);
}

}  // namespace lapis::kernels
