// A module in the shape LAPIS's Kokkos emitter writes, compiled against lapis: forward functions
// over LAPIS::DualViews (lapis/interop/lapis_compat.hpp), and extern "C" entry points over MLIR memref
// descriptors that LAPIS's Python glue calls through ctypes (each call uploads its inputs and
// downloads its result). What lapis adds: entry points over lapis.DualView objects (through
// lapis/interop/python_api.hpp), so results stay on the device and feed the next call in place.
#include <Python.h>

#include <lapis/runtime/execution_lock.hpp>
#include <lapis/interop/lapis_compat.hpp>
#include <lapis/interop/memref.hpp>
#include <lapis/interop/python_api.hpp>

#include "gemm_forward.hpp"

#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

// The shape argument LAPIS passes with a sparse matrix.
struct CsrShape {
  std::int64_t rows, columns;
};

namespace {

using Exec = Kokkos::DefaultExecutionSpace;
using Vector = LAPIS::DualView<double*, Kokkos::LayoutRight>;
using Indices = LAPIS::DualView<std::int64_t*, Kokkos::LayoutRight>;

// --- forward functions, as the emitter writes them (plus lapis's execution lock around dispatches);
// gemm is in gemm_forward.hpp, which the C++ driver shares

Vector spmv(Indices indptr, Indices indices, Vector data, Vector x, CsrShape shape) {
  if (indptr.extent(0) != std::size_t(shape.rows + 1) || x.extent(0) != std::size_t(shape.columns) ||
      indices.extent(0) != data.extent(0))
    throw std::invalid_argument("spmv: the arrays do not fit the shape");
  for (auto* in : {&indptr, &indices}) in->syncDevice();
  data.syncDevice();
  x.syncDevice();
  Vector y("y", shape.rows);
  auto p = indptr.device_view(), j = indices.device_view();
  auto d = data.device_view(), v = x.device_view(), out = y.device_view();
  {
    const lapis::ExecutionGuard guard;
    Kokkos::parallel_for(
        "lapis_style::spmv", Kokkos::RangePolicy<Exec>(0, shape.rows), KOKKOS_LAMBDA(std::int64_t i) {
          double sum = 0;
          for (std::int64_t q = p(i); q < p(i + 1); ++q) sum += d(q) * v(j(q));
          out(i) = sum;
        });
  }
  y.modifyDevice();
  return y;
}

// Two functions of one program: the second consumes the first's result.
Vector residual(Matrix A, Vector x, Vector b) {  // b - A x
  A.syncDevice();
  x.syncDevice();
  b.syncDevice();
  Vector r("r", b.extent(0));
  auto a = A.device_view();
  auto v = x.device_view(), rhs = b.device_view(), out = r.device_view();
  const std::int64_t n = A.extent(1);
  {
    const lapis::ExecutionGuard guard;
    Kokkos::parallel_for(
        "lapis_style::residual", Kokkos::RangePolicy<Exec>(0, out.extent(0)), KOKKOS_LAMBDA(std::int64_t i) {
          double sum = 0;
          for (std::int64_t p = 0; p < n; ++p) sum += a(i, p) * v(p);
          out(i) = rhs(i) - sum;
        });
  }
  r.modifyDevice();
  return r;
}

// Two results of one function, as LAPIS's multiple_results program returns them: a + b and a * b.
std::pair<Matrix, Matrix> sum_and_product(Matrix A, Matrix B) {
  if (A.extent(0) != B.extent(0) || A.extent(1) != B.extent(1))
    throw std::invalid_argument("sum_and_product: the shapes differ");
  A.syncDevice();
  B.syncDevice();
  Matrix S("sum", A.extent(0), A.extent(1)), P("product", A.extent(0), A.extent(1));
  auto a = A.device_view(), b = B.device_view(), s = S.device_view(), p = P.device_view();
  {
    const lapis::ExecutionGuard guard;
    Kokkos::parallel_for(
        "lapis_style::sum_and_product",
        Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>>({0, 0}, {s.extent(0), s.extent(1)}),
        KOKKOS_LAMBDA(std::int64_t i, std::int64_t j) {
          s(i, j) = a(i, j) + b(i, j);
          p(i, j) = a(i, j) * b(i, j);
        });
  }
  S.modifyDevice();
  P.modifyDevice();
  return {S, P};
}

double norm2(Vector r) {
  r.syncDevice();
  auto v = r.device_view();
  double sum = 0;
  const lapis::ExecutionGuard guard;
  Kokkos::parallel_reduce(
      "lapis_style::norm2", Kokkos::RangePolicy<Exec>(0, v.extent(0)),
      KOKKOS_LAMBDA(std::int64_t i, double& partial) { partial += v(i) * v(i); }, sum);
  return sum;
}

// --- the memref entry points, as LAPIS's glue calls them: inputs are host memory, the result is
// synced to the host and kept alive until lapis is finalized.

// A view of the caller's host memory: LAPIS's glue passes contiguous row-major arrays.
template <class DV, class T, int N>
DV from_host(const StridedMemRefType<T, N>& memref) {
  std::int64_t expected = 1;
  for (int i = N - 1; i >= 0; --i) {
    if (memref.sizes[i] < 0 || (memref.sizes[i] > 1 && memref.strides[i] != expected))
      throw std::invalid_argument("memref: a contiguous row-major array is expected");
    expected *= memref.sizes[i];
  }
  if (memref.data == nullptr && expected != 0) throw std::invalid_argument("memref: a null address with elements");
  std::size_t extents[8];
  for (int i = 0; i < 8; ++i) extents[i] = i < N ? std::size_t(memref.sizes[i]) : KOKKOS_INVALID_INDEX;
  return DV(typename DV::HostView(memref.data + memref.offset, extents[0], extents[1], extents[2], extents[3],
                                  extents[4], extents[5], extents[6], extents[7]));
}

template <class DV, int N>
void to_host(StridedMemRefType<double, N>* result, DV dv) {
  dv.syncHost();
  dv.keepAliveHost();
  *result = lapis::to_memref(dv.host_view());
}

// The memref entry points return nothing, as LAPIS's do: on bad input the result is left empty
// (null data) and the reason printed.
template <class F>
void reported(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lapis_style: %s\n", e.what());
  }
}

// --- lapis's entry points over lapis.DualView objects: nothing is copied in or out.

template <class DV>
DV adopt(PyObject* obj) {
  auto buffer = lapis::python_api::from_python(obj);
  if (!buffer) throw std::invalid_argument("expected a lapis.DualView");
  return DV(buffer);
}

template <class F>
PyObject* guarded(F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, e.what());
    return nullptr;
  }
}

}  // namespace

extern "C" {

int lapis_style_init() {
  lapis_initialize();
  return lapis::python_api::import_lapis("lapis_style") == 0 ? 0 : -1;
}
void lapis_style_fini() { lapis_finalize(); }

PyObject* dv_gemm(PyObject* a, PyObject* b) {
  return guarded([&] { return lapis::python_api::to_python(gemm(adopt<Matrix>(a), adopt<Matrix>(b)).buffer()); });
}
PyObject* dv_spmv(PyObject* indptr, PyObject* indices, PyObject* data, PyObject* x, std::int64_t rows,
                  std::int64_t columns) {
  return guarded([&] {
    return lapis::python_api::to_python(spmv(adopt<Indices>(indptr), adopt<Indices>(indices), adopt<Vector>(data),
                                             adopt<Vector>(x), CsrShape{rows, columns})
                                            .buffer());
  });
}
PyObject* dv_residual(PyObject* a, PyObject* x, PyObject* b) {
  return guarded([&] {
    return lapis::python_api::to_python(residual(adopt<Matrix>(a), adopt<Vector>(x), adopt<Vector>(b)).buffer());
  });
}
PyObject* dv_sum_and_product(PyObject* a, PyObject* b) {
  return guarded([&] {
    auto [sum, product] = sum_and_product(adopt<Matrix>(a), adopt<Matrix>(b));
    PyObject* first = lapis::python_api::to_python(sum.buffer());
    PyObject* second = first ? lapis::python_api::to_python(product.buffer()) : nullptr;
    PyObject* results = second ? PyTuple_Pack(2, first, second) : nullptr;
    Py_XDECREF(first);
    Py_XDECREF(second);
    return results;
  });
}
PyObject* dv_norm2(PyObject* r) { return guarded([&] { return PyFloat_FromDouble(norm2(adopt<Vector>(r))); }); }

void py_gemm(StridedMemRefType<double, 2>* result, StridedMemRefType<double, 2>* a, StridedMemRefType<double, 2>* b) {
  *result = {};
  reported([&] { to_host(result, gemm(from_host<Matrix>(*a), from_host<Matrix>(*b))); });
}
// LAPIS passes one result descriptor per result, first.
void py_sum_and_product(StridedMemRefType<double, 2>* sum, StridedMemRefType<double, 2>* product,
                        StridedMemRefType<double, 2>* a, StridedMemRefType<double, 2>* b) {
  *sum = {};
  *product = {};
  reported([&] {
    auto [s, p] = sum_and_product(from_host<Matrix>(*a), from_host<Matrix>(*b));
    to_host(sum, s);
    to_host(product, p);
  });
}
void py_spmv(StridedMemRefType<double, 1>* result, StridedMemRefType<std::int64_t, 1>* indptr,
             StridedMemRefType<std::int64_t, 1>* indices, StridedMemRefType<double, 1>* data,
             StridedMemRefType<double, 1>* x, CsrShape shape) {
  *result = {};
  reported([&] {
    to_host(result, spmv(from_host<Indices>(*indptr), from_host<Indices>(*indices), from_host<Vector>(*data),
                         from_host<Vector>(*x), shape));
  });
}

}  // extern "C"
