// The process's figures: copies made (core/transfer_stats.hpp), memory held (runtime/block_pool.hpp)
// and device-contents versions given out (runtime/runtime.hpp).
#include <atomic>
#include <cstdint>

#include "lapis/core/transfer_stats.hpp"
#include "lapis/runtime/block_pool.hpp"
#include "lapis/runtime/runtime.hpp"

namespace lapis::detail {

TransferCounter& process_transfer_counter() noexcept {
  static TransferCounter counter;
  return counter;
}

LiveCounter& live_counter() noexcept {
  static LiveCounter counter;
  return counter;
}

std::uint64_t new_device_version() noexcept {
  static std::atomic<std::uint64_t> last{0};  // 0 is never a version
  return last.fetch_add(1, std::memory_order_relaxed) + 1;
}

}  // namespace lapis::detail
