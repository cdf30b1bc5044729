// The type-erased core of a DualView: one logical array of `shape()` with a host side and a
// device side, each possibly allocated, each possibly stale. Kokkos-free, so that code built
// without Kokkos (the Cython layer, other extensions) can hold and drive DualViews.
//
// Implementations: lapis::DualBuffer (detail/dual_buffer.hpp), a whole allocation, created by code
// compiled with Kokkos; lapis::BufferPart (buffer_part.hpp), a part of one. lapis::DualView<...> is
// the typed C++ facade over either.
//
// Every use of a side's data goes through one operation, access(): it syncs, marks and hands out
// the side's address as one step under the buffer's lock (Tpetra's access modes), so no other
// thread's mark can fall between a sync and the read it was for.
#pragma once

#include <cstdint>
#include <string>

#include "lapis/core/errors.hpp"
#include "lapis/core/shape.hpp"
#include "lapis/core/side.hpp"
#include "lapis/core/transfer_guard.hpp"
#include "lapis/core/transfer_stats.hpp"

namespace lapis {

// What an access does to a side.
enum class Access : std::uint8_t {
  address,    // its address (allocated, zero-filled, if it was not); nothing synced or marked: a plain
              // view accessor, as Kokkos::DualView's view_host()
  sync,       // brought up to date (one whole-allocation copy if the other side was modified); no
              // address, and nothing allocated when nothing is copied
  read,       // sync, then its address
  write,      // read, and marked modified: the caller reads and writes it
  overwrite,  // its address for a caller that writes every element: allocated unfilled if new, the
              // other side's unsynced changes discarded, marked modified; nothing is copied
  mark,       // marked modified (the caller wrote it); no address
};

// Who asks for a copy that an access needs (the transfer guard, core/transfer_guard.hpp, lets
// named copies through and judges implicit ones).
enum class Intent : std::uint8_t {
  implicit,  // a read that needed it (a kernel argument, an export, asnumpy())
  named,     // a sync call
  refused,   // nobody: a copy needed throws StaleAccessError instead (sync::Manual)
};

// How long the address an access hands out is used. It decides whether lapis still sees every write
// of the device side's memory (AnyDualBuffer::device_version).
enum class AddressUse : std::uint8_t {
  kept,  // for as long as its holder likes (a view handed out, an export, a raw pointer): it may be
         // written at any time, unseen
  call,  // only by the caller's own work, done or queued before the call that took it returns (a
         // kernel launch, a fill, a copy), or only compared, never written
};

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
  // The address of `side`'s first element where that side is borrowed memory, null where it is not:
  // fixed for the buffer's life, so read without its lock (an overlap check's first, cheap test).
  virtual const unsigned char* borrowed_address(Side side) const noexcept = 0;

  // Does `access` to `side` under the buffer's lock; returns the side's address where the access
  // hands one out (nullptr for sync and mark). A part's address is its first element's. The host
  // side waits for queued device work even where the sides are one memory. Throws
  // ConcurrentModificationError when a mark meets unsynced changes of the other side,
  // ReadOnlyError when a write would (now or at the next sync) write a read-only host side,
  // TransferGuardError or StaleAccessError when a needed copy is refused.
  virtual void* access(Side side, Access access, Intent intent = Intent::implicit,
                       AddressUse address_use = AddressUse::kept) = 0;

  // A number naming the device side's present contents: every write lapis makes there or lets a call
  // make (a copy onto it, a mark, an overwrite, an allocation) gives it a new one, never given before
  // in the process. 0, never a version, once lapis cannot see every write: the memory is the caller's
  // (borrowed device memory, or borrowed host memory that the device shares) or its address was kept
  // (AddressUse::kept, mark_lent). A kernel may skip re-checking what it checked at the same version
  // (kernels/checked_structures.hpp).
  virtual std::uint64_t device_version() const noexcept = 0;

  // The accesses by their Kokkos::DualView names.
  void sync(Side side, Intent intent = Intent::implicit) { access(side, Access::sync, intent); }
  void modify(Side side) { access(side, Access::mark); }
  void* data(Side side, AddressUse use = AddressUse::kept) {
    return access(side, Access::address, Intent::implicit, use);
  }
  // Where `side` lies (allocated, zero-filled, if it was not), to compare with other addresses,
  // never to write through.
  const void* address(Side side) { return data(side, AddressUse::call); }
  void* data_for_overwrite(Side side, AddressUse use = AddressUse::kept) {
    return access(side, Access::overwrite, Intent::implicit, use);
  }

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

  // Frees the device side where it holds nothing the host side lacks and only lapis uses it (lapis
  // allocated it apart from the host side, which is allocated, and handed its address to nobody to
  // keep: device_version is not 0), and with it the buffer's use of its host memory's registration for copies (the
  // memory's owner keeps that: host_registration.hpp). The host side is then the current one, and the next access that
  // needs the device side allocates and fills it anew. Returns whether it freed it (not once finalized: everything is
  // freed then). The caller must be the buffer's one user: another holder may be about to use the memory. A numpy
  // array's wrapping kept for the next call (adoptions.pxi) holds nothing between calls that a new wrapping's death
  // would have let go.
  virtual bool free_device_side() = 0;
};

// Throws ReadOnlyError unless `side` of `buffer` may be written: nothing may write a buffer whose
// host side is read-only, its device side included (those changes could never reach the host).
// The message begins with `who` (say "gemm") and `argument` (say "out") when given: built only for a
// refusal, as a kernel's every call asks.
inline void require_writable(const AnyDualBuffer& buffer, Side side, const char* who = "lapis",
                             const char* argument = nullptr) {
  if (!buffer.host_writable())
    throw ReadOnlyError(std::string(who) + (argument ? std::string(": ") + argument : std::string()) +
                        ": cannot write the " + side_name(side) + " side of \"" + buffer.label() +
                        "\": its host side is read-only" +
                        (side == Side::device ? " (the device side's changes could never reach it)" : ""));
}

// Whether `buffer`'s host side is its caller's memory (a borrowed numpy array) apart from its device
// side: changes made on the device are then copied back into that memory, implicitly, before control
// returns to its owner or the buffer goes, so that no write is lost.
inline bool writes_back(const AnyDualBuffer& buffer) noexcept {
  return buffer.borrowed(Side::host) && !buffer.borrowed(Side::device) && !buffer.aliased();
}

// TransferGuardError now if that write-back of `buffer` would be refused: a write on its device side
// commits lapis to the copy, so the write is refused, before anything changes, rather than the copy
// failing later where nothing can raise (a destructor).
inline void refuse_if_write_back_disallowed(const AnyDualBuffer& buffer) {
  if (writes_back(buffer)) detail::refuse_if_disallowed(Direction::device_to_host, buffer.label(), buffer.shape());
}

// TransferGuardError now if bringing `buffer`'s `side` up to date would be an implicit copy the guard
// refuses (bytes to move between sides that are apart): for a caller that must refuse before it does
// anything (a collective, before the ranks agree to go on).
inline void refuse_if_sync_disallowed(const AnyDualBuffer& buffer, Side side) {
  if (buffer.aliased() || !buffer.need_sync(side) || buffer.shape().nbytes() == 0) return;
  detail::refuse_if_disallowed(side == Side::device ? Direction::host_to_device : Direction::device_to_host,
                               buffer.label(), buffer.shape());
}

}  // namespace lapis
