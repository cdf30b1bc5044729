// The exceptions lapis throws. Each derives from the standard exception that best names the
// mistake, so that generic handlers (and Cython's default translation) map them sensibly.
#pragma once

#include <new>
#include <stdexcept>
#include <string>

#include "lapis/core/export.hpp"

namespace lapis {

// A distinct exception type deriving from `base`, with its constructors.
#define LAPIS_ERROR_TYPE(name, base) \
  struct name : base {               \
    using Base = base;               \
    using Base::Base;                \
  };

// A side was read while the other side held newer data, under a sync policy that never syncs
// implicitly (sync::Manual).
LAPIS_ERROR_TYPE(StaleAccessError, std::logic_error)

// Both sides were marked modified with no sync in between: one side's changes would be lost.
LAPIS_ERROR_TYPE(ConcurrentModificationError, std::logic_error)

// A buffer's element type is not the one asked for (adopting a float32 buffer as float64, say).
LAPIS_ERROR_TYPE(ElementTypeError, std::invalid_argument)

// Something would write a host side that its owner lent read-only.
LAPIS_ERROR_TYPE(ReadOnlyError, std::invalid_argument)

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
LAPIS_ERROR_TYPE(TransferGuardError, std::runtime_error)

// The runtime was finalized (or Kokkos is not initialized): no device memory can be used.
LAPIS_ERROR_TYPE(RuntimeFinalizedError, std::runtime_error)

// Something a graph's recording (runtime/graph.hpp, lapis.graph()) cannot take: work that reads or
// writes the host, a copy between the sides, a call made outside lapis's recording points. The
// recording is abandoned.
LAPIS_ERROR_TYPE(GraphCaptureError, std::logic_error)
#undef LAPIS_ERROR_TYPE

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

// Each exception a binding tells apart, and its kind, in the order they are caught: a type before
// the standard exception it derives from.
#define LAPIS_CLASSIFIED_EXCEPTIONS(X)                    \
  X(RuntimeFinalizedError, finalized)                     \
  X(TransferGuardError, transfer_guard)                   \
  X(ConcurrentModificationError, concurrent_modification) \
  X(StaleAccessError, stale_access)                       \
  X(ReadOnlyError, read_only)                             \
  X(GraphCaptureError, graph_capture)                     \
  X(ElementTypeError, element_type)                       \
  X(std::out_of_range, index)                             \
  X(std::invalid_argument, value)                         \
  X(std::bad_alloc, memory)                               \
  X(std::exception, runtime)

inline ErrorKind classify_current_exception(std::string& message) noexcept {
  try {
    throw;
  }
#define LAPIS_CATCH_CLASSIFIED(type, kind) \
  catch (const type& e) {                  \
    message = e.what();                    \
    return ErrorKind::kind;                \
  }
  LAPIS_CLASSIFIED_EXCEPTIONS(LAPIS_CATCH_CLASSIFIED)
#undef LAPIS_CATCH_CLASSIFIED
  catch (...) {
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
