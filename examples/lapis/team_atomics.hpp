// An emitted module (lapis-translate --hpp team_atomics.hpp -o team_atomics.cpp --py ...), written to the
// rules of LAPIS's Kokkos emitter with the support header it pastes after #define LAPIS_MODULE_H left out
// (_corpus.py pastes one): team-level parallelism with atomics. histogram(values, bins) counts values per
// bin (a TeamParallel over chunks of 64, atomic adds); max_abs(x) is the largest |x(i)|, NaN ignored (a
// ThreadParallel, maxnumf as LAPIS::atomic_maxnum into a rank-0 result).
#ifndef LAPIS_MODULE_H
#define LAPIS_MODULE_H
LAPIS::DualView<int64_t*, Kokkos::LayoutRight> histogram(LAPIS::DualView<int64_t*, Kokkos::LayoutRight> v1, size_t v2);
LAPIS::DualView<double, Kokkos::LayoutRight> max_abs(LAPIS::DualView<double*, Kokkos::LayoutRight> v1);
extern "C" void lapis_initialize();
extern "C" void lapis_finalize();
#endif
