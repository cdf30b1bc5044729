// The matmul module's kernel, over the buffers of Python DualViews (Kokkos-free: the Cython code
// includes this).
#pragma once

#include <lapis/core/any_dual_buffer.hpp>

#include <memory>

namespace matmul {

using Buffer = std::shared_ptr<lapis::AnyDualBuffer>;

// (m, k) @ (k, n) for 2-D float64 DualViews: a new DualView, left on the device.
Buffer matmul(const Buffer& a, const Buffer& b);

}  // namespace matmul
