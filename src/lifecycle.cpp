// The runtime's lifecycle (runtime/runtime.hpp): the start on a Kokkos (lapis's own, or one someone
// else initialized), finalize, the uses in between, and the registry of live buffers that finalize
// releases.
#include <Kokkos_Core.hpp>
#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "lapis/core/any_dual_buffer.hpp"
#include "lapis/runtime/block_pool.hpp"
#include "lapis/runtime/execution_lock.hpp"
#include "lapis/runtime/host_registration.hpp"
#include "lapis/runtime/runtime.hpp"
#include "lapis/runtime/spaces.hpp"
#include "settings.hpp"
#include "static_tls.hpp"

namespace lapis {
namespace {

thread_local LAPIS_STATIC_TLS std::size_t use_depth = 0;  // RuntimeUse scopes open on this thread
// This thread runs finalize. Kokkos's finalize hook calls finalize again on it, under the execution
// lock: it returns at once, without the runtime's lock, which others take before the execution lock.
thread_local LAPIS_STATIC_TLS bool finalizing_here = false;

class Runtime;
Runtime& runtime();

class Runtime {
 public:
  // lapis::initialize: starts Kokkos unless someone has (then lapis never finalizes it for them),
  // then the runtime on it.
  void initialize() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (finalized_ || closing_) throw RuntimeFinalizedError("lapis was finalized; it cannot be initialized again");
    if (initialized_) return;
    detail::settings();  // std::invalid_argument for a bad setting: nothing starts
    if (!Kokkos::is_initialized()) {
#if KOKKOS_VERSION >= 30700
      Kokkos::initialize(Kokkos::InitializationSettings().set_disable_warnings(true));
#else
      Kokkos::InitArguments arguments;
      arguments.disable_warnings = true;
      Kokkos::initialize(arguments);
#endif
      owns_kokkos_ = true;
    }
    start();
  }

  void finalize() {
    if (finalizing_here) return;
    std::unique_lock<std::mutex> lock(mutex_);
    if (finalized_) return;
    if (closing_) {  // another thread is finalizing: return once it is done
      changed_.wait(lock, [this] { return finalized_; });
      return;
    }
    closing_ = true;
    open_.store(false);
    finalizing_here = true;
    const std::size_t own = use_depth > 0 ? 1 : 0;  // finalize called from inside an operation
    changed_.wait(lock, [this, own] { return active_.load() == own; });
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
    release_idle_host_registrations();  // those numpy arrays' owners still keep (host_registration.hpp)
    const bool finalizes_kokkos = owns_kokkos_ && Kokkos::is_initialized();
    lock.unlock();
    if (finalizes_kokkos) {        // without the lock: Kokkos runs its finalize hooks, lapis's among them
      const ExecutionGuard guard;  // no dispatch in flight, on whichever thread this runs
      Kokkos::finalize();
    }
    lock.lock();
#if KOKKOS_VERSION < 40000 && defined(KOKKOS_ENABLE_OPENMP)
    detail::openmp_instance() = nullptr;
#endif
    finalized_ = true;
    finalizing_here = false;
    changed_.notify_all();
  }

  bool finalized() const noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    return finalized_ || !Kokkos::is_initialized();
  }

  void enter() {
    if (forked_child_.load())
      throw RuntimeFinalizedError(
          "lapis: this process is a fork() of one whose lapis runtime had started on " +
          std::string(DefaultDevice::memory_space::name()) +
          ", which a forked child cannot use (the device's state does not survive fork()): start the child "
          "with multiprocessing's 'spawn' or 'forkserver' method, or fork before lapis starts");
    if (use_depth > 0) {  // nested in an operation already counted
      ++use_depth;
      return;
    }
    // A running runtime counts the use without the lock (a call from Python takes several uses).
    // finalize closes before it reads the count, and a use counts before it looks again: one of the
    // two sees the other (sequentially consistent).
    if (open_.load()) {
      active_.fetch_add(1);
      if (open_.load()) {
        ++use_depth;
        return;
      }
      uncount();  // finalize began meanwhile: the locked path refuses the use
    }
    std::lock_guard<std::mutex> lock(mutex_);
    // The first use in a process whose Kokkos someone else initialized (a C++ main, a
    // Kokkos::ScopeGuard, a LAPIS module's lapis_initialize, another package) starts the runtime on it.
    if (!initialized_ && !closing_ && !finalized_) {
      if (!Kokkos::is_initialized())
        throw RuntimeFinalizedError(
            "lapis: Kokkos is not initialized; initialize it first (Kokkos::initialize, a Kokkos::ScopeGuard, or "
            "lapis::initialize(), which also starts Kokkos)");
      detail::settings();
      start();
    }
    const bool refused = closing_ && !finalizing_here;
    if (finalized_ || refused) throw RuntimeFinalizedError("the lapis runtime is finalized");
    active_.fetch_add(1);
    ++use_depth;
  }

  void leave() noexcept {
    if (--use_depth > 0) return;
    uncount();
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
  // Under the lock, Kokkos initialized: the runtime starts on it. Whoever finalizes Kokkos (lapis,
  // Kokkos's owner, a LAPIS module's lapis_finalize) runs lapis's finalize first, through Kokkos's
  // finalize hook, so that lapis lets go of its Kokkos memory while Kokkos is alive.
  void start() {
#if KOKKOS_VERSION < 40000 && defined(KOKKOS_ENABLE_OPENMP)
    // Only the thread holding the instance can record it: the one that initialized Kokkos.
    if (Kokkos::Impl::t_openmp_instance != nullptr) detail::openmp_instance() = Kokkos::Impl::t_openmp_instance;
#endif
    Kokkos::push_finalize_hook([] { lapis::finalize(); });
    // Device memory apart from host memory (a GPU) is gone in a forked child: there the runtime
    // counts as finalized (nothing is freed, nothing runs) and every use says why.
    if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, DefaultDevice::memory_space>::accessible)
      pthread_atfork(nullptr, nullptr, [] { runtime().forked(); });
    initialized_ = true;
    open_.store(true);
  }

  // A use ends; while a finalize waits, every end wakes it (under the lock: the finalize waits with
  // it, so that the wake-up is never lost): one called from inside an operation waits for a count of
  // one, its own, not zero.
  void uncount() noexcept {
    active_.fetch_sub(1);
    if (!open_.load()) {
      std::lock_guard<std::mutex> lock(mutex_);
      changed_.notify_all();
    }
  }

  // In the forked child, which has only the forking thread: the locks another thread may have held
  // are made anew, and the runtime is finalized without touching the device.
  void forked() noexcept {
    detail::block_pool().abandon_after_fork();
    new (&mutex_) std::mutex;
    new (&changed_) std::condition_variable;
    active_.store(0);
    open_.store(false);
    finalized_ = true;
    forked_child_.store(true);
  }

  mutable std::mutex mutex_;
  std::unordered_set<AnyDualBuffer*> buffers_;
  std::vector<std::function<void()>> cleanups_;
  std::condition_variable changed_;     // a use ended while closing, or finalize finished
  std::atomic<std::size_t> active_{0};  // threads inside a RuntimeUse
  std::atomic<bool> open_{false};       // started, and not closing: a use may count without the lock
  bool initialized_ = false;
  bool owns_kokkos_ = false;
  bool closing_ = false;  // finalize has begun: new uses are refused
  bool finalized_ = false;
  std::atomic<bool> forked_child_{false};  // a fork() of a process whose runtime ran on a GPU
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
bool is_finalized() noexcept { return runtime().finalized(); }
void at_finalize(std::function<void()> cleanup) { runtime().at_finalize(std::move(cleanup)); }
bool simulated_device() noexcept { return detail::settings_or_defaults().simulated_device; }
Side communication_side() noexcept { return detail::settings_or_defaults().mpi_gpu_aware ? Side::device : Side::host; }

std::size_t cached_arrays() noexcept { return detail::settings_or_defaults().cached_arrays; }

namespace detail {

void register_buffer(AnyDualBuffer* buffer) { runtime().add(buffer); }
void retire_buffer(AnyDualBuffer* buffer) noexcept { runtime().retire(buffer); }
void enter_runtime() { runtime().enter(); }
void leave_runtime() noexcept { runtime().leave(); }

}  // namespace detail
}  // namespace lapis
