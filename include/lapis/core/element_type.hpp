// The element type of a DualView's data, known to the type-erased core so that typed code adopting
// a buffer (dualview.hpp) and bindings handing it to Python agree on what the bytes are, and the one
// table of what each element type is (element_types). Kokkos-free; Kokkos's own element types
// (half_t, Kokkos::complex) are mapped in dualview.hpp.
#pragma once

#include <complex>
#include <cstdint>
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

// Every fact about an element type that some layer needs, in one table: bindings (lapis._core,
// DLPack, the buffer protocol) read it instead of keeping tables of their own.
struct ElementTypeInfo {
  ElementType type;
  const char* name;          // numpy's name ("float64", "bool")
  std::uint8_t itemsize;     // bytes
  char kind;                 // numpy's kind: 'b' bool, 'i' signed, 'u' unsigned, 'f' float, 'c' complex
  std::uint8_t dlpack_code;  // DLPack's DLDataTypeCode: 0 int, 1 uint, 2 float, 5 complex, 6 bool
  const char* format;        // the PEP 3118 (buffer protocol) format
};

// Indexed by ElementType.
inline constexpr ElementTypeInfo element_types[] = {
    {ElementType::opaque, "opaque", 1, 'V', 255, "B"},
    {ElementType::boolean, "bool", 1, 'b', 6, "?"},
    {ElementType::int8, "int8", 1, 'i', 0, "b"},
    {ElementType::int16, "int16", 2, 'i', 0, "h"},
    {ElementType::int32, "int32", 4, 'i', 0, "i"},
    {ElementType::int64, "int64", 8, 'i', 0, "q"},
    {ElementType::uint8, "uint8", 1, 'u', 1, "B"},
    {ElementType::uint16, "uint16", 2, 'u', 1, "H"},
    {ElementType::uint32, "uint32", 4, 'u', 1, "I"},
    {ElementType::uint64, "uint64", 8, 'u', 1, "Q"},
    {ElementType::float16, "float16", 2, 'f', 2, "e"},
    {ElementType::float32, "float32", 4, 'f', 2, "f"},
    {ElementType::float64, "float64", 8, 'f', 2, "d"},
    {ElementType::complex64, "complex64", 8, 'c', 5, "Zf"},
    {ElementType::complex128, "complex128", 16, 'c', 5, "Zd"},
};
inline constexpr int element_type_count = sizeof(element_types) / sizeof(element_types[0]);
static_assert([] {
  for (int i = 0; i < element_type_count; ++i)
    if (static_cast<int>(element_types[i].type) != i) return false;
  return element_type_count == static_cast<int>(ElementType::complex128) + 1;
}(), "lapis::element_types is indexed by ElementType");

constexpr const ElementTypeInfo& info(ElementType type) noexcept { return element_types[static_cast<int>(type)]; }
constexpr const char* name(ElementType type) noexcept { return info(type).name; }

// The type of DLPack's (code, bits); opaque for any other.
constexpr ElementType element_type_of_dlpack(int code, int bits) noexcept {
  for (int i = 1; i < element_type_count; ++i)
    if (element_types[i].dlpack_code == code && element_types[i].itemsize * 8 == bits) return element_types[i].type;
  return ElementType::opaque;
}

template <class T>
inline constexpr ElementType element_type_v = element_type_of<std::remove_cv_t<T>>::value;

}  // namespace lapis
