// Which side of a DualView a Space template argument names, as Kokkos::DualView resolves it: a view
// type by its device; a memory space by memory, an execution space by execution space; a device by
// its execution space, or by its memory space where that alone tells the sides apart. Naming both
// sides (on a CPU build the device is the host) is `both`. lapis::SimulatedDevice names the device
// side, though its spaces are the host's.
#pragma once

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace lapis::detail {

enum class NamedSide { host, device, both };

constexpr NamedSide named(bool device_side, bool host_side) {
  return device_side && host_side ? NamedSide::both : device_side ? NamedSide::device : NamedSide::host;
}

// For a DualView whose device is `Device` (the template argument, possibly SimulatedDevice), its
// device side on DeviceType and its host side on HostMirrorSpace.
template <class Space, class Device, class DeviceType, class HostMirrorSpace>
constexpr NamedSide side_named_by() {
  using S = std::remove_cv_t<Space>;
  using execution_space = typename DeviceType::execution_space;
  using memory_space = typename DeviceType::memory_space;
  using host_execution_space = typename HostMirrorSpace::execution_space;
  using host_memory_space = typename HostMirrorSpace::memory_space;
  if constexpr (Kokkos::is_view<S>::value) {
    return side_named_by<typename S::device_type, Device, DeviceType, HostMirrorSpace>();
  } else if constexpr (std::is_same_v<S, Device> && !std::is_same_v<Device, DeviceType>) {
    return NamedSide::device;
  } else if constexpr (Kokkos::is_memory_space<S>::value) {
    constexpr bool device_side = std::is_same_v<S, memory_space>, host_side = std::is_same_v<S, host_memory_space>;
    static_assert(device_side || host_side, "lapis::DualView: the memory space is neither side's");
    return named(device_side, host_side);
  } else if constexpr (Kokkos::is_execution_space<S>::value) {
    constexpr bool device_side = std::is_same_v<S, execution_space>,
                   host_side = std::is_same_v<S, host_execution_space>;
    static_assert(device_side || host_side, "lapis::DualView: the execution space is neither side's");
    return named(device_side, host_side);
  } else {
    using exec = typename S::execution_space;
    using mem = typename S::memory_space;
    constexpr bool exec_device = std::is_same_v<exec, execution_space>,
                   exec_host = std::is_same_v<exec, host_execution_space>;
    constexpr bool mem_device = std::is_same_v<mem, memory_space>, mem_host = std::is_same_v<mem, host_memory_space>;
    static_assert(exec_device || exec_host || mem_device || mem_host, "lapis::DualView: the device is neither side's");
    if constexpr (exec_device != exec_host) return named(exec_device, exec_host);
    else if constexpr (mem_device != mem_host) return named(mem_device, mem_host);
    else return NamedSide::both;
  }
}

}  // namespace lapis::detail
