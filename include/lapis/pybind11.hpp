// lapis DualViews in pybind11 bindings. With this header included,
// - a parameter of a typed lapis::DualView<T*, Layout, Device, ...> takes a lapis.DualView or anything
//   lapis.asdualview takes (numpy arrays, borrowed; CuPy arrays and PyTorch tensors through DLPack),
//   copying nothing; one of another element type or rank is not taken (another overload may be, or
//   the call raises TypeError listing the signatures); std::shared_ptr<lapis::AnyDualBuffer> takes
//   the same, untyped;
// - either, returned, becomes a lapis.DualView sharing the buffer, left where it is (an empty handle
//   becomes None);
// - lapis::pybind11::init(m), called first in PYBIND11_MODULE, imports lapis and makes lapis's C++
//   exceptions lapis's Python ones.
// A DualView made for a numpy argument lends the array's memory for the call: the array holds the
// device side's changes when the call returns. Keep or return beyond the call only DualViews the
// function made, or ones it was given as lapis.DualViews.
// The logic is lapis/interop/python_binding.hpp's, shared with lapis/nanobind.hpp.
#pragma once

#include "lapis/interop/python_binding.hpp"  // first: it includes Python.h

#include <pybind11/pybind11.h>

#include <exception>

// PYBIND11_NAMESPACE: pybind11's namespace with its (hidden) symbol visibility.
namespace PYBIND11_NAMESPACE {
namespace detail {

template <class Value>
class lapis_caster {
 public:
  PYBIND11_TYPE_CASTER(Value, const_name(lapis::python_binding::signature<Value>.text));

  bool load(handle src, bool) {
    PyObject* lender = nullptr;
    switch (lapis::python_binding::take(src.ptr(), value, lender)) {
      case lapis::python_binding::Taken::mismatch: return false;
      case lapis::python_binding::Taken::error: throw error_already_set();  // load may throw: the call raises it
      case lapis::python_binding::Taken::value: break;
    }
    lender_ = reinterpret_steal<object>(lender);
    return true;
  }

  static handle cast(const Value& src, return_value_policy, handle) {
    PyObject* result = lapis::python_binding::give(src);
    if (result == nullptr) throw error_already_set();
    return result;
  }

 private:
  object lender_;  // lives as long as the caster: the whole call
};

template <class DataType, class... Properties>
class type_caster<lapis::DualView<DataType, Properties...>>
    : public lapis_caster<lapis::DualView<DataType, Properties...>> {};

template <>
class type_caster<lapis::python_binding::Buffer> : public lapis_caster<lapis::python_binding::Buffer> {};

}  // namespace detail
}  // namespace PYBIND11_NAMESPACE

namespace lapis::pybind11 {

// Call first in PYBIND11_MODULE. Raises ImportError unless this module was built against the running
// lapis and its Kokkos. lapis's exceptions then reach Python as lapis's own functions raise them,
// from this module's functions: the translator is module-local, since a global one would also
// reach every other pybind11 module of the process. It passes on every other exception.
inline void init(::pybind11::module_& m) {
  if (python_binding::import_lapis_for(m.ptr()) < 0) throw ::pybind11::error_already_set();
  ::pybind11::register_local_exception_translator([](std::exception_ptr error) { python_binding::translate(error); });
}

}  // namespace lapis::pybind11
