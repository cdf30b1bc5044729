// Which sides a new buffer of lapis-owned memory allocates at construction: a set of sides. The
// sides left out are allocated, zero-filled, when first used.
#pragma once

#include "lapis/core/any_dual_buffer.hpp"

namespace lapis {

enum class AllocateNow : unsigned { nothing = 0, host = 1, device = 2, both = 3 };

constexpr AllocateNow operator|(AllocateNow a, AllocateNow b) noexcept {
  return static_cast<AllocateNow>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}
constexpr AllocateNow operator&(AllocateNow a, AllocateNow b) noexcept {
  return static_cast<AllocateNow>(static_cast<unsigned>(a) & static_cast<unsigned>(b));
}
constexpr bool allocates(AllocateNow now, Side side) noexcept {
  return (now & (side == Side::host ? AllocateNow::host : AllocateNow::device)) != AllocateNow::nothing;
}

}  // namespace lapis
