#include <Kokkos_Core.hpp>
#include <cstdint>

// A stand-in for the support header LAPIS's emitter pastes at the top of every module's declarations
// (its LAPISSupport.hpp, verbatim), in that header's shape: the same first line, MLIR's memref
// descriptor at file scope, and a `namespace LAPIS` block that ends it. Its names clash with lapis's
// (StridedMemRefType, LAPIS::DualView), so a module that still holds it does not compile against
// lapis: the corpus's tests prove that `lapis build` takes it out. They paste LAPIS's own header
// instead where LAPIS_SUPPORT_HEADER names its path.
template <typename T, int N>
struct StridedMemRefType {
  T* basePtr;
  T* data;
  int64_t offset;
  int64_t sizes[N];
  int64_t strides[N];
};

namespace LAPIS
{
  template <typename DataType, typename Layout>
  class DualView {
   public:
    Kokkos::View<DataType, Layout, Kokkos::DefaultExecutionSpace> d_view;
    Kokkos::View<DataType, Layout, Kokkos::DefaultHostExecutionSpace> h_view;
  };
} // namespace LAPIS
