#include "buffers.hpp"
LAPIS::DualView<double[4][4], Kokkos::LayoutRight> scale_rows(LAPIS::DualView<double[4][4], Kokkos::LayoutRight> v1, LAPIS::DualView<double, Kokkos::LayoutRight> v2)
{
  auto v1_d = v1.device_view();
  auto v1_h = v1.host_view();
  auto v2_d = v2.device_view();
  auto v2_h = v2.host_view();
  LAPIS::DualView<double[4], Kokkos::LayoutRight> v3(std::string("v3"));
  auto v3_d = v3.device_view();
  auto v3_h = v3.host_view();
  v2.syncHost();
  v3.syncHost();
  v3.modifyHost();
  double v4 = v2_h();
  Kokkos::parallel_for(Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, 4),
  [=](size_t v5)
  {
    double v6 = (double)(v5 + 1);
    double v7 = v4 * v6;
    v3_h(v5) = v7;
  });
  Kokkos::View<double[4][4], Kokkos::LayoutRight, Kokkos::DefaultExecutionSpace> v8(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("v8")));
  v1.syncDevice();
  v3.syncDevice();
  Kokkos::parallel_for(Kokkos::MDRangePolicy<Kokkos::DefaultExecutionSpace, Kokkos::Rank<2, Kokkos::Iterate::Right, Kokkos::Iterate::Right>>({int64_t(0), int64_t(0)}, {int64_t(4), int64_t(4)}),
  KOKKOS_LAMBDA(size_t v9, size_t v10)
  {
    double v11 = v1_d(v9, v10);
    double v12 = v3_d(v9);
    double v13 = v11 * v12;
    v8(v9, v10) = v13;
  });
  return v8;
}

LAPIS::DualView<double, Kokkos::LayoutRight> trace(LAPIS::DualView<double[4][4], Kokkos::LayoutRight> v1)
{
  auto v1_d = v1.device_view();
  auto v1_h = v1.host_view();
  Kokkos::View<double, Kokkos::LayoutRight, Kokkos::DefaultExecutionSpace> v2(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("v2")));
  v1.syncDevice();
  Kokkos::parallel_for(Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>(0, 1),
  KOKKOS_LAMBDA(size_t v3)
  {
    double v4 = 0.0;
    for (size_t v5 = 0; v5 < 4; v5 += 1) {
      double v6 = v1_d(v5, v5);
      double v7 = v4 + v6;
      v4 = v7;
    }
    v2() = v4;
  });
  return v2;
}

extern "C" void py_scale_rows(StridedMemRefType<double, 2>** ret0, StridedMemRefType<double, 2>* param0, StridedMemRefType<double, 0>* param1)
{
  auto param0_smr = LAPIS::stridedMemrefToView<Kokkos::View<double[4][4], Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>>(*param0);
  auto param1_smr = LAPIS::stridedMemrefToView<Kokkos::View<double, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>>(*param1);
  auto results = scale_rows(param0_smr, param1_smr);
  results.syncHost();
  **ret0 = LAPIS::viewToStridedMemref(results.host_view());
  LAPIS::keepAlive(results.host_view());
  if(results.host_view().data() == results.device_view().data()) 
    LAPIS::keepAlive(results.device_view());
  Kokkos::DefaultExecutionSpace().fence();
}

extern "C" void py_trace(StridedMemRefType<double, 0>** ret0, StridedMemRefType<double, 2>* param0)
{
  auto param0_smr = LAPIS::stridedMemrefToView<Kokkos::View<double[4][4], Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>>(*param0);
  auto results = trace(param0_smr);
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
