// lapis's own cuBLAS calls: the strided batched gemm, which Kokkos Kernels does not reach (it has
// no vendor batched gemm), on Kokkos Kernels' cuBLAS handle. has_cublas says whether this
// translation unit has them; the descriptor of a batch operand is plain C++, for every build.
#pragma once

#include <Kokkos_Core.hpp>
#include <KokkosKernels_config.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <stdexcept>
#include <string>

#if defined(KOKKOS_ENABLE_CUDA) && defined(KOKKOSKERNELS_ENABLE_TPL_CUBLAS)
#include <KokkosBlas_tpl_spec.hpp>  // cuBLAS, and Kokkos Kernels' handle to it
#endif

namespace lapis::kernels::detail {

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

#if defined(KOKKOS_ENABLE_CUDA) && defined(KOKKOSKERNELS_ENABLE_TPL_CUBLAS)
inline constexpr bool has_cublas = true;

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
    status =
        CublasGemm<T>::strided_batched(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, B, b.leading, b.batch_stride, A,
                                       a.leading, a.batch_stride, &zero, C, c.leading, c.batch_stride, batch);
  cublasSetStream(handle, nullptr);  // as Kokkos Kernels leaves it
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error("lapis: cuBLAS's strided batched gemm failed (cublasStatus_t " +
                             std::to_string(int(status)) + ")");
}
#else
inline constexpr bool has_cublas = false;
#endif

}  // namespace lapis::kernels::detail
