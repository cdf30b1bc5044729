// The adder module's Kokkos code: typed lapis::DualViews adopt the Python DualViews' buffers
// (rank, element type and device checked), kernels run on their device sides, and results go back
// to Python as buffers, never copied.
#include "kernels.hpp"

#include <lapis/dualview.hpp>
#include <lapis/runtime/execution_lock.hpp>
#include <lapis/runtime/runtime.hpp>

#include <stdexcept>

namespace adder {

// Inputs may be any Python DualView (a borrowed numpy array keeps the caller's strides), so their
// views are LayoutStride; results are lapis-owned, device first.
using Input = lapis::DualView<double**, Kokkos::LayoutStride, lapis::DefaultDevice>;
using Result =
    lapis::DualView<double**, Kokkos::LayoutRight, lapis::DefaultDevice, lapis::sync::Lazy, lapis::alloc::DeviceFirst>;
using Exec = lapis::DefaultDevice::execution_space;

namespace detail {

Kokkos::View<int, lapis::DefaultDevice>& call_counter() {
  static Kokkos::View<int, lapis::DefaultDevice> counter;
  return counter;
}

// Under the execution lock.
void count_call() {
  auto& counter = call_counter();
  if (counter.data() == nullptr) {
    counter = Kokkos::View<int, lapis::DefaultDevice>("adder calls");
    lapis::at_finalize([] { call_counter() = {}; });
  }
  auto c = counter;
  Kokkos::parallel_for("adder::count_call", Kokkos::RangePolicy<Exec>(0, 1), KOKKOS_LAMBDA(int) { c() += 1; });
}

void add(const Input::t_dev& A, const Input::t_dev& B, const Result::t_dev& R) {
  Kokkos::parallel_for(
      "adder::add", Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>>({0, 0}, {R.extent(0), R.extent(1)}),
      KOKKOS_LAMBDA(std::size_t i, std::size_t j) { R(i, j) = A(i, j) + B(i, j); });
}

double total(const Input::t_dev& A) {
  double sum = 0;
  Kokkos::parallel_reduce(
      "adder::total", Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>>({0, 0}, {A.extent(0), A.extent(1)}),
      KOKKOS_LAMBDA(std::size_t i, std::size_t j, double& partial) { partial += A(i, j); }, sum);
  return sum;
}

int calls() {
  int n = 0;
  if (call_counter().data() == nullptr) return n;
  auto c = call_counter();
  Kokkos::parallel_reduce(
      "adder::calls", Kokkos::RangePolicy<Exec>(0, 1), KOKKOS_LAMBDA(int, int& value) { value = c(); },
      Kokkos::Max<int>(n));
  return n;
}

}  // namespace detail

Buffer add(const Buffer& a, const Buffer& b) {
  Input x(a), y(b);
  if (x.extent(0) != y.extent(0) || x.extent(1) != y.extent(1))
    throw std::invalid_argument("adder.add: the two arrays differ in shape");
  Result r(lapis::for_overwrite, "adder.add", x.extent(0), x.extent(1));
  // read access: a numpy input is uploaded here (an implicit copy, which the transfer guard judges)
  auto A = x.view_device(lapis::Access::read), B = y.view_device(lapis::Access::read);
  auto R = r.view_device(lapis::Access::overwrite);
  const lapis::ExecutionGuard guard;  // every dispatch in the process holds lapis's one lock
  detail::add(A, B, R);
  detail::count_call();
  return r.buffer();
}

double total(const Buffer& a) {
  Input x(a);
  auto A = x.view_device(lapis::Access::read);
  const lapis::ExecutionGuard guard;
  return detail::total(A);
}

int calls() {
  const lapis::ExecutionGuard guard;
  return detail::calls();
}

bool kokkos_initialized() { return Kokkos::is_initialized(); }

int concurrency() { return Exec().concurrency(); }

}  // namespace adder
