// C = A + B for two CSR matrices of one shape, each in canonical form: every row lists its columns
// in strictly increasing order (sorted, no duplicates; checked on the device). C is canonical too:
// each of its rows is the merge of the two rows, coinciding columns summed (a sum of zero stays an
// explicit entry). C's number of nonzeros is known only on the device: a first pass counts each
// row's entries and a scan turns the counts into C's indptr, whose last entry (the one value that
// comes to the host) sizes C's arrays; a second pass fills them.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

#include "lapis/execution/kernel_call.hpp"
#include "lapis/kernels/sparse_checks.hpp"

namespace lapis::kernels {

// Throws std::invalid_argument unless A's and B's arrays fit a `rows` x `columns` matrix.
inline void check_sparse_matadd_extents(const Extents<1>& a_indptr, const Extents<1>& a_indices,
                                        const Extents<1>& a_data, const Extents<1>& b_indptr,
                                        const Extents<1>& b_indices, const Extents<1>& b_data, std::int64_t rows,
                                        std::int64_t columns) {
  const std::string need = "a matrix of " + std::to_string(rows) + " rows needs";
  detail::check_compressed_extents("sparse_matadd: a", rows, columns, rows, a_indptr, a_indices, a_data, need);
  detail::check_compressed_extents("sparse_matadd: b", rows, columns, rows, b_indptr, b_indices, b_data, need);
}

namespace detail {

// Throws std::invalid_argument unless every row of (indptr, indices) lists strictly increasing
// columns. Assumes a valid CSR structure (check_csr).
template <class ExecutionSpace, class PtrView, class IndexView>
void check_canonical_rows(const ExecutionSpace& exec, const PtrView& indptr, const IndexView& indices,
                          const char* kernel) {
  std::int64_t unsorted = 0;
  Kokkos::parallel_reduce(
      "lapis::check_canonical_rows",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, indptr.extent(0) - 1),
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t& bad) {
        for (std::int64_t j = std::int64_t(indptr(i)) + 1; j < std::int64_t(indptr(i + 1)); ++j)
          if (indices(j) <= indices(j - 1)) ++bad;
      },
      unsorted);
  if (unsorted != 0)
    throw std::invalid_argument(std::string(kernel) +
                                ": each row's column indices must be strictly increasing (sorted, no duplicates)");
}

// Merges row i of A and B, calling emit(column, ja, jb) in column order, where ja and jb are the
// entries of A and B in that column (-1 for none).
template <class PA, class IA, class PB, class IB, class Emit>
KOKKOS_INLINE_FUNCTION void merge_row(std::int64_t i, const PA& ap, const IA& ai, const PB& bp, const IB& bi,
                                      const Emit& emit) {
  std::int64_t ja = ap(i), jb = bp(i);
  const std::int64_t ea = ap(i + 1), eb = bp(i + 1);
  while (ja < ea || jb < eb) {
    if (jb == eb || (ja < ea && ai(ja) < bi(jb))) {
      emit(ai(ja), ja, std::int64_t(-1));
      ++ja;
    } else if (ja == ea || bi(jb) < ai(ja)) {
      emit(bi(jb), std::int64_t(-1), jb);
      ++jb;
    } else {
      emit(ai(ja), ja, jb);
      ++ja;
      ++jb;
    }
  }
}

}  // namespace detail

// First pass: C's indptr (rows + 1 entries) from A's and B's canonical structures; returns C's
// number of nonzeros (the call waits for it).
template <class ExecutionSpace, class PA, class IA, class PB, class IB, class PC>
std::int64_t sparse_matadd_structure(const ExecutionSpace& exec, const PA& ap, const IA& ai, const PB& bp, const IB& bi,
                                     const PC& cp) {
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  using I = typename PC::non_const_value_type;
  const std::int64_t rows = cp.extent(0) - 1;
  Kokkos::parallel_for(
      "lapis::sparse_matadd(count)", Range(exec, 0, rows + 1), KOKKOS_LAMBDA(std::int64_t i) {
        if (i == 0) {
          cp(0) = 0;
          return;
        }
        I count = 0;
        detail::merge_row(i - 1, ap, ai, bp, bi, [&](auto, std::int64_t, std::int64_t) { ++count; });
        cp(i) = count;
      });
  std::int64_t nnz = 0;
  Kokkos::parallel_scan(
      "lapis::sparse_matadd(scan)", Range(exec, 0, rows + 1),
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t& sum, bool final) {
        sum += cp(i);
        if (final) cp(i) = I(sum);
      },
      nnz);
  return nnz;
}

// Second pass: C's indices and data, sized by the first.
template <class ExecutionSpace, class PA, class IA, class DA, class PB, class IB, class DB, class PC, class IC,
          class DC>
void sparse_matadd_fill(const ExecutionSpace& exec, const PA& ap, const IA& ai, const DA& ad, const PB& bp,
                        const IB& bi, const DB& bd, const PC& cp, const IC& ci, const DC& cd) {
  Kokkos::parallel_for(
      "lapis::sparse_matadd(fill)",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, cp.extent(0) - 1),
      KOKKOS_LAMBDA(std::int64_t i) {
        std::int64_t k = cp(i);
        detail::merge_row(i, ap, ai, bp, bi, [&](auto column, std::int64_t ja, std::int64_t jb) {
          ci(k) = column;
          cd(k) = ja < 0 ? bd(jb) : jb < 0 ? ad(ja) : ad(ja) + bd(jb);
          ++k;
        });
      });
}

// C's three arrays, new device-first DualViews.
template <class I, class T, class Device = DefaultDevice>
struct CsrArrays {
  DualView<I*, Kokkos::LayoutRight, Device, alloc::DeviceFirst> indptr, indices;
  DualView<T*, Kokkos::LayoutRight, Device, alloc::DeviceFirst> data;
};

// C = A + B for A and B of `rows` x `columns` (their extents, CSR structure and canonical rows
// checked first, on the device). Inputs are read on the device; C is left there.
template <class PA, class IA, class DA, class PB, class IB, class DB,
          class = std::enable_if_t<detail::all_dual_views<PA, IA, DA, PB, IB, DB>>>
auto sparse_matadd(PA& a_indptr, IA& a_indices, DA& a_data, PB& b_indptr, IB& b_indices, DB& b_data, std::int64_t rows,
                   std::int64_t columns) {
  using I = typename PA::non_const_value_type;
  using T = typename DA::non_const_value_type;
  using Result = CsrArrays<I, T, typename DA::device_type>;
  check_sparse_matadd_extents(extents_of(a_indptr), extents_of(a_indices), extents_of(a_data), extents_of(b_indptr),
                              extents_of(b_indices), extents_of(b_data), rows, columns);
  const detail::KernelCall call("sparse_matadd");
  using ExecutionSpace = typename DA::execution_space;
  auto ap = call.reads(a_indptr);
  auto ai = call.reads(a_indices);
  auto bp = call.reads(b_indptr);
  auto bi = call.reads(b_indices);
  call.launch<ExecutionSpace>([&](const auto& exec) {
    detail::check_csr(exec, ap, ai, rows, columns, ai.extent(0), "sparse_matadd: a");
    detail::check_csr(exec, bp, bi, rows, columns, bi.extent(0), "sparse_matadd: b");
    detail::check_canonical_rows(exec, ap, ai, "sparse_matadd: a");
    detail::check_canonical_rows(exec, bp, bi, "sparse_matadd: b");
  });
  auto ad = call.reads(a_data);
  auto bd = call.reads(b_data);
  Result c;
  c.indptr = decltype(c.indptr)(for_overwrite, "sparse_matadd:indptr", rows + 1);
  auto cp = call.writes(c.indptr);
  const std::int64_t nnz =
      call.launch<ExecutionSpace>([&](const auto& exec) { return sparse_matadd_structure(exec, ap, ai, bp, bi, cp); });
  c.indices = decltype(c.indices)(for_overwrite, "sparse_matadd:indices", nnz);
  c.data = decltype(c.data)(for_overwrite, "sparse_matadd:data", nnz);
  auto ci = call.writes(c.indices);
  auto cd = call.writes(c.data);
  call.launch<ExecutionSpace>([&](const auto& exec) { sparse_matadd_fill(exec, ap, ai, ad, bp, bi, bd, cp, ci, cd); });
  return c;
}

}  // namespace lapis::kernels
