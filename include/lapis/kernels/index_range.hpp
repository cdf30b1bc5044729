// A kernel's flat loop over [0, count): one parallel_for or parallel_reduce on the kernel's execution
// space, except that a short loop over memory the calling thread reaches runs on that thread
// (Kokkos::Serial), as numpy's would: handing work to an OpenMP team costs about a microsecond (its
// threads' fork and join), more than a few thousand elements of a streaming kernel take on one
// thread. On a GPU every loop runs on the device.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>

namespace lapis::kernels::detail {

inline constexpr std::int64_t calling_thread_elements = 4096;

#if defined(KOKKOS_ENABLE_SERIAL)
// Whether the calling thread reaches ExecutionSpace's memory (and is not what runs its loops anyway).
template <class ExecutionSpace>
inline constexpr bool calling_thread_reaches =
    !std::is_same_v<ExecutionSpace, Kokkos::Serial> &&
    Kokkos::SpaceAccessibility<Kokkos::Serial, typename ExecutionSpace::memory_space>::accessible;
#endif

template <class ExecutionSpace, class F>
void for_each_index(const char* name, const ExecutionSpace& exec, std::int64_t count, const F& f) {
#if defined(KOKKOS_ENABLE_SERIAL)
  if constexpr (calling_thread_reaches<ExecutionSpace>) {
    if (count <= calling_thread_elements) {
      Kokkos::parallel_for(name, Kokkos::RangePolicy<Kokkos::Serial, Kokkos::IndexType<std::int64_t>>(0, count), f);
      return;
    }
  }
#endif
  Kokkos::parallel_for(name, Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, count), f);
}

// The same for a reduction into `result` (a host scalar, or a view where the result stays).
template <class ExecutionSpace, class F, class Result>
void reduce_each_index(const char* name, const ExecutionSpace& exec, std::int64_t count, const F& f,
                       Result&& result) {
#if defined(KOKKOS_ENABLE_SERIAL)
  if constexpr (calling_thread_reaches<ExecutionSpace>) {
    if (count <= calling_thread_elements) {
      Kokkos::parallel_reduce(name, Kokkos::RangePolicy<Kokkos::Serial, Kokkos::IndexType<std::int64_t>>(0, count), f,
                              std::forward<Result>(result));
      return;
    }
  }
#endif
  Kokkos::parallel_reduce(name, Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, count),
                          f, std::forward<Result>(result));
}

}  // namespace lapis::kernels::detail
