// A part of a buffer seen as a buffer of its own (AnyDualBuffer): a Python slice or reshape, a C++
// subview, a LAPIS child view. It has its own shape, strides and offsets (a Part) and shares
// everything else with the whole buffer: flags, syncs, copies and counts are the whole allocation's,
// so syncing one part never loses another part's pending change. Kokkos-free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <typeinfo>
#include <utility>
#include <vector>

#include "lapis/core/any_dual_buffer.hpp"
#include "lapis/core/part.hpp"

namespace lapis {

class BufferPart final : public AnyDualBuffer {
 public:
  // `whole` is never itself a part (the functions below make parts of the whole).
  BufferPart(std::shared_ptr<AnyDualBuffer> whole, const Part& part)
      : whole_(std::move(whole)), part_(part), covers_whole_(covers(part, whole_->shape().nbytes())) {}

  const std::shared_ptr<AnyDualBuffer>& whole() const noexcept { return whole_; }
  const Part& part() const noexcept { return part_; }

  const std::string& label() const noexcept override { return whole_->label(); }
  const Shape& shape() const noexcept override { return part_.shape; }
  const Strides& strides(Side side) const noexcept override { return part_.strides_of(side); }
  const char* space_name(Side side) const noexcept override { return whole_->space_name(side); }
  bool allocated(Side side) const noexcept override { return whole_->allocated(side); }
  bool need_sync(Side side) const noexcept override { return whole_->need_sync(side); }
  bool aliased() const noexcept override { return whole_->aliased(); }
  bool borrowed(Side side) const noexcept override { return whole_->borrowed(side); }
  bool host_writable() const noexcept override { return whole_->host_writable(); }
  const unsigned char* borrowed_address(Side side) const noexcept override {
    const unsigned char* whole = whole_->borrowed_address(side);
    return whole ? whole + part_.offset_of(side) : nullptr;
  }
  // A part that is not the whole array overwrites only some of it: the rest is synced first.
  void* access(Side side, Access access, Intent intent = Intent::implicit,
               AddressUse address_use = AddressUse::kept) override {
    if (access == Access::overwrite && !covers_whole_) access = Access::write;
    void* data = whole_->access(side, access, intent, address_use);
    return data == nullptr ? nullptr : static_cast<unsigned char*>(data) + part_.offset_of(side);
  }
  void clear_sync_state() noexcept override { whole_->clear_sync_state(); }
  TransferStats transfers() const noexcept override { return whole_->transfers(); }
  void mark_lent(Side side) noexcept override { whole_->mark_lent(side); }
  std::uint64_t device_version() const noexcept override { return whole_->device_version(); }
  // The whole buffer's memory is released with it (by finalize, or when the last part dies).
  void release() noexcept override {}
  bool free_device_side() override { return false; }  // the whole buffer's, which other parts may use

 private:
  std::shared_ptr<AnyDualBuffer> whole_;
  Part part_;
  bool covers_whole_;
};

namespace detail {

// `buffer` as the part it is, or null. BufferPart is final, so comparing types is exact; it is also
// far cheaper than a dynamic_cast that fails, which every kernel call would pay per argument.
inline const BufferPart* as_part(const AnyDualBuffer& buffer) noexcept {
  return typeid(buffer) == typeid(BufferPart) ? static_cast<const BufferPart*>(&buffer) : nullptr;
}

}  // namespace detail

// The whole buffer a buffer is part of (the buffer itself when it is whole).
inline std::shared_ptr<AnyDualBuffer> whole_of(const std::shared_ptr<AnyDualBuffer>& buffer) {
  const auto* part = detail::as_part(*buffer);
  return part ? part->whole() : buffer;
}

// The whole buffer a buffer is part of, as an address to compare (parts of one buffer give the
// same), without taking a reference: a kernel call compares every pair of its arguments' wholes.
inline const AnyDualBuffer* whole_address_of(const AnyDualBuffer& buffer) noexcept {
  const auto* part = detail::as_part(buffer);
  return part ? part->whole().get() : &buffer;
}

// Where `buffer` lies in its whole buffer.
inline Part location_of(const AnyDualBuffer& buffer) {
  const auto* part = detail::as_part(buffer);
  return part ? part->part() : whole_part(buffer.shape(), buffer.strides(Side::host), buffer.strides(Side::device));
}

// `part` of `buffer`'s whole buffer, as a buffer sharing its state.
inline std::shared_ptr<AnyDualBuffer> part_of(const std::shared_ptr<AnyDualBuffer>& buffer, const Part& part) {
  return std::make_shared<BufferPart>(whole_of(buffer), part);
}

// lapis::slice and lapis::reshape (part.hpp) of a buffer: a buffer sharing its state.
inline std::shared_ptr<AnyDualBuffer> slice(const std::shared_ptr<AnyDualBuffer>& buffer,
                                            const std::vector<SliceDimension>& dims) {
  return part_of(buffer, slice(location_of(*buffer), dims));
}
inline std::shared_ptr<AnyDualBuffer> reshape(const std::shared_ptr<AnyDualBuffer>& buffer,
                                              const std::vector<std::int64_t>& extents) {
  return part_of(buffer, reshape(location_of(*buffer), extents));
}

}  // namespace lapis
