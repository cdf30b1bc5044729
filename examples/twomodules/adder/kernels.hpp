// The adder module's kernels, over the buffers of Python DualViews (Kokkos-free: the Cython code
// includes this).
#pragma once

#include <lapis/core/any_dual_buffer.hpp>

#include <memory>

namespace adder {

using Buffer = std::shared_ptr<lapis::AnyDualBuffer>;

// a + b for 2-D float64 DualViews of one shape: a new DualView, left on the device.
Buffer add(const Buffer& a, const Buffer& b);
// The sum of every element of a 2-D float64 DualView (a parallel_reduce on its device side).
double total(const Buffer& a);
// How often add() ran: counted on the device, in a module-global Kokkos View that lapis drops
// before it finalizes Kokkos.
int calls();
// What this module's own code sees of Kokkos (it never initializes Kokkos itself).
bool kokkos_initialized();
int concurrency();

}  // namespace adder
