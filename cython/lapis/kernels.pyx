# cython: language_level=3, embedsignature=True
"""Kokkos kernels on DualViews: every array argument may be a numpy array, a device array (CuPy, a
PyTorch CUDA tensor) or a lapis.DualView.

With out=None the result is a new DualView that stays on the device until read. With out given,
the function returns out: a numpy out holds the result when the call returns (one device->host
copy where the sides are apart, and no upload of its old contents); a DualView out gets its device
side overwritten and marked modified (nothing transferred). Bad input raises before anything is
written: ValueError for shapes, read-only or overlapping outputs and bad sparse structure,
TypeError for unsupported or mixed dtypes (float32 or float64; sparse indices int32 or int64).
"""
# lapis.kernels is a module like any other built on lapis (README, "Modules"): it cimports lapis,
# links lapis's runtime library and Kokkos, and runs its own Kokkos kernels (kernels_bridge.cpp) on
# the DualViews' buffers. Arguments are checked here (types, dtypes, shapes, overlap: metadata only,
# nothing is read), then the C++ kernel runs on the inputs' device sides and overwrites the
# output's. A numpy `out` is a borrowed DualView whose device result is written back before the
# call returns.

import operator

import numpy

from libc.stdint cimport int64_t

from lapis._core cimport AnyDualBuffer, DualView, Side, empty_dualview, import_lapis, raise_lapis_error

from lapis._core import asdualview

import_lapis(b"lapis.kernels")

__all__ = ["batched_gemm", "dot", "gemm", "matadd", "maxpool_nchw", "spmm_dcsr", "spmv"]


cdef extern from "kernels_bridge.hpp" namespace "lapis::python" nogil:
    cdef enum class Scalar "lapis::python::Scalar":
        float32
        float64
    cdef enum class Index "lapis::python::Index":
        int32
        int64
    void k_gemm "lapis::python::gemm"(Scalar, AnyDualBuffer&, AnyDualBuffer&, AnyDualBuffer&) except +raise_lapis_error
    void k_batched_gemm "lapis::python::batched_gemm"(
        Scalar, AnyDualBuffer&, AnyDualBuffer&, AnyDualBuffer&) except +raise_lapis_error
    void k_matadd "lapis::python::matadd"(Scalar, AnyDualBuffer&, AnyDualBuffer&, AnyDualBuffer&) except +raise_lapis_error
    int64_t k_maxpool_output_extent "lapis::python::maxpool_output_extent"(
        int64_t, int64_t, int64_t, int64_t, int64_t) except +raise_lapis_error
    void k_maxpool_nchw "lapis::python::maxpool_nchw"(
        Scalar, AnyDualBuffer&, AnyDualBuffer&, int64_t, int64_t, int64_t, int64_t) except +raise_lapis_error
    void k_spmv "lapis::python::spmv"(Scalar, Index, AnyDualBuffer&, AnyDualBuffer&, AnyDualBuffer&,
                                      AnyDualBuffer&, AnyDualBuffer&) except +raise_lapis_error
    void k_spmm_dcsr "lapis::python::spmm_dcsr"(Scalar, Index, AnyDualBuffer&, AnyDualBuffer&, AnyDualBuffer&,
                                                AnyDualBuffer&, AnyDualBuffer&, AnyDualBuffer&) except +raise_lapis_error
    double k_dot "lapis::python::dot"(Scalar, AnyDualBuffer&, AnyDualBuffer&) except +raise_lapis_error


_FLOATS = {numpy.dtype(numpy.float32): Scalar.float32, numpy.dtype(numpy.float64): Scalar.float64}
_INDICES = {numpy.dtype(numpy.int32): Index.int32, numpy.dtype(numpy.int64): Index.int64}


cdef class _Call:
    """One kernel call's arguments: each becomes a DualView (a numpy array is borrowed, once per
    distinct array), checked by name; then the output."""
    cdef str kernel
    cdef dict wrapped      # id(numpy array) -> its DualView for this call
    cdef list inputs       # (name, original object, DualView)

    def __cinit__(self, str kernel):
        self.kernel = kernel
        self.wrapped = {}
        self.inputs = []

    cdef DualView input(self, str name, obj):
        cdef DualView dv
        if isinstance(obj, DualView):
            dv = obj
        elif id(obj) in self.wrapped:
            dv = self.wrapped[id(obj)]
        else:
            dv = _as_dualview(self.kernel, name, obj)
            self.wrapped[id(obj)] = dv
        dv._buffer()  # TypeError for a DualView that was never initialized
        self.inputs.append((name, obj, dv))
        return dv

    cdef error(self, str name, str message, kind=ValueError):
        return kind(f"{self.kernel}: {name}: {message}")

    cdef check_ndim(self, str name, DualView dv, ndims):
        if dv.ndim not in ndims:
            expected = " or ".join(str(n) for n in ndims)
            raise self.error(name, f"expected a {expected}-dimensional array, got shape {dv.shape}")

    cdef Scalar scalar(self, names_and_views):
        """The common float dtype of the named DualViews, or TypeError (no silent casting)."""
        dtypes = {dv.dtype for _, dv in names_and_views}
        if len(dtypes) != 1:
            listed = ", ".join(f"{name}={dv.dtype}" for name, dv in names_and_views)
            raise TypeError(f"{self.kernel}: mixed dtypes ({listed}); all must be float32 or all float64")
        dtype = dtypes.pop()
        if dtype not in _FLOATS:
            raise TypeError(f"{self.kernel}: unsupported dtype {dtype}; expected float32 or float64")
        return _FLOATS[dtype]

    cdef Index index(self, names_and_views):
        dtypes = {dv.dtype for _, dv in names_and_views}
        listed = ", ".join(f"{name}={dv.dtype}" for name, dv in names_and_views)
        if len(dtypes) != 1 or next(iter(dtypes)) not in _INDICES:
            raise TypeError(f"{self.kernel}: index arrays must all be int32 or all int64 ({listed})")
        return _INDICES[dtypes.pop()]

    cdef DualView output(self, out, tuple shape, dtype):
        """The DualView the kernel writes: a new result, `out` itself, or `out` wrapped (a numpy
        array as the host side, a CuPy array or PyTorch CUDA tensor as the device side)."""
        cdef DualView dv
        if out is None:
            return empty_dualview(shape, dtype)
        dv = out if isinstance(out, DualView) else _as_dualview(self.kernel, "out", out)
        dv._buffer()
        if dv.dtype != dtype:
            raise self.error("out", f"dtype {dv.dtype} does not match the result's {dtype} (no silent casting)",
                             TypeError)
        if dv.shape != shape:
            raise self.error("out", f"shape {dv.shape} does not match the result's {shape}")
        if not dv.buffer.get().host_writable():
            raise self.error("out", "it is read-only")
        for name, obj, input_dv in self.inputs:
            if _may_overlap(out, dv, obj, input_dv):
                raise self.error("out", f"overlaps the input {name}; pass a separate output")
        return dv

    cdef finish(self, out, DualView result):
        """Returns `out` itself, or the new result. A numpy `out` holds the result on return: its
        device side is copied into it (once, where the sides are apart); a device array `out`
        (CuPy, PyTorch) already does."""
        if out is None or isinstance(out, DualView):
            return result
        if not result.buffer.get().borrowed(Side.device):
            result.sync_host()
        return out


cdef DualView _as_dualview(str kernel, str name, obj):
    """A kernel argument as a DualView (lapis.asdualview: a device array through DLPack, anything
    else through the buffer protocol / __array_interface__)."""
    try:
        return asdualview(obj)
    except TypeError as e:
        raise TypeError(f"{kernel}: {name}: expected a numpy array, a device array or a lapis.DualView: {e}") from None


cdef class _SideMemory:
    """The memory of one side of a DualView as an array-interface exporter: read for its address
    and strides only (numpy.shares_memory), never for its data."""
    cdef readonly dict __array_interface__

    def __cinit__(self, DualView dv, Side side, size_t address):
        cdef AnyDualBuffer* b = dv._buffer()
        self.__array_interface__ = {
            "data": (address, True),
            "shape": dv.shape,
            "strides": tuple(b.strides(side)[i] for i in range(b.shape().rank)),
            "typestr": dv.dtype.str,
            "version": 3,
        }


cdef list _sides_in_memory(DualView dv):
    """(address, lowest byte, byte past the highest, side) of each allocated side of dv."""
    cdef AnyDualBuffer* b = dv._buffer()
    cdef list found = []
    cdef size_t address
    cdef Py_ssize_t low, high, step
    for side in (Side.host, Side.device):
        if not b.allocated(side):
            continue
        address = <size_t>b.data(side)
        low, high = 0, dv.itemsize
        for i in range(b.shape().rank):
            if b.shape().extents[i] == 0:
                low, high = 0, 0
                break
            step = b.strides(side)[i] * <Py_ssize_t>(b.shape().extents[i] - 1)
            if step < 0:
                low += step
            else:
                high += step
        found.append((address, address + low, address + high, side))
    return found


cdef bint _may_overlap(out, DualView out_dv, obj, DualView dv) except -1:
    """True when the output and an input may share memory on any side: through the same buffer,
    or through memory one of them lent to the other (an export of lapis-owned memory wrapped
    again, a borrowed numpy array, a CuPy array). Byte ranges first; exact only when they meet."""
    if out_dv is dv or out is obj or out_dv.buffer.get() == dv.buffer.get():
        return True
    for out_address, out_low, out_high, out_side in _sides_in_memory(out_dv):
        for address, low, high, side in _sides_in_memory(dv):
            if not (out_low < high and low < out_high):
                continue
            try:
                if numpy.shares_memory(numpy.asarray(_SideMemory(out_dv, out_side, out_address)),
                                       numpy.asarray(_SideMemory(dv, side, address)), max_work=10_000):
                    return True
            except numpy.exceptions.TooHardError:
                return True
    return False


def gemm(a, b, out=None):
    """(m, k) @ (k, n) -> (m, n)."""
    cdef _Call call = _Call("gemm")
    cdef DualView A = call.input("a", a), B = call.input("b", b)
    call.check_ndim("a", A, (2,))
    call.check_ndim("b", B, (2,))
    if A.shape[1] != B.shape[0]:
        raise ValueError(f"gemm: shapes {A.shape} and {B.shape} do not align (a.shape[1] != b.shape[0])")
    cdef Scalar s = call.scalar([("a", A), ("b", B)])
    cdef DualView C = call.output(out, (A.shape[0], B.shape[1]), A.dtype)
    with nogil:
        k_gemm(s, A.buffer.get()[0], B.buffer.get()[0], C.buffer.get()[0])
    return call.finish(out, C)


def batched_gemm(a, b, out=None):
    """(batch, m, k) @ (batch, k, n) -> (batch, m, n)."""
    cdef _Call call = _Call("batched_gemm")
    cdef DualView A = call.input("a", a), B = call.input("b", b)
    call.check_ndim("a", A, (3,))
    call.check_ndim("b", B, (3,))
    if A.shape[0] != B.shape[0] or A.shape[2] != B.shape[1]:
        raise ValueError(f"batched_gemm: shapes {A.shape} and {B.shape} do not align "
                         "(batch sizes must match and a.shape[2] == b.shape[1])")
    cdef Scalar s = call.scalar([("a", A), ("b", B)])
    cdef DualView C = call.output(out, (A.shape[0], A.shape[1], B.shape[2]), A.dtype)
    with nogil:
        k_batched_gemm(s, A.buffer.get()[0], B.buffer.get()[0], C.buffer.get()[0])
    return call.finish(out, C)


def matadd(a, b, out=None):
    """Elementwise a + b for arrays of equal shape, rank 1 to 4."""
    cdef _Call call = _Call("matadd")
    cdef DualView A = call.input("a", a), B = call.input("b", b)
    call.check_ndim("a", A, (1, 2, 3, 4))
    if A.shape != B.shape:
        raise ValueError(f"matadd: shapes {A.shape} and {B.shape} differ")
    cdef Scalar s = call.scalar([("a", A), ("b", B)])
    cdef DualView C = call.output(out, A.shape, A.dtype)
    with nogil:
        k_matadd(s, A.buffer.get()[0], B.buffer.get()[0], C.buffer.get()[0])
    return call.finish(out, C)


def maxpool_nchw(x, kernel_size=3, stride=1, padding=1, dilation=2, out=None):
    """2-D max pooling of an (N, C, H, W) array, as torch.nn.MaxPool2d(kernel_size, stride, padding,
    dilation): padding never wins the max; NaN propagates."""
    cdef _Call call = _Call("maxpool_nchw")
    cdef DualView X = call.input("x", x)
    call.check_ndim("x", X, (4,))
    for name, value in (("kernel_size", kernel_size), ("stride", stride), ("padding", padding), ("dilation", dilation)):
        if not isinstance(value, (int, numpy.integer)):
            raise TypeError(f"maxpool_nchw: {name} must be an int, not {type(value).__name__}")
    cdef Scalar s = call.scalar([("x", X)])
    n, c, h, w = X.shape
    shape = (n, c, k_maxpool_output_extent(h, kernel_size, stride, padding, dilation),
             k_maxpool_output_extent(w, kernel_size, stride, padding, dilation))
    cdef DualView Y = call.output(out, shape, X.dtype)
    cdef int64_t k = kernel_size, step = stride, pad = padding, dil = dilation
    with nogil:
        k_maxpool_nchw(s, X.buffer.get()[0], Y.buffer.get()[0], k, step, pad, dil)
    return call.finish(out, Y)


cdef tuple _matrix_shape(str kernel, shape):
    try:
        rows, columns = shape
        rows, columns = operator.index(rows), operator.index(columns)  # ints only: no truncation or parsing
    except (TypeError, ValueError):
        raise ValueError(f"{kernel}: shape must be a pair of ints (rows, columns), not {shape!r}") from None
    if rows < 0 or columns < 0:
        raise ValueError(f"{kernel}: shape {shape!r} has a negative dimension")
    return rows, columns


def spmv(indptr, indices, data, x, *, shape, out=None):
    """CSR matrix (indptr, indices, data) of `shape` times the vector x. The structure is checked
    on the device (out-of-range indices, inconsistent indptr: ValueError) before out is written."""
    cdef _Call call = _Call("spmv")
    rows, columns = _matrix_shape("spmv", shape)
    cdef DualView P = call.input("indptr", indptr), J = call.input("indices", indices)
    cdef DualView D = call.input("data", data), X = call.input("x", x)
    for name, dv in (("indptr", P), ("indices", J), ("data", D), ("x", X)):
        call.check_ndim(name, dv, (1,))
    if P.shape[0] != rows + 1:
        raise call.error("indptr", f"has {P.shape[0]} entries; a matrix of {rows} rows needs {rows + 1}")
    if J.shape != D.shape:
        raise ValueError(f"spmv: indices and data differ in length ({J.shape[0]} and {D.shape[0]})")
    if X.shape[0] != columns:
        raise call.error("x", f"has {X.shape[0]} entries; the matrix has {columns} columns")
    cdef Index i = call.index([("indptr", P), ("indices", J)])
    cdef Scalar s = call.scalar([("data", D), ("x", X)])
    cdef DualView Y = call.output(out, (rows,), D.dtype)
    with nogil:
        k_spmv(s, i, P.buffer.get()[0], J.buffer.get()[0], D.buffer.get()[0], X.buffer.get()[0], Y.buffer.get()[0])
    return call.finish(out, Y)


def spmm_dcsr(rows, indptr, indices, data, b, *, shape, out=None):
    """Doubly compressed sparse rows times a dense b of shape (shape[1], n): `rows` lists the
    non-empty rows (strictly increasing), indptr has len(rows) + 1 entries. Rows not listed are
    zero in the result. The structure is checked on the device before out is written."""
    cdef _Call call = _Call("spmm_dcsr")
    nrows, columns = _matrix_shape("spmm_dcsr", shape)
    cdef DualView R = call.input("rows", rows), P = call.input("indptr", indptr)
    cdef DualView J = call.input("indices", indices), D = call.input("data", data), B = call.input("b", b)
    for name, dv in (("rows", R), ("indptr", P), ("indices", J), ("data", D)):
        call.check_ndim(name, dv, (1,))
    call.check_ndim("b", B, (2,))
    if P.shape[0] != R.shape[0] + 1:
        raise call.error("indptr", f"has {P.shape[0]} entries; {R.shape[0]} listed rows need {R.shape[0] + 1}")
    if J.shape != D.shape:
        raise ValueError(f"spmm_dcsr: indices and data differ in length ({J.shape[0]} and {D.shape[0]})")
    if B.shape[0] != columns:
        raise call.error("b", f"has {B.shape[0]} rows; the matrix has {columns} columns")
    cdef Index i = call.index([("rows", R), ("indptr", P), ("indices", J)])
    cdef Scalar s = call.scalar([("data", D), ("b", B)])
    cdef DualView C = call.output(out, (nrows, B.shape[1]), D.dtype)
    with nogil:
        k_spmm_dcsr(s, i, R.buffer.get()[0], P.buffer.get()[0], J.buffer.get()[0], D.buffer.get()[0],
                    B.buffer.get()[0], C.buffer.get()[0])
    return call.finish(out, C)


def dot(x, y):
    """The dot product of two vectors of equal length, as a Python float."""
    cdef _Call call = _Call("dot")
    cdef DualView X = call.input("x", x), Y = call.input("y", y)
    call.check_ndim("x", X, (1,))
    call.check_ndim("y", Y, (1,))
    if X.shape != Y.shape:
        raise ValueError(f"dot: lengths differ ({X.shape[0]} and {Y.shape[0]})")
    cdef Scalar s = call.scalar([("x", X), ("y", Y)])
    cdef double result
    with nogil:
        result = k_dot(s, X.buffer.get()[0], Y.buffer.get()[0])
    return result
