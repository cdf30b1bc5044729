// Which lapis and Kokkos this runtime library is (runtime/build_info.hpp).
#include <Kokkos_Core.hpp>

#include "lapis/runtime/build_info.hpp"

namespace lapis {

const BuildInfo& runtime_build() noexcept {
  static constexpr BuildInfo build = compiled_build;
  return build;
}

}  // namespace lapis
