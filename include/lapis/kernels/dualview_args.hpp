// How kernels take lapis::DualView arguments: the device side of each input, brought up to date as
// its sync policy says, and the device side of the output for overwriting (nothing uploaded, marked
// modified). A kernel overwrites its whole output, or updates an argument in place (updated(): synced,
// then marked modified). The execution lock is taken once the sides are in place (a sync takes it itself) and held while the kernel is queued.
#pragma once

#include <optional>
#include <tuple>
#include <type_traits>

#include "lapis/dualview.hpp"
#include "lapis/runtime/execution_lock.hpp"
#include "lapis/kernels/extents.hpp"
#include "lapis/runtime/runtime.hpp"
#include "lapis/runtime/spaces.hpp"
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

// A DualView argument named by what the kernel does with its device side.
template <class DV>
struct Reads {
  using dual_view = DV;
  DV& dv;
  auto view() const { return input(dv); }
};
template <class DV>
struct Writes {  // every element
  using dual_view = DV;
  DV& dv;
  auto view() const { return output(dv); }
};
template <class DV>
struct Updates {  // in place
  using dual_view = DV;
  DV& dv;
  auto view() const { return updated(dv); }
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
  const std::tuple<decltype(roles.view())...> views{roles.view()...};  // in order: braced initialization
  const ExecutionGuard guard;
  const auto& exec = default_instance<typename Result::execution_space>();
  return std::apply([&](const auto&... v) -> decltype(auto) { return kernel(exec, v...); }, views);
}

}  // namespace lapis::kernels::detail
