// One lock around every Kokkos dispatch lapis makes (kernels, copies, fills, fences), so that
// threads sharing lapis never dispatch concurrently: Kokkos's OpenMP backend refuses work from a
// second host thread while one is running ("in parallel or not initialized"). Lock order: a
// buffer's lock, then this one, then (for a staged copy only) the staging team's own locks, which
// are taken nowhere else; no code takes a buffer's lock while holding this one, so it cannot
// deadlock. The lock is the process's one (lapis's runtime library): a module's kernels hold it too.
// A thread that holds it may take it again (a guard inside a guard takes nothing): memory freed
// while a kernel holds the lock is filled under it (the pool's poison mode), for one.
#pragma once

#include <Kokkos_Core.hpp>

#include <mutex>
#include <optional>

#include "lapis/core/export.hpp"

namespace lapis {
namespace detail {

#if KOKKOS_VERSION < 40000 && defined(KOKKOS_ENABLE_OPENMP)
// Kokkos 3's OpenMP backend takes work only from a thread that holds its instance: a thread-local
// pointer, set on the thread that initialized Kokkos. Since the lock makes its holder the only
// thread dispatching, the holder may hold that instance too, for as long as it holds the lock.
// The instance is recorded by lapis::initialize.
LAPIS_RUNTIME_API Kokkos::Impl::OpenMPExec*& openmp_instance() noexcept;

class DispatchInstance {
 public:
  DispatchInstance() noexcept : lent_(Kokkos::Impl::t_openmp_instance == nullptr && openmp_instance() != nullptr) {
    if (lent_) Kokkos::Impl::t_openmp_instance = openmp_instance();
  }
  ~DispatchInstance() {
    if (lent_) Kokkos::Impl::t_openmp_instance = nullptr;
  }
  DispatchInstance(const DispatchInstance&) = delete;
  DispatchInstance& operator=(const DispatchInstance&) = delete;

 private:
  bool lent_;
};
#else
// Every other backend takes work from any thread.
struct DispatchInstance {};
#endif

}  // namespace detail

LAPIS_RUNTIME_API std::mutex& execution_mutex() noexcept;
// Whether the calling thread holds the execution lock (one flag per thread, in the runtime library).
LAPIS_RUNTIME_API bool& execution_lock_held() noexcept;

// Holds the execution lock (and, where the backend needs it, its instance) for its scope, unless
// the calling thread holds it already.
class ExecutionGuard {
 public:
  ExecutionGuard() : lock_(execution_mutex(), std::defer_lock) {
    if (execution_lock_held()) return;
    lock_.lock();
    execution_lock_held() = true;
    instance_.emplace();
  }
  ~ExecutionGuard() {
    if (!lock_.owns_lock()) return;
    instance_.reset();  // given back before the lock
    execution_lock_held() = false;
  }
  ExecutionGuard(const ExecutionGuard&) = delete;
  ExecutionGuard& operator=(const ExecutionGuard&) = delete;

 private:
  std::unique_lock<std::mutex> lock_;
  std::optional<detail::DispatchInstance> instance_;  // taken with the lock
};

}  // namespace lapis
