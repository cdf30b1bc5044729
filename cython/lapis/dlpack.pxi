# Zero-copy exchange of device sides with other libraries (CuPy, PyTorch, numpy): DLPack in both
# directions (unversioned "dltensor" capsules, which every current consumer accepts) and the CUDA
# array interface (version 3). The structures below follow the DLPack specification's ABI.

from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_IsValid, PyCapsule_New, PyCapsule_SetName
from cpython.ref cimport Py_DECREF, Py_INCREF
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint64_t
from libc.stdlib cimport free, malloc


ctypedef struct DLDevice:
    int32_t device_type
    int32_t device_id

ctypedef struct DLDataType:
    uint8_t code
    uint8_t bits
    uint16_t lanes

ctypedef struct DLTensor:
    void* data
    DLDevice device
    int32_t ndim
    DLDataType dtype
    int64_t* shape
    int64_t* strides
    uint64_t byte_offset

ctypedef struct DLManagedTensor:
    DLTensor dl_tensor
    void* manager_ctx
    void (*deleter)(DLManagedTensor*) noexcept

# An exported tensor and the arrays it points to, in one allocation.
ctypedef struct _Export:
    DLManagedTensor managed
    int64_t shape[8]
    int64_t strides[8]


cdef enum:
    DL_CPU = 1
    DL_CUDA = 2
    DL_CUDA_HOST = 3
    DL_CUDA_MANAGED = 13

# DLPack type codes of numpy dtype kinds
_DL_CODES = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}
_DL_KINDS = {code: kind for kind, code in _DL_CODES.items()}


cdef tuple _device_location():
    cdef DeviceLocation location = c_device_location()
    return (location.dlpack_device_type, location.device_id)


cdef void _export_deleter(DLManagedTensor* managed) noexcept with gil:
    Py_DECREF(<object>managed.manager_ctx)
    free(managed)


cdef void _unconsumed_capsule(object capsule) noexcept:
    # a capsule no consumer took (consumers rename it "used_dltensor"): release what it holds
    cdef DLManagedTensor* managed
    if PyCapsule_IsValid(capsule, b"dltensor"):
        managed = <DLManagedTensor*>PyCapsule_GetPointer(capsule, b"dltensor")
        managed.deleter(managed)


cdef void* _device_side_for_consumer(DualView dv, str protocol) except NULL:
    """The device side, synced, marked modified (a consumer may write it), lapis's queued work done."""
    cdef AnyDualBuffer* b = dv._buffer()
    cdef void* data
    if not b.host_writable():
        raise BufferError(f"{protocol}: a DualView with a read-only host side cannot lend its device side "
                          "(the protocol cannot promise that the consumer will not write)")
    with nogil:
        data = c_lend_device(b[0], Access.write)
    return data


cdef object _dlpack_export(DualView dv, dl_device, copy):
    location = _device_location()
    if copy:
        raise BufferError("lapis.DualView.__dlpack__: copy=True is not supported; the export is zero-copy")
    if dl_device is not None and tuple(dl_device) != location:
        raise BufferError(f"lapis.DualView.__dlpack__: the device side lives on {location}, not {tuple(dl_device)}")
    cdef void* data = _device_side_for_consumer(dv, "__dlpack__")
    cdef AnyDualBuffer* b = dv._buffer()
    cdef _Export* export = <_Export*>malloc(sizeof(_Export))
    if export == NULL:
        raise MemoryError()
    cdef DLTensor* t = &export.managed.dl_tensor
    t.data = data
    t.device.device_type, t.device.device_id = location
    t.ndim = b.shape().rank
    t.dtype.code = _DL_CODES[dv.dtype.kind]
    t.dtype.bits = dv.dtype.itemsize * 8
    t.dtype.lanes = 1
    for i in range(t.ndim):
        export.shape[i] = b.shape().extents[i]
        export.strides[i] = b.strides(Side.device)[i] // dv.dtype.itemsize
    t.shape = export.shape
    t.strides = export.strides
    t.byte_offset = 0
    Py_INCREF(dv)
    export.managed.manager_ctx = <void*>dv
    export.managed.deleter = _export_deleter
    return PyCapsule_New(export, b"dltensor", _unconsumed_capsule)


cdef class _DLPackImport:
    """Keeps a consumed DLPack tensor alive and hands it back to its producer when dropped."""
    cdef DLManagedTensor* managed

    def __dealloc__(self):
        if self.managed != NULL and self.managed.deleter != NULL:
            self.managed.deleter(self.managed)


cdef DualView _from_dlpack(obj):
    if isinstance(obj, DualView):
        return obj
    if not hasattr(obj, "__dlpack__"):
        raise TypeError(f"lapis.DualView.from_dlpack: a {type(obj).__name__} does not export DLPack")
    device_type, device_id = obj.__dlpack_device__()
    location = _device_location()
    on_host = device_type in (DL_CPU, DL_CUDA_HOST)
    if not on_host and (device_type, device_id) != location:
        raise ValueError(f"lapis.DualView.from_dlpack: the array lives on DLPack device {(device_type, device_id)}; "
                         f"this lapis build's device is {location}")
    capsule = obj.__dlpack__()
    cdef _DLPackImport owner = _DLPackImport.__new__(_DLPackImport)
    owner.managed = <DLManagedTensor*>PyCapsule_GetPointer(capsule, b"dltensor")
    PyCapsule_SetName(capsule, b"used_dltensor")
    cdef DLTensor* t = &owner.managed.dl_tensor
    if t.dtype.lanes != 1 or t.dtype.code not in _DL_KINDS:
        raise TypeError(f"lapis.DualView.from_dlpack: unsupported DLPack dtype (code {t.dtype.code}, "
                        f"{t.dtype.bits} bits, {t.dtype.lanes} lanes)")
    dtype = _supported_dtype(numpy.dtype(f"{_DL_KINDS[t.dtype.code]}{t.dtype.bits // 8}"))
    shape = tuple(t.shape[i] for i in range(t.ndim))
    cdef Shape c_shape = _make_shape(shape, dtype)
    cdef Strides strides
    expected = 1  # element strides of a C-ordered array, for producers that send none
    for i in reversed(range(t.ndim)):
        strides[i] = (t.strides[i] if t.strides != NULL else expected) * dtype.itemsize
        expected *= shape[i]
    cdef void* data = <char*>t.data + t.byte_offset
    cdef DualView dv = DualView.__new__(DualView)
    if on_host:
        dv._adopt(c_borrow(data, c_shape, strides, True), dtype, owner)
        return dv
    if not is_contiguous(c_shape, strides, Order.right):
        raise ValueError("lapis.DualView.from_dlpack: device arrays must be C-contiguous "
                         "(pass a contiguous copy, e.g. x.contiguous() or cupy.ascontiguousarray(x))")
    c_synchronize_device()  # the producer's pending work on its own streams is done before ours reads
    dv._adopt(c_borrow_device(data, c_shape), dtype, owner)
    return dv


cdef class _CudaArray:
    """A DualView's device side as the CUDA array interface describes it, fixed when made."""
    cdef readonly dict __cuda_array_interface__
    cdef readonly DualView dualview

    def __cinit__(self, DualView dv, bint writable):
        if _device_location()[0] not in (DL_CUDA, DL_CUDA_MANAGED):
            raise BufferError("lapis.DualView.cuda_array: this build's device side is not CUDA memory")
        cdef AnyDualBuffer* b = dv._buffer()
        cdef void* data
        if writable:
            data = _device_side_for_consumer(dv, "cuda_array")
        else:
            with nogil:
                data = c_lend_device(b[0], Access.read)
        strides = tuple(b.strides(Side.device)[i] for i in range(b.shape().rank))
        self.dualview = dv
        self.__cuda_array_interface__ = {
            "shape": dv.shape,
            "typestr": dv.dtype.str,
            "data": (<size_t>data, not writable),
            "strides": None if is_contiguous(b.shape(), b.strides(Side.device), Order.right) else strides,
            "version": 3,
            # lapis's queued work on the device side is finished before this dict exists
            "stream": None,
        }
