// The elementwise arithmetic operations (arithmetic.hpp), named without Kokkos so that bindings
// can choose one.
#pragma once

namespace lapis::kernels {

enum class Operation { add, subtract, multiply, divide, maximum };

constexpr const char* name(Operation op) noexcept {
  switch (op) {
    case Operation::add: return "add";
    case Operation::subtract: return "subtract";
    case Operation::multiply: return "multiply";
    case Operation::divide: return "divide";
    case Operation::maximum: return "maximum";
  }
  return "";  // not an Operation
}

}  // namespace lapis::kernels
