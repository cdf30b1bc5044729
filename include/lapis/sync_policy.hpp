// When copies between the two sides happen, beyond the syncs a caller asks for. A sync policy is a
// type derived from sync::Policy with two hooks that lapis::DualView calls on its buffer:
//   before_read(buffer, side)    before lapis itself reads `side` (a kernel's input);
//   after_modify(buffer, side)   after `side` was marked modified.
// view_host() / view_device() are plain accessors, as in Kokkos::DualView: no policy copies there.
#pragma once

#include <string>

#include "lapis/core/any_dual_buffer.hpp"
#include "lapis/core/errors.hpp"

namespace lapis::sync {

// Marks a type as a sync policy among DualView's properties.
struct Policy {};

// A side is brought up to date when lapis reads it or a caller syncs it: no copy is made that no
// reader asked for.
struct Lazy : Policy {
  static void before_read(AnyDualBuffer& buffer, Side side) { buffer.sync(side); }
  static void after_modify(AnyDualBuffer&, Side) {}
};

// Marking one side modified brings the other up to date at once (call modify_* after writing).
// Both sides are then always current, at the price of copies nobody may read.
struct Eager : Policy {
  static void before_read(AnyDualBuffer& buffer, Side side) { buffer.sync(side); }
  static void after_modify(AnyDualBuffer& buffer, Side side) { buffer.sync(other(side)); }
};

// Never copies implicitly: a lapis kernel given a stale input throws StaleAccessError, so a missing
// sync_*() surfaces as an error instead of old data.
struct Manual : Policy {
  static void before_read(AnyDualBuffer& buffer, Side side) {
    if (buffer.need_sync(side))
      throw StaleAccessError(std::string("lapis: the ") + (side == Side::host ? "host" : "device") +
                             " side is stale; call sync_" + (side == Side::host ? "host" : "device") +
                             "() before reading it");
  }
  static void after_modify(AnyDualBuffer&, Side) {}
};

}  // namespace lapis::sync
