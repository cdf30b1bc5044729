// The matmul module's Kokkos code: a TeamPolicy kernel (a team per row of the result) on the
// device sides of adopted DualViews; the result goes back to Python as a buffer, never copied.
#include "kernels.hpp"

#include <lapis/dualview.hpp>
#include <lapis/runtime/execution_lock.hpp>

#include <stdexcept>

namespace matmul {

using Input = lapis::DualView<double**, Kokkos::LayoutStride, lapis::DefaultDevice>;  // any numpy strides
using Result =
    lapis::DualView<double**, Kokkos::LayoutRight, lapis::DefaultDevice, lapis::sync::Lazy, lapis::alloc::DeviceFirst>;
using Exec = lapis::DefaultDevice::execution_space;

namespace detail {

void matmul(const Input::t_dev& A, const Input::t_dev& B, const Result::t_dev& C) {
  using Team = Kokkos::TeamPolicy<Exec>;
  const int inner = static_cast<int>(A.extent(1));
  Kokkos::parallel_for(
      "matmul::matmul", Team(static_cast<int>(C.extent(0)), Kokkos::AUTO),
      KOKKOS_LAMBDA(const Team::member_type& team) {
        const int i = team.league_rank();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, static_cast<int>(C.extent(1))), [&](int j) {
          double sum = 0;
          for (int k = 0; k < inner; ++k) sum += A(i, k) * B(k, j);
          C(i, j) = sum;
        });
      });
}

}  // namespace detail

Buffer matmul(const Buffer& a, const Buffer& b) {
  Input x(a), y(b);
  if (x.extent(1) != y.extent(0)) throw std::invalid_argument("matmul.matmul: the shapes do not align");
  Result c(lapis::for_overwrite, "matmul.matmul", x.extent(0), y.extent(1));
  auto A = x.view_device(lapis::Access::read), B = y.view_device(lapis::Access::read);  // implicit uploads
  auto C = c.view_device(lapis::Access::overwrite);
  const lapis::ExecutionGuard guard;
  detail::matmul(A, B, C);
  return c.buffer();
}

}  // namespace matmul
