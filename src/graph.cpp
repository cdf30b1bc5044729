#include "lapis/runtime/graph.hpp"

#include <optional>
#include <string>
#include <utility>

#include "device_graph.hpp"
#include "lapis/runtime/execution_lock.hpp"
#include "lapis/runtime/runtime.hpp"
#include "lapis/runtime/spaces.hpp"
#include "lapis/runtime/trace.hpp"

namespace lapis {
namespace {
thread_local Graph* recording = nullptr;

// What a pass over a graph's calls does besides their host work (syncs, marks).
enum class Pass {
  launch,             // queues their kernels: a replay call by call, or any call outside a replay
  bookkeeping,        // nothing more: a device graph's replay, which launches the graph after it
  first_bookkeeping,  // the same before a capture, untraced
  capture,            // records their launches into a device graph, untraced
};
thread_local Pass pass = Pass::launch;

class InPass {
 public:
  explicit InPass(Pass p) noexcept : previous_(pass) { pass = p; }
  ~InPass() { pass = previous_; }
  InPass(const InPass&) = delete;
  InPass& operator=(const InPass&) = delete;

 private:
  Pass previous_;
};
}  // namespace

Graph* recording_graph() noexcept { return recording; }
bool detail::launches_suppressed() noexcept { return pass == Pass::bookkeeping || pass == Pass::first_bookkeeping; }
bool detail::capturing_device_graph() noexcept { return pass == Pass::capture; }
bool detail::kernel_spans_traced() noexcept { return pass == Pass::launch || pass == Pass::bookkeeping; }

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
  if (replay_mode_.empty()) capture_device_graph();
  if (!device_graph_) return run_calls();
  {
    const InPass bookkeeping(Pass::bookkeeping);
    run_calls();
  }
  const ExecutionGuard guard;
  device_graph_->launch();
}

void Graph::run_calls() const {
  for (const Call& call : calls_) call();
}

// Before the first replay: where the device records launches, the calls' host work (so that nothing
// is left to copy), then the calls with the stream captured. The replay itself then runs as every
// later one does.
void Graph::capture_device_graph() const {
  std::string why;
  if constexpr (device_records_launches) {
    {
      const InPass bookkeeping(Pass::first_bookkeeping);
      run_calls();
    }
    const InPass capture(Pass::capture);
    device_graph_ = detail::DeviceGraph::capture([this] { run_calls(); }, why);
  } else {
    why = "this device records no launches";
  }
  replay_mode_ = device_graph_ ? "device graph" : "call by call: " + why;
}

void Graph::clear() noexcept {
  names_.clear();
  calls_.clear();
  device_graph_.reset();
  replay_mode_.clear();
}

}  // namespace lapis
