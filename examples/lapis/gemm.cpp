#include "gemm.hpp"
LAPIS::DualView<double**, Kokkos::LayoutRight> forward(LAPIS::DualView<double**, Kokkos::LayoutRight> v1, LAPIS::DualView<double**, Kokkos::LayoutRight> v2)
{
  auto v1_d = v1.device_view();
  auto v1_h = v1.host_view();
  auto v2_d = v2.device_view();
  auto v2_h = v2.host_view();
  size_t v3 = v1.extent(0);
  size_t v4 = v2.extent(1);
  size_t v5 = v1.extent(1);
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::DefaultExecutionSpace> v6(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("v6")), v3, v4);
  v1.syncDevice();
  v2.syncDevice();
  Kokkos::parallel_for(Kokkos::MDRangePolicy<Kokkos::DefaultExecutionSpace, Kokkos::Rank<2, Kokkos::Iterate::Right, Kokkos::Iterate::Right>>({int64_t(0), int64_t(0)}, {int64_t(v3), int64_t(v4)}),
  KOKKOS_LAMBDA(size_t v7, size_t v8)
  {
    double v9 = 0.0;
    for (size_t v10 = 0; v10 < v5; v10 += 1) {
      double v11 = v1_d(v7, v10);
      double v12 = v2_d(v10, v8);
      double v13 = v11 * v12;
      double v14 = v9 + v13;
      v9 = v14;
    }
    v6(v7, v8) = v9;
  });
  return v6;
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

extern "C" void lapis_initialize()
{
  if (!Kokkos::is_initialized()) Kokkos::initialize();
}

extern "C" void lapis_finalize()
{
  LAPIS::alives.clear();
}
