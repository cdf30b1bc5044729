// Which lapis and which Kokkos a piece of code was built against. A module compares what it was
// compiled with against what the process runs (python_api.hpp does at import), so that a module
// built against another Kokkos or an incompatible lapis is refused instead of misbehaving.
#pragma once

#include <cstring>
#include <string>

#include "lapis/config.hpp"
#include "lapis/core/export.hpp"
#include "lapis/runtime/kokkos_build.hpp"

namespace lapis {

struct BuildInfo {
  const char* lapis_version;
  int abi_version;
  int kokkos_version;           // as KOKKOS_VERSION: 30401 for 3.4.1; 0 for code built without Kokkos
  const char* kokkos_backends;  // e.g. "OPENMP,SERIAL," (kokkos_build.hpp)
  const char* kokkos_prefix;
  const char* kokkos_cuda_arch;  // e.g. "90"; empty without CUDA
};

namespace {
// What the including translation unit is compiled against (internal linkage: kokkos_build.hpp says why).
constexpr BuildInfo compiled_build{LAPIS_VERSION_STRING,     LAPIS_ABI_VERSION,   compiled_kokkos_version,
                                   compiled_kokkos_backends, LAPIS_KOKKOS_PREFIX, LAPIS_KOKKOS_CUDA_ARCH};
}  // namespace

// What lapis's runtime library, and so the process, runs.
LAPIS_RUNTIME_API const BuildInfo& runtime_build() noexcept;

// "3.4.1" for 30401.
inline std::string kokkos_version_string(int version) {
  return std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
         std::to_string(version % 100);
}

// "OPENMP,SERIAL" for "OPENMP,SERIAL,".
inline std::string backend_list(const BuildInfo& build) {
  std::string backends = build.kokkos_backends;
  if (!backends.empty()) backends.pop_back();
  return backends;
}

inline std::string describe(const BuildInfo& build) {
  std::string text = std::string("lapis ") + build.lapis_version + " (ABI " + std::to_string(build.abi_version) + ")";
  if (build.kokkos_version == 0) return text + " without Kokkos";
  return text + " with Kokkos " + kokkos_version_string(build.kokkos_version) + " (" + backend_list(build) + ")";
}

// Empty when code built as `compiled` can run in a process running `running`; otherwise why not.
// Code built without Kokkos (a Cython extension that only cimports lapis) needs the ABI alone.
inline std::string incompatibility(const BuildInfo& compiled, const BuildInfo& running) {
  const bool compatible =
      compiled.abi_version == running.abi_version &&
      (compiled.kokkos_version == 0 || (compiled.kokkos_version == running.kokkos_version &&
                                        std::strcmp(compiled.kokkos_backends, running.kokkos_backends) == 0));
  if (compatible) return {};
  return "built against " + describe(compiled) + ", but this process runs " + describe(running) + " from " +
         running.kokkos_prefix + ": rebuild it against the installed lapis";
}

}  // namespace lapis
