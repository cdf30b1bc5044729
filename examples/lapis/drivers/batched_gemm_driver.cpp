// A driver in the shape of LAPIS's batched gemm benchmark driver (float32): the module's header,
// DualViews filled on the device, the forward function called in a timed loop. It checks the result
// against a host computation and prints the copies lapis made.
#include <Kokkos_Random.hpp>

#include <cmath>
#include <cstdio>

#include "batched_gemm.hpp"

int main() {
  Kokkos::initialize();
  lapis_initialize();
  int status = 0;
  {
    using DualV = LAPIS::DualView<float***, Kokkos::LayoutRight>;
    const int batch = 8, n = 32;
    DualV A("A", batch, n, n);
    DualV B("B", batch, n, n);
    Kokkos::Random_XorShift64_Pool<Kokkos::DefaultExecutionSpace> pool(13718);
    A.modifyDevice();
    Kokkos::fill_random(A.device_view(), pool, 0.0f, 1.0f);
    B.modifyDevice();
    Kokkos::fill_random(B.device_view(), pool, 0.0f, 1.0f);
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
    for (int p = 0; p < batch; ++p)
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          double sum = 0;
          for (int k = 0; k < n; ++k) sum += double(a(p, i, k)) * b(p, k, j);
          error = std::fmax(error, std::fabs(sum - c(p, i, j)));
        }
    std::printf("batched gemm %dx%dx%d: %.3g s per call, max error %.3g; after the inputs were filled: %llu uploads, %llu downloads\n",
                batch, n, n, seconds, error, static_cast<unsigned long long>(moved.h2d_count),
                static_cast<unsigned long long>(moved.d2h_count));
    if (error > 1e-3) status = 1;
  }
  lapis_finalize();
  Kokkos::finalize();
  return status;
}
