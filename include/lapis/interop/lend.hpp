// Handing a DualView's device side to code that lapis does not order: another library's streams
// (DLPack, __cuda_array_interface__) or an extension holding a raw pointer. lapis queues kernels
// without waiting for them, so a side leaves lapis only once every queued operation is done.
#pragma once

#include "lapis/core/any_dual_buffer.hpp"
#include "lapis/runtime/execution_lock.hpp"
#include "lapis/runtime/runtime.hpp"

namespace lapis {

// The device side's address after `access` (Access::read, write or overwrite; an implicit copy
// where one is needed), once `exec` has finished everything queued on it. The memory is marked
// lent: lapis::finalize leaves it allocated for its borrower.
template <class ExecutionSpace>
void* lend_device(AnyDualBuffer& buffer, Access access, const ExecutionSpace& exec) {
  const RuntimeUse use;
  void* data = buffer.access(Side::device, access);
  buffer.mark_lent(Side::device);
  const ExecutionGuard guard;
  exec.fence();
  return data;
}

}  // namespace lapis
