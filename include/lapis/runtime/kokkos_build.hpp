// The Kokkos that the including translation unit is compiled against (its configuration macros
// only: no Kokkos code), so that a module can tell whether it matches the Kokkos lapis runs on.
// Kokkos-free code that cannot see Kokkos's headers reports version 0 (it cannot depend on Kokkos).
#pragma once

#if !defined(KOKKOS_VERSION) && __has_include(<KokkosCore_config.h>)
// The file holds #defines only, but insists on being read through Kokkos_Macros.hpp, which a host
// compiler cannot read for a CUDA Kokkos. Its guards are restored, so that Kokkos_Macros.hpp
// included later reads it again (redefining the same macros identically).
#define KOKKOS_MACROS_HPP
#include <KokkosCore_config.h>
#undef KOKKOS_MACROS_HPP
#undef KOKKOS_CORE_CONFIG_H
#endif

namespace lapis {
// Facts about the including translation unit's own build have internal linkage, one copy per
// translation unit. An inline variable would be a GNU unique symbol in a library built without
// hidden visibility (nvcc's default), and the dynamic loader hands every module the first copy
// loaded: lapis's own, which a module built against another Kokkos would then seem to match.
namespace {

#if defined(KOKKOS_VERSION)
constexpr int compiled_kokkos_version = KOKKOS_VERSION;
#else
constexpr int compiled_kokkos_version = 0;
#endif

// The enabled backends, each followed by a comma, in a fixed order (as lapis reports them).
constexpr char compiled_kokkos_backends[] =
    ""
#if defined(KOKKOS_ENABLE_CUDA)
    "CUDA,"
#endif
#if defined(KOKKOS_ENABLE_HIP)
    "HIP,"
#endif
#if defined(KOKKOS_ENABLE_SYCL)
    "SYCL,"
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
    "OPENMP,"
#endif
#if defined(KOKKOS_ENABLE_THREADS)
    "THREADS,"
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
    "SERIAL,"
#endif
    ;

}  // namespace
}  // namespace lapis
