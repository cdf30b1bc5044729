#include "spmv.hpp"
LAPIS::DualView<double*, Kokkos::LayoutRight> spmv(LAPIS::DualView<int64_t*, Kokkos::LayoutRight> v1, LAPIS::DualView<int64_t*, Kokkos::LayoutRight> v2, LAPIS::DualView<double*, Kokkos::LayoutRight> v3, Struct0 v4, LAPIS::DualView<double*, Kokkos::LayoutRight> v5)
{
  auto v1_d = v1.device_view();
  auto v1_h = v1.host_view();
  auto v2_d = v2.device_view();
  auto v2_h = v2.host_view();
  auto v3_d = v3.device_view();
  auto v3_h = v3.host_view();
  auto v5_d = v5.device_view();
  auto v5_h = v5.host_view();
  int64_t v6 = v4.m0[0];
  size_t v7 = v6;
  Kokkos::View<double*, Kokkos::LayoutRight, Kokkos::DefaultExecutionSpace> v8(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("v8")), v7);
  v1.syncDevice();
  v2.syncDevice();
  v3.syncDevice();
  v5.syncDevice();
  Kokkos::parallel_for(Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>(0, v7),
  KOKKOS_LAMBDA(size_t v9)
  {
    int64_t v10 = v1_d(v9);
    int64_t v11 = v1_d(v9 + 1);
    double v12 = 0.0;
    for (int64_t v13 = v10; v13 < v11; v13 += 1) {
      int64_t v14 = v2_d(v13);
      double v15 = v3_d(v13);
      double v16 = v5_d(v14);
      double v17 = v15 * v16;
      double v18 = v12 + v17;
      v12 = v18;
    }
    v8(v9) = v12;
  });
  return v8;
}

extern "C" void py_spmv(StridedMemRefType<double, 1>** ret0, StridedMemRefType<int64_t, 1>* param0, StridedMemRefType<int64_t, 1>* param1, StridedMemRefType<double, 1>* param2, const Struct0& param3, StridedMemRefType<double, 1>* param4)
{
  auto param0_smr = LAPIS::stridedMemrefToView<Kokkos::View<int64_t*, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>>(*param0);
  auto param1_smr = LAPIS::stridedMemrefToView<Kokkos::View<int64_t*, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>>(*param1);
  auto param2_smr = LAPIS::stridedMemrefToView<Kokkos::View<double*, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>>(*param2);
  auto param4_smr = LAPIS::stridedMemrefToView<Kokkos::View<double*, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>>(*param4);
  auto results = spmv(param0_smr, param1_smr, param2_smr, param3, param4_smr);
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
