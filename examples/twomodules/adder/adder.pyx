# cython: language_level=3
"""A module built on lapis with Kokkos kernels of its own (kernels.cpp): it takes numpy arrays or
lapis DualViews and returns DualViews that stay on the device."""
from libcpp.memory cimport shared_ptr

from lapis cimport AnyDualBuffer, DualView, import_lapis, raise_lapis_error, wrap

import lapis

import_lapis(b"adder")  # refuses (ImportError) a build against another lapis or Kokkos


cdef extern from "kernels.hpp" namespace "adder" nogil:
    shared_ptr[AnyDualBuffer] c_add "adder::add"(
        const shared_ptr[AnyDualBuffer]& a, const shared_ptr[AnyDualBuffer]& b) except +raise_lapis_error
    double c_total "adder::total"(const shared_ptr[AnyDualBuffer]& a) except +raise_lapis_error
    int c_calls "adder::calls"() except +raise_lapis_error
    bint c_kokkos_initialized "adder::kokkos_initialized"()
    int c_concurrency "adder::concurrency"()


def add(a, b):
    """a + b for 2-D float64 arrays of one shape: a new DualView, left on the device."""
    cdef DualView x = lapis.asdualview(a), y = lapis.asdualview(b)
    cdef shared_ptr[AnyDualBuffer] result
    with nogil:
        result = c_add(x.buffer, y.buffer)
    return wrap(result, None)


def total(a):
    """The sum of the elements of a 2-D float64 array, computed where it lives."""
    cdef DualView x = lapis.asdualview(a)
    cdef double result
    with nogil:
        result = c_total(x.buffer)
    return result


def calls():
    """How often add() ran in this process."""
    cdef int result
    with nogil:
        result = c_calls()
    return result


def kokkos_state():
    """(initialized, concurrency) as this module's own code sees Kokkos."""
    return c_kokkos_initialized(), c_concurrency()
