// The exceptions lapis throws. Each derives from the standard exception that best names the
// mistake, so that generic handlers (and Cython's default translation) map them sensibly.
#pragma once

#include <new>
#include <stdexcept>
#include <string>

#include "lapis/core/export.hpp"

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

// A buffer's element type is not the one asked for (adopting a float32 buffer as float64, say).
struct ElementTypeError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// Something would write a host side that its owner lent read-only.
struct ReadOnlyError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// Memory could not be allocated (Kokkos reports some allocation failures as std::runtime_error;
// lapis reports them all as this std::bad_alloc, which carries the reason).
class AllocationError : public std::bad_alloc {
 public:
  explicit AllocationError(std::string reason) : reason_(std::move(reason)) {}
  const char* what() const noexcept override { return reason_.c_str(); }

 private:
  std::string reason_;
};

// The transfer guard (transfer_guard.hpp) refused an implicit copy between the sides.
struct TransferGuardError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The runtime was finalized (or Kokkos is not initialized): no device memory can be used.
struct RuntimeFinalizedError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Something a graph's recording (runtime/graph.hpp, lapis.graph()) cannot take: work that reads or
// writes the host, a copy between the sides, a call made outside lapis's recording points. The
// recording is abandoned.
struct GraphCaptureError : std::logic_error {
  using std::logic_error::logic_error;
};

// For bindings that turn C++ exceptions into their language's: names the exception being handled
// (call only inside a catch block) and copies its message.
enum class ErrorKind {
  runtime,
  finalized,
  value,
  index,
  memory,
  concurrent_modification,
  transfer_guard,
  read_only,
  stale_access,
  element_type,
  graph_capture
};

inline ErrorKind classify_current_exception(std::string& message) noexcept {
  try {
    throw;
  } catch (const RuntimeFinalizedError& e) {
    message = e.what();
    return ErrorKind::finalized;
  } catch (const TransferGuardError& e) {
    message = e.what();
    return ErrorKind::transfer_guard;
  } catch (const ConcurrentModificationError& e) {
    message = e.what();
    return ErrorKind::concurrent_modification;
  } catch (const StaleAccessError& e) {
    message = e.what();
    return ErrorKind::stale_access;
  } catch (const ReadOnlyError& e) {
    message = e.what();
    return ErrorKind::read_only;
  } catch (const GraphCaptureError& e) {
    message = e.what();
    return ErrorKind::graph_capture;
  } catch (const ElementTypeError& e) {
    message = e.what();
    return ErrorKind::element_type;
  } catch (const std::out_of_range& e) {
    message = e.what();
    return ErrorKind::index;
  } catch (const std::invalid_argument& e) {
    message = e.what();
    return ErrorKind::value;
  } catch (const std::bad_alloc& e) {
    message = e.what();
    return ErrorKind::memory;
  } catch (const std::exception& e) {
    message = e.what();
    return ErrorKind::runtime;
  } catch (...) {
    message = "unknown C++ exception";
    return ErrorKind::runtime;
  }
}

namespace detail {

// For C interfaces, which cannot carry C++ exceptions (LAPIS modules' resident entry points): the
// exception being handled is kept for this thread (call inside a catch block), and taken back,
// classified, by the caller that turns it into its language's error. take_kept_error returns
// ErrorKind::runtime with an empty message when nothing was kept.
LAPIS_RUNTIME_API void keep_current_error() noexcept;
LAPIS_RUNTIME_API ErrorKind take_kept_error(std::string& message);

}  // namespace detail
}  // namespace lapis
