// The elementwise arithmetic operations (arithmetic.hpp), named without Kokkos so that bindings
// can choose one.
#pragma once

namespace lapis::kernels {

// Each operation once: its enumerator, its name and its DualView function (arithmetic.hpp) are made
// from the list.
#define LAPIS_OPERATIONS(X) X(add) X(subtract) X(multiply) X(divide) X(maximum)

#define LAPIS_OPERATION_ENUMERATOR(operation) operation,
enum class Operation { LAPIS_OPERATIONS(LAPIS_OPERATION_ENUMERATOR) };
#undef LAPIS_OPERATION_ENUMERATOR

constexpr const char* name(Operation op) noexcept {
#define LAPIS_OPERATION_NAME(operation) \
  if (op == Operation::operation) return #operation;
  LAPIS_OPERATIONS(LAPIS_OPERATION_NAME)
#undef LAPIS_OPERATION_NAME
  return "";  // not an Operation
}

}  // namespace lapis::kernels
