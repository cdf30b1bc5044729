# cython: language_level=3
"""A second module built on lapis, independently of the first: a TeamPolicy matrix product."""
from libcpp.memory cimport shared_ptr

from lapis cimport AnyDualBuffer, DualView, import_lapis, raise_lapis_error, wrap

import lapis

import_lapis(b"matmul")


cdef extern from "kernels.hpp" namespace "matmul" nogil:
    shared_ptr[AnyDualBuffer] c_matmul "matmul::matmul"(
        const shared_ptr[AnyDualBuffer]& a, const shared_ptr[AnyDualBuffer]& b) except +raise_lapis_error


def matmul(a, b):
    """(m, k) @ (k, n) for 2-D float64 arrays: a new DualView, left on the device."""
    cdef DualView x = lapis.asdualview(a), y = lapis.asdualview(b)
    cdef shared_ptr[AnyDualBuffer] result
    with nogil:
        result = c_matmul(x.buffer, y.buffer)
    return wrap(result, None)
