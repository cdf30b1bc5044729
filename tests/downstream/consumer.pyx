# cython: language_level=3
"""Another extension working with lapis DualViews at C level."""
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc
from libcpp.vector cimport vector

import numpy

from lapis cimport AnyDualBuffer, DualView, Side, borrow_host, empty_dualview_of, import_lapis, zeros_dualview

import_lapis(b"consumer")


cdef class OwnedBuffer:
    """Memory this extension allocated; freed when the last DualView lending it is gone."""
    cdef double* data

    def __dealloc__(self):
        free(self.data)


def ramp(Py_ssize_t n):
    """A DualView lending this extension's own buffer as its host side, holding 0, 1, ..., n-1."""
    cdef OwnedBuffer owner = OwnedBuffer()
    owner.data = <double*>malloc(max(n, 1) * sizeof(double))
    for i in range(n):
        owner.data[i] = i
    return borrow_host(owner.data, (n,), (sizeof(double),), numpy.float64, owner, True)


def like(DualView dv):
    """A new zero-filled DualView of dv's shape and dtype."""
    return zeros_dualview(dv.shape, dv.dtype)


def empty_of(extents, dtype):
    """A new DualView with nothing allocated, its shape given as a C++ vector (as a C++ kernel
    computes a result's shape)."""
    cdef vector[int64_t] c_extents = extents
    return empty_dualview_of(c_extents, dtype)


def describe(DualView dv):
    """Shape, host byte strides and itemsize, read from the C++ buffer."""
    cdef AnyDualBuffer* b = dv.buffer.get()
    rank = b.shape().rank
    return (tuple(b.shape().extents[i] for i in range(rank)), tuple(b.strides(Side.host)[i] for i in range(rank)),
            b.shape().itemsize)


def device_sum(DualView dv):
    """Sums a 1-D float64 DualView through its device side's pointer (host-readable memory on CPU
    builds, the simulated device included)."""
    cdef double* p = <double*>dv.device_data(False)
    cdef double total = 0
    for i in range(dv.shape[0]):
        total += p[i]
    return total


def device_address(DualView dv):
    """The device side's address, synced, with lapis's queued work finished (any stream may read)."""
    return <size_t>dv.device_data(False)


def scale_on_host(DualView dv, double factor):
    """Scales a contiguous 1-D float64 DualView in place through its host side."""
    cdef double* p = <double*>dv.host_data(True)
    for i in range(dv.shape[0]):
        p[i] *= factor
