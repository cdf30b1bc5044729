// lapis_buffer_ref: a counted reference to a lapis buffer behind an opaque C type, the form in which
// buffers cross C interfaces (lapis's Python C API, interop/python_api.hpp; the DualView entry
// points of LAPIS modules, interop/lapis_compat.hpp): whoever receives one owns one reference and
// gives it back with release_ref. Kokkos-free.
#pragma once

#include <memory>
#include <utility>

#include "lapis/core/any_dual_buffer.hpp"

extern "C" {
typedef struct lapis_buffer_ref lapis_buffer_ref;
}

namespace lapis {

// A new reference to `buffer` (nullptr for an empty one).
inline lapis_buffer_ref* new_ref(std::shared_ptr<AnyDualBuffer> buffer) {
  if (!buffer) return nullptr;
  return reinterpret_cast<lapis_buffer_ref*>(new std::shared_ptr<AnyDualBuffer>(std::move(buffer)));
}

// The buffer a reference holds (empty for nullptr); the reference stays the caller's.
inline std::shared_ptr<AnyDualBuffer> buffer_of(const lapis_buffer_ref* ref) {
  if (ref == nullptr) return nullptr;
  return *reinterpret_cast<const std::shared_ptr<AnyDualBuffer>*>(ref);
}

// Gives a reference back (nullptr is fine).
inline void release_ref(lapis_buffer_ref* ref) noexcept {
  delete reinterpret_cast<std::shared_ptr<AnyDualBuffer>*>(ref);
}

}  // namespace lapis
