// How a typed DualView, whose device side is a View (its element type, rank, static extents and
// layout), meets type-erased buffers: the Shape of an allocation it makes, and the checks before it
// adopts a buffer another handle made (rank, element type, static extents, strides its views can
// address, the buffer's memory spaces).
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <typeinfo>

#include "lapis/core/any_dual_buffer.hpp"
#include "lapis/core/buffer_part.hpp"
#include "lapis/core/element_type.hpp"
#include "lapis/core/errors.hpp"
#include "lapis/core/shape.hpp"
#include "lapis/core/side.hpp"
#include "lapis/detail/make_view.hpp"

namespace lapis::detail {

template <class View>
struct Adoption {
  static constexpr std::size_t rank = static_cast<std::size_t>(View::rank);
  static constexpr std::size_t rank_dynamic = static_cast<std::size_t>(View::rank_dynamic);
  using value_type = typename View::non_const_value_type;

  static Shape shape_of(const std::array<std::size_t, rank>& extents) {
    Shape shape;
    shape.rank = rank;
    shape.itemsize = sizeof(value_type);
    shape.element = element_type_v<value_type>;
    for (std::size_t i = 0; i < rank; ++i) shape.extents[i] = extents[i];
    return shape;
  }

  // Run-time extents fill the dynamic dimensions; all extents must match the static ones.
  template <class... Extents>
  static std::array<std::size_t, rank> extents_of(Extents... given) {
    const std::array<std::size_t, sizeof...(Extents)> values{static_cast<std::size_t>(given)...};
    std::array<std::size_t, rank> extents{};
    for (std::size_t i = 0; i < rank; ++i) {
      const bool dynamic = i < rank_dynamic;
      const std::size_t static_extent = View::static_extent(static_cast<unsigned>(i));
      if (sizeof...(Extents) == rank) {
        extents[i] = values[i];
        if (!dynamic && values[i] != static_extent)
          throw std::invalid_argument("lapis::DualView: extent " + std::to_string(i) + " is " +
                                      std::to_string(static_extent) + " in the type, " + std::to_string(values[i]) +
                                      " given");
      } else {
        extents[i] = dynamic ? values[i] : static_extent;
      }
    }
    return extents;
  }

  // The whole buffer behind `buffer` as a BufferType, or std::invalid_argument (ElementTypeError
  // for its element type) where this type cannot take it.
  template <class BufferType>
  static std::shared_ptr<BufferType> adopt(const std::shared_ptr<AnyDualBuffer>& buffer) {
    if (!buffer) throw std::invalid_argument("lapis::DualView: cannot adopt an empty buffer");
    const Shape& shape = buffer->shape();
    const auto refuse = [](const std::string& why) {
      throw std::invalid_argument("lapis::DualView: cannot adopt " + why);
    };
    if (shape.rank != rank)
      refuse("a buffer of rank " + std::to_string(shape.rank) + " as rank " + std::to_string(rank));
    constexpr ElementType element = element_type_v<value_type>;
    if (shape.element != element || shape.element == ElementType::opaque)
      throw ElementTypeError(std::string("lapis::DualView: cannot adopt a buffer of ") + name(shape.element) +
                             " elements as " + name(element));
    require_static_extents(shape.extents, "a buffer");
    require_addressable(*buffer, Side::device);
    const std::shared_ptr<AnyDualBuffer> whole = whole_of(buffer);
    const AnyDualBuffer& whole_buffer = *whole;
    // BufferType is final: comparing types is exact, and cheaper than a dynamic_cast.
    if (typeid(whole_buffer) != typeid(BufferType))
      refuse(std::string("a buffer in ") + buffer->space_name(Side::device) + " / " + buffer->space_name(Side::host) +
             " as one in " + BufferType::device_memory_space::name() + " / " + BufferType::host_memory_space::name());
    return std::static_pointer_cast<BufferType>(whole);
  }

  // Throws std::invalid_argument unless View's layout can address `side` of `buffer`.
  static void require_addressable(const AnyDualBuffer& buffer, Side side) {
    if (layout_fit<typename View::array_layout, rank>(buffer.shape(), buffer.strides(side)) == LayoutFit::none)
      throw std::invalid_argument(std::string("lapis::DualView \"") + buffer.label() + "\": the " + side_name(side) +
                                  " side has strides this type's views cannot address (take it as a LayoutStride "
                                  "DualView)");
  }

  // Throws std::invalid_argument unless `extents` match View's static ones.
  template <class Extents>
  static void require_static_extents(const Extents& extents, const char* what) {
    for (std::size_t i = rank_dynamic; i < rank; ++i) {
      const std::size_t expected = View::static_extent(static_cast<unsigned>(i));
      if (extents[i] != expected)
        throw std::invalid_argument(std::string("lapis::DualView: cannot adopt ") + what + " whose extent " +
                                    std::to_string(i) + " is " + std::to_string(extents[i]) +
                                    " as a type whose extent is " + std::to_string(expected));
    }
  }
};

}  // namespace lapis::detail
