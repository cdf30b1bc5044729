// lapis::DualView: one logical array with a host side and a device side, each possibly allocated,
// each possibly stale. Kokkos::DualView's interface and semantics (code written for it compiles
// and behaves the same after renaming the type), with lapis's stronger rules where Kokkos's are
// weaker:
// - a DualView is a shared handle: copies share one buffer (allocations, modified flags, transfer
//   statistics), and views handed out keep that buffer alive;
// - the modified flags are kept even where both sides are one memory (a CPU build), so the misuse
//   that fails on a GPU fails the same way everywhere; marking both sides modified throws
//   ConcurrentModificationError instead of aborting;
// - sides are allocated when the AllocPolicy says (alloc_policy.hpp); copies beyond the ones asked
//   for are the SyncPolicy's business (sync_policy.hpp);
// - a subview (lapis::subview) shares the whole allocation's state: marking it marks the whole
//   allocation, syncing it copies the whole allocation, so syncing one subview never loses a
//   sibling's pending change (as Kokkos's region-only copy does: kokkos#2514). The price: writing
//   two disjoint subviews on different sides without a sync between throws
//   ConcurrentModificationError, as writing the whole array would. A subview is a BufferPart of
//   the whole buffer (core/buffer_part.hpp), as a Python slice and a LAPIS child view are.
//
// A typed DualView can also adopt an existing buffer (the one behind a Python lapis.DualView, or one
// made by another module): its rank, element type, memory spaces and strides are checked, and the
// two handles then share everything.
#pragma once

#include <Kokkos_Core.hpp>

#include <array>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "lapis/core/buffer_part.hpp"
#include "lapis/core/dual_view_fwd.hpp"
#include "lapis/detail/subview_arguments.hpp"
#include "lapis/detail/dual_buffer.hpp"
#include "lapis/dual_view_properties.hpp"
#include "lapis/core/element_type.hpp"
#include "lapis/runtime/execution_lock.hpp"
#include "lapis/detail/adoption.hpp"
#include "lapis/detail/copy_overlap.hpp"
#include "lapis/detail/make_view.hpp"
#include "lapis/detail/named_side.hpp"
#include "lapis/detail/view_ctor_props.hpp"
#include "lapis/runtime/runtime.hpp"
#include "lapis/runtime/spaces.hpp"
#include "lapis/detail/tracked_view.hpp"
#include "lapis/core/transfer_guard.hpp"

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

namespace detail {
struct LaunchViews;
}

template <class DataType, class... Properties>
class DualView {
  using properties = detail::dual_view_properties<Properties...>;
  using device = typename properties::device;  // may be lapis::SimulatedDevice
  using layout = typename properties::layout;

 public:
  using sync_policy = typename properties::sync_policy;
  using alloc_policy = typename properties::alloc_policy;
  using execution_space = typename device_traits<device>::execution_space;
  using memory_space = typename device_traits<device>::memory_space;
  using device_type = Kokkos::Device<execution_space, memory_space>;
  using host_memory_space = typename alloc_policy::host_memory_space;
  using host_mirror_space = Kokkos::Device<Kokkos::DefaultHostExecutionSpace, host_memory_space>;
  using memory_traits = typename properties::memory_traits;
  using array_layout = typename alloc_policy::template view_layout<layout>;

  using t_dev = Kokkos::View<DataType, array_layout, device_type, memory_traits>;
  using t_host = Kokkos::View<DataType, array_layout, host_mirror_space, memory_traits>;
  using traits = typename t_dev::traits;
  using data_type = typename traits::data_type;
  using const_data_type = typename traits::const_data_type;
  using non_const_data_type = typename traits::non_const_data_type;
  using value_type = typename traits::value_type;
  using const_value_type = typename traits::const_value_type;
  using non_const_value_type = typename traits::non_const_value_type;
  using size_type = typename traits::size_type;

  using t_dev_const = Kokkos::View<const_data_type, array_layout, device_type, memory_traits>;
  using t_host_const = Kokkos::View<const_data_type, array_layout, host_mirror_space, memory_traits>;
  using t_dev_const_randomread =
      Kokkos::View<const_data_type, array_layout, device_type, Kokkos::MemoryTraits<Kokkos::RandomAccess>>;
  using t_host_const_randomread =
      Kokkos::View<const_data_type, array_layout, host_mirror_space, Kokkos::MemoryTraits<Kokkos::RandomAccess>>;
  using t_dev_um = Kokkos::View<data_type, array_layout, device_type, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using t_host_um = Kokkos::View<data_type, array_layout, host_mirror_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using t_dev_const_um =
      Kokkos::View<const_data_type, array_layout, device_type, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using t_host_const_um =
      Kokkos::View<const_data_type, array_layout, host_mirror_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using t_dev_const_randomread_um = Kokkos::View<const_data_type, array_layout, device_type,
                                                 Kokkos::MemoryTraits<Kokkos::Unmanaged | Kokkos::RandomAccess>>;
  using t_host_const_randomread_um = Kokkos::View<const_data_type, array_layout, host_mirror_space,
                                                  Kokkos::MemoryTraits<Kokkos::Unmanaged | Kokkos::RandomAccess>>;

  using buffer_type = DualBuffer<memory_space, host_memory_space>;
  static constexpr std::size_t rank = static_cast<std::size_t>(t_dev::rank);
  static constexpr std::size_t rank_dynamic = static_cast<std::size_t>(t_dev::rank_dynamic);
  static constexpr Order order = std::is_same_v<layout, Kokkos::LayoutLeft> ? Order::left : Order::right;
  // As Kokkos::DualView has it: the two view types are one, so (on a build whose device is the host)
  // code written for Kokkos::DualView may take the sides to be one memory. lapis's simulated device
  // keeps them apart at run time even then; aliased() tells at run time.
  static constexpr bool impl_dualview_is_single_device = std::is_same_v<t_dev, t_host>;

 private:
  template <class... Extents>
  static constexpr bool takes_extents =
      (std::is_integral_v<Extents> && ...) && (sizeof...(Extents) == rank_dynamic || sizeof...(Extents) == rank);

  // Another DualView type over the same kind of buffer, with no write access this one lacks (its
  // static extents are checked at run time).
  template <class Other>
  static constexpr bool shares_state_with =
      std::is_same_v<typename Other::buffer_type, buffer_type> && Other::rank == rank &&
      std::is_same_v<typename Other::non_const_value_type, non_const_value_type> &&
      (std::is_same_v<typename Other::array_layout, array_layout> ||
       std::is_same_v<array_layout, Kokkos::LayoutStride>) &&
      (std::is_const_v<value_type> || !std::is_const_v<typename Other::value_type>);

 public:
  // The DualView type of lapis::subview(*this, args...): the layout is Kokkos::subview's.
  template <class... Args>
  using subview_type =
      DualView<typename decltype(Kokkos::subview(std::declval<t_dev>(), std::declval<Args>()...))::data_type,
               typename decltype(Kokkos::subview(std::declval<t_dev>(), std::declval<Args>()...))::array_layout, device,
               sync_policy, alloc_policy, memory_traits>;

  // Elements lapis copies, fills and adopts as bytes. Others (Kokkos Views, types holding Views) are
  // allocated as Kokkos::DualView allocates them under Kokkos::SequentialHostInit, and only so: see
  // make_host_initialized.
  static constexpr bool elements_are_bytes = std::is_trivially_copyable_v<non_const_value_type>;

  // An empty handle: no data; syncs and marks do nothing, views are empty.
  DualView() = default;

  // lapis-owned memory, zero-filled. Pass the run-time extents (or all extents, the static ones
  // matching), as for Kokkos::View. Not for alloc::Borrowed.
  template <class... Extents, class = std::enable_if_t<takes_extents<Extents...>>>
  explicit DualView(const std::string& label, Extents... extents)
      : buffer_(make_owned(label, alloc_policy::allocate_now, detail::Fill::zeros, extents...)) {}

  // lapis-owned memory from Kokkos::view_alloc properties: the label, WithoutInitializing (nothing
  // filled; the flags start clear, as Kokkos's do) and SequentialHostInit (the elements constructed
  // on the host, one by one: see make_host_initialized). Other properties are accepted and have no
  // effect here.
  template <class... P, class... Extents, class = std::enable_if_t<takes_extents<Extents...>>>
  explicit DualView(const Kokkos::Impl::ViewCtorProp<P...>& properties, Extents... extents)
      : buffer_(make_as(properties, detail::label_of(properties, ""), extents...)) {}

  // lapis-owned memory whose device side the caller fills at once: see for_overwrite_t.
  template <class... Extents, class = std::enable_if_t<takes_extents<Extents...>>>
  DualView(for_overwrite_t, const std::string& label, Extents... extents)
      : buffer_(make_owned(label, alloc_policy::allocate_now & AllocateNow::host, detail::Fill::none, extents...)) {
    buffer_->data_for_overwrite(Side::device, AddressUse::call);  // views come later
  }

  // Borrows the memory of a host view (alloc::Borrowed): the caller keeps it alive. The host side
  // starts out modified; a view of const elements makes it read-only.
  template <class HostView, class = std::enable_if_t<Kokkos::is_view<HostView>::value>>
  explicit DualView(const HostView& host, const std::string& label = "lapis::DualView") {
    static_assert(alloc_policy::borrows, "lapis::DualView: only alloc::Borrowed borrows memory");
    static_assert(static_cast<std::size_t>(HostView::rank) == rank, "lapis::DualView: rank mismatch");
    static_assert(std::is_same_v<typename HostView::non_const_value_type, non_const_value_type>,
                  "lapis::DualView: element type mismatch");
    static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename HostView::memory_space>::accessible,
                  "lapis::DualView: borrowed memory must be host memory");
    std::array<std::size_t, rank> extents{};
    Strides strides{};
    for (std::size_t i = 0; i < rank; ++i) {
      extents[i] = host.extent(i);
      strides[i] = static_cast<std::ptrdiff_t>(host.stride(i) * sizeof(non_const_value_type));
    }
    constexpr bool writable = !std::is_const_v<typename HostView::value_type>;
    buffer_ = std::make_shared<buffer_type>(borrow, label, adoption::shape_of(extents),
                                            const_cast<non_const_value_type*>(host.data()), strides, writable, order,
                                            sides_alias<device>());
    sync_policy::after_modify(*buffer_, Side::host);
  }

  // Takes two existing Kokkos views as the sides, as Kokkos::DualView(d_view, h_view) does: the
  // DualView holds them (until lapis::finalize), and both sides start out current. Where the device
  // can reach host memory the sides are one memory, so the views must be of one memory too
  // (std::invalid_argument otherwise, where Kokkos aborts). Both must be unpadded and of one shape.
  DualView(const t_dev& device_view, const t_host& host_view)
      : buffer_(holding(device_view, host_view, device_view.label())) {}

  // Shares an existing buffer (a Python DualView's, another module's). Throws std::invalid_argument
  // unless the buffer's rank, extents (the static ones), element type and memory spaces are this
  // type's, and the views of this type can address the device side's strides (LayoutRight /
  // LayoutLeft views need a contiguous side in that order; LayoutStride views take any non-negative
  // strides). A host side they cannot address (a borrowed numpy array with negative strides) is
  // refused when its view is asked for: view_host() throws std::invalid_argument, while syncs and
  // the device side work.
  // A BufferPart (a Python slice or reshape) becomes a subview of its whole buffer.
  explicit DualView(const std::shared_ptr<AnyDualBuffer>& buffer)
      : buffer_(adoption::template adopt<buffer_type>(buffer)) {
    if (detail::as_part(*buffer)) part_ = std::static_pointer_cast<BufferPart>(buffer);
  }

  // The same state seen through another type: const elements (DualView<const T*> from DualView<T*>),
  // static extents (DualView<T*[3]> from DualView<T**>, throwing std::invalid_argument unless the
  // extent is 3), other properties over the same memory spaces.
  template <class OtherData, class... OtherProperties,
            class = std::enable_if_t<shares_state_with<DualView<OtherData, OtherProperties...>>>>
  DualView(const DualView<OtherData, OtherProperties...>& other) {
    if (other.is_allocated()) *this = DualView(other.buffer());
  }

  // A subview of `source`, as Kokkos::subview(source, args...) makes (lapis::subview calls this):
  // one argument per dimension, each an index (which drops the dimension), Kokkos::ALL, or a
  // [first, second) pair; std::out_of_range for one outside its extent. The subview is a part of
  // the whole allocation (core/part.hpp), sharing its state (see the top of this file); its views
  // are laid out as Kokkos::subview's. Making it allocates nothing.
  template <class SourceData, class... SourceProperties, class Arg0, class... Args>
  DualView(const DualView<SourceData, SourceProperties...>& source, const Arg0& arg0, const Args&... args) {
    using Source = DualView<SourceData, SourceProperties...>;
    static_assert(std::is_same_v<typename Source::buffer_type, buffer_type>,
                  "lapis::DualView: a subview has its source's memory spaces");
    static_assert(std::is_constructible_v<t_dev, decltype(Kokkos::subview(source.view_device(), arg0, args...))>,
                  "lapis::DualView: this type cannot hold that subview (see lapis::DualView::subview_type)");
    static_assert(1 + sizeof...(Args) == Source::rank, "lapis::subview: one argument per dimension");
    std::vector<SliceDimension> dims;
    const auto add = [&](const auto& arg) {
      dims.push_back(detail::slice_dimension(arg, source.extent(dims.size()), dims.size()));
    };
    add(arg0);
    (add(args), ...);
    if (!source.buffer_) return;
    *this = DualView(part_of(source.buffer(), slice(location_of(source.target()), dims)));
  }

  // The views of the two sides, as they are: nothing is synced or marked (call sync_*() before
  // reading a side another wrote, modify_*() after writing). A side not allocated yet is allocated
  // now, zero-filled. The views keep the data alive; drop them before Kokkos is finalized. A
  // subview's views show its part of the whole allocation, laid out as Kokkos::subview lays it out.
  t_dev view_device() const { return view_of<t_dev>(Side::device, Access::address); }
  t_host view_host() const { return view_of<t_host>(Side::host, Access::address); }
  // The view of the side `Space` names (a device, execution space or memory space, or one of the
  // view types): see side_of.
  template <class Space>
  auto view() const {
    if constexpr (side_of<Space>() == detail::NamedSide::device) return view_device();
    else return view_host();
  }

  // A side's view for what the caller will do with it, in one step under the buffer's lock (as
  // Tpetra's getLocalView(Access)): Access::read syncs it first (an implicit copy: the transfer
  // guard judges it, and sync::Manual refuses it with StaleAccessError), Access::write also marks
  // it modified, Access::overwrite copies nothing, discards the other side's unsynced changes and
  // marks it modified (a subview smaller than the allocation syncs the rest first), Access::address
  // is view_device() / view_host(). std::invalid_argument for an access that hands out no address.
  t_dev view_device(Access access) { return view_of<t_dev>(Side::device, checked(access)); }
  t_host view_host(Access access) { return view_of<t_host>(Side::host, checked(access)); }

  // view_device(Access::overwrite), view_host(Access::overwrite).
  t_dev view_device_for_overwrite() { return view_device(Access::overwrite); }
  t_host view_host_for_overwrite() { return view_host(Access::overwrite); }

  void modify_device() { modify(Side::device); }
  void modify_host() { modify(Side::host); }
  // Marks the side `Space` names. A Space that names both sides (on a CPU build the device is the
  // host) marks nothing, as in Kokkos; under the simulated device, whose sides are apart, that
  // would lose a change, so it throws std::logic_error there.
  template <class Space>
  void modify() {
    if constexpr (side_of<Space>() == detail::NamedSide::device) modify_device();
    else if constexpr (side_of<Space>() == detail::NamedSide::host) modify_host();
    else refuse_ambiguous_mark();
  }

  // Brings a side up to date: one whole-allocation copy if the other side was modified. With an
  // execution space instance the copy is queued on it: fence it before using the data.
  void sync_device() { sync_to(Side::device); }
  void sync_host() { sync_to(Side::host); }
  template <class ExecutionSpace>
  void sync_device(const ExecutionSpace& exec) {
    sync_to(Side::device, exec);
  }
  template <class ExecutionSpace>
  void sync_host(const ExecutionSpace& exec) {
    sync_to(Side::host, exec);
  }
  // Syncs the side `Space` names; a Space that names both sides brings the stale one up to date.
  template <class Space, class... ExecutionSpace>
  void sync(const ExecutionSpace&... exec) {
    static_assert(sizeof...(ExecutionSpace) <= 1, "lapis::DualView::sync: at most one execution space instance");
    if constexpr (side_of<Space>() == detail::NamedSide::device) sync_to(Side::device, exec...);
    else if constexpr (side_of<Space>() == detail::NamedSide::host) sync_to(Side::host, exec...);
    else sync_to(need_sync_host() ? Side::host : Side::device, exec...);
  }

  // Which side `Space` names, as Kokkos::DualView::get_device_side says it: 1 the device, 0 the
  // host, -1 both.
  template <class Space>
  static constexpr int get_device_side() {
    return side_of<Space>() == detail::NamedSide::device ? 1 : side_of<Space>() == detail::NamedSide::host ? 0 : -1;
  }

  bool need_sync_device() const noexcept { return buffer_ && buffer_->need_sync(Side::device); }
  bool need_sync_host() const noexcept { return buffer_ && buffer_->need_sync(Side::host); }
  template <class Space>
  bool need_sync() const noexcept {
    if constexpr (side_of<Space>() == detail::NamedSide::device) return need_sync_device();
    else if constexpr (side_of<Space>() == detail::NamedSide::host) return need_sync_host();
    else return need_sync_device() || need_sync_host();
  }
  // Forgets both sides' modified marks without syncing.
  void clear_sync_state() noexcept {
    if (buffer_) buffer_->clear_sync_state();
  }

  // A new allocation of these extents, zero-filled (or as `properties` say), under this handle
  // only: other handles keep the old one, as other copies of a Kokkos::DualView keep its old views.
  // A subview becomes a whole array of its own.
  template <class... Extents, class = std::enable_if_t<takes_extents<Extents...>>>
  void realloc(Extents... extents) {
    buffer_ = make_owned(label(), alloc_policy::allocate_now, detail::Fill::zeros, extents...);
    part_.reset();
  }
  // `properties`: Kokkos::view_alloc(...) or one property such as Kokkos::WithoutInitializing.
  template <class Property, class... Extents,
            class = std::enable_if_t<!std::is_integral_v<Property> && takes_extents<Extents...>>>
  void realloc(const Property& properties, Extents... extents) {
    const auto& p = detail::view_ctor_prop(properties);
    buffer_ = make_as(p, detail::label_of(p, label()), extents...);
    part_.reset();
  }
  // A new allocation of these extents, under this handle only, holding the old contents where the
  // extents overlap (zeros elsewhere): taken from the device side if that holds the latest data,
  // from the host side otherwise, which the new allocation then marks modified.
  template <class... Extents, class = std::enable_if_t<takes_extents<Extents...>>>
  void resize(Extents... extents) {
    resize_to(label(), detail::Fill::zeros, extents...);
  }
  // With SequentialHostInit, the host side's elements are assigned into the new allocation on the
  // host (after a sync of the host side), as Kokkos::DualView does it.
  template <class Property, class... Extents,
            class = std::enable_if_t<!std::is_integral_v<Property> && takes_extents<Extents...>>>
  void resize(const Property& properties, Extents... extents) {
    const auto& p = detail::view_ctor_prop(properties);
    if constexpr (detail::sequential_host_init_v<std::decay_t<decltype(p)>>)
      resize_on_host(detail::label_of(p, label()), extents...);
    else resize_to(detail::label_of(p, label()), detail::fill_of(p), extents...);
  }

  bool is_allocated() const noexcept { return buffer_ != nullptr; }
  std::string label() const { return buffer_ ? buffer_->label() : std::string(); }
  // Extent r, 1 beyond the rank (as for Kokkos::View), 0 for an empty handle.
  template <class iType>
  std::size_t extent(const iType& r) const noexcept {
    const auto k = static_cast<std::size_t>(r);
    if (k >= rank) return 1;
    if (!buffer_) return 0;
    return target().shape().extents[k];
  }
  template <class iType>
  int extent_int(const iType& r) const noexcept {
    return static_cast<int>(extent(r));
  }
  std::size_t size() const noexcept {
    std::size_t elements = 1;
    for (std::size_t i = 0; i < rank; ++i) elements *= extent(i);
    return elements;
  }
  // Elements spanned by the device side, and whether they are all its own (no gaps).
  std::size_t span() const noexcept {
    if (!buffer_) return 0;
    std::size_t last = 0;
    for (std::size_t i = 0; i < rank; ++i) {
      if (extent(i) == 0) return 0;
      last += (extent(i) - 1) * device_stride(i);
    }
    return last + 1;
  }
  bool span_is_contiguous() const noexcept { return span() == size(); }
  // The device side's strides in elements, then its span at index `rank` (Kokkos::View::stride).
  template <class iType>
  void stride(iType* strides) const {
    for (std::size_t i = 0; i < rank; ++i) strides[i] = buffer_ ? static_cast<iType>(device_stride(i)) : 0;
    strides[rank] = static_cast<iType>(span());
  }

  bool host_allocated() const noexcept { return buffer_ && buffer_->allocated(Side::host); }
  bool device_allocated() const noexcept { return buffer_ && buffer_->allocated(Side::device); }
  bool aliased() const noexcept { return buffer_ && buffer_->aliased(); }
  TransferStats transfers() const noexcept { return buffer_ ? buffer_->transfers() : TransferStats{}; }

  // The type-erased buffer, for code that must not depend on DataType (e.g. bindings): for a
  // subview, the BufferPart it is (a Python slice's kind of buffer), which shares the whole
  // allocation's state; null for an empty handle.
  std::shared_ptr<AnyDualBuffer> buffer() const noexcept {
    if (part_) return part_;
    return buffer_;
  }

 private:
  template <class, class...>
  friend class DualView;
  friend struct detail::LaunchViews;

  // What this handle sees: the whole buffer, or the part of it that a subview is.
  AnyDualBuffer& target() const noexcept {
    if (part_) return *part_;
    return *buffer_;
  }

  // The device side's stride along dimension i, in elements.
  std::size_t device_stride(std::size_t i) const noexcept {
    return static_cast<std::size_t>(target().strides(Side::device)[i]) / sizeof(non_const_value_type);
  }

  using adoption = detail::Adoption<t_dev>;

  template <class Space>
  static constexpr detail::NamedSide side_of() {
    return detail::side_named_by<Space, device, device_type, host_mirror_space>();
  }

  template <class... Extents>
  static std::shared_ptr<buffer_type> make_owned(const std::string& label, AllocateNow now, detail::Fill fill,
                                                 Extents... extents) {
    static_assert(elements_are_bytes,
                  "lapis::DualView: elements that are not trivially copyable (Kokkos Views, types "
                  "holding Views) are allocated with Kokkos::view_alloc(..., "
                  "Kokkos::SequentialHostInit) only, as Kokkos::DualView allows them");
    static_assert(!alloc_policy::borrows, "lapis::DualView: a Borrowed DualView is made from a host view");
    static_assert(!std::is_same_v<layout, Kokkos::LayoutStride>,
                  "lapis::DualView: a LayoutStride DualView is a subview; allocate LayoutRight or LayoutLeft");
    return std::make_shared<buffer_type>(label, adoption::shape_of(adoption::extents_of(extents...)), order,
                                         sides_alias<device>(), now, fill);
  }

  // The allocation `properties` ask for (make_owned, or make_host_initialized under SequentialHostInit).
  template <class ViewCtorProp, class... Extents>
  static std::shared_ptr<buffer_type> make_as(const ViewCtorProp& properties, const std::string& label,
                                              Extents... extents) {
    if constexpr (detail::sequential_host_init_v<ViewCtorProp>)
      return make_host_initialized(label, [](const t_host&) {}, extents...);
    else return make_owned(label, alloc_policy::allocate_now, detail::fill_of(properties), extents...);
  }

  // As Kokkos::DualView allocates under SequentialHostInit: the host side's elements constructed on
  // the host one by one (Kokkos::View's SequentialHostInit, which destroys them so too), then
  // `fill(host)`, then the device side made a copy of the host side's bytes (as
  // create_mirror_view_and_copy makes it: nothing constructed or destroyed there) or, where the
  // sides are one memory, the host side itself. Both sides start current; syncs copy bytes, as
  // Kokkos's do.
#if LAPIS_HAS_SEQUENTIAL_HOST_INIT
  template <class Fill, class... Extents>
  static std::shared_ptr<buffer_type> make_host_initialized(const std::string& label, const Fill& fill,
                                                            Extents... extents) {
    static_assert(!alloc_policy::borrows, "lapis::DualView: a Borrowed DualView is made from a host view");
    const RuntimeUse use;
    t_host host_side;
    t_dev device_side;
    {
      const ExecutionGuard guard;
      host_side = t_host(Kokkos::view_alloc(label, Kokkos::SequentialHostInit), static_cast<std::size_t>(extents)...);
      fill(host_side);
      if (sides_alias<device>()) {
        if constexpr (std::is_same_v<memory_space, host_memory_space>) device_side = host_side;
        else device_side = t_dev(host_side.data(), host_side.layout());
      } else {
        device_side =
            t_dev(Kokkos::view_alloc(label, Kokkos::WithoutInitializing), static_cast<std::size_t>(extents)...);
        Kokkos::deep_copy(device_side, host_side);
      }
    }
    return holding(device_side, host_side, label);
  }
#endif

  // A buffer over two existing views of one shape, which it holds (see the two-view constructor).
  static std::shared_ptr<buffer_type> holding(const t_dev& device_view, const t_host& host_view,
                                              const std::string& label) {
    static_assert(!alloc_policy::borrows, "lapis::DualView: an alloc::Borrowed DualView is made from a host view");
    static_assert(!std::is_same_v<array_layout, Kokkos::LayoutStride>,
                  "lapis::DualView: the sides are contiguous; take them as LayoutRight or LayoutLeft views");
    std::array<std::size_t, rank> extents{};
    for (std::size_t i = 0; i < rank; ++i) {
      extents[i] = device_view.extent(i);
      if (host_view.extent(i) != extents[i])
        throw std::invalid_argument("lapis::DualView: the device and host views differ in extent " + std::to_string(i));
    }
    if (!device_view.span_is_contiguous() || !host_view.span_is_contiguous())
      throw std::invalid_argument("lapis::DualView: the device and host views must be contiguous (unpadded)");
    const auto address = [](const auto& view) { return const_cast<non_const_value_type*>(view.data()); };
    return std::make_shared<buffer_type>(borrow_both, label, adoption::shape_of(extents), address(host_view),
                                         address(device_view), order, sides_alias<device>(),
                                         std::make_shared<std::pair<t_dev, t_host>>(device_view, host_view));
  }

  void modify(Side side) {
    if (!buffer_) return;
    buffer_->modify(side);
    sync_policy::after_modify(*buffer_, side);
  }

  // A sync call names its copy (core/transfer_guard.hpp). A subview's sync is the whole buffer's.
  template <class... ExecutionSpace>
  void sync_to(Side side, const ExecutionSpace&... exec) {
    if (buffer_) buffer_->access_on(side, Access::sync, Intent::named, AddressUse::call, exec...);
  }

  static Access checked(Access access) {
    if (access == Access::sync || access == Access::mark)
      throw std::invalid_argument(
          "lapis::DualView: view_host / view_device take Access::read, write, overwrite or "
          "address (sync_*() and modify_*() sync and mark without a view)");
    return access;
  }

  void refuse_ambiguous_mark() const {
    if (buffer_ && !buffer_->aliased())
      throw std::logic_error("lapis::DualView \"" + label() +
                             "\": modify<Space>() with a Space that names both sides marks nothing, but the sides "
                             "are apart (the simulated device): call modify_host() or modify_device()");
  }

  // Tracked: the view holds the buffer, and its holder may write through it at any time (views
  // handed out). Untracked: the caller holds this DualView for as long as it uses the view, which is
  // for work queued before the call that took it returns (a kernel launch: detail::LaunchViews).
  enum class Tracking { tracked, untracked };

  // The one way a view is made: `access` to `side` (reads with the sync policy's intent).
  template <class ViewType, Tracking tracking = Tracking::tracked>
  ViewType view_of(Side side, Access access) const {
    if (!buffer_) return ViewType();
    if (side == Side::host) adoption::require_addressable(target(), side);
    const RuntimeUse use;
    const Intent intent = access == Access::address ? Intent::implicit : sync_policy::read_intent;
    const AddressUse kept = tracking == Tracking::tracked ? AddressUse::kept : AddressUse::call;
    return side_view<ViewType, tracking>(side, target().access(side, access, intent, kept));
  }

  // Called with the runtime held (RuntimeUse) from taking the address to making the view's record,
  // so that a finalize on another thread never falls in between.
  template <class ViewType, Tracking tracking>
  ViewType side_view(Side side, void* data) const {
    const AnyDualBuffer& seen = target();
    if constexpr (tracking == Tracking::untracked) return make_view<ViewType>(data, seen.shape(), seen.strides(side));
    else return detail::tracked_view<ViewType>(buffer_, seen.label(), data, seen.shape(), seen.strides(side));
  }

  template <class... Extents>
  void resize_to(const std::string& label, detail::Fill fill, Extents... extents) {
    if (!buffer_) {
      buffer_ = make_owned(label, alloc_policy::allocate_now, fill, extents...);
      return;
    }
    const RuntimeUse use;
    const Side from = need_sync_host() || !host_allocated() ? Side::device : Side::host;
    DualView resized;
    resized.buffer_ = make_owned(
        label, alloc_policy::allocate_now | (from == Side::device ? AllocateNow::device : AllocateNow::nothing), fill,
        extents...);
    constexpr auto untracked = Tracking::untracked;  // the copy is done before this returns
    if (from == Side::device)
      detail::copy_overlap(resized.template view_of<t_dev, untracked>(Side::device, Access::overwrite),
                           view_of<t_dev, untracked>(Side::device, Access::address));
    else
      detail::copy_overlap(resized.template view_of<t_host, untracked>(Side::host, Access::overwrite),
                           view_of<t_host, untracked>(Side::host, Access::address));
    buffer_ = std::move(resized.buffer_);
    part_.reset();
  }

#if LAPIS_HAS_SEQUENTIAL_HOST_INIT
  // resize under SequentialHostInit: the host side synced, its elements assigned into the new host
  // side on the host.
  template <class... Extents>
  void resize_on_host(const std::string& label, Extents... extents) {
    if (!buffer_) {
      buffer_ = make_host_initialized(label, [](const t_host&) {}, extents...);
      return;
    }
    sync_host();
    const RuntimeUse use;
    const t_host old = view_of<t_host, Tracking::untracked>(Side::host, Access::address);
    buffer_ =
        make_host_initialized(label, [&](const t_host& resized) { detail::assign_overlap(resized, old); }, extents...);
    part_.reset();
  }
#endif

  std::shared_ptr<buffer_type> buffer_;  // the whole allocation
  std::shared_ptr<BufferPart> part_;     // the part of it a subview sees; null for the whole
};

// Kokkos::resize / realloc / deep_copy for DualViews: resize(dv, extents...), and with allocation
// properties first, resize(Kokkos::WithoutInitializing, dv, extents...) or
// resize(Kokkos::view_alloc(...), dv, extents...); realloc alike.
#define LAPIS_DUAL_VIEW_FREE_FUNCTION(member)                                                        \
  template <class DataType, class... Properties, class... Arguments>                                 \
  void member(DualView<DataType, Properties...>& dv, const Arguments&... arguments) {                \
    dv.member(arguments...);                                                                         \
  }                                                                                                  \
  template <class Property, class DataType, class... Properties, class... Extents,                   \
            class = std::enable_if_t<!is_dual_view_v<Property>>>                                     \
  void member(const Property& property, DualView<DataType, Properties...>& dv, Extents... extents) { \
    dv.member(property, extents...);                                                                 \
  }
LAPIS_DUAL_VIEW_FREE_FUNCTION(resize)
LAPIS_DUAL_VIEW_FREE_FUNCTION(realloc)
#undef LAPIS_DUAL_VIEW_FREE_FUNCTION

// Kokkos::subview for DualViews: see DualView's subview constructor.
template <class DataType, class... Properties, class... Args>
auto subview(const DualView<DataType, Properties...>& dv, const Args&... args) {
  return typename DualView<DataType, Properties...>::template subview_type<Args...>(dv, args...);
}

namespace detail {
// The device side of a DualView for one kernel launch (lapis::kernels), untracked: the caller holds
// the DualView across the launch, and a queued kernel holds no reference either way (Kokkos copies
// functors with tracking off). That spares a tracking record per argument per call.
// Their writes are the access's own, so lapis keeps seeing every write of the memory
// (AnyDualBuffer::device_version).
struct LaunchViews {
  // `access` to side S.
  template <Side S, class DV>
  static auto view(const DV& dv, Access access) {
    using View = std::conditional_t<S == Side::device, typename DV::t_dev, typename DV::t_host>;
    return dv.template view_of<View, DV::Tracking::untracked>(S, access);
  }
  // An input: the device side read (synced as the DualView's sync policy says), through const
  // elements.
  template <class DV>
  static typename DV::t_dev_const input(const DV& dv) {
    return view<Side::device>(dv, Access::read);
  }
  // An output the kernel overwrites whole.
  template <class DV>
  static typename DV::t_dev output(DV& dv) {
    return view<Side::device>(dv, Access::overwrite);
  }
  // An argument the kernel reads and writes: synced, then marked modified.
  template <class DV>
  static typename DV::t_dev updated(DV& dv) {
    return view<Side::device>(dv, Access::write);
  }
};

template <class Dst, class Src, class... ExecutionSpace>
void deep_copy_dual_views(Dst& dst, const Src& src, const ExecutionSpace&... exec) {
  const RuntimeUse use;
  if (src.need_sync_device()) {
    auto to = LaunchViews::view<Side::host>(dst, Access::overwrite);
    auto from = LaunchViews::view<Side::host>(src, Access::address);
    const ExecutionGuard guard;
    Kokkos::deep_copy(exec..., to, from);
  } else {
    auto to = LaunchViews::view<Side::device>(dst, Access::overwrite);
    auto from = LaunchViews::view<Side::device>(src, Access::address);
    const ExecutionGuard guard;
    Kokkos::deep_copy(exec..., to, from);
  }
}
}  // namespace detail

// Overwrites dst with src's latest data: from src's host side if that holds changes the device side
// lacks, from its device side otherwise, into the same side of dst, which is marked modified (its
// own unsynced changes are discarded, as they are wholly overwritten).
template <class DstData, class... DstProperties, class SrcData, class... SrcProperties>
void deep_copy(DualView<DstData, DstProperties...>& dst, const DualView<SrcData, SrcProperties...>& src) {
  detail::deep_copy_dual_views(dst, src);
}
template <class ExecutionSpace, class DstData, class... DstProperties, class SrcData, class... SrcProperties,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecutionSpace>::value>>
void deep_copy(const ExecutionSpace& exec, DualView<DstData, DstProperties...>& dst,
               const DualView<SrcData, SrcProperties...>& src) {
  detail::deep_copy_dual_views(dst, src, exec);
}

}  // namespace lapis
