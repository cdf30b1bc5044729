// One lock around every Kokkos dispatch lapis makes (kernels, copies, fills, fences), so that
// threads sharing lapis never dispatch concurrently: Kokkos's OpenMP backend refuses work from a
// second host thread while one is running ("in parallel or not initialized"). Lock order: a
// buffer's lock, then this one, then (for a staged copy only) the staging team's own locks, which
// are taken nowhere else; no code takes a buffer's lock while holding this one, so it cannot
// deadlock. The lock is the process's one (lapis's runtime library): a module's kernels hold it too.
#pragma once

#include <Kokkos_Core.hpp>

#include <mutex>

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

// Holds the execution lock (and, where the backend needs it, its instance) for its scope.
class ExecutionGuard {
 public:
  ExecutionGuard() : lock_(execution_mutex()) {}

 private:
  std::lock_guard<std::mutex> lock_;
  detail::DispatchInstance instance_;  // after lock_: taken with the lock, given back before it
};

}  // namespace lapis
