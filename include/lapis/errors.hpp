// The exceptions lapis throws. Each derives from the standard exception that best names the
// mistake, so that generic handlers (and Cython's default translation) map them sensibly.
#pragma once

#include <stdexcept>

namespace lapis {

// A side was read while the other side held newer data, under a sync policy that never syncs
// implicitly (sync::Manual).
struct StaleAccessError : std::logic_error {
  using std::logic_error::logic_error;
};

// Both sides were marked modified with no sync in between: one side's changes would be lost.
struct ConcurrentModificationError : std::logic_error {
  using std::logic_error::logic_error;
};

// Something would write a host side that its owner lent read-only.
struct ReadOnlyError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// The runtime was finalized (or Kokkos is not initialized): no device memory can be used.
struct RuntimeFinalizedError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace lapis
