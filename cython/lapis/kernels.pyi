# Type stubs of lapis.kernels (kernels.pyx). A kernel returns a new DualView when out is None, and
# out itself otherwise (a DualView, a numpy array or a device array): the overloads say so.
from typing import Any, Protocol, SupportsIndex, TypeAlias, TypeVar, overload, type_check_only

from typing_extensions import disjoint_base

import numpy as np

from lapis._core import DualView, _ArrayArg

__all__ = [
    "CSRMatrix",
    "add",
    "axpby",
    "batched_gemm",
    "batchnorm_nchw",
    "cg_direction",
    "cg_precondition",
    "cg_step",
    "conv2d_nchw",
    "divide",
    "dot",
    "gemm",
    "global_avgpool_nchw",
    "linear",
    "matadd",
    "maximum",
    "maxpool_nchw",
    "multiply",
    "norm",
    "sparse_matadd",
    "spmm_dcsr",
    "spmv",
    "subtract",
]

_OutT = TypeVar("_OutT", bound=_ArrayArg)
# An operand of an elementwise kernel: an array, or a number passed by value (bool, integer or
# float; a Python number takes the arrays' dtype).
_ScalarOrArray: TypeAlias = float | np.bool_ | np.integer[Any] | np.floating[Any] | _ArrayArg
# An integer setting (a stride, a size): a Python or numpy integer (a bool, which the type
# admits, is refused at runtime).
_Int: TypeAlias = int | np.integer[Any]
_MatrixShape: TypeAlias = tuple[SupportsIndex, SupportsIndex]

@type_check_only
class _SupportsToCSR(Protocol):
    # a scipy.sparse matrix or array, of any format
    def tocsr(self) -> Any: ...

@disjoint_base
class CSRMatrix:
    @overload
    def __init__(self, arg: tuple[_ArrayArg, _ArrayArg, _ArrayArg], shape: _MatrixShape) -> None: ...
    @overload
    def __init__(self, arg: _SupportsToCSR, shape: _MatrixShape | None = None) -> None: ...
    @property
    def data(self) -> DualView: ...
    @property
    def indices(self) -> DualView: ...
    @property
    def indptr(self) -> DualView: ...
    @property
    def shape(self) -> tuple[int, int]: ...
    @property
    def nnz(self) -> int: ...
    @property
    def dtype(self) -> np.dtype[Any]: ...

@overload
def gemm(a: _ArrayArg, b: _ArrayArg, out: None = None) -> DualView: ...
@overload
def gemm(a: _ArrayArg, b: _ArrayArg, out: _OutT) -> _OutT: ...
@overload
def batched_gemm(a: _ArrayArg, b: _ArrayArg, out: None = None) -> DualView: ...
@overload
def batched_gemm(a: _ArrayArg, b: _ArrayArg, out: _OutT) -> _OutT: ...
@overload
def matadd(a: _ArrayArg, b: _ArrayArg, out: None = None) -> DualView: ...
@overload
def matadd(a: _ArrayArg, b: _ArrayArg, out: _OutT) -> _OutT: ...
@overload
def maxpool_nchw(
    x: _ArrayArg, kernel_size: _Int = 3, stride: _Int = 1, padding: _Int = 1, dilation: _Int = 2, out: None = None
) -> DualView: ...
@overload
def maxpool_nchw(x: _ArrayArg, kernel_size: _Int, stride: _Int, padding: _Int, dilation: _Int, out: _OutT) -> _OutT: ...
@overload
def maxpool_nchw(
    x: _ArrayArg, kernel_size: _Int = 3, stride: _Int = 1, padding: _Int = 1, dilation: _Int = 2, *, out: _OutT
) -> _OutT: ...
@overload
def conv2d_nchw(
    x: _ArrayArg, w: _ArrayArg, bias: _ArrayArg | None = None, *, stride: _Int = 1, padding: _Int = 0, out: None = None
) -> DualView: ...
@overload
def conv2d_nchw(
    x: _ArrayArg, w: _ArrayArg, bias: _ArrayArg | None = None, *, stride: _Int = 1, padding: _Int = 0, out: _OutT
) -> _OutT: ...
@overload
def batchnorm_nchw(
    x: _ArrayArg,
    mean: _ArrayArg,
    var: _ArrayArg,
    weight: _ArrayArg,
    bias: _ArrayArg,
    *,
    eps: float | np.integer[Any] | np.floating[Any] = 1e-5,
    out: None = None,
) -> DualView: ...
@overload
def batchnorm_nchw(
    x: _ArrayArg,
    mean: _ArrayArg,
    var: _ArrayArg,
    weight: _ArrayArg,
    bias: _ArrayArg,
    *,
    eps: float | np.integer[Any] | np.floating[Any] = 1e-5,
    out: _OutT,
) -> _OutT: ...
@overload
def global_avgpool_nchw(x: _ArrayArg, out: None = None) -> DualView: ...
@overload
def global_avgpool_nchw(x: _ArrayArg, out: _OutT) -> _OutT: ...
@overload
def linear(x: _ArrayArg, weight: _ArrayArg, bias: _ArrayArg, out: None = None) -> DualView: ...
@overload
def linear(x: _ArrayArg, weight: _ArrayArg, bias: _ArrayArg, out: _OutT) -> _OutT: ...

# spmv(A, x) for a CSRMatrix A (x also as x=), or spmv(indptr, indices, data, x, shape=...).
@overload
def spmv(
    indptr: CSRMatrix, indices: _ArrayArg, data: None = None, x: None = None, *, shape: None = None, out: None = None
) -> DualView: ...
@overload
def spmv(
    indptr: CSRMatrix, indices: _ArrayArg, data: None = None, x: None = None, *, shape: None = None, out: _OutT
) -> _OutT: ...
@overload
def spmv(
    indptr: CSRMatrix, indices: None = None, data: None = None, *, x: _ArrayArg, shape: None = None, out: None = None
) -> DualView: ...
@overload
def spmv(
    indptr: CSRMatrix, indices: None = None, data: None = None, *, x: _ArrayArg, shape: None = None, out: _OutT
) -> _OutT: ...
@overload
def spmv(
    indptr: _ArrayArg, indices: _ArrayArg, data: _ArrayArg, x: _ArrayArg, *, shape: _MatrixShape, out: None = None
) -> DualView: ...
@overload
def spmv(
    indptr: _ArrayArg, indices: _ArrayArg, data: _ArrayArg, x: _ArrayArg, *, shape: _MatrixShape, out: _OutT
) -> _OutT: ...
@overload
def spmm_dcsr(
    rows: _ArrayArg,
    indptr: _ArrayArg,
    indices: _ArrayArg,
    data: _ArrayArg,
    b: _ArrayArg,
    *,
    shape: _MatrixShape,
    out: None = None,
) -> DualView: ...
@overload
def spmm_dcsr(
    rows: _ArrayArg,
    indptr: _ArrayArg,
    indices: _ArrayArg,
    data: _ArrayArg,
    b: _ArrayArg,
    *,
    shape: _MatrixShape,
    out: _OutT,
) -> _OutT: ...
def sparse_matadd(a: CSRMatrix | _SupportsToCSR, b: CSRMatrix | _SupportsToCSR) -> CSRMatrix: ...

# Elementwise kernels: out may be x or y itself.
@overload
def add(x: _ScalarOrArray, y: _ScalarOrArray, out: None = None) -> DualView: ...
@overload
def add(x: _ScalarOrArray, y: _ScalarOrArray, out: _OutT) -> _OutT: ...
@overload
def subtract(x: _ScalarOrArray, y: _ScalarOrArray, out: None = None) -> DualView: ...
@overload
def subtract(x: _ScalarOrArray, y: _ScalarOrArray, out: _OutT) -> _OutT: ...
@overload
def multiply(x: _ScalarOrArray, y: _ScalarOrArray, out: None = None) -> DualView: ...
@overload
def multiply(x: _ScalarOrArray, y: _ScalarOrArray, out: _OutT) -> _OutT: ...
@overload
def divide(x: _ScalarOrArray, y: _ScalarOrArray, out: None = None) -> DualView: ...
@overload
def divide(x: _ScalarOrArray, y: _ScalarOrArray, out: _OutT) -> _OutT: ...
@overload
def maximum(x: _ScalarOrArray, y: _ScalarOrArray, out: None = None) -> DualView: ...
@overload
def maximum(x: _ScalarOrArray, y: _ScalarOrArray, out: _OutT) -> _OutT: ...
@overload
def axpby(
    alpha: _ScalarOrArray, x: _ScalarOrArray, beta: _ScalarOrArray, y: _ScalarOrArray, out: None = None
) -> DualView: ...
@overload
def axpby(alpha: _ScalarOrArray, x: _ScalarOrArray, beta: _ScalarOrArray, y: _ScalarOrArray, out: _OutT) -> _OutT: ...

# Reductions: a Python float (the call waits for the device), or into a 0-d out left on the device.
@overload
def dot(x: _ArrayArg, y: _ArrayArg, out: None = None) -> float: ...
@overload
def dot(x: _ArrayArg, y: _ArrayArg, out: _OutT) -> _OutT: ...
@overload
def norm(x: _ArrayArg, out: None = None) -> float: ...
@overload
def norm(x: _ArrayArg, out: _OutT) -> _OutT: ...

# The fused conjugate-gradient updates: scalars 0-d, vectors updated in place are DualViews.
def cg_step(
    rz: _ArrayArg, pq: _ArrayArg, p: _ArrayArg, q: _ArrayArg, x: DualView, r: DualView, rr: _OutT
) -> _OutT: ...
def cg_precondition(m: _ArrayArg, r: _ArrayArg, z: DualView, rz: _OutT) -> _OutT: ...
def cg_direction(z: _ArrayArg, rz: _ArrayArg, rz_old: _ArrayArg, p: DualView) -> DualView: ...
