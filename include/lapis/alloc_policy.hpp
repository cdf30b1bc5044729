// What is allocated when, and where the host side lives. An allocation policy is a type derived
// from alloc::Policy with:
//   host_memory_space    the Kokkos memory space of lapis-owned host memory;
//   allocate_now         the sides allocated at construction (the others on first use);
//   borrows              whether the host side is caller-owned memory;
//   view_layout<Layout>  the layout of the views handed out for both sides.
// Whatever the policy, when the device can reach host memory the sides alias and nothing is copied.
#pragma once

#include <Kokkos_Core.hpp>

#include "lapis/core/allocate_now.hpp"
#include "lapis/runtime/spaces.hpp"

namespace lapis::alloc {

// Marks a type as an allocation policy among DualView's properties.
struct Policy {};

// lapis-owned memory on both sides, the host side in HostMemorySpace; the sides in `Now` allocated
// (zero-filled) at construction.
template <class HostMemorySpace, AllocateNow Now>
struct Owned : Policy {
  using host_memory_space = HostMemorySpace;
  static constexpr AllocateNow allocate_now = Now;
  static constexpr bool borrows = false;
  template <class Layout>
  using view_layout = Layout;
};

// Both sides at construction.
struct Mirrored : Owned<Kokkos::HostSpace, AllocateNow::both> {};

// The device side at construction; the host side only when the host first touches the data.
// Right for kernel results that may never be read on the host.
struct DeviceFirst : Owned<Kokkos::HostSpace, AllocateNow::device> {};

// Like Mirrored, with the host side in page-locked memory where the backend has it (CUDA); plain
// host memory elsewhere. Pays for large or frequent transfers; costs more to allocate.
struct PinnedHost : Owned<PinnedHostSpace, AllocateNow::both> {};

// The host side is memory the caller lends (a numpy buffer, say), with any strides; the device side
// is allocated contiguously on first device access, and syncing to host writes into the caller's
// memory. Views are LayoutStride because the host side's strides are the caller's.
struct Borrowed : Policy {
  using host_memory_space = Kokkos::HostSpace;
  static constexpr AllocateNow allocate_now = AllocateNow::nothing;
  static constexpr bool borrows = true;
  template <class Layout>
  using view_layout = Kokkos::LayoutStride;
};

}  // namespace lapis::alloc
