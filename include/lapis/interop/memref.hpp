// MLIR strided memref descriptors, the arguments of LAPIS's extern "C" entry points, both ways
// without copies: a DualView whose host side is the memory a descriptor describes (borrowed), and
// the descriptor of a DualView's side.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "lapis/detail/data_type.hpp"
#include "lapis/dualview.hpp"

// MLIR's descriptor (the layout of StridedMemRefType in MLIR's CRunnerUtils.h, which LAPIS's
// generated code passes): include MLIR's header first if a file needs both.
#ifndef MLIR_EXECUTIONENGINE_CRUNNERUTILS_H
template <typename T, int N>
struct StridedMemRefType {
  T* basePtr;
  T* data;
  int64_t offset;
  int64_t sizes[N];
  int64_t strides[N];
};
#endif

namespace lapis {

// A DualView over the memory `memref` describes, as its host side (the caller keeps that memory
// alive; the host side starts out modified). Strides in elements, any non-negative ones: views are
// LayoutStride. std::invalid_argument for negative sizes or strides, or a null address with
// elements.
template <class Device = DefaultDevice, class T, int N>
DualView<data_type_t<T, N>, Kokkos::LayoutStride, Device, alloc::Borrowed> from_memref(
    const StridedMemRefType<T, N>& memref, const std::string& label = "memref") {
  static_assert(N >= 1 && N <= 8, "lapis::from_memref: ranks 1 to 8");
  using Result = DualView<data_type_t<T, N>, Kokkos::LayoutStride, Device, alloc::Borrowed>;
  Kokkos::LayoutStride layout;
  bool empty = false;
  for (int i = 0; i < N; ++i) {
    if (memref.sizes[i] < 0 || memref.strides[i] < 0)
      throw std::invalid_argument("lapis::from_memref: dimension " + std::to_string(i) + " has size " +
                                  std::to_string(memref.sizes[i]) + " and stride " + std::to_string(memref.strides[i]) +
                                  "; sizes and strides must be non-negative");
    layout.dimension[i] = static_cast<std::size_t>(memref.sizes[i]);
    layout.stride[i] = static_cast<std::size_t>(memref.strides[i]);
    empty = empty || memref.sizes[i] == 0;
  }
  if (memref.data == nullptr && !empty) throw std::invalid_argument("lapis::from_memref: a null address with elements");
  typename Result::t_host host(memref.data + memref.offset, layout);
  return Result(host, label);
}

// The descriptor of a Kokkos view of rank 1 to 8 (strides in elements). It does not keep the
// memory alive: the view's owner must outlive its use.
template <class ViewType, class = std::enable_if_t<Kokkos::is_view<ViewType>::value>>
StridedMemRefType<typename ViewType::non_const_value_type, static_cast<int>(ViewType::rank)> to_memref(
    const ViewType& view) {
  constexpr int rank = static_cast<int>(ViewType::rank);
  static_assert(rank >= 1, "lapis::to_memref: ranks 1 to 8");
  StridedMemRefType<typename ViewType::non_const_value_type, rank> memref{};
  memref.basePtr = memref.data = const_cast<typename ViewType::non_const_value_type*>(view.data());
  memref.offset = 0;
  for (int i = 0; i < rank; ++i) {
    memref.sizes[i] = static_cast<int64_t>(view.extent(i));
    memref.strides[i] = static_cast<int64_t>(view.stride(i));
  }
  return memref;
}

// The descriptor of one side of `dv`, as it is (sync it first where it may be stale).
template <class DualViewType, class = std::enable_if_t<is_dual_view_v<DualViewType>>>
auto to_memref(const DualViewType& dv, Side side) {
  return side == Side::host ? to_memref(dv.view_host()) : to_memref(dv.view_device());
}

}  // namespace lapis
