// A copy between a device side and host memory as one call, without Kokkos's fences. Kokkos's
// deep_copy without an execution space instance brackets the copy with two fences of every
// instance, which a copy of a few bytes pays for on top of the copy. Two cases need neither:
// - a CUDA device side: one cudaMemcpy. It runs on CUDA's legacy default stream, which waits for the
//   work already queued on every blocking stream (every Kokkos::Cuda instance's stream is one), holds
//   later work on them back until the copy is done, and returns once the host memory may be read or
//   reused: the order the fences give, for everything Kokkos queues. Not with a default stream per
//   thread (it orders nothing).
// - a device side in host memory (the simulated device) where all work is done when its dispatch
//   returns: nothing is in flight for a fence to wait for, and Kokkos's host copy (a memcpy, or
//   its parallel copy for large ones) is the copy.
// Kept out: a process with Kokkos Tools loaded (they see deep_copy's events).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <type_traits>

#include "lapis/runtime/spaces.hpp"

namespace lapis::detail {

template <class DeviceMemorySpace>
inline constexpr bool copies_need_no_fences =
#if defined(KOKKOS_ENABLE_CUDA) && !defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
    std::is_same_v<DeviceMemorySpace, Kokkos::CudaSpace> || std::is_same_v<DeviceMemorySpace, Kokkos::CudaUVMSpace> ||
#endif
    (std::is_same_v<DeviceMemorySpace, Kokkos::HostSpace> && work_done_on_return);

// Copies `bytes` from `source` in `SourceSpace` to `destination` in `DestinationSpace` with one
// call, unless Kokkos Tools are loaded; returns whether it did.
template <class DestinationSpace, class SourceSpace>
bool copy_without_fences(void* destination, const void* source, std::size_t bytes) {
  if (Kokkos::Tools::profileLibraryLoaded()) return false;
  if constexpr (std::is_same_v<DestinationSpace, Kokkos::HostSpace> && std::is_same_v<SourceSpace, Kokkos::HostSpace>) {
    // on lapis's host instance: without one, Kokkos makes an instance for every copy
    using Host = Kokkos::DefaultHostExecutionSpace;
    Kokkos::Impl::DeepCopy<Kokkos::HostSpace, Kokkos::HostSpace, Host>(default_instance<Host>(), destination, source,
                                                                       bytes);
  } else {
    Kokkos::Impl::DeepCopy<DestinationSpace, SourceSpace>(destination, source, bytes);
  }
  return true;
}

}  // namespace lapis::detail
