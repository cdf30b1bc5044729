#include "batched_gemm.hpp"
LAPIS::DualView<float***, Kokkos::LayoutRight> forward(LAPIS::DualView<float***, Kokkos::LayoutRight> v1, LAPIS::DualView<float***, Kokkos::LayoutRight> v2)
{
  auto v1_d = v1.device_view();
  auto v1_h = v1.host_view();
  auto v2_d = v2.device_view();
  auto v2_h = v2.host_view();
  size_t v3 = v1.extent(0);
  size_t v4 = v1.extent(1);
  size_t v5 = v2.extent(2);
  size_t v6 = v1.extent(2);
  Kokkos::View<float***, Kokkos::LayoutRight, Kokkos::DefaultExecutionSpace> v7(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("v7")), v3, v4, v5);
  v1.syncDevice();
  v2.syncDevice();
  Kokkos::parallel_for(Kokkos::MDRangePolicy<Kokkos::DefaultExecutionSpace, Kokkos::Rank<3, Kokkos::Iterate::Right, Kokkos::Iterate::Right>>({int64_t(0), int64_t(0), int64_t(0)}, {int64_t(v3), int64_t(v4), int64_t(v5)}),
  KOKKOS_LAMBDA(size_t v8, size_t v9, size_t v10)
  {
    float v11 = 0.0f;
    for (size_t v12 = 0; v12 < v6; v12 += 1) {
      float v13 = v1_d(v8, v9, v12);
      float v14 = v2_d(v8, v12, v10);
      float v15 = v13 * v14;
      float v16 = v11 + v15;
      v11 = v16;
    }
    v7(v8, v9, v10) = v11;
  });
  return v7;
}

extern "C" void py_forward(StridedMemRefType<float, 3>** ret0, StridedMemRefType<float, 3>* param0, StridedMemRefType<float, 3>* param1)
{
  auto param0_smr = LAPIS::stridedMemrefToView<Kokkos::View<float***, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>>(*param0);
  auto param1_smr = LAPIS::stridedMemrefToView<Kokkos::View<float***, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>>(*param1);
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
