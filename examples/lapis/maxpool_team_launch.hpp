// The launcher of the team-level module maxpool_team (hand-written, the user's code: team-level output has
// no host functions of its own). forward_batch runs maxpool_team's forward once per image of a batch, one
// team per image, as run() in LAPIS's examples/maxpool_nchw_teamlevel/main.cpp does: input [N, 3, 20, 30],
// result [N, 3, 6, 10], float32. The level-0 scratch limit is a compile-time choice of the caller:
//   forward_batch        allows 12288 bytes of level-0 scratch per team (main.cpp's max_shared): the padded
//                        image (8448 bytes) lives there;
//   forward_batch_spill  allows 4096: the padded image spills to level-1 scratch.
// Both compute the same values. The .cpp also gives each a py_ entry point of the emitter's shape;
// `python -m lapis build` derives the resident ones from the declarations below.
#pragma once

#include <lapis/interop/lapis_compat.hpp>

LAPIS::DualView<float****, Kokkos::LayoutRight> forward_batch(LAPIS::DualView<float****, Kokkos::LayoutRight> in);
LAPIS::DualView<float****, Kokkos::LayoutRight> forward_batch_spill(LAPIS::DualView<float****, Kokkos::LayoutRight> in);
