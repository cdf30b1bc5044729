// C[b] = A[b] B[b] over a leading batch dimension. On CUDA, where Kokkos Kernels was built with
// cuBLAS, a batch whose entries are row-major goes to cuBLAS's strided batched gemm in one call:
// Kokkos Kernels has no vendor batched gemm, and one vendor product per entry ran 64 products of
// 256^3 at a tenth of torch's speed on an H100 (each entry a launch too small to fill the GPU).
// Anything else takes one product per entry through matrix_product.hpp, as numpy's matmul over a
// stack does.
#pragma once

#include <Kokkos_Core.hpp>
#include <KokkosKernels_config.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "lapis/kernels/matrix_product.hpp"

#if defined(KOKKOS_ENABLE_CUDA) && defined(KOKKOSKERNELS_ENABLE_TPL_CUBLAS)
#include <KokkosBlas_tpl_spec.hpp>  // cuBLAS, and Kokkos Kernels' handle to it
#define LAPIS_CUBLAS_BATCHED_GEMM 1
#endif

namespace lapis::kernels {
namespace detail {

#ifdef LAPIS_CUBLAS_BATCHED_GEMM
// A batch operand as cuBLAS reads it: each entry row-major, its rows `leading` elements apart (the
// entry's transpose, column-major), entries `batch_stride` elements apart. `usable` is false where
// the entries are not row-major or a figure does not fit cuBLAS's int.
struct StridedBatch {
  bool usable;
  int leading;
  long long batch_stride;
};

template <class View>
StridedBatch strided_batch(const View& v) {
  const std::size_t rows = v.extent(1), columns = v.extent(2), least = std::max<std::size_t>(columns, 1);
  const std::size_t leading = rows <= 1 ? least : v.stride(1);  // one row leaves its stride free
  const bool row_major = (columns <= 1 || v.stride(2) == 1) && leading >= least && leading <= INT_MAX;
  return {row_major, int(leading), static_cast<long long>(v.stride(0))};
}

// cuBLAS's strided batched gemm for the element type T.
template <class T>
struct CublasGemm;
template <>
struct CublasGemm<float> {
  static constexpr auto strided_batched = &cublasSgemmStridedBatched;
};
template <>
struct CublasGemm<double> {
  static constexpr auto strided_batched = &cublasDgemmStridedBatched;
};

// C[i] = A[i] B[i] for i < batch, row-major m x k times k x n entries as the descriptors say, in
// one cuBLAS call queued on `exec`; std::runtime_error where cuBLAS fails.
template <class T>
void cublas_strided_batched(const Kokkos::Cuda& exec, int m, int n, int k, const T* A, const StridedBatch& a,
                            const T* B, const StridedBatch& b, T* C, const StridedBatch& c, int batch) {
  // Kokkos Kernels' own handle: created once, destroyed when Kokkos finalizes
  const cublasHandle_t handle = KokkosBlas::Impl::CudaBlasSingleton::singleton().handle;
  cublasStatus_t status = cublasSetStream(handle, exec.cuda_stream());
  const T one = 1, zero = 0;
  // row-major C = A B is, read column-major, C^T = B^T A^T
  if (status == CUBLAS_STATUS_SUCCESS)
    status = CublasGemm<T>::strided_batched(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, B, b.leading,
                                            b.batch_stride, A, a.leading, a.batch_stride, &zero, C, c.leading,
                                            c.batch_stride, batch);
  cublasSetStream(handle, nullptr);  // as Kokkos Kernels leaves it
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error("lapis: cuBLAS's strided batched gemm failed (cublasStatus_t " +
                             std::to_string(int(status)) + ")");
}

// The batch in one cuBLAS call, queued on `exec`; false (nothing done) where cuBLAS cannot take it.
template <class AView, class BView, class CView>
bool cublas_batched_product(const Kokkos::Cuda& exec, const AView& A, const BView& B, const CView& C) {
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
#endif

}  // namespace detail

// C[b] = A[b] B[b] for rank-3 views of any strides in one memory space (C's extents must be those
// of the products), queued on `exec` where the vendor library allows it.
template <class ExecutionSpace, class AView, class BView, class CView>
void batched_matrix_product(const ExecutionSpace& exec, const AView& A, const BView& B, const CView& C) {
#ifdef LAPIS_CUBLAS_BATCHED_GEMM
  if constexpr (std::is_same_v<ExecutionSpace, Kokkos::Cuda>) {
    const bool empty = C.extent(0) == 0 || C.extent(1) == 0 || C.extent(2) == 0;
    // (an empty sum, k == 0, is matrix_product's zero fill)
    if (!empty && A.extent(2) != 0 && detail::cublas_batched_product(exec, A, B, C)) return;
  }
#endif
  const auto all = Kokkos::ALL;
  for (std::size_t b = 0; b < C.extent(0); ++b)
    matrix_product(exec, Transpose::no, Kokkos::subview(A, b, all, all), Transpose::no, Kokkos::subview(B, b, all, all),
                   Kokkos::subview(C, b, all, all));
}

}  // namespace lapis::kernels
