// lapis's caching allocator (runtime/block_pool.hpp).
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "device_graph.hpp"
#include "lapis/runtime/block_pool.hpp"
#include "lapis/runtime/graph.hpp"
#include "settings.hpp"

namespace lapis::detail {

std::size_t BlockPool::capacity_for(std::size_t bytes) noexcept {
  constexpr std::size_t small_limit = std::size_t{1} << 20, large_step = std::size_t{2} << 20;
  if (bytes > small_limit) return (bytes + large_step - 1) / large_step * large_step;
  std::size_t capacity = 512;
  while (capacity < bytes) capacity *= 2;
  return capacity;
}

std::unique_ptr<Block> BlockPool::take(const std::string& space, std::size_t capacity) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = cached_.find({space, capacity});
  if (found == cached_.end() || found->second.empty()) return nullptr;
  std::unique_ptr<Block> block = std::move(found->second.back());
  found->second.pop_back();
  PoolStats& stats = stats_[space];
  stats.cached_bytes -= capacity;
  stats.cached_blocks -= 1;
  stats.in_use_bytes += capacity;
  stats.reused += 1;
  return block;
}

void BlockPool::allocated(const std::string& space, std::size_t capacity) {
  std::lock_guard<std::mutex> lock(mutex_);
  PoolStats& stats = stats_[space];
  stats.in_use_bytes += capacity;
  stats.allocated += 1;
}

void BlockPool::give(const std::string& space, std::size_t capacity, std::unique_ptr<Block> block,
                     bool reusable) noexcept {
  if (abandoned_) {
    static_cast<void>(block.release());
    return;
  }
  if (capturing_device_graph() && keep_for_device_graph(space, capacity, block)) return;
  bool cache = reusable && caching();
  if (cache && settings_or_defaults().pool_poison) {
    try {
      block->fill(0xFF, capacity);
    } catch (...) {  // a block that cannot be poisoned is not kept
      cache = false;
    }
  }
  std::unique_ptr<Block> freed;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    PoolStats& stats = stats_[space];
    stats.in_use_bytes -= capacity;
    if (cache && !closed_) {
      try {
        cached_[{space, capacity}].push_back(std::move(block));
        stats.cached_bytes += capacity;
        stats.cached_blocks += 1;
        return;
      } catch (...) {  // no memory for the list: free the block instead
      }
    }
    stats.freed += 1;
    freed = std::move(block);
  }
  // freed here, outside the lock: freeing device memory waits for the device
}

// Frees under the lock, so that close() (in finalize, before Kokkos goes) waits for a concurrent
// empty_cache() to finish freeing.
std::size_t BlockPool::empty(const std::string* space) noexcept {
  if (capturing_device_graph()) return 0;  // a free would end the capture (it waits for the device)
  std::lock_guard<std::mutex> lock(mutex_);
  std::size_t bytes = 0;
  for (auto& [key, blocks] : cached_) {
    if (space != nullptr && key.first != *space) continue;
    PoolStats& stats = stats_[key.first];
    bytes += key.second * blocks.size();
    stats.cached_bytes -= key.second * blocks.size();
    stats.cached_blocks -= blocks.size();
    stats.freed += blocks.size();
    blocks.clear();
  }
  return bytes;
}

void BlockPool::close() noexcept {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
  }
  empty();
}

void BlockPool::abandon_after_fork() noexcept {
  new (&mutex_) std::mutex;
  abandoned_ = true;
  closed_ = true;
  for (auto& [key, blocks] : cached_)
    for (auto& block : blocks) static_cast<void>(block.release());
  cached_.clear();
}

std::map<std::string, PoolStats> BlockPool::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

bool BlockPool::caching() const noexcept { return settings_or_defaults().pool && !closed_; }

BlockPool& block_pool() noexcept {
  static BlockPool pool;
  return pool;
}

void advise_huge_pages(void* data, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const std::uintptr_t page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const std::uintptr_t start = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (start + page - 1) / page * page, end = (start + bytes) / page * page;
  if (end > first) static_cast<void>(madvise(reinterpret_cast<void*>(first), end - first, MADV_HUGEPAGE));
#else
  static_cast<void>(data);
  static_cast<void>(bytes);
#endif
}

}  // namespace lapis::detail
