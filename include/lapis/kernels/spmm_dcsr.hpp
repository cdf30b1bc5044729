// C = A B for a doubly compressed sparse row matrix A (only its non-empty rows are stored: `rows`
// lists them, strictly increasing, and indptr/indices/data are the CSR structure over that list)
// of C.extent(0) x B.extent(0), and a dense B. Rows of C not listed are zero.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

#include "lapis/execution/checked_structures.hpp"
#include "lapis/execution/kernel_call.hpp"
#include "lapis/execution/multi_index_loop.hpp"
#include "lapis/kernels/sparse_checks.hpp"

namespace lapis::kernels {

// The extents of A B for a `rows` x `columns` matrix, or std::invalid_argument when the arrays'
// extents do not fit that shape.
inline Extents<2> spmm_dcsr_extents(const Extents<1>& row_ids, const Extents<1>& indptr, const Extents<1>& indices,
                                    const Extents<1>& data, const Extents<2>& b, std::int64_t rows,
                                    std::int64_t columns) {
  detail::check_compressed_extents("spmm_dcsr", rows, columns, row_ids[0], indptr, indices, data,
                                   std::to_string(row_ids[0]) + " listed rows need");
  if (b[0] != columns)
    detail::refuse("spmm_dcsr",
                   "b: has " + std::to_string(b[0]) + " rows; the matrix has " + std::to_string(columns) + " columns");
  return {rows, b[1]};
}

// Throws std::invalid_argument unless the structure is valid for a `rows` x `columns` matrix.
// Runs on the device: validating resident data copies nothing.
template <class ExecutionSpace, class RowView, class PtrView, class IndexView>
void check_spmm_dcsr(const ExecutionSpace& exec, const RowView& row_ids, const PtrView& indptr,
                     const IndexView& indices, std::int64_t rows, std::int64_t columns) {
  detail::check_rows(exec, row_ids, rows, "spmm_dcsr");
  detail::check_csr(exec, indptr, indices, row_ids.extent(0), columns, indices.extent(0), "spmm_dcsr");
}

// Assumes a valid structure (check_spmm_dcsr first for untrusted input).
template <class ExecutionSpace, class RowView, class PtrView, class IndexView, class DataView, class BView, class CView>
void spmm_dcsr(const ExecutionSpace& exec, const RowView& row_ids, const PtrView& indptr, const IndexView& indices,
               const DataView& data, const BView& B, const CView& C) {
  using T = typename CView::non_const_value_type;
  const std::int64_t stored = row_ids.extent(0), n = C.extent(1);
  const detail::BoxExtents all = {std::int64_t(C.extent(0)), n}, listed = {stored, n};
  detail::for_each_multi_index<2>(
      "lapis::spmm_dcsr(zero)", exec, all, KOKKOS_LAMBDA(std::int64_t i, std::int64_t j) { C(i, j) = T(0); });
  detail::for_each_multi_index<2>(
      "lapis::spmm_dcsr", exec, listed, KOKKOS_LAMBDA(std::int64_t r, std::int64_t j) {
        T sum = 0;
        for (std::int64_t p = indptr(r); p < std::int64_t(indptr(r + 1)); ++p) sum += data(p) * B(indices(p), j);
        C(row_ids(r), j) = sum;
      });
}

// Checks the extents and the structure, then computes; C is untouched when a check throws. A
// structure found valid before and unchanged since (checked_structures.hpp) is not checked again.
template <class R, class P, class I, class D, class B, class C,
          class = std::enable_if_t<detail::all_dual_views<R, P, I, D, B, C>>>
void spmm_dcsr(R& rows, P& indptr, I& indices, D& data, B& b, C& c) {
  detail::require_result_extents("spmm_dcsr", "out", extents_of(c),
                                 spmm_dcsr_extents(extents_of(rows), extents_of(indptr), extents_of(indices),
                                                   extents_of(data), extents_of(b), c.extent(0), b.extent(0)));
  const detail::KernelCall call("spmm_dcsr");
  using ExecutionSpace = typename C::execution_space;
  auto rows_ = call.reads(rows);
  auto indptr_ = call.reads(indptr);
  auto indices_ = call.reads(indices);
  const detail::CheckedStructure structure(
      "spmm_dcsr", c.extent(0), b.extent(0),
      {detail::array_state(rows, rows_), detail::array_state(indptr, indptr_), detail::array_state(indices, indices_)});
  if (!structure.found_valid_before()) {
    call.launch<ExecutionSpace>(
        [&](const auto& exec) { check_spmm_dcsr(exec, rows_, indptr_, indices_, c.extent(0), b.extent(0)); });
    structure.remember_valid();
  }
  auto data_ = call.reads(data);
  auto b_ = call.reads(b);
  auto c_ = call.writes(c);
  call.launch<ExecutionSpace>([&](const auto& exec) { spmm_dcsr(exec, rows_, indptr_, indices_, data_, b_, c_); });
}

}  // namespace lapis::kernels
