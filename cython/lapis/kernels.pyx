# cython: language_level=3, embedsignature=True
"""Kokkos kernels on DualViews: every array argument may be a numpy array, a device array (CuPy, a
PyTorch CUDA tensor) or a lapis.DualView.

With out=None the result is a new DualView that stays on the device until read. With out given,
the function returns out: a numpy out holds the result when the call returns (one device->host
copy where the sides are apart, and no upload of its old contents); a DualView out gets its device
side overwritten and marked modified (nothing transferred). Bad input raises before anything is
written (but for spmv's sparse structure, checked while it computes: out is then unspecified):
ValueError for shapes, read-only or overlapping outputs and bad sparse structure,
TypeError for unsupported or mixed dtypes (float32 or float64; sparse indices int32 or int64).
Elementwise kernels (add, subtract, multiply, divide, axpby, matadd) may update an input in place
(out is that input) and take scalars: Python numbers, which take the arrays' dtype as in NumPy 2,
and 0-d arrays or DualViews, which must match it; dot and norm can leave their result on the
device in a 0-d out.
"""
# lapis.kernels is a module like any other built on lapis (docs/modules.md): it cimports lapis,
# links lapis's runtime library and Kokkos, and runs its own Kokkos kernels on the DualViews'
# buffers. Each kernel is stated once, in schema/kernels.py: its Python function
# (kernel_wrappers.pxi), its C++ entry point (kernel_entries.cpp) and its stub are generated from
# there at build time. Here arguments become DualViews and their dtypes pick the instantiation;
# ranks, extents and sparse structure are checked in C++, by the kernels themselves (the result's
# shape comes from there too), and so are the output's shape and writability; Python checks what only
# it knows: dtypes and overlapping outputs (metadata only, nothing is read), in calls.pxi, the call
# machinery. A numpy `out` is a borrowed DualView whose device result is written back before the call
# returns.


import numpy

from libc.stdint cimport int64_t
from libcpp.memory cimport shared_ptr
from libcpp.vector cimport vector

from lapis._core cimport (
    Adoptions, AnyDualBuffer, DualView, ElementType, MemorySpan, arrays_surely_apart, check_write_back, empty_dualview,
    empty_dualview_of, import_lapis, may_overlap, raise_lapis_error, spans_in_memory, surely_apart, wrap, write_back,
)

from lapis._core import GraphCaptureError, _integer, _keep_for_graph

import_lapis(b"lapis.kernels")

cdef extern from "kernels_bridge.hpp" namespace "lapis::python" nogil:
    ctypedef shared_ptr[AnyDualBuffer] Buffer "lapis::python::Buffer"
    cdef cppclass OperandArg "lapis::python::OperandArg":
        Buffer buffer
        double value


include "kernel_declarations.pxi"
include "calls.pxi"


cdef tuple _matrix_shape(str kernel, shape):
    try:
        rows, columns = shape
        return _integer(rows, "rows"), _integer(columns, "columns")  # ints only: no truncation or parsing
    except (TypeError, ValueError):
        raise ValueError(f"{kernel}: shape must be a pair of ints (rows, columns), not {shape!r}") from None


cdef class CSRMatrix:
    """A sparse matrix in compressed sparse row form, as one argument: `data`, `indices` and
    `indptr` are DualViews (a numpy array given is borrowed, as DualView(obj) borrows it, and goes
    up once, at its first use on the device) and `shape` is (rows, columns).

    CSRMatrix((data, indices, indptr), shape=(rows, columns)) takes scipy.sparse's triple (numpy
    arrays, DualViews or device arrays); CSRMatrix(m) takes a scipy.sparse matrix or array (any
    format: it is converted with m.tocsr()). Extents and dtypes are checked here (TypeError,
    ValueError); the structure's values are checked on the device by each kernel that reads it."""
    cdef readonly DualView data, indices, indptr
    cdef readonly tuple shape

    def __init__(self, arg, shape=None):
        if hasattr(arg, "tocsr"):
            csr = arg.tocsr()
            arg, shape = (csr.data, csr.indices, csr.indptr), csr.shape if shape is None else shape
        if not isinstance(arg, tuple) or len(arg) != 3:
            raise TypeError("CSRMatrix: expected (data, indices, indptr) or a scipy.sparse matrix, "
                            f"not {type(arg).__name__}")
        if shape is None:
            raise ValueError("CSRMatrix: shape=(rows, columns) is required with (data, indices, indptr)")
        cdef _Call call = _Call("CSRMatrix")
        self.data = call.input("data", arg[0])
        self.indices = call.input("indices", arg[1])
        self.indptr = call.input("indptr", arg[2])
        call.scalar([("data", self.data)])
        call.index([("indptr", self.indptr), ("indices", self.indices)])
        self.shape = _matrix_shape("CSRMatrix", shape)
        # the extents against the shape, as spmv checks them (x stands for any vector that fits)
        cdef DualView columns = empty_dualview((self.shape[1],), self.data.dtype)
        k_spmv_shape(self.indptr._buffer()[0], self.indices._buffer()[0], self.data._buffer()[0],
                     columns._buffer()[0], self.shape[0], self.shape[1])

    @property
    def nnz(self):
        return self.data.shape[0]

    @property
    def dtype(self):
        return self.data.dtype

    def __repr__(self):
        return f"lapis.kernels.CSRMatrix(shape={self.shape}, nnz={self.nnz}, dtype={self.dtype}, index={self.indices.dtype})"


include "kernel_wrappers.pxi"
