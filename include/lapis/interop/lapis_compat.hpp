// The support surface that LAPIS's Kokkos emitter writes against (the header it pastes at the top of
// every module), over lapis's state: a module as the emitter writes it compiles against lapis with
// this one line in place of the pasted header,
//     #include <lapis/interop/lapis_compat.hpp>
// and nothing else changed. Every LAPIS::DualView is a lapis DualView (its flags, allocations and
// copies are lapis's), so a result can be handed to Python resident (interop/lapis_resident.hpp
// derives the entry points that do it from the module's declarations).
//
// The module defines lapis_initialize() and lapis_finalize() itself, as the emitter writes them;
// lapis's runtime starts on the Kokkos the module initializes (runtime/runtime.hpp) and lets go of
// its memory through Kokkos's finalize hook.
//
// Where lapis's rules differ from LAPIS's header (docs/lapis.md says why no emitted code can tell):
// - children (subviews, casts, reshapes) are parts of the whole allocation (core/buffer_part.hpp):
//   syncing one syncs the whole allocation, so a sibling's pending change is never lost;
// - marking a side modified while the other holds unsynced changes throws
//   lapis::ConcurrentModificationError instead of keeping both marks;
// - a new array's device side is allocated zero-filled, its host side on first use (zero-filled);
// - under the simulated device (LAPIS_DEVICE=simulated), a view of memory it does not own (numpy's,
//   a sparse runtime's) becomes the host side, as it would on a GPU; LAPIS's header takes every view
//   of the default memory space for the device side on a CPU build;
// - nothing leaks: dropping the last handle (deallocate(), assigning over it) frees the data.
#pragma once

#include <Kokkos_Core.hpp>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "lapis/core/buffer_ref.hpp"
#include "lapis/core/errors.hpp"
#include "lapis/dualview.hpp"
#include "lapis/interop/kokkos4_names.hpp"
#include "lapis/interop/lapis_resident.hpp"
#include "lapis/interop/memref.hpp"
#include "lapis/interop/strided_memref.hpp"

// As the emitter declares them; each module defines its own.
extern "C" void lapis_initialize();
extern "C" void lapis_finalize();

namespace LAPIS {

using TeamPolicy = Kokkos::TeamPolicy<>;
using TeamMember = typename TeamPolicy::member_type;

template <class DataType, class Layout>
class DualView {
  using Handle = lapis::DualView<DataType, Layout, lapis::DefaultDevice, lapis::alloc::DeviceFirst>;

 public:
  // The view types the emitter spells for the two sides.
  using DeviceView = Kokkos::View<DataType, Layout, Kokkos::DefaultExecutionSpace>;
  using HostView = Kokkos::View<DataType, Layout, Kokkos::DefaultHostExecutionSpace>;
  using value_type = typename Handle::non_const_value_type;

  DualView() = default;

  // A new array of these run-time extents (KOKKOS_INVALID_INDEX past them, as LAPIS passes them).
  explicit DualView(const std::string& label, std::size_t n0 = KOKKOS_INVALID_INDEX,
                    std::size_t n1 = KOKKOS_INVALID_INDEX, std::size_t n2 = KOKKOS_INVALID_INDEX,
                    std::size_t n3 = KOKKOS_INVALID_INDEX, std::size_t n4 = KOKKOS_INVALID_INDEX,
                    std::size_t n5 = KOKKOS_INVALID_INDEX, std::size_t n6 = KOKKOS_INVALID_INDEX,
                    std::size_t n7 = KOKKOS_INVALID_INDEX)
      : dv_(make(label, {n0, n1, n2, n3, n4, n5, n6, n7}, std::make_index_sequence<Handle::rank_dynamic>{})) {}

  // An array over an existing view of the same data type, held as long as the array: the view's
  // memory is the side it lives on (marked modified), the other side is allocated on first use, or
  // is the same memory where the sides alias. Implicit, as the emitter relies on it (a View returned
  // as a DualView result, a host View passed for a DualView parameter, a sparse runtime's result).
  template <class View, class = std::enable_if_t<Kokkos::is_view<View>::value &&
                                                 std::is_same_v<typename View::data_type, DataType>>>
  DualView(const View& view) : dv_(adopt_view(view)) {}

  // A lapis buffer's array (a Python lapis.DualView's, a handle's): shared, not copied; rank,
  // element type and extents checked (std::invalid_argument, lapis::ElementTypeError).
  explicit DualView(const std::shared_ptr<lapis::AnyDualBuffer>& buffer) : dv_(buffer) {}

  // A child: `device` and `host` view one part of `parent`'s memory (a subview, a cast, a reshape),
  // of any parent DualView type. It is that part of the parent's whole buffer, sharing its state.
  template <class ParentData, class ParentLayout>
  DualView(const DeviceView& device, const HostView& host, const DualView<ParentData, ParentLayout>& parent)
      : dv_(lapis::part_of(parent.buffer(), part_viewed(parent.buffer(), device, host))) {}

  // Syncs the host side first where syncHostOnDestroy() asked for it; never throws (a refused or
  // failed sync is reported on stderr).
  ~DualView() {
    if (!sync_host_on_destroy_ || !dv_.is_allocated()) return;
    try {
      dv_.buffer()->sync(lapis::Side::host);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "lapis: LAPIS::DualView \"%s\" could not sync its host side when destroyed: %s\n",
                   dv_.label().c_str(), e.what());
    }
  }
  DualView(const DualView&) = default;
  DualView& operator=(const DualView&) = default;
  DualView(DualView&&) noexcept = default;
  DualView& operator=(DualView&&) noexcept = default;

  // The sides' views, as they are (nothing synced or marked), allocated on first use.
  DeviceView device_view() const { return dv_.view_device(); }
  HostView host_view() const { return dv_.view_host(); }

  void modifyHost() { mark(lapis::Side::host); }
  void modifyDevice() { mark(lapis::Side::device); }
  // Whether a side holds changes the other lacks.
  bool modifiedHost() const { return dv_.need_sync_device(); }
  bool modifiedDevice() const { return dv_.need_sync_host(); }
  void syncHost() { sync(lapis::Side::host); }
  void syncDevice() { sync(lapis::Side::device); }
  // The Kokkos::DualView spellings the emitter writes for globals with initial data.
  void sync_host() { syncHost(); }
  void sync_device() { syncDevice(); }

  // Drops this handle's share of the data (other handles keep it; the last one frees it).
  void deallocate() { dv_ = Handle(); }
  std::size_t extent(int dim) const { return dv_.extent(dim); }
  std::size_t stride(int dim) const { return device_view().stride(dim); }
  // Keeps the host side alive until the module's lapis_finalize clears LAPIS::alives.
  void keepAliveHost() const;
  // Syncs the host side when this handle dies: for a result written into memory another runtime owns.
  void syncHostOnDestroy() { sync_host_on_destroy_ = true; }

  // The buffer this array is (a child's: its part of the parent's): lapis::python_api::to_python or
  // a resident entry point hands it out without a copy.
  std::shared_ptr<lapis::AnyDualBuffer> buffer() const { return dv_.buffer(); }

 private:
  template <std::size_t... I>
  static Handle make(const std::string& label, const std::size_t (&extents)[8], std::index_sequence<I...>) {
    return Handle(label, extents[I]...);
  }

  // Which side `view` is: as LAPIS has it, the device side for a view of the device's memory space
  // and the host side otherwise; but where the sides are apart and the device's memory is host
  // memory (the simulated device), memory the view does not own (numpy's, a sparse runtime's) is
  // the caller's host memory.
  template <class View>
  static Handle adopt_view(const View& view) {
    using Space = typename View::memory_space;
    constexpr bool host_reachable = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Space>::accessible;
    constexpr bool device_space = std::is_same_v<Space, typename DeviceView::memory_space>;
    const bool apart = !lapis::sides_alias<lapis::DefaultDevice>();
    const bool on_device = device_space && !(apart && host_reachable && view.use_count() == 0);
    const auto owner = std::make_shared<const View>(view);
    lapis::Shape shape;
    shape.rank = Handle::rank;
    shape.itemsize = sizeof(value_type);
    shape.element = lapis::element_type_v<value_type>;
    lapis::Strides strides{};
    for (std::size_t i = 0; i + 1 <= Handle::rank; ++i) {
      shape.extents[i] = view.extent(i);
      strides[i] = static_cast<std::ptrdiff_t>(view.stride(i) * sizeof(value_type));
    }
    using Buffer = typename Handle::buffer_type;
    auto* data = const_cast<value_type*>(view.data());
    constexpr lapis::Order order =
        std::is_same_v<Layout, Kokkos::LayoutLeft> ? lapis::Order::left : lapis::Order::right;
    std::shared_ptr<lapis::AnyDualBuffer> buffer;
    if (on_device && apart) {
      if (!lapis::is_contiguous(shape, strides, order))
        throw std::invalid_argument("LAPIS::DualView: a device view becomes a device side only when contiguous");
      buffer = std::make_shared<Buffer>(lapis::borrow_device, view.label(), shape, data, order, owner);
    } else {
      buffer = std::make_shared<Buffer>(lapis::borrow, view.label(), shape, data, strides, true, order,
                                        lapis::sides_alias<lapis::DefaultDevice>(), owner);
      if (on_device) {  // one memory, taken for the device side's, as LAPIS takes it
        buffer->clear_sync_state();
        buffer->modify(lapis::Side::device);
      }
    }
    return Handle(buffer);
  }

  // Where the views `device` and `host` lie in the whole buffer of `parent`; std::invalid_argument
  // if either lies outside it.
  static lapis::Part part_viewed(const std::shared_ptr<lapis::AnyDualBuffer>& parent, const DeviceView& device,
                                 const HostView& host) {
    const auto whole = lapis::whole_of(parent);
    lapis::Part part{};
    part.shape.rank = Handle::rank;
    part.shape.itemsize = sizeof(value_type);
    part.shape.element = lapis::element_type_v<value_type>;
    constexpr std::size_t rank = Handle::rank;
    for (std::size_t i = 0; i + 1 <= rank; ++i) part.shape.extents[i] = device.extent(i);
    const auto place = [&](lapis::Side side, const void* data, const auto& view) {
      const auto* base = static_cast<const unsigned char*>(whole->address(side));
      const std::ptrdiff_t offset = static_cast<const unsigned char*>(data) - base;
      part.offsets[lapis::index(side)] = offset;
      // one past the last element it reaches (Kokkos's span() of a LayoutStride view may be larger)
      bool empty = false;
      std::ptrdiff_t last = 0;
      for (std::size_t i = 0; i + 1 <= rank; ++i) {
        part.strides[lapis::index(side)][i] = static_cast<std::ptrdiff_t>(view.stride(i) * sizeof(value_type));
        empty = empty || view.extent(i) == 0;
        if (!empty) last += static_cast<std::ptrdiff_t>((view.extent(i) - 1) * view.stride(i));
      }
      const std::ptrdiff_t end = empty ? offset : offset + (last + 1) * static_cast<std::ptrdiff_t>(sizeof(value_type));
      if (offset < 0 || end > static_cast<std::ptrdiff_t>(whole->shape().nbytes()))
        throw std::invalid_argument(std::string("LAPIS::DualView: a child's ") + lapis::side_name(side) +
                                    " view lies outside its parent's memory");
    };
    place(lapis::Side::device, device.data(), device);
    place(lapis::Side::host, host.data(), host);
    return part;
  }

  void mark(lapis::Side side) {
    if (dv_.is_allocated()) dv_.buffer()->modify(side);
  }
  void sync(lapis::Side side) {
    if (dv_.is_allocated()) dv_.buffer()->sync(side);
  }

  Handle dv_;
  bool sync_host_on_destroy_ = false;
};

// What an entry point keeps alive for its caller (LAPIS hands the host memory of results to numpy
// this way), until the module's lapis_finalize clears LAPIS::alives. One list per module, as LAPIS
// has it.
struct KeepAlive {
  virtual ~KeepAlive() = default;
};
template <class T>
struct KeepAliveT final : KeepAlive {
  explicit KeepAliveT(const T& kept) : value(kept) {}
  T value;
};
static std::vector<std::unique_ptr<KeepAlive>> alives;

template <class T>
void keepAlive(const T& value) {
  alives.push_back(std::make_unique<KeepAliveT<T>>(value));
}

template <class DataType, class Layout>
void DualView<DataType, Layout>::keepAliveHost() const {
  keepAlive(host_view());
}

// The descriptor of a view (strides in elements); it does not keep the memory alive.
template <class View>
StridedMemRefType<typename View::value_type, static_cast<int>(View::rank)> viewToStridedMemref(const View& view) {
  StridedMemRefType<typename View::value_type, static_cast<int>(View::rank)> memref{};
  memref.basePtr = memref.data = view.data();
  memref.offset = 0;
  if constexpr (View::rank > 0) {
    for (int i = 0; i < static_cast<int>(View::rank); ++i) {
      memref.sizes[i] = static_cast<int64_t>(view.extent(i));
      memref.strides[i] = static_cast<int64_t>(view.stride(i));
    }
  }
  return memref;
}

// A view of type View over the memory a descriptor describes (unmanaged: the descriptor's owner
// keeps it alive); std::invalid_argument for a descriptor lapis::memref_layout refuses or strides
// View's layout cannot address.
template <class View>
View stridedMemrefToView(const StridedMemRefType<typename View::value_type, static_cast<int>(View::rank)>& memref) {
  static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename View::memory_space>::accessible,
                "LAPIS::stridedMemrefToView: a descriptor describes host memory");
  constexpr std::size_t rank = View::rank;
  std::int64_t sizes[rank > 0 ? rank : 1] = {}, strides[rank > 0 ? rank : 1] = {};
  if constexpr (rank > 0) {
    for (std::size_t i = 0; i < rank; ++i) {
      sizes[i] = memref.sizes[i];
      strides[i] = memref.strides[i];
    }
  }
  const lapis::MemrefLayout layout =
      lapis::memref_layout(memref.data, memref.offset, sizes, strides, rank,
                           lapis::element_type_v<std::remove_cv_t<typename View::value_type>>);
  return lapis::make_view<View>(layout.data, layout.shape, layout.strides);
}

// A vector length for a ThreadParallel of `parallelism` items per thread: 1 for none, else the
// largest power of two below the team's maximum that leaves each vector lane about six items.
inline int threadParallelVectorLength(int parallelism) {
  int length = 1;
  while (parallelism >= 1 && length < TeamPolicy::vector_length_max() && length * 6 < parallelism) length *= 2;
  return length;
}

namespace detail {
// IEEE minNum (Max false) or maxNum (Max true) as one atomic update of *address: a NaN on either side
// loses to a number. Retried until no other thread changed *address in between (two NaNs count as
// unchanged: NaN is unequal to itself). Returns the old value.
template <bool Max, class T>
KOKKOS_INLINE_FUNCTION T atomic_extreme_num(T* address, T update) {
  T old = Kokkos::atomic_load(address), seen;
  do {
    seen = old;
    const bool replace = Kokkos::isnan(seen) || (Max ? seen < update : update < seen);
    old = Kokkos::atomic_compare_exchange(address, seen, replace ? update : seen);
  } while (!(old == seen) && !(Kokkos::isnan(old) && Kokkos::isnan(seen)));
  return old;
}
}  // namespace detail

template <class T>
KOKKOS_INLINE_FUNCTION T atomic_minnum(T* address, T update) {
  return detail::atomic_extreme_num<false>(address, update);
}
template <class T>
KOKKOS_INLINE_FUNCTION T atomic_maxnum(T* address, T update) {
  return detail::atomic_extreme_num<true>(address, update);
}

}  // namespace LAPIS
