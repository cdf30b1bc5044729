// A graph's replay on a device that records launches (CUDA): the recorded calls run once with lapis's
// stream captured, and their launches become one CUDA graph, instantiated once and launched whole at
// each replay. The capture is the thread's own (cudaStreamCaptureModeThreadLocal), so that anything a
// graph could not repeat (a synchronization, a blocking copy) fails it instead of being captured:
// the graph then replays call by call (runtime/graph.hpp). Memory the captured calls take from
// lapis's pool and give back is kept by the device graph, to go back to the pool when it dies, so
// that no other work reuses what its kernels read and write at every replay. Elsewhere nothing is
// captured.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "lapis/runtime/block_pool.hpp"

namespace lapis::detail {

// Takes `block`, given back to the pool by this thread while it captures, for the device graph being
// captured; false where it cannot (no capture, or no memory for the list), `block` left as it was.
bool keep_for_device_graph(const std::string& space, std::size_t capacity, std::unique_ptr<Block>& block) noexcept;

class DeviceGraph {
 public:
  // The launches `calls` makes on lapis's stream as one device graph, or null with `why` where the
  // capture failed or the device records nothing.
  static std::unique_ptr<DeviceGraph> capture(const std::function<void()>& calls, std::string& why);
  // Queues the whole graph on lapis's stream.
  void launch();
  ~DeviceGraph();
  DeviceGraph(const DeviceGraph&) = delete;
  DeviceGraph& operator=(const DeviceGraph&) = delete;

 private:
  struct Native;
  explicit DeviceGraph(std::unique_ptr<Native> native);
  std::unique_ptr<Native> native_;
};

}  // namespace lapis::detail
