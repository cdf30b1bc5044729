// MLIR strided memref descriptors, the arguments of LAPIS's extern "C" entry points, both ways
// without copies: a DualView whose host side is the memory a descriptor describes (borrowed), and
// the descriptor of a DualView's side.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "lapis/core/element_type.hpp"
#include "lapis/core/shape.hpp"
#include "lapis/detail/data_type.hpp"
#include "lapis/detail/make_view.hpp"
#include "lapis/dualview.hpp"
#include "lapis/interop/strided_memref.hpp"

namespace lapis {

// Where the elements a descriptor describes lie: the address of the first one (`data` plus `offset`
// elements), the extents and the byte strides. Any non-negative strides. std::invalid_argument for
// negative sizes or strides, or a null address with elements. Type-erased: lapis.memref (Python)
// and from_memref (C++) read descriptors through it.
struct MemrefLayout {
  void* data;
  Shape shape;
  Strides strides;
};

inline MemrefLayout memref_layout(void* data, std::int64_t offset, const std::int64_t* sizes,
                                  const std::int64_t* strides, std::size_t rank, ElementType element) {
  if (rank > max_rank)
    throw std::invalid_argument("lapis: memref descriptors of rank 0 to " + std::to_string(max_rank) + ", not " +
                                std::to_string(rank));
  MemrefLayout layout{nullptr, {}, {}};
  layout.shape.rank = rank;
  layout.shape.element = element;
  layout.shape.itemsize = info(element).itemsize;
  bool empty = false;
  for (std::size_t i = 0; i < rank; ++i) {
    if (sizes[i] < 0 || strides[i] < 0)
      throw std::invalid_argument("lapis: memref dimension " + std::to_string(i) + " has size " +
                                  std::to_string(sizes[i]) + " and stride " + std::to_string(strides[i]) +
                                  "; sizes and strides must be non-negative");
    layout.shape.extents[i] = static_cast<std::size_t>(sizes[i]);
    layout.strides[i] = static_cast<std::ptrdiff_t>(strides[i]) * static_cast<std::ptrdiff_t>(layout.shape.itemsize);
    empty = empty || sizes[i] == 0;
  }
  layout.shape.nbytes();  // rejects sizes whose byte size overflows
  if (offset < 0)
    throw std::invalid_argument("lapis: a memref offset must be non-negative, not " + std::to_string(offset));
  if (data == nullptr && !empty) throw std::invalid_argument("lapis: a memref with elements has a null address");
  layout.data = static_cast<unsigned char*>(data) + offset * static_cast<std::int64_t>(layout.shape.itemsize);
  return layout;
}

// A DualView over the memory `memref` describes, as its host side (the caller keeps that memory
// alive; the host side starts out modified); std::invalid_argument as memref_layout says.
template <class Device = DefaultDevice, class T, int N>
DualView<data_type_t<T, N>, Kokkos::LayoutStride, Device, alloc::Borrowed> from_memref(
    const StridedMemRefType<T, N>& memref, const std::string& label = "memref") {
  static_assert(N >= 1 && static_cast<std::size_t>(N) <= max_rank, "lapis::from_memref: ranks 1 to lapis::max_rank");
  using Result = DualView<data_type_t<T, N>, Kokkos::LayoutStride, Device, alloc::Borrowed>;
  const MemrefLayout layout =
      memref_layout(memref.data, memref.offset, memref.sizes, memref.strides, N, element_type_v<T>);
  return Result(make_view<typename Result::t_host>(layout.data, layout.shape, layout.strides), label);
}

// The descriptor of a Kokkos view of rank 1 to 8 (strides in elements). It does not keep the
// memory alive: the view's owner must outlive its use.
template <class ViewType, class = std::enable_if_t<Kokkos::is_view<ViewType>::value>>
StridedMemRefType<typename ViewType::non_const_value_type, static_cast<int>(ViewType::rank)> to_memref(
    const ViewType& view) {
  constexpr int rank = static_cast<int>(ViewType::rank);
  static_assert(rank >= 1, "lapis::to_memref: a view of rank 1 or more");
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
