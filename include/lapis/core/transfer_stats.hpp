// Counts and bytes of host->device and device->host copies.
//
// Only real copies are counted: a DualView whose two sides alias the same memory never adds to
// these figures, and neither does a copy of zero bytes. Kokkos-free, so that code compiled without
// Kokkos (the Cython layer, other extensions) can read the statistics.
#pragma once

#include <atomic>
#include <cstdint>

#include "lapis/core/export.hpp"

namespace lapis {

struct TransferStats {
  std::uint64_t h2d_count = 0;
  std::uint64_t h2d_bytes = 0;
  std::uint64_t d2h_count = 0;
  std::uint64_t d2h_bytes = 0;

  friend TransferStats operator-(TransferStats a, const TransferStats& b) noexcept {
    a.h2d_count -= b.h2d_count;
    a.h2d_bytes -= b.h2d_bytes;
    a.d2h_count -= b.d2h_count;
    a.d2h_bytes -= b.d2h_bytes;
    return a;
  }
  friend bool operator==(const TransferStats& a, const TransferStats& b) noexcept {
    return a.h2d_count == b.h2d_count && a.h2d_bytes == b.h2d_bytes && a.d2h_count == b.d2h_count &&
           a.d2h_bytes == b.d2h_bytes;
  }
  friend bool operator!=(const TransferStats& a, const TransferStats& b) noexcept { return !(a == b); }
};

enum class Direction { host_to_device, device_to_host };

// A copy's direction as the trace, the transfer guard's messages and Python name it.
constexpr const char* direction_name(Direction direction) noexcept {
  return direction == Direction::host_to_device ? "host->device" : "device->host";
}

namespace detail {

// Lock-free accumulator: several threads may sync different DualViews at once.
class TransferCounter {
 public:
  void record(Direction direction, std::uint64_t bytes) noexcept {
    if (direction == Direction::host_to_device) {
      h2d_count_.fetch_add(1, std::memory_order_relaxed);
      h2d_bytes_.fetch_add(bytes, std::memory_order_relaxed);
    } else {
      d2h_count_.fetch_add(1, std::memory_order_relaxed);
      d2h_bytes_.fetch_add(bytes, std::memory_order_relaxed);
    }
  }
  TransferStats load() const noexcept {
    return {h2d_count_.load(std::memory_order_relaxed), h2d_bytes_.load(std::memory_order_relaxed),
            d2h_count_.load(std::memory_order_relaxed), d2h_bytes_.load(std::memory_order_relaxed)};
  }
  void reset() noexcept {
    h2d_count_ = 0;
    h2d_bytes_ = 0;
    d2h_count_ = 0;
    d2h_bytes_ = 0;
  }

 private:
  std::atomic<std::uint64_t> h2d_count_{0}, h2d_bytes_{0}, d2h_count_{0}, d2h_bytes_{0};
};

// The process's one counter, in lapis's runtime library: copies made by any module add to it.
LAPIS_RUNTIME_API TransferCounter& process_transfer_counter() noexcept;

}  // namespace detail

// Every copy made by lapis in this process so far (since the last reset).
inline TransferStats process_transfer_stats() noexcept { return detail::process_transfer_counter().load(); }
inline void reset_process_transfer_stats() noexcept { detail::process_transfer_counter().reset(); }

}  // namespace lapis
