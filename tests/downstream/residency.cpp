// A C++ program using lapis's installed headers: a result computed on the device stays there
// until the host reads it, and the host read copies once.
#include <lapis/core/transfer_guard.hpp>
#include <lapis/dualview.hpp>
#include <lapis/kernels.hpp>
#include <lapis/runtime/execution_lock.hpp>
#include <lapis/runtime/runtime.hpp>

#include <cstdio>

int main() {
  lapis::initialize();
  int status = 0;
  {
    using Vector = lapis::DualView<double*, Kokkos::LayoutRight, lapis::SimulatedDevice>;
    Vector a("a", 100), twice("twice", 100), thrice("thrice", 100);
    auto h = a.view_host();
    for (int i = 0; i < 100; ++i) h(i) = i;
    a.modify_host();
    lapis::kernels::matadd(a, a, twice);       // uploads a once
    lapis::kernels::matadd(twice, a, thrice);  // twice and a are resident: nothing moves
    thrice.sync_host();                        // the one download
    const double last = thrice.view_host()(99);
    const auto copies = lapis::process_transfer_stats();
    std::printf("last=%g h2d=%llu d2h=%llu\n", last, (unsigned long long)copies.h2d_count,
                (unsigned long long)copies.d2h_count);
    status = last == 297.0 && copies.h2d_count == 1 && copies.d2h_count == 1 ? 0 : 1;
  }
  lapis::finalize();
  return status;
}
