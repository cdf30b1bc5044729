// An emitted module (lapis-translate --hpp gemm.hpp -o gemm.cpp --py gemm.py), written to the rules of
// LAPIS's Kokkos emitter with the support header it pastes after #define LAPIS_MODULE_H left out
// (_corpus.py pastes one): gemm, C = A B.
#ifndef LAPIS_MODULE_H
#define LAPIS_MODULE_H
LAPIS::DualView<double**, Kokkos::LayoutRight> forward(LAPIS::DualView<double**, Kokkos::LayoutRight> v1, LAPIS::DualView<double**, Kokkos::LayoutRight> v2);
extern "C" void lapis_initialize();
extern "C" void lapis_finalize();
#endif
