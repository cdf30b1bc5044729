#include "team_atomics.hpp"
LAPIS::DualView<int64_t*, Kokkos::LayoutRight> histogram(LAPIS::DualView<int64_t*, Kokkos::LayoutRight> v1, size_t v2)
{
  auto v1_d = v1.device_view();
  auto v1_h = v1.host_view();
  size_t v3 = v1.extent(0);
  Kokkos::View<int64_t*, Kokkos::LayoutRight, Kokkos::DefaultExecutionSpace> v4(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("v4")), v2);
  Kokkos::parallel_for(Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>(0, v2),
  KOKKOS_LAMBDA(size_t v5)
  {
    v4(v5) = 0;
  });
  size_t v6 = (v3 + 63) / 64;
  v1.syncDevice();
  auto lambda_v7 = 
  KOKKOS_LAMBDA(const LAPIS::TeamMember& team)
  {
    size_t v8 = team.league_rank();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 0, 64), [=](size_t v9) {
      size_t v10 = v8 * 64 + v9;
      bool v11 = v10 < v3;
      if (v11) {
        int64_t v12 = v1_d(v10);
        Kokkos::atomic_add(&v4(v12), int64_t(1));
      }
    });
  };
  size_t targetVectorLength_v13 = 1 ? 1 : 8;
  size_t vectorLength_v14 = Kokkos::min<size_t>(targetVectorLength_v13, LAPIS::TeamPolicy::vector_length_max());
  size_t teamSize_v15 = 0;
  if(teamSize_v15) {
    teamSize_v15 = Kokkos::min<size_t>(teamSize_v15, LAPIS::TeamPolicy(1, 1, vectorLength_v14).team_size_max(lambda_v7, Kokkos::ParallelForTag{}));
  }
  else {
    teamSize_v15 = LAPIS::TeamPolicy(1, 1, vectorLength_v14).team_size_recommended(lambda_v7, Kokkos::ParallelForTag{});
  }
  Kokkos::parallel_for(LAPIS::TeamPolicy(v6, teamSize_v15, vectorLength_v14), lambda_v7);
  return v4;
}

LAPIS::DualView<double, Kokkos::LayoutRight> max_abs(LAPIS::DualView<double*, Kokkos::LayoutRight> v1)
{
  auto v1_d = v1.device_view();
  auto v1_h = v1.host_view();
  size_t v2 = v1.extent(0);
  Kokkos::View<double, Kokkos::LayoutRight, Kokkos::DefaultExecutionSpace> v3(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("v3")));
  Kokkos::parallel_for(Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>(0, 1),
  KOKKOS_LAMBDA(size_t v4)
  {
    v3() = NAN;
  });
  v1.syncDevice();
  auto lambda_v5 = 
  KOKKOS_LAMBDA(const LAPIS::TeamMember& team)
  {
    size_t induction = team.league_rank() * team.team_size() + team.team_rank();
    if(induction >= v2) return;
    size_t v6 = induction;
    double v7 = v1_d(v6);
    double v8 = Kokkos::abs(v7);
    LAPIS::atomic_maxnum(&v3(), v8);
  };
  int vectorLength_v9 = 4 ? LAPIS::threadParallelVectorLength(4) : 8;
  size_t teamSize_v10 = LAPIS::TeamPolicy(1, 1, vectorLength_v9).team_size_recommended(lambda_v5, Kokkos::ParallelForTag{});
  size_t leagueSize_v11 = (v2 + teamSize_v10 - 1) / teamSize_v10;
  Kokkos::parallel_for(LAPIS::TeamPolicy(leagueSize_v11, teamSize_v10, vectorLength_v9), lambda_v5);
  return v3;
}

extern "C" void py_histogram(StridedMemRefType<int64_t, 1>** ret0, StridedMemRefType<int64_t, 1>* param0, size_t param1)
{
  auto param0_smr = LAPIS::stridedMemrefToView<Kokkos::View<int64_t*, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>>(*param0);
  auto results = histogram(param0_smr, param1);
  results.syncHost();
  **ret0 = LAPIS::viewToStridedMemref(results.host_view());
  LAPIS::keepAlive(results.host_view());
  if(results.host_view().data() == results.device_view().data()) 
    LAPIS::keepAlive(results.device_view());
  Kokkos::DefaultExecutionSpace().fence();
}

extern "C" void py_max_abs(StridedMemRefType<double, 0>** ret0, StridedMemRefType<double, 1>* param0)
{
  auto param0_smr = LAPIS::stridedMemrefToView<Kokkos::View<double*, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>>(*param0);
  auto results = max_abs(param0_smr);
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
