#include "bridge.hpp"

#include <Kokkos_Core.hpp>

#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "lapis/runtime/build_info.hpp"
#include "lapis/detail/convert.hpp"
#include "lapis/detail/dual_buffer.hpp"
#include "lapis/detail/fill.hpp"
#include "lapis/interop/lend.hpp"
#include "lapis/interop/memref.hpp"
#include "lapis/runtime/graph.hpp"
#include "lapis/runtime/runtime.hpp"
#include "lapis/runtime/spaces.hpp"
#include "lapis/runtime/staging.hpp"
#include "lapis/detail/strided_copy.hpp"
#include "lapis/core/transfer_guard.hpp"

namespace lapis::python {
namespace {

using DefaultDualBuffer = DualBuffer<DefaultDevice::memory_space>;  // what Python DualViews hold

constexpr const char* label = "lapis.DualView";

// Kokkos picks each rank's GPU (Kokkos 4: by the launcher's local rank, or KOKKOS_DEVICE_ID).
int device_id() {
#if defined(KOKKOS_ENABLE_CUDA)
  return Kokkos::Cuda().cuda_device();
#else
  return 0;
#endif
}

#if defined(KOKKOS_ENABLE_CUDA)
// Read once Kokkos is up: asking Kokkos after finalize aborts, and __dlpack_device__ still answers then.
int cuda_device = -1;
#endif

}  // namespace

void initialize() {
  lapis::initialize();
#if defined(KOKKOS_ENABLE_CUDA)
  cuda_device = Kokkos::Cuda().cuda_device();
#endif
}

void finalize() { lapis::finalize(); }

std::vector<RuntimeFact> runtime_info() {
  using Kind = RuntimeFact::Kind;
  const auto text = [](const char* key, std::string value) {
    return RuntimeFact{key, Kind::text, std::move(value), 0};
  };
  const auto names = [](const char* key, std::string list) {
    return RuntimeFact{key, Kind::names, std::move(list), 0};
  };
  const auto number = [](const char* key, std::uint64_t value) { return RuntimeFact{key, Kind::number, {}, value}; };
  const auto flag = [](const char* key, bool value) { return RuntimeFact{key, Kind::flag, {}, value ? 1u : 0u}; };
  const BuildInfo& build = runtime_build();
  const bool simulated = simulated_device();
  const StagingSettings& staging = staging_settings();
  return {text("lapis_version", build.lapis_version), number("abi_version", build.abi_version),
          text("kokkos_version", kokkos_version_string(build.kokkos_version)),
          names("kokkos_backends", backend_list(build)), text("kokkos_prefix", build.kokkos_prefix),
          text("kokkos_cuda_arch", build.kokkos_cuda_arch),  // empty without CUDA
          text("execution_space", DefaultDevice::execution_space::name()),
          text("device_memory_space", simulated ? "SimulatedDevice(HostSpace)" : DefaultDevice::memory_space::name()),
          text("host_memory_space", Kokkos::HostSpace::name()), flag("simulated_device", simulated),
          flag("sides_alias", sides_alias()),  // a DualView's two sides are one memory: nothing is ever copied
          number("device_id", device_id()),    // the GPU Kokkos runs on (0 without one)
          flag("mpi_gpu_aware", communication_side() == Side::device),
          number("cached_arrays", cached_arrays()),  // the most numpy arrays kept wrapped (LAPIS_CACHED_ARRAYS)
          // the most bytes of host memory kept registered with the driver (LAPIS_REGISTER_MAX_BYTES)
          number("register_max_bytes", host_registration_max_bytes()), number("live_allocations", live_allocations()),
          number("live_bytes", live_bytes()),
          // copies this large go through pinned staging
          number("staging.min_bytes", staging.min_bytes), number("staging.chunk_bytes", staging.chunk_bytes),
          number("staging.threads", staging.threads)};
}

std::size_t cached_arrays() { return lapis::cached_arrays(); }

// Sides alias on the real device when it can reach host memory; never on the simulated one. Kernels
// run on the default execution space either way: the simulated device exists only on builds whose
// default execution space is a host space.
bool sides_alias() noexcept { return lapis::sides_alias<DefaultDevice>(); }
bool work_done_on_return() noexcept { return lapis::work_done_on_return; }

std::shared_ptr<AnyDualBuffer> borrow(void* data, const Shape& shape, const Strides& strides, bool writable,
                                      const lapis::detail::HostBlock& block) {
  return std::make_shared<DefaultDualBuffer>(lapis::borrow, label, shape, data, strides, writable, Order::right,
                                             sides_alias(), nullptr, block);
}

std::shared_ptr<AnyDualBuffer> borrow_memref(void* data, std::int64_t offset, const std::vector<std::int64_t>& sizes,
                                             const std::vector<std::int64_t>& strides, ElementType element) {
  if (sizes.size() != strides.size()) throw std::invalid_argument("lapis: a memref has as many strides as sizes");
  const MemrefLayout layout = memref_layout(data, offset, sizes.data(), strides.data(), sizes.size(), element);
  return borrow(layout.data, layout.shape, layout.strides, true);
}

std::shared_ptr<AnyDualBuffer> copy_of(const void* data, const Shape& shape, const Strides& strides) {
  auto buffer = std::make_shared<DefaultDualBuffer>(label, shape, Order::right, sides_alias(), AllocateNow::nothing);
  void* host = buffer->data_for_overwrite(Side::host, AddressUse::call);
  detail::strided_copy(static_cast<unsigned char*>(host), buffer->strides(Side::host),
                       static_cast<const unsigned char*>(data), strides, shape);
  return buffer;
}

std::shared_ptr<AnyDualBuffer> borrow_device(void* data, const Shape& shape) {
  if (sides_alias()) return borrow(data, shape, contiguous_strides(shape, Order::right), true);
  return std::make_shared<DefaultDualBuffer>(lapis::borrow_device, label, shape, data, Order::right);
}

DeviceLocation device_location() {
  if (simulated_device() || std::is_same_v<DefaultDevice::memory_space, Kokkos::HostSpace>) return {1, 0};
#if defined(KOKKOS_ENABLE_CUDA)
  if (std::is_same_v<DefaultDevice::memory_space, Kokkos::CudaUVMSpace>) return {13, cuda_device};
  return {2, cuda_device};
#else
  throw std::runtime_error(std::string("lapis: no DLPack device for memory space ") +
                           DefaultDevice::memory_space::name());
#endif
}

void synchronize_device() {
  const RuntimeUse use;
#if defined(KOKKOS_ENABLE_CUDA)
  if (!simulated_device() && cudaDeviceSynchronize() != cudaSuccess)
    throw std::runtime_error("lapis: cudaDeviceSynchronize failed");
#endif
  Kokkos::fence();
}

void fence() {
  if (is_finalized()) return;
  const RuntimeUse use;
  const ExecutionGuard guard;
  DefaultDevice::execution_space().fence();
}

void* lend_device(AnyDualBuffer& buffer, Access access) {
  const RuntimeUse use;  // before making the execution space instance: Kokkos aborts on one after finalize
  return lapis::lend_device(buffer, access, DefaultDevice::execution_space());
}

std::shared_ptr<AnyDualBuffer> result(const Shape& shape) {
  return std::make_shared<DefaultDualBuffer>(label, shape, Order::right, sides_alias(), AllocateNow::nothing);
}

std::shared_ptr<AnyDualBuffer> zeros(const Shape& shape) {
  refuse_while_recording("lapis.zeros", "fills a new DualView (lapis.empty does not)");
  return std::make_shared<DefaultDualBuffer>(label, shape, Order::right, sides_alias(), AllocateNow::device);
}

std::shared_ptr<AnyDualBuffer> full(const Shape& shape, const void* item) {
  auto buffer = std::make_shared<DefaultDualBuffer>(label, shape, Order::right, sides_alias(), AllocateNow::nothing);
  fill(*buffer, item);
  return buffer;
}

void fill(AnyDualBuffer& buffer, const void* item) {
  refuse_while_recording("lapis.full", "fills a DualView");
  const RuntimeUse use;
  void* device = buffer.data_for_overwrite(Side::device, AddressUse::call);
  fill_items(DefaultDevice::execution_space(), device, buffer.shape(), buffer.strides(Side::device), item);
}

std::shared_ptr<AnyDualBuffer> converted(AnyDualBuffer& source, ElementType element, std::size_t itemsize) {
  const RuntimeUse use;
  Shape shape = source.shape();
  shape.element = element;
  shape.itemsize = itemsize;
  const Side side = source.allocated(Side::device) && !source.need_sync(Side::device) ? Side::device : Side::host;
  auto result = std::make_shared<DefaultDualBuffer>(label, shape, Order::right, sides_alias(), AllocateNow::nothing);
  // both addresses serve this call's conversion only
  const void* from = source.data(side, AddressUse::call);
  void* to = result->data_for_overwrite(side, AddressUse::call);
  if (side == Side::device) {
    convert_items(DefaultDevice::execution_space(), to, element, from, source.shape(), source.strides(side));
  } else {
    const Kokkos::DefaultHostExecutionSpace host;
    convert_items(host, to, element, from, source.shape(), source.strides(side));
    host.fence();  // the host side is read at once
  }
  return result;
}

void sync_explicitly(AnyDualBuffer& buffer, Side side) { buffer.sync(side, Intent::named); }

void start_module(void (*initialize)(), void (*finalize)()) {
  const RuntimeUse use;  // RuntimeFinalizedError once lapis is finalized: initialize would start Kokkos anew
  initialize();
  lapis::at_finalize(finalize);
}

}  // namespace lapis::python
