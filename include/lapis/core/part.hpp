// Where a part of a buffer lies: what every "part of" in lapis is (a C++ subview, a Python slice or
// reshape, a LAPIS child view), computed once as a mapping plus an offset on the whole buffer's data,
// as std::submdspan computes one. A Part is plain data: the buffer it belongs to is held beside it
// (BufferPart, buffer_part.hpp). Kokkos-free.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "lapis/core/shape.hpp"
#include "lapis/core/side.hpp"

namespace lapis {

struct Part {
  Shape shape;                              // extents and element type of the part
  std::array<Strides, 2> strides{};         // byte strides, per side (index(side))
  std::array<std::ptrdiff_t, 2> offsets{};  // bytes from the whole buffer's first element, per side

  const Strides& strides_of(Side side) const noexcept { return strides[index(side)]; }
  std::ptrdiff_t offset_of(Side side) const noexcept { return offsets[index(side)]; }
};

// The whole of an array as a part of itself.
inline Part whole_part(const Shape& shape, const Strides& host, const Strides& device) {
  return Part{shape, {host, device}, {0, 0}};
}

// One dimension of a selection: an index (`start`; negative counts from the end; the dimension is
// dropped), or the elements start, start + step, ... before `stop` with step >= 1, as Python's
// slice.indices gives them (0 <= start, stop <= extent; start >= stop selects nothing).
struct SliceDimension {
  bool index = false;
  std::int64_t start = 0;
  std::int64_t stop = 0;
  std::int64_t step = 1;
};

// The part of `from` that `dims` (one per dimension) select. Throws std::out_of_range for an index
// or range outside its extent, std::invalid_argument for a step below 1 (lapis's views take
// non-negative strides) or a count of dimensions other than the rank.
inline Part slice(const Part& from, const std::vector<SliceDimension>& dims) {
  if (dims.size() != from.shape.rank)
    throw std::invalid_argument("lapis: " + std::to_string(dims.size()) + " slice dimensions for an array of rank " +
                                std::to_string(from.shape.rank));
  Part part{from.shape, {}, from.offsets};
  part.shape.rank = 0;
  part.shape.extents = {};
  for (std::size_t d = 0; d < dims.size(); ++d) {
    const SliceDimension& dim = dims[d];
    const auto extent = static_cast<std::int64_t>(from.shape.extents[d]);
    const std::string where = " of dimension " + std::to_string(d) + " (extent " + std::to_string(extent) + ")";
    std::int64_t first = dim.start;
    std::size_t count = 0;
    if (dim.index) {
      if (first < 0) first += extent;
      if (first < 0 || first >= extent)
        throw std::out_of_range("lapis: index " + std::to_string(dim.start) + " is out of bounds" + where);
    } else {
      if (dim.step < 1)
        throw std::invalid_argument(
            "lapis: slice steps below 1 are not supported (lapis's views take non-negative "
            "strides); got step " +
            std::to_string(dim.step) + where);
      if (first < 0 || first > extent || dim.stop < 0 || dim.stop > extent)
        throw std::out_of_range("lapis: range [" + std::to_string(first) + ", " + std::to_string(dim.stop) +
                                ") is out of bounds" + where);
      // (stop - first - 1) / step + 1 cannot overflow, where (stop - first + step - 1) / step can
      count = dim.stop > first ? static_cast<std::size_t>((dim.stop - first - 1) / dim.step) + 1 : 0;
      if (count == 0) first = 0;  // an empty part starts anywhere: at the whole's first element
    }
    for (Side side : both_sides) part.offsets[index(side)] += first * from.strides_of(side)[d];
    if (dim.index) continue;
    // a step past the last element selects one element, whose stride is never used
    const std::int64_t step = count > 1 ? dim.step : 1;
    part.shape.extents[part.shape.rank] = count;
    for (Side side : both_sides)
      part.strides[index(side)][part.shape.rank] = from.strides_of(side)[d] * static_cast<std::ptrdiff_t>(step);
    ++part.shape.rank;
  }
  return part;
}

// `from` as an array of `extents` (one of them may be -1: what the others leave). Throws
// std::invalid_argument unless the element counts match and both sides are C-contiguous (a reshape
// of anything else would need a copy).
inline Part reshape(const Part& from, const std::vector<std::int64_t>& extents) {
  Shape shape = from.shape;
  shape.rank = extents.size();
  shape.extents = {};
  const auto refuse = [&](const std::string& why) {
    throw std::invalid_argument("lapis: cannot reshape an array of shape " + shape_text(from.shape) + " into shape " +
                                shape_text(extents) + ": " + why);
  };
  if (extents.size() > max_rank) refuse("lapis arrays have at most " + std::to_string(max_rank) + " dimensions");
  std::size_t known = 1, inferred = max_rank;
  for (std::size_t i = 0; i < extents.size(); ++i) {
    if (extents[i] == -1 && inferred == max_rank) {
      inferred = i;
      continue;
    }
    if (extents[i] < 0) refuse(extents[i] == -1 ? "only one extent may be -1" : "extents must not be negative");
    shape.extents[i] = static_cast<std::size_t>(extents[i]);
    if (shape.extents[i] != 0 && known > std::numeric_limits<std::size_t>::max() / shape.extents[i])
      refuse("the element counts differ");
    known *= shape.extents[i];
  }
  const std::size_t size = from.shape.size();
  if (inferred != max_rank) {
    if (known == 0 || size % known != 0) refuse("no extent fits the -1");
    shape.extents[inferred] = size / known;
  }
  if (shape.size() != size) refuse("the element counts differ");
  for (Side side : both_sides)
    if (!is_contiguous(from.shape, from.strides_of(side), Order::right))
      refuse(std::string("its ") + side_name(side) + " side is not C-contiguous (copy it first)");
  const Strides contiguous = contiguous_strides(shape, Order::right);
  return Part{shape, {contiguous, contiguous}, from.offsets};
}

// True when `part` holds every byte of a whole array of `whole_bytes` bytes: as many bytes, none
// seen twice (no stride of zero along an extent above one).
inline bool covers(const Part& part, std::size_t whole_bytes) {
  if (part.shape.nbytes() != whole_bytes) return false;
  for (std::size_t i = 0; i < part.shape.rank; ++i)
    if (part.shape.extents[i] > 1 && (part.strides[0][i] == 0 || part.strides[1][i] == 0)) return false;
  return true;
}

}  // namespace lapis
