// A kernel's flat loop over [0, count): one parallel_for on the kernel's execution space, except
// that a short loop over memory the calling thread reaches runs on that thread, as numpy's would
// (backend.hpp: calling_thread_elements). On a GPU every loop runs on the device (on CUDA launched
// by lapis where it can: cuda_launch.hpp).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "lapis/execution/backend.hpp"
#include "lapis/runtime/spaces.hpp"

namespace lapis::kernels::detail {

// A loop over [0, count) on the calling thread, for ExecutionSpace's short loops.
template <class ExecutionSpace>
auto on_calling_thread(std::int64_t count) {
  using Space = typename Backend<ExecutionSpace>::calling_thread;
  return Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(default_instance<Space>(), 0, count);
}

// f(i) for i in [0, count); each i stands for `elements_per_index` elements when deciding whether
// the loop is short.
template <class ExecutionSpace, class F>
void for_each_index(const char* name, const ExecutionSpace& exec, std::int64_t count, const F& f,
                    std::int64_t elements_per_index = 1) {
  if constexpr (Backend<ExecutionSpace>::short_loops_on_calling_thread) {
    if (count * elements_per_index <= calling_thread_elements) {
      // Kokkos's dispatch (a policy, copies of the instance, its lock, the name as a string) costs
      // more than a short loop's elements do: the loop runs here, unless a loaded Kokkos tool would
      // see the kernel through that dispatch.
      if (Kokkos::Tools::profileLibraryLoaded()) {
        Kokkos::parallel_for(name, on_calling_thread<ExecutionSpace>(count), f);
      } else {
        for (std::int64_t i = 0; i < count; ++i) f(i);
      }
      return;
    }
  }
  if constexpr (Backend<ExecutionSpace>::launches_own_loops) {
    if (launched_on_stream(exec, count, f)) return;
  }
  Kokkos::parallel_for(name, Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, count), f);
}

}  // namespace lapis::kernels::detail
