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

// Whether ExecutionSpace's threads are the host's (its loops want each thread on contiguous memory;
// a GPU's want neighbouring threads on neighbouring elements).
template <class ExecutionSpace>
inline constexpr bool runs_on_host = std::is_same_v<typename ExecutionSpace::memory_space, Kokkos::HostSpace>;

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

// How many independent partial sums a host reduction keeps per block of indices. One running sum
// makes every element wait for the previous add (about 4 cycles each), which bounds a dot product
// below memory speed; eight partial sums added as a tree let the compiler vectorize the block.
inline constexpr std::int64_t host_reduction_lanes = 8;

// The summed type: the host scalar's, or the rank-0 view's element type.
template <class Result, bool = Kokkos::is_view<Result>::value>
struct ReductionValue {
  using type = Result;
};
template <class Result>
struct ReductionValue<Result, true> {
  using type = typename Result::non_const_value_type;
};

// f(i, sum) over [0, count) in blocks of host_reduction_lanes indices, one block per call.
template <class Value, class F>
struct LaneBlocks {
  F f;
  std::int64_t count;

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t block, Value& sum) const {
    const std::int64_t first = block * host_reduction_lanes;
    if (first + host_reduction_lanes <= count) {
      Value lane[host_reduction_lanes] = {};
      for (std::int64_t j = 0; j < host_reduction_lanes; ++j) f(first + j, lane[j]);
      for (std::int64_t width = host_reduction_lanes / 2; width > 0; width /= 2)
        for (std::int64_t j = 0; j < width; ++j) lane[j] += lane[j + width];
      sum += lane[0];
    } else {
      for (std::int64_t i = first; i < count; ++i) f(i, sum);
    }
  }
};

// The same for a reduction into `result` (a host scalar, or a view where the result stays).
template <class ExecutionSpace, class F, class Result>
void reduce_each_index(const char* name, const ExecutionSpace& exec, std::int64_t count, const F& f,
                       Result&& result) {
  if constexpr (runs_on_host<ExecutionSpace>) {
    using Value = typename ReductionValue<std::decay_t<Result>>::type;
    const LaneBlocks<Value, F> blocks{f, count};
    const std::int64_t block_count = (count + host_reduction_lanes - 1) / host_reduction_lanes;
#if defined(KOKKOS_ENABLE_SERIAL)
    if constexpr (calling_thread_reaches<ExecutionSpace>) {
      if (count <= calling_thread_elements) {
        Kokkos::parallel_reduce(name, Kokkos::RangePolicy<Kokkos::Serial, Kokkos::IndexType<std::int64_t>>(0, block_count),
                                blocks, std::forward<Result>(result));
        return;
      }
    }
#endif
    Kokkos::parallel_reduce(name,
                            Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, block_count),
                            blocks, std::forward<Result>(result));
  } else {
    Kokkos::parallel_reduce(name, Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, count),
                            f, std::forward<Result>(result));
  }
}

}  // namespace lapis::kernels::detail
