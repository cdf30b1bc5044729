// A kernel's scratch memory: a block of lapis's pool (block_pool.hpp) for one call, given back when
// the call returns, while the work that uses it may still be queued.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>

#include "lapis/detail/allocation.hpp"
#include "lapis/execution/backend.hpp"
#include "lapis/runtime/spaces.hpp"

namespace lapis::kernels::detail {

template <class MemorySpace>
lapis::detail::Allocation<MemorySpace> scratch(const char* label, std::size_t bytes) {
  return lapis::detail::Allocation<MemorySpace>(label, bytes, lapis::detail::Fill::none, lapis::Side::device);
}

// Waits for `exec` before scratch used by its work goes back, unless that work is ordered with the
// pool's reuse: the pool hands a block out again in the order of the default execution space
// instance, on which lapis queues all its work, so work there needs no wait (a convolution that
// waited each call left the device idle while the host queued the next calls). Kokkos 3 cannot
// compare instances: there it always waits.
template <class ExecutionSpace>
void before_scratch_returns(const ExecutionSpace& exec) {
  if constexpr (instances_compare) {
    if (exec == default_instance<ExecutionSpace>()) return;
  }
  exec.fence();
}

}  // namespace lapis::kernels::detail
