// An emitted module (lapis-translate --hpp batched_gemm.hpp -o batched_gemm.cpp --py batched_gemm.py),
// written to the rules of LAPIS's Kokkos emitter with the support header it pastes after #define
// LAPIS_MODULE_H left out (_corpus.py pastes one): batched gemm, C[b] = A[b] B[b], in float32 as LAPIS's
// benchmark has it.
#ifndef LAPIS_MODULE_H
#define LAPIS_MODULE_H
LAPIS::DualView<float***, Kokkos::LayoutRight> forward(LAPIS::DualView<float***, Kokkos::LayoutRight> v1, LAPIS::DualView<float***, Kokkos::LayoutRight> v2);
extern "C" void lapis_initialize();
extern "C" void lapis_finalize();
#endif
