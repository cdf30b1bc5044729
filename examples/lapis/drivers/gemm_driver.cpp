// A driver in the shape of LAPIS's gemm benchmark driver: the module's header, DualViews filled on
// the device, the forward function called in a timed loop (each result assigned over the last). It
// checks the product against a host computation and prints the copies lapis made, so that a run
// shows that nothing but the final read crossed between the sides.
#include <Kokkos_Random.hpp>

#include <cmath>
#include <cstdio>

#include "gemm.hpp"

int main() {
  Kokkos::initialize();
  lapis_initialize();
  int status = 0;
  {
    using DualV = LAPIS::DualView<double**, Kokkos::LayoutRight>;
    const int n = 64;
    DualV A("A", n, n);
    DualV B("B", n, n);
    Kokkos::Random_XorShift64_Pool<Kokkos::DefaultExecutionSpace> pool(13718);
    A.modifyDevice();
    Kokkos::fill_random(A.device_view(), pool, 0.0, 1.0);
    B.modifyDevice();
    Kokkos::fill_random(B.device_view(), pool, 0.0, 1.0);
    A.syncHost();
    B.syncHost();
    const auto before = lapis::process_transfer_stats();
    auto output = forward(A, B);
    Kokkos::Timer timer;
    for (int i = 0; i < 10; ++i) output = forward(A, B);
    const double seconds = timer.seconds() / 10;
    output.syncHost();
    const auto moved = lapis::process_transfer_stats() - before;
    auto a = A.host_view(), b = B.host_view(), c = output.host_view();
    double error = 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        double sum = 0;
        for (int k = 0; k < n; ++k) sum += a(i, k) * b(k, j);
        error = std::fmax(error, std::fabs(sum - c(i, j)));
      }
    std::printf("gemm %dx%d: %.3g s per call, max error %.3g; after the inputs were filled: %llu uploads, %llu downloads\n",
                n, n, seconds, error, static_cast<unsigned long long>(moved.h2d_count),
                static_cast<unsigned long long>(moved.d2h_count));
    if (error > 1e-10) status = 1;
  }
  lapis_finalize();
  Kokkos::finalize();
  return status;
}
