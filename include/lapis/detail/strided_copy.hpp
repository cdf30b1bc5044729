// Copies between host buffers of the same shape and different strides: a whole array
// (strided_copy), or a range of its elements into or out of a contiguous buffer (copy_element_range,
// for chunked copies). A borrowed host buffer whose layout differs from the device side's is packed
// into (or unpacked from) a buffer laid out like the device side, so that the host<->device
// transfer itself stays whole-buffer copies.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "lapis/core/shape.hpp"
#include "lapis/detail/streaming_copy.hpp"

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

// Copies elements [first, first + count), in C order over `shape`'s dimensions, between a strided
// buffer (`strided`, its first element's address, and `strides`) and a contiguous buffer holding
// just that range: into the contiguous one when `pack`, out of it otherwise. Innermost runs that
// are contiguous on both sides are single copies. Lets a copy of a whole array be cut into chunks
// that several threads pack or unpack at once. `streaming`: unpack with streaming stores
// (streaming_copy.hpp), for an array larger than the caches.
inline void copy_element_range(unsigned char* contiguous, unsigned char* strided, const Strides& strides,
                               const Shape& shape, std::size_t first, std::size_t count, bool pack,
                               bool streaming = false) {
  const std::size_t item = shape.itemsize;
  const auto move = [&](unsigned char* c, unsigned char* s, std::size_t bytes) {
    if (pack) std::memcpy(c, s, bytes);
    else if (streaming) streaming_copy(s, c, bytes);
    else std::memcpy(s, c, bytes);
  };
  if (count == 0) return;
  if (is_contiguous(shape, strides, Order::right)) {  // the range is one run (a 0-d array's too)
    move(contiguous, strided + first * item, count * item);
    return;
  }
  const std::size_t last = shape.rank - 1;
  std::size_t index[max_rank] = {};
  for (std::size_t k = shape.rank, rest = first; k-- > 0;) {
    index[k] = rest % shape.extents[k];
    rest /= shape.extents[k];
  }
  const bool inner_contiguous = strides[last] == static_cast<std::ptrdiff_t>(item);
  for (std::size_t done = 0; done < count;) {
    std::ptrdiff_t offset = 0;
    for (std::size_t k = 0; k < shape.rank; ++k) offset += static_cast<std::ptrdiff_t>(index[k]) * strides[k];
    const std::size_t run = std::min(shape.extents[last] - index[last], count - done);
    unsigned char* c = contiguous + done * item;
    if (inner_contiguous) {
      move(c, strided + offset, run * item);
    } else {
      for (std::size_t i = 0; i < run; ++i)
        move(c + i * item, strided + offset + static_cast<std::ptrdiff_t>(i) * strides[last], item);
    }
    done += run;
    index[last] += run;
    for (std::size_t k = last; k > 0 && index[k] == shape.extents[k]; --k) {
      index[k] = 0;
      ++index[k - 1];
    }
  }
}

}  // namespace lapis::detail
