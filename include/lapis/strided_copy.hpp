// Copies an array between two host buffers of the same shape and different strides. A borrowed
// host buffer whose layout differs from the device side's is packed into (or unpacked from) a
// staging buffer laid out like the device side, so that the host<->device transfer itself stays
// one whole-allocation copy.
#pragma once

#include <cstddef>
#include <cstring>

#include "lapis/shape.hpp"

namespace lapis::detail {

inline void strided_copy_dim(unsigned char* dst, const Strides& dst_strides, const unsigned char* src,
                             const Strides& src_strides, const Shape& shape, std::size_t dim) {
  const std::size_t n = shape.extents[dim];
  const auto item = static_cast<std::ptrdiff_t>(shape.itemsize);
  if (dim + 1 == shape.rank) {
    if (dst_strides[dim] == item && src_strides[dim] == item) {  // contiguous innermost run
      std::memcpy(dst, src, n * shape.itemsize);
      return;
    }
    for (std::size_t i = 0; i < n; ++i)
      std::memcpy(dst + static_cast<std::ptrdiff_t>(i) * dst_strides[dim],
                  src + static_cast<std::ptrdiff_t>(i) * src_strides[dim], shape.itemsize);
    return;
  }
  for (std::size_t i = 0; i < n; ++i)
    strided_copy_dim(dst + static_cast<std::ptrdiff_t>(i) * dst_strides[dim], dst_strides,
                     src + static_cast<std::ptrdiff_t>(i) * src_strides[dim], src_strides, shape, dim + 1);
}

inline void strided_copy(unsigned char* dst, const Strides& dst_strides, const unsigned char* src,
                         const Strides& src_strides, const Shape& shape) {
  if (shape.size() == 0) return;
  if (shape.rank == 0) {
    std::memcpy(dst, src, shape.itemsize);
    return;
  }
  strided_copy_dim(dst, dst_strides, src, src_strides, shape, 0);
}

}  // namespace lapis::detail
