# Zero-copy exchange of device sides with other libraries (CuPy, PyTorch, numpy): DLPack in both
# directions and the CUDA array interface (version 3). DLPack 1.x versioned tensors
# ("dltensor_versioned" capsules, with the read-only flag) go to consumers that ask for them with
# max_version, the unversioned kind to the others; imports ask for a versioned one first.

from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_IsValid, PyCapsule_New, PyCapsule_SetName
from cpython.ref cimport Py_DECREF, Py_INCREF
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc


# DLPack's ABI (dlpack.h, version 1.0), declared from its specification; only what lapis uses.
cdef enum DLDeviceType:
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLCUDAManaged = 13

cdef enum:
    DLPACK_MAJOR_VERSION = 1
    DLPACK_MINOR_VERSION = 0
    DLPACK_FLAG_BITMASK_READ_ONLY = 1

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

ctypedef struct DLPackVersion:
    uint32_t major
    uint32_t minor

ctypedef struct DLManagedTensorVersioned:
    DLPackVersion version
    void* manager_ctx
    void (*deleter)(DLManagedTensorVersioned*) noexcept
    uint64_t flags
    DLTensor dl_tensor

# An exported tensor (of either kind) and the arrays it points to, in one allocation.
ctypedef struct _Export:
    DLManagedTensor managed
    int64_t shape[max_rank]
    int64_t strides[max_rank]

ctypedef struct _VersionedExport:
    DLManagedTensorVersioned managed
    int64_t shape[max_rank]
    int64_t strides[max_rank]


cdef tuple _device_location():
    cdef DeviceLocation location = c_device_location()
    return (location.dlpack_device_type, location.device_id)


cdef void _export_deleter(DLManagedTensor* managed) noexcept with gil:
    Py_DECREF(<object>managed.manager_ctx)
    free(managed)


cdef void _versioned_export_deleter(DLManagedTensorVersioned* managed) noexcept with gil:
    Py_DECREF(<object>managed.manager_ctx)
    free(managed)


cdef void _unconsumed_capsule(object capsule) noexcept:
    # a capsule no consumer took (consumers rename it "used_dltensor[_versioned]"): release what it holds
    cdef DLManagedTensor* managed
    cdef DLManagedTensorVersioned* versioned
    if PyCapsule_IsValid(capsule, b"dltensor"):
        managed = <DLManagedTensor*>PyCapsule_GetPointer(capsule, b"dltensor")
        managed.deleter(managed)
    elif PyCapsule_IsValid(capsule, b"dltensor_versioned"):
        versioned = <DLManagedTensorVersioned*>PyCapsule_GetPointer(capsule, b"dltensor_versioned")
        versioned.deleter(versioned)


cdef void* _device_side_for_consumer(DualView dv, bint read_only=False) except NULL:
    """The device side, synced, lapis's queued work done; marked modified unless the consumer
    promised (read_only) not to write it (a DualView whose host side is read-only lends it only so:
    ReadOnlyError, a BufferError, otherwise)."""
    cdef AnyDualBuffer* b = dv._buffer()
    cdef void* data
    cdef Access access = Access.read if read_only else Access.write
    with nogil:
        data = c_lend_device(b[0], access)
    return data


cdef void _describe(DLTensor* t, DualView dv, void* data, tuple location, int64_t* shape, int64_t* strides):
    cdef AnyDualBuffer* b = dv.buffer.get()
    t.data = data
    t.device.device_type, t.device.device_id = location
    t.ndim = b.shape().rank
    t.dtype.code = element_info(b.shape().element).dlpack_code
    t.dtype.bits = b.shape().itemsize * 8
    t.dtype.lanes = 1
    for i in range(t.ndim):
        shape[i] = b.shape().extents[i]
        strides[i] = b.strides(Side.device)[i] // dv.dtype.itemsize
    t.shape = shape
    t.strides = strides
    t.byte_offset = 0


cdef object _dlpack_export(DualView dv, stream, max_version, dl_device, copy):
    location = _device_location()
    if copy:
        raise BufferError("lapis.DualView.__dlpack__: copy=True is not supported; the export is zero-copy")
    if dl_device is not None and tuple(dl_device) != location:
        raise BufferError(f"lapis.DualView.__dlpack__: the device side lives on {location}, not {tuple(dl_device)}")
    if stream is not None and location[0] == kDLCPU:
        raise BufferError("lapis.DualView.__dlpack__: the device side is host memory, which has no streams "
                          f"(stream must be None, not {stream!r})")
    # Any consumer stream may use the data at once: lapis's queued work is finished before the export.
    versioned = max_version is not None and max_version[0] >= DLPACK_MAJOR_VERSION
    read_only = versioned and not dv._buffer().host_writable()
    cdef void* data = _device_side_for_consumer(dv, read_only)
    cdef _Export* export
    cdef _VersionedExport* versioned_export
    if not versioned:
        export = <_Export*>malloc(sizeof(_Export))
        if export == NULL:
            raise MemoryError()
        _describe(&export.managed.dl_tensor, dv, data, location, export.shape, export.strides)
        Py_INCREF(dv)
        export.managed.manager_ctx = <void*>dv
        export.managed.deleter = _export_deleter
        return PyCapsule_New(export, b"dltensor", _unconsumed_capsule)
    versioned_export = <_VersionedExport*>malloc(sizeof(_VersionedExport))
    if versioned_export == NULL:
        raise MemoryError()
    _describe(&versioned_export.managed.dl_tensor, dv, data, location, versioned_export.shape,
              versioned_export.strides)
    versioned_export.managed.version.major = DLPACK_MAJOR_VERSION
    versioned_export.managed.version.minor = DLPACK_MINOR_VERSION
    versioned_export.managed.flags = DLPACK_FLAG_BITMASK_READ_ONLY if read_only else 0
    Py_INCREF(dv)
    versioned_export.managed.manager_ctx = <void*>dv
    versioned_export.managed.deleter = _versioned_export_deleter
    return PyCapsule_New(versioned_export, b"dltensor_versioned", _unconsumed_capsule)


cdef class _DLPackImport:
    """Keeps a consumed DLPack tensor (of either kind) alive and hands it back to its producer when
    dropped."""
    cdef DLManagedTensor* managed
    cdef DLManagedTensorVersioned* versioned

    def __dealloc__(self):
        if self.managed != NULL and self.managed.deleter != NULL:
            self.managed.deleter(self.managed)
        if self.versioned != NULL and self.versioned.deleter != NULL:
            self.versioned.deleter(self.versioned)


cdef DLTensor* _consume(capsule, _DLPackImport owner, bint* read_only) except NULL:
    """The tensor in a DLPack capsule, now owned by `owner` (the capsule is marked used)."""
    if PyCapsule_IsValid(capsule, b"dltensor_versioned"):
        owner.versioned = <DLManagedTensorVersioned*>PyCapsule_GetPointer(capsule, b"dltensor_versioned")
        PyCapsule_SetName(capsule, b"used_dltensor_versioned")
        if owner.versioned.version.major > DLPACK_MAJOR_VERSION:
            raise BufferError(f"lapis.DualView.from_dlpack: DLPack version {owner.versioned.version.major}."
                              f"{owner.versioned.version.minor} is newer than this lapis reads "
                              f"({DLPACK_MAJOR_VERSION}.x)")
        read_only[0] = (owner.versioned.flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0
        return &owner.versioned.dl_tensor
    if PyCapsule_IsValid(capsule, b"dltensor"):
        owner.managed = <DLManagedTensor*>PyCapsule_GetPointer(capsule, b"dltensor")
        PyCapsule_SetName(capsule, b"used_dltensor")
        read_only[0] = False
        return &owner.managed.dl_tensor
    raise TypeError("lapis.DualView.from_dlpack: __dlpack__ returned no unused DLPack capsule")


cdef DualView _from_dlpack(obj):
    if isinstance(obj, DualView):
        return obj
    if not hasattr(obj, "__dlpack__"):
        raise TypeError(f"lapis.DualView.from_dlpack: a {type(obj).__name__} does not export DLPack")
    device_type, device_id = obj.__dlpack_device__()
    location = _device_location()
    on_host = device_type in (kDLCPU, kDLCUDAHost)
    if not on_host and (device_type, device_id) != location:
        raise ValueError(f"lapis.DualView.from_dlpack: the array lives on DLPack device {(device_type, device_id)}; "
                         f"this lapis build's device is {location}")
    try:
        capsule = obj.__dlpack__(max_version=(DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION))
    except TypeError:  # a producer older than DLPack 1.0 takes no max_version
        capsule = obj.__dlpack__()
    cdef _DLPackImport owner = _DLPackImport.__new__(_DLPackImport)
    cdef bint read_only = False
    cdef DLTensor* t = _consume(capsule, owner, &read_only)
    cdef ElementType element = element_type_of_dlpack(t.dtype.code, t.dtype.bits)
    if t.dtype.lanes != 1 or element == ElementType.opaque:
        raise TypeError(f"lapis.DualView.from_dlpack: unsupported DLPack dtype (code {t.dtype.code}, "
                        f"{t.dtype.bits} bits, {t.dtype.lanes} lanes)")
    dtype = _DTYPES[<int>element]
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
        dv._adopt(c_borrow(data, c_shape, strides, not read_only), dtype, owner)
        return dv
    if read_only:
        raise BufferError("lapis.DualView.from_dlpack: the device array is read-only, and a DualView's device "
                          "side is writable; pass a writable array or a copy")
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
        if _device_location()[0] not in (kDLCUDA, kDLCUDAManaged):
            raise BufferError("lapis.DualView.cuda_array: this build's device side is not CUDA memory")
        cdef AnyDualBuffer* b = dv._buffer()
        cdef void* data
        if writable:
            data = _device_side_for_consumer(dv)
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
