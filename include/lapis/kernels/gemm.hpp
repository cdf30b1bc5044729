// C = A * B for (m, k) A and (k, n) B, and its batched form over a leading batch dimension.
#pragma once

#include <Kokkos_Core.hpp>

#include "lapis/execution/batched_matrix_product.hpp"
#include "lapis/execution/kernel_call.hpp"
#include "lapis/execution/matrix_product.hpp"

namespace lapis::kernels {

// The extents of A B, or std::invalid_argument when A and B do not align.
inline Extents<2> gemm_extents(const Extents<2>& a, const Extents<2>& b) {
  if (a[1] != b[0])
    detail::refuse("gemm", "shapes " + detail::shape_text(a) + " and " + detail::shape_text(b) +
                               " do not align (a.shape[1] != b.shape[0])");
  return {a[0], b[1]};
}

inline Extents<3> batched_gemm_extents(const Extents<3>& a, const Extents<3>& b) {
  if (a[0] != b[0] || a[2] != b[1])
    detail::refuse("batched_gemm", "shapes " + detail::shape_text(a) + " and " + detail::shape_text(b) +
                                       " do not align (batch sizes must match and a.shape[2] == b.shape[1])");
  return {a[0], a[1], b[2]};
}

// Through the vendor BLAS (matrix_product.hpp).
template <class ExecutionSpace, class AView, class BView, class CView>
void gemm(const ExecutionSpace& exec, const AView& A, const BView& B, const CView& C) {
  matrix_product(exec, Transpose::no, A, Transpose::no, B, C);
}

// Through the vendor BLAS, in one call where it has a batched product (batched_matrix_product.hpp).
template <class ExecutionSpace, class AView, class BView, class CView>
void batched_gemm(const ExecutionSpace& exec, const AView& A, const BView& B, const CView& C) {
  batched_matrix_product(exec, A, B, C);
}

template <class A, class B, class C, class = std::enable_if_t<detail::all_dual_views<A, B, C>>>
void gemm(A& a, B& b, C& c) {
  detail::require_result_extents("gemm", "out", extents_of(c), gemm_extents(extents_of(a), extents_of(b)));
  detail::on_device_sides(
      "gemm", [](const auto&... views) { gemm(views...); }, detail::reads(a), detail::reads(b), detail::writes(c));
}

template <class A, class B, class C, class = std::enable_if_t<detail::all_dual_views<A, B, C>>>
void batched_gemm(A& a, B& b, C& c) {
  detail::require_result_extents("batched_gemm", "out", extents_of(c),
                                 batched_gemm_extents(extents_of(a), extents_of(b)));
  detail::on_device_sides(
      "batched_gemm", [](const auto&... views) { batched_gemm(views...); }, detail::reads(a), detail::reads(b),
      detail::writes(c));
}

}  // namespace lapis::kernels
