// An emitted module (lapis-translate --hpp atomics.hpp -o atomics.cpp --py atomics.py), written to the
// rules of LAPIS's Kokkos emitter with the support header it pastes after #define LAPIS_MODULE_H left out
// (_corpus.py pastes one): memref.atomic_rmw.
//
// atomics_test(vec) is LAPIS's examples/atomics.py program as KokkosBackend compiles it: a one-element
// buffer set to 0.0 on the host, a RangePolicy over vec adding each element into it with an atomic_rmw
// addf whose old value is unused (Kokkos::atomic_add), the sum read back on the host.
//
// row_abs_sums(x) puts the atomic's old value to use inside a 2-deep nest, which the loop mapper makes a
// ThreadParallel (one thread per row) with a ThreadVectorRange reduction inside; the atomic and the stores
// outside the vector loop are wrapped in PerThread singles, the atomic's in the broadcasting form of
// LAPIS 7f410c5 (the old value handed to every vector lane). Each row claims the next slot of a counter and
// stores there its sum of |x| (math.absf: Kokkos::abs) and its index: out[k] is the sum of row order[k],
// the rows in the order they claimed their slots. The MLIR it was written from:
//   func.func @row_abs_sums(%x: memref<?x?xf64>) -> (memref<?xf64>, memref<?xi64>) {
//     %rows = memref.dim %x, %c0 : memref<?x?xf64>
//     %cols = memref.dim %x, %c1 : memref<?x?xf64>
//     %counter = memref.alloc() : memref<1xi64>
//     memref.store %c0_i64, %counter[%c0] : memref<1xi64>
//     %out = memref.alloc(%rows) : memref<?xf64>
//     %order = memref.alloc(%rows) : memref<?xi64>
//     scf.parallel (%i) = (%c0) to (%rows) step (%c1) {
//       %claimed = memref.atomic_rmw addi %c1_i64, %counter[%c0] : (i64, memref<1xi64>) -> i64
//       %sum = scf.parallel (%j) = (%c0) to (%cols) step (%c1) init (%f0) -> f64 {
//         %v = memref.load %x[%i, %j] : memref<?x?xf64>
//         %a = math.absf %v : f64
//         scf.reduce(%a : f64) {
//         ^bb0(%l: f64, %r: f64):
//           %s = arith.addf %l, %r : f64
//           scf.reduce.return %s : f64
//         }
//       }
//       %slot = arith.index_cast %claimed : i64 to index
//       memref.store %sum, %out[%slot] : memref<?xf64>
//       %row = arith.index_cast %i : index to i64
//       memref.store %row, %order[%slot] : memref<?xi64>
//       scf.reduce
//     }
//     return %out, %order : memref<?xf64>, memref<?xi64>
//   }
// (%c0, %c1: index; %c0_i64, %c1_i64: i64; %f0 = 0.0: f64.) The emitter names a function's parameters in
// the module's scope, so row_abs_sums's parameter is v2 and its body goes on from there.
#ifndef LAPIS_MODULE_H
#define LAPIS_MODULE_H
double atomics_test(LAPIS::DualView<double*, Kokkos::LayoutRight> v1);
std::tuple<LAPIS::DualView<double*, Kokkos::LayoutRight>, LAPIS::DualView<int64_t*, Kokkos::LayoutRight>> row_abs_sums(LAPIS::DualView<double**, Kokkos::LayoutRight> v2);
extern "C" void lapis_initialize();
extern "C" void lapis_finalize();
#endif
