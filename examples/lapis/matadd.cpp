#include "matadd.hpp"
LAPIS::DualView<double**, Kokkos::LayoutRight> forward(LAPIS::DualView<double**, Kokkos::LayoutRight> v1, LAPIS::DualView<double**, Kokkos::LayoutRight> v2)
{
  auto v1_d = v1.device_view();
  auto v1_h = v1.host_view();
  auto v2_d = v2.device_view();
  auto v2_h = v2.host_view();
  size_t v3 = v1.extent(0);
  size_t v4 = v1.extent(1);
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::DefaultExecutionSpace> v5(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("v5")), v3, v4);
  v1.syncDevice();
  v2.syncDevice();
  Kokkos::parallel_for(Kokkos::MDRangePolicy<Kokkos::DefaultExecutionSpace, Kokkos::Rank<2, Kokkos::Iterate::Right, Kokkos::Iterate::Right>>({int64_t(0), int64_t(0)}, {int64_t(v3), int64_t(v4)}),
  KOKKOS_LAMBDA(size_t v6, size_t v7)
  {
    double v8 = v1_d(v6, v7);
    double v9 = v2_d(v6, v7);
    double v10 = v8 + v9;
    v5(v6, v7) = v10;
  });
  return v5;
}

LAPIS::DualView<double**, Kokkos::LayoutRight> forward_out(LAPIS::DualView<double**, Kokkos::LayoutRight> v1, LAPIS::DualView<double**, Kokkos::LayoutRight> v2, LAPIS::DualView<double**, Kokkos::LayoutRight> v3)
{
  auto v1_d = v1.device_view();
  auto v1_h = v1.host_view();
  auto v2_d = v2.device_view();
  auto v2_h = v2.host_view();
  auto v3_d = v3.device_view();
  auto v3_h = v3.host_view();
  size_t v4 = v1.extent(0);
  size_t v5 = v1.extent(1);
  v1.syncDevice();
  v2.syncDevice();
  v3.syncDevice();
  v3.modifyDevice();
  Kokkos::parallel_for(Kokkos::MDRangePolicy<Kokkos::DefaultExecutionSpace, Kokkos::Rank<2, Kokkos::Iterate::Right, Kokkos::Iterate::Right>>({int64_t(0), int64_t(0)}, {int64_t(v4), int64_t(v5)}),
  KOKKOS_LAMBDA(size_t v6, size_t v7)
  {
    double v8 = v1_d(v6, v7);
    double v9 = v2_d(v6, v7);
    double v10 = v8 + v9;
    v3_d(v6, v7) = v10;
  });
  return v3;
}

extern "C" void py_forward(StridedMemRefType<double, 2>** ret0, StridedMemRefType<double, 2>* param0, StridedMemRefType<double, 2>* param1)
{
  auto param0_smr = LAPIS::stridedMemrefToView<Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>>(*param0);
  auto param1_smr = LAPIS::stridedMemrefToView<Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>>(*param1);
  auto results = forward(param0_smr, param1_smr);
  results.syncHost();
  **ret0 = LAPIS::viewToStridedMemref(results.host_view());
  LAPIS::keepAlive(results.host_view());
  if(results.host_view().data() == results.device_view().data()) 
    LAPIS::keepAlive(results.device_view());
  Kokkos::DefaultExecutionSpace().fence();
}

extern "C" void py_forward_out(StridedMemRefType<double, 2>** ret0, StridedMemRefType<double, 2>* param0, StridedMemRefType<double, 2>* param1, StridedMemRefType<double, 2>* param2)
{
  auto param0_smr = LAPIS::stridedMemrefToView<Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>>(*param0);
  auto param1_smr = LAPIS::stridedMemrefToView<Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>>(*param1);
  auto param2_smr = LAPIS::stridedMemrefToView<Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>>(*param2);
  auto results = forward_out(param0_smr, param1_smr, param2_smr);
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
}

extern "C" void lapis_finalize()
{
  LAPIS::alives.clear();
}
