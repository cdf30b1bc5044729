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
#include <cstddef>
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
//   replay:       a graph replayed (graph.hpp), around its calls' own events: name = how many calls
#define LAPIS_TRACE_KINDS(X)         \
  X(copy, "copy", false)             \
  X(allocate, "allocate", true)      \
  X(free, "free", true)              \
  X(kernel, "kernel", false)         \
  X(call, "call", false)             \
  X(guard, "guard", true)            \
  X(mpi, "mpi", false)               \
  X(registration, "register", false) \
  X(replay, "replay", false)

#define LAPIS_TRACE_KIND_ENUMERATOR(enumerator, name, instant) enumerator,
enum class Kind : std::uint8_t { LAPIS_TRACE_KINDS(LAPIS_TRACE_KIND_ENUMERATOR) };
#undef LAPIS_TRACE_KIND_ENUMERATOR

#define LAPIS_TRACE_KIND_ONE(enumerator, name, instant) +1
inline constexpr unsigned kind_count = 0 LAPIS_TRACE_KINDS(LAPIS_TRACE_KIND_ONE);
#undef LAPIS_TRACE_KIND_ONE

LAPIS_RUNTIME_API const char* kind_name(Kind kind) noexcept;
LAPIS_RUNTIME_API bool is_instant(Kind kind) noexcept;

// Every field of an event, stated once: X(C++ type, member, its name in Python (lapis.TraceEvent),
// how Python reads it (FieldForm)). The struct, Python's list of fields (lapis._core._trace_fields())
// and the conversion of each recorded event into Python values all come from this list; a test
// holds lapis.TraceEvent's declared fields to it.
//   name:     the DualView's label (copy, allocate, free, guard, register) or the operation's name
//   detail:   the copy's direction, the memory space, the guard's decision, the MPI peer, the
//             registration's fate
//   dtype, shape: of the DualView, where one is concerned ("float64", "(3, 4)")
//   staged:   copy: through pinned staging buffers
//   explicit: copy: asked for by name (a sync call, an explicit scope), not implied by a read
//   pool_hit: allocate: served from lapis's caching allocator
//   start_us: since the recording started; duration_us: 0 for instants (allocate, free, guard)
//   thread:   a small number per thread, in order of first event
//   file, line: the Python caller, where known (file empty and line 0 where not)
#define LAPIS_TRACE_EVENT_FIELDS(X)                   \
  X(Kind, kind, "kind", kind)                         \
  X(std::string, name, "name", text)                  \
  X(std::string, detail, "detail", text)              \
  X(std::string, dtype, "dtype", text)                \
  X(std::string, shape, "shape", text)                \
  X(std::uint64_t, bytes, "bytes", count)             \
  X(bool, staged, "staged", flag)                     \
  X(bool, explicit_, "explicit", flag)                \
  X(bool, pool_hit, "pool_hit", flag)                 \
  X(double, start_us, "start_us", microseconds)       \
  X(double, duration_us, "duration_us", microseconds) \
  X(std::uint64_t, thread, "thread", count)           \
  X(std::string, file, "file", path)                  \
  X(int, line, "line", line)

// How Python reads a field: the kind's name, text (UTF-8, undecodable bytes replaced), an unsigned
// count, a flag, microseconds, a path (None where empty) or a line (None where 0).
enum class FieldForm : std::uint8_t { kind, text, count, flag, microseconds, path, line };

#define LAPIS_TRACE_EVENT_MEMBER(type, member, python_name, form) type member{};
struct Event {
  LAPIS_TRACE_EVENT_FIELDS(LAPIS_TRACE_EVENT_MEMBER)
};
#undef LAPIS_TRACE_EVENT_MEMBER

struct EventField {
  const char* name;  // in Python
  FieldForm form;
};

#define LAPIS_TRACE_EVENT_FIELD(type, member, python_name, form) EventField{python_name, FieldForm::form},
inline constexpr EventField event_fields[] = {LAPIS_TRACE_EVENT_FIELDS(LAPIS_TRACE_EVENT_FIELD)};
#undef LAPIS_TRACE_EVENT_FIELD
inline constexpr unsigned event_field_count = sizeof(event_fields) / sizeof(event_fields[0]);

// One field of an event as Python reads it: `text` (with `size`) for the kind, text and path
// forms, `count` for counts and lines, `flag`, `number` for microseconds.
struct FieldValue {
  const char* text = nullptr;
  std::size_t size = 0;
  std::uint64_t count = 0;
  bool flag = false;
  double number = 0;
};

namespace detail {
inline void read_field(FieldValue& value, Kind kind) noexcept {
  value.text = kind_name(kind);
  value.size = std::char_traits<char>::length(value.text);
}
inline void read_field(FieldValue& value, const std::string& text) noexcept {
  value.text = text.data();
  value.size = text.size();
}
inline void read_field(FieldValue& value, std::uint64_t count) noexcept { value.count = count; }
inline void read_field(FieldValue& value, int line) noexcept { value.count = line < 0 ? 0 : std::uint64_t(line); }
inline void read_field(FieldValue& value, bool flag) noexcept { value.flag = flag; }
inline void read_field(FieldValue& value, double number) noexcept { value.number = number; }
}  // namespace detail

// Field number `field` (event_fields' order) of `event`.
inline FieldValue field_value(const Event& event, unsigned field) noexcept {
  FieldValue value;
  unsigned number = 0;
#define LAPIS_TRACE_EVENT_READ(type, member, python_name, form) \
  if (number++ == field) detail::read_field(value, event.member);
  LAPIS_TRACE_EVENT_FIELDS(LAPIS_TRACE_EVENT_READ)
#undef LAPIS_TRACE_EVENT_READ
  return value;
}

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
