// The three ways of holding one array that a host program computes with on the device:
//   NaiveArray       copies host->device before every call that reads it and device->host after
//                    every call that writes it (LAPIS before DualViews);
//   KokkosDualArray  Kokkos::DualView with modify/sync written as a careful user would;
//   LapisArray       lapis::DualView with its default policies (or PinnedHost).
// Each offers in() (device view to read), out() (device view to overwrite), after_call() (what
// happens once a call wrote the array) and read_on_host() (the program reads the result).
#pragma once

#include <Kokkos_Core.hpp>
#include <Kokkos_DualView.hpp>

#include <string>
#include <type_traits>

#include "lapis/dualview.hpp"
#include "transfer_counter.hpp"

namespace lapis::bench {

// On a CPU build the default device shares host memory and nothing would ever be copied: measure on
// the simulated device there, so that copies are real.
using Device = std::conditional_t<device_traits<DefaultDevice>::shares_host_memory, SimulatedDevice, DefaultDevice>;
using ExecutionSpace = typename Device::execution_space;
using DeviceMemory = typename Device::memory_space;

template <class View>
const void* register_host(const View& v) {
  TransferCounter::instance().register_host_range(v.data(), v.span() * sizeof(typename View::value_type));
  return v.data();
}

// Makes a T (a DualView type) of the label and extents of a host view.
template <class T, class HostView, std::size_t... I>
T like(const HostView& v, std::index_sequence<I...>) {
  return T(v.label(), v.extent(I)...);
}
template <class T, class HostView>
T like(const HostView& v) {
  return like<T>(v, std::make_index_sequence<static_cast<std::size_t>(HostView::rank)>{});
}

template <class DataType>
struct NaiveArray {
  using host_view = Kokkos::View<DataType, Kokkos::LayoutRight, Kokkos::HostSpace>;
  host_view host;
  Kokkos::View<DataType, Kokkos::LayoutRight, DeviceMemory> device;

  explicit NaiveArray(const host_view& initial)
      : host(like<host_view>(initial)), device(like<decltype(device)>(initial)) {
    Kokkos::deep_copy(host, initial);
    register_host(host);
  }
  ~NaiveArray() { TransferCounter::instance().unregister_host_range(host.data()); }
  auto in() {
    Kokkos::deep_copy(device, host);
    return device;
  }
  auto out() { return device; }
  void after_call() { Kokkos::deep_copy(host, device); }
  void read_on_host() {}
};

// Kokkos::DualView on the default device: it cannot keep its sides apart where the device shares
// host memory, so on a CPU build it aliases them and copies nothing.
template <class DataType>
struct KokkosDualArray {
  using dual_view = Kokkos::DualView<DataType, Kokkos::LayoutRight, Kokkos::DefaultExecutionSpace>;
  dual_view dv;
  const void* host_data;

  template <class HostView>
  explicit KokkosDualArray(const HostView& initial) : dv(like<dual_view>(initial)) {
    Kokkos::deep_copy(dv.h_view, initial);
    dv.modify_host();
    host_data = register_host(dv.h_view);
  }
  ~KokkosDualArray() { TransferCounter::instance().unregister_host_range(host_data); }
  auto in() {
    dv.sync_device();
    return dv.view_device();
  }
  auto out() {  // every element is overwritten: pending host changes are moot
    dv.clear_sync_state();
    dv.modify_device();
    return dv.view_device();
  }
  void after_call() {}
  void read_on_host() { dv.sync_host(); }
};

template <class Alloc>
struct Lapis {
  template <class DataType>
  struct Array {
    using dual_view = lapis::DualView<DataType, Kokkos::LayoutRight, Device, sync::Lazy, Alloc>;
    dual_view dv;
    const void* host_data;

    template <class HostView>
    explicit Array(const HostView& initial) : dv(like<dual_view>(initial)) {
      auto host = dv.view_host();
      Kokkos::deep_copy(host, initial);
      dv.modify_host();
      host_data = register_host(host);
    }
    ~Array() { TransferCounter::instance().unregister_host_range(host_data); }
    auto in() {
      dv.sync_device();
      return dv.view_device();
    }
    auto out() { return dv.view_device_for_overwrite(); }
    void after_call() {}
    void read_on_host() { dv.sync_host(); }
  };
};

template <class DataType>
using LapisArray = typename Lapis<alloc::Mirrored>::template Array<DataType>;
template <class DataType>
using LapisPinnedArray = typename Lapis<alloc::PinnedHost>::template Array<DataType>;

}  // namespace lapis::bench
