// The transfer guard: what lapis does about a copy between the sides that nobody asked for by name.
//
// A copy is explicit when a sync call makes it (an access with Intent::named: lapis::DualView's
// sync_host/sync_device/sync, Python's DualView.sync_host/sync_device) or when it is made inside an
// ExplicitTransfers scope; every other copy is implicit: one made because a side was read (a kernel
// argument, an access for reading such as view_host(lapis::Access::read), Python's asnumpy(), a
// buffer or DLPack export, a kernel's write-back into a numpy `out`, a module's implicit read, a
// LAPIS module's syncDevice()). For each direction the guard allows implicit copies, logs each one
// to stderr, or refuses it with TransferGuardError before anything moves. Explicit copies are
// always allowed.
//
// The guard in force on a thread is its ScopedTransferGuard, if any, else the process's setting.
// Its state lives in lapis's runtime library, so it covers every module of the process.
// Kokkos-free.
#pragma once

#include <cstdint>
#include <string>

#include "lapis/core/errors.hpp"
#include "lapis/core/export.hpp"
#include "lapis/core/shape.hpp"
#include "lapis/core/transfer_stats.hpp"

namespace lapis {

enum class GuardLevel : std::uint8_t { allow, log, disallow };

struct TransferGuard {
  GuardLevel host_to_device = GuardLevel::allow;
  GuardLevel device_to_host = GuardLevel::allow;

  GuardLevel level(Direction direction) const noexcept {
    return direction == Direction::host_to_device ? host_to_device : device_to_host;
  }
};

namespace detail {

// A thread's own guard, when `set`.
struct ThreadTransferGuard {
  bool set = false;
  TransferGuard guard;
};
// Installs `guard` as this thread's and returns the one it replaces.
LAPIS_RUNTIME_API ThreadTransferGuard exchange_thread_transfer_guard(ThreadTransferGuard guard) noexcept;
// Counts this thread's open ExplicitTransfers scopes: +1 or -1.
LAPIS_RUNTIME_API void count_explicit_scope(int change) noexcept;

// Called by a buffer before it copies its whole array (`label`, `shape`) in `direction`: nothing if
// the copy is `named`, made in an ExplicitTransfers scope or allowed, a line on stderr if logged;
// TransferGuardError if disallowed. Returns whether the copy is explicit (named or in such a scope).
LAPIS_RUNTIME_API bool guard_transfer(Direction direction, bool named, const std::string& label, const Shape& shape);
// TransferGuardError now if an implicit copy of `label` in `direction` would be refused: for a caller
// that must refuse before it does anything else (a kernel whose numpy `out` it would write back).
LAPIS_RUNTIME_API void refuse_if_disallowed(Direction direction, const std::string& label, const Shape& shape);

}  // namespace detail

// The process's setting (for threads without a ScopedTransferGuard); allow both ways at start.
LAPIS_RUNTIME_API TransferGuard process_transfer_guard() noexcept;
LAPIS_RUNTIME_API void set_process_transfer_guard(TransferGuard guard) noexcept;
// The guard in force on this thread.
LAPIS_RUNTIME_API TransferGuard current_transfer_guard() noexcept;

// `guard` is in force on this thread until the scope ends.
class ScopedTransferGuard {
 public:
  explicit ScopedTransferGuard(TransferGuard guard)
      : previous_(detail::exchange_thread_transfer_guard({true, guard})) {}
  ~ScopedTransferGuard() { detail::exchange_thread_transfer_guard(previous_); }
  ScopedTransferGuard(const ScopedTransferGuard&) = delete;
  ScopedTransferGuard& operator=(const ScopedTransferGuard&) = delete;

 private:
  detail::ThreadTransferGuard previous_;
};

// Copies made on this thread while the scope lives are explicit.
class ExplicitTransfers {
 public:
  ExplicitTransfers() noexcept { detail::count_explicit_scope(+1); }
  ~ExplicitTransfers() { detail::count_explicit_scope(-1); }
  ExplicitTransfers(const ExplicitTransfers&) = delete;
  ExplicitTransfers& operator=(const ExplicitTransfers&) = delete;
};

}  // namespace lapis
