#include "lapis/runtime/graph.hpp"

#include <optional>
#include <string>
#include <utility>

#include "device_graph.hpp"
#include "lapis/runtime/execution_lock.hpp"
#include "lapis/runtime/runtime.hpp"
#include "lapis/runtime/trace.hpp"

namespace lapis {
namespace {
thread_local Graph* recording = nullptr;
thread_local bool suppressed = false;

// The calls' host work alone (syncs, marks) for the scope: their launches are a device graph's.
class LaunchesSuppressed {
 public:
  LaunchesSuppressed() noexcept { suppressed = true; }
  ~LaunchesSuppressed() { suppressed = false; }
  LaunchesSuppressed(const LaunchesSuppressed&) = delete;
  LaunchesSuppressed& operator=(const LaunchesSuppressed&) = delete;
};
}  // namespace

Graph* recording_graph() noexcept { return recording; }
bool detail::launches_suppressed() noexcept { return suppressed; }

GraphRecording::GraphRecording(Graph& graph) : graph_(&graph) {
  if (recording != nullptr) throw GraphCaptureError("lapis.graph: this thread records a graph already");
  recording = graph_;
}

GraphRecording::~GraphRecording() {
  if (recording == graph_) recording = nullptr;  // (a scope ended on another thread ends nothing there)
}

void Graph::add(std::string name, Call call) {
  names_.push_back(std::move(name));
  calls_.push_back(std::move(call));
  device_graph_.reset();
  replay_mode_.clear();
}

void Graph::replay() const {
  if (recording != nullptr) throw GraphCaptureError("lapis.graph: a graph replayed while this thread records one");
  const RuntimeUse use;
  const std::lock_guard<std::mutex> one_at_a_time(replaying_);
  std::optional<trace::Span> span;
  if (trace::spans_wanted()) span.emplace(trace::Kind::replay, "replay", std::to_string(calls_.size()) + " calls");
  if (replay_mode_.empty()) return capture_device_graph();
  if (!device_graph_) return run_calls();
  {
    const LaunchesSuppressed host_work_only;
    run_calls();
  }
  const ExecutionGuard guard;
  device_graph_->launch();
}

void Graph::run_calls() const {
  for (const Call& call : calls_) call();
}

// The first replay: where the device records launches, the calls' host work first (so that nothing
// is left to copy), then the calls run with the stream captured, and the graph launched; else the
// calls run.
void Graph::capture_device_graph() const {
  std::string why;
  if constexpr (detail::device_records_launches) {
    {
      const LaunchesSuppressed host_work_only;
      run_calls();
    }
    device_graph_ = detail::DeviceGraph::capture([this] { run_calls(); }, why);
  } else {
    why = "this device records no launches";
  }
  replay_mode_ = device_graph_ ? "device graph" : "call by call: " + why;
  if (!device_graph_) return run_calls();
  const ExecutionGuard guard;
  device_graph_->launch();
}

void Graph::clear() noexcept {
  names_.clear();
  calls_.clear();
  device_graph_.reset();
  replay_mode_.clear();
}

}  // namespace lapis
