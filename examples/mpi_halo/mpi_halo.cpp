// exchange(out_below, in_below, below, out_above, in_above, above): sends each outgoing DualView to
// its neighbour rank and receives each incoming one from it, on MPI_COMM_WORLD, with lapis/mpi.hpp
// (nonblocking, then one wait). A neighbour of -1 is none (its DualViews may be None). Messages go
// up with tag 0 and down with tag 1, as examples/mpi_cg.py sends them in Python.
#include <Python.h>
#include <mpi.h>

#include <lapis/dualview.hpp>
#include <lapis/interop/python_api.hpp>
#include <lapis/mpi.hpp>

#include <exception>
#include <vector>

namespace mpi_halo {

using Row = lapis::DualView<double*, Kokkos::LayoutRight, lapis::DefaultDevice>;

// The Row of a lapis.DualView argument (a borrowed reference), or an empty Row for None.
Row row_of(PyObject* obj) {
  if (obj == Py_None) return Row();
  auto buffer = lapis::python_api::from_python(obj);
  if (!buffer) throw std::invalid_argument("mpi_halo.exchange: expected lapis.DualView rows");
  return Row(buffer);
}

PyObject* exchange(PyObject*, PyObject* args) {
  PyObject *out_below, *in_below, *out_above, *in_above;
  int below = -1, above = -1;
  if (!PyArg_ParseTuple(args, "OOiOOi", &out_below, &in_below, &below, &out_above, &in_above, &above)) return nullptr;
  try {
    Row rows[] = {row_of(out_below), row_of(in_below), row_of(out_above), row_of(in_above)};
    std::vector<MPI_Request> requests;
    if (below >= 0) {
      requests.push_back(lapis::mpi::irecv(rows[1], below, 0, MPI_COMM_WORLD));
      requests.push_back(lapis::mpi::isend(rows[0], below, 1, MPI_COMM_WORLD));
    }
    if (above >= 0) {
      requests.push_back(lapis::mpi::irecv(rows[3], above, 1, MPI_COMM_WORLD));
      requests.push_back(lapis::mpi::isend(rows[2], above, 0, MPI_COMM_WORLD));
    }
    Py_BEGIN_ALLOW_THREADS  // the neighbours' Python threads may need the GIL to post their side
        MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
    Py_END_ALLOW_THREADS
  } catch (const std::exception&) {
    return lapis::python_api::set_error_from_current_exception();
  }
  Py_RETURN_NONE;
}

PyMethodDef methods[] = {{"exchange", exchange, METH_VARARGS, "halo rows to and from the neighbour ranks"},
                         {nullptr, nullptr, 0, nullptr}};
PyModuleDef module = {PyModuleDef_HEAD_INIT, "mpi_halo", nullptr, -1, methods, nullptr, nullptr, nullptr, nullptr};

}  // namespace mpi_halo

PyMODINIT_FUNC PyInit_mpi_halo() {
  if (lapis::python_api::import_lapis("mpi_halo") < 0) return nullptr;
  return PyModule_Create(&mpi_halo::module);
}
