#include "device_graph.hpp"

#include <Kokkos_Core.hpp>

#include <exception>
#include <stdexcept>
#include <utility>

#include "lapis/runtime/spaces.hpp"

namespace lapis::detail {

#if defined(KOKKOS_ENABLE_CUDA)

struct DeviceGraph::Native {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ~Native() {
    if (exec != nullptr) cudaGraphExecDestroy(exec);
    if (graph != nullptr) cudaGraphDestroy(graph);
  }
};

std::unique_ptr<DeviceGraph> DeviceGraph::capture(const std::function<void()>& calls, std::string& why) {
  const cudaStream_t stream = default_instance<Kokkos::Cuda>().cuda_stream();
  cudaError_t status = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
  if (status != cudaSuccess) {
    why = std::string("the stream cannot be captured: ") + cudaGetErrorString(status);
    return nullptr;
  }
  auto native = std::make_unique<Native>();
  try {
    calls();
  } catch (const std::exception& e) {
    why = e.what();
  }
  status = cudaStreamEndCapture(stream, &native->graph);  // ends the capture whatever happened in it
  if (why.empty() && status != cudaSuccess) why = cudaGetErrorString(status);
  if (why.empty()) {
    status = cudaGraphInstantiate(&native->exec, native->graph, 0);
    if (status != cudaSuccess) why = cudaGetErrorString(status);
  }
  if (!why.empty()) {
    cudaGetLastError();  // a failed capture leaves its error; nothing else may see it
    return nullptr;
  }
  return std::unique_ptr<DeviceGraph>(new DeviceGraph(std::move(native)));
}

void DeviceGraph::launch() {
  const cudaError_t status = cudaGraphLaunch(native_->exec, default_instance<Kokkos::Cuda>().cuda_stream());
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("lapis.graph: replay: ") + cudaGetErrorString(status));
}

#else

struct DeviceGraph::Native {};

std::unique_ptr<DeviceGraph> DeviceGraph::capture(const std::function<void()>&, std::string& why) {
  why = "this device records no launches";
  return nullptr;
}

void DeviceGraph::launch() {}

#endif

DeviceGraph::DeviceGraph(std::unique_ptr<Native> native) : native_(std::move(native)) {}
DeviceGraph::~DeviceGraph() = default;

}  // namespace lapis::detail
