// lapis::DualView: one logical array with a host side and a device side, each possibly allocated,
// each possibly stale. A cheap shared handle: copies share one buffer (allocations, modified flags,
// transfer statistics). What is copied when is the SyncPolicy's business (sync_policy.hpp); what is
// allocated when, and where, the AllocPolicy's (alloc_policy.hpp).
//
// Views handed out are unmanaged: they stay valid while any handle to the DualView lives.
//
// A typed DualView can also adopt an existing buffer (the one behind a Python lapis.DualView, or one
// made by another module): its rank, element type, memory spaces and strides are checked, and the
// two handles then share everything.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "lapis/alloc_policy.hpp"
#include "lapis/dual_buffer.hpp"
#include "lapis/element_type.hpp"
#include "lapis/make_view.hpp"
#include "lapis/spaces.hpp"
#include "lapis/sync_policy.hpp"

namespace lapis {

// Kokkos's own element types, as the type-erased core names them.
template <>
struct element_type_of<Kokkos::complex<float>> : std::integral_constant<ElementType, ElementType::complex64> {};
template <>
struct element_type_of<Kokkos::complex<double>> : std::integral_constant<ElementType, ElementType::complex128> {};
#if defined(KOKKOS_HALF_T_IS_FLOAT) && !KOKKOS_HALF_T_IS_FLOAT
template <>
struct element_type_of<Kokkos::Experimental::half_t> : std::integral_constant<ElementType, ElementType::float16> {};
#endif

// Says that the caller will overwrite every element of the device side before anyone reads it:
// nothing is zero-filled, and the device side starts out modified.
struct for_overwrite_t {
  explicit for_overwrite_t() = default;
};
inline constexpr for_overwrite_t for_overwrite{};

template <class DataType, class Layout = Kokkos::LayoutRight, class Device = DefaultDevice,
          class SyncPolicy = sync::Lazy, class AllocPolicy = alloc::Mirrored>
class DualView {
  using traits = device_traits<Device>;
  static_assert(std::is_same_v<Layout, Kokkos::LayoutRight> || std::is_same_v<Layout, Kokkos::LayoutLeft>,
                "lapis::DualView: Layout must be Kokkos::LayoutRight or Kokkos::LayoutLeft");

 public:
  using execution_space = typename traits::execution_space;
  using device_memory_space = typename traits::memory_space;
  using host_memory_space = typename AllocPolicy::host_memory_space;
  using buffer_type = DualBuffer<device_memory_space, host_memory_space>;
  using view_layout = typename AllocPolicy::template view_layout<Layout>;
  using unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  using device_view_type = Kokkos::View<DataType, view_layout, device_memory_space, unmanaged>;
  using host_view_type = Kokkos::View<DataType, view_layout, host_memory_space, unmanaged>;
  using value_type = typename device_view_type::non_const_value_type;
  static constexpr std::size_t rank = static_cast<std::size_t>(device_view_type::rank);
  static_assert(static_cast<std::size_t>(device_view_type::rank_dynamic) == rank,
                "lapis::DualView: all extents must be run-time extents (e.g. double**)");
  static constexpr Order order = std::is_same_v<Layout, Kokkos::LayoutLeft> ? Order::left : Order::right;

  // An empty handle.
  DualView() = default;

  // lapis-owned memory of the given extents, zero-filled (not for AllocPolicy = Borrowed).
  template <class... Extents, class = std::enable_if_t<sizeof...(Extents) == rank>>
  explicit DualView(const std::string& label, Extents... extents)
      : buffer_(make_owned(label, AllocPolicy::allocate_device, extents...)) {}

  // lapis-owned memory whose device side the caller fills at once: see for_overwrite_t.
  template <class... Extents, class = std::enable_if_t<sizeof...(Extents) == rank>>
  DualView(for_overwrite_t, const std::string& label, Extents... extents)
      : buffer_(make_owned(label, false, extents...)) {
    buffer_->data_for_overwrite(Side::device);
  }

  // Borrows the memory of a host view (AllocPolicy = Borrowed): the caller keeps it alive. The host
  // side starts out modified; a view of const elements makes it read-only.
  template <class HostView, class = std::enable_if_t<Kokkos::is_view<HostView>::value>>
  explicit DualView(const HostView& host, const std::string& label = "lapis::DualView") {
    static_assert(AllocPolicy::borrows, "lapis::DualView: only AllocPolicy = alloc::Borrowed borrows memory");
    static_assert(static_cast<std::size_t>(HostView::rank) == rank, "lapis::DualView: rank mismatch");
    static_assert(std::is_same_v<std::remove_const_t<typename HostView::value_type>, value_type>,
                  "lapis::DualView: element type mismatch");
    static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename HostView::memory_space>::accessible,
                  "lapis::DualView: borrowed memory must be host memory");
    Shape shape = make_shape(std::make_index_sequence<rank>{}, host);
    Strides strides{};
    for (std::size_t i = 0; i < rank; ++i)
      strides[i] = static_cast<std::ptrdiff_t>(host.stride(i) * sizeof(value_type));
    constexpr bool writable = !std::is_const_v<typename HostView::value_type>;
    buffer_ = std::make_shared<buffer_type>(borrow, label, shape,
                                            const_cast<value_type*>(host.data()), strides, writable, order,
                                            sides_alias<Device>());
    SyncPolicy::after_modify(*buffer_, Side::host);
  }

  // Shares an existing buffer (a Python DualView's, another module's). Throws std::invalid_argument
  // unless the buffer's rank, element type and memory spaces are this type's, and the views of this
  // type can address both sides' strides (LayoutRight / LayoutLeft views need contiguous sides in
  // that order; alloc::Borrowed's LayoutStride views take any non-negative strides).
  explicit DualView(const std::shared_ptr<AnyDualBuffer>& buffer) : buffer_(adopt(buffer)) {}

  // Views for reading; the sync policy decides whether a stale side is synced first or rejected.
  // Mark a side modified after writing through its view.
  device_view_type view_device() { return view<device_view_type>(Side::device); }
  host_view_type view_host() { return view<host_view_type>(Side::host); }

  // Views for a caller that overwrites every element: nothing is copied, the other side's unsynced
  // changes are discarded, and this side is marked modified.
  device_view_type view_device_for_overwrite() { return view_for_overwrite<device_view_type>(Side::device); }
  host_view_type view_host_for_overwrite() { return view_for_overwrite<host_view_type>(Side::host); }

  void modify_device() { modify(Side::device); }
  void modify_host() { modify(Side::host); }
  void sync_device() { buffer_->sync(Side::device); }
  void sync_host() { buffer_->sync(Side::host); }
  // Asynchronous on `exec` where the copy allows it: fence `exec` before using the data.
  template <class ExecutionSpace>
  void sync_device(const ExecutionSpace& exec) {
    buffer_->sync(Side::device, exec);
  }
  template <class ExecutionSpace>
  void sync_host(const ExecutionSpace& exec) {
    buffer_->sync(Side::host, exec);
  }
  bool need_sync_device() const noexcept { return buffer_->need_sync(Side::device); }
  bool need_sync_host() const noexcept { return buffer_->need_sync(Side::host); }

  bool host_allocated() const noexcept { return buffer_->allocated(Side::host); }
  bool device_allocated() const noexcept { return buffer_->allocated(Side::device); }
  bool aliased() const noexcept { return buffer_->aliased(); }
  std::size_t extent(std::size_t i) const noexcept { return buffer_->shape().extents[i]; }
  std::size_t size() const { return buffer_->shape().size(); }
  TransferStats transfers() const noexcept { return buffer_->transfers(); }

  // The type-erased buffer, for code that must not depend on DataType (e.g. bindings).
  const std::shared_ptr<buffer_type>& buffer() const noexcept { return buffer_; }

 private:
  template <class... Extents>
  static std::shared_ptr<buffer_type> make_owned(const std::string& label, bool allocate_device, Extents... extents) {
    static_assert(!AllocPolicy::borrows, "lapis::DualView: a Borrowed DualView is made from a host view");
    Shape shape;
    shape.rank = rank;
    shape.itemsize = sizeof(value_type);
    shape.element = element_type_v<value_type>;
    std::size_t i = 0;
    ((shape.extents[i++] = static_cast<std::size_t>(extents)), ...);
    return std::make_shared<buffer_type>(label, shape, order, sides_alias<Device>(), AllocPolicy::allocate_host,
                                         allocate_device);
  }

  template <std::size_t... I, class HostView>
  static Shape make_shape(std::index_sequence<I...>, const HostView& host) {
    Shape shape;
    shape.rank = rank;
    shape.itemsize = sizeof(value_type);
    shape.element = element_type_v<value_type>;
    ((shape.extents[I] = host.extent(I)), ...);
    return shape;
  }

  static std::shared_ptr<buffer_type> adopt(const std::shared_ptr<AnyDualBuffer>& buffer) {
    if (!buffer) throw std::invalid_argument("lapis::DualView: cannot adopt an empty buffer");
    const Shape& shape = buffer->shape();
    const auto refuse = [](const std::string& why) { throw std::invalid_argument("lapis::DualView: cannot adopt " + why); };
    if (shape.rank != rank)
      refuse("a buffer of rank " + std::to_string(shape.rank) + " as rank " + std::to_string(rank));
    if (shape.element != element_type_v<value_type> || shape.element == ElementType::opaque)
      refuse(std::string("a buffer of ") + name(shape.element) + " elements as " + name(element_type_v<value_type>));
    auto typed = std::dynamic_pointer_cast<buffer_type>(buffer);
    if (!typed)
      refuse(std::string("a buffer in ") + buffer->space_name(Side::device) + " / " + buffer->space_name(Side::host) +
             " as one in " + device_memory_space::name() + " / " + host_memory_space::name());
    for (Side side : {Side::host, Side::device}) {
      const Strides& strides = buffer->strides(side);
      const bool fits = std::is_same_v<view_layout, Kokkos::LayoutStride> ? strides_fit_view(shape, strides)
                                                                           : is_contiguous(shape, strides, order);
      if (!fits)
        refuse(std::string("a buffer whose ") + (side == Side::host ? "host" : "device") +
               " side has strides its views cannot address (use alloc::Borrowed for LayoutStride views)");
    }
    return typed;
  }

  void modify(Side side) {
    buffer_->modify(side);
    SyncPolicy::after_modify(*buffer_, side);
  }

  template <class ViewType>
  ViewType view(Side side) {
    SyncPolicy::before_read(*buffer_, side);
    return make_view<ViewType>(buffer_->data(side), buffer_->shape(), buffer_->strides(side));
  }

  template <class ViewType>
  ViewType view_for_overwrite(Side side) {
    return make_view<ViewType>(buffer_->data_for_overwrite(side), buffer_->shape(), buffer_->strides(side));
  }

  std::shared_ptr<buffer_type> buffer_;
};

template <class T>
struct is_dual_view : std::false_type {};
template <class DataType, class Layout, class Device, class SyncPolicy, class AllocPolicy>
struct is_dual_view<DualView<DataType, Layout, Device, SyncPolicy, AllocPolicy>> : std::true_type {};
template <class T>
inline constexpr bool is_dual_view_v = is_dual_view<std::remove_cv_t<T>>::value;

}  // namespace lapis
