// A C++ driver in the shape of LAPIS's benchmark programs, compiled against lapis: it makes
// LAPIS::DualViews, fills their device views, marks them, syncs to the host, then calls a forward
// function in a timed loop: the module's gemm (gemm_forward.hpp). Prints the mean time per call,
// the copies lapis made, and "OK" when the result matches a host gemm.
#include <lapis/runtime/execution_lock.hpp>
#include <lapis/interop/lapis_compat.hpp>

#include "gemm_forward.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>

using Exec = Kokkos::DefaultExecutionSpace;

void fill(Matrix& m, double scale) {
  auto d = m.device_view();
  {
    const lapis::ExecutionGuard guard;
    Kokkos::parallel_for(
        "driver::fill", Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>>({0, 0}, {d.extent(0), d.extent(1)}),
        KOKKOS_LAMBDA(std::int64_t i, std::int64_t j) { d(i, j) = scale * double(i + 2 * j); });
  }
  m.modifyDevice();
  m.syncHost();
}

int main() {
  lapis_initialize();
  int status = 0;
  {
    const int n = 64, trials = 20;
    Matrix A("A", n, n), B("B", n, n);
    fill(A, 0.5);
    fill(B, 0.25);
    const lapis::TransferStats before = lapis::process_transfer_stats();
    Kokkos::Timer timer;
    Matrix C;
    for (int t = 0; t < trials; ++t) C = gemm(A, B);
    Kokkos::fence();
    const double seconds = timer.seconds();
    C.syncHost();
    const lapis::TransferStats moved = lapis::process_transfer_stats() - before;
    auto a = A.host_view(), b = B.host_view(), c = C.host_view();
    double worst = 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        double expected = 0;
        for (int p = 0; p < n; ++p) expected += a(i, p) * b(p, j);
        worst = std::fmax(worst, std::fabs(c(i, j) - expected));
      }
    std::printf("forward: %.1f us per call over %d calls\n", seconds / trials * 1e6, trials);
    std::printf("host->device: %llu copies; device->host: %llu copies\n",
                static_cast<unsigned long long>(moved.h2d_count), static_cast<unsigned long long>(moved.d2h_count));
    status = worst < 1e-9 ? 0 : 1;
    std::printf(status == 0 ? "OK\n" : "MISMATCH\n");
  }
  lapis_finalize();
  return status;
}
