// The execution lock (runtime/execution_lock.hpp), and the OpenMP instance it lends on Kokkos 3.
#include <Kokkos_Core.hpp>

#include <mutex>

#include "lapis/runtime/execution_lock.hpp"
#include "static_tls.hpp"

namespace lapis {

std::mutex& execution_mutex() noexcept {
  static std::mutex mutex;
  return mutex;
}

namespace {
thread_local LAPIS_STATIC_TLS bool held = false;
}  // namespace

bool& execution_lock_held() noexcept { return held; }

#if KOKKOS_VERSION < 40000 && defined(KOKKOS_ENABLE_OPENMP)
namespace detail {
Kokkos::Impl::OpenMPExec*& openmp_instance() noexcept {
  static Kokkos::Impl::OpenMPExec* instance = nullptr;
  return instance;
}
}  // namespace detail
#endif

}  // namespace lapis
