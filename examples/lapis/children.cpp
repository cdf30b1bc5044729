#include "children.hpp"
LAPIS::DualView<double*, Kokkos::LayoutRight> column_sums(LAPIS::DualView<double**, Kokkos::LayoutRight> v1)
{
  auto v1_d = v1.device_view();
  auto v1_h = v1.host_view();
  size_t v2 = v1.extent(0);
  size_t v3 = v1.extent(1);
  size_t v4 = v1.stride(0);
  Kokkos::View<double, Kokkos::LayoutRight, Kokkos::DefaultExecutionSpace> v5_d_temp(v1.device_view().data());
  Kokkos::View<double, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace> v5_h_temp(v1.host_view().data());
  LAPIS::DualView<double, Kokkos::LayoutRight> v5(v5_d_temp, v5_h_temp, v1);
  auto v5_d = v5.device_view();
  auto v5_h = v5.host_view();
  size_t v6 = v3 / 2;
  Kokkos::LayoutStride v8_layout(v2, v4, v6, 2);
  Kokkos::View<double**, Kokkos::LayoutStride, Kokkos::DefaultHostExecutionSpace> v8_host(v5_h.data() + 1, v8_layout);
  Kokkos::View<double**, Kokkos::LayoutStride, Kokkos::DefaultExecutionSpace> v8_device(v5_d.data() + 1, v8_layout);
  LAPIS::DualView<double**, Kokkos::LayoutStride> v8(v8_device, v8_host, v5);
  ;
  auto v8_d = v8.device_view();
  auto v8_h = v8.host_view();
  Kokkos::View<double*, Kokkos::LayoutRight, Kokkos::DefaultExecutionSpace> v9(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("v9")), v6);
  v8.syncDevice();
  Kokkos::parallel_for(Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>(0, v6),
  KOKKOS_LAMBDA(size_t v10)
  {
    double v11 = 0.0;
    for (size_t v12 = 0; v12 < v2; v12 += 1) {
      double v13 = v8_d(v12, v10);
      double v14 = v11 + v13;
      v11 = v14;
    }
    v9(v10) = v11;
  });
  return v9;
}

LAPIS::DualView<double**, Kokkos::LayoutRight> scale_in_place(LAPIS::DualView<double**, Kokkos::LayoutRight> v1)
{
  auto v1_d = v1.device_view();
  auto v1_h = v1.host_view();
  size_t v2 = v1.extent(0);
  size_t v3 = v1.extent(1);
  size_t v4 = v2 * v3;
  Kokkos::View<size_t*, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace> v5(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("v5")), 1);
  v5(0) = v4;
  Kokkos::View<double*, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace> v6_host(v1_h.data(), v5(0));
  Kokkos::View<double*, Kokkos::LayoutRight, Kokkos::DefaultExecutionSpace> v6_device(v1_d.data(), v5(0));
  LAPIS::DualView<double*, Kokkos::LayoutRight> v6(v6_device, v6_host, v1);
  auto v6_d = v6.device_view();
  auto v6_h = v6.host_view();
  v6.syncDevice();
  v6.modifyDevice();
  Kokkos::parallel_for(Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>(0, v4),
  KOKKOS_LAMBDA(size_t v7)
  {
    double v8 = v6_d(v7);
    double v9 = v8 * 2.0;
    v6_d(v7) = v9;
  });
  return v1;
}

extern "C" void py_column_sums(StridedMemRefType<double, 1>** ret0, StridedMemRefType<double, 2>* param0)
{
  auto param0_smr = LAPIS::stridedMemrefToView<Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>>(*param0);
  auto results = column_sums(param0_smr);
  results.syncHost();
  **ret0 = LAPIS::viewToStridedMemref(results.host_view());
  LAPIS::keepAlive(results.host_view());
  if(results.host_view().data() == results.device_view().data()) 
    LAPIS::keepAlive(results.device_view());
  Kokkos::DefaultExecutionSpace().fence();
}

extern "C" void py_scale_in_place(StridedMemRefType<double, 2>** ret0, StridedMemRefType<double, 2>* param0)
{
  auto param0_smr = LAPIS::stridedMemrefToView<Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>>(*param0);
  auto results = scale_in_place(param0_smr);
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
