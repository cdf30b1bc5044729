// What a DualView's allocating constructor and realloc read from Kokkos's allocation properties
// (Kokkos::view_alloc(...), or one property alone): its label and whether it is zero-filled.
// Kokkos::Impl::ViewCtorProp is how Kokkos's own View constructors take them.
#pragma once

#include <Kokkos_Core.hpp>

#include <string>

#include "lapis/detail/allocation.hpp"

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
  else
    return otherwise;
}

template <class... P>
constexpr Fill fill_of(const Kokkos::Impl::ViewCtorProp<P...>&) {
  return Kokkos::Impl::ViewCtorProp<P...>::initialize ? Fill::zeros : Fill::none;
}

}  // namespace lapis::detail
