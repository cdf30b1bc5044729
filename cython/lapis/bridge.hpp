// The type-erased bridge between the Cython layer and the C++ core. Kokkos-free: _core's
// Cython-generated translation unit includes only this (and the core headers), so that a CUDA build
// compiles only bridge.cpp (and kernels_bridge.cpp, lapis.kernels' bridge) with the device compiler,
// and other extensions can cimport lapis without Kokkos. Each function fixes what Python's DualView is made of (the
// default device's memory spaces, C order, the default execution space) and calls include/lapis, whose rules apply.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lapis/core/any_dual_buffer.hpp"
#include "lapis/runtime/host_registration.hpp"

namespace lapis::python {

// Initializes the runtime (lapis::initialize: LAPIS_DEVICE selects the simulated device).
void initialize();
void finalize();

// One entry of lapis.runtime_info(). runtime_info() below is where the entries are written, once;
// the stub's TypedDict declares their Python types and a test holds the two together. A dotted key
// ("staging.min_bytes") is an entry of a nested dict.
struct RuntimeFact {
  enum class Kind { text, names, number, flag };  // names: comma-separated text, a list in Python
  const char* key;
  Kind kind;
  std::string text;
  std::uint64_t number;  // a count or size (up to 2**64 - 1), or a flag's 0 or 1
};
std::vector<RuntimeFact> runtime_info();

// LAPIS_CACHED_ARRAYS (lapis/runtime/runtime.hpp): how many numpy arrays adoptions.pxi keeps wrapped.
std::size_t cached_arrays();

// Whether a DualView's two sides are one memory (nothing is ever copied): the default device shares
// host memory and is not simulated.
bool sides_alias() noexcept;
// Whether every space lapis runs work on is done when its dispatch returns: a sync between sides
// that are one memory then changes flags only (no reason to release the GIL around it).
bool work_done_on_return() noexcept;

// Where device sides live, as DLPack names devices: (1, 0) for host memory, (2, id) for CUDA
// device memory of device `id`, (13, id) for CUDA managed memory.
struct DeviceLocation {
  int dlpack_device_type;
  int device_id;
};
DeviceLocation device_location();

// Waits for all work on the device, including other libraries' streams: called before device
// memory lent by another library is used.
void synchronize_device();
// Waits for every kernel and copy lapis has queued; nothing to wait for once finalized.
void fence();
// The device side for code that lapis does not order (lapis::lend_device on the default device).
void* lend_device(AnyDualBuffer& buffer, Access access);

// A DualView over caller-owned host memory (kept alive by the caller), host side marked modified;
// `block` is the allocation it lies in, for its registration (lapis/runtime/host_registration.hpp).
std::shared_ptr<AnyDualBuffer> borrow(void* data, const Shape& shape, const Strides& strides, bool writable,
                                      const lapis::detail::HostBlock& block = {});
// A DualView over the memory an MLIR memref descriptor describes (kept alive by the caller), as
// borrow() makes one; std::invalid_argument for what lapis::memref_layout refuses.
std::shared_ptr<AnyDualBuffer> borrow_memref(void* data, std::int64_t offset, const std::vector<std::int64_t>& sizes,
                                             const std::vector<std::int64_t>& strides, ElementType element);
// A DualView whose host side is a lapis-owned C-ordered copy of `data`, host side marked modified.
std::shared_ptr<AnyDualBuffer> copy_of(const void* data, const Shape& shape, const Strides& strides);
// A DualView over caller-owned, contiguous (C order) device memory (a CuPy array, a PyTorch CUDA
// tensor), kept alive by the caller, device side marked modified. Where the device shares host
// memory this is borrow() of that memory.
std::shared_ptr<AnyDualBuffer> borrow_device(void* data, const Shape& shape);
// A DualView for a kernel result: nothing allocated yet; the kernel asks for its device side for
// overwriting (AnyDualBuffer::data_for_overwrite), so nothing is zero-filled in vain.
std::shared_ptr<AnyDualBuffer> result(const Shape& shape);
// A zero-filled DualView: device side allocated now, host side on first use.
std::shared_ptr<AnyDualBuffer> zeros(const Shape& shape);
// A DualView whose every element is the `shape.itemsize` bytes at `item`, filled on the device.
std::shared_ptr<AnyDualBuffer> full(const Shape& shape, const void* item);
// A new C-contiguous array of `source`'s shape with `element` elements of `itemsize` bytes, holding
// source's data converted as numpy's astype does (convert.hpp), made on the side that holds the
// current data (the device side, unless only the host side does) and marked modified there:
// nothing crosses between the sides. std::invalid_argument for elements it cannot convert.
std::shared_ptr<AnyDualBuffer> converted(AnyDualBuffer& source, ElementType element, std::size_t itemsize);
// buffer.sync(side) as a copy the caller asked for by name: the transfer guard lets it through.
void sync_explicitly(AnyDualBuffer& buffer, Side side);
// Starts a LAPIS module on lapis's running runtime: calls its `initialize` (lapis_initialize, which
// finds Kokkos initialized), and `finalize` (lapis_finalize) when lapis finalizes, before it releases
// its memory. RuntimeFinalizedError once lapis is finalized.
void start_module(void (*initialize)(), void (*finalize)());
// Overwrites every element of the device side with the item at `item`; marks it modified.
void fill(AnyDualBuffer& buffer, const void* item);

}  // namespace lapis::python
