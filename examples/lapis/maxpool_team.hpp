// An emitted team-level module (lapis-opt --team-compiler-kokkos, then lapis-translate --team-level
// -o maxpool_team.cpp --hpp maxpool_team.hpp), written to the rules of LAPIS's Kokkos emitter for LAPIS's
// examples/maxpool_nchw_teamlevel/maxpool.mlir: a 2-D max pool of one 1x3x20x30 image (NCHW, float32),
// padded by 1 with -inf, window 3x3, stride 3, dilation 2, into 1x3x6x10. Team-level output has no
// pasted support header, no DualViews and no py_ entry points: the header holds Kokkos_Core, the scratch
// helpers and forward() as a template a team calls; maxpool_team.cpp holds lapis_initialize and
// lapis_finalize, which do nothing (the caller owns Kokkos). The caller sizes the team's scratch from the
// helpers and passes its pointers (maxpool_team_launch.cpp here, as LAPIS's main.cpp does).
//
// What the pipeline leaves for the emitter: the padded tensor is the function's one allocation, in team
// scratch (alloc_scratch: 1*3*22*32 floats = 8448 bytes at offset 0; the pooling's 3x3 window tensor is
// never read, so its buffer is gone before scratch is assigned); the pad becomes a -inf fill of it, a
// reinterpret_cast of it at offset 33 (row 1, column 1) and a copy of the input into that strided view
// (memref.copy made a TeamVectorMDRange); the result is the first parameter (v1), filled with -inf, then
// the pooling (a TeamVectorMDRange over the output with the two window loops as scf.for); a barrier after
// each team-wide loop. An allocation whose end passes L0_scratch_max spills to level-1 scratch.
//
// The emitter writes a comment line or two before each scratch helper; they are left out here.
#ifndef LAPIS_MODULE_H
#define LAPIS_MODULE_H
#include <Kokkos_Core.hpp>
KOKKOS_INLINE_FUNCTION constexpr int forward_total_scratch_required() {
  return 8448;
}

KOKKOS_INLINE_FUNCTION constexpr int forward_L1_shift(int L0_scratch_max) {
  int tmp = 8448;
  if(8448 > L0_scratch_max && 0 < tmp)
    tmp = 0;
  return tmp;
}

KOKKOS_INLINE_FUNCTION constexpr int forward_L0_scratch_required(int L0_scratch_max) {
  int tmp = 0;
  if(8448 <= L0_scratch_max && 8448 > tmp)
    tmp = 8448;
  return tmp;
}

KOKKOS_INLINE_FUNCTION constexpr int forward_L1_scratch_required(int L0_scratch_max) {
  return 8448 - forward_L1_shift(L0_scratch_max);
}

template<typename ExecSpace, int L0_scratch_max, typename ViewArg0, typename ViewArg1>
KOKKOS_INLINE_FUNCTION void forward(const typename Kokkos::TeamPolicy<ExecSpace>::member_type& team, const ViewArg0& v1, const ViewArg1& v2, char* scratch0, char* scratch1) {
  constexpr int l1_cutoff = forward_L1_shift(L0_scratch_max);
  constexpr bool v3_spill = 8448 > L0_scratch_max;
  Kokkos::View<float[1][3][22][32], Kokkos::LayoutRight, Kokkos::AnonymousSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> v3((float*) (v3_spill ? (scratch1 + 0 - l1_cutoff) : (scratch0 + 0)));
  ;
  Kokkos::parallel_for(Kokkos::TeamVectorMDRange(team, 1, 3, 22, 32),
  [=](size_t v4, size_t v5, size_t v6, size_t v7) {
    v3(v4, v5, v6, v7) = -INFINITY;
  });
  team.team_barrier();
  Kokkos::LayoutStride v8_layout(1, 2112, 3, 704, 20, 32, 30, 1);
  Kokkos::View<float[1][3][20][30], Kokkos::LayoutStride, Kokkos::AnonymousSpace> v8(v3.data() + 33, v8_layout);
  ;
  Kokkos::parallel_for(Kokkos::TeamVectorMDRange(team, 1, 3, 20, 30),
  [=](size_t v9, size_t v10, size_t v11, size_t v12) {
    float v13 = v2(v9, v10, v11, v12);
    v8(v9, v10, v11, v12) = v13;
  });
  team.team_barrier();
  Kokkos::parallel_for(Kokkos::TeamVectorMDRange(team, 1, 3, 6, 10),
  [=](size_t v14, size_t v15, size_t v16, size_t v17) {
    v1(v14, v15, v16, v17) = -INFINITY;
  });
  team.team_barrier();
  Kokkos::parallel_for(Kokkos::TeamVectorMDRange(team, 1, 3, 6, 10),
  [=](size_t v18, size_t v19, size_t v20, size_t v21) {
    for (size_t v22 = 0; v22 < 3; v22 += 1) {
      for (size_t v23 = 0; v23 < 3; v23 += 1) {
        size_t v24 = v20 * 3;
        size_t v25 = v22 * 2;
        size_t v26 = v24 + v25;
        size_t v27 = v21 * 3;
        size_t v28 = v23 * 2;
        size_t v29 = v27 + v28;
        float v30 = v3(v18, v19, v26, v29);
        float v31 = v1(v18, v19, v20, v21);
        float v32 = (v31 > v30) ? v31 : v30;
        v1(v18, v19, v20, v21) = v32;
      };
    };
  });
  team.team_barrier();
  return;
}



extern "C" void lapis_initialize();
extern "C" void lapis_finalize();
#endif
