// f(i0, ..., i{Rank-1}) for every index of a box of rank 0 to 4 (the kernels' C-order arrays, the
// last index the contiguous one), as one flat loop: runs of the last index shared by lanes of GPU
// threads, or walked in order by a host thread. The tuning constants below were measured
// (docs/guide/kernels.md, "Why the execution machinery is shaped so").
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "lapis/execution/backend.hpp"
#include "lapis/execution/fast_division.hpp"
#include "lapis/execution/flat_loop.hpp"

namespace lapis::kernels::detail {

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

// How many threads a GPU loop wants at least: about one per thread slot of a large GPU.
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
inline int lane_bits_for(std::int64_t length, std::int64_t runs, std::int64_t threads_wanted = device_threads_wanted) {
  const std::int64_t most = std::max(warp_width, threads_wanted / std::max<std::int64_t>(runs, 1));
  int bits = 0;
  while ((std::int64_t(1) << bits) < std::min(length, most)) ++bits;
  return bits;
}

// How many threads a GPU loop keeps when its threads take several runs each: a thread's elements
// go one after the other (a store may alias the next element's load), so the loop needs about two
// threads per thread slot to hide memory latency.
inline constexpr std::int64_t device_threads_kept = std::int64_t(1) << 19;

// The consecutive runs a GPU thread takes, up to 8 of the second-to-last index's `extent`, while the
// loop keeps `threads_kept` threads: splitting a position into indices costs more instructions than
// a few elements' work (im2col's runs of 56 left each thread 1 or 2 elements).
inline std::int64_t runs_per_item_for(std::int64_t runs, int lane_bits, std::int64_t extent,
                                      std::int64_t threads_kept = device_threads_kept) {
  std::int64_t k = 1;
  while (k < 8 && k < extent && ((runs / (2 * k)) << lane_bits) >= threads_kept) k *= 2;
  return k;
}

// RowLanes over the box with `extents` (rank 2 to 4), f its body; lane_bits_for and runs_per_item_for
// say how the threads share it.
template <std::size_t Rank, class F>
RowLanes<Rank, F> row_lanes(const F& f, const BoxExtents& extents, std::int64_t threads_wanted = device_threads_wanted,
                            std::int64_t threads_kept = device_threads_kept) {
  std::int64_t runs = 1;
  for (std::size_t k = 0; k + 1 < Rank; ++k) runs *= extents[k];
  RowLanes<Rank, F> item{
      f, {}, {}, {}, runs < (std::int64_t(1) << 32), lane_bits_for(extents[Rank - 1], runs, threads_wanted), 1};
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
  } else if constexpr (Backend<ExecutionSpace>::runs_on_host) {
    RunItem<Rank, F> item{f, {extents[0], extents[1], extents[2], extents[3]}};
    for_each_index(name, exec, count / extents[Rank - 1], item, extents[Rank - 1]);
  } else {
    const RowLanes<Rank, F> item = row_lanes<Rank>(f, extents);
    for_each_index(name, exec, item.items(), item);
  }
}

}  // namespace lapis::kernels::detail
