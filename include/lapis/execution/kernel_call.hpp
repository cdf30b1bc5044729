// How kernels take lapis::DualView arguments and reach the device: one KernelCall per call, whose
// roles (reads, writes, updates) bring each argument's device side to the state the kernel needs,
// and whose launch queues the kernel; on_device_sides is the whole of a one-launch call.
#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <type_traits>

#include "lapis/dualview.hpp"
#include "lapis/execution/backend.hpp"
#include "lapis/runtime/execution_lock.hpp"
#include "lapis/runtime/graph.hpp"
#include "lapis/execution/extents.hpp"
#include "lapis/runtime/runtime.hpp"
#include "lapis/runtime/spaces.hpp"
#include "lapis/runtime/trace.hpp"

namespace lapis::kernels::detail {

// One kernel call on DualViews, for its scope, and the one way a kernel on DualViews reaches their
// device sides and the device: the runtime held (from taking the sides' addresses to queuing the
// kernel), the call seen by the trace and by a loaded Kokkos tool ("lapis kernel <name>") where
// either wants it, each argument's device side through the role the kernel gives it, and each
// launch queued on lapis's instance under the execution lock. The views are for the launch only
// (lapis::detail::LaunchViews): the caller holds the DualViews.
class KernelCall {
 public:
  explicit KernelCall(const char* name) : name_(name) {
    refuse_while_recording(name, "a kernel called directly (record it with Graph::add)");
    if (trace::spans_wanted() && lapis::detail::kernel_spans_traced())
      span_.emplace(trace::Kind::kernel, "kernel", name);
  }

  const char* name() const { return name_; }

  // An argument the kernel reads: its device side, brought up to date as its sync policy says.
  template <class DV>
  auto reads(DV& dv) const {
    return lapis::detail::LaunchViews::input(dv);
  }
  // An argument the kernel overwrites, every element: its device side, nothing uploaded, marked modified.
  template <class DV>
  auto writes(DV& dv) const {
    return lapis::detail::LaunchViews::output(dv);
  }
  // An argument the kernel reads and writes in place: synced, then marked modified.
  template <class DV>
  auto updates(DV& dv) const {
    return lapis::detail::LaunchViews::updated(dv);
  }

  // kernel(exec) on the instance of ExecutionSpace that lapis queues its work on, the execution
  // lock held while it is queued (take the arguments' sides first: a sync takes the lock itself).
  // Returns what the kernel returns. Nothing is queued while a graph replays its calls' host work
  // (runtime/graph.hpp): its device graph holds the launches; a kernel on the host is refused while
  // one is captured (it would run once, at the capture, instead of at every replay).
  template <class ExecutionSpace, class Kernel>
  decltype(auto) launch(const Kernel& kernel) const {
    if constexpr (lapis::device_records_launches && Backend<ExecutionSpace>::runs_on_host)
      if (lapis::detail::capturing_device_graph())
        throw GraphCaptureError(std::string(name_) + ": a kernel that runs on the host cannot join a device graph");
    using Result = decltype(kernel(default_instance<ExecutionSpace>()));
    if constexpr (std::is_void_v<Result>)
      if (lapis::detail::launches_suppressed()) return;
    const ExecutionGuard guard;
    return kernel(default_instance<ExecutionSpace>());
  }

 private:
  const char* name_;
  RuntimeUse use_;
  std::optional<trace::Span> span_;
};

template <class... T>
inline constexpr bool all_dual_views = (is_dual_view_v<T> && ...);

// A DualView argument named by what the kernel does with its device side.
template <class DV>
struct Reads {
  using dual_view = DV;
  DV& dv;
  auto view(const KernelCall& call) const { return call.reads(dv); }
};
template <class DV>
struct Writes {  // every element
  using dual_view = DV;
  DV& dv;
  auto view(const KernelCall& call) const { return call.writes(dv); }
};
template <class DV>
struct Updates {  // in place
  using dual_view = DV;
  DV& dv;
  auto view(const KernelCall& call) const { return call.updates(dv); }
};
template <class DV>
Reads<DV> reads(DV& dv) {
  return {dv};
}
template <class DV>
Writes<DV> writes(DV& dv) {
  return {dv};
}
template <class DV>
Updates<DV> updates(DV& dv) {
  return {dv};
}

// Runs kernel(exec, views...), the call `name`, on the device sides of the arguments, each brought
// to the state its role says in the order given (an input read before an output that is the same
// DualView is overwritten), on the execution space of the last argument's DualView (all share one
// device). Returns what the kernel returns.
template <class Kernel, class... Roles>
decltype(auto) on_device_sides(const char* name, const Kernel& kernel, const Roles&... roles) {
  using Result = typename std::tuple_element_t<sizeof...(Roles) - 1, std::tuple<Roles...>>::dual_view;
  const KernelCall call(name);
  const std::tuple<decltype(roles.view(call))...> views{roles.view(call)...};  // in order: braced initialization
  return call.launch<typename Result::execution_space>([&](const auto& exec) -> decltype(auto) {
    return std::apply([&](const auto&... v) -> decltype(auto) { return kernel(exec, v...); }, views);
  });
}

}  // namespace lapis::kernels::detail
