"""MLIR strided memref descriptors, the arguments of the extern "C" entry points that LAPIS's
modules export and its Python glue calls through ctypes, both ways without copies: the descriptor
of a DualView's host side, and a DualView over the memory a descriptor describes. With them the
glue can keep results as DualViews instead of converting through numpy on every call."""
import ctypes
import functools

import numpy

from lapis._core import DualView

MAX_RANK = 8


@functools.lru_cache(maxsize=None)
def descriptor_type(ctype, ndim):
    """The ctypes structure of StridedMemRefType<T, ndim> (basePtr, data, offset, sizes[ndim],
    strides[ndim]; strides in elements) for the ctypes element type `ctype`."""
    if not 1 <= ndim <= MAX_RANK:
        raise ValueError(f"lapis.memref: ranks 1 to {MAX_RANK}, not {ndim}")
    fields = [("basePtr", ctypes.POINTER(ctype)), ("data", ctypes.POINTER(ctype)), ("offset", ctypes.c_int64),
              ("sizes", ctypes.c_int64 * ndim), ("strides", ctypes.c_int64 * ndim)]
    return type(f"StridedMemRef{ndim}D_{ctype.__name__}", (ctypes.Structure,), {"_fields_": fields})


def descriptor(dv, *, writable=False):
    """The descriptor of dv's host side, synced first. writable=True marks the host side modified,
    for a callee that writes it (an output); the descriptor keeps what it points to alive."""
    array = dv.asnumpy(writable=writable)
    if array.ndim == 0:
        raise ValueError("lapis.memref: a rank-0 DualView has no strided memref descriptor")
    itemsize = array.dtype.itemsize
    result = descriptor_type(numpy.ctypeslib.as_ctypes_type(array.dtype), array.ndim)()
    pointer = ctypes.cast(array.ctypes.data, result._fields_[0][1])
    result.basePtr = result.data = pointer
    result.offset = 0
    for i in range(array.ndim):
        result.sizes[i] = array.shape[i]
        result.strides[i] = array.strides[i] // itemsize
    result._keep = array
    return result


class _Memory:
    """The memory a descriptor describes, as an array-interface exporter that holds the descriptor."""

    def __init__(self, desc, interface):
        self.descriptor = desc
        self.__array_interface__ = interface


def from_descriptor(desc):
    """A DualView whose host side is the memory `desc` describes (borrowed: the descriptor's owner
    keeps it alive; the host side starts out modified). TypeError unless desc is a descriptor of
    descriptor_type(); ValueError for negative sizes or strides."""
    fields = [name for name, _ in getattr(type(desc), "_fields_", ())]
    if fields != ["basePtr", "data", "offset", "sizes", "strides"]:
        raise TypeError(f"lapis.memref: expected a strided memref descriptor (lapis.memref.descriptor_type), "
                        f"not {type(desc).__name__}")
    ctype = type(desc)._fields_[1][1]._type_
    dtype = numpy.dtype(ctype)
    sizes, strides = tuple(desc.sizes), tuple(desc.strides)
    if any(n < 0 for n in sizes) or any(s < 0 for s in strides):
        raise ValueError(f"lapis.memref: sizes {sizes} and strides {strides} must be non-negative")
    address = ctypes.cast(desc.data, ctypes.c_void_p).value or 0
    if address == 0 and all(sizes):
        raise ValueError("lapis.memref: a null address with elements")
    interface = {"data": (address + desc.offset * dtype.itemsize, False), "shape": sizes, "typestr": dtype.str,
                 "strides": tuple(s * dtype.itemsize for s in strides), "version": 3}
    return DualView(numpy.asarray(_Memory(desc, interface)))
