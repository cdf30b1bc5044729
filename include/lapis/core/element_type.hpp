// The element type of a DualView's data, known to the type-erased core so that typed code adopting
// a buffer (dualview.hpp) and bindings handing it to Python agree on what the bytes are, and the one
// table of what each element type is (element_types). Kokkos-free; Kokkos's own element types
// (half_t, Kokkos::complex) are mapped in dualview.hpp.
#pragma once

#include <complex>
#include <cstdint>
#include <type_traits>

namespace lapis {

// Every element type lapis knows, one row each, from which every map of element types is made:
// this header's enum and table, the conversions (detail/convert.hpp) and MPI's datatypes
// (lapis/mpi.hpp); adding one (bfloat16, say) is one row. Columns: the enumerator; the C++ type
// that lapis converts and computes in (void: none); numpy's name; bytes; numpy's kind ('b' bool,
// 'i' signed, 'u' unsigned, 'f' float, 'c' complex); DLPack's DLDataTypeCode (0 int, 1 uint,
// 2 float, 5 complex, 6 bool); the PEP 3118 (buffer protocol) format; MPI's datatype, only read
// where mpi.h is (MPI_BYTE: counted in bytes). `opaque`: raw bytes, as in internal staging
// buffers; typed code never adopts such a buffer.
#define LAPIS_ELEMENT_TYPES(ROW)                                                         \
  ROW(opaque, void, "opaque", 1, 'V', 255, "B", MPI_BYTE)                                \
  ROW(boolean, bool, "bool", 1, 'b', 6, "?", MPI_BYTE)                                   \
  ROW(int8, std::int8_t, "int8", 1, 'i', 0, "b", MPI_BYTE)                               \
  ROW(int16, std::int16_t, "int16", 2, 'i', 0, "h", MPI_BYTE)                            \
  ROW(int32, std::int32_t, "int32", 4, 'i', 0, "i", MPI_INT32_T)                         \
  ROW(int64, std::int64_t, "int64", 8, 'i', 0, "q", MPI_INT64_T)                         \
  ROW(uint8, std::uint8_t, "uint8", 1, 'u', 1, "B", MPI_BYTE)                            \
  ROW(uint16, std::uint16_t, "uint16", 2, 'u', 1, "H", MPI_BYTE)                         \
  ROW(uint32, std::uint32_t, "uint32", 4, 'u', 1, "I", MPI_UINT32_T)                     \
  ROW(uint64, std::uint64_t, "uint64", 8, 'u', 1, "Q", MPI_UINT64_T)                     \
  ROW(float16, void, "float16", 2, 'f', 2, "e", MPI_BYTE)                                \
  ROW(float32, float, "float32", 4, 'f', 2, "f", MPI_FLOAT)                              \
  ROW(float64, double, "float64", 8, 'f', 2, "d", MPI_DOUBLE)                            \
  ROW(complex64, std::complex<float>, "complex64", 8, 'c', 5, "Zf", MPI_C_FLOAT_COMPLEX) \
  ROW(complex128, std::complex<double>, "complex128", 16, 'c', 5, "Zd", MPI_C_DOUBLE_COMPLEX)

#define LAPIS_ELEMENT_TYPE_ENUMERATOR(type, ...) type,
enum class ElementType : std::uint8_t { LAPIS_ELEMENT_TYPES(LAPIS_ELEMENT_TYPE_ENUMERATOR) };
#undef LAPIS_ELEMENT_TYPE_ENUMERATOR

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

// What an element type is, for code that reads a table (lapis._core, DLPack, the buffer protocol).
struct ElementTypeInfo {
  ElementType type;
  const char* name;          // numpy's name ("float64", "bool")
  std::uint8_t itemsize;     // bytes
  char kind;                 // numpy's kind: 'b' bool, 'i' signed, 'u' unsigned, 'f' float, 'c' complex
  std::uint8_t dlpack_code;  // DLPack's DLDataTypeCode: 0 int, 1 uint, 2 float, 5 complex, 6 bool
  const char* format;        // the PEP 3118 (buffer protocol) format
};

// Indexed by ElementType.
#define LAPIS_ELEMENT_TYPE_INFO(type, cpp, name, itemsize, kind, dlpack, format, mpi) \
  {ElementType::type, name, itemsize, kind, dlpack, format},
inline constexpr ElementTypeInfo element_types[] = {LAPIS_ELEMENT_TYPES(LAPIS_ELEMENT_TYPE_INFO)};
#undef LAPIS_ELEMENT_TYPE_INFO
inline constexpr int element_type_count = sizeof(element_types) / sizeof(element_types[0]);

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
