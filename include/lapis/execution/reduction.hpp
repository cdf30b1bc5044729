// A kernel's reduction over [0, count) into a host scalar or a rank-0 view: several partial sums
// per work item (host threads on neighbouring indices, a GPU warp's threads interleaved), so that
// loads are in flight together and a host loop vectorizes; a short host reduction runs on the
// calling thread, as flat_loop.hpp's loops do.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>

#include "lapis/execution/backend.hpp"
#include "lapis/execution/flat_loop.hpp"

namespace lapis::kernels::detail {

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
void reduce_each_index(const char* name, const ExecutionSpace& exec, std::int64_t count, const F& f, Result&& result) {
  using Value = typename ReductionValue<std::decay_t<Result>>::type;
  if constexpr (Backend<ExecutionSpace>::runs_on_host) {
    const LaneBlocks<Value, F> blocks{f, count};
    const std::int64_t block_count = (count + host_reduction_lanes - 1) / host_reduction_lanes;
    if constexpr (Backend<ExecutionSpace>::short_loops_on_calling_thread) {
      if (count <= calling_thread_elements) {
        Kokkos::parallel_reduce(name, on_calling_thread<ExecutionSpace>(block_count), blocks,
                                std::forward<Result>(result));
        return;
      }
    }
    Kokkos::parallel_reduce(name,
                            Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, block_count),
                            blocks, std::forward<Result>(result));
  } else {
    using Item = WarpLanes<Value, F>;
    Kokkos::parallel_reduce(
        name, Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, Item::items(count)),
        Item{f, count}, std::forward<Result>(result));
  }
}

}  // namespace lapis::kernels::detail
