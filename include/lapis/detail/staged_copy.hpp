// Host<->device copies of pageable host memory through pinned staging. A copy from pageable memory
// runs at a fraction of the link's rate (the driver stages it itself, one thread, one small buffer
// at a time). Here the array is cut into chunks; a team of host threads copies (and, for a strided
// host side, packs or unpacks) each chunk into or out of one of two pinned buffers from lapis's
// pool, while the DMA engine moves the chunk before it. Used for large copies only: below
// StagingSettings::min_bytes the direct copy is faster (waking the threads and synchronizing them
// cost more than they save).
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <exception>

#include "lapis/core/shape.hpp"
#include "lapis/runtime/spaces.hpp"
#include "lapis/runtime/staging.hpp"
#include "lapis/detail/strided_copy.hpp"

namespace lapis::detail {

// The host side's layout seen in the device side's element order: the dimensions reversed for a
// column-major device side, so that the device side is C-contiguous over them.
inline void in_device_order(Shape& shape, Strides& strides, Order order) {
  if (order == Order::left) {
    std::reverse(shape.extents.begin(), shape.extents.begin() + shape.rank);
    std::reverse(strides.begin(), strides.begin() + shape.rank);
  }
}

// Elements per chunk of a staged copy of `shape`: the size of each of its two staging buffers, never
// more than the array (a large chunk setting costs a small copy nothing).
inline std::size_t staging_chunk_elements(const Shape& shape) {
  return std::max<std::size_t>(1, std::min(staging_settings().chunk_bytes / shape.itemsize, shape.size()));
}

// Copies the whole array between `device` (contiguous in `order`) and the pageable host memory at
// `host` (`host_strides`) through the two pinned buffers `staging` (staging_chunk_elements each),
// on `exec`'s instance: the call returns with the copy finished. `to_device` picks the direction.
// The caller holds the execution lock.
template <class DeviceMemorySpace, class ExecutionSpace>
void staged_copy(bool to_device, unsigned char* device, unsigned char* host, Strides host_strides, Shape shape,
                 Order order, const ExecutionSpace& exec, unsigned char* const (&staging)[2]) {
  using DeviceBytes = Kokkos::View<unsigned char*, DeviceMemorySpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using PinnedBytes = Kokkos::View<unsigned char*, PinnedHostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const std::size_t item = shape.itemsize, elements = shape.size(), chunk = staging_chunk_elements(shape);
  in_device_order(shape, host_strides, order);
  const std::size_t chunks = (elements + chunk - 1) / chunk;
  const unsigned wanted = std::max(1u, std::min<unsigned>(staging_settings().threads, static_cast<unsigned>(chunk)));
  // A download larger than the caches is written with streaming stores: 1.26x faster at 256 MiB,
  // 0.97x at 16 MiB (a destination still in the cache), on the CI host's simulated device.
  constexpr std::size_t streaming_min_bytes = std::size_t{64} << 20;
  const bool streaming = !to_device && elements * item >= streaming_min_bytes;

  const auto elements_of = [&](std::size_t k) { return std::min(chunk, elements - k * chunk); };
  // Thread `member`'s share of chunk k, between the host side and buffer k % 2.
  const auto host_part = [&](unsigned member, unsigned team, std::size_t k) {
    const std::size_t n = elements_of(k), share = (n + team - 1) / team;
    const std::size_t begin = std::min(n, member * share), end = std::min(n, begin + share);
    copy_element_range(staging[k % 2] + begin * item, host, host_strides, shape, k * chunk + begin, end - begin,
                       to_device, streaming);
  };
  std::exception_ptr failed;  // touched by the calling thread only
  // Chunk k between buffer k % 2 and the device, queued on exec (only the calling thread dispatches).
  const auto dma = [&](std::size_t k) {
    if (failed) return;
    try {
      const std::size_t bytes = elements_of(k) * item;
      DeviceBytes on_device(device + k * chunk * item, bytes);
      PinnedBytes staged(staging[k % 2], bytes);
      if (to_device) Kokkos::deep_copy(exec, on_device, staged);
      else Kokkos::deep_copy(exec, staged, on_device);
    } catch (...) {
      failed = std::current_exception();
    }
  };
  const auto wait = [&] {
    try {
      exec.fence();
    } catch (...) {
      if (!failed) failed = std::current_exception();
    }
  };
  // Each step overlaps the host threads' work on one chunk with the DMA of its neighbour; a buffer
  // is refilled only after the fence that follows its last DMA.
  run_staging_team(wanted, [&](unsigned member, unsigned team, TeamBarrier& barrier) {
    for (std::size_t k = 0; k <= chunks; ++k) {
      if (to_device) {
        if (k < chunks) host_part(member, team, k);  // chunk k packed while chunk k - 1 moves
        barrier.arrive_and_wait();
        if (member == 0) {
          wait();  // chunk k - 1 has moved: its buffer is free for chunk k + 1
          if (k < chunks) dma(k);
        }
      } else {
        if (member == 0 && k < chunks) dma(k);  // chunk k moves while chunk k - 1 is unpacked
        if (k > 0) host_part(member, team, k - 1);
        barrier.arrive_and_wait();
        if (member == 0) wait();  // chunk k has arrived; buffer (k - 1) % 2 is free again
      }
      barrier.arrive_and_wait();
    }
  });
  if (failed) std::rethrow_exception(failed);
}

}  // namespace lapis::detail
