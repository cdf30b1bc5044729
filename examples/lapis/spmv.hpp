// An emitted module (lapis-translate --hpp spmv.hpp -o spmv.cpp --py spmv.py), written to the rules of
// LAPIS's Kokkos emitter with the support header it pastes after #define LAPIS_MODULE_H left out
// (_corpus.py pastes one): y = A x for a CSR matrix given as its three arrays and the storage specifier
// struct LAPIS passes with them (dimension sizes, then the sizes of positions, coordinates and values).
#ifndef LAPIS_MODULE_H
#define LAPIS_MODULE_H
struct Struct0 {
  Struct0() = default;
  Struct0(const std::array<int64_t, 2>& m0_, const std::array<int64_t, 3>& m1_) : m0(m0_), m1(m1_) {}
  std::array<int64_t, 2> m0;
  std::array<int64_t, 3> m1;
};
LAPIS::DualView<double*, Kokkos::LayoutRight> spmv(LAPIS::DualView<int64_t*, Kokkos::LayoutRight> v1, LAPIS::DualView<int64_t*, Kokkos::LayoutRight> v2, LAPIS::DualView<double*, Kokkos::LayoutRight> v3, Struct0 v4, LAPIS::DualView<double*, Kokkos::LayoutRight> v5);
extern "C" void lapis_initialize();
extern "C" void lapis_finalize();
#endif
