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
  using Whole = lapis::DualView<DataType, Layout, Device, lapis::alloc::DeviceFirst>;

 public:
  using DeviceView = typename Whole::t_dev;
  using HostView = typename Whole::t_host;
  using buffer_type = typename Whole::buffer_type;

  DualView() = default;

  // A new array of these run-time extents (KOKKOS_INVALID_INDEX past them, as LAPIS passes them).
  explicit DualView(const std::string& label, std::size_t n0 = KOKKOS_INVALID_INDEX,
                    std::size_t n1 = KOKKOS_INVALID_INDEX, std::size_t n2 = KOKKOS_INVALID_INDEX,
                    std::size_t n3 = KOKKOS_INVALID_INDEX, std::size_t n4 = KOKKOS_INVALID_INDEX,
                    std::size_t n5 = KOKKOS_INVALID_INDEX, std::size_t n6 = KOKKOS_INVALID_INDEX,
                    std::size_t n7 = KOKKOS_INVALID_INDEX)
      : whole_(make_whole(label, {n0, n1, n2, n3, n4, n5, n6, n7}, std::make_index_sequence<Whole::rank_dynamic>{})) {}

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
      whole_ = Whole(device, one_memory ? HostView(device.data(), device.layout())
                                        : HostView(Kokkos::view_alloc(Kokkos::WithoutInitializing, view.label() + "_host"),
                                                   device.layout()));
      whole_.modify_device();
    } else {
      HostView host = view;
      whole_ = Whole(one_memory ? DeviceView(host.data(), host.layout())
                                : DeviceView(Kokkos::view_alloc(Kokkos::WithoutInitializing, view.label() + "_dev"),
                                             host.layout()),
                     host);
      whole_.modify_host();
    }
  }

  // The array of an existing lapis buffer (a Python lapis.DualView's, through
  // lapis::python_api::from_python): shared, not copied; std::invalid_argument as for
  // lapis::DualView's adoption.
  explicit DualView(const std::shared_ptr<lapis::AnyDualBuffer>& buffer) : whole_(buffer) {}

  // A child: views `device` and `host` of part of `parent`'s memory (a subview, a cast), sharing
  // the parent's state.
  template <class ParentData, class ParentLayout>
  DualView(const DeviceView& device, const HostView& host, const DualView<ParentData, ParentLayout, Device>& parent)
      : state_(parent.state()), child_(std::make_shared<const std::pair<DeviceView, HostView>>(device, host)) {}

  ~DualView() {
    if (sync_host_on_destroy_ && state()) state()->sync(lapis::Side::host);
  }
  DualView(const DualView&) = default;
  DualView& operator=(const DualView&) = default;
  DualView(DualView&&) noexcept = default;
  DualView& operator=(DualView&&) noexcept = default;

  DeviceView device_view() const { return child_ ? child_->first : whole_.view_device(); }
  HostView host_view() const { return child_ ? child_->second : whole_.view_host(); }

  void modifyHost() { mark(lapis::Side::host); }
  void modifyDevice() { mark(lapis::Side::device); }
  // Whether a side holds changes the other lacks.
  bool modifiedHost() const { return state() && state()->need_sync(lapis::Side::device); }
  bool modifiedDevice() const { return state() && state()->need_sync(lapis::Side::host); }
  void syncHost() {
    if (state()) state()->sync(lapis::Side::host);
  }
  void syncDevice() {
    if (state()) state()->sync(lapis::Side::device);
  }

  // Drops this handle's share of the data (other handles keep it).
  void deallocate() {
    whole_ = Whole();
    state_.reset();
    child_.reset();
  }
  std::size_t extent(int dim) const { return device_view().extent(dim); }
  std::size_t stride(int dim) const { return device_view().stride(dim); }
  // Keeps the data alive until lapis is finalized (LAPIS hands host memory to numpy this way).
  void keepAliveHost() const {
    if (state()) lapis::at_finalize([kept = state()] { static_cast<void>(kept); });
  }
  // Syncs the host side when this handle dies: for an output written into the caller's memory.
  void syncHostOnDestroy() { sync_host_on_destroy_ = true; }

  // The whole allocation's buffer: lapis::python_api::to_python(dv.buffer()) hands a result to
  // Python without a copy.
  const std::shared_ptr<buffer_type>& buffer() const noexcept { return state(); }

 private:
  template <std::size_t... I>
  static Whole make_whole(const std::string& label, const std::size_t (&extents)[8], std::index_sequence<I...>) {
    return Whole(label, extents[I]...);
  }
  const std::shared_ptr<buffer_type>& state() const noexcept { return child_ ? state_ : whole_.buffer(); }
  void mark(lapis::Side side) {
    if (!state()) return;
    state()->modify(side);
  }

  template <class, class, class>
  friend class DualView;

  Whole whole_;                         // a root's own array
  std::shared_ptr<buffer_type> state_;  // a child's: its parent's buffer
  std::shared_ptr<const std::pair<DeviceView, HostView>> child_;
  bool sync_host_on_destroy_ = false;
};

}  // namespace LAPIS
