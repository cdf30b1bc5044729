# cython: language_level=3, embedsignature=True
"""The lapis.DualView extension type and the runtime. Everything here converts between Python
objects and the C++ core (include/lapis); the decisions (what to allocate, when to copy, what is
stale) are made there, never here. One extension module, written in one file per concern (the
includes below), in the order they build on each other."""

import numpy

cimport cython

from cpython.buffer cimport (
    PyBUF_ANY_CONTIGUOUS, PyBUF_C_CONTIGUOUS, PyBUF_F_CONTIGUOUS, PyBUF_FORMAT, PyBUF_ND,
    PyBUF_RECORDS_RO, PyBUF_STRIDES, PyBUF_WRITABLE, PyBuffer_Release, PyObject_CheckBuffer,
    PyObject_GetBuffer,
)
from cpython.object cimport PyObject_TypeCheck, PyTypeObject
from cpython.ref cimport Py_INCREF, Py_REFCNT
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from libcpp cimport bool
from libcpp.map cimport map
from libcpp.memory cimport shared_ptr
from libcpp.string cimport string
from libcpp.vector cimport vector
from libc.stdint cimport int64_t, uint64_t
from libc.string cimport strcmp


include "bridge.pxi"
include "errors.pxi"
include "integers.pxi"
include "trace.pxi"
include "dtypes.pxi"
include "stats.pxi"
include "exports.pxi"
include "numpy_fields.pxi"
include "host_blocks.pxi"
include "dualview.pxi"
include "factories.pxi"
include "adoptions.pxi"
include "guard.pxi"
include "runtime.pxi"
include "dlpack.pxi"
include "overlap.pxi"
include "comm.pxi"
include "c_api.pxi"
include "handles.pxi"
include "graphs.pxi"


c_initialize()
