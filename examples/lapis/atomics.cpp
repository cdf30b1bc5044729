#include "atomics.hpp"
double atomics_test(LAPIS::DualView<double*, Kokkos::LayoutRight> v1) {
  auto v1_d = v1.device_view();
  auto v1_h = v1.host_view();
  size_t v2 = v1.extent(0);
  LAPIS::DualView<double[1], Kokkos::LayoutRight> v3(std::string("v3"));
  auto v3_d = v3.device_view();
  auto v3_h = v3.host_view();
  v3.syncHost();
  v3.modifyHost();
  v3_h(0) = 0.0e+00;
  v1.syncDevice();
  v3.syncDevice();
  v3.modifyDevice();
  Kokkos::parallel_for(Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>(0, v2),
  KOKKOS_LAMBDA(size_t v4) {
    double v5 = v1_d(v4);
    Kokkos::atomic_add(&v3_d(0), v5);
  });
  v3.syncHost();
  double v6 = v3_h(0);
  return v6;
}

extern "C" void py_atomics_test(double* ret0, StridedMemRefType<double, 1>* param0)
{
  auto param0_smr = LAPIS::stridedMemrefToView<Kokkos::View<double*, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>>(*param0);
  auto results = atomics_test(param0_smr);
  *ret0 = results;
  Kokkos::DefaultExecutionSpace().fence();
}

std::tuple<LAPIS::DualView<double*, Kokkos::LayoutRight>, LAPIS::DualView<int64_t*, Kokkos::LayoutRight>> row_abs_sums(LAPIS::DualView<double**, Kokkos::LayoutRight> v2) {
  auto v2_d = v2.device_view();
  auto v2_h = v2.host_view();
  size_t v3 = v2.extent(0);
  size_t v4 = v2.extent(1);
  LAPIS::DualView<int64_t[1], Kokkos::LayoutRight> v5(std::string("v5"));
  auto v5_d = v5.device_view();
  auto v5_h = v5.host_view();
  v5.syncHost();
  v5.modifyHost();
  v5_h(0) = 0;
  Kokkos::View<double*, Kokkos::LayoutRight, Kokkos::DefaultExecutionSpace> v6(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("v6")), v3);
  Kokkos::View<int64_t*, Kokkos::LayoutRight, Kokkos::DefaultExecutionSpace> v7(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("v7")), v3);
  v2.syncDevice();
  v5.syncDevice();
  v5.modifyDevice();
  auto lambda_v8 = 
  KOKKOS_LAMBDA(const LAPIS::TeamMember& team) {
    size_t induction = team.league_rank() * team.team_size() + team.team_rank();
    if(induction >= v3) return;
    int64_t v9;
    Kokkos::single(Kokkos::PerThread(team), [&](int64_t& lv9) {
      int64_t v10 = Kokkos::atomic_fetch_add(&v5_d(0), 1);
      lv9 = v10;
    }, v9);
    double v11;
    Kokkos::parallel_reduce(Kokkos::ThreadVectorRange(team, 0, v4),
    [=](size_t v12, double& lreduce1) {
      double v13 = v2_d(induction, v12);
      double v14 = Kokkos::abs(v13);
      double v15 = lreduce1 + v14;
      lreduce1 = v15;
      ;
    }, (v11));
    Kokkos::Sum<double> v11_joiner(v11);
    v11_joiner.join(v11, 0.0e+00);
    ;
    size_t v16 = v9;
    ;
    Kokkos::single(Kokkos::PerThread(team), [&]() {
      v6(v16) = v11;
    });
    int64_t v17 = induction;
    ;
    Kokkos::single(Kokkos::PerThread(team), [&]() {
      v7(v16) = v17;
    });
  };
  int vectorLength_v18 = v4 ? LAPIS::threadParallelVectorLength(v4) : 8;
  size_t teamSize_v19 = LAPIS::TeamPolicy(1, 1, vectorLength_v18).team_size_recommended(lambda_v8, Kokkos::ParallelForTag{});
  size_t leagueSize_v20 = (v3 + teamSize_v19 - 1) / teamSize_v19;
  Kokkos::parallel_for(LAPIS::TeamPolicy(leagueSize_v20, teamSize_v19, vectorLength_v18), lambda_v8);
  return std::make_tuple(v6, v7);
}

extern "C" void py_row_abs_sums(StridedMemRefType<double, 1>** ret0, StridedMemRefType<int64_t, 1>** ret1, StridedMemRefType<double, 2>* param0)
{
  auto param0_smr = LAPIS::stridedMemrefToView<Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>>(*param0);
  auto results = row_abs_sums(param0_smr);
  std::get<0>(results).syncHost();
  **ret0 = LAPIS::viewToStridedMemref(std::get<0>(results).host_view());
  LAPIS::keepAlive(std::get<0>(results).host_view());
  if(std::get<0>(results).host_view().data() == std::get<0>(results).device_view().data()) 
    LAPIS::keepAlive(std::get<0>(results).device_view());
  std::get<1>(results).syncHost();
  **ret1 = LAPIS::viewToStridedMemref(std::get<1>(results).host_view());
  LAPIS::keepAlive(std::get<1>(results).host_view());
  if(std::get<1>(results).host_view().data() == std::get<1>(results).device_view().data()) 
    LAPIS::keepAlive(std::get<1>(results).device_view());
  Kokkos::DefaultExecutionSpace().fence();
}


extern "C" void lapis_initialize() {
  if (!Kokkos::is_initialized()) Kokkos::initialize();
}

extern "C" void lapis_finalize()
{
  LAPIS::alives.clear();
}
