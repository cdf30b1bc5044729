// How a generated kernel entry point (kernel_entries.cpp, from schema/kernels.py) runs a kernel of
// include/lapis/kernels: each buffer is adopted as a typed lapis::DualView of the rank its argument
// has and the kernel's DualView overload runs, so syncing, overwriting and every check of extents and
// sparse structure are the C++ API's own. Included by kernel_entries.cpp alone.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "kernels_bridge.hpp"
#include "lapis/detail/data_type.hpp"
#include "lapis/dualview.hpp"
#include "lapis/kernels.hpp"
#include "lapis/runtime/graph.hpp"
#include "lapis/runtime/runtime.hpp"
#include "lapis/runtime/spaces.hpp"

namespace lapis::python::entry {

using kernels::Extents;

// Sides may be strided (a borrowed array that the device shares), so the views are LayoutStride.
template <class T, std::size_t Rank>
using Typed = DualView<data_type_t<T, Rank>, Kokkos::LayoutStride, DefaultDevice>;

[[noreturn]] inline void refuse_rank(const char* kernel, const char* name, const std::string& expected,
                                     const Shape& shape) {
  const ShapeList actual(shape.extents.begin(), shape.extents.begin() + shape.rank);
  kernels::detail::refuse(kernel, std::string(name) + ": expected a " + expected + "-dimensional array, got shape " +
                                      kernels::detail::shape_text(actual));
}

// The extents of argument `name`, or std::invalid_argument unless it has rank `Rank`.
template <std::size_t Rank>
Extents<Rank> extents(const char* kernel, const char* name, const AnyDualBuffer& buffer) {
  const Shape& shape = buffer.shape();
  if (shape.rank != Rank) refuse_rank(kernel, name, std::to_string(Rank), shape);
  Extents<Rank> result{};
  for (std::size_t i = 0; i < Rank; ++i) result[i] = static_cast<std::int64_t>(shape.extents[i]);
  return result;
}

template <class T, std::size_t Rank>
Typed<T, Rank> typed(const char* kernel, const char* name, const Buffer& buffer) {
  extents<Rank>(kernel, name, *buffer);
  return Typed<T, Rank>(buffer);
}

// Calls f(std::integral_constant<std::size_t, R>) for the rank R of `buffer`, Lowest (0 or 1) to 4.
template <std::size_t Lowest = 1, class F>
auto with_rank(const char* kernel, const char* name, const AnyDualBuffer& buffer, F&& f) {
  switch (buffer.shape().rank) {
    case 0:
      if constexpr (Lowest == 0) return f(std::integral_constant<std::size_t, 0>{});
      break;
    case 1: return f(std::integral_constant<std::size_t, 1>{});
    case 2: return f(std::integral_constant<std::size_t, 2>{});
    case 3: return f(std::integral_constant<std::size_t, 3>{});
    case 4: return f(std::integral_constant<std::size_t, 4>{});
  }
  refuse_rank(kernel, name, Lowest == 0 ? "0- to 4" : "1- to 4", buffer.shape());
}

// What an array argument holds: values of the type the kernel computes in, or a sparse structure's
// indices.
struct Values {};
struct Indices {};

// A kernel's array argument: its name (for errors), its buffer, its rank and whether the kernel
// writes it (an output, or an argument updated in place).
template <class Of, std::size_t Rank, bool Written>
struct ArrayArg {
  const char* name;
  const Buffer& buffer;
};

template <std::size_t Rank>
ArrayArg<Values, Rank, false> input(const char* name, const Buffer& buffer) {
  return {name, buffer};
}
template <std::size_t Rank>
ArrayArg<Indices, Rank, false> index_input(const char* name, const Buffer& buffer) {
  return {name, buffer};
}
template <std::size_t Rank>
ArrayArg<Values, Rank, true> written(const char* name, const Buffer& buffer) {
  return {name, buffer};
}

// An elementwise operand: an array or rank-0 DualView, or a number.
struct OperandRef {
  const OperandArg& arg;
};
inline OperandRef operand(const OperandArg& arg) { return {arg}; }

// One kernel call from Python, computing in T and indexing in I: takes each argument as the typed
// DualView the kernel takes (its rank checked), and notes whether any is lent by another library.
template <class T, class I>
class PythonCall {
 public:
  explicit PythonCall(const char* kernel) : kernel_(kernel) {}

  template <class Of, std::size_t Rank, bool Written>
  void require_writable_if_written(const ArrayArg<Of, Rank, Written>& arg) const {
    if constexpr (Written) require_writable(*arg.buffer, Side::device, kernel_, arg.name);
  }
  void require_writable_if_written(const OperandRef&) const {}

  // GraphCaptureError unless what the call reads is current on the device: a graph's replay would
  // copy it from the host.
  template <class Of, std::size_t Rank, bool Written>
  void require_resident_if_read(const ArrayArg<Of, Rank, Written>& arg) const {
    if constexpr (!Written) require_resident(arg.name, arg.buffer);
  }
  void require_resident_if_read(const OperandRef& operand) const {
    if (operand.arg.buffer) require_resident("an operand", operand.arg.buffer);
  }

  template <class Of, std::size_t Rank, bool Written>
  auto adopt(const ArrayArg<Of, Rank, Written>& arg) {
    note(arg.buffer);
    using Element = std::conditional_t<std::is_same_v<Of, Indices>, I, T>;
    return typed<std::conditional_t<Written, Element, const Element>, Rank>(kernel_, arg.name, arg.buffer);
  }
  kernels::Argument<T> adopt(const OperandRef& operand) {
    if (operand.arg.buffer) note(operand.arg.buffer);
    return {operand.arg.buffer, static_cast<T>(operand.arg.value)};
  }

  // Whether an argument is memory lent by another library (from_dlpack): see finish().
  bool borrowed() const noexcept { return borrowed_; }

 private:
  void note(const Buffer& buffer) { borrowed_ = borrowed_ || buffer->borrowed(Side::device); }
  void require_resident(const char* name, const Buffer& buffer) const {
    if (buffer->need_sync(Side::device))
      throw GraphCaptureError(std::string(kernel_) + ": " + name +
                              ": its host side holds changes its device side lacks (\"" + buffer->label() +
                              "\"): sync_device() it before the capture, which records no copy");
  }

  const char* kernel_;
  bool borrowed_ = false;
};

// A kernel's call returns once the kernel is queued: whatever lapis does next runs on the same
// execution space instance, after it. Memory lent by another library (from_dlpack) is used on that
// library's own streams as soon as the call returns, so such a call is finished here (where the
// kernel may still run then).
inline void finish(bool borrowed) {
  using ExecutionSpace = DefaultDevice::execution_space;
  if constexpr (!finishes_before_returning<ExecutionSpace>)
    if (borrowed) default_instance<ExecutionSpace>().fence();
}

// Calls kernel(views...) with one typed view per argument, in the order given. An argument the
// kernel writes is refused first when it may not be written, before anything is adopted or synced,
// so that a call that cannot run moves nothing. Every kernel's arguments pass through here, so none
// can forget to finish a call on borrowed memory.
//
// On a thread that records a graph (runtime/graph.hpp) the call is checked the same way and
// recorded, not run: the graph keeps the adopted views, and each replay runs the kernel on them (its
// DualView overload: the syncs, marks and launches of the call). A call whose result comes back to
// the host cannot be recorded.
template <class T, class I, class Kernel, class... Args>
auto run_typed(const char* name, const Kernel& kernel, const Args&... args) {
  PythonCall<T, I> call(name);
  (call.require_writable_if_written(args), ...);
  std::tuple views{call.adopt(args)...};  // braced: adopted (and rank-checked) left to right
  using Result = decltype(std::apply(kernel, views));
  const bool borrowed = call.borrowed();
  if (Graph* graph = recording_graph()) {
    if constexpr (!std::is_void_v<Result>) {
      throw GraphCaptureError(std::string(name) +
                              ": returns its result to the host; inside lapis.graph(), give it an out (a 0-d "
                              "DualView for a reduction)");
    } else {
      (call.require_resident_if_read(args), ...);
      graph->add(name, [kernel, views = std::move(views), borrowed]() mutable {
        std::apply(kernel, views);
        finish(borrowed);
      });
      return;
    }
  }
  if constexpr (std::is_void_v<Result>) {
    std::apply(kernel, views);
    finish(borrowed);
  } else {
    auto result = std::apply(kernel, views);
    finish(borrowed);
    return result;
  }
}

// Every kernel call goes through here: it holds the runtime from the first address it takes to the
// queued kernel, so that a finalize on another thread waits for it.
template <class F>
auto with_type(ElementType type, F&& f) {
  const RuntimeUse use;
  if (type == ElementType::float32) return f(float{});
  if (type != ElementType::float64)
    throw ElementTypeError(std::string("lapis kernels compute in float32 or float64, not ") + name(type));
  return f(double{});
}

// Runs kernel(views...) computing in `type`.
template <class Kernel, class... Args>
auto run_kernel(const char* name, ElementType type, const Kernel& kernel, const Args&... args) {
  return with_type(type, [&](auto t) { return run_typed<decltype(t), void>(name, kernel, args...); });
}

// Runs kernel(views...) computing in `type` over a sparse structure indexed in `index`.
template <class Kernel, class... Args>
auto run_kernel(const char* name, ElementType type, ElementType index, const Kernel& kernel, const Args&... args) {
  return with_type(type, [&](auto t) {
    if (index == ElementType::int32) return run_typed<decltype(t), std::int32_t>(name, kernel, args...);
    if (index != ElementType::int64)
      throw ElementTypeError(std::string("lapis's sparse kernels index in int32 or int64, not ") + lapis::name(index));
    return run_typed<decltype(t), std::int64_t>(name, kernel, args...);
  });
}

// A shape rule's extents as a shape for Python.
template <class Extents>
ShapeList shape_list(const Extents& extents) {
  return ShapeList(extents.begin(), extents.end());
}

// An elementwise operand as a shape rule reads it.
inline kernels::Argument<double> as_argument(const OperandArg& arg) { return {arg.buffer, arg.value}; }

}  // namespace lapis::python::entry
