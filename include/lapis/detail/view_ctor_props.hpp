// What a DualView's allocating constructor and realloc read from Kokkos's allocation properties
// (Kokkos::view_alloc(...), or one property alone): its label, whether it is zero-filled, and
// whether its elements are constructed one by one on the host (SequentialHostInit, Kokkos 4.5 on).
// Kokkos::Impl::ViewCtorProp is how Kokkos's own View constructors take them.
#pragma once

#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>

#include "lapis/detail/allocation.hpp"

// Kokkos::SequentialHostInit is Kokkos 4.5's.
#if KOKKOS_VERSION >= 40500
#define LAPIS_HAS_SEQUENTIAL_HOST_INIT 1
#else
#define LAPIS_HAS_SEQUENTIAL_HOST_INIT 0
#endif

namespace lapis::detail {

template <class... P>
const Kokkos::Impl::ViewCtorProp<P...>& view_ctor_prop(const Kokkos::Impl::ViewCtorProp<P...>& properties) {
  return properties;
}
template <class Property>
auto view_ctor_prop(const Property& property) {
  return Kokkos::view_alloc(property);
}

template <class... P>
std::string label_of(const Kokkos::Impl::ViewCtorProp<P...>& properties, const std::string& otherwise) {
  if constexpr (Kokkos::Impl::ViewCtorProp<P...>::has_label)
    return static_cast<const Kokkos::Impl::ViewCtorProp<void, std::string>&>(properties).value;
  else return otherwise;
}

template <class... P>
constexpr Fill fill_of(const Kokkos::Impl::ViewCtorProp<P...>&) {
  return Kokkos::Impl::ViewCtorProp<P...>::initialize ? Fill::zeros : Fill::none;
}

template <class Properties, class = void>
struct sequential_host_init : std::false_type {};
template <class Properties>
struct sequential_host_init<Properties, std::void_t<decltype(Properties::sequential_host_init)>>
    : std::bool_constant<Properties::sequential_host_init> {};
// Kokkos::view_alloc(..., Kokkos::SequentialHostInit) (false where Kokkos has no such property).
template <class Properties>
inline constexpr bool sequential_host_init_v = sequential_host_init<Properties>::value;

}  // namespace lapis::detail
