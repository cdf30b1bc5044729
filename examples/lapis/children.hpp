// An emitted module (lapis-translate --hpp children.hpp -o children.cpp --py children.py), written to the
// rules of LAPIS's Kokkos emitter with the support header it pastes after #define LAPIS_MODULE_H left out
// (_corpus.py pastes one): children of a parameter. column_sums reads every other column from the second
// through a strided child (a subview after expand-strided-metadata: a rank-0 child, then a reinterpret_cast
// grandchild); scale_in_place doubles its parameter through a reshaped child and returns the parameter.
#ifndef LAPIS_MODULE_H
#define LAPIS_MODULE_H
LAPIS::DualView<double*, Kokkos::LayoutRight> column_sums(LAPIS::DualView<double**, Kokkos::LayoutRight> v1);
LAPIS::DualView<double**, Kokkos::LayoutRight> scale_in_place(LAPIS::DualView<double**, Kokkos::LayoutRight> v1);
extern "C" void lapis_initialize();
extern "C" void lapis_finalize();
#endif
