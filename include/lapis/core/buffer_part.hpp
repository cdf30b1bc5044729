// A part of a buffer seen as an array of its own: a basic slice (Python's dv[1:3, 0]) or a reshape
// of a C-contiguous array. A part has its own shape, strides and offsets, and shares everything else
// with the whole buffer: flags, syncs, copies and counts are the whole allocation's, as for a C++
// subview (dualview.hpp), so syncing one part never loses another part's pending change.
// Kokkos-free: the Cython layer makes parts; typed code adopts them (lapis::DualView(buffer)).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#include "lapis/core/any_dual_buffer.hpp"
#include "lapis/core/shape.hpp"

namespace lapis {

class BufferPart final : public AnyDualBuffer {
 public:
  // `strides` and `offsets` (bytes from the whole array's first element) per side: host, device.
  BufferPart(std::shared_ptr<AnyDualBuffer> whole, const Shape& shape, const std::array<Strides, 2>& strides,
             const std::array<std::ptrdiff_t, 2>& offsets)
      : whole_(std::move(whole)), shape_(shape), strides_(strides), offsets_(offsets),
        covers_whole_(shape.size() == whole_->shape().size()) {}

  // The whole buffer (never itself a part), and where this part starts in it, in bytes.
  const std::shared_ptr<AnyDualBuffer>& whole() const noexcept { return whole_; }
  std::ptrdiff_t offset(Side side) const noexcept { return offsets_[index(side)]; }

  const std::string& label() const noexcept override { return whole_->label(); }
  const Shape& shape() const noexcept override { return shape_; }
  const Strides& strides(Side side) const noexcept override { return strides_[index(side)]; }
  const char* space_name(Side side) const noexcept override { return whole_->space_name(side); }
  bool allocated(Side side) const noexcept override { return whole_->allocated(side); }
  bool need_sync(Side side) const noexcept override { return whole_->need_sync(side); }
  bool aliased() const noexcept override { return whole_->aliased(); }
  bool borrowed(Side side) const noexcept override { return whole_->borrowed(side); }
  bool host_writable() const noexcept override { return whole_->host_writable(); }
  void sync(Side side) override { whole_->sync(side); }
  void modify(Side side) override { whole_->modify(side); }
  void* data(Side side) override { return at(side, whole_->data(side)); }
  // A part that is not the whole array overwrites only some of it: the rest is synced first.
  void* data_for_overwrite(Side side) override {
    if (covers_whole_) return at(side, whole_->data_for_overwrite(side));
    whole_->sync(side);
    whole_->modify(side);
    return data(side);
  }
  void clear_sync_state() noexcept override { whole_->clear_sync_state(); }
  TransferStats transfers() const noexcept override { return whole_->transfers(); }
  void mark_lent(Side side) noexcept override { whole_->mark_lent(side); }
  // The whole buffer's memory is released with it (by finalize, or when the last part dies).
  void release() noexcept override {}

 private:
  static constexpr int index(Side side) noexcept { return side == Side::host ? 0 : 1; }
  void* at(Side side, void* whole_data) const noexcept { return static_cast<unsigned char*>(whole_data) + offsets_[index(side)]; }

  std::shared_ptr<AnyDualBuffer> whole_;
  Shape shape_;
  std::array<Strides, 2> strides_;
  std::array<std::ptrdiff_t, 2> offsets_;
  bool covers_whole_;  // parts never overlap themselves: as many elements as the whole is all of it
};

// One dimension of a basic slice: an index (`start`; negative counts from the end; the dimension is
// dropped), or the elements start, start + step, ... before `stop` (0 <= start <= stop <= extent,
// step >= 1: Python's slice.indices for a positive step).
struct SliceDimension {
  bool index = false;
  std::int64_t start = 0;
  std::int64_t stop = 0;
  std::int64_t step = 1;
};

namespace detail {

// `buffer` as the part it is, or null. BufferPart is final, so comparing types is exact; it is also
// far cheaper than a dynamic_cast that fails, which every kernel call would pay per argument.
inline const BufferPart* as_part(const AnyDualBuffer& buffer) noexcept {
  return typeid(buffer) == typeid(BufferPart) ? static_cast<const BufferPart*>(&buffer) : nullptr;
}
inline std::shared_ptr<AnyDualBuffer> whole_of(const std::shared_ptr<AnyDualBuffer>& buffer) {
  const auto* part = as_part(*buffer);
  return part ? part->whole() : buffer;
}
inline std::array<std::ptrdiff_t, 2> offsets_of(const AnyDualBuffer& buffer) {
  const auto* part = as_part(buffer);
  return part ? std::array<std::ptrdiff_t, 2>{part->offset(Side::host), part->offset(Side::device)}
              : std::array<std::ptrdiff_t, 2>{0, 0};
}
constexpr Side sides[] = {Side::host, Side::device};

}  // namespace detail

// The part of `buffer` that `dims` (one per dimension) select, sharing its state. Throws
// std::out_of_range for an index or range outside its extent, std::invalid_argument for a step
// below 1 (lapis's views take non-negative strides) or a count of dimensions other than the rank.
inline std::shared_ptr<AnyDualBuffer> slice(const std::shared_ptr<AnyDualBuffer>& buffer,
                                            const std::vector<SliceDimension>& dims) {
  const Shape& from = buffer->shape();
  if (dims.size() != from.rank)
    throw std::invalid_argument("lapis: " + std::to_string(dims.size()) + " slice dimensions for an array of rank " +
                                std::to_string(from.rank));
  Shape shape = from;
  shape.rank = 0;
  shape.extents = {};
  std::array<Strides, 2> strides{};
  std::array<std::ptrdiff_t, 2> offsets = detail::offsets_of(*buffer);
  for (std::size_t d = 0; d < dims.size(); ++d) {
    const SliceDimension& dim = dims[d];
    const auto extent = static_cast<std::int64_t>(from.extents[d]);
    const std::string where = " of dimension " + std::to_string(d) + " (extent " + std::to_string(extent) + ")";
    std::int64_t first = dim.start;
    if (dim.index) {
      if (first < 0) first += extent;
      if (first < 0 || first >= extent)
        throw std::out_of_range("lapis: index " + std::to_string(dim.start) + " is out of bounds" + where);
    } else {
      if (dim.step < 1)
        throw std::invalid_argument("lapis: slice steps below 1 are not supported (lapis's views take non-negative "
                                    "strides); got step " + std::to_string(dim.step) + where);
      if (first < 0 || dim.stop < first || dim.stop > extent)
        throw std::out_of_range("lapis: range [" + std::to_string(first) + ", " + std::to_string(dim.stop) +
                                ") is out of bounds" + where);
    }
    for (int i = 0; i < 2; ++i) offsets[i] += first * buffer->strides(detail::sides[i])[d];
    if (dim.index) continue;
    shape.extents[shape.rank] = static_cast<std::size_t>((dim.stop - first + dim.step - 1) / dim.step);
    for (int i = 0; i < 2; ++i) strides[i][shape.rank] = buffer->strides(detail::sides[i])[d] * dim.step;
    ++shape.rank;
  }
  return std::make_shared<BufferPart>(detail::whole_of(buffer), shape, strides, offsets);
}

// `buffer` as an array of `extents` (one of them may be -1: what the others leave), sharing its
// state. Throws std::invalid_argument unless the element counts match and both sides are
// C-contiguous (a reshape of anything else would need a copy).
inline std::shared_ptr<AnyDualBuffer> reshape(const std::shared_ptr<AnyDualBuffer>& buffer,
                                              const std::vector<std::int64_t>& extents) {
  const Shape& from = buffer->shape();
  Shape shape = from;
  shape.rank = extents.size();
  shape.extents = {};
  const auto refuse = [&](const std::string& why) {
    throw std::invalid_argument("lapis: cannot reshape an array of shape " + shape_text(from) + " into shape " +
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
    known *= shape.extents[i];
  }
  if (inferred != max_rank) {
    if (known == 0 || from.size() % known != 0) refuse("no extent fits the -1");
    shape.extents[inferred] = from.size() / known;
  }
  if (shape.size() != from.size()) refuse("the element counts differ");
  for (Side side : detail::sides)
    if (!is_contiguous(from, buffer->strides(side), Order::right))
      refuse(std::string("its ") + (side == Side::host ? "host" : "device") +
             " side is not C-contiguous (copy it first)");
  const Strides contiguous = contiguous_strides(shape, Order::right);
  return std::make_shared<BufferPart>(detail::whole_of(buffer), shape, std::array<Strides, 2>{contiguous, contiguous},
                                      detail::offsets_of(*buffer));
}

}  // namespace lapis
