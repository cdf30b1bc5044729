// lapis's C-level entry point for extensions that are not Cython (pybind11, nanobind, the plain C
// API; Cython extensions cimport lapis and call import_lapis too), in the shape of NumPy's C API:
// the package publishes a capsule, lapis._core._C_API, holding a table of C function pointers.
// The table carries two versions:
// - the ABI version (LAPIS_ABI_VERSION) must equal the module's: it changes when code built against
//   older headers could misread lapis's types (AnyDualBuffer, the DualView extension type);
// - the feature version only grows, one entry group at a time, appended at the end: the running
//   lapis must be at least as new as the entries the module uses. A module uses the entries of
//   LAPIS_C_API_TARGET_VERSION (define it before including this header to run on an older lapis;
//   by default, every entry of this header) and is refused at import by an older lapis.
// Only C types cross the table: Python objects and lapis_buffer_ref handles (core/buffer_ref.hpp).
// import_lapis() fetches the table once per extension (in the extension's module init) and refuses,
// with ImportError, an extension built against another ABI, a newer feature version or another
// Kokkos. The extension links nothing of lapis's Python package. Kokkos-free; needs Python.h.
#pragma once

#include <Python.h>

#include <memory>
#include <string>

#include "lapis/core/buffer_ref.hpp"
#include "lapis/runtime/build_info.hpp"
#include "lapis/core/errors.hpp"

// Entry groups: 1 to_python, from_python, release; 2 asdualview, set_error.
#define LAPIS_C_API_FEATURE_VERSION 2
#ifndef LAPIS_C_API_TARGET_VERSION
#define LAPIS_C_API_TARGET_VERSION LAPIS_C_API_FEATURE_VERSION
#endif

namespace lapis::python_api {

extern "C" {
struct CApi {
  // Never moved: checked before anything else is read.
  int abi_version;
  int feature_version;
  const BuildInfo* build;
  // Feature 1.
  // A new reference to a lapis.DualView sharing `buffer`'s (its dtype from the element type), or
  // NULL with a Python exception set. The reference stays the caller's.
  PyObject* (*to_python)(const lapis_buffer_ref* buffer);
  // A new reference to the buffer behind the lapis.DualView `obj`, or NULL with TypeError set.
  lapis_buffer_ref* (*from_python)(PyObject* obj);
  // Gives back a reference from_python handed out.
  void (*release)(lapis_buffer_ref* buffer);
  // Feature 2.
  // lapis.asdualview(obj): a new reference to a lapis.DualView of obj (itself, a device array through
  // DLPack, anything else borrowed through the buffer protocol), or NULL with an exception set.
  PyObject* (*asdualview)(PyObject* obj);
  // Sets the Python exception that lapis raises for an error of `kind` (errors.hpp: ValueError,
  // lapis.RuntimeFinalizedError, lapis.ReadOnlyError, ...) with `message`.
  void (*set_error)(int kind, const char* message);
};
}

inline constexpr const char* capsule_name = "lapis._core._C_API";

// This extension's pointer to the table (each extension holds its own copy of the pointer, as
// each NumPy extension holds its PyArray_API; the table itself is lapis's one).
inline const CApi*& api() noexcept {
  static const CApi* table = nullptr;
  return table;
}

// Imports lapis and checks that this extension, as compiled, can run with it: 0, or -1 with
// ImportError set (naming both builds) or the import's own error. `extension` names the caller
// in the message.
inline int import_lapis(const char* extension) {
  auto* table = static_cast<const CApi*>(PyCapsule_Import(capsule_name, 0));
  if (table == nullptr) return -1;
  std::string why;
  if (table->abi_version != compiled_build.abi_version)
    why = "built against lapis ABI " + std::to_string(compiled_build.abi_version) +
          ", but this process runs lapis ABI " + std::to_string(table->abi_version);
  else if (table->feature_version < LAPIS_C_API_TARGET_VERSION)
    why = "built for lapis C API feature version " + std::to_string(LAPIS_C_API_TARGET_VERSION) +
          ", but this process runs a lapis with feature version " + std::to_string(table->feature_version) +
          " (upgrade lapis, or build the extension with LAPIS_C_API_TARGET_VERSION=" +
          std::to_string(table->feature_version) + ")";
  else why = incompatibility(compiled_build, *table->build);
  if (!why.empty()) {
    PyErr_Format(PyExc_ImportError, "%s was %s", extension, why.c_str());
    return -1;
  }
  api() = table;
  return 0;
}

// A new reference to a lapis.DualView sharing `buffer` (e.g. a typed lapis::DualView's buffer()),
// or NULL with a Python exception set. Call import_lapis first.
inline PyObject* to_python(const std::shared_ptr<AnyDualBuffer>& buffer) {
  lapis_buffer_ref* ref = new_ref(buffer);
  PyObject* result = api()->to_python(ref);
  release_ref(ref);
  return result;
}

// The buffer behind a lapis.DualView (share it, or adopt it as a typed lapis::DualView); empty
// with TypeError set when obj is not a lapis.DualView. Call import_lapis first.
inline std::shared_ptr<AnyDualBuffer> from_python(PyObject* obj) {
  lapis_buffer_ref* ref = api()->from_python(obj);
  std::shared_ptr<AnyDualBuffer> buffer = buffer_of(ref);
  api()->release(ref);
  return buffer;
}

#if LAPIS_C_API_TARGET_VERSION >= 2
// lapis.asdualview(obj) as a new reference, or NULL with an exception set: what a module that takes
// numpy arrays and device arrays as well as DualViews calls before from_python. The DualView keeps
// borrowed memory alive: hold it as long as the buffer.
inline PyObject* asdualview(PyObject* obj) { return api()->asdualview(obj); }

// Sets the Python exception lapis raises for the C++ exception being handled (call it in a catch
// block), as lapis's own functions translate them: lapis.RuntimeFinalizedError, ValueError,
// TypeError, ... Returns NULL, for `return set_error_from_current_exception();`.
inline PyObject* set_error_from_current_exception() noexcept {
  std::string message;
  const ErrorKind kind = classify_current_exception(message);
  api()->set_error(static_cast<int>(kind), message.c_str());
  return nullptr;
}
#endif

}  // namespace lapis::python_api
