// A driver in the shape of LAPIS's examples/maxpool_nchw_teamlevel/main.cpp: the driver initializes Kokkos
// (a team-level module's lapis_initialize does not), fills the input on the host and copies it to the
// device once, runs the batch through the launcher (main.cpp's run(), maxpool_team_launch.cpp) and checks
// the result against a host max pool by the largest elementwise difference, with Kokkos::fabs as main.cpp
// checks it. Here the input and the results are LAPIS::DualViews: the batch runs eleven times at main.cpp's
// level-0 limit (each result assigned over the last) and once with the padded image spilled to level-1
// scratch, whose values must be the same, and the driver prints the copies lapis made after the input was
// on the device: none but the two final reads.
#include <cmath>
#include <cstdio>

#include "maxpool_team.hpp"
#include "maxpool_team_launch.hpp"

int main()
{
  using ExecSpace = Kokkos::DefaultExecutionSpace;
  Kokkos::initialize();
  std::printf("Running on %s backend.\n", ExecSpace().name());
  // As in LAPIS's team-level drivers: the module's lapis_initialize leaves Kokkos to the driver.
  lapis_initialize();
  bool passed = true;
  {
    using DualV = LAPIS::DualView<float****, Kokkos::LayoutRight>;
    const int images = 2;
    DualV in("maxpool input", images, 3, 20, 30);
    // Construct inputs (main.cpp reads them from a file): distinct values, negative ones included.
    in.modifyHost();
    auto in_host = in.host_view();
    for (size_t i = 0; i < in_host.size(); i++) in_host.data()[i] = static_cast<float>((i * 7919) % 1543) / 64.0f - 12.0f;
    in.syncDevice();
    const auto before = lapis::process_transfer_stats();
    auto out = forward_batch(in);
    Kokkos::Timer timer;
    for (int i = 0; i < 10; ++i) out = forward_batch(in);
    const double seconds = timer.seconds() / 10;
    auto spilled = forward_batch_spill(in);
    out.syncHost();
    spilled.syncHost();
    const auto moved = lapis::process_transfer_stats() - before;
    // The correct output (main.cpp reads it from a file): the max over each window of the image padded
    // by -inf, window 3x3, stride 3, dilation 2.
    auto out_actual = out.host_view();
    auto out_spilled = spilled.host_view();
    float maxDiff = 0;
    int spillDiffers = 0;
    for (int n = 0; n < images; n++)
      for (int c = 0; c < 3; c++)
        for (int i = 0; i < 6; i++)
          for (int j = 0; j < 10; j++) {
            float gold = -INFINITY;
            for (int kh = 0; kh < 3; kh++)
              for (int kw = 0; kw < 3; kw++) {
                const int r = 3 * i + 2 * kh - 1, q = 3 * j + 2 * kw - 1;
                if (r >= 0 && r < 20 && q >= 0 && q < 30) gold = std::fmax(gold, in_host(n, c, r, q));
              }
            float diff = Kokkos::fabs(gold - out_actual(n, c, i, j));
            if (diff > maxDiff) maxDiff = diff;
            if (out_spilled(n, c, i, j) != out_actual(n, c, i, j)) spillDiffers++;
          }
    std::printf("maxpool %dx3x20x30 (scratch per team: L0 %d + L1 %d bytes, spilled: L0 %d + L1 %d): %.3g s per call, "
                "maximum elementwise diff %g, %d values differ when spilled; after the input was on the device: "
                "%llu uploads, %llu downloads\n",
                images, forward_L0_scratch_required(12288), forward_L1_scratch_required(12288),
                forward_L0_scratch_required(4096), forward_L1_scratch_required(4096), seconds, maxDiff, spillDiffers,
                static_cast<unsigned long long>(moved.h2d_count), static_cast<unsigned long long>(moved.d2h_count));
    passed = maxDiff < 1e-5 && spillDiffers == 0;
  }
  lapis_finalize();
  Kokkos::finalize();
  if(passed)
    std::printf("** Success **\n");
  else
    std::printf("** Failure **\n");
  return passed ? 0 : 1;
}
