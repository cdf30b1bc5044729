// The registry of host memory registered with the device's driver (runtime/host_registration.hpp):
// blocks by address, each with its users and whether a keeper holds it, under one lock.
#include "lapis/runtime/host_registration.hpp"

#include <Kokkos_Core.hpp>
#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <iterator>
#include <map>
#include <mutex>
#include <new>
#include <utility>

#include "lapis/runtime/trace.hpp"
#include "settings.hpp"

namespace lapis {
namespace detail {
namespace {

// The driver's part: page-locks [begin, begin + bytes), or says why not (nullptr: done).
#if defined(KOKKOS_ENABLE_CUDA)
constexpr bool asks_driver = true;
const char* driver_register(const void* begin, std::size_t bytes) noexcept {
  const cudaError_t error = cudaHostRegister(const_cast<void*>(begin), bytes, cudaHostRegisterDefault);
  if (error == cudaSuccess) return nullptr;
  static_cast<void>(cudaGetLastError());  // not left behind for the next CUDA call to report
  return cudaGetErrorString(error);
}
void driver_unregister(const void* begin) noexcept {
  if (cudaHostUnregister(const_cast<void*>(begin)) != cudaSuccess) static_cast<void>(cudaGetLastError());
}
#else
// Device memory is host memory (the simulated device keeps a copy apart in it): nothing to lock.
constexpr bool asks_driver = false;
const char* driver_register(const void*, std::size_t) noexcept { return nullptr; }
void driver_unregister(const void*) noexcept {}
#endif

// How many registrations are held: a copy that asks for none looks at them only when there are some.
std::atomic<std::size_t> registered_blocks{0};

struct Entry {
  std::size_t bytes = 0;
  std::size_t users = 0;
  bool kept = false;           // its keeper ends it (forget_kept_host_block), not its last user
  std::uint64_t last_use = 0;  // the idle kept entry used longest ago is released first, for the cap
  std::string label;           // the buffer it was made for: the trace's name for it
};

class Registry {
 public:
  const void* use(const HostBlock& block, const std::string& label, HostCopyPath& path) {
    const std::lock_guard<std::mutex> lock(mutex_);
    path = HostCopyPath::driver;
    if (forked_) return nullptr;
    const auto begin = reinterpret_cast<std::uintptr_t>(block.begin), end = begin + block.bytes;
    Entries::iterator covering;
    switch (find(begin, end, covering)) {
      case Overlap::none: break;
      case Overlap::inside: {  // registered already: one more user
        Entry& entry = covering->second;
        ++entry.users;
        entry.last_use = ++clock_;
        // Only the block's own keeper can end it: a part's keeper would not see the whole go.
        if (block.kept && covering->first == begin && entry.bytes == block.bytes) entry.kept = true;
        path = HostCopyPath::registered;
        return reinterpret_cast<const void*>(covering->first);
      }
      case Overlap::partly:
        path = HostCopyPath::staged;
        return refuse(block, label, "refused: overlaps a registered block");
    }
    const std::size_t cap = settings_or_defaults().register_max_bytes;
    if (cap == 0) return nullptr;                       // off: nothing counted
    if (block.bytes < host_registration_eager_bytes) {  // registered on its second copy
      const auto seen = seen_once_.find(begin);
      if (seen == seen_once_.end() || seen->second != block.bytes) {
        seen_once_[begin] = block.bytes;
        path = HostCopyPath::deferred;
        return nullptr;
      }
      seen_once_.erase(seen);
    }
    if (block.bytes > cap) return refuse(block, label, "refused: over LAPIS_REGISTER_MAX_BYTES");
    while (stats_.held_bytes + block.bytes > cap)
      if (!release_least_recent_idle()) return refuse(block, label, "refused: over LAPIS_REGISTER_MAX_BYTES");
    Entry& entry = entries_[begin];  // (made first: should that throw, nothing is registered)
    {
      trace::Span span(trace::Kind::registration, "register", label);
      if (const char* why = driver_register(block.begin, block.bytes)) {
        describe(span, block.bytes, std::string("refused: ") + why);
        entries_.erase(begin);
        ++stats_.refused;
        return nullptr;
      }
      describe(span, block.bytes, "registered");
    }
    path = HostCopyPath::registered;
    entry.bytes = block.bytes;
    entry.users = 1;
    entry.kept = block.kept;
    entry.last_use = ++clock_;
    entry.label = label;
    ++stats_.held;
    registered_blocks.store(stats_.held, std::memory_order_relaxed);
    stats_.held_bytes += block.bytes;
    ++stats_.made;
    return block.begin;
  }

  HostCopyPath unregistered_path(std::uintptr_t begin, std::uintptr_t end) noexcept {
    const std::lock_guard<std::mutex> lock(mutex_);
    Entries::iterator covering;
    switch (find(begin, end, covering)) {
      case Overlap::none: return HostCopyPath::driver;
      case Overlap::inside: return HostCopyPath::registered;
      case Overlap::partly: return HostCopyPath::staged;
    }
    return HostCopyPath::staged;
  }

  void end_use(const void* key) noexcept {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto found = entries_.find(reinterpret_cast<std::uintptr_t>(key));
    if (found == entries_.end()) return;  // (after fork: forgotten)
    if (--found->second.users == 0 && !found->second.kept) release(found);
  }

  void forget_seen(const void* begin) noexcept {
    const std::lock_guard<std::mutex> lock(mutex_);
    seen_once_.erase(reinterpret_cast<std::uintptr_t>(begin));
  }

  void forget_kept(const void* begin) noexcept {
    const std::lock_guard<std::mutex> lock(mutex_);
    seen_once_.erase(reinterpret_cast<std::uintptr_t>(begin));
    const auto found = entries_.find(reinterpret_cast<std::uintptr_t>(begin));
    if (found == entries_.end() || !found->second.kept) return;
    found->second.kept = false;
    if (found->second.users == 0) release(found);
  }

  std::size_t release_idle() noexcept {
    const std::lock_guard<std::mutex> lock(mutex_);
    std::size_t released = 0;
    for (auto entry = entries_.begin(); entry != entries_.end();) {
      const auto next = std::next(entry);
      if (entry->second.users == 0) {
        release(entry);
        ++released;
      }
      entry = next;
    }
    return released;
  }

  HostRegistrationStats stats() noexcept {
    const std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }

  // In a forked child, which cannot use the parent's device: the registrations are the parent's;
  // the child forgets them without asking the driver, and registers nothing more.
  void forked() noexcept {
    new (&mutex_) std::mutex;
    entries_.clear();
    seen_once_.clear();
    stats_.held = stats_.held_bytes = 0;
    registered_blocks.store(0, std::memory_order_relaxed);
    forked_ = true;
  }

 private:
  using Entries = std::map<std::uintptr_t, Entry>;
  enum class Overlap { none, inside, partly };

  // How [begin, end) lies against the registrations: touching none, inside one (`covering`), or
  // overlapping some without lying inside one. Registrations never overlap one another.
  Overlap find(std::uintptr_t begin, std::uintptr_t end, Entries::iterator& covering) noexcept {
    const auto next = entries_.upper_bound(begin);
    if (next != entries_.begin()) {
      covering = std::prev(next);
      const std::uintptr_t covering_end = covering->first + covering->second.bytes;
      if (covering_end >= end) return Overlap::inside;
      if (covering_end > begin) return Overlap::partly;
    }
    return next != entries_.end() && next->first < end ? Overlap::partly : Overlap::none;
  }

  const void* refuse(const HostBlock& block, const std::string& label, const char* why) {
    ++stats_.refused;
    if (trace::on()) {
      trace::Event event;
      event.kind = trace::Kind::registration;
      event.name = label;
      event.detail = why;
      event.bytes = block.bytes;
      event.start_us = trace::now_us();
      trace::record(std::move(event));
    }
    return nullptr;
  }

  static void describe(trace::Span& span, std::size_t bytes, std::string detail) {
    if (!span.recorded()) return;
    span.event.detail = std::move(detail);
    span.event.bytes = bytes;
  }

  void release(Entries::iterator entry) noexcept {
    {
      trace::Span span(trace::Kind::registration, "unregister", entry->second.label);
      describe(span, entry->second.bytes, "released");
      driver_unregister(reinterpret_cast<const void*>(entry->first));
    }
    --stats_.held;
    registered_blocks.store(stats_.held, std::memory_order_relaxed);
    stats_.held_bytes -= entry->second.bytes;
    ++stats_.released;
    entries_.erase(entry);
  }

  bool release_least_recent_idle() noexcept {
    auto oldest = entries_.end();
    for (auto entry = entries_.begin(); entry != entries_.end(); ++entry)
      if (entry->second.users == 0 && (oldest == entries_.end() || entry->second.last_use < oldest->second.last_use))
        oldest = entry;
    if (oldest == entries_.end()) return false;
    release(oldest);
    return true;
  }

  std::mutex mutex_;
  Entries entries_;
  std::map<std::uintptr_t, std::size_t> seen_once_;  // blocks copied once, unregistered: address -> bytes
  HostRegistrationStats stats_;
  std::uint64_t clock_ = 0;
  bool forked_ = false;
};

// Never destroyed: buffers and pooled blocks that outlive static destruction still end their uses.
Registry& registry() {
  static Registry* const instance = [] {
    auto* made = new Registry;
    if (asks_driver) pthread_atfork(nullptr, nullptr, [] { registry().forked(); });
    return made;
  }();
  return *instance;
}

}  // namespace

const void* use_host_block(const HostBlock& block, const std::string& label, HostCopyPath& path) noexcept {
  try {
    return registry().use(block, label, path);
  } catch (...) {  // no memory for the entry or the trace: the copy goes unregistered
    path = unregistered_copy_path(block.begin, block.bytes);
    return nullptr;
  }
}

HostCopyPath unregistered_copy_path(const void* begin, std::size_t bytes) noexcept {
  if (registered_blocks.load(std::memory_order_relaxed) == 0) return HostCopyPath::driver;
  const auto start = reinterpret_cast<std::uintptr_t>(begin);
  return registry().unregistered_path(start, start + bytes);
}

void end_host_block_use(const void* key) noexcept { registry().end_use(key); }
void end_deferred_host_block(const void* begin) noexcept { registry().forget_seen(begin); }
void forget_kept_host_block(const void* begin) noexcept { registry().forget_kept(begin); }

}  // namespace detail

HostRegistrationStats host_registration_stats() noexcept { return detail::registry().stats(); }
std::size_t host_registration_max_bytes() noexcept { return detail::settings_or_defaults().register_max_bytes; }
std::size_t release_idle_host_registrations() noexcept { return detail::registry().release_idle(); }

}  // namespace lapis
