// Pageable host memory registered (page-locked) with the device's driver, so that copies between it
// and a device side run at the pinned rate: a numpy array lapis borrows, or a host side lapis
// allocated. The driver copies pageable memory through its own small bounce buffer, at a third of the
// link's rate or less (docs/guide/memory.md has the figures); registered memory it moves directly.
//
// One registration per block of memory (an array's whole allocation), shared by every buffer whose
// memory lies in it and counted: it is made on the block's second copy (its first, for a large
// block: host_registration_eager_bytes) and released when its last user lets go, or, for a block
// whose keeper outlives the buffers (the numpy array that owns the memory, a pooled host block),
// when the keeper says the memory is going (forget_kept_host_block). A block that would pass the
// cap (LAPIS_REGISTER_MAX_BYTES), or that the driver refuses, is not registered: its copies go the
// pageable way, as before. One that overlaps another's registration without lying inside it is not
// registered either, and its copies are staged (the driver refuses such a range). Each refusal is
// counted and traced. On a build whose device memory is host memory (the simulated device) the
// decisions are the same and the driver is never asked.
#pragma once

#include <cstddef>
#include <string>

#include "lapis/core/export.hpp"

namespace lapis {

// The registrations held now and made so far in this process (lapis.host_registrations()).
struct HostRegistrationStats {
  std::size_t held = 0;  // registrations held now
  std::size_t held_bytes = 0;
  std::size_t made = 0;      // registrations made since the process started
  std::size_t released = 0;  // and released
  std::size_t refused = 0;   // copies that asked for one and went the pageable way
};
LAPIS_RUNTIME_API HostRegistrationStats host_registration_stats() noexcept;

// The most bytes lapis keeps registered at once (LAPIS_REGISTER_MAX_BYTES; 0: registration is off).
LAPIS_RUNTIME_API std::size_t host_registration_max_bytes() noexcept;

// Releases the registrations no buffer uses now (lapis.empty_cache(), finalize); returns how many.
LAPIS_RUNTIME_API std::size_t release_idle_host_registrations() noexcept;

namespace detail {

// Borrowed memory smaller than this is copied the driver's way: there are as many such arrays as a
// program makes, each registration costs about as much as tens of small copies, and the driver's
// pageable path is within a few microseconds of the pinned one.
inline constexpr std::size_t host_registration_min_bytes = std::size_t{64} << 10;
// lapis's own host sides from this size up: their blocks are pooled, so each registration serves
// every DualView the block is given to.
inline constexpr std::size_t owned_host_registration_min_bytes = std::size_t{4} << 10;
// A block is registered on its first copy from this size up, where registering and copying pinned
// takes less time than the driver's pageable copy (measured on an H100 and an H200); a smaller one
// on its second copy, so that memory copied once (a temporary array) never pays for a registration.
inline constexpr std::size_t host_registration_eager_bytes = std::size_t{8} << 20;

// Where a host side's memory lies: the block to register for it (an allocation it is a part of),
// and whether something outside the buffer keeps that block's registration and ends it
// (forget_kept_host_block) before the memory is freed or moved.
struct HostBlock {
  const void* begin = nullptr;
  std::size_t bytes = 0;
  bool kept = false;
};

// How a copy between a device side and host memory goes: the driver's own path (pageable memory,
// or memory pinned some other way), the same for a block seen for the first time (registered if it
// is copied again: `deferred`), straight from registered memory, or through lapis's pinned staging
// buffers. The last is for memory that overlaps a registration without lying inside it: the driver
// refuses to copy such a range at all (cudaErrorInvalidValue, seen on an H200).
enum class HostCopyPath : unsigned char { driver, deferred, registered, staged };

// Starts a use of the registration of `block` (made now where none covers it), for copies labelled
// `label`: returns the registration's key (the path is `registered`), or nullptr with the path the
// copies must take instead.
LAPIS_RUNTIME_API const void* use_host_block(const HostBlock& block, const std::string& label,
                                             HostCopyPath& path) noexcept;
// Ends a use that use_host_block started; the registration goes with its last user unless kept.
LAPIS_RUNTIME_API void end_host_block_use(const void* key) noexcept;
// The buffer whose block at `begin`, kept by nothing, use_host_block deferred is done with it, never
// having copied it again: the block is forgotten. (A kept block is forgotten by its keeper.)
LAPIS_RUNTIME_API void end_deferred_host_block(const void* begin) noexcept;
// The keeper of the block at `begin` is done with it (the memory is about to be freed): its kept
// registration is released once no buffer uses it. Nothing happens where there is none.
LAPIS_RUNTIME_API void forget_kept_host_block(const void* begin) noexcept;
// The path of a copy of [begin, begin + bytes) that asks for no registration (a small one).
LAPIS_RUNTIME_API HostCopyPath unregistered_copy_path(const void* begin, std::size_t bytes) noexcept;

// One buffer's use of its host memory's registration: none until acquire() finds one, ended with it.
class HostBlockUse {
 public:
  HostBlockUse() = default;
  HostBlockUse(const HostBlockUse&) = delete;
  HostBlockUse& operator=(const HostBlockUse&) = delete;
  ~HostBlockUse() { reset(); }

  // How copies of the buffer's host memory in `block` go: asks the registry until it has an answer
  // for good (a deferred block is asked about again at its next copy).
  HostCopyPath acquire(const HostBlock& block, const std::string& label) noexcept {
    if (path_ == HostCopyPath::deferred || !asked_) {
      asked_ = true;
      block_ = block;
      key_ = use_host_block(block, label, path_);
    }
    return path_;
  }
  // Lets go (the buffer's memory is released); a later acquire() asks again.
  void reset() noexcept {
    if (key_ != nullptr) end_host_block_use(key_);
    else if (path_ == HostCopyPath::deferred && !block_.kept) end_deferred_host_block(block_.begin);
    key_ = nullptr;
    asked_ = false;
    path_ = HostCopyPath::driver;
  }

 private:
  const void* key_ = nullptr;
  HostBlock block_;  // the block last asked about
  HostCopyPath path_ = HostCopyPath::driver;
  bool asked_ = false;
};

}  // namespace detail
}  // namespace lapis
