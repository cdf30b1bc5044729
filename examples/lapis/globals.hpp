// An emitted module (lapis-translate --hpp globals.hpp -o globals.cpp --py globals.py), written to the
// rules of LAPIS's Kokkos emitter with the support header it pastes after #define LAPIS_MODULE_H left out
// (_corpus.py pastes one): a memref.global with initial data used on both sides, a DualView global.
// add_weights(x) returns x + g0 (x of 4 elements), calling add, a function of the module, on the global
// (which is how emitted code reads a DualView global: get_global gives it no _d/_h views of its own).
#ifndef LAPIS_MODULE_H
#define LAPIS_MODULE_H
extern LAPIS::DualView<double[4], Kokkos::LayoutRight> g0;
LAPIS::DualView<double*, Kokkos::LayoutRight> add(LAPIS::DualView<double*, Kokkos::LayoutRight> v1, LAPIS::DualView<double[4], Kokkos::LayoutRight> v2);
LAPIS::DualView<double*, Kokkos::LayoutRight> add_weights(LAPIS::DualView<double*, Kokkos::LayoutRight> v1);
extern "C" void lapis_initialize();
extern "C" void lapis_finalize();
#endif
