// lapis's runtime library: the process-wide state that every module using lapis shares (export.hpp).
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstddef>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

#include <pthread.h>

#include "lapis/detail/allocation.hpp"
#include "lapis/core/any_dual_buffer.hpp"
#include "lapis/runtime/block_pool.hpp"
#include "lapis/core/build_info.hpp"
#include "lapis/runtime/execution_lock.hpp"
#include "lapis/runtime/runtime.hpp"
#include "lapis/spaces.hpp"
#include "lapis/detail/staged_copy.hpp"
#include "lapis/core/transfer_guard.hpp"
#include "lapis/core/transfer_stats.hpp"

// Per-thread state here is a few bytes of static TLS: dynamic TLS of a dlopen'ed library is
// malloc'ed per thread and freed by whichever thread reuses a dead thread's stack, a free that
// ThreadSanitizer cannot order after the dead thread's writes.
#if defined(__GNUC__) && !defined(__CUDACC__)
#define LAPIS_STATIC_TLS __attribute__((tls_model("initial-exec")))
#else
#define LAPIS_STATIC_TLS
#endif

namespace lapis {
namespace {

thread_local LAPIS_STATIC_TLS std::size_t use_depth = 0;  // RuntimeUse scopes open on this thread

class Runtime {
 public:
  void initialize() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (finalized_ || closing_) throw RuntimeFinalizedError("lapis was finalized; it cannot be initialized again");
    if (initialized_) return;
    simulated_ = device_mode_from_environment();
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
  static bool device_mode_from_environment() {
    const char* value = std::getenv("LAPIS_DEVICE");
    const std::string device = value == nullptr ? "" : value;
    if (device.empty() || device == "default") return false;
    if (device != "simulated")
      throw std::invalid_argument("LAPIS_DEVICE='" + device + "': expected 'default' or 'simulated'");
    if (!std::is_same_v<DefaultDevice::memory_space, Kokkos::HostSpace>)
      throw std::invalid_argument(
          "LAPIS_DEVICE=simulated needs a build whose device memory is host memory; this build's is " +
          std::string(DefaultDevice::memory_space::name()));
    return true;
  }

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

// The transfer guard's state (transfer_guard.hpp).
std::atomic<TransferGuard> process_guard{TransferGuard{}};
thread_local LAPIS_STATIC_TLS detail::ThreadTransferGuard thread_guard;
thread_local LAPIS_STATIC_TLS int explicit_scopes = 0;

const char* direction_name(Direction direction) {
  return direction == Direction::host_to_device ? "host->device" : "device->host";
}

}  // namespace

void initialize() { runtime().initialize(); }
void finalize() { runtime().finalize(); }
void acquire_runtime() { runtime().acquire(); }
void release_runtime() { runtime().release_hold(); }
bool is_finalized() noexcept { return runtime().finalized(); }
void at_finalize(std::function<void()> cleanup) { runtime().at_finalize(std::move(cleanup)); }
bool simulated_device() noexcept { return runtime().simulated(); }

const BuildInfo& runtime_build() noexcept {
  static constexpr BuildInfo build = compiled_build;
  return build;
}

TransferGuard process_transfer_guard() noexcept { return process_guard.load(); }
void set_process_transfer_guard(TransferGuard guard) noexcept { process_guard.store(guard); }
TransferGuard current_transfer_guard() noexcept { return thread_guard.set ? thread_guard.guard : process_guard.load(); }

std::mutex& execution_mutex() noexcept {
  static std::mutex mutex;
  return mutex;
}

namespace detail {

void register_buffer(AnyDualBuffer* buffer) { runtime().add(buffer); }
void retire_buffer(AnyDualBuffer* buffer) noexcept { runtime().retire(buffer); }
void enter_runtime() { runtime().enter(); }
void leave_runtime() noexcept { runtime().leave(); }

ThreadTransferGuard exchange_thread_transfer_guard(ThreadTransferGuard guard) noexcept {
  std::swap(guard, thread_guard);
  return guard;
}
void count_explicit_scope(int change) noexcept { explicit_scopes += change; }

void guard_transfer(Direction direction, bool named, const std::string& label, const Shape& shape) {
  if (named || explicit_scopes > 0) return;
  const GuardLevel level = current_transfer_guard().level(direction);
  if (level == GuardLevel::allow) return;
  const std::string what = std::string("implicit ") + direction_name(direction) + " copy of \"" + label + "\" (" +
                           name(shape.element) + ", shape " + shape_text(shape) + ", " +
                           std::to_string(shape.nbytes()) + " bytes)";
  if (level == GuardLevel::disallow)
    throw TransferGuardError("lapis: the transfer guard refused an " + what +
                             "; sync it explicitly (sync_host() / sync_device()) or allow it");
  std::fprintf(stderr, "lapis: transfer guard: %s\n", what.c_str());
}

TransferCounter& process_transfer_counter() noexcept {
  static TransferCounter counter;
  return counter;
}

LiveCounter& live_counter() noexcept {
  static LiveCounter counter;
  return counter;
}

namespace {
// The settings lapis reads from the environment; unset or empty means `otherwise`.
bool environment_says(const char* name, bool otherwise) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return otherwise;
  return std::string(value) != "0";
}
std::size_t environment_size(const char* name, std::size_t otherwise) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return otherwise;
  char* end = nullptr;
  const unsigned long long parsed = std::strtoull(value, &end, 10);
  if (*end != '\0') {
    std::fprintf(stderr, "lapis: ignoring %s=%s (not a number of bytes)\n", name, value);
    return otherwise;
  }
  return static_cast<std::size_t>(parsed);
}
const bool pool_enabled = environment_says("LAPIS_POOL", true);
const bool pool_poisons = environment_says("LAPIS_POOL_POISON", false);
}  // namespace

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
  bool cache = reusable && caching();
  if (cache && pool_poisons) {
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

std::map<std::string, PoolStats> BlockPool::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

bool BlockPool::caching() const noexcept { return pool_enabled && !closed_; }

BlockPool& block_pool() noexcept {
  static BlockPool pool;
  return pool;
}

}  // namespace detail

const StagingSettings& staging_settings() noexcept {
  // Staging pays where the device's memory is apart from host memory (a GPU). On the H200 (2026-12,
  // one run, staged over direct, numpy arrays from Python, 16 MiB chunks, 8 threads) it is 0.8x at
  // 1 MiB, even at 2 MiB, 1.1x at 4 MiB, 1.5x at 16 MiB and 2.8x at 64 MiB; 256 MiB moves at about
  // 45 GB/s, against 7-13 GB/s for the driver's own pageable copies. Hence 4 MiB by default.
  constexpr bool device_apart = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, DefaultDevice::memory_space>::accessible;
  static const StagingSettings settings{
      detail::environment_size("LAPIS_STAGING_MIN_BYTES", device_apart ? std::size_t{4} << 20 : 0),
      std::max<std::size_t>(1, detail::environment_size("LAPIS_STAGING_CHUNK_BYTES", std::size_t{16} << 20)),
      static_cast<unsigned>(std::max<std::size_t>(
          1, detail::environment_size("LAPIS_STAGING_THREADS",
                                      std::min(8u, std::max(1u, std::thread::hardware_concurrency())))))};
  return settings;
}

namespace detail {

namespace {
// The threads of run_staging_team: started as runs ask for them, parked between runs, joined when
// the process exits.
class StagingTeam {
 public:
  using Work = std::function<void(unsigned, unsigned, TeamBarrier&)>;

  StagingTeam() {
    pthread_atfork(nullptr, nullptr, [] { instance().after_fork(); });
  }

  static StagingTeam& instance() {
    static StagingTeam team;
    return team;
  }

  void run(unsigned wanted, const Work& work) {
    State& state = *state_;
    const std::lock_guard<std::mutex> one_run(state.run_mutex);
    wanted = std::max(1u, wanted);
    grow(state, wanted - 1);
    const unsigned team = std::min<unsigned>(wanted, static_cast<unsigned>(state.helpers.size()) + 1);
    TeamBarrier barrier(team);
    {
      const std::lock_guard<std::mutex> lock(state.mutex);
      state.work = &work;
      state.barrier = &barrier;
      state.team = team;
      state.pending = team - 1;
      ++state.generation;
    }
    state.started.notify_all();
    work(0, team, barrier);
    std::unique_lock<std::mutex> lock(state.mutex);
    state.finished.wait(lock, [&] { return state.pending == 0; });
  }

  ~StagingTeam() {
    {
      const std::lock_guard<std::mutex> lock(state_->mutex);
      state_->stopping = true;
    }
    state_->started.notify_all();
    for (auto& helper : state_->helpers) helper.join();
    delete state_;
  }

 private:
  struct State {
    std::mutex run_mutex, mutex;
    std::condition_variable started, finished;
    std::vector<std::thread> helpers;
    const Work* work = nullptr;
    TeamBarrier* barrier = nullptr;
    unsigned team = 0, pending = 0;
    std::size_t generation = 0;
    bool stopping = false;
  };

  // Called under run_mutex, so no run starts meanwhile: a new helper waits for the next one.
  static void grow(State& state, unsigned helpers) {
    while (state.helpers.size() < helpers) {
      try {
        state.helpers.emplace_back(serve, &state, static_cast<unsigned>(state.helpers.size()) + 1, state.generation);
      } catch (const std::system_error&) {
        return;  // no more threads to be had: runs go on with those there are
      }
    }
  }

  static void serve(State* state, unsigned member, std::size_t seen) {
    std::unique_lock<std::mutex> lock(state->mutex);
    for (;;) {
      state->started.wait(lock, [&] { return state->stopping || state->generation != seen; });
      if (state->stopping) return;
      seen = state->generation;
      if (member >= state->team) continue;  // a smaller team this time
      const Work& work = *state->work;
      TeamBarrier& barrier = *state->barrier;
      const unsigned team = state->team;
      lock.unlock();
      work(member, team, barrier);
      lock.lock();
      if (--state->pending == 0) state->finished.notify_one();
    }
  }

  // In a forked child, which has only the forking thread: the helpers are gone, and the state's
  // mutexes and condition variables still count their waits, so they cannot be used again (a
  // notify would wait for those waiters). A new state replaces it; the old one is never freed.
  void after_fork() {
    for (auto& helper : state_->helpers) helper.detach();
    state_->helpers.clear();
    state_ = new State;
  }

  State* state_ = new State;
};
}  // namespace

void run_staging_team(unsigned wanted, const std::function<void(unsigned, unsigned, TeamBarrier&)>& work) {
  StagingTeam::instance().run(wanted, work);
}

#if KOKKOS_VERSION < 40000 && defined(KOKKOS_ENABLE_OPENMP)
Kokkos::Impl::OpenMPExec*& openmp_instance() noexcept {
  static Kokkos::Impl::OpenMPExec* instance = nullptr;
  return instance;
}
#endif

}  // namespace detail
}  // namespace lapis
