// A small copy between a CUDA device side and host memory, as one cudaMemcpy. Kokkos's deep_copy
// without an execution space instance brackets that same cudaMemcpy with two device-wide fences
// (a cudaDeviceSynchronize each), which a copy of a few bytes pays for on top of the copy.
// cudaMemcpy runs on CUDA's legacy default stream, which waits for the work already queued on every
// blocking stream (every Kokkos::Cuda instance's stream is one), holds later work on them back until
// the copy is done, and returns once the host memory may be read or reused: the order the fences
// give, for everything Kokkos queues. Kept out: a process with Kokkos Tools loaded (they see
// deep_copy's events) and a build whose default stream is per thread (it orders nothing).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <type_traits>

namespace lapis::detail {

template <class DeviceMemorySpace>
inline constexpr bool driver_orders_copies =
#if defined(KOKKOS_ENABLE_CUDA) && !defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
    std::is_same_v<DeviceMemorySpace, Kokkos::CudaSpace> || std::is_same_v<DeviceMemorySpace, Kokkos::CudaUVMSpace>;
#else
    false;
#endif

// Copies `bytes` from `source` in `SourceSpace` to `destination` in `DestinationSpace` with one
// driver call, unless Kokkos Tools are loaded; returns whether it did.
template <class DestinationSpace, class SourceSpace>
bool driver_copy(void* destination, const void* source, std::size_t bytes) {
  if (Kokkos::Tools::profileLibraryLoaded()) return false;
  Kokkos::Impl::DeepCopy<DestinationSpace, SourceSpace>(destination, source,
                                                        bytes);  // Kokkos's device, then cudaMemcpy
  return true;
}

}  // namespace lapis::detail
