#include "globals.hpp"
LAPIS::DualView<double[4], Kokkos::LayoutRight> g0;
double g0_initial[4] = {0.5, 1.5, 2.5, 3.5};
LAPIS::DualView<double*, Kokkos::LayoutRight> add(LAPIS::DualView<double*, Kokkos::LayoutRight> v1, LAPIS::DualView<double[4], Kokkos::LayoutRight> v2)
{
  auto v1_d = v1.device_view();
  auto v1_h = v1.host_view();
  auto v2_d = v2.device_view();
  auto v2_h = v2.host_view();
  size_t v3 = v1.extent(0);
  Kokkos::View<double*, Kokkos::LayoutRight, Kokkos::DefaultExecutionSpace> v4(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("v4")), v3);
  v1.syncDevice();
  v2.syncDevice();
  Kokkos::parallel_for(Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>(0, v3),
  KOKKOS_LAMBDA(size_t v5)
  {
    double v6 = v1_d(v5);
    double v7 = v2_d(v5);
    double v8 = v6 + v7;
    v4(v5) = v8;
  });
  return v4;
}

LAPIS::DualView<double*, Kokkos::LayoutRight> add_weights(LAPIS::DualView<double*, Kokkos::LayoutRight> v1)
{
  auto v1_d = v1.device_view();
  auto v1_h = v1.host_view();
  auto v2 = g0;
  LAPIS::DualView<double*, Kokkos::LayoutRight> v3 = add(v1, v2);
  auto v3_d = v3.device_view();
  auto v3_h = v3.host_view();
  return v3;
}

extern "C" void py_add(StridedMemRefType<double, 1>** ret0, StridedMemRefType<double, 1>* param0, StridedMemRefType<double, 1>* param1)
{
  auto param0_smr = LAPIS::stridedMemrefToView<Kokkos::View<double*, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>>(*param0);
  auto param1_smr = LAPIS::stridedMemrefToView<Kokkos::View<double[4], Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>>(*param1);
  auto results = add(param0_smr, param1_smr);
  results.syncHost();
  **ret0 = LAPIS::viewToStridedMemref(results.host_view());
  LAPIS::keepAlive(results.host_view());
  if(results.host_view().data() == results.device_view().data()) 
    LAPIS::keepAlive(results.device_view());
  Kokkos::DefaultExecutionSpace().fence();
}

extern "C" void py_add_weights(StridedMemRefType<double, 1>** ret0, StridedMemRefType<double, 1>* param0)
{
  auto param0_smr = LAPIS::stridedMemrefToView<Kokkos::View<double*, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>>(*param0);
  auto results = add_weights(param0_smr);
  results.syncHost();
  **ret0 = LAPIS::viewToStridedMemref(results.host_view());
  LAPIS::keepAlive(results.host_view());
  if(results.host_view().data() == results.device_view().data()) 
    LAPIS::keepAlive(results.device_view());
  Kokkos::DefaultExecutionSpace().fence();
}

extern "C" void lapis_initialize()
{
  if (!Kokkos::is_initialized()) Kokkos::initialize();
  {
    Kokkos::View<double[4], Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace> g0_host(g0_initial);
    g0 = LAPIS::DualView<double[4], Kokkos::LayoutRight>(g0_host);
    g0.sync_device();
  }
}

extern "C" void lapis_finalize()
{
  g0.deallocate();
  LAPIS::alives.clear();
}
