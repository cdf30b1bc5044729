// A stand-in for MLIR's sparse tensor runtime, for the sparse_values module: a toy tensor that keeps
// its values in host memory the runtime owns, and the one runtime call the module makes,
// _mlir_ciface_sparseValuesF64, with MLIR's signature (the values as a memref descriptor over that
// memory). The tests make tensors and read their values through the toy_* functions.
#include <lapis/interop/strided_memref.hpp>

#include <cstdint>
#include <vector>

namespace {
struct ToyTensor {
  std::vector<double> values;
};
}  // namespace

extern "C" void* toy_sparse_tensor(const double* values, int64_t count) {
  return new ToyTensor{std::vector<double>(values, values + count)};
}

extern "C" void toy_sparse_tensor_delete(void* tensor) { delete static_cast<ToyTensor*>(tensor); }

extern "C" const double* toy_sparse_tensor_values(void* tensor) { return static_cast<ToyTensor*>(tensor)->values.data(); }

extern "C" void _mlir_ciface_sparseValuesF64(StridedMemRefType<double, 1>* ref, void* tensor) {
  std::vector<double>& values = static_cast<ToyTensor*>(tensor)->values;
  ref->basePtr = ref->data = values.data();
  ref->offset = 0;
  ref->sizes[0] = static_cast<int64_t>(values.size());
  ref->strides[0] = 1;
}
