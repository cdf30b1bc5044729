// An emitted module (lapis-translate --hpp matadd.hpp -o matadd.cpp --py matadd.py), written to the rules
// of LAPIS's Kokkos emitter with the support header it pastes after #define LAPIS_MODULE_H left out
// (_corpus.py pastes one): A + B into a new array (forward) and into a given one, which it returns
// (forward_out, LAPIS's "no-alloc" form).
#ifndef LAPIS_MODULE_H
#define LAPIS_MODULE_H
LAPIS::DualView<double**, Kokkos::LayoutRight> forward(LAPIS::DualView<double**, Kokkos::LayoutRight> v1, LAPIS::DualView<double**, Kokkos::LayoutRight> v2);
LAPIS::DualView<double**, Kokkos::LayoutRight> forward_out(LAPIS::DualView<double**, Kokkos::LayoutRight> v1, LAPIS::DualView<double**, Kokkos::LayoutRight> v2, LAPIS::DualView<double**, Kokkos::LayoutRight> v3);
extern "C" void lapis_initialize();
extern "C" void lapis_finalize();
#endif
