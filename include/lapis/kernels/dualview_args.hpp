// How kernels take lapis::DualView arguments: the device side of each input, brought up to date as
// its sync policy says, and the device side of the output for overwriting (nothing uploaded, marked
// modified). Every kernel here overwrites its whole output. The execution lock is taken once the
// sides are in place (a sync takes it itself) and held while the kernel is queued.
#pragma once

#include "lapis/dualview.hpp"
#include "lapis/runtime/execution_lock.hpp"
#include "lapis/kernels/extents.hpp"
#include "lapis/runtime/runtime.hpp"

namespace lapis::kernels::detail {

// The views are for the launch only (lapis::detail::LaunchViews): the caller holds the DualViews.
template <class DV>
auto input(DV& dv) {
  return lapis::detail::LaunchViews::input(dv);
}

template <class DV>
auto output(DV& dv) {
  return lapis::detail::LaunchViews::output(dv);
}

template <class... T>
inline constexpr bool all_dual_views = (is_dual_view_v<T> && ...);

// Runs kernel(exec, A, B, C) on the device sides of two inputs (read first) and an output.
template <class Kernel, class A, class B, class C>
void on_device_sides(const Kernel& kernel, A& a, B& b, C& c) {
  const RuntimeUse use;  // from taking the sides' addresses to queuing the kernel
  auto a_ = input(a);
  auto b_ = input(b);
  auto c_ = output(c);
  const ExecutionGuard guard;
  kernel(typename C::execution_space(), a_, b_, c_);
}

}  // namespace lapis::kernels::detail
