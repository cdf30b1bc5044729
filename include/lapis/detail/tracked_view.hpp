// A typed Kokkos::View of one side of a buffer that keeps the buffer alive, as a view handed out by
// Kokkos::DualView keeps its allocation alive. Kokkos has no public way to give a view an owner of
// one's own, so this uses the mechanism Kokkos's own view-like containers are built on: an
// allocation record, here one whose only job is to hold a reference to the buffer. Its count is
// Kokkos's, so the rule is Kokkos's too: drop such views before Kokkos is finalized.
#pragma once

#include <Kokkos_Core.hpp>

#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "lapis/core/any_dual_buffer.hpp"
#include "lapis/detail/make_view.hpp"

namespace lapis::detail {

class BufferRecord final : public Kokkos::Impl::SharedAllocationRecord<void, void> {
  using base = Kokkos::Impl::SharedAllocationRecord<void, void>;

 public:
  static base* make(std::shared_ptr<AnyDualBuffer> owner, const std::string& label) {
    return new BufferRecord(std::move(owner), label);
  }
  std::string get_label() const override { return label_; }

 private:
  BufferRecord(std::shared_ptr<AnyDualBuffer> owner, const std::string& label)
      : base(
#if defined(KOKKOS_ENABLE_DEBUG)
            &debug_root(),
#endif
            &header_, sizeof(header_), &destroy
#if KOKKOS_VERSION >= 30600
            ,
            label
#endif
            ),
        owner_(std::move(owner)),
        label_(label) {
  }
  static void destroy(base* record) { delete static_cast<BufferRecord*>(record); }
#if defined(KOKKOS_ENABLE_DEBUG)
  static base& debug_root() {  // Kokkos's debug builds keep records in a list
    static base root;
    return root;
  }
#endif

  Kokkos::Impl::SharedAllocationHeader header_{};  // required by the base, never read
  std::shared_ptr<AnyDualBuffer> owner_;
  std::string label_;
};

// Kokkos 4.6's mdspan-based views carry the tracker in their data handle; older views take it beside
// their mapping.
template <class ViewType, class = void>
struct tracker_in_handle : std::false_type {};
template <class ViewType>
struct tracker_in_handle<ViewType, std::void_t<typename ViewType::data_handle_type>>
    : std::is_constructible<typename ViewType::data_handle_type, const Kokkos::Impl::SharedAllocationTracker&,
                            typename ViewType::pointer_type> {};

// A view of type ViewType over `data` (laid out as make_view describes) that holds `owner`.
template <class ViewType>
ViewType tracked_view(const std::shared_ptr<AnyDualBuffer>& owner, const std::string& label, void* data,
                      const Shape& shape, const Strides& strides) {
  ViewType untracked = make_view<ViewType>(data, shape, strides);
  if constexpr (ViewType::memory_traits::is_unmanaged) {
    return untracked;
  } else {
    Kokkos::Impl::SharedAllocationTracker tracker;
    tracker.assign_allocated_record_to_uninitialized(BufferRecord::make(owner, label));
    if constexpr (tracker_in_handle<ViewType>::value)
      return ViewType(typename ViewType::data_handle_type(tracker, untracked.data()), untracked.layout());
    else return ViewType(tracker, untracked.impl_map());
  }
}

}  // namespace lapis::detail
