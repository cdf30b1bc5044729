// A flat loop over [0, count) as one CUDA kernel launched straight on a Kokkos::Cuda instance's
// stream. Kokkos's parallel_for does more on every launch: an occupancy search for the block size,
// a lock, a check of the lock arrays its atomics on wide types need (lapis's loops take no
// atomics): more than lapis's own bookkeeping of a call (docs/guide/kernels.md has the figures).
// Left to Kokkos: a process with Kokkos Tools loaded (they see parallel_for's events), a functor
// too large for a kernel's parameters, a CUDA error left pending, Kokkos 3, and code that nvcc (or
// clang's CUDA) does not compile: compiles_cuda_loops says whether this translation unit has the
// launch.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__) && KOKKOS_VERSION >= 40000
namespace lapis::kernels::detail {

inline constexpr bool compiles_cuda_loops = true;

inline constexpr int cuda_loop_threads = 256;
// A kernel's parameters may take 4 KB on every CUDA version Kokkos 4 supports.
inline constexpr std::size_t cuda_parameter_bytes = 4000;

template <class F>
__global__ void __launch_bounds__(cuda_loop_threads) cuda_flat_loop(const F f, const std::int64_t count) {
  const std::int64_t step = std::int64_t(gridDim.x) * cuda_loop_threads;
  for (std::int64_t i = std::int64_t(blockIdx.x) * cuda_loop_threads + threadIdx.x; i < count; i += step) f(i);
}

// f(i) for i in [0, count) queued on `exec`; whether it was (false: nothing launched, the loop is
// Kokkos's). std::runtime_error where the driver refuses the launch: nothing ran, and Kokkos's
// launch, which checks no launch error outside its debug builds, would have left that unseen.
template <class F>
bool launched_on_stream(const Kokkos::Cuda& exec, std::int64_t count, const F& f) {
  if constexpr (sizeof(F) + sizeof(std::int64_t) > cuda_parameter_bytes) {
    return false;
  } else {
    if (count <= 0) return true;
    // An error already pending would be taken for this launch's (a dead context's is reported by
    // Kokkos's next fence)
    if (Kokkos::Tools::profileLibraryLoaded() || cudaPeekAtLastError() != cudaSuccess) return false;
    const std::int64_t most_blocks = (std::int64_t(1) << 31) - 1;
    const auto blocks = std::min((count + cuda_loop_threads - 1) / cuda_loop_threads, most_blocks);
    // cuda_stream() also makes the instance's device current, as Kokkos's launch does
    cuda_flat_loop<<<unsigned(blocks), cuda_loop_threads, 0, exec.cuda_stream()>>>(f, count);
    const cudaError_t launched = cudaGetLastError();
    if (launched != cudaSuccess)
      throw std::runtime_error(std::string("lapis: the driver refused a kernel launch: ") +
                               cudaGetErrorString(launched));
    return true;
  }
}

}  // namespace lapis::kernels::detail
#else
namespace lapis::kernels::detail {
inline constexpr bool compiles_cuda_loops = false;
}
#endif
