// C[b] = A[b] B[b] over a leading batch dimension. On CUDA, where Kokkos Kernels was built with
// cuBLAS, a batch whose entries are row-major goes to cuBLAS's strided batched gemm in one call:
// Kokkos Kernels has no vendor batched gemm, and one vendor product per entry is a launch too small
// to fill the GPU.
// Anything else takes one product per entry through matrix_product.hpp, as numpy's matmul over a
// stack does.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <type_traits>

#include "lapis/execution/backend.hpp"
#include "lapis/execution/matrix_product.hpp"

namespace lapis::kernels {
namespace detail {

// The batch in one cuBLAS call, queued on `exec`; false (nothing done) where cuBLAS cannot take it.
template <class ExecutionSpace, class AView, class BView, class CView>
bool cublas_batched_product(const ExecutionSpace& exec, const AView& A, const BView& B, const CView& C) {
  using T = typename CView::non_const_value_type;
  if constexpr (!(std::is_same_v<T, float> || std::is_same_v<T, double>) ||
                !std::is_same_v<typename AView::non_const_value_type, T> ||
                !std::is_same_v<typename BView::non_const_value_type, T>) {
    return false;
  } else {
    const auto a = strided_batch(A), b = strided_batch(B), c = strided_batch(C);
    const std::size_t batch = C.extent(0), m = C.extent(1), n = C.extent(2), k = A.extent(2);
    if (!a.usable || !b.usable || !c.usable || std::max({batch, m, n, k}) > std::size_t(INT_MAX)) return false;
    cublas_strided_batched(exec, int(m), int(n), int(k), A.data(), a, B.data(), b, C.data(), c, int(batch));
    return true;
  }
}

}  // namespace detail

// C[b] = A[b] B[b] for rank-3 views of any strides in one memory space (C's extents must be those
// of the products), queued on `exec` where the vendor library allows it.
template <class ExecutionSpace, class AView, class BView, class CView>
void batched_matrix_product(const ExecutionSpace& exec, const AView& A, const BView& B, const CView& C) {
  if constexpr (detail::Backend<ExecutionSpace>::cublas_batched_gemm) {
    const bool empty = C.extent(0) == 0 || C.extent(1) == 0 || C.extent(2) == 0;
    // (an empty sum, k == 0, is matrix_product's zero fill)
    if (!empty && A.extent(2) != 0 && detail::cublas_batched_product(exec, A, B, C)) return;
  }
  const auto all = Kokkos::ALL;
  for (std::size_t b = 0; b < C.extent(0); ++b)
    matrix_product(exec, Transpose::no, Kokkos::subview(A, b, all, all), Transpose::no, Kokkos::subview(B, b, all, all),
                   Kokkos::subview(C, b, all, all));
}

}  // namespace lapis::kernels
