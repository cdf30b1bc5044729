// An emitted module (lapis-translate --hpp buffers.hpp -o buffers.cpp --py buffers.py), written to the
// rules of LAPIS's Kokkos emitter with the support header it pastes after #define LAPIS_MODULE_H left out
// (_corpus.py pastes one): buffers of rank 0, of static extents and from memref.alloca. scale_rows(A: 4x4,
// s: scalar) multiplies row i of A by s * (i + 1), the factors in an alloca buffer filled on the host and
// read on the device; trace(A) returns a rank-0 result.
#ifndef LAPIS_MODULE_H
#define LAPIS_MODULE_H
LAPIS::DualView<double[4][4], Kokkos::LayoutRight> scale_rows(LAPIS::DualView<double[4][4], Kokkos::LayoutRight> v1, LAPIS::DualView<double, Kokkos::LayoutRight> v2);
LAPIS::DualView<double, Kokkos::LayoutRight> trace(LAPIS::DualView<double[4][4], Kokkos::LayoutRight> v1);
extern "C" void lapis_initialize();
extern "C" void lapis_finalize();
#endif
