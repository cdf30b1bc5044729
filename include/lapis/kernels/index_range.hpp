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

// f(i) for i in [0, count); each i stands for `elements_per_index` elements when deciding whether
// the loop is short.
template <class ExecutionSpace, class F>
void for_each_index(const char* name, const ExecutionSpace& exec, std::int64_t count, const F& f,
                    std::int64_t elements_per_index = 1) {
#if defined(KOKKOS_ENABLE_SERIAL)
  if constexpr (calling_thread_reaches<ExecutionSpace>) {
    if (count * elements_per_index <= calling_thread_elements) {
      Kokkos::parallel_for(name, Kokkos::RangePolicy<Kokkos::Serial, Kokkos::IndexType<std::int64_t>>(0, count), f);
      return;
    }
  }
#endif
  Kokkos::parallel_for(name, Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, count), f);
}

// The extents of an index box of rank 4 or less (the entries past its rank are not read).
using BoxExtents = std::int64_t[4];

// Calls f(i0, ..., i{Rank-1}) for position `flat` of the box in C order (the last index fastest),
// the first `Rank - Trailing` indices split from `flat` and `trailing` (Trailing of them) appended.
template <std::size_t Rank, class Index, class F, class... Trailing>
KOKKOS_FORCEINLINE_FUNCTION void at_position(Index flat, const BoxExtents& extents, const F& f, Trailing... trailing) {
  constexpr std::size_t split = Rank - sizeof...(Trailing);
  if constexpr (split == 0) {
    f(trailing...);
  } else {
    Index i[split];
    for (std::size_t k = split; k-- > 1;) {
      const Index extent = static_cast<Index>(extents[k]);
      i[k] = flat % extent;
      flat /= extent;
    }
    i[0] = flat;
    if constexpr (split == 1) f(std::int64_t(i[0]), trailing...);
    else if constexpr (split == 2) f(std::int64_t(i[0]), std::int64_t(i[1]), trailing...);
    else if constexpr (split == 3) f(std::int64_t(i[0]), std::int64_t(i[1]), std::int64_t(i[2]), trailing...);
    else f(std::int64_t(i[0]), std::int64_t(i[1]), std::int64_t(i[2]), std::int64_t(i[3]), trailing...);
  }
}

// A GPU's work item: one element, its indices split from the flat position in 32-bit arithmetic
// when the box has fewer than 2^32 elements (a 64-bit division is several times dearer).
template <std::size_t Rank, class F>
struct ElementItem {
  F f;
  BoxExtents extents;
  bool narrow;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t flat) const {
    if (narrow) at_position<Rank>(static_cast<std::uint32_t>(flat), extents, f);
    else at_position<Rank>(flat, extents, f);
  }
};

// A host thread's work item: one run of the last index, walked in order (contiguous, vectorizable,
// no division per element).
template <std::size_t Rank, class F>
struct RunItem {
  F f;
  BoxExtents extents;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t run) const {
    for (std::int64_t last = 0; last < extents[Rank - 1]; ++last) at_position<Rank>(run, extents, f, last);
  }
};

// f(i0, ..., i{Rank-1}) for every index of the box with `extents` (rank 0 to 4), whose last index
// is the contiguous one in the kernels' C-order arrays: on a GPU one element per thread, so that
// neighbouring threads of a warp touch neighbouring elements; on the host one run of the last
// index per work item. Not Kokkos's MDRangePolicy: on CUDA it gives threadIdx.x to the first
// dimensions, which puts a warp's neighbouring threads a row or more apart in memory.
template <std::size_t Rank, class ExecutionSpace, class F>
void for_each_multi_index(const char* name, const ExecutionSpace& exec, const BoxExtents& extents, const F& f) {
  static_assert(Rank <= 4, "lapis::kernels: index boxes have rank 0 to 4");
  std::int64_t count = 1;
  for (std::size_t k = 0; k < Rank; ++k) count *= extents[k];
  if (count == 0) return;
  if constexpr (Rank == 1) {
    for_each_index(name, exec, count, f);
  } else if constexpr (Rank >= 2 && runs_on_host<ExecutionSpace>) {
    RunItem<Rank, F> item{f, {extents[0], extents[1], extents[2], extents[3]}};
    for_each_index(name, exec, count / extents[Rank - 1], item, extents[Rank - 1]);
  } else {
    ElementItem<Rank, F> item{f, {extents[0], extents[1], extents[2], extents[3]}, count < (std::int64_t(1) << 32)};
    for_each_index(name, exec, count, item);
  }
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
