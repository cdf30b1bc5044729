// When copies between the two sides happen, beyond the syncs a caller asks for. A sync policy is a
// type derived from sync::Policy with:
//   read_intent                  who asks for the copy that lapis's own read of a stale side needs
//                                (a kernel's input): an implicit copy, or none (StaleAccessError);
//   after_modify(buffer, side)   called after `side` was marked modified (modify_host/device).
// view_host() / view_device() are plain accessors, as in Kokkos::DualView: no policy copies there.
#pragma once

#include "lapis/core/any_dual_buffer.hpp"

namespace lapis::sync {

// Marks a type as a sync policy among DualView's properties.
struct Policy {};

// A side is brought up to date when lapis reads it or a caller syncs it: no copy is made that no
// reader asked for.
struct Lazy : Policy {
  static constexpr Intent read_intent = Intent::implicit;
  static void after_modify(AnyDualBuffer&, Side) {}
};

// Marking one side modified brings the other up to date at once (call modify_* after writing).
// Both sides are then always current, at the price of copies nobody may read.
struct Eager : Policy {
  static constexpr Intent read_intent = Intent::implicit;
  static void after_modify(AnyDualBuffer& buffer, Side side) { buffer.sync(other(side)); }
};

// Never copies implicitly: a lapis kernel given a stale input throws StaleAccessError, so a missing
// sync_*() surfaces as an error instead of old data.
struct Manual : Policy {
  static constexpr Intent read_intent = Intent::refused;
  static void after_modify(AnyDualBuffer&, Side) {}
};

}  // namespace lapis::sync
