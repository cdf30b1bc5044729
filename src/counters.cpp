// The process's figures: copies made (core/transfer_stats.hpp) and memory held (detail/allocation.hpp).
#include "lapis/core/transfer_stats.hpp"
#include "lapis/detail/allocation.hpp"

namespace lapis::detail {

TransferCounter& process_transfer_counter() noexcept {
  static TransferCounter counter;
  return counter;
}

LiveCounter& live_counter() noexcept {
  static LiveCounter counter;
  return counter;
}

}  // namespace lapis::detail
