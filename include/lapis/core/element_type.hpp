// The element type of a DualView's data, known to the type-erased core so that typed code adopting
// a buffer (dualview.hpp) and bindings handing it to Python agree on what the bytes are. Kokkos-free;
// Kokkos's own element types (half_t, Kokkos::complex) are mapped in dualview.hpp.
#pragma once

#include <complex>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace lapis {

// `opaque`: raw bytes, as in internal staging buffers; typed code never adopts such a buffer.
enum class ElementType : std::uint8_t {
  opaque, boolean, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
  float16, float32, float64, complex64, complex128,
};

template <class T, class = void>
struct element_type_of : std::integral_constant<ElementType, ElementType::opaque> {};

template <>
struct element_type_of<bool> : std::integral_constant<ElementType, ElementType::boolean> {};
template <class T>
struct element_type_of<T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>>
    : std::integral_constant<ElementType,
                             sizeof(T) == 1   ? (std::is_signed_v<T> ? ElementType::int8 : ElementType::uint8)
                             : sizeof(T) == 2 ? (std::is_signed_v<T> ? ElementType::int16 : ElementType::uint16)
                             : sizeof(T) == 4 ? (std::is_signed_v<T> ? ElementType::int32 : ElementType::uint32)
                             : sizeof(T) == 8 ? (std::is_signed_v<T> ? ElementType::int64 : ElementType::uint64)
                                              : ElementType::opaque> {};
template <>
struct element_type_of<float> : std::integral_constant<ElementType, ElementType::float32> {};
template <>
struct element_type_of<double> : std::integral_constant<ElementType, ElementType::float64> {};
template <>
struct element_type_of<std::complex<float>> : std::integral_constant<ElementType, ElementType::complex64> {};
template <>
struct element_type_of<std::complex<double>> : std::integral_constant<ElementType, ElementType::complex128> {};

namespace detail {
inline constexpr const char* element_names[] = {"opaque", "bool",    "int8",    "int16",     "int32",
                                                "int64",  "uint8",   "uint16",  "uint32",    "uint64",
                                                "float16", "float32", "float64", "complex64", "complex128"};
}  // namespace detail

// numpy's name of the type ("float64", "bool", ...), and back (opaque for any other name).
constexpr const char* name(ElementType type) noexcept { return detail::element_names[static_cast<int>(type)]; }
constexpr ElementType element_type_named(std::string_view name) noexcept {
  for (int i = 1; i <= static_cast<int>(ElementType::complex128); ++i)
    if (name == detail::element_names[i]) return static_cast<ElementType>(i);
  return ElementType::opaque;
}

template <class T>
inline constexpr ElementType element_type_v = element_type_of<std::remove_cv_t<T>>::value;

}  // namespace lapis
