// When copies between the two sides happen. A sync policy is a type with two hooks that
// lapis::DualView calls on its buffer:
//   before_read(buffer, side)    before a view of `side` is handed out for reading;
//   after_modify(buffer, side)   after `side` was marked modified.
#pragma once

#include <string>

#include "lapis/any_dual_buffer.hpp"
#include "lapis/errors.hpp"

namespace lapis::sync {

// A side is brought up to date when it is accessed: no copy is made that no reader asked for.
struct Lazy {
  static void before_read(AnyDualBuffer& buffer, Side side) { buffer.sync(side); }
  static void after_modify(AnyDualBuffer&, Side) {}
};

// Marking one side modified brings the other up to date at once (call modify_* after writing).
// Both sides are then always current, at the price of copies nobody may read.
struct Eager {
  static void before_read(AnyDualBuffer& buffer, Side side) { buffer.sync(side); }
  static void after_modify(AnyDualBuffer& buffer, Side side) { buffer.sync(other(side)); }
};

// Never copies implicitly: reading a stale side throws StaleAccessError, so a missing sync_*()
// surfaces as an error instead of old data.
struct Manual {
  static void before_read(AnyDualBuffer& buffer, Side side) {
    if (buffer.need_sync(side))
      throw StaleAccessError(std::string("lapis: the ") + (side == Side::host ? "host" : "device") +
                             " side is stale; call sync_" + (side == Side::host ? "host" : "device") +
                             "() before reading it");
  }
  static void after_modify(AnyDualBuffer&, Side) {}
};

}  // namespace lapis::sync
