// A Python extension written against the plain C API: it takes a lapis.DualView through lapis's
// capsule, adopts its buffer as a typed lapis::DualView, runs a Kokkos kernel and hands a new
// DualView back, all without Cython and without copies.
#include <Python.h>

#include <lapis/dualview.hpp>
#include <lapis/runtime/execution_lock.hpp>
#include <lapis/interop/python_api.hpp>

#include <exception>

namespace capi_probe {

using Vector =
    lapis::DualView<double*, Kokkos::LayoutRight, lapis::DefaultDevice, lapis::sync::Lazy, lapis::alloc::DeviceFirst>;

void scale(const Vector::t_dev& x, double factor, const Vector::t_dev& y) {
  Kokkos::parallel_for(
      "capi_probe::scale", Kokkos::RangePolicy<lapis::DefaultDevice::execution_space>(0, x.extent(0)),
      KOKKOS_LAMBDA(std::size_t i) { y(i) = factor * x(i); });
}

// factor * dv, as a new DualView (1-D, float64, C-contiguous).
PyObject* scale_dualview(PyObject* dv, double factor) {
  auto buffer = lapis::python_api::from_python(dv);
  if (!buffer) return nullptr;
  try {
    Vector in(buffer);
    Vector out(lapis::for_overwrite, "capi_probe.scale", in.extent(0));
    auto x = in.view_device(lapis::Access::read);
    auto y = out.view_device(lapis::Access::overwrite);
    {
      const lapis::ExecutionGuard guard;
      scale(x, factor, y);
    }
    return lapis::python_api::to_python(out.buffer());
  } catch (const std::exception& e) {
#if LAPIS_C_API_TARGET_VERSION >= 2
    return lapis::python_api::set_error_from_current_exception();  // as lapis raises it
#else
    PyErr_SetString(PyExc_ValueError, e.what());
    return nullptr;
#endif
  }
}

// scale(x, factor): factor * x for a lapis.DualView x, or (built for the C API's feature version 2
// or later) anything lapis.asdualview takes.
PyObject* scale(PyObject*, PyObject* args) {
  PyObject* obj = nullptr;
  double factor = 0;
  if (!PyArg_ParseTuple(args, "Od", &obj, &factor)) return nullptr;
#if LAPIS_C_API_TARGET_VERSION >= 2
  PyObject* dv = lapis::python_api::asdualview(obj);  // a borrowed array's DualView, held for the call
  if (dv == nullptr) return nullptr;
#else
  PyObject* dv = obj;
  Py_INCREF(dv);
#endif
  PyObject* result = scale_dualview(dv, factor);
  Py_DECREF(dv);
  return result;
}

#if LAPIS_C_API_TARGET_VERSION >= 2
void set_all(const Vector::t_dev& x, double value) {
  Kokkos::parallel_for(
      "capi_probe::set_all", Kokkos::RangePolicy<lapis::DefaultDevice::execution_space>(0, x.extent(0)),
      KOKKOS_LAMBDA(std::size_t i) { x(i) = value; });
}

// fill(x, value): writes value into every element of x in place (a numpy array included, through a
// DualView made for the call that dies with it: the array holds the value when the call returns).
PyObject* fill(PyObject*, PyObject* args) {
  PyObject* obj = nullptr;
  double value = 0;
  if (!PyArg_ParseTuple(args, "Od", &obj, &value)) return nullptr;
  PyObject* dv = lapis::python_api::asdualview(obj);
  if (dv == nullptr) return nullptr;
  try {
    Vector x(lapis::python_api::from_python(dv));
    auto view = x.view_device(lapis::Access::overwrite);
    const lapis::ExecutionGuard guard;
    set_all(view, value);
  } catch (const std::exception&) {
    Py_DECREF(dv);
    return lapis::python_api::set_error_from_current_exception();
  }
  Py_DECREF(dv);
  Py_RETURN_NONE;
}
#endif

PyMethodDef methods[] = {{"scale", scale, METH_VARARGS, "factor * dv, as a new DualView"},
#if LAPIS_C_API_TARGET_VERSION >= 2
                         {"fill", fill, METH_VARARGS, "every element of x set to value, in place"},
#endif
                         {nullptr, nullptr, 0, nullptr}};
PyModuleDef module = {PyModuleDef_HEAD_INIT, "capi_probe", nullptr, -1, methods, nullptr, nullptr, nullptr, nullptr};

}  // namespace capi_probe

PyMODINIT_FUNC PyInit_capi_probe() {
  if (lapis::python_api::import_lapis("capi_probe") < 0) return nullptr;
  return PyModule_Create(&capi_probe::module);
}
