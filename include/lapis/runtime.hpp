// Kokkos's lifetime as seen by lapis: initialize it quietly if nobody has, and finalize it only
// after every piece of lapis-owned Kokkos memory is released, including memory of DualViews that
// are still alive (they become unusable: RuntimeFinalizedError).
#pragma once

#include <Kokkos_Core.hpp>

#include <mutex>
#include <unordered_set>

#include "lapis/any_dual_buffer.hpp"
#include "lapis/errors.hpp"
#include "lapis/execution_lock.hpp"

namespace lapis {
namespace detail {

class Runtime {
 public:
  static Runtime& instance() {
    static Runtime runtime;
    return runtime;
  }

  void add(AnyDualBuffer* buffer) {
    std::lock_guard<std::mutex> lock(mutex_);
    buffers_.insert(buffer);
  }
  void remove(AnyDualBuffer* buffer) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    buffers_.erase(buffer);
  }

  void initialize() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (finalized_) throw RuntimeFinalizedError("lapis was finalized; it cannot be initialized again");
    if (!Kokkos::is_initialized()) {  // otherwise someone else owns Kokkos: never finalize it for them
#if KOKKOS_VERSION >= 30700
      Kokkos::initialize(Kokkos::InitializationSettings().set_disable_warnings(true));
#else
      Kokkos::InitArguments arguments;
      arguments.disable_warnings = true;
      Kokkos::initialize(arguments);
#endif
      owns_kokkos_ = true;
    }
    detail::remember_dispatch_instance();
  }

  void finalize() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (finalized_) return;
    for (AnyDualBuffer* buffer : buffers_) buffer->release();
    finalized_ = true;
    if (owns_kokkos_ && Kokkos::is_initialized()) {
      const ExecutionGuard guard;  // no dispatch in flight, on whichever thread this runs
      Kokkos::finalize();
    }
    detail::forget_dispatch_instance();
  }

  bool finalized() const noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    return finalized_;
  }

 private:
  mutable std::mutex mutex_;
  std::unordered_set<AnyDualBuffer*> buffers_;
  bool owns_kokkos_ = false;
  bool finalized_ = false;
};

}  // namespace detail

// Initializes Kokkos unless it already is (then lapis leaves its finalization to its owner).
// KOKKOS_* environment settings apply; Kokkos's start-up warnings are silenced.
inline void initialize() { detail::Runtime::instance().initialize(); }

// Releases the Kokkos memory of every live lapis buffer, then finalizes Kokkos if lapis
// initialized it. Idempotent. Host memory that lapis took from the heap stays valid.
inline void finalize() { detail::Runtime::instance().finalize(); }

// True after lapis::finalize(), or when Kokkos is not initialized.
inline bool is_finalized() noexcept {
  return detail::Runtime::instance().finalized() || !Kokkos::is_initialized();
}

inline void require_runtime() {
  if (is_finalized())
    throw RuntimeFinalizedError("the lapis runtime is finalized (or Kokkos is not initialized)");
}

}  // namespace lapis
