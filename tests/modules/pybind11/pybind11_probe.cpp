// A pybind11 extension on lapis DualViews (lapis/pybind11.hpp): typed lapis::DualView parameters
// take lapis.DualViews and numpy arrays, results go back as lapis.DualViews left on the device, and
// lapis's C++ exceptions arrive as lapis's Python ones.
#include <lapis/pybind11.hpp>

#include "probe_functions.hpp"

PYBIND11_MODULE(pybind11_probe, m) {
  lapis::pybind11::init(m);
  m.def("scale", &probe::scale, pybind11::arg("x"), pybind11::arg("factor"), "factor * x, as a new DualView");
  m.def("fill", &probe::fill, pybind11::arg("x"), pybind11::arg("value"), "every element of x set to value, in place");
  // The untyped buffer, any element type and rank: the same state, as a new lapis.DualView handle.
  m.def("share", [](std::shared_ptr<lapis::AnyDualBuffer> buffer) { return buffer; }, pybind11::arg("x"));
}
