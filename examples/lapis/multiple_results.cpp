#include "multiple_results.hpp"
std::tuple<LAPIS::DualView<double*, Kokkos::LayoutRight>, double> sum_and_dot(LAPIS::DualView<double*, Kokkos::LayoutRight> v1, LAPIS::DualView<double*, Kokkos::LayoutRight> v2)
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
  double v9;
  Kokkos::parallel_reduce(Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>(0, v3),
  KOKKOS_LAMBDA(size_t v10, double& lreduce0)
  {
    double v11 = v1_d(v10);
    double v12 = v2_d(v10);
    double v13 = v11 * v12;
    lreduce0 = lreduce0 + v13;
  }, (v9));
  Kokkos::Sum<double> v9_joiner(v9);
  v9_joiner.join(v9, 0.0);
  return std::make_tuple(v4, v9);
}

std::tuple<LAPIS::DualView<double*, Kokkos::LayoutRight>, double> program(LAPIS::DualView<double*, Kokkos::LayoutRight> v1, LAPIS::DualView<double*, Kokkos::LayoutRight> v2)
{
  auto v1_d = v1.device_view();
  auto v1_h = v1.host_view();
  auto v2_d = v2.device_view();
  auto v2_h = v2.host_view();
  LAPIS::DualView<double*, Kokkos::LayoutRight> v3;
  double v4;
  std::tie(v3, v4) = sum_and_dot(v1, v2);
  auto v3_d = v3.device_view();
  auto v3_h = v3.host_view();
  LAPIS::DualView<double*, Kokkos::LayoutRight> v5;
  double v6;
  std::tie(v5, v6) = sum_and_dot(v3, v1);
  auto v5_d = v5.device_view();
  auto v5_h = v5.host_view();
  double v7 = v4 + v6;
  return std::make_tuple(v5, v7);
}

extern "C" void py_sum_and_dot(StridedMemRefType<double, 1>** ret0, double* ret1, StridedMemRefType<double, 1>* param0, StridedMemRefType<double, 1>* param1)
{
  auto param0_smr = LAPIS::stridedMemrefToView<Kokkos::View<double*, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>>(*param0);
  auto param1_smr = LAPIS::stridedMemrefToView<Kokkos::View<double*, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>>(*param1);
  auto results = sum_and_dot(param0_smr, param1_smr);
  std::get<0>(results).syncHost();
  **ret0 = LAPIS::viewToStridedMemref(std::get<0>(results).host_view());
  LAPIS::keepAlive(std::get<0>(results).host_view());
  if(std::get<0>(results).host_view().data() == std::get<0>(results).device_view().data()) 
    LAPIS::keepAlive(std::get<0>(results).device_view());
  *ret1 = std::get<1>(results);
  Kokkos::DefaultExecutionSpace().fence();
}

extern "C" void py_program(StridedMemRefType<double, 1>** ret0, double* ret1, StridedMemRefType<double, 1>* param0, StridedMemRefType<double, 1>* param1)
{
  auto param0_smr = LAPIS::stridedMemrefToView<Kokkos::View<double*, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>>(*param0);
  auto param1_smr = LAPIS::stridedMemrefToView<Kokkos::View<double*, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>>(*param1);
  auto results = program(param0_smr, param1_smr);
  std::get<0>(results).syncHost();
  **ret0 = LAPIS::viewToStridedMemref(std::get<0>(results).host_view());
  LAPIS::keepAlive(std::get<0>(results).host_view());
  if(std::get<0>(results).host_view().data() == std::get<0>(results).device_view().data()) 
    LAPIS::keepAlive(std::get<0>(results).device_view());
  *ret1 = std::get<1>(results);
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
