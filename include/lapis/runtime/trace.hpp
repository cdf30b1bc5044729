// The trace: a record of what lapis did, when and for whom (copies between the sides, allocations
// and frees of a side, kernel and module calls, transfer-guard decisions, MPI messages), kept by
// lapis's runtime library so that every module of the process is seen, whatever its binding.
// lapis.trace() (Python) and lapis::trace::Recording (C++) start and stop a recording of it.
//
// Each event carries the thread that caused it and the place in the program it was caused from:
// the Python caller (file and line, set by lapis's Python layer on the calling thread: the first
// frame outside lapis) where there is one. Off (the default), an operation pays one relaxed load.
//
// Whatever the trace's state, lapis's own operations also appear as named Kokkos profiling regions
// ("lapis sync_device <label>", "lapis kernel <name>") while a Kokkos tool is loaded, so Nsight or a
// Kokkos Tools connector shows them on its timeline.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "lapis/core/export.hpp"

namespace lapis::trace {

// Every kind of event, stated once: X(enumerator, its name in Python and in the trace's files,
// whether it is an instant (no duration)). The enum, kind_name(), is_instant() and Python's list
// of kinds (lapis._core._trace_kinds()) all come from this list.
//   copy:         between the sides of a DualView: name = its label, detail = "host->device" or
//                 "device->host"
//   allocate/free: of a side: name = its label, detail = the memory space
//   kernel:       a lapis kernel call: name = the kernel
//   call:         a LAPIS module's function called through lapis: name = the function
//   guard:        a transfer-guard decision on an implicit copy: name = the label, detail = "logged"
//                 or "refused"
//   mpi:          a message sent or received through lapis.mpi: name = the operation, detail = the peer
//   registration: of host memory with the driver (host_registration.hpp): name = the label, detail =
//                 "registered", "released" or "refused: <why>"
#define LAPIS_TRACE_KINDS(X)        \
  X(copy, "copy", false)            \
  X(allocate, "allocate", true)     \
  X(free, "free", true)             \
  X(kernel, "kernel", false)        \
  X(call, "call", false)            \
  X(guard, "guard", true)           \
  X(mpi, "mpi", false)              \
  X(registration, "register", false)

#define LAPIS_TRACE_KIND_ENUMERATOR(enumerator, name, instant) enumerator,
enum class Kind : std::uint8_t { LAPIS_TRACE_KINDS(LAPIS_TRACE_KIND_ENUMERATOR) };
#undef LAPIS_TRACE_KIND_ENUMERATOR

#define LAPIS_TRACE_KIND_ONE(enumerator, name, instant) +1
inline constexpr unsigned kind_count = 0 LAPIS_TRACE_KINDS(LAPIS_TRACE_KIND_ONE);
#undef LAPIS_TRACE_KIND_ONE

LAPIS_RUNTIME_API const char* kind_name(Kind kind) noexcept;
LAPIS_RUNTIME_API bool is_instant(Kind kind) noexcept;

struct Event {
  Kind kind{};
  std::string name;
  std::string detail;
  std::string dtype;   // of the DualView, where one is concerned
  std::string shape;   // "(3, 4)"
  std::uint64_t bytes = 0;
  bool staged = false;     // copy: through pinned staging buffers
  bool explicit_ = false;  // copy: asked for by name (a sync call, an explicit scope), not implied by a read
  bool pool_hit = false;   // allocate: served from lapis's caching allocator
  double start_us = 0;     // since the recording started
  double duration_us = 0;  // 0 for instants (allocate, free, guard)
  std::uint64_t thread = 0;  // a small number per thread, in order of first event
  std::string file;        // the Python caller, where known
  int line = 0;
};

// True while a recording is on; read on every operation (relaxed).
LAPIS_RUNTIME_API extern std::atomic<bool> recording;
inline bool on() noexcept { return recording.load(std::memory_order_relaxed); }

// Starts a recording and returns its number (numbers rise: 1, 2, ...); stop() ends it and returns
// the events recorded while it was open, in the order they started, their times from its start.
// Recordings nest and overlap (a traced script that traces a part of itself, two threads' own):
// each sees what every thread did while it was open, and the frees of only the memory allocated
// while it was open, so that its allocations and frees balance.
LAPIS_RUNTIME_API std::uint64_t start();
LAPIS_RUNTIME_API std::vector<Event> stop(std::uint64_t recording);
// The number of the latest recording started (0: none yet). Memory allocated now is freed in the
// recordings numbered up to it that are still open then: record_free() takes it.
LAPIS_RUNTIME_API std::uint64_t latest_started() noexcept;
// Microseconds since the outermost open recording started.
LAPIS_RUNTIME_API double now_us() noexcept;
// Adds an event (thread, file and line filled in here); dropped if the recording stopped meanwhile.
LAPIS_RUNTIME_API void record(Event event) noexcept;
// Adds the free of memory allocated when latest_started() was `allocated_in`: only the recordings
// open since then see it.
LAPIS_RUNTIME_API void record_free(Event event, std::uint64_t allocated_in) noexcept;
// The Python caller of the calling thread's next operations (lapis's Python layer sets it; kept
// whole, whatever its length).
LAPIS_RUNTIME_API void set_location(const char* file, int line) noexcept;

// Whether a Span would do anything: a recording is on, or a Kokkos tool is loaded (for callers that
// make one only then, off the hot path).
LAPIS_RUNTIME_API bool spans_wanted() noexcept;
// Kokkos profiling regions for lapis's operations, while a Kokkos tool is loaded.
LAPIS_RUNTIME_API void push_region(const char* operation, const std::string& name);
LAPIS_RUNTIME_API void pop_region();

// A timed operation: its Kokkos region open for its scope, and, when a recording was on as it
// began, an event of `kind` with its duration recorded when it ends (the caller fills in `event`
// meanwhile, where recorded() says it is).
class LAPIS_RUNTIME_API Span {
 public:
  Span(Kind kind, const char* operation, std::string name);
  ~Span();
  Span(const Span&) = delete;
  Span& operator=(const Span&) = delete;
  bool recorded() const noexcept { return timed_; }
  Event event;

 private:
  bool timed_;
  bool region_ = false;
};

// A C++ program's recording, for its scope: events() stops it and returns them (as Python's
// lapis.trace() does).
class Recording {
 public:
  Recording() : id_(start()) {}
  ~Recording() {
    if (!stopped_) stop(id_);
  }
  Recording(const Recording&) = delete;
  Recording& operator=(const Recording&) = delete;
  std::vector<Event> events() {
    stopped_ = true;
    return stop(id_);
  }

 private:
  std::uint64_t id_;
  bool stopped_ = false;
};

}  // namespace lapis::trace
