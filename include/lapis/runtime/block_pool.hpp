// lapis's caching allocator: memory a DualView side no longer needs is kept, per memory space and
// size class, and handed to the next request of that class instead of going back to the memory
// space (cudaFree waits for the whole device; cudaMalloc and the heap cost microseconds).
//
// Reuse is ordered by the execution space instance: lapis queues all its work on one instance per
// memory space, so work queued after a block's reuse runs after the work that used it before.
// Memory that left lapis's order (lent to DLPack or CUDA-array-interface consumers, or to code that
// took a raw device pointer) is never cached: it goes back to the memory space, whose free waits
// for the device.
//
// Size classes: requests up to 1 MiB round up to a power of two (at least 512 bytes), larger ones
// to a multiple of 2 MiB; a cached block serves only requests of its own class (no splitting), so
// a block wastes less than half of itself below 1 MiB and less than 2 MiB above.
//
// The pool is the process's one (lapis's runtime library): every module's allocations share it.
// LAPIS_POOL=0 in the environment turns caching off (for compute-sanitizer and debugging);
// LAPIS_POOL_POISON=1 fills every cached block with 0xFF bytes, so that a use after free reads
// garbage (NaN for floating point) instead of the old values.
#pragma once

#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "lapis/core/export.hpp"

namespace lapis {

// The pool's figures for one memory space.
struct PoolStats {
  std::size_t in_use_bytes = 0;  // the capacity of the blocks DualViews hold now
  std::size_t cached_bytes = 0;  // kept for reuse
  std::size_t cached_blocks = 0;
  std::size_t allocated = 0;  // blocks taken from the memory space
  std::size_t reused = 0;     // requests served from the cache
  std::size_t freed = 0;      // blocks given back to the memory space
};

namespace detail {

// The memory lapis holds now, counted by every module's allocations (detail/allocation.hpp).
struct LiveCounter {
  std::atomic<std::size_t> allocations{0};
  std::atomic<std::size_t> bytes{0};
};
LAPIS_RUNTIME_API LiveCounter& live_counter() noexcept;

// Memory of one block, freed when the Block is destroyed.
class Block {
 public:
  virtual ~Block() = default;
  virtual unsigned char* data() const noexcept = 0;
  // Sets the first `count` bytes to `byte`, on the memory space's execution space (queued where it
  // can be), under the execution lock where it dispatches (held already or not).
  virtual void fill(unsigned char byte, std::size_t count) = 0;
};

class LAPIS_RUNTIME_API BlockPool {
 public:
  static std::size_t capacity_for(std::size_t bytes) noexcept;

  // A cached block of `capacity` bytes in `space` (a memory space's name), or null.
  std::unique_ptr<Block> take(const std::string& space, std::size_t capacity);
  // Records a block just allocated from the memory space for a request of `capacity`.
  void allocated(const std::string& space, std::size_t capacity);
  // Takes back a block handed out by take() or recorded by allocated(): cached when `reusable`
  // and the pool is on, freed otherwise. Poisons it first in poison mode.
  void give(const std::string& space, std::size_t capacity, std::unique_ptr<Block> block, bool reusable) noexcept;
  // Frees the cached blocks of `space`, or of every space when it is null; returns the bytes freed.
  std::size_t empty(const std::string* space = nullptr) noexcept;
  // Frees every cached block and caches nothing from now on: lapis::finalize calls it before Kokkos
  // is finalized.
  void close() noexcept;
  // In a forked child of a process whose device memory is gone there: every block, cached now or
  // given back later, is left allocated (freeing it would call into the device), and the pool's
  // lock, which another thread may have held at the fork, is made anew.
  void abandon_after_fork() noexcept;

  std::map<std::string, PoolStats> stats() const;
  bool caching() const noexcept;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, std::size_t>, std::vector<std::unique_ptr<Block>>> cached_;
  std::map<std::string, PoolStats> stats_;
  std::atomic<bool> closed_{false};
  std::atomic<bool> abandoned_{false};
};

LAPIS_RUNTIME_API BlockPool& block_pool() noexcept;

// For its scope, lets this thread allocate device memory while it captures a device graph
// (runtime/graph.hpp), which a captured kernel needing scratch the pool has not cached does: the
// graph keeps every block given back during its capture, so that what its kernels use stays theirs.
// Nothing elsewhere.
class LAPIS_RUNTIME_API AllocationDuringCapture {
 public:
  AllocationDuringCapture() noexcept;
  ~AllocationDuringCapture();
  AllocationDuringCapture(const AllocationDuringCapture&) = delete;
  AllocationDuringCapture& operator=(const AllocationDuringCapture&) = delete;

 private:
  int previous_mode_ = -1;  // the thread's capture mode before the scope, where it changed
};

// Host blocks of huge_page_advice_bytes or more are aligned to huge_page_bytes and advised into
// transparent huge pages (advise_huge_pages).
inline constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;
inline constexpr std::size_t huge_page_advice_bytes = std::size_t{4} << 20;

// Asks Linux to back the pages of [data, data + bytes) with transparent huge pages, which its
// "madvise" mode (Debian's default) gives only on request, as numpy requests them for its arrays of
// 4 MiB or more: a loop streaming through 4 KiB pages takes a TLB miss every 4 KiB. Advice only:
// where the system declines, or elsewhere than Linux, nothing changes.
LAPIS_RUNTIME_API void advise_huge_pages(void* data, std::size_t bytes) noexcept;

}  // namespace detail

// Allocations owned by lapis now (host and device sides), and their bytes.
inline std::size_t live_allocations() noexcept {
  return detail::live_counter().allocations.load(std::memory_order_relaxed);
}
inline std::size_t live_bytes() noexcept { return detail::live_counter().bytes.load(std::memory_order_relaxed); }

// What the pool holds, per memory space (by Kokkos's name for it).
inline std::map<std::string, PoolStats> pool_stats() { return detail::block_pool().stats(); }
// Gives every cached block back to its memory space; returns the bytes freed.
inline std::size_t empty_cache() noexcept { return detail::block_pool().empty(); }

}  // namespace lapis
