// Where the two sides of a DualView live.
#pragma once

#include <Kokkos_Core.hpp>

#include <type_traits>

#include "lapis/runtime/runtime.hpp"

namespace lapis {

using DefaultDevice = Kokkos::Device<Kokkos::DefaultExecutionSpace, Kokkos::DefaultExecutionSpace::memory_space>;

// A device for CPU-only builds whose memory is kept apart from host memory. On such a build the
// default device's memory *is* host memory, so a DualView's sides alias and no staleness bug can
// show. Here kernels run on the host execution space, but the device side is a separate host
// allocation that lapis treats as inaccessible from the host: every sync is a real copy between
// distinct buffers, and a stale side really holds stale data. (Kokkos's own LogicalMemorySpace
// cannot serve: kernels touching it abort in Kokkos 3.4.)
struct SimulatedDevice {
  using execution_space = Kokkos::DefaultHostExecutionSpace;
  using memory_space = Kokkos::HostSpace;
  using device_type = Kokkos::Device<execution_space, memory_space>;
};

template <class Device>
struct device_traits {
  using execution_space = typename Device::execution_space;
  using memory_space = typename Device::memory_space;
  // Each side can reach the other's memory, so one allocation serves both and nothing is copied.
  static constexpr bool shares_host_memory = Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible &&
                                             Kokkos::SpaceAccessibility<execution_space, Kokkos::HostSpace>::accessible;
};

template <>
struct device_traits<SimulatedDevice> {
  using execution_space = SimulatedDevice::execution_space;
  using memory_space = SimulatedDevice::memory_space;
  static constexpr bool shares_host_memory = false;
};

// Whether a DualView on `Device` made now keeps one allocation for both sides. Under
// LAPIS_DEVICE=simulated, no device does: every device whose memory is host memory is simulated.
template <class Device>
bool sides_alias() noexcept {
  return device_traits<Device>::shares_host_memory && !simulated_device();
}

// Whether work dispatched on ExecutionSpace is done when the dispatch returns: Serial runs it on the
// calling thread, OpenMP in a parallel region that ends before the call returns. Waiting for such a
// space is bookkeeping only (a fence names itself, takes a lock, signals), so lapis skips it.
template <class ExecutionSpace>
inline constexpr bool finishes_before_returning =
#if defined(KOKKOS_ENABLE_SERIAL)
    std::is_same_v<ExecutionSpace, Kokkos::Serial> ||
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
    std::is_same_v<ExecutionSpace, Kokkos::OpenMP> ||
#endif
    false;

// Whether every space this Kokkos runs work on is done when its dispatch returns: a sync between
// sides that are one memory then changes flags only, and waits for nothing.
inline constexpr bool work_done_on_return = finishes_before_returning<Kokkos::DefaultExecutionSpace> &&
                                            finishes_before_returning<Kokkos::DefaultHostExecutionSpace>;

// The instance of ExecutionSpace that lapis queues its work on: the default one, made once. Kokkos
// 4's constructor allocates (its shared pointer's control block), a part of a one-element call's
// time; made on first use, after Kokkos is initialized.
template <class ExecutionSpace>
const ExecutionSpace& default_instance() {
  static const ExecutionSpace instance;
  return instance;
}

// Page-locked host memory where the backend has it (faster, asynchronous transfers); plain host
// memory otherwise.
#if defined(KOKKOS_ENABLE_CUDA)
using PinnedHostSpace = Kokkos::CudaHostPinnedSpace;
#else
using PinnedHostSpace = Kokkos::HostSpace;
#endif

// Whether this build's device records launches into device graphs (runtime/graph.hpp: CUDA). Where
// it does not, a graph replays call by call and no kernel call asks whether one is being captured.
#if defined(KOKKOS_ENABLE_CUDA)
inline constexpr bool device_records_launches = true;
#else
inline constexpr bool device_records_launches = false;
#endif

}  // namespace lapis
