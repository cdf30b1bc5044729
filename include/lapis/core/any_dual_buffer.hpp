// The type-erased core of a DualView: one logical array of `shape()` with a host side and a
// device side, each possibly allocated, each possibly stale. Kokkos-free, so that code built
// without Kokkos (the Cython layer, other extensions) can hold and drive DualViews.
//
// The only implementation is lapis::DualBuffer (dual_buffer.hpp), created by code that is
// compiled with Kokkos. lapis::DualView<...> is the typed C++ facade over it.
#pragma once

#include <string>

#include "lapis/core/shape.hpp"
#include "lapis/core/side.hpp"
#include "lapis/core/transfer_stats.hpp"

namespace lapis {

// What a borrower of a side's memory will do with it (lend.hpp).
enum class Access { read, write, overwrite };

class AnyDualBuffer {
 public:
  virtual ~AnyDualBuffer() = default;

  virtual const std::string& label() const noexcept = 0;
  virtual const Shape& shape() const noexcept = 0;
  // Byte strides of a side (its layout is fixed at construction, allocated or not).
  virtual const Strides& strides(Side side) const noexcept = 0;
  // The Kokkos memory space of a side, by Kokkos's name for it (e.g. "Cuda", "HostSpace").
  virtual const char* space_name(Side side) const noexcept = 0;

  virtual bool allocated(Side side) const noexcept = 0;
  // True when `side` lacks changes made on the other side. Tracked the same way where the sides
  // are one memory (aliased): there the sync it asks for copies nothing.
  virtual bool need_sync(Side side) const noexcept = 0;
  // True when both sides are the same memory: nothing is ever copied.
  virtual bool aliased() const noexcept = 0;
  // True when `side` is memory lent by the caller (a numpy buffer on the host, a CuPy array or
  // PyTorch tensor on the device); lapis never frees it.
  virtual bool borrowed(Side side) const noexcept = 0;
  virtual bool host_writable() const noexcept = 0;

  // Brings `side` up to date: one whole-allocation copy if the other side was modified, nothing
  // otherwise. Allocates `side` first if needed. The host side waits for queued device work
  // even where the sides are one memory.
  virtual void sync(Side side) = 0;
  // Records that `side` was written. Throws ConcurrentModificationError if the other side holds
  // unsynced changes, ReadOnlyError if this would (now or at the next sync) write a read-only host.
  virtual void modify(Side side) = 0;
  // Address of `side`'s first element, allocating it zero-filled if needed; neither syncs nor
  // marks anything. Readers call sync(side) first; writers call modify(side) after.
  virtual void* data(Side side) = 0;
  // For a caller that will overwrite every element of `side`: allocates it without filling,
  // discards the other side's unsynced changes and marks `side` modified. Nothing is copied.
  virtual void* data_for_overwrite(Side side) = 0;

  // Forgets both sides' modified marks, syncing nothing (Kokkos::DualView::clear_sync_state).
  virtual void clear_sync_state() noexcept = 0;

  // Copies made for this buffer so far.
  virtual TransferStats transfers() const noexcept = 0;

  // Records that `side`'s memory was handed to code lapis cannot track (a DLPack or CUDA array
  // interface consumer, a module holding a raw pointer): release() then leaves it allocated.
  virtual void mark_lent(Side side) noexcept = 0;

  // Frees the memory that needs a live Kokkos (device memory, Kokkos host spaces), except memory
  // marked lent, which stays allocated until the process exits (freeing it would pull it from
  // under its user; Kokkos cannot free it after finalize). Called by lapis::finalize() for every
  // live buffer, after which any use throws RuntimeFinalizedError, and by a dying buffer.
  virtual void release() noexcept = 0;
};

}  // namespace lapis
