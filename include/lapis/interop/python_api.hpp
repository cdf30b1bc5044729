// lapis's C-level entry point for extensions that are not Cython (pybind11, nanobind, the plain C
// API; Cython extensions cimport lapis and call import_lapis too). As NumPy's C API: the package
// publishes a capsule, lapis._core._C_API, holding a versioned table of function pointers; this
// header fetches it once per extension (import_lapis(), in the extension's module init) and
// refuses, with ImportError, an extension built against another lapis ABI or another Kokkos.
// The extension links nothing of lapis's Python package. Kokkos-free; needs Python.h.
#pragma once

#include <Python.h>

#include <memory>
#include <string>

#include "lapis/core/any_dual_buffer.hpp"
#include "lapis/core/build_info.hpp"

namespace lapis::python_api {

// The table's layout is fixed for a given LAPIS_ABI_VERSION; abi_version comes first in every one.
struct CApi {
  int abi_version;
  const BuildInfo* build;
  // A new reference to a lapis.DualView sharing *buffer (dtype from its element type), or NULL with
  // a Python exception set.
  PyObject* (*to_python)(const std::shared_ptr<AnyDualBuffer>* buffer);
  // Stores the buffer behind the lapis.DualView `obj` in *buffer: 0, or -1 with TypeError set.
  int (*from_python)(PyObject* obj, std::shared_ptr<AnyDualBuffer>* buffer);
};

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
  std::string why = table->abi_version != compiled_build.abi_version
                        ? "built against lapis ABI " + std::to_string(compiled_build.abi_version) +
                              ", but this process runs lapis ABI " + std::to_string(table->abi_version)
                        : incompatibility(compiled_build, *table->build);
  if (!why.empty()) {
    PyErr_Format(PyExc_ImportError, "%s was %s", extension, why.c_str());
    return -1;
  }
  api() = table;
  return 0;
}

// A new reference to a lapis.DualView sharing `buffer` (e.g. a typed lapis::DualView's buffer()),
// or NULL with a Python exception set. Call import_lapis first.
inline PyObject* to_python(const std::shared_ptr<AnyDualBuffer>& buffer) { return api()->to_python(&buffer); }

// The buffer behind a lapis.DualView (share it, or adopt it as a typed lapis::DualView); empty
// with TypeError set when obj is not a lapis.DualView. Call import_lapis first.
inline std::shared_ptr<AnyDualBuffer> from_python(PyObject* obj) {
  std::shared_ptr<AnyDualBuffer> buffer;
  api()->from_python(obj, &buffer);
  return buffer;
}

}  // namespace lapis::python_api
