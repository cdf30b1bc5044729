// Checks of compressed-sparse-row structure, run where the arrays live (on the device), so that
// validating a resident DualView never copies it to the host. Each throws std::invalid_argument
// naming the first kind of defect found.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "lapis/execution/extents.hpp"

namespace lapis::kernels::detail {

// The extents of a compressed matrix's arrays against its shape (`rows` x `columns`, with
// `listed_rows` rows stored): indptr has one more entry than the stored rows, and indices as many
// as data.
inline void check_compressed_extents(const char* kernel, std::int64_t rows, std::int64_t columns,
                                     std::int64_t listed_rows, const Extents<1>& indptr, const Extents<1>& indices,
                                     const Extents<1>& data, const std::string& stored_rows_need) {
  if (rows < 0 || columns < 0)
    refuse(kernel, "shape (" + std::to_string(rows) + ", " + std::to_string(columns) + ") has a negative dimension");
  if (indptr[0] != listed_rows + 1)
    refuse(kernel, "indptr: has " + std::to_string(indptr[0]) + " entries; " + stored_rows_need + " " +
                       std::to_string(listed_rows + 1));
  if (indices != data)
    refuse(kernel, "indices and data differ in length (" + std::to_string(indices[0]) + " and " +
                       std::to_string(data[0]) + ")");
}

// indptr has rows + 1 entries, starts at 0, never decreases and ends at nnz; every column index is
// in [0, columns).
template <class ExecutionSpace, class PtrView, class IndexView>
void check_csr(const ExecutionSpace& exec, const PtrView& indptr, const IndexView& indices, std::int64_t rows,
               std::int64_t columns, std::int64_t nnz, const char* kernel) {
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  std::int64_t bad_pointers = 0;
  Kokkos::parallel_reduce(
      "lapis::check_csr(indptr)", Range(exec, 0, rows + 1),
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t& bad) {
        const std::int64_t p = indptr(i);
        if ((i == 0 && p != 0) || (i == rows && p != nnz) || (i > 0 && p < std::int64_t(indptr(i - 1))) || p < 0 ||
            p > nnz)
          ++bad;
      },
      bad_pointers);
  if (bad_pointers != 0)
    throw std::invalid_argument(std::string(kernel) +
                                ": indptr is inconsistent (it must start at 0, never decrease and end at "
                                "len(indices))");
  std::int64_t bad_indices = 0;
  Kokkos::parallel_reduce(
      "lapis::check_csr(indices)", Range(exec, 0, nnz),
      KOKKOS_LAMBDA(std::int64_t j, std::int64_t& bad) {
        const std::int64_t c = indices(j);
        if (c < 0 || c >= columns) ++bad;
      },
      bad_indices);
  if (bad_indices != 0)
    throw std::invalid_argument(std::string(kernel) + ": " + std::to_string(bad_indices) +
                                " column indices are out of range [0, " + std::to_string(columns) + ")");
}

// The listed rows of a doubly compressed matrix are strictly increasing and in [0, rows).
template <class ExecutionSpace, class RowView>
void check_rows(const ExecutionSpace& exec, const RowView& row_ids, std::int64_t rows, const char* kernel) {
  std::int64_t bad_rows = 0;
  Kokkos::parallel_reduce(
      "lapis::check_rows",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, row_ids.extent(0)),
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t& bad) {
        const std::int64_t r = row_ids(i);
        if (r < 0 || r >= rows || (i > 0 && r <= std::int64_t(row_ids(i - 1)))) ++bad;
      },
      bad_rows);
  if (bad_rows != 0)
    throw std::invalid_argument(std::string(kernel) + ": rows must be strictly increasing row numbers in [0, " +
                                std::to_string(rows) + ")");
}

}  // namespace lapis::kernels::detail
