// What lapis's machinery does differently on each execution space, decided here once: loops,
// reductions and vendor calls ask Backend<ExecutionSpace> with `if constexpr`, never the
// preprocessor. The preprocessor is asked only here and in the backends' own files, each of which
// says whether this translation unit has it (cuda_launch.hpp: compiles_cuda_loops; cublas.hpp:
// has_cublas). A call that only a backend declares is written in a branch its flag discards elsewhere.
#pragma once

#include <Kokkos_Core.hpp>
#include <KokkosKernels_config.h>

#include <cstdint>
#include <type_traits>

#include "lapis/execution/cublas.hpp"
#include "lapis/execution/cuda_launch.hpp"

namespace lapis::kernels::detail {

// The space whose loops run on the calling thread (void where Kokkos was built without one).
#if defined(KOKKOS_ENABLE_SERIAL)
using CallingThreadSpace = Kokkos::Serial;
#else
using CallingThreadSpace = void;
#endif

template <class ExecutionSpace>
inline constexpr bool is_cuda = false;
#if defined(KOKKOS_ENABLE_CUDA)
template <>
inline constexpr bool is_cuda<Kokkos::Cuda> = true;
#endif

// Whether execution space instances compare equal when they share a queue (Kokkos 4; Kokkos 3
// cannot say).
inline constexpr bool instances_compare = KOKKOS_VERSION >= 40000;

// Whether Kokkos Kernels' calls take an execution space instance to queue on (4.0 on; 3.x runs them
// on the default instance).
#if defined(KOKKOSKERNELS_VERSION) && KOKKOSKERNELS_VERSION >= 40000
inline constexpr bool vendor_calls_take_instance = true;
#else
inline constexpr bool vendor_calls_take_instance = false;
#endif

// The square root in a kernel, where this Kokkos has it.
template <class T>
KOKKOS_INLINE_FUNCTION T sqrt(T x) {
#if KOKKOS_VERSION >= 30700
  return Kokkos::sqrt(x);
#else
  return Kokkos::Experimental::sqrt(x);  // where Kokkos 3.4 has its math functions
#endif
}

template <class ExecutionSpace, class Calling = CallingThreadSpace>
struct CallingThreadReaches
    : std::bool_constant<!std::is_same_v<ExecutionSpace, Calling> &&
                         Kokkos::SpaceAccessibility<Calling, typename ExecutionSpace::memory_space>::accessible> {};
template <class ExecutionSpace>
struct CallingThreadReaches<ExecutionSpace, void> : std::false_type {};

template <class ExecutionSpace>
struct Backend {
  // Its threads are the host's: a loop wants each thread on contiguous memory (a GPU's wants
  // neighbouring threads on neighbouring elements).
  static constexpr bool runs_on_host = std::is_same_v<typename ExecutionSpace::memory_space, Kokkos::HostSpace>;
  // A short loop over its memory may run on the calling thread (a space other than this one that
  // reaches its memory: Kokkos::Serial for OpenMP's), as numpy's would.
  static constexpr bool short_loops_on_calling_thread = CallingThreadReaches<ExecutionSpace>::value;
  using calling_thread = CallingThreadSpace;
  // lapis launches its flat loops on the space's stream itself (cuda_launch.hpp).
  static constexpr bool launches_own_loops = is_cuda<ExecutionSpace> && compiles_cuda_loops;
  // Batched products go to cuBLAS's strided batched gemm (batched_matrix_product.hpp).
  static constexpr bool cublas_batched_gemm = is_cuda<ExecutionSpace> && has_cublas;
};

// The threads of a GPU warp.
inline constexpr std::int64_t warp_width = 32;

// How many elements a loop may have and still run on the calling thread: handing work to an OpenMP
// team costs about a microsecond (its threads' fork and join), more than a few thousand elements
// of a streaming kernel take on one thread.
inline constexpr std::int64_t calling_thread_elements = 4096;

}  // namespace lapis::kernels::detail
