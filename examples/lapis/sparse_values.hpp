// An emitted module (lapis-translate --hpp sparse_values.hpp -o sparse_values.cpp --py ...), written to the
// rules of LAPIS's Kokkos emitter with the support header it pastes after #define LAPIS_MODULE_H left out
// (_corpus.py pastes one): a call into MLIR's sparse tensor runtime. scale_values(tensor, factor) takes the
// tensor's values (memory the runtime owns) as a DualView that syncs its host side when it dies, scales
// them on the device and returns them.
#ifndef LAPIS_MODULE_H
#define LAPIS_MODULE_H
LAPIS::DualView<double*, Kokkos::LayoutRight> scale_values(void* v1, double v2);
#ifndef LAPIS_CPP_DRIVER
extern "C" void _mlir_ciface_sparseValuesF64(StridedMemRefType<double, 1>*, void*);
#endif
extern "C" void lapis_initialize();
extern "C" void lapis_finalize();
#endif
