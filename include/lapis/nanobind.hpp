// lapis DualViews in nanobind bindings. With this header included,
// - a parameter of a typed lapis::DualView<T*, Layout, Device, ...> takes a lapis.DualView or anything
//   lapis.asdualview takes (numpy arrays, borrowed; CuPy arrays and PyTorch tensors through DLPack),
//   copying nothing; one of another element type or rank is not taken (another overload may be, or
//   the call raises TypeError listing the signatures); std::shared_ptr<lapis::AnyDualBuffer> takes
//   the same, untyped;
// - either, returned, becomes a lapis.DualView sharing the buffer, left where it is (an empty handle
//   becomes None);
// - lapis::nanobind::init(m), called first in NB_MODULE, imports lapis and makes lapis's C++
//   exceptions lapis's Python ones.
// A DualView made for a numpy argument lends the array's memory for the call: the array holds the
// device side's changes when the call returns. Keep or return beyond the call only DualViews the
// function made, or ones it was given as lapis.DualViews.
// The logic is lapis/interop/python_binding.hpp's, shared with lapis/pybind11.hpp.
#pragma once

#include "lapis/interop/python_binding.hpp"  // first: it includes Python.h

#include <nanobind/nanobind.h>

#include <cstdint>
#include <exception>
#include <utility>

// NB_NAMESPACE: nanobind's namespace with its (hidden) symbol visibility.
namespace NB_NAMESPACE {
namespace detail {

template <class Value>
struct lapis_caster {
  static constexpr auto Name = const_name(lapis::python_binding::signature<Value>.text);
  template <class T>
  using Cast = movable_cast_t<T>;
  template <class T>
  static constexpr bool can_cast() {
    return true;
  }

  bool from_python(handle src, std::uint32_t, cleanup_list*) noexcept {
    PyObject* lender = nullptr;
    switch (lapis::python_binding::take(src.ptr(), value_, lender)) {
      case lapis::python_binding::Taken::mismatch: return false;
      case lapis::python_binding::Taken::error:
        // from_python may not throw: the error is raised when the call reads the argument.
        error_ = std::make_exception_ptr(python_error());
        return true;
      case lapis::python_binding::Taken::value: break;
    }
    lender_ = steal(lender);
    return true;
  }

  static handle from_cpp(const Value& value, rv_policy, cleanup_list*) noexcept {
    return lapis::python_binding::give(value);
  }
  static handle from_cpp(const Value* value, rv_policy policy, cleanup_list* cleanup) noexcept {
    return value == nullptr ? none().release() : from_cpp(*value, policy, cleanup);
  }

  explicit operator Value*() { return &taken(); }
  explicit operator Value&() { return taken(); }
  explicit operator Value&&() { return std::move(taken()); }

 private:
  Value& taken() {
    if (error_) std::rethrow_exception(error_);
    return value_;
  }

  object lender_;  // lives as long as the caster: the whole call
  Value value_;
  std::exception_ptr error_;
};

template <class DataType, class... Properties>
struct type_caster<lapis::DualView<DataType, Properties...>> : lapis_caster<lapis::DualView<DataType, Properties...>> {
};

template <>
struct type_caster<lapis::python_binding::Buffer> : lapis_caster<lapis::python_binding::Buffer> {};

}  // namespace detail
}  // namespace NB_NAMESPACE

namespace lapis::nanobind {

// Call first in NB_MODULE. Raises ImportError unless this module was built against the running lapis
// and its Kokkos. lapis's exceptions then reach Python as lapis's own functions raise them, from
// every nanobind module of the process (nanobind's translators are not per module); the translator
// passes on every other exception.
inline void init(::nanobind::module_& m) {
  if (python_binding::import_lapis_for(m.ptr()) < 0) throw ::nanobind::python_error();
  ::nanobind::register_exception_translator(
      [](const std::exception_ptr& error, void*) { python_binding::translate(error); });
}

}  // namespace lapis::nanobind
