// Kokkos's lifetime as seen by lapis, once per process. lapis's runtime runs on whichever Kokkos is
// initialized: lapis::initialize starts Kokkos quietly if nobody has; otherwise the first lapis
// operation in a process whose Kokkos someone else initialized (a C++ main, a Kokkos::ScopeGuard, a
// LAPIS module's lapis_initialize, another package) starts the runtime on it, and using lapis before
// any Kokkos is initialized throws RuntimeFinalizedError saying so. Whoever finalizes Kokkos, lapis's
// finalize runs first (a Kokkos finalize hook): every module's cleanup (at_finalize) runs and every
// piece of lapis-owned Kokkos memory is released, including memory of DualViews that are still
// alive (they become unusable: RuntimeFinalizedError). lapis finalizes Kokkos only if it initialized
// it. The state behind these functions lives in lapis's runtime library, shared by every module of
// the process (core/export.hpp).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>

#include "lapis/core/errors.hpp"
#include "lapis/core/export.hpp"
#include "lapis/core/side.hpp"

namespace lapis {

class AnyDualBuffer;

// Initializes Kokkos unless it already is (then lapis leaves its finalization to its owner).
// KOKKOS_* environment settings apply; Kokkos's start-up warnings are silenced. LAPIS_DEVICE
// ("default", or "simulated" on builds whose device memory is host memory) selects the device
// mode, once per process: std::invalid_argument for any other value. Idempotent.
LAPIS_RUNTIME_API void initialize();

// Waits for the operations other threads have in flight (RuntimeUse) and refuses new ones, runs
// the cleanups registered with at_finalize (last registered first), releases the Kokkos memory of
// every live lapis buffer, then finalizes Kokkos if lapis initialized it. Idempotent; a second
// caller returns once the first has finished. Host memory that lapis took from the heap stays
// valid, and so does memory lent to code lapis cannot track (AnyDualBuffer::mark_lent): Kokkos
// memory is then left allocated until the process exits, never freed under its user.
LAPIS_RUNTIME_API void finalize();

// True after lapis::finalize(), or while no Kokkos is initialized.
LAPIS_RUNTIME_API bool is_finalized() noexcept;

// Registers a cleanup that lapis::finalize runs while Kokkos is still alive: a module drops its
// module-global Kokkos Views here. Runs at once if lapis is already finalized.
LAPIS_RUNTIME_API void at_finalize(std::function<void()> cleanup);

// True when LAPIS_DEVICE=simulated: every device whose memory is host memory keeps its two sides
// apart (spaces.hpp, sides_alias), so that each sync is a real copy.
LAPIS_RUNTIME_API bool simulated_device() noexcept;

// The side a DualView communicates from (lapis.mpi, lapis/mpi.hpp), as Tpetra chooses it: the
// device side where MPI is GPU-aware (LAPIS_MPI_GPU_AWARE=1: MPI reads and writes device memory),
// the host side otherwise (the default: the MPI of Debian and of PyPI's wheels is not).
LAPIS_RUNTIME_API Side communication_side() noexcept;

// How many numpy arrays lapis's Python calls keep wrapped for the next call with the same array
// (LAPIS_CACHED_ARRAYS: 0 to 4096, default 64; 0 turns the cache off; cython/lapis/adoptions.pxi).
LAPIS_RUNTIME_API std::size_t cached_arrays() noexcept;

namespace detail {
// Every live buffer is known to the runtime, so that finalize can release its Kokkos memory.
LAPIS_RUNTIME_API void register_buffer(AnyDualBuffer* buffer);
// Forgets a buffer that is being destroyed, releasing its Kokkos memory first while Kokkos is live
// (never at the same time as finalize).
LAPIS_RUNTIME_API void retire_buffer(AnyDualBuffer* buffer) noexcept;
// A device-contents version never handed out before in this process (AnyDualBuffer::device_version):
// one counter for every module's buffers, so that equal versions are the same contents.
LAPIS_RUNTIME_API std::uint64_t new_device_version() noexcept;
LAPIS_RUNTIME_API void enter_runtime();
LAPIS_RUNTIME_API void leave_runtime() noexcept;
}  // namespace detail

// Holds lapis's runtime live for its scope. lapis::finalize, on any thread, waits until no
// RuntimeUse is held on another thread before it releases memory and finalizes Kokkos; once it has
// begun, a new RuntimeUse throws RuntimeFinalizedError (on the finalizing thread, its cleanups may
// still use lapis). Every lapis operation that touches Kokkos or lapis-owned memory holds one, from
// taking a side's address to queuing the kernel on it; code of a module that runs its own kernels
// on DualViews' views while another thread may finalize holds one across that work. Reentrant.
// Also throws RuntimeFinalizedError when the calling code sees another Kokkos than lapis's (code
// linked with a Kokkos of its own sees it uninitialized).
class RuntimeUse {
 public:
  RuntimeUse() {
    detail::enter_runtime();
    if (!Kokkos::is_initialized()) {
      detail::leave_runtime();
      throw RuntimeFinalizedError(
          "lapis: this code sees an uninitialized Kokkos while lapis's is running: it was linked with a Kokkos "
          "of its own (a static Kokkos, or another installation); build it against lapis's shared Kokkos");
    }
  }
  ~RuntimeUse() { detail::leave_runtime(); }
  RuntimeUse(const RuntimeUse&) = delete;
  RuntimeUse& operator=(const RuntimeUse&) = delete;
};

}  // namespace lapis
