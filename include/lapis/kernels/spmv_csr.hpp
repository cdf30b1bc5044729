// y = A x for a CSR matrix A of `rows` x `columns` (indptr, indices, data) and a dense vector x.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

#include "lapis/kernels/dualview_args.hpp"
#include "lapis/kernels/sparse_checks.hpp"

namespace lapis::kernels {

// The extents of A x for a `rows` x `columns` matrix, or std::invalid_argument when the arrays'
// extents do not fit that shape.
inline Extents<1> spmv_csr_extents(const Extents<1>& indptr, const Extents<1>& indices, const Extents<1>& data,
                                   const Extents<1>& x, std::int64_t rows, std::int64_t columns) {
  detail::check_compressed_extents("spmv", rows, columns, rows, indptr, indices, data,
                                   "a matrix of " + std::to_string(rows) + " rows needs");
  if (x[0] != columns)
    detail::refuse("spmv", "x: has " + std::to_string(x[0]) + " entries; the matrix has " + std::to_string(columns) +
                               " columns");
  return {rows};
}

// Throws std::invalid_argument unless (indptr, indices) is a valid CSR structure of `rows` rows
// and `columns` columns. Runs on the device: validating resident data copies nothing.
template <class ExecutionSpace, class PtrView, class IndexView>
void check_spmv_csr(const ExecutionSpace& exec, const PtrView& indptr, const IndexView& indices, std::int64_t rows,
                    std::int64_t columns) {
  detail::check_csr(exec, indptr, indices, rows, columns, indices.extent(0), "spmv");
}

// Assumes a valid structure (check_spmv_csr first for untrusted input).
template <class ExecutionSpace, class PtrView, class IndexView, class DataView, class XView, class YView>
void spmv_csr(const ExecutionSpace& exec, const PtrView& indptr, const IndexView& indices, const DataView& data,
              const XView& x, const YView& y) {
  using T = typename YView::non_const_value_type;
  Kokkos::parallel_for(
      "lapis::spmv_csr", Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, y.extent(0)),
      KOKKOS_LAMBDA(std::int64_t i) {
        T sum = 0;
        for (std::int64_t j = indptr(i); j < std::int64_t(indptr(i + 1)); ++j) sum += data(j) * x(indices(j));
        y(i) = sum;
      });
}

// Checks the extents and the structure, then computes; y is untouched when a check throws.
template <class P, class I, class D, class X, class Y, class = std::enable_if_t<detail::all_dual_views<P, I, D, X, Y>>>
void spmv_csr(P& indptr, I& indices, D& data, X& x, Y& y) {
  spmv_csr_extents(extents_of(indptr), extents_of(indices), extents_of(data), extents_of(x), y.extent(0), x.extent(0));
  const RuntimeUse use;  // from taking the sides' addresses to queuing the kernel
  typename Y::execution_space exec;
  auto indptr_ = detail::input(indptr);
  auto indices_ = detail::input(indices);
  {
    const ExecutionGuard guard;
    check_spmv_csr(exec, indptr_, indices_, y.extent(0), x.extent(0));
  }
  auto data_ = detail::input(data);
  auto x_ = detail::input(x);
  auto y_ = detail::output(y);
  const ExecutionGuard guard;
  spmv_csr(exec, indptr_, indices_, data_, x_, y_);
}

}  // namespace lapis::kernels
