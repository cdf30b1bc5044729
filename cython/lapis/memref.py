"""MLIR strided memref descriptors, the arguments of the extern "C" entry points that LAPIS's
modules export and its Python glue calls through ctypes, both ways without copies: the descriptor
of a DualView's host side, and a DualView over the memory a descriptor describes. With them the
glue can keep results as DualViews instead of converting through numpy on every call. The
descriptor's rules (what sizes, strides and offsets may be) are lapis::memref_layout's, in C++."""
from __future__ import annotations

import ctypes
import functools
from typing import TYPE_CHECKING, Any, TypeAlias, cast

import numpy
from numpy.typing import DTypeLike

from lapis._core import MAX_RANK, DualView, _borrow_memref

if TYPE_CHECKING:
    # The ctypes type of an element: ctypes's own, or a structure of its bits.
    _CType: TypeAlias = type[ctypes._SimpleCData[Any]] | type[ctypes.Structure]


class _Complex64(ctypes.Structure):
    _fields_ = [("real", ctypes.c_float), ("imag", ctypes.c_float)]
    real: float
    imag: float


class _Complex128(ctypes.Structure):
    _fields_ = [("real", ctypes.c_double), ("imag", ctypes.c_double)]
    real: float
    imag: float


# Element types ctypes has no type of its own for: the storage of their bits.
_STORAGE: dict[numpy.dtype[Any], _CType] = {numpy.dtype(numpy.float16): ctypes.c_uint16,
                                            numpy.dtype(numpy.complex64): _Complex64,
                                            numpy.dtype(numpy.complex128): _Complex128}


def _ctype_of(element: DTypeLike) -> _CType:
    dtype: numpy.dtype[Any] = numpy.dtype(element)
    if dtype in _STORAGE:
        return _STORAGE[dtype]
    try:
        ctype: _CType = numpy.ctypeslib.as_ctypes_type(dtype)
        return ctype
    except NotImplementedError:
        raise TypeError(f"lapis.memref: no descriptor for {dtype} elements") from None


@functools.lru_cache(maxsize=None)
def descriptor_type(element: DTypeLike | type[ctypes._SimpleCData[Any]], ndim: int) -> type[ctypes.Structure]:
    """The ctypes structure of StridedMemRefType<T, ndim> (basePtr, data, offset, and for ndim >= 1
    sizes[ndim] and strides[ndim], strides in elements): `element` is a ctypes type or a numpy
    dtype (float16 and complex elements, which ctypes lacks, are stored as their bits)."""
    if not 0 <= ndim <= MAX_RANK:
        raise ValueError(f"lapis.memref: ranks 0 to {MAX_RANK}, not {ndim}")
    ctype: _CType
    dtype: numpy.dtype[Any]
    if isinstance(element, type) and issubclass(element, ctypes._SimpleCData):
        ctype, dtype = element, numpy.dtype(element)
    else:
        dtype = numpy.dtype(element)
        ctype = _ctype_of(dtype)
    fields = [("basePtr", ctypes.POINTER(ctype)), ("data", ctypes.POINTER(ctype)), ("offset", ctypes.c_int64)]
    if ndim:
        fields += [("sizes", ctypes.c_int64 * ndim), ("strides", ctypes.c_int64 * ndim)]
    return type(f"StridedMemRef{ndim}D_{dtype.name}", (ctypes.Structure,), {"_fields_": fields, "dtype": dtype})


def descriptor(dv: DualView, *, writable: bool = False) -> ctypes.Structure:
    """The descriptor of dv's host side, synced first. writable=True marks the host side modified,
    for a callee that writes it (an output); the descriptor keeps what it points to alive.
    TypeError, before anything is synced or marked, for a dtype ctypes cannot describe."""
    result = descriptor_type(dv.dtype, dv.ndim)()
    array = dv.asnumpy(writable=writable)
    pointer_type = cast("type[ctypes._Pointer[Any]]", result._fields_[0][1])  # basePtr's: POINTER(element)
    pointer = ctypes.cast(array.ctypes.data, pointer_type)
    result.basePtr = result.data = pointer
    result.offset = 0
    for i in range(array.ndim):
        result.sizes[i] = array.shape[i]
        result.strides[i] = array.strides[i] // array.itemsize
    result._keep = array
    return result


def from_descriptor(desc: ctypes.Structure) -> DualView:
    """A DualView whose host side is the memory `desc` describes (borrowed: the descriptor keeps
    it alive; the host side starts out modified). TypeError unless desc is a descriptor of
    descriptor_type(); ValueError for negative sizes, strides or offsets, or a null address with
    elements."""
    dtype = getattr(type(desc), "dtype", None)
    fields = [name for name, _ in getattr(type(desc), "_fields_", ())]
    if dtype is None or fields[:3] != ["basePtr", "data", "offset"] or fields[3:] not in ([], ["sizes", "strides"]):
        raise TypeError(f"lapis.memref: expected a strided memref descriptor (lapis.memref.descriptor_type), "
                        f"not {type(desc).__name__}")
    sizes, strides = (tuple(desc.sizes), tuple(desc.strides)) if fields[3:] else ((), ())
    address = ctypes.cast(desc.data, ctypes.c_void_p).value or 0
    return _borrow_memref(address, desc.offset, sizes, strides, dtype, desc)
