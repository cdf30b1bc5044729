// What lapis.kernels hands the kernels of include/lapis/kernels: type-erased buffers, operands and
// shapes. Kokkos-free, like bridge.hpp. The entry points themselves (kernel_entries.hpp) are
// generated from schema/kernels.py: one per kernel, instantiated once per element type (and index
// type), and a *_shape function giving its result's shape (to allocate it) or throwing
// std::invalid_argument naming the argument; a wrong rank is refused the same way. Each takes the
// element type of its floating-point arrays (float32 or float64) and, for sparse kernels, of the
// matrix's indices (int32 or int64), which say which instantiation runs; the caller checks that the
// arrays have them, and any other type is an ElementTypeError.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "lapis/core/any_dual_buffer.hpp"
#include "lapis/core/element_type.hpp"

namespace lapis::python {

using Buffer = std::shared_ptr<AnyDualBuffer>;
using ShapeList = std::vector<std::int64_t>;

// An operand of an elementwise kernel (lapis::kernels::Argument without its element type): an array
// or a rank-0 DualView (`buffer`), or a Python number (`buffer` empty), converted to the kernel's
// element type.
struct OperandArg {
  Buffer buffer;
  double value = 0;
};

}  // namespace lapis::python
