// The DualView surface that LAPIS's Kokkos emitter writes code against (LAPIS::DualView and
// lapis_initialize / lapis_finalize), as a thin layer over lapis: the state of every DualView (both
// sides, the modified flags, the copies) is a lapis buffer, so LAPIS-generated code runs on lapis's
// runtime and its results can be handed to Python resident (buffer()).
//
// Where lapis's rules are stronger than LAPIS's own header, lapis's hold:
// - children (subviews, casts) share the whole allocation's state: syncing one syncs the whole
//   allocation, so a sibling's pending change is never lost;
// - marking a side modified while the other holds unsynced changes throws
//   lapis::ConcurrentModificationError instead of keeping both marks;
// - a new array's host side is allocated when first used (zero-filled), its device side at once.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lapis/dualview.hpp"
#include "lapis/runtime/runtime.hpp"

// Each module calls these; any number of modules, in any order: the runtime is finalized by the last
// lapis_finalize only if the first lapis_initialize started it (see lapis::acquire_runtime).
inline void lapis_initialize() { lapis::acquire_runtime(); }
inline void lapis_finalize() { lapis::release_runtime(); }

namespace LAPIS {

template <class DataType, class Layout, class Device = lapis::DefaultDevice>
class DualView {
  using Handle = lapis::DualView<DataType, Layout, Device, lapis::alloc::DeviceFirst>;

 public:
  using DeviceView = typename Handle::t_dev;
  using HostView = typename Handle::t_host;
  using value_type = typename Handle::non_const_value_type;

  DualView() = default;

  // A new array of these run-time extents (KOKKOS_INVALID_INDEX past them, as LAPIS passes them).
  explicit DualView(const std::string& label, std::size_t n0 = KOKKOS_INVALID_INDEX,
                    std::size_t n1 = KOKKOS_INVALID_INDEX, std::size_t n2 = KOKKOS_INVALID_INDEX,
                    std::size_t n3 = KOKKOS_INVALID_INDEX, std::size_t n4 = KOKKOS_INVALID_INDEX,
                    std::size_t n5 = KOKKOS_INVALID_INDEX, std::size_t n6 = KOKKOS_INVALID_INDEX,
                    std::size_t n7 = KOKKOS_INVALID_INDEX)
      : dv_(make(label, {n0, n1, n2, n3, n4, n5, n6, n7}, std::make_index_sequence<Handle::rank_dynamic>{})) {}

  // An array over an existing view: a view of device memory becomes the device side (marked
  // modified), a view of host memory the host side (marked modified; on a CPU build every view is
  // one, so the simulated device copies as a GPU would); the other side is the same memory where the
  // device can reach host memory, a new allocation otherwise. The view is held.
  template <class ViewType, class = std::enable_if_t<Kokkos::is_view<ViewType>::value>>
  explicit DualView(const ViewType& view) {
    static_assert(std::is_same_v<typename ViewType::data_type, DataType>,
                  "LAPIS::DualView: the view's data type must be the DualView's");
    constexpr bool on_device = !std::is_same_v<typename ViewType::memory_space, typename HostView::memory_space>;
    const bool one_memory = lapis::sides_alias<Device>();
    if constexpr (on_device) {
      DeviceView device = view;
      dv_ = Handle(device, one_memory ? HostView(device.data(), device.layout())
                                      : HostView(Kokkos::view_alloc(Kokkos::WithoutInitializing, view.label() + "_host"),
                                                 device.layout()));
      dv_.modify_device();
    } else {
      HostView host = view;
      dv_ = Handle(one_memory ? DeviceView(host.data(), host.layout())
                              : DeviceView(Kokkos::view_alloc(Kokkos::WithoutInitializing, view.label() + "_dev"),
                                           host.layout()),
                   host);
      dv_.modify_host();
    }
  }

  // The array of an existing lapis buffer (a Python lapis.DualView's, through
  // lapis::python_api::from_python): shared, not copied; std::invalid_argument as for
  // lapis::DualView's adoption.
  explicit DualView(const std::shared_ptr<lapis::AnyDualBuffer>& buffer) : dv_(buffer) {}

  // A child: `device` and `host` view one part of `parent`'s memory (a subview, a cast). It is that
  // part of the parent's buffer (core/buffer_part.hpp), sharing the parent's state.
  template <class ParentData, class ParentLayout>
  DualView(const DeviceView& device, const HostView& host, const DualView<ParentData, ParentLayout, Device>& parent)
      : dv_(lapis::part_of(parent.buffer(), part_viewed(parent.buffer(), device, host))) {}

  ~DualView() {
    if (sync_host_on_destroy_ && dv_.is_allocated()) dv_.buffer()->sync(lapis::Side::host);
  }
  DualView(const DualView&) = default;
  DualView& operator=(const DualView&) = default;
  DualView(DualView&&) noexcept = default;
  DualView& operator=(DualView&&) noexcept = default;

  DeviceView device_view() const { return dv_.view_device(); }
  HostView host_view() const { return dv_.view_host(); }

  void modifyHost() { mark(lapis::Side::host); }
  void modifyDevice() { mark(lapis::Side::device); }
  // Whether a side holds changes the other lacks.
  bool modifiedHost() const { return dv_.need_sync_device(); }
  bool modifiedDevice() const { return dv_.need_sync_host(); }
  void syncHost() {
    if (dv_.is_allocated()) dv_.buffer()->sync(lapis::Side::host);
  }
  void syncDevice() {
    if (dv_.is_allocated()) dv_.buffer()->sync(lapis::Side::device);
  }

  // Drops this handle's share of the data (other handles keep it).
  void deallocate() { dv_ = Handle(); }
  std::size_t extent(int dim) const { return dv_.extent(dim); }
  std::size_t stride(int dim) const { return device_view().stride(dim); }
  // Keeps the data alive until lapis is finalized (LAPIS hands host memory to numpy this way).
  void keepAliveHost() const {
    if (dv_.is_allocated()) lapis::at_finalize([kept = dv_.buffer()] { static_cast<void>(kept); });
  }
  // Syncs the host side when this handle dies: for an output written into the caller's memory.
  void syncHostOnDestroy() { sync_host_on_destroy_ = true; }

  // The buffer this array is (a child's: its part of the parent's): lapis::python_api::to_python
  // hands it to Python without a copy.
  std::shared_ptr<lapis::AnyDualBuffer> buffer() const { return dv_.buffer(); }

 private:
  template <std::size_t... I>
  static Handle make(const std::string& label, const std::size_t (&extents)[8], std::index_sequence<I...>) {
    return Handle(label, extents[I]...);
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
    for (std::size_t i = 0; i < Handle::rank; ++i) part.shape.extents[i] = device.extent(i);
    const auto place = [&](lapis::Side side, const void* data, const auto& view) {
      const auto* base = static_cast<const unsigned char*>(whole->data(side));
      part.offsets[lapis::index(side)] = static_cast<const unsigned char*>(data) - base;
      for (std::size_t i = 0; i < Handle::rank; ++i)
        part.strides[lapis::index(side)][i] = static_cast<std::ptrdiff_t>(view.stride(i) * sizeof(value_type));
      const std::ptrdiff_t last = part.offsets[lapis::index(side)] + static_cast<std::ptrdiff_t>(view.span() * sizeof(value_type));
      if (part.offsets[lapis::index(side)] < 0 || last > static_cast<std::ptrdiff_t>(whole->shape().nbytes()))
        throw std::invalid_argument(std::string("LAPIS::DualView: a child's ") + (side == lapis::Side::host ? "host" : "device") +
                                    " view lies outside its parent's memory");
    };
    place(lapis::Side::device, device.data(), device);
    place(lapis::Side::host, host.data(), host);
    return part;
  }

  void mark(lapis::Side side) {
    if (dv_.is_allocated()) dv_.buffer()->modify(side);
  }

  template <class, class, class>
  friend class DualView;

  Handle dv_;
  bool sync_host_on_destroy_ = false;
};

}  // namespace LAPIS
