# Making DualViews (zeros, empty, full, the *_like functions) and wrapping what others made (borrow_host,
# wrap, asdualview). Included into _core.pyx.


cdef DualView borrow_host(void* data, tuple shape, tuple strides, object dtype, object owner, bint writable):
    dtype = _supported_dtype(dtype)
    cdef Shape c_shape = _make_shape(shape, dtype)
    if len(strides) != len(shape):
        raise ValueError(f"lapis: {len(strides)} strides for a shape of rank {len(shape)}")
    cdef Strides c_strides
    for i, step in enumerate(strides):
        c_strides[i] = step
    cdef DualView dv = DualView.__new__(DualView)
    dv._adopt(c_borrow(data, c_shape, c_strides, writable), dtype, owner)
    return dv


cdef DualView zeros_dualview(tuple shape, object dtype):
    return _zeros(shape, dtype)


cdef DualView empty_dualview(tuple shape, object dtype):
    return _empty(shape, dtype)


cdef DualView empty_dualview_of(const vector[int64_t]& extents, object dtype):
    dtype = _supported_dtype(dtype)
    return _result(_shape_of(extents, dtype), dtype)


cdef DualView wrap(shared_ptr[AnyDualBuffer] buffer, object owner):
    if not buffer:
        raise ValueError("lapis: cannot wrap an empty buffer")
    cdef ElementType element = buffer.get().shape().element
    if element == ElementType.opaque:
        raise TypeError("lapis: cannot wrap a buffer of opaque bytes (no element type)")
    cdef DualView dv = DualView.__new__(DualView)
    dv._adopt(buffer, _DTYPES[<int>element], owner)
    return dv


def _borrow_memref(size_t address, offset, sizes, strides, dtype, owner):
    """A DualView whose host side is the memory an MLIR memref descriptor describes (see
    lapis.memref.from_descriptor); `owner` keeps that memory alive. ValueError as
    lapis::memref_layout says."""
    dtype = _supported_dtype(dtype)
    cdef vector[int64_t] c_sizes, c_strides
    cdef int64_t c_offset
    try:
        c_sizes, c_strides, c_offset = sizes, strides, offset
    except OverflowError:
        raise ValueError(f"lapis.memref: sizes {sizes}, strides {strides} or offset {offset} out of range") from None
    cdef DualView dv = DualView.__new__(DualView)
    dv._adopt(c_borrow_memref(<void*>address, c_offset, c_sizes, c_strides, _ELEMENT_TYPES[dtype]), dtype, owner)
    return dv


def asdualview(obj):
    """obj itself if it is a DualView; a device array (CuPy, a PyTorch CUDA tensor: anything whose
    __dlpack_device__ is not host memory) through DualView.from_dlpack; anything else through
    DualView(obj). Never copies."""
    if isinstance(obj, DualView):
        return obj
    if not isinstance(obj, numpy.ndarray) and hasattr(obj, "__dlpack_device__") \
            and obj.__dlpack_device__()[0] not in (kDLCPU, kDLCUDAHost):
        return _from_dlpack(obj)
    return DualView(obj)


def zeros(shape, dtype=numpy.float64):
    """A new zero-filled DualView: the device side is allocated and filled now, the host side on
    first host access (zero-filled too: nothing is copied)."""
    return _zeros(shape, dtype)


cdef DualView _zeros(shape, dtype):
    note_python_caller()  # before the allocation, whose event names the line
    dtype = _supported_dtype(dtype)
    cdef DualView dv = DualView.__new__(DualView)
    dv._adopt(c_zeros(_make_shape(shape, dtype)), dtype, None)
    return dv


def empty(shape, dtype=numpy.float64):
    """A new DualView whose contents are unspecified (zeros, where read before written): nothing
    is allocated until a side is used, and a kernel given it as `out` allocates the device side
    without filling it."""
    return _empty(shape, dtype)


cdef DualView _empty(shape, dtype):
    dtype = _supported_dtype(dtype)
    return _result(_make_shape(shape, dtype), dtype)


cdef DualView _result(const Shape& shape, dtype):
    """A new DualView of `shape` (dtype a supported one) with nothing allocated."""
    cdef DualView dv = DualView.__new__(DualView)
    dv._adopt(c_result(shape), dtype, None)
    return dv


def ones(shape, dtype=numpy.float64):
    """A new DualView of ones, filled on the device (as lapis.full)."""
    return full(shape, 1, dtype)


cdef tuple _like(prototype, dtype, shape):
    """The shape and dtype of a *_like result: `prototype`'s (a DualView or anything numpy takes)
    unless given."""
    if not isinstance(prototype, DualView):
        prototype = numpy.asarray(prototype)
    return (prototype.shape if shape is None else shape,
            prototype.dtype if dtype is None else dtype)


def empty_like(prototype, dtype=None, shape=None):
    """lapis.empty with the shape and dtype of `prototype` (a DualView or an array), unless given."""
    return empty(*_like(prototype, dtype, shape))


def zeros_like(prototype, dtype=None, shape=None):
    """lapis.zeros with the shape and dtype of `prototype`, unless given."""
    return zeros(*_like(prototype, dtype, shape))


def ones_like(prototype, dtype=None, shape=None):
    """lapis.ones with the shape and dtype of `prototype`, unless given."""
    return ones(*_like(prototype, dtype, shape))


def full_like(prototype, fill_value, dtype=None, shape=None):
    """lapis.full with the shape and dtype of `prototype`, unless given."""
    shape, dtype = _like(prototype, dtype, shape)
    return full(shape, fill_value, dtype)


cdef bytes _item_bytes(value, dtype, str where):
    """The bytes of one element of `dtype` holding `value` (numpy's casting rules)."""
    item = numpy.asarray(value, dtype=dtype)
    if item.ndim != 0:
        raise ValueError(f"{where}: the fill value must be a scalar, not an array of shape {item.shape}")
    return item.tobytes()


def full(shape, fill_value, dtype=None):
    """A new DualView filled with fill_value on the device; the host side is allocated and
    downloaded on first host access. dtype defaults to numpy's choice for fill_value."""
    note_python_caller()  # before the allocation, whose event names the line
    dtype = _supported_dtype(numpy.asarray(fill_value).dtype if dtype is None else dtype)
    cdef bytes item = _item_bytes(fill_value, dtype, "lapis.full")
    cdef DualView dv = DualView.__new__(DualView)
    dv._adopt(c_full(_make_shape(shape, dtype), <const char*>item), dtype, None)
    return dv
