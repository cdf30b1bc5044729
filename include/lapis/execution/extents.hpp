// Kernel arguments' extents, and the checks of them that every caller shares: each kernel states
// its result's extents (or refuses its arguments) once, in its own header, as a function of these;
// the DualView overloads and the Python bindings both call it. Messages name the kernel and the
// argument, and write shapes as Python does, because Python users read them too.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "lapis/core/shape.hpp"

namespace lapis::kernels {

template <std::size_t Rank>
using Extents = std::array<std::int64_t, Rank>;

// The extents of a view or DualView.
template <class View>
Extents<static_cast<std::size_t>(View::rank)> extents_of(const View& v) {
  Extents<static_cast<std::size_t>(View::rank)> extents{};
  for (std::size_t i = 0; i < extents.size(); ++i) extents[i] = static_cast<std::int64_t>(v.extent(i));
  return extents;
}

namespace detail {

using lapis::shape_text;

[[noreturn]] inline void refuse(const char* kernel, const std::string& message) {
  throw std::invalid_argument(std::string(kernel) + ": " + message);
}

// The output `name` must have the result's extents (two arrays, or two vectors, of extents).
template <class Actual, class Result>
void require_result_extents(const char* kernel, const char* name, const Actual& actual, const Result& result) {
  if (!std::equal(actual.begin(), actual.end(), result.begin(), result.end()))
    refuse(kernel,
           std::string(name) + ": shape " + shape_text(actual) + " does not match the result's " + shape_text(result));
}

}  // namespace detail
}  // namespace lapis::kernels
