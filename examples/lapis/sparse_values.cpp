#include "sparse_values.hpp"
LAPIS::DualView<double*, Kokkos::LayoutRight> scale_values(void* v1, double v2)
{
  LAPIS::DualView<double*, Kokkos::LayoutRight> v3;
  {
    StridedMemRefType<double, 1> v3_smr;
    _mlir_ciface_sparseValuesF64(&v3_smr, v1);
    v3 = LAPIS::stridedMemrefToView<Kokkos::View<double*, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>>(v3_smr);
    v3.syncHostOnDestroy();
  }
  ;
  auto v3_d = v3.device_view();
  auto v3_h = v3.host_view();
  size_t v4 = v3.extent(0);
  v3.syncDevice();
  v3.modifyDevice();
  Kokkos::parallel_for(Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>(0, v4),
  KOKKOS_LAMBDA(size_t v5)
  {
    double v6 = v3_d(v5);
    double v7 = v6 * v2;
    v3_d(v5) = v7;
  });
  return v3;
}

extern "C" void py_scale_values(StridedMemRefType<double, 1>** ret0, void* param0, double param1)
{
  auto results = scale_values(param0, param1);
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
