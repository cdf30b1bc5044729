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
# links lapis's runtime library and Kokkos, and runs its own Kokkos kernels (kernels_bridge.cpp) on
# the DualViews' buffers. Here arguments become DualViews and their dtypes pick the instantiation;
# ranks, extents and sparse structure are checked in C++, by the kernels themselves (the result's
# shape comes from there too), and so are the output's shape and writability; Python checks what only
# it knows: dtypes and overlapping outputs (metadata only, nothing is read), in calls.pxi, the call
# machinery. A numpy `out` is a borrowed DualView whose device result is written back before the call
# returns.


import numpy

from libc.stdint cimport int64_t
from libcpp.memory cimport shared_ptr
from libcpp.string cimport string
from libcpp.vector cimport vector

from lapis._core cimport (
    Adoptions, AnyDualBuffer, DualView, ElementType, MemorySpan, arrays_surely_apart, check_write_back, empty_dualview,
    empty_dualview_of, import_lapis, may_overlap, raise_lapis_error, spans_in_memory, surely_apart, wrap, write_back,
)

from lapis._core import _integer

import_lapis(b"lapis.kernels")

__all__ = ["CSRMatrix", "add", "axpby", "batched_gemm", "batchnorm_nchw", "cg_direction", "cg_precondition",
           "cg_step", "conv2d_nchw", "divide", "dot", "gemm", "global_avgpool_nchw", "linear", "matadd", "maximum",
           "maxpool_nchw", "multiply", "norm", "sparse_matadd", "spmm_dcsr", "spmv", "subtract"]


cdef extern from "lapis/kernels/operation.hpp" namespace "lapis::kernels" nogil:
    cdef enum class Operation "lapis::kernels::Operation":
        add
        subtract
        multiply
        divide
        maximum
    const char* operation_name "lapis::kernels::name"(Operation op)


cdef extern from "kernels_bridge.hpp" namespace "lapis::python" nogil:
    ctypedef shared_ptr[AnyDualBuffer] Buffer "lapis::python::Buffer"
    cdef cppclass OperandArg "lapis::python::OperandArg":
        Buffer buffer
        double value
    vector[int64_t] k_elementwise_shape "lapis::python::elementwise_shape"(
        const string&, const OperandArg&, const OperandArg&) except +raise_lapis_error
    vector[int64_t] k_gemm_shape "lapis::python::gemm_shape"(
        const AnyDualBuffer&, const AnyDualBuffer&) except +raise_lapis_error
    vector[int64_t] k_batched_gemm_shape "lapis::python::batched_gemm_shape"(
        const AnyDualBuffer&, const AnyDualBuffer&) except +raise_lapis_error
    vector[int64_t] k_matadd_shape "lapis::python::matadd_shape"(
        const AnyDualBuffer&, const AnyDualBuffer&) except +raise_lapis_error
    vector[int64_t] k_maxpool_nchw_shape "lapis::python::maxpool_nchw_shape"(
        const AnyDualBuffer&, int64_t, int64_t, int64_t, int64_t) except +raise_lapis_error
    vector[int64_t] k_spmv_shape "lapis::python::spmv_shape"(
        const AnyDualBuffer&, const AnyDualBuffer&, const AnyDualBuffer&, const AnyDualBuffer&,
        int64_t, int64_t) except +raise_lapis_error
    vector[int64_t] k_spmm_dcsr_shape "lapis::python::spmm_dcsr_shape"(
        const AnyDualBuffer&, const AnyDualBuffer&, const AnyDualBuffer&, const AnyDualBuffer&,
        const AnyDualBuffer&, int64_t, int64_t) except +raise_lapis_error
    void k_gemm "lapis::python::gemm"(ElementType, const Buffer&, const Buffer&, const Buffer&) except +raise_lapis_error
    void k_batched_gemm "lapis::python::batched_gemm"(
        ElementType, const Buffer&, const Buffer&, const Buffer&) except +raise_lapis_error
    void k_matadd "lapis::python::matadd"(ElementType, const Buffer&, const Buffer&, const Buffer&) except +raise_lapis_error
    void k_maxpool_nchw "lapis::python::maxpool_nchw"(
        ElementType, const Buffer&, const Buffer&, int64_t, int64_t, int64_t, int64_t) except +raise_lapis_error
    vector[int64_t] k_conv2d_nchw_shape "lapis::python::conv2d_nchw_shape"(
        const AnyDualBuffer&, const AnyDualBuffer&, int64_t, int64_t) except +raise_lapis_error
    vector[int64_t] k_global_avgpool_nchw_shape "lapis::python::global_avgpool_nchw_shape"(
        const AnyDualBuffer&) except +raise_lapis_error
    vector[int64_t] k_linear_shape "lapis::python::linear_shape"(
        const AnyDualBuffer&, const AnyDualBuffer&, const AnyDualBuffer&) except +raise_lapis_error
    void k_conv2d_nchw "lapis::python::conv2d_nchw"(
        ElementType, const Buffer&, const Buffer&, const Buffer&, const Buffer&, int64_t, int64_t) except +raise_lapis_error
    void k_batchnorm_nchw "lapis::python::batchnorm_nchw"(
        ElementType, const Buffer&, const Buffer&, const Buffer&, const Buffer&, const Buffer&, double,
        const Buffer&) except +raise_lapis_error
    void k_global_avgpool_nchw "lapis::python::global_avgpool_nchw"(
        ElementType, const Buffer&, const Buffer&) except +raise_lapis_error
    void k_linear "lapis::python::linear"(
        ElementType, const Buffer&, const Buffer&, const Buffer&, const Buffer&) except +raise_lapis_error
    void k_spmv "lapis::python::spmv"(ElementType, ElementType, const Buffer&, const Buffer&, const Buffer&,
                                      const Buffer&, const Buffer&, int64_t, int64_t) except +raise_lapis_error
    void k_spmm_dcsr "lapis::python::spmm_dcsr"(ElementType, ElementType, const Buffer&, const Buffer&, const Buffer&,
                                                const Buffer&, const Buffer&, const Buffer&,
                                                int64_t, int64_t) except +raise_lapis_error
    vector[Buffer] k_sparse_matadd "lapis::python::sparse_matadd"(
        ElementType, ElementType, const Buffer&, const Buffer&, const Buffer&, const Buffer&, const Buffer&, const Buffer&,
        int64_t, int64_t) except +raise_lapis_error
    double k_dot "lapis::python::dot"(ElementType, const Buffer&, const Buffer&) except +raise_lapis_error
    void k_dot_into "lapis::python::dot_into"(ElementType, const Buffer&, const Buffer&, const Buffer&) except +raise_lapis_error
    double k_norm2 "lapis::python::norm2"(ElementType, const Buffer&) except +raise_lapis_error
    void k_norm2_into "lapis::python::norm2_into"(ElementType, const Buffer&, const Buffer&) except +raise_lapis_error
    void k_arithmetic "lapis::python::arithmetic"(Operation, ElementType, const OperandArg&, const OperandArg&,
                                                  const Buffer&) except +raise_lapis_error
    void k_axpby "lapis::python::axpby"(ElementType, const OperandArg&, const OperandArg&, const OperandArg&,
                                        const OperandArg&, const Buffer&) except +raise_lapis_error
    void k_cg_step "lapis::python::cg_step"(ElementType, const Buffer&, const Buffer&, const Buffer&, const Buffer&,
                                            const Buffer&, const Buffer&, const Buffer&) except +raise_lapis_error
    void k_cg_precondition "lapis::python::cg_precondition"(ElementType, const Buffer&, const Buffer&, const Buffer&,
                                                            const Buffer&) except +raise_lapis_error
    void k_cg_direction "lapis::python::cg_direction"(ElementType, const Buffer&, const Buffer&, const Buffer&,
                                                      const Buffer&) except +raise_lapis_error


include "calls.pxi"


def gemm(a, b, out=None):
    """(m, k) @ (k, n) -> (m, n)."""
    return _two_inputs("gemm", k_gemm_shape, k_gemm, a, b, out)


def batched_gemm(a, b, out=None):
    """(batch, m, k) @ (batch, k, n) -> (batch, m, n)."""
    return _two_inputs("batched_gemm", k_batched_gemm_shape, k_batched_gemm, a, b, out)


def matadd(a, b, out=None):
    """Elementwise a + b for arrays of equal shape, rank 1 to 4; out may be a or b itself."""
    return _two_inputs("matadd", k_matadd_shape, k_matadd, a, b, out, in_place=True)


def maxpool_nchw(x, kernel_size=3, stride=1, padding=1, dilation=2, out=None):
    """2-D max pooling of an (N, C, H, W) array, as torch.nn.MaxPool2d(kernel_size, stride, padding,
    dilation): padding never wins the max; NaN propagates."""
    cdef _Call call = _Call("maxpool_nchw", out)
    cdef DualView X = call.input("x", x)
    cdef int64_t k = _int_setting("maxpool_nchw", "kernel_size", kernel_size)
    cdef int64_t step = _int_setting("maxpool_nchw", "stride", stride)
    cdef int64_t pad = _int_setting("maxpool_nchw", "padding", padding)
    cdef int64_t dil = _int_setting("maxpool_nchw", "dilation", dilation)
    cdef ElementType s = call.scalar([("x", X)])
    cdef DualView Y = call.output(k_maxpool_nchw_shape(X._buffer()[0], k, step, pad, dil), X.dtype)
    with nogil:
        k_maxpool_nchw(s, X.buffer, Y.buffer, k, step, pad, dil)
    return call.finish(Y)


def conv2d_nchw(x, w, bias=None, *, stride=1, padding=0, out=None):
    """2-D convolution of an (N, C, H, W) array with weights (K, C, R, S) and an optional bias of
    K, as torch.nn.Conv2d (cross-correlation, zero padding, the same stride and padding in both
    dimensions) -> (N, K, P, Q)."""
    cdef _Call call = _Call("conv2d_nchw", out)
    cdef DualView X = call.input("x", x), W = call.input("w", w)
    cdef DualView B = None if bias is None else call.input("bias", bias)
    cdef int64_t step = _int_setting("conv2d_nchw", "stride", stride), pad = _int_setting("conv2d_nchw", "padding", padding)
    cdef ElementType s = call.scalar([("x", X), ("w", W)] + ([] if B is None else [("bias", B)]))
    cdef DualView Y = call.output(k_conv2d_nchw_shape(X._buffer()[0], W._buffer()[0], step, pad), X.dtype)
    cdef Buffer b
    if B is not None:
        B._buffer()
        b = B.buffer
    with nogil:
        k_conv2d_nchw(s, X.buffer, W.buffer, b, Y.buffer, step, pad)
    return call.finish(Y)


def batchnorm_nchw(x, mean, var, weight, bias, *, eps=1e-5, out=None):
    """Inference batch normalization of an (N, C, H, W) array, as torch.nn.BatchNorm2d in eval mode:
    (x - mean) / sqrt(var + eps) * weight + bias, each of those a vector of C. out may be x itself."""
    cdef _Call call = _Call("batchnorm_nchw", out)
    cdef DualView X = call.input("x", x), M = call.input("mean", mean), V = call.input("var", var)
    cdef DualView W = call.input("weight", weight), B = call.input("bias", bias)
    if not isinstance(eps, (int, float, numpy.integer, numpy.floating)) or isinstance(eps, bool):
        raise TypeError(f"batchnorm_nchw: eps must be a number, not {type(eps).__name__}")
    cdef ElementType s = call.scalar([("x", X), ("mean", M), ("var", V), ("weight", W), ("bias", B)])
    cdef DualView Y = call.output(list(X.shape), X.dtype, in_place=True)
    cdef double e = eps
    with nogil:
        k_batchnorm_nchw(s, X.buffer, M.buffer, V.buffer, W.buffer, B.buffer, e, Y.buffer)
    return call.finish(Y)


def global_avgpool_nchw(x, out=None):
    """The mean over H and W of an (N, C, H, W) array -> (N, C), as torch.nn.AdaptiveAvgPool2d(1)
    then a flatten."""
    cdef _Call call = _Call("global_avgpool_nchw", out)
    cdef DualView X = call.input("x", x)
    cdef ElementType s = call.scalar([("x", X)])
    cdef DualView Y = call.output(k_global_avgpool_nchw_shape(X._buffer()[0]), X.dtype)
    with nogil:
        k_global_avgpool_nchw(s, X.buffer, Y.buffer)
    return call.finish(Y)


def linear(x, weight, bias, out=None):
    """x @ weight.T + bias for x of (N, F), weight of (O, F) and bias of O -> (N, O), as
    torch.nn.Linear."""
    cdef _Call call = _Call("linear", out)
    cdef DualView X = call.input("x", x), W = call.input("weight", weight), B = call.input("bias", bias)
    cdef ElementType s = call.scalar([("x", X), ("weight", W), ("bias", B)])
    cdef DualView Y = call.output(k_linear_shape(X._buffer()[0], W._buffer()[0], B._buffer()[0]), X.dtype)
    with nogil:
        k_linear(s, X.buffer, W.buffer, B.buffer, Y.buffer)
    return call.finish(Y)


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


def spmv(indptr, indices=None, data=None, x=None, *, shape=None, out=None):
    """A sparse matrix times the vector x: spmv(A, x) for a CSRMatrix A, or
    spmv(indptr, indices, data, x, shape=(rows, columns)) for the three CSR arrays. The structure is
    checked on the device in the product's own pass (out-of-range indices, inconsistent indptr:
    ValueError once the pass is done, out's values then unspecified)."""
    cdef _Call call = _Call("spmv", out)
    cdef int64_t rows, columns
    cdef DualView P, J, D, X
    if isinstance(indptr, CSRMatrix):
        matrix = <CSRMatrix>indptr
        vector = x if indices is None else indices
        if data is not None or shape is not None or vector is None or (indices is not None and x is not None):
            raise TypeError("spmv: with a CSRMatrix, call spmv(A, x) (its shape is A's)")
        P, J, D = call.input("indptr", matrix.indptr), call.input("indices", matrix.indices), call.input("data", matrix.data)
        rows, columns = matrix.shape
        X = call.input("x", vector)
    else:
        if shape is None:
            raise ValueError("spmv: shape=(rows, columns) is required with the CSR arrays")
        rows, columns = _matrix_shape("spmv", shape)
        P, J = call.input("indptr", indptr), call.input("indices", indices)
        D, X = call.input("data", data), call.input("x", x)
    cdef ElementType i = call.index([("indptr", P), ("indices", J)])
    cdef ElementType s = call.scalar([("data", D), ("x", X)])
    cdef DualView Y = call.output(
        k_spmv_shape(P._buffer()[0], J._buffer()[0], D._buffer()[0], X._buffer()[0], rows, columns), D.dtype)
    with nogil:
        k_spmv(s, i, P.buffer, J.buffer, D.buffer, X.buffer, Y.buffer, rows, columns)
    return call.finish(Y)


def spmm_dcsr(rows, indptr, indices, data, b, *, shape, out=None):
    """Doubly compressed sparse rows times a dense b of shape (shape[1], n): `rows` lists the
    non-empty rows (strictly increasing), indptr has len(rows) + 1 entries. Rows not listed are
    zero in the result. The structure is checked on the device before out is written."""
    cdef _Call call = _Call("spmm_dcsr", out)
    cdef int64_t nrows, columns
    nrows, columns = _matrix_shape("spmm_dcsr", shape)
    cdef DualView R = call.input("rows", rows), P = call.input("indptr", indptr)
    cdef DualView J = call.input("indices", indices), D = call.input("data", data), B = call.input("b", b)
    cdef ElementType i = call.index([("rows", R), ("indptr", P), ("indices", J)])
    cdef ElementType s = call.scalar([("data", D), ("b", B)])
    cdef DualView C = call.output(k_spmm_dcsr_shape(R._buffer()[0], P._buffer()[0], J._buffer()[0],
                                                         D._buffer()[0], B._buffer()[0], nrows, columns), D.dtype)
    with nogil:
        k_spmm_dcsr(s, i, R.buffer, P.buffer, J.buffer, D.buffer, B.buffer, C.buffer, nrows, columns)
    return call.finish(C)


def sparse_matadd(a, b):
    """A + B for two sparse matrices of one shape (CSRMatrix, or anything CSRMatrix takes) whose
    rows list their columns in strictly increasing order (scipy's canonical form; checked on the
    device, ValueError otherwise). Returns a new CSRMatrix, canonical too (coinciding entries summed;
    a sum of zero stays an explicit entry), left on the device: its size is counted there, and only
    that number comes to the host."""
    A = a if isinstance(a, CSRMatrix) else CSRMatrix(a)
    B = b if isinstance(b, CSRMatrix) else CSRMatrix(b)
    if A.shape != B.shape:
        raise ValueError(f"sparse_matadd: shapes {A.shape} and {B.shape} differ")
    cdef _Call call = _Call("sparse_matadd")
    cdef DualView AP = A.indptr, AI = A.indices, AD = A.data, BP = B.indptr, BI = B.indices, BD = B.data
    cdef ElementType i = call.index([("a.indptr", AP), ("a.indices", AI), ("b.indptr", BP), ("b.indices", BI)])
    cdef ElementType s = call.scalar([("a.data", AD), ("b.data", BD)])
    cdef int64_t rows = A.shape[0], columns = A.shape[1]
    cdef vector[Buffer] c
    with nogil:
        c = k_sparse_matadd(s, i, AP.buffer, AI.buffer, AD.buffer, BP.buffer, BI.buffer, BD.buffer, rows, columns)
    return CSRMatrix((wrap(c[2], None), wrap(c[1], None), wrap(c[0], None)), shape=A.shape)


cdef _elementwise(Operation op, x, y, out):
    cdef bytes kernel = operation_name(op)
    cdef _Call call = _Call(kernel.decode(), out)
    cdef _Operand X = call.operand("x", x), Y = call.operand("y", y)
    cdef ElementType s = call.operand_scalar([("x", X), ("y", Y)])
    cdef OperandArg a = X.arg(), b = Y.arg()
    cdef DualView C = call.output(k_elementwise_shape(kernel, a, b), _DTYPES[s], in_place=True)
    with nogil:
        k_arithmetic(op, s, a, b, C.buffer)
    return call.finish(C)


def add(x, y, out=None):
    """Elementwise x + y. Each operand is an array (rank 0 to 4; those given must share one shape)
    or a scalar: a Python or NumPy number, or a 0-d array or DualView (read on the device, so a
    result left there by an earlier kernel moves nothing). Python numbers take the arrays' dtype, as
    in NumPy 2; everything else must be all float32 or all float64. out may be x or y itself."""
    return _elementwise(Operation.add, x, y, out)


def subtract(x, y, out=None):
    """Elementwise x - y; operands and out as for add."""
    return _elementwise(Operation.subtract, x, y, out)


def multiply(x, y, out=None):
    """Elementwise x * y; operands and out as for add."""
    return _elementwise(Operation.multiply, x, y, out)


def divide(x, y, out=None):
    """Elementwise x / y (IEEE: a zero divisor gives inf or nan); operands and out as for add."""
    return _elementwise(Operation.divide, x, y, out)


def maximum(x, y, out=None):
    """Elementwise maximum, as numpy.maximum (a NaN in either wins); maximum(x, 0.0) is a ReLU.
    Operands and out as for add."""
    return _elementwise(Operation.maximum, x, y, out)


def axpby(alpha, x, beta, y, out=None):
    """alpha * x + beta * y, elementwise. alpha and beta are scalars (numbers, or 0-d arrays or
    DualViews read on the device); x and y as the operands of add. out may be x or y itself:
    axpby(a, x, 1.0, y, out=y) is the BLAS axpy update in place."""
    cdef _Call call = _Call("axpby", out)
    cdef _Operand A = call.operand("alpha", alpha), X = call.operand("x", x)
    cdef _Operand B = call.operand("beta", beta), Y = call.operand("y", y)
    cdef ElementType s = call.operand_scalar([("alpha", A), ("x", X), ("beta", B), ("y", Y)])
    cdef OperandArg a = A.arg(), xa = X.arg(), b = B.arg(), ya = Y.arg()
    cdef DualView C = call.output(k_elementwise_shape(b"axpby", xa, ya), _DTYPES[s], in_place=True)
    with nogil:
        k_axpby(s, a, xa, b, ya, C.buffer)
    return call.finish(C)


def dot(x, y, out=None):
    """The dot product of two vectors of equal length: a Python float (the call waits for the
    device), or, with out a 0-d DualView or array, written into out's device side and out returned
    (lapis.empty(()) makes one): a scalar that stays on the device for later kernels to read."""
    cdef _Call call = _Call("dot", out)
    cdef DualView X = call.input("x", x), Y = call.input("y", y)
    cdef ElementType s = call.scalar([("x", X), ("y", Y)])
    cdef double result
    cdef DualView R
    if out is None:
        with nogil:
            result = k_dot(s, X.buffer, Y.buffer)
        call.done()
        return result
    R = call.output([], X.dtype)
    with nogil:
        k_dot_into(s, X.buffer, Y.buffer, R.buffer)
    return call.finish(R)


def cg_step(rz, pq, p, q, x, r, rr):
    """One pass of a conjugate-gradient iteration: x += alpha p and r -= alpha q (q = A p), with
    alpha = rz / pq read on the device, and rr = r . r. rz and pq are 0-d; x and r are DualViews
    updated in place; rr is a 0-d DualView or array, written and returned."""
    cdef _Call call = _Call("cg_step", rr)
    cdef DualView RZ = call.input("rz", rz), PQ = call.input("pq", pq), P = call.input("p", p)
    cdef DualView Q = call.input("q", q), X = call.updated("x", x), R = call.updated("r", r)
    cdef ElementType s = call.scalar([("rz", RZ), ("pq", PQ), ("p", P), ("q", Q), ("x", X), ("r", R)])
    cdef DualView RR = call.output([], X.dtype, False, "rr")
    with nogil:
        k_cg_step(s, RZ.buffer, PQ.buffer, P.buffer, Q.buffer, X.buffer, R.buffer, RR.buffer)
    return call.finish(RR)


def cg_precondition(m, r, z, rz):
    """z = m * r elementwise (m the preconditioner's diagonal: Jacobi's is 1 / diag(A)) and
    rz = r . z, in one pass. z is a DualView, overwritten on the device; rz a 0-d DualView or
    array, written and returned."""
    cdef _Call call = _Call("cg_precondition", rz, updates=True)
    cdef DualView M = call.input("m", m), R = call.input("r", r), Z = call.updated("z", z)
    cdef ElementType s = call.scalar([("m", M), ("r", R), ("z", Z)])
    cdef DualView RZ = call.output([], Z.dtype, False, "rz")
    with nogil:
        k_cg_precondition(s, M.buffer, R.buffer, Z.buffer, RZ.buffer)
    return call.finish(RZ)


def cg_direction(z, rz, rz_old, p):
    """p = z + beta p with beta = rz / rz_old read on the device (both 0-d), in one pass; p is a
    DualView updated in place and returned."""
    cdef _Call call = _Call("cg_direction", None, updates=True)
    cdef DualView Z = call.input("z", z), RZ = call.input("rz", rz), RZ_OLD = call.input("rz_old", rz_old)
    cdef DualView P = call.updated("p", p)
    cdef ElementType s = call.scalar([("z", Z), ("rz", RZ), ("rz_old", RZ_OLD), ("p", P)])
    with nogil:
        k_cg_direction(s, Z.buffer, RZ.buffer, RZ_OLD.buffer, P.buffer)
    call.done()
    return P


def norm(x, out=None):
    """The 2-norm of a vector: a Python float, or into a 0-d out as for dot."""
    cdef _Call call = _Call("norm", out)
    cdef DualView X = call.input("x", x)
    cdef ElementType s = call.scalar([("x", X)])
    cdef double result
    cdef DualView R
    if out is None:
        with nogil:
            result = k_norm2(s, X.buffer)
        call.done()
        return result
    R = call.output([], X.dtype)
    with nogil:
        k_norm2_into(s, X.buffer, R.buffer)
    return call.finish(R)
