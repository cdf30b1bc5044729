// What lapis/nanobind.hpp and lapis/pybind11.hpp share, written once over lapis's Python C API
// (python_api.hpp, the only way in): taking a Python argument as a typed lapis::DualView or as the
// untyped buffer, handing one back, the name a signature gives each, and which C++ exceptions
// become lapis's Python exceptions. Each header adds only its library's caster and registration.
// Kokkos-free: a module that only passes untyped buffers on compiles without Kokkos.
#pragma once

#include "lapis/interop/python_api.hpp"  // first: it includes Python.h

#include <cstddef>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

#include "lapis/core/any_dual_buffer.hpp"
#include "lapis/core/dual_view_fwd.hpp"
#include "lapis/core/element_type.hpp"
#include "lapis/core/errors.hpp"

#if LAPIS_C_API_TARGET_VERSION < 2
#error "lapis's nanobind and pybind11 support uses lapis's C API feature version 2 (asdualview, set_error)"
#endif

namespace lapis {

namespace python_binding {

using Buffer = std::shared_ptr<AnyDualBuffer>;

// A signature's name for the type, as a character array (both libraries build their signature text
// from one): "lapis.DualView[float64, ndim=1]" for a typed DualView, so that the TypeError of a call
// that no overload takes says which element type and rank the function wants; "lapis.DualView" for
// the untyped buffer.
template <std::size_t N>
struct Text {
  char text[N + 1]{};
};

template <std::size_t N, class... Parts>
constexpr Text<N> join(Parts... parts) {
  Text<N> joined{};
  std::size_t at = 0;
  for (std::string_view part : {std::string_view(parts)...})
    for (char c : part) joined.text[at++] = c;
  return joined;
}

template <class Value>
constexpr auto signature_text() {
  constexpr std::string_view type = "lapis.DualView";
  if constexpr (is_dual_view_v<Value>) {
    constexpr std::string_view element = name(element_type_v<typename Value::non_const_value_type>);
    static_assert(Value::rank < 10, "a rank is one digit (lapis::max_rank is 8)");
    constexpr std::string_view rank = std::string_view("0123456789").substr(Value::rank, 1);
    constexpr std::string_view open = "[", middle = ", ndim=", close = "]";
    return join<type.size() + open.size() + element.size() + middle.size() + rank.size() + close.size()>(
        type, open, element, middle, rank, close);
  } else {
    return join<type.size()>(type);
  }
}

template <class Value>
inline constexpr auto signature = signature_text<Value>();

// What became of a Python argument offered for a parameter of type Value.
enum class Taken {
  value,     // converted
  mismatch,  // not an array of Value's element type and rank (nor an array at all): the caster
             // declines, so another overload may take it, or the call raises TypeError listing the
             // signatures; no Python exception is set
  error,     // a Python exception is set, one a mismatch does not explain (lapis.RuntimeFinalizedError
             // after lapis.finalize(); ValueError for strides or memory spaces Value cannot address,
             // as lapis says it): the call raises it
};

// A failed asdualview / from_python: its TypeError means "no array lapis takes", a mismatch.
inline Taken declined_or_failed() noexcept {
  if (!PyErr_ExceptionMatches(PyExc_TypeError)) return Taken::error;
  PyErr_Clear();
  return Taken::mismatch;
}

// Converts `obj` (a lapis.DualView or anything lapis.asdualview takes: a numpy array it borrows, a
// device array through DLPack) into `value` (a typed lapis::DualView or the untyped Buffer), copying
// nothing. On success `lender` is a new reference to the lapis.DualView behind `value`. The caster
// holds it until the call returns: for a numpy argument it is the DualView that keeps the array
// alive, and when it goes (the buffer's last handle with it) the device side's changes are written
// back into the array.
template <class Value>
Taken take(PyObject* obj, Value& value, PyObject*& lender) noexcept {
  PyObject* dv = python_api::asdualview(obj);
  if (dv == nullptr) return declined_or_failed();
  Buffer buffer = python_api::from_python(dv);
  if (!buffer) {
    Py_DECREF(dv);
    return declined_or_failed();
  }
  if constexpr (is_dual_view_v<Value>) {
    // Checked here, where the typed adoption would throw ElementTypeError (element type) and
    // std::invalid_argument (rank): both are the argument's type, not its value.
    const Shape& shape = buffer->shape();
    if (shape.rank != Value::rank || shape.element != element_type_v<typename Value::non_const_value_type>) {
      Py_DECREF(dv);
      return Taken::mismatch;
    }
    try {
      value = Value(buffer);
    } catch (...) {
      Py_DECREF(dv);
      python_api::set_error_from_current_exception();
      return Taken::error;
    }
  } else {
    value = std::move(buffer);
  }
  lender = dv;
  return Taken::value;
}

// A new reference to a lapis.DualView sharing `value`'s buffer (resident: nothing is copied), None
// for an empty handle, or NULL with a Python exception set.
template <class Value>
PyObject* give(const Value& value) noexcept {
  try {
    Buffer buffer;
    if constexpr (is_dual_view_v<Value>) buffer = value.buffer();
    else buffer = value;
    if (!buffer) Py_RETURN_NONE;
    return python_api::to_python(buffer);
  } catch (...) {
    return python_api::set_error_from_current_exception();
  }
}

// For a library's exception translator: raises lapis's Python exception for `error` when it is one
// of lapis's own exception types (lapis.RuntimeFinalizedError, lapis.TransferGuardError,
// lapis.ReadOnlyError, TypeError for ElementTypeError, ...), as lapis's own functions raise it, and
// rethrows anything else. A standard exception (std::invalid_argument, std::out_of_range,
// std::bad_alloc, std::runtime_error) becomes the same Python exception through the library's own
// translation (ValueError, IndexError, MemoryError, RuntimeError), after any translator the module
// registered for exception types of its own, which a catch-all here would shadow.
inline void translate(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (...) {
    std::string message;
    switch (classify_current_exception(message)) {
      case ErrorKind::runtime:
      case ErrorKind::value:
      case ErrorKind::index:
      case ErrorKind::memory: throw;
      default: python_api::set_error_from_current_exception();
    }
  }
}

// import_lapis for the module `module`, named in the ImportError: 0, or -1 with a Python exception set.
inline int import_lapis_for(PyObject* module) {
  const char* name = PyModule_GetName(module);
  return name == nullptr ? -1 : python_api::import_lapis(name);
}

}  // namespace python_binding
}  // namespace lapis
