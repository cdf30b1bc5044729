// A kernel's flat loop over [0, count): one parallel_for or parallel_reduce on the kernel's execution
// space, except that a short loop over memory the calling thread reaches runs on that thread
// (Kokkos::Serial), as numpy's would: handing work to an OpenMP team costs about a microsecond (its
// threads' fork and join), more than a few thousand elements of a streaming kernel take on one
// thread. On a GPU every loop runs on the device (on CUDA launched by lapis where it can:
// cuda_launch.hpp).
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "lapis/kernels/cuda_launch.hpp"
#include "lapis/kernels/fast_division.hpp"
#include "lapis/runtime/spaces.hpp"

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

// A loop over [0, count) on the calling thread.
inline Kokkos::RangePolicy<Kokkos::Serial, Kokkos::IndexType<std::int64_t>> on_calling_thread(std::int64_t count) {
  return {default_instance<Kokkos::Serial>(), 0, count};
}
#endif

// f(i) for i in [0, count); each i stands for `elements_per_index` elements when deciding whether
// the loop is short.
template <class ExecutionSpace, class F>
void for_each_index(const char* name, const ExecutionSpace& exec, std::int64_t count, const F& f,
                    std::int64_t elements_per_index = 1) {
#if defined(KOKKOS_ENABLE_SERIAL)
  if constexpr (calling_thread_reaches<ExecutionSpace>) {
    if (count * elements_per_index <= calling_thread_elements) {
      Kokkos::parallel_for(name, on_calling_thread(count), f);
      return;
    }
  }
#endif
#if defined(LAPIS_LAUNCHES_CUDA_LOOPS)
  if constexpr (std::is_same_v<ExecutionSpace, Kokkos::Cuda>)
    if (launched_on_stream(exec, count, f)) return;
#endif
  Kokkos::parallel_for(name, Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, count), f);
}

// The extents of an index box of rank 4 or less (the entries past its rank are not read).
using BoxExtents = std::int64_t[4];

// Division of a position by extent k, with its remainder: plain, or by precomputed FastDivisions.
struct ByExtents {
  const BoxExtents& extents;
  KOKKOS_FORCEINLINE_FUNCTION std::int64_t operator()(std::size_t k, std::int64_t n, std::int64_t& remainder) const {
    remainder = n % extents[k];
    return n / extents[k];
  }
};
struct ByFastDivisions {
  const FastDivision (&divisions)[4];
  KOKKOS_FORCEINLINE_FUNCTION std::uint32_t operator()(std::size_t k, std::uint32_t n, std::uint32_t& remainder) const {
    return divisions[k].divide(n, remainder);
  }
};

// Splits `flat`, a position in C order (the last index fastest) of a box of N indices, into them;
// `divide(k, n, remainder)` divides by extent k.
template <std::size_t N, class Index, class Divide>
KOKKOS_FORCEINLINE_FUNCTION void split_position(Index flat, const Divide& divide, Index (&i)[N]) {
  for (std::size_t k = N; k-- > 1;) flat = divide(k, flat, i[k]);
  i[0] = flat;
}

// f(i[0], ..., i[N-1], last...) with the indices widened to std::int64_t.
template <class F, class Index, std::size_t N, std::size_t... K, class... Last>
KOKKOS_FORCEINLINE_FUNCTION void call_with_indices(const F& f, const Index (&i)[N], std::index_sequence<K...>,
                                                   Last... last) {
  f(std::int64_t(i[K])..., last...);
}

// A host thread's work item: one run of the last index, walked in order (contiguous, vectorizable,
// no division per element).
template <std::size_t Rank, class F>
struct RunItem {
  F f;
  BoxExtents extents;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t run) const {
    std::int64_t i[Rank - 1];
    split_position(run, ByExtents{extents}, i);
    for (std::int64_t last = 0; last < extents[Rank - 1]; ++last)
      call_with_indices(f, i, std::make_index_sequence<Rank - 1>(), last);
  }
};

// The threads of a GPU warp.
inline constexpr std::int64_t warp_width = 32;

// How many threads a GPU loop wants at least: about one per thread slot of a large GPU (an H100
// holds 132 x 2,048).
inline constexpr std::int64_t device_threads_wanted = std::int64_t(1) << 17;

// A GPU thread's work item: one of the `lanes` threads (a power of two) that share a run of the
// last index, thread `lane` taking last = lane, lane + lanes, ...: neighbouring threads touch
// neighbouring elements. A thread takes `runs_per_item` consecutive runs (consecutive values of the
// second-to-last index) and splits its position into indices once for all of them, by
// FastDivisions where there are fewer than 2^32 runs (`narrow`).
template <std::size_t Rank, class F>
struct RowLanes {
  F f;
  BoxExtents extents;
  BoxExtents blocks;          // extents, the second-to-last in blocks of runs_per_item
  FastDivision divisions[4];  // by each of blocks, where narrow
  bool narrow;
  int lane_bits;  // lanes = 2^lane_bits
  std::int64_t runs_per_item;

  // The work items: lanes for each block of runs.
  std::int64_t items() const {
    std::int64_t count = 1;
    for (std::size_t k = 0; k + 1 < Rank; ++k) count *= blocks[k];
    return count << lane_bits;
  }

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t item) const {
    const std::int64_t block = item >> lane_bits, lane = item & ((std::int64_t(1) << lane_bits) - 1);
    if (narrow) {
      std::uint32_t i[Rank - 1];
      split_position(static_cast<std::uint32_t>(block), ByFastDivisions{divisions}, i);
      walk_runs(i, lane);
    } else {
      std::int64_t i[Rank - 1];
      split_position(block, ByExtents{blocks}, i);
      walk_runs(i, lane);
    }
  }

 private:
  template <class Index>
  KOKKOS_FORCEINLINE_FUNCTION void walk_runs(Index (&i)[Rank - 1], std::int64_t lane) const {
    const std::int64_t first = std::int64_t(i[Rank - 2]) * runs_per_item;
    const std::int64_t end = first + runs_per_item < extents[Rank - 2] ? first + runs_per_item : extents[Rank - 2];
    for (std::int64_t run = first; run < end; ++run) {
      i[Rank - 2] = static_cast<Index>(run);
      for (std::int64_t last = lane; last < extents[Rank - 1]; last += std::int64_t(1) << lane_bits)
        call_with_indices(f, i, std::make_index_sequence<Rank - 1>(), last);
    }
  }
};

// The lanes that share one of `runs` runs of `length` on a GPU: the power of two that covers the
// run, up to a warp, or up to as many as give the loop `threads_wanted` threads where there are
// few runs (a global pooling's 8 images of 512 channels: a warp each would leave 256 threads to
// read the whole input).
inline int lane_bits_for(std::int64_t length, std::int64_t runs,
                         std::int64_t threads_wanted = device_threads_wanted) {
  const std::int64_t most = std::max(warp_width, threads_wanted / std::max<std::int64_t>(runs, 1));
  int bits = 0;
  while ((std::int64_t(1) << bits) < std::min(length, most)) ++bits;
  return bits;
}

// How many threads a GPU loop keeps when its threads take several runs each: a thread's elements
// go one after the other (a store may alias the next element's load), so the loop needs about two
// threads per H100 thread slot to hide memory latency. With blocks of 8 runs over 229,000 threads,
// ResNet-18 conv1's placing of its product took 36 us under ncu, against 23 us a run at a time.
inline constexpr std::int64_t device_threads_kept = std::int64_t(1) << 19;

// The consecutive runs a GPU thread takes, up to 8 of the second-to-last index's `extent`, while the
// loop keeps `threads_kept` threads: splitting a position into indices costs more instructions than
// a few elements' work (im2col's runs of 56 left each thread 1 or 2 elements; in blocks of 8 runs,
// ResNet-18 layer1's im2col went from 75.9 to 53.7 us under ncu).
inline std::int64_t runs_per_item_for(std::int64_t runs, int lane_bits, std::int64_t extent,
                                      std::int64_t threads_kept = device_threads_kept) {
  std::int64_t k = 1;
  while (k < 8 && k < extent && ((runs / (2 * k)) << lane_bits) >= threads_kept) k *= 2;
  return k;
}

// RowLanes over the box with `extents` (rank 2 to 4), f its body; lane_bits_for and runs_per_item_for
// say how the threads share it.
template <std::size_t Rank, class F>
RowLanes<Rank, F> row_lanes(const F& f, const BoxExtents& extents,
                            std::int64_t threads_wanted = device_threads_wanted,
                            std::int64_t threads_kept = device_threads_kept) {
  std::int64_t runs = 1;
  for (std::size_t k = 0; k + 1 < Rank; ++k) runs *= extents[k];
  RowLanes<Rank, F> item{f, {}, {}, {}, runs < (std::int64_t(1) << 32),
                         lane_bits_for(extents[Rank - 1], runs, threads_wanted), 1};
  for (std::size_t k = 0; k < 4; ++k) item.extents[k] = item.blocks[k] = extents[k];
  item.runs_per_item = runs_per_item_for(runs, item.lane_bits, extents[Rank - 2], threads_kept);
  item.blocks[Rank - 2] = (extents[Rank - 2] + item.runs_per_item - 1) / item.runs_per_item;
  if (item.narrow)
    for (std::size_t k = 0; k + 1 < Rank; ++k)
      item.divisions[k] = FastDivision(static_cast<std::uint32_t>(item.blocks[k]));
  return item;
}

template <class F>
struct WithoutIndices {
  F f;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t) const { f(); }
};

// f(i0, ..., i{Rank-1}) for every index of the box with `extents` (rank 0 to 4), whose last index
// is the contiguous one in the kernels' C-order arrays: runs of the last index are shared by lanes
// of threads on a GPU (RowLanes), one run per work item on the host (RunItem). Not Kokkos's
// MDRangePolicy: on CUDA it gives threadIdx.x to the first dimensions, which puts a warp's
// neighbouring threads a row or more apart in memory.
template <std::size_t Rank, class ExecutionSpace, class F>
void for_each_multi_index(const char* name, const ExecutionSpace& exec, const BoxExtents& extents, const F& f) {
  static_assert(Rank <= 4, "lapis::kernels: index boxes have rank 0 to 4");
  std::int64_t count = 1;
  for (std::size_t k = 0; k < Rank; ++k) count *= extents[k];
  if (count == 0) return;
  if constexpr (Rank == 0) {
    for_each_index(name, exec, 1, WithoutIndices<F>{f});
  } else if constexpr (Rank == 1) {
    for_each_index(name, exec, count, f);
  } else if constexpr (runs_on_host<ExecutionSpace>) {
    RunItem<Rank, F> item{f, {extents[0], extents[1], extents[2], extents[3]}};
    for_each_index(name, exec, count / extents[Rank - 1], item, extents[Rank - 1]);
  } else {
    const RowLanes<Rank, F> item = row_lanes<Rank>(f, extents);
    for_each_index(name, exec, item.items(), item);
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

// A reduction's body that writes as it reads, split in two: `load(i)` reads what index i needs and
// `finish(i, loaded, sum)` does the rest. A work item that owns several indices then issues every
// index's loads before the first store: the compiler cannot move them there itself, since a store
// may alias a later index's element, and one index after the other costs a memory round trip each.
template <class Load, class Finish>
struct LoadsThen {
  Load load;
  Finish finish;
  using loaded_type = std::invoke_result_t<const Load&, std::int64_t>;
};
template <class Load, class Finish>
LoadsThen<Load, Finish> loads_then(const Load& load, const Finish& finish) {
  return {load, finish};
}

template <class F>
inline constexpr bool loads_first = false;
template <class Load, class Finish>
inline constexpr bool loads_first<LoadsThen<Load, Finish>> = true;

// The body of a reduction at one index: f(i, sum), or a LoadsThen's two halves.
template <class F, class Value>
KOKKOS_FORCEINLINE_FUNCTION void add_term(const F& f, std::int64_t i, Value& sum) {
  if constexpr (loads_first<F>) f.finish(i, f.load(i), sum);
  else f(i, sum);
}

// The body at indices first + j * step for j in [0, Lanes), each into its own partial sum, a
// LoadsThen's loads all first. (The indices stay affine in j, so that a host loop vectorizes.)
template <std::int64_t Lanes, class F, class Value>
KOKKOS_FORCEINLINE_FUNCTION void add_terms(const F& f, std::int64_t first, std::int64_t step, Value (&lane)[Lanes]) {
  if constexpr (loads_first<F>) {
    typename F::loaded_type loaded[Lanes];
    for (std::int64_t j = 0; j < Lanes; ++j) loaded[j] = f.load(first + j * step);
    for (std::int64_t j = 0; j < Lanes; ++j) f.finish(first + j * step, loaded[j], lane[j]);
  } else {
    for (std::int64_t j = 0; j < Lanes; ++j) f(first + j * step, lane[j]);
  }
}

// Partial sums added as a tree into `sum`.
template <std::int64_t Lanes, class Value>
KOKKOS_FORCEINLINE_FUNCTION void add_lanes(Value (&lane)[Lanes], Value& sum) {
  for (std::int64_t width = Lanes / 2; width > 0; width /= 2)
    for (std::int64_t j = 0; j < width; ++j) lane[j] += lane[j + width];
  sum += lane[0];
}

// A host thread's work item: host_reduction_lanes neighbouring indices.
template <class Value, class F>
struct LaneBlocks {
  F f;
  std::int64_t count;

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t block, Value& sum) const {
    const std::int64_t first = block * host_reduction_lanes;
    if (first + host_reduction_lanes <= count) {
      Value lane[host_reduction_lanes] = {};
      add_terms(f, first, 1, lane);
      add_lanes(lane, sum);
    } else {
      for (std::int64_t i = first; i < count; ++i) add_term(f, i, sum);
    }
  }
};

// How many indices one GPU work item of a reduction takes: their loads are in flight together.
inline constexpr std::int64_t device_reduction_lanes = 8;

// A GPU thread's work item: the 32 threads of a warp share a block of 32 * device_reduction_lanes
// indices, thread t taking t, t + 32, t + 64, ...: each load is coalesced across the warp, and the
// warp's loads of one item cover a contiguous block.
template <class Value, class F>
struct WarpLanes {
  F f;
  std::int64_t count;

  static std::int64_t items(std::int64_t count) {
    constexpr std::int64_t block = warp_width * device_reduction_lanes;
    return (count + block - 1) / block * warp_width;
  }

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t item, Value& sum) const {
    const std::int64_t first = item / warp_width * (warp_width * device_reduction_lanes) + item % warp_width;
    if (first + (device_reduction_lanes - 1) * warp_width < count) {
      Value lane[device_reduction_lanes] = {};
      add_terms(f, first, warp_width, lane);
      add_lanes(lane, sum);
    } else {
      for (std::int64_t i = first; i < count; i += warp_width) add_term(f, i, sum);
    }
  }
};

// The same for a reduction into `result` (a host scalar, or a view where the result stays). `f` is
// f(i, sum), or a LoadsThen where the body writes.
template <class ExecutionSpace, class F, class Result>
void reduce_each_index(const char* name, const ExecutionSpace& exec, std::int64_t count, const F& f,
                       Result&& result) {
  using Value = typename ReductionValue<std::decay_t<Result>>::type;
  if constexpr (runs_on_host<ExecutionSpace>) {
    const LaneBlocks<Value, F> blocks{f, count};
    const std::int64_t block_count = (count + host_reduction_lanes - 1) / host_reduction_lanes;
#if defined(KOKKOS_ENABLE_SERIAL)
    if constexpr (calling_thread_reaches<ExecutionSpace>) {
      if (count <= calling_thread_elements) {
        Kokkos::parallel_reduce(name, on_calling_thread(block_count), blocks, std::forward<Result>(result));
        return;
      }
    }
#endif
    Kokkos::parallel_reduce(name,
                            Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, block_count),
                            blocks, std::forward<Result>(result));
  } else {
    using Item = WarpLanes<Value, F>;
    Kokkos::parallel_reduce(name,
                            Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, Item::items(count)),
                            Item{f, count}, std::forward<Result>(result));
  }
}

}  // namespace lapis::kernels::detail
