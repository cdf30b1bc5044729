// lapis's runtime library: the process-wide state that every module using lapis shares (export.hpp).
#include <Kokkos_Core.hpp>

#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

#include "lapis/allocation.hpp"
#include "lapis/any_dual_buffer.hpp"
#include "lapis/build_info.hpp"
#include "lapis/execution_lock.hpp"
#include "lapis/runtime.hpp"
#include "lapis/spaces.hpp"
#include "lapis/transfer_stats.hpp"

namespace lapis {
namespace {

class Runtime {
 public:
  void initialize() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (finalized_) throw RuntimeFinalizedError("lapis was finalized; it cannot be initialized again");
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

  void finalize() {
    std::vector<std::function<void()>> cleanups;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (finalized_) return;
      cleanups.swap(cleanups_);
    }
    // Without the lock: a cleanup drops module-global DualViews, which unregister themselves.
    for (auto cleanup = cleanups.rbegin(); cleanup != cleanups.rend(); ++cleanup) (*cleanup)();
    std::lock_guard<std::mutex> lock(mutex_);
    if (finalized_) return;  // another thread finished first
    for (AnyDualBuffer* buffer : buffers_) buffer->release();
    finalized_ = true;
    if (owns_kokkos_ && Kokkos::is_initialized()) {
      const ExecutionGuard guard;  // no dispatch in flight, on whichever thread this runs
      Kokkos::finalize();
    }
#if KOKKOS_VERSION < 40000 && defined(KOKKOS_ENABLE_OPENMP)
    detail::openmp_instance() = nullptr;
#endif
  }

  bool finalized() const noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    return finalized_ || !Kokkos::is_initialized();
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
  void remove(AnyDualBuffer* buffer) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    buffers_.erase(buffer);
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
  bool initialized_ = false;
  bool owns_kokkos_ = false;
  bool finalized_ = false;
  bool simulated_ = false;
};

Runtime& runtime() {
  static Runtime instance;
  return instance;
}

}  // namespace

void initialize() { runtime().initialize(); }
void finalize() { runtime().finalize(); }
bool is_finalized() noexcept { return runtime().finalized(); }
void at_finalize(std::function<void()> cleanup) { runtime().at_finalize(std::move(cleanup)); }
bool simulated_device() noexcept { return runtime().simulated(); }

const BuildInfo& runtime_build() noexcept {
  static constexpr BuildInfo build = compiled_build;
  return build;
}

std::mutex& execution_mutex() noexcept {
  static std::mutex mutex;
  return mutex;
}

namespace detail {

void register_buffer(AnyDualBuffer* buffer) { runtime().add(buffer); }
void unregister_buffer(AnyDualBuffer* buffer) noexcept { runtime().remove(buffer); }

TransferCounter& process_transfer_counter() noexcept {
  static TransferCounter counter;
  return counter;
}

LiveCounter& live_counter() noexcept {
  static LiveCounter counter;
  return counter;
}

#if KOKKOS_VERSION < 40000 && defined(KOKKOS_ENABLE_OPENMP)
Kokkos::Impl::OpenMPExec*& openmp_instance() noexcept {
  static Kokkos::Impl::OpenMPExec* instance = nullptr;
  return instance;
}
#endif

}  // namespace detail
}  // namespace lapis
