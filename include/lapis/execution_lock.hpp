// One lock around every Kokkos dispatch lapis makes (kernels, copies, fills), so that Python
// threads sharing lapis never dispatch concurrently: Kokkos's OpenMP backend refuses work from a
// second host thread while one is running ("in parallel or not initialized"). Always taken last,
// after any buffer lock, and never held while taking another lock: it cannot deadlock.
#pragma once

#include <mutex>

namespace lapis {

inline std::mutex& execution_mutex() noexcept {
  static std::mutex mutex;
  return mutex;
}

// Holds the execution lock for its scope.
class ExecutionGuard {
 public:
  ExecutionGuard() : lock_(execution_mutex()) {}

 private:
  std::lock_guard<std::mutex> lock_;
};

}  // namespace lapis
