// Record once, replay many: a Graph is a sequence of calls on DualViews, recorded once and replayed
// in order, each call's C++ part alone (no Python, no argument parsing). Python's
// `with lapis.graph() as g:` records the lapis.kernels calls its thread makes (the generated entry
// points record instead of running: nothing runs while recording); C++ adds calls with add(). A
// replay does what the calls would do, each in turn: the same checks, the same accesses (syncs, if
// something left a side stale since, and modified marks), the same launches on lapis's instance.
//
// While a thread records, lapis refuses, with GraphCaptureError, what a graph could not replay
// faithfully: a copy between the sides, an access to a host side, a fill, and a kernel call that
// bypasses the recording points (a C++ kernel called directly, a LAPIS module's function). The
// refusal leaves the recording open; the binding that opened it abandons it.
//
// Where the device records launches (CUDA), the first replay also runs the calls once with lapis's
// stream captured into one device graph; every replay then does each call's syncs and marks on the
// host (its launches suppressed) and launches that graph whole, with no launch cost per kernel.
// Memory a captured kernel takes from lapis's pool (a convolution's scratch) stays the graph's for
// its life. A capture that fails (a kernel that synchronizes or copies on the host's behalf, a
// kernel that runs on the host) leaves the graph replaying call by call, as on the CPU;
// replay_mode() says which. Kokkos-free.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "lapis/core/errors.hpp"
#include "lapis/core/export.hpp"

namespace lapis {
namespace detail {
class DeviceGraph;

// True while this thread replays a device graph's bookkeeping: KernelCall::launch then queues nothing.
LAPIS_RUNTIME_API bool launches_suppressed() noexcept;
// True while this thread captures a device graph: launches on the device are recorded, not run; a
// kernel on the host cannot join the graph (KernelCall refuses it), and memory given back goes to
// the graph, whose kernels use it at every replay (block_pool.hpp).
LAPIS_RUNTIME_API bool capturing_device_graph() noexcept;
// False during a first replay's capture and the host work before it: the trace shows each replay's
// kernel calls once, from the pass whose launches the replay runs.
LAPIS_RUNTIME_API bool kernel_spans_traced() noexcept;
}  // namespace detail

class LAPIS_RUNTIME_API Graph {
 public:
  using Call = std::function<void()>;

  // Appends a call, named `name` in the trace and in names(). The call holds what it uses (its
  // buffers) for the graph's life.
  void add(std::string name, Call call);
  // Runs every call in order on this thread, as one "replay" span of the trace around the calls'
  // own events; replays of one graph from several threads take turns. RuntimeFinalizedError after
  // lapis::finalize(); GraphCaptureError on a thread that records (a graph inside a graph is not
  // recorded).
  void replay() const;
  std::size_t size() const noexcept { return calls_.size(); }
  const std::vector<std::string>& names() const noexcept { return names_; }
  // How replays run: "" before the first, "device graph", or "call by call" with the reason.
  const std::string& replay_mode() const noexcept { return replay_mode_; }
  // Forgets every call and what it held.
  void clear() noexcept;

 private:
  void run_calls() const;
  void capture_device_graph() const;

  std::vector<std::string> names_;
  std::vector<Call> calls_;
  mutable std::mutex replaying_;
  mutable std::shared_ptr<detail::DeviceGraph> device_graph_;
  mutable std::string replay_mode_;
};

// This thread records its lapis.kernels calls into `graph` while the scope lives; GraphCaptureError
// if it records already (one recording per thread).
class LAPIS_RUNTIME_API GraphRecording {
 public:
  explicit GraphRecording(Graph& graph);
  ~GraphRecording();
  GraphRecording(const GraphRecording&) = delete;
  GraphRecording& operator=(const GraphRecording&) = delete;

 private:
  Graph* graph_;
};

// The graph this thread records into, or null.
LAPIS_RUNTIME_API Graph* recording_graph() noexcept;

// GraphCaptureError ("<who>: <what>; ...") if this thread records a graph: for the operations a
// graph cannot take (see above).
inline void refuse_while_recording(const char* who, const char* what) {
  if (recording_graph() != nullptr)
    throw GraphCaptureError(std::string(who) + ": " + what +
                            ", which a graph cannot record (inside lapis.graph(): do it before or after the capture)");
}

}  // namespace lapis
