// The gemm forward function as LAPIS's emitter writes one (plus lapis's execution lock around the
// dispatch): shared by the module and the C++ driver, as LAPIS's drivers include the program they time.
#pragma once

#include <lapis/runtime/execution_lock.hpp>
#include <lapis/interop/lapis_compat.hpp>

#include <cstdint>
#include <stdexcept>

using Matrix = LAPIS::DualView<double**, Kokkos::LayoutRight>;

inline Matrix gemm(Matrix A, Matrix B) {
  if (A.extent(1) != B.extent(0)) throw std::invalid_argument("gemm: the shapes do not align");
  A.syncDevice();
  B.syncDevice();
  Matrix C("C", A.extent(0), B.extent(1));
  auto a = A.device_view(), b = B.device_view(), c = C.device_view();
  const std::int64_t k = A.extent(1);
  {
    const lapis::ExecutionGuard guard;
    Kokkos::parallel_for(
        "lapis_style::gemm",
        Kokkos::MDRangePolicy<Kokkos::DefaultExecutionSpace, Kokkos::Rank<2>>({0, 0}, {c.extent(0), c.extent(1)}),
        KOKKOS_LAMBDA(std::int64_t i, std::int64_t j) {
          double sum = 0;
          for (std::int64_t p = 0; p < k; ++p) sum += a(i, p) * b(p, j);
          c(i, j) = sum;
        });
  }
  C.modifyDevice();
  return C;
}
