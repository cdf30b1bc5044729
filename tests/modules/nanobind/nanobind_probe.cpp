// A nanobind extension on lapis DualViews (lapis/nanobind.hpp): typed lapis::DualView parameters
// take lapis.DualViews and numpy arrays, results go back as lapis.DualViews left on the device, and
// lapis's C++ exceptions arrive as lapis's Python ones.
#include <lapis/nanobind.hpp>

#include "probe_functions.hpp"

NB_MODULE(nanobind_probe, m) {
  lapis::nanobind::init(m);
  m.def("scale", &probe::scale, nanobind::arg("x"), nanobind::arg("factor"), "factor * x, as a new DualView");
  m.def("fill", &probe::fill, nanobind::arg("x"), nanobind::arg("value"), "every element of x set to value, in place");
  // The untyped buffer, any element type and rank: the same state, as a new lapis.DualView handle.
  m.def("share", [](std::shared_ptr<lapis::AnyDualBuffer> buffer) { return buffer; }, nanobind::arg("x"));
}
