// The properties of lapis::DualView<DataType, Properties...>, as Kokkos::DualView takes them, in
// any order: a layout, a device (Kokkos::Device, lapis::SimulatedDevice), an execution space or a
// memory space (either names a device, as for Kokkos::View), memory traits, and lapis's sync and
// allocation policies. Each kind at most once; what is left out takes its default.
#pragma once

#include <Kokkos_Core.hpp>

#include <type_traits>

#include "lapis/alloc_policy.hpp"
#include "lapis/runtime/spaces.hpp"
#include "lapis/sync_policy.hpp"

namespace lapis::detail {

// LayoutStride is a subview's layout (lapis::subview): such a DualView is never allocated by extents.
template <class T>
struct is_layout : std::bool_constant<std::is_same_v<T, Kokkos::LayoutRight> || std::is_same_v<T, Kokkos::LayoutLeft> ||
                                      std::is_same_v<T, Kokkos::LayoutStride>> {};

// A device: a type naming an execution space and a memory space that is neither itself.
template <class T, class = void>
struct is_device : std::false_type {};
template <class T>
struct is_device<T, std::void_t<typename T::execution_space, typename T::memory_space>>
    : std::bool_constant<!Kokkos::is_execution_space<T>::value && !Kokkos::is_memory_space<T>::value &&
                         !Kokkos::is_view<T>::value> {};

template <class T>
struct is_device_property : std::bool_constant<is_device<T>::value || Kokkos::is_execution_space<T>::value ||
                                               Kokkos::is_memory_space<T>::value> {};
template <class T>
struct is_memory_traits : std::bool_constant<Kokkos::is_memory_traits<T>::value> {};
template <class T>
struct is_sync_policy : std::is_base_of<sync::Policy, T> {};
template <class T>
struct is_alloc_policy : std::is_base_of<alloc::Policy, T> {};

// The one property of a kind, or Default when there is none.
template <template <class> class IsKind, class Default, class... Properties>
struct property_of_kind {
  using type = Default;
};
template <template <class> class IsKind, class Default, class First, class... Rest>
struct property_of_kind<IsKind, Default, First, Rest...> {
  using type =
      std::conditional_t<IsKind<First>::value, First, typename property_of_kind<IsKind, Default, Rest...>::type>;
};

template <template <class> class IsKind, class... Properties>
inline constexpr int count_of_kind = (0 + ... + (IsKind<Properties>::value ? 1 : 0));

// An execution space or memory space named as a device: the Kokkos::Device it stands for.
template <class T>
using as_device =
    std::conditional_t<is_device<T>::value, T, Kokkos::Device<typename T::execution_space, typename T::memory_space>>;

template <class... Properties>
struct dual_view_properties {
  static_assert(((is_layout<Properties>::value || is_device_property<Properties>::value ||
                  is_memory_traits<Properties>::value || is_sync_policy<Properties>::value ||
                  is_alloc_policy<Properties>::value) &&
                 ...),
                "lapis::DualView: each property must be a layout (Kokkos::LayoutRight, LayoutLeft or LayoutStride), a "
                "device, execution space or memory space, Kokkos::MemoryTraits, a lapis::sync policy or a lapis::alloc "
                "policy");
  static_assert(count_of_kind<is_layout, Properties...> <= 1, "lapis::DualView: more than one layout");
  static_assert(count_of_kind<is_device_property, Properties...> <= 1, "lapis::DualView: more than one device");
  static_assert(count_of_kind<is_memory_traits, Properties...> <= 1, "lapis::DualView: more than one MemoryTraits");
  static_assert(count_of_kind<is_sync_policy, Properties...> <= 1, "lapis::DualView: more than one sync policy");
  static_assert(count_of_kind<is_alloc_policy, Properties...> <= 1, "lapis::DualView: more than one alloc policy");

  using layout = typename property_of_kind<is_layout, Kokkos::LayoutRight, Properties...>::type;
  using device = as_device<typename property_of_kind<is_device_property, DefaultDevice, Properties...>::type>;
  using memory_traits = typename property_of_kind<is_memory_traits, Kokkos::MemoryTraits<0>, Properties...>::type;
  using sync_policy = typename property_of_kind<is_sync_policy, sync::Lazy, Properties...>::type;
  using alloc_policy = typename property_of_kind<is_alloc_policy, alloc::Mirrored, Properties...>::type;
};

}  // namespace lapis::detail
