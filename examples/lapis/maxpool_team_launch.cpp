// The launcher of the team-level module maxpool_team (maxpool_team_launch.hpp says what it computes). Not
// emitted: LAPIS leaves the launch of a team-level function to its user (examples/maxpool_nchw_teamlevel/
// main.cpp), and this is such a user, written in main.cpp's shape (run() below), then exposed to lapis the
// way the emitter exposes a device-level function: a host function over LAPIS::DualViews (the input synced
// to the device, the result a device View returned as a DualView) and a py_ entry point over memref
// descriptors in the emitter's py_ shape; `python -m lapis build` adds the resident entry points and
// lapis_signatures from the declarations in maxpool_team_launch.hpp. The module's own .cpp is what team-level mode writes (an empty lapis_initialize and
// lapis_finalize), so what py_ keeps alive for its caller goes at lapis's finalize instead (below).
#include "maxpool_team_launch.hpp"

#include <mutex>
#include <stdexcept>
#include <string>

#include "maxpool_team.hpp"

using TeamPol = Kokkos::TeamPolicy<Kokkos::DefaultExecutionSpace>;
using TeamMem = typename TeamPol::member_type;
using Float4D = Kokkos::View<float****, Kokkos::LayoutRight, Kokkos::DefaultExecutionSpace>;

// main.cpp's run(), with the level-0 scratch limit as a template parameter: one team per image, each
// given the scratch the helpers ask for at that limit, calling forward on its image's subviews.
template <int max_shared>
void run(const Float4D& out, const Float4D& in) {
  constexpr int scratch0_required = forward_L0_scratch_required(max_shared);
  constexpr int scratch1_required = forward_L1_scratch_required(max_shared);
  static_assert(scratch0_required + scratch1_required == forward_total_scratch_required());
  TeamPol policy(in.extent(0), Kokkos::AUTO());
  policy.set_scratch_size(0, Kokkos::PerTeam(scratch0_required));
  policy.set_scratch_size(1, Kokkos::PerTeam(scratch1_required));
  Kokkos::parallel_for(policy,
    KOKKOS_LAMBDA(const TeamMem& t) {
      int i = t.league_rank();
      auto in_sub = Kokkos::subview(in, Kokkos::make_pair(i, i+1), Kokkos::ALL(), Kokkos::ALL(), Kokkos::ALL());
      auto out_sub = Kokkos::subview(out, Kokkos::make_pair(i, i+1), Kokkos::ALL(), Kokkos::ALL(), Kokkos::ALL());
      char* scratch0 = (char*)(t.team_scratch(0).get_shmem(scratch0_required));
      char* scratch1 = (char*)(t.team_scratch(1).get_shmem(scratch1_required));
      forward<Kokkos::DefaultExecutionSpace, max_shared>(t, out_sub, in_sub, scratch0, scratch1);
    });
}

// The batch as a host function over DualViews, as the emitter writes one: the input synced to the
// device, the result a device View returned as a DualView. The extents forward was compiled for are
// checked here (the DualView type checks only the rank and the element type).
template <int max_shared>
LAPIS::DualView<float****, Kokkos::LayoutRight> forward_images(LAPIS::DualView<float****, Kokkos::LayoutRight> in) {
  if (in.extent(1) != 3 || in.extent(2) != 20 || in.extent(3) != 30)
    throw std::invalid_argument("maxpool_team: the input's shape is [N, 3, 20, 30], not [" + std::to_string(in.extent(0)) +
                                ", " + std::to_string(in.extent(1)) + ", " + std::to_string(in.extent(2)) + ", " +
                                std::to_string(in.extent(3)) + "]");
  Float4D out(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("maxpool output")), in.extent(0), 3, 6, 10);
  in.syncDevice();
  run<max_shared>(out, in.device_view());
  return out;
}

// main.cpp's limit: the padded image (8448 bytes) fits level-0 scratch.
LAPIS::DualView<float****, Kokkos::LayoutRight> forward_batch(LAPIS::DualView<float****, Kokkos::LayoutRight> in) {
  return forward_images<12288>(in);
}

// A limit the padded image does not fit: it spills to level-1 scratch.
LAPIS::DualView<float****, Kokkos::LayoutRight> forward_batch_spill(LAPIS::DualView<float****, Kokkos::LayoutRight> in) {
  return forward_images<4096>(in);
}

// Team-level mode's lapis_finalize leaves LAPIS::alives alone, so the results py_ keeps alive for its
// caller are dropped when lapis finalizes (while Kokkos is alive), registered once.
static void dropKeptAtFinalize() {
  static std::once_flag registered;
  std::call_once(registered, [] { lapis::at_finalize([] { LAPIS::alives.clear(); }); });
}

extern "C" void py_forward_batch(StridedMemRefType<float, 4>** ret0, StridedMemRefType<float, 4>* param0)
{
  dropKeptAtFinalize();
  auto param0_smr = LAPIS::stridedMemrefToView<Kokkos::View<float****, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>>(*param0);
  auto results = forward_batch(param0_smr);
  results.syncHost();
  **ret0 = LAPIS::viewToStridedMemref(results.host_view());
  LAPIS::keepAlive(results.host_view());
  if(results.host_view().data() == results.device_view().data()) 
    LAPIS::keepAlive(results.device_view());
  Kokkos::DefaultExecutionSpace().fence();
}

extern "C" void py_forward_batch_spill(StridedMemRefType<float, 4>** ret0, StridedMemRefType<float, 4>* param0)
{
  dropKeptAtFinalize();
  auto param0_smr = LAPIS::stridedMemrefToView<Kokkos::View<float****, Kokkos::LayoutRight, Kokkos::DefaultHostExecutionSpace>>(*param0);
  auto results = forward_batch_spill(param0_smr);
  results.syncHost();
  **ret0 = LAPIS::viewToStridedMemref(results.host_view());
  LAPIS::keepAlive(results.host_view());
  if(results.host_view().data() == results.device_view().data()) 
    LAPIS::keepAlive(results.device_view());
  Kokkos::DefaultExecutionSpace().fence();
}

