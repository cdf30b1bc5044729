// C = op(A) op(B) (+ C) through Kokkos Kernels' KokkosBlas::gemm: lapis's one door to the vendor
// BLAS (a host BLAS such as OpenBLAS; cuBLAS on CUDA). Kokkos Kernels hands a product to the vendor
// only when A, B and C are all row-major or all column-major, contiguous, of float, double or
// complex; anything else silently takes its own loop, 20 to 80 times slower. So every operand is
// made acceptable here: a row-major matrix is used in place, a column-major one in place as the
// row-major transpose, any other one (a strided part) is first packed into scratch memory, and a
// result that is neither is computed into scratch and copied into place. Packing costs one pass
// over the matrix, against the product's m*n*k multiply-adds.
#pragma once

#include <Kokkos_Core.hpp>
#include <KokkosBlas3_gemm.hpp>
#include <KokkosKernels_config.h>

#include <cstddef>
#include <cstdint>

#include "lapis/detail/allocation.hpp"
#include "lapis/execution/multi_index_loop.hpp"
#include "lapis/execution/scratch.hpp"

namespace lapis::kernels {

// Whether a product takes an operand as it is or transposed.
enum class Transpose : bool { no, yes };

namespace detail {

template <class T, class ExecutionSpace, class MemorySpace>
using RowMajor = Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::Device<ExecutionSpace, MemorySpace>,
                              Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

enum class Order { row_major, column_major, other };

// How a rank-2 view's elements lie in memory. Extents of 0 or 1 leave their stride free.
template <class View>
Order order_of(const View& v) {
  const std::size_t m = v.extent(0), n = v.extent(1);
  if ((n <= 1 || v.stride(1) == 1) && (m <= 1 || v.stride(0) == n)) return Order::row_major;
  if ((m <= 1 || v.stride(0) == 1) && (n <= 1 || v.stride(1) == m)) return Order::column_major;
  return Order::other;
}

// An operand as the vendor path reads it: row-major data (the operand's transpose when
// `transposed`), in scratch memory of its own when it had to be packed.
template <class T, class ExecutionSpace, class MemorySpace>
struct RowMajorOperand {
  RowMajor<const T, ExecutionSpace, MemorySpace> matrix;
  bool transposed = false;
  lapis::detail::Allocation<MemorySpace> scratch;
};

template <class T, class MemorySpace>
lapis::detail::Allocation<MemorySpace> scratch_for(std::size_t rows, std::size_t columns) {
  return scratch<MemorySpace>("lapis::matrix_product scratch", rows * columns * sizeof(T));
}

template <class ExecutionSpace, class View>
auto row_major_operand(const ExecutionSpace& exec, const View& v) {
  using T = typename View::non_const_value_type;
  using MemorySpace = typename View::memory_space;
  using Operand = RowMajorOperand<T, ExecutionSpace, MemorySpace>;
  Operand operand;
  const std::size_t m = v.extent(0), n = v.extent(1);
  switch (order_of(v)) {
    case Order::row_major: operand.matrix = decltype(Operand::matrix)(v.data(), m, n); break;
    case Order::column_major:
      operand.matrix = decltype(Operand::matrix)(v.data(), n, m);
      operand.transposed = true;
      break;
    case Order::other: {
      operand.scratch = scratch_for<T, MemorySpace>(m, n);
      const RowMajor<T, ExecutionSpace, MemorySpace> packed(reinterpret_cast<T*>(operand.scratch.data()), m, n);
      Kokkos::deep_copy(exec, packed, v);
      operand.matrix = packed;
      break;
    }
  }
  return operand;
}

inline const char* blas_flag(bool transposed) { return transposed ? "T" : "N"; }

// The vendor call on row-major operands. Kokkos Kernels 4 queues it on `exec`; 3.x has no
// execution-space argument and runs it on the default instance, after `exec`'s earlier work.
template <class ExecutionSpace, class AView, class BView, class CView>
void vendor_gemm(const ExecutionSpace& exec, bool ta, const AView& A, bool tb, const BView& B,
                 typename CView::const_value_type beta, const CView& C) {
  using T = typename CView::non_const_value_type;
  if constexpr (vendor_calls_take_instance) {
    KokkosBlas::gemm(exec, blas_flag(ta), blas_flag(tb), T(1), A, B, beta, C);
  } else {
    exec.fence();
    KokkosBlas::gemm(blas_flag(ta), blas_flag(tb), T(1), A, B, beta, C);
  }
}

}  // namespace detail

// C = op(A) op(B), or C += op(A) op(B) when `accumulate`, for rank-2 views of any strides in one
// memory space (C's extents must be those of the product). Queued on `exec` where Kokkos Kernels
// allows it (see vendor_gemm).
template <class ExecutionSpace, class AView, class BView, class CView>
void matrix_product(const ExecutionSpace& exec, Transpose ta, const AView& A, Transpose tb, const BView& B,
                    const CView& C, bool accumulate = false) {
  using T = typename CView::non_const_value_type;
  using MemorySpace = typename CView::memory_space;
  const std::size_t m = C.extent(0), n = C.extent(1), k = ta == Transpose::yes ? A.extent(0) : A.extent(1);
  if (m == 0 || n == 0) return;
  if (k == 0) {  // an empty sum (Kokkos Kernels would leave C as it was)
    const detail::BoxExtents extents = {std::int64_t(m), std::int64_t(n)};
    if (!accumulate)
      detail::for_each_multi_index<2>(
          "lapis::matrix_product_empty_sum", exec, extents,
          KOKKOS_LAMBDA(std::int64_t i, std::int64_t j) { C(i, j) = T(0); });
    return;
  }
  const auto a = detail::row_major_operand(exec, A);
  const auto b = detail::row_major_operand(exec, B);
  const bool op_a = (ta == Transpose::yes) != a.transposed, op_b = (tb == Transpose::yes) != b.transposed;
  const T beta = accumulate ? T(1) : T(0);
  switch (detail::order_of(C)) {
    case detail::Order::row_major:
      detail::vendor_gemm(exec, op_a, a.matrix, op_b, b.matrix, beta,
                          detail::RowMajor<T, ExecutionSpace, MemorySpace>(C.data(), m, n));
      break;
    case detail::Order::column_major:  // C^T = op(B)^T op(A)^T, row-major
      detail::vendor_gemm(exec, !op_b, b.matrix, !op_a, a.matrix, beta,
                          detail::RowMajor<T, ExecutionSpace, MemorySpace>(C.data(), n, m));
      break;
    case detail::Order::other: {
      auto scratch = detail::scratch_for<T, MemorySpace>(m, n);
      const detail::RowMajor<T, ExecutionSpace, MemorySpace> packed(reinterpret_cast<T*>(scratch.data()), m, n);
      if (accumulate) Kokkos::deep_copy(exec, packed, C);
      detail::vendor_gemm(exec, op_a, a.matrix, op_b, b.matrix, beta, packed);
      Kokkos::deep_copy(exec, C, packed);
      detail::before_scratch_returns(exec);
      break;
    }
  }
  if (a.scratch || b.scratch) detail::before_scratch_returns(exec);
}

}  // namespace lapis::kernels
