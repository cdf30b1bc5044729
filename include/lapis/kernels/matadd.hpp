// C = A + B, elementwise, for views of equal extents and rank 1 to 4.
#pragma once

#include <Kokkos_Core.hpp>

#include "lapis/kernels/arithmetic.hpp"
#include "lapis/execution/kernel_call.hpp"

namespace lapis::kernels {

template <std::size_t Rank>
Extents<Rank> matadd_extents(const Extents<Rank>& a, const Extents<Rank>& b) {
  if (a != b) detail::refuse("matadd", "shapes " + detail::shape_text(a) + " and " + detail::shape_text(b) + " differ");
  return a;
}

template <class ExecutionSpace, class AView, class BView, class CView>
void matadd(const ExecutionSpace& exec, const AView& A, const BView& B, const CView& C) {
  static_assert(CView::rank >= 1 && CView::rank <= 4, "lapis::kernels::matadd: rank 1 to 4");
  elementwise("lapis::matadd", exec, Arithmetic{Operation::add}, C, A, B);
}

template <class A, class B, class C, class = std::enable_if_t<detail::all_dual_views<A, B, C>>>
void matadd(A& a, B& b, C& c) {
  detail::require_result_extents("matadd", "out", extents_of(c), matadd_extents(extents_of(a), extents_of(b)));
  detail::on_device_sides(
      "matadd", [](const auto&... views) { matadd(views...); }, detail::reads(a), detail::reads(b), detail::writes(c));
}

}  // namespace lapis::kernels
