// The trace's state (runtime/trace.hpp): the events of the recordings open now in one list under a
// mutex (an event costs a lock and a few strings: only while recording), each recording its start
// in that list, each thread's Python caller in a few bytes of static TLS (its file a name interned
// for the process: file names are few, paths may be long).
#include "lapis/runtime/trace.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <utility>

#include "static_tls.hpp"

namespace lapis::trace {

std::atomic<bool> recording{false};

namespace {

using Clock = std::chrono::steady_clock;

struct Open {
  std::uint64_t id;
  std::size_t first;  // its first event's index in State::events
  double started_us;  // since the outermost recording started
};

struct Entry {
  Event event;
  std::uint64_t seen_up_to;  // the recordings numbered up to this one see it (a free: those open at its allocation)
};

struct State {
  std::mutex mutex;
  std::vector<Entry> events;  // since the outermost open recording started
  std::vector<Open> open;
  Clock::time_point started;  // the outermost open recording's start
  std::uint64_t threads = 0;  // numbered in order of their first event
};

State& state() noexcept {
  static State* const s = new State;  // never destroyed: threads may record during exit
  return *s;
}

struct Caller {
  const char* file;  // interned(), or null
  int line;
  std::uint64_t thread;       // 0: not numbered yet
  std::uint64_t numbered_in;  // the recording that numbered it
};
thread_local LAPIS_STATIC_TLS Caller caller{};
std::atomic<std::uint64_t> recordings{0};
std::atomic<std::uint64_t> latest{0};

// The file's name, kept for the rest of the process (a set's nodes do not move); null without memory.
const char* interned(const char* file) noexcept {
  static std::mutex mutex;
  static auto* const names = new std::unordered_set<std::string>;  // never destroyed: threads may record during exit
  try {
    std::lock_guard<std::mutex> lock(mutex);
    return names->insert(file).first->c_str();
  } catch (...) {
    return nullptr;
  }
}

void add(Event event, std::uint64_t seen_up_to) noexcept {
  if (!on()) return;
  try {
    if (caller.file != nullptr) event.file = caller.file;
    event.line = caller.line;
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (!recording.load()) return;
    if (caller.numbered_in != recordings.load()) {  // first event of this thread in this recording
      caller.numbered_in = recordings.load();
      caller.thread = s.threads++;
    }
    event.thread = caller.thread;
    s.events.push_back({std::move(event), seen_up_to});
  } catch (...) {  // no memory for the event: the trace loses it, the program goes on
  }
}

}  // namespace

const char* kind_name(Kind kind) noexcept {
#define LAPIS_TRACE_KIND_NAME(enumerator, name, instant) \
  case Kind::enumerator: return name;
  switch (kind) { LAPIS_TRACE_KINDS(LAPIS_TRACE_KIND_NAME) }
#undef LAPIS_TRACE_KIND_NAME
  return "?";
}

bool is_instant(Kind kind) noexcept {
#define LAPIS_TRACE_KIND_INSTANT(enumerator, name, instant) \
  case Kind::enumerator: return instant;
  switch (kind) { LAPIS_TRACE_KINDS(LAPIS_TRACE_KIND_INSTANT) }
#undef LAPIS_TRACE_KIND_INSTANT
  return false;
}

std::uint64_t start() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.open.empty()) {
    s.events.clear();
    s.threads = 0;
    s.started = Clock::now();
    recordings.fetch_add(1);
  }
  s.open.push_back({latest.load() + 1, s.events.size(), now_us()});
  latest.store(s.open.back().id);
  recording.store(true);
  return s.open.back().id;
}

std::uint64_t latest_started() noexcept { return latest.load(); }

std::vector<Event> stop(std::uint64_t id) {
  State& s = state();
  std::vector<Event> events;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    const auto open = std::find_if(s.open.begin(), s.open.end(), [&](const Open& o) { return o.id == id; });
    if (open == s.open.end()) throw std::logic_error("lapis: no trace recording " + std::to_string(id) + " is open");
    const Open mine = *open;
    s.open.erase(open);
    for (auto entry = s.events.begin() + static_cast<std::ptrdiff_t>(mine.first); entry != s.events.end(); ++entry) {
      if (entry->seen_up_to < mine.id) continue;
      events.push_back(entry->event);
      events.back().start_us -= mine.started_us;
    }
    if (s.open.empty()) {
      recording.store(false);
      s.events.clear();
    }
  }
  std::stable_sort(events.begin(), events.end(),
                   [](const Event& a, const Event& b) { return a.start_us < b.start_us; });
  return events;
}

double now_us() noexcept { return std::chrono::duration<double, std::micro>(Clock::now() - state().started).count(); }

void record(Event event) noexcept { add(std::move(event), std::numeric_limits<std::uint64_t>::max()); }

void record_free(Event event, std::uint64_t allocated_in) noexcept { add(std::move(event), allocated_in); }

void set_location(const char* file, int line) noexcept {
  // a thread's caller is mostly in the file it was in last: no lock then
  if (caller.file == nullptr || std::strcmp(caller.file, file) != 0) caller.file = interned(file);
  caller.line = line;
}

bool spans_wanted() noexcept { return on() || Kokkos::Tools::profileLibraryLoaded(); }

// A span is also a Kokkos profiling region ("lapis <operation> <name>") while a Kokkos tool is loaded.
Span::Span(Kind kind, const char* operation, std::string name) : timed_(on()) {
  event.kind = kind;
  event.name = std::move(name);
  if (Kokkos::Tools::profileLibraryLoaded()) {
    Kokkos::Profiling::pushRegion(std::string("lapis ") + operation + " " + event.name);
    region_ = true;
  }
  if (timed_) event.start_us = now_us();
}

Span::~Span() {
  if (region_) Kokkos::Profiling::popRegion();
  if (timed_) {
    event.duration_us = now_us() - event.start_us;
    record(std::move(event));
  }
}

}  // namespace lapis::trace
