// How kernels take lapis::DualView arguments: the device side of each input, brought up to date as
// its sync policy says, and the device side of the output for overwriting (nothing uploaded, marked
// modified). A kernel overwrites its whole output, or updates an argument in place (updated(): synced,
// then marked modified). The execution lock is taken once the sides are in place (a sync takes it itself) and held while the kernel is queued.
#pragma once

#include <optional>

#include "lapis/dualview.hpp"
#include "lapis/runtime/execution_lock.hpp"
#include "lapis/kernels/extents.hpp"
#include "lapis/runtime/runtime.hpp"
#include "lapis/runtime/trace.hpp"

namespace lapis::kernels::detail {

// One kernel call on DualViews, for its scope: the runtime held (from taking the sides' addresses to
// queuing the kernel), and the call seen by the trace and by a loaded Kokkos tool ("lapis kernel
// <name>"), where either wants it.
class KernelCall {
 public:
  explicit KernelCall(const char* name) {
    if (trace::spans_wanted()) span_.emplace(trace::Kind::kernel, "kernel", name);
  }

 private:
  RuntimeUse use_;
  std::optional<trace::Span> span_;
};

// The views are for the launch only (lapis::detail::LaunchViews): the caller holds the DualViews.
template <class DV>
auto input(DV& dv) {
  return lapis::detail::LaunchViews::input(dv);
}

template <class DV>
auto output(DV& dv) {
  return lapis::detail::LaunchViews::output(dv);
}

// An argument the kernel reads and writes in place.
template <class DV>
auto updated(DV& dv) {
  return lapis::detail::LaunchViews::updated(dv);
}

template <class... T>
inline constexpr bool all_dual_views = (is_dual_view_v<T> && ...);

// Runs kernel(exec, A, B, C), the call `name`, on the device sides of two inputs (read first) and an
// output.
template <class Kernel, class A, class B, class C>
void on_device_sides(const char* name, const Kernel& kernel, A& a, B& b, C& c) {
  const KernelCall call(name);
  auto a_ = input(a);
  auto b_ = input(b);
  auto c_ = output(c);
  const ExecutionGuard guard;
  kernel(typename C::execution_space(), a_, b_, c_);
}

}  // namespace lapis::kernels::detail
