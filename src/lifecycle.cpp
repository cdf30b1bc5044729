// The runtime's lifecycle (runtime/runtime.hpp): initialize, finalize and the uses in between, the
// registry of live buffers that finalize releases, and the device mode.
#include <Kokkos_Core.hpp>

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <unordered_set>
#include <utility>
#include <vector>

#include "lapis/core/any_dual_buffer.hpp"
#include "lapis/runtime/block_pool.hpp"
#include "lapis/runtime/execution_lock.hpp"
#include "lapis/runtime/runtime.hpp"
#include "settings.hpp"
#include "static_tls.hpp"

namespace lapis {
namespace {

thread_local LAPIS_STATIC_TLS std::size_t use_depth = 0;  // RuntimeUse scopes open on this thread

class Runtime {
 public:
  void initialize() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (finalized_ || closing_) throw RuntimeFinalizedError("lapis was finalized; it cannot be initialized again");
    if (initialized_) return;
    simulated_ = detail::settings().simulated_device;  // std::invalid_argument for a bad setting
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
#if KOKKOS_VERSION < 40000 && defined(KOKKOS_ENABLE_OPENMP)
    // Only the thread holding the instance can record it; lapis::initialize may run on another.
    if (Kokkos::Impl::t_openmp_instance != nullptr) detail::openmp_instance() = Kokkos::Impl::t_openmp_instance;
#endif
    initialized_ = true;
  }

  void acquire() {
    bool starts = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      starts = !initialized_ && holders_ == 0;
    }
    initialize();
    std::lock_guard<std::mutex> lock(mutex_);
    if (starts) holders_own_ = true;
    ++holders_;
  }

  void release_hold() {
    bool last = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (holders_ == 0) return;
      last = --holders_ == 0 && holders_own_;
    }
    if (last) finalize();
  }

  void finalize() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (finalized_) return;
    if (closing_) {  // another thread is finalizing: return once it is done
      if (finalizer_ != std::this_thread::get_id()) changed_.wait(lock, [this] { return finalized_; });
      return;
    }
    closing_ = true;
    finalizer_ = std::this_thread::get_id();
    const std::size_t own = use_depth > 0 ? 1 : 0;  // finalize called from inside an operation
    changed_.wait(lock, [this, own] { return active_ == own; });
    std::vector<std::function<void()>> cleanups;
    cleanups.swap(cleanups_);
    lock.unlock();
    // Without the lock: a cleanup drops module-global DualViews, which retire themselves, and so
    // may the cleanups themselves when they die (one that holds a DualView).
    for (auto cleanup = cleanups.rbegin(); cleanup != cleanups.rend(); ++cleanup) (*cleanup)();
    cleanups.clear();
    lock.lock();
    for (AnyDualBuffer* buffer : buffers_) buffer->release();
    detail::block_pool().close();
    if (owns_kokkos_ && Kokkos::is_initialized()) {
      const ExecutionGuard guard;  // no dispatch in flight, on whichever thread this runs
      Kokkos::finalize();
    }
#if KOKKOS_VERSION < 40000 && defined(KOKKOS_ENABLE_OPENMP)
    detail::openmp_instance() = nullptr;
#endif
    finalized_ = true;
    changed_.notify_all();
  }

  bool finalized() const noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    return finalized_ || !Kokkos::is_initialized();
  }

  void enter() {
    if (use_depth > 0) {  // nested in an operation already counted
      ++use_depth;
      return;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    const bool refused = closing_ && finalizer_ != std::this_thread::get_id();
    if (!initialized_ || finalized_ || refused)
      throw RuntimeFinalizedError("the lapis runtime is finalized (or was never initialized)");
    ++active_;
    ++use_depth;
  }

  void leave() noexcept {
    if (--use_depth > 0) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (--active_ == 0) changed_.notify_all();
  }

  void at_finalize(std::function<void()> cleanup) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!finalized_) {
        cleanups_.push_back(std::move(cleanup));
        return;
      }
    }
    cleanup();
  }

  bool simulated() const noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    return simulated_;
  }

  void add(AnyDualBuffer* buffer) {
    std::lock_guard<std::mutex> lock(mutex_);
    buffers_.insert(buffer);
  }
  // Under the lock, so that a buffer's Kokkos memory is never freed while finalize runs.
  void retire(AnyDualBuffer* buffer) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    buffers_.erase(buffer);
    if (!finalized_) buffer->release();
  }

 private:
  mutable std::mutex mutex_;
  std::unordered_set<AnyDualBuffer*> buffers_;
  std::vector<std::function<void()>> cleanups_;
  std::condition_variable changed_;  // active_ reached zero, or finalize finished
  std::size_t active_ = 0;           // threads inside a RuntimeUse
  std::thread::id finalizer_;
  bool initialized_ = false;
  bool owns_kokkos_ = false;
  std::size_t holders_ = 0;   // acquire_runtime() calls not yet released
  bool holders_own_ = false;  // the first acquire started the runtime: the last release finalizes it
  bool closing_ = false;  // finalize has begun: new uses are refused
  bool finalized_ = false;
  bool simulated_ = false;
};

// Never destroyed: threads still inside lapis when the process exits (Python daemon threads) must
// not find its lock gone.
Runtime& runtime() {
  static Runtime* instance = new Runtime;
  return *instance;
}

}  // namespace

void initialize() { runtime().initialize(); }
void finalize() { runtime().finalize(); }
void acquire_runtime() { runtime().acquire(); }
void release_runtime() { runtime().release_hold(); }
bool is_finalized() noexcept { return runtime().finalized(); }
void at_finalize(std::function<void()> cleanup) { runtime().at_finalize(std::move(cleanup)); }
bool simulated_device() noexcept { return runtime().simulated(); }

namespace detail {

void register_buffer(AnyDualBuffer* buffer) { runtime().add(buffer); }
void retire_buffer(AnyDualBuffer* buffer) noexcept { runtime().retire(buffer); }
void enter_runtime() { runtime().enter(); }
void leave_runtime() noexcept { runtime().leave(); }

}  // namespace detail
}  // namespace lapis
