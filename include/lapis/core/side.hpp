// The two sides of a DualView. Kokkos-free.
#pragma once

namespace lapis {

enum class Side { host, device };

// "host" or "device", as messages, the trace and Python name a side.
constexpr const char* side_name(Side side) noexcept { return side == Side::host ? "host" : "device"; }

constexpr Side other(Side side) noexcept { return side == Side::host ? Side::device : Side::host; }

// Per-side arrays (strides, offsets, flags) are indexed by this.
constexpr int index(Side side) noexcept { return side == Side::host ? 0 : 1; }

inline constexpr Side both_sides[] = {Side::host, Side::device};

}  // namespace lapis
