#include "device_graph.hpp"

#include <Kokkos_Core.hpp>

#include <exception>
#include <stdexcept>
#include <utility>
#include <vector>

#include "lapis/runtime/runtime.hpp"
#include "lapis/runtime/spaces.hpp"

namespace lapis::detail {

namespace {

// A block the pool lent to a captured call, kept for the graph.
struct KeptBlock {
  std::string space;
  std::size_t capacity;
  std::unique_ptr<Block> block;
};

thread_local std::vector<KeptBlock>* kept_by_capture = nullptr;

}  // namespace

bool keep_for_device_graph(const std::string& space, std::size_t capacity, std::unique_ptr<Block>& block) noexcept {
  if (kept_by_capture == nullptr) return false;
  try {
    kept_by_capture->push_back(KeptBlock{space, capacity, nullptr});
  } catch (...) {
    return false;
  }
  kept_by_capture->back().block = std::move(block);
  return true;
}

#if defined(KOKKOS_ENABLE_CUDA)

namespace {

// Back to the pool, where the graph's kernels have finished with them (the pool hands blocks out
// again in the order of lapis's instance, the one the graph ran on); after lapis::finalize, when
// Kokkos may be gone, left allocated.
void give_back(std::vector<KeptBlock>& kept) noexcept {
  for (KeptBlock& k : kept) {
    if (is_finalized()) static_cast<void>(k.block.release());
    else block_pool().give(k.space, k.capacity, std::move(k.block), true);
  }
  kept.clear();
}

}  // namespace

struct DeviceGraph::Native {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  std::vector<KeptBlock> kept;
  ~Native() {
    if (exec != nullptr) cudaGraphExecDestroy(exec);
    if (graph != nullptr) cudaGraphDestroy(graph);
    give_back(kept);
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
  kept_by_capture = &native->kept;
  try {
    calls();
  } catch (const std::exception& e) {
    why = e.what();
  }
  kept_by_capture = nullptr;
  status = cudaStreamEndCapture(stream, &native->graph);  // ends the capture whatever happened in it
  if (why.empty() && status != cudaSuccess) why = cudaGetErrorString(status);
  if (why.empty()) {
    status = cudaGraphInstantiate(&native->exec, native->graph, 0);
    if (status != cudaSuccess) why = cudaGetErrorString(status);
  }
  if (!why.empty()) {
    cudaGetLastError();  // a failed capture leaves its error; nothing else may see it
    return nullptr;      // (native's blocks go back to the pool: nothing was launched)
  }
  return std::unique_ptr<DeviceGraph>(new DeviceGraph(std::move(native)));
}

void DeviceGraph::launch() {
  const cudaError_t status = cudaGraphLaunch(native_->exec, default_instance<Kokkos::Cuda>().cuda_stream());
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("lapis.graph: replay: ") + cudaGetErrorString(status));
}

AllocationDuringCapture::AllocationDuringCapture() noexcept {
  if (kept_by_capture == nullptr) return;
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  if (cudaThreadExchangeStreamCaptureMode(&mode) == cudaSuccess) previous_mode_ = int(mode);
}

AllocationDuringCapture::~AllocationDuringCapture() {
  if (previous_mode_ < 0) return;
  auto mode = cudaStreamCaptureMode(previous_mode_);
  cudaThreadExchangeStreamCaptureMode(&mode);
}

#else

struct DeviceGraph::Native {};

std::unique_ptr<DeviceGraph> DeviceGraph::capture(const std::function<void()>&, std::string& why) {
  why = "this device records no launches";
  return nullptr;
}

void DeviceGraph::launch() {}

AllocationDuringCapture::AllocationDuringCapture() noexcept {}
AllocationDuringCapture::~AllocationDuringCapture() = default;

#endif

DeviceGraph::DeviceGraph(std::unique_ptr<Native> native) : native_(std::move(native)) {}
DeviceGraph::~DeviceGraph() = default;

}  // namespace lapis::detail
