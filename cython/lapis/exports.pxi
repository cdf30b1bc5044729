# The buffer protocol export of a DualView's host side (asnumpy, asmemref, memoryview(dv)).
# Included into _core.pyx.


cdef bint _host_contiguous(DualView dv, Order order):
    cdef AnyDualBuffer* b = dv._buffer()
    return is_contiguous(b.shape(), b.strides(Side.host), order)


cdef int _export_host(DualView dv, object exporter, Py_buffer* view, int flags, bint writable) except -1:
    """Fills `view` with the host side of `dv`, synced first (and marked modified when `writable`),
    in one access, without the GIL: a large download must not stall other threads."""
    if (flags & PyBUF_WRITABLE) and not writable:
        raise BufferError("lapis.DualView exports its host side read-only; use asnumpy(writable=True) to write it")
    cdef bint c_contiguous = _host_contiguous(dv, Order.right)
    cdef bint f_contiguous = _host_contiguous(dv, Order.left)
    if ((flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS and not c_contiguous) or \
       ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS and not f_contiguous) or \
       ((flags & PyBUF_ANY_CONTIGUOUS) == PyBUF_ANY_CONTIGUOUS and not (c_contiguous or f_contiguous)) or \
       ((flags & PyBUF_STRIDES) != PyBUF_STRIDES and not c_contiguous):
        raise BufferError("lapis.DualView: the host side is not contiguous in the order asked for "
                          f"(its byte strides are {[dv._strides[i] for i in range(dv.ndim)]}); ask for a strided buffer, or copy")
    cdef AnyDualBuffer* b = dv._buffer()
    cdef Access access = Access.write if writable else Access.read
    cdef void* data
    with nogil:
        data = b.access(Side.host, access, Intent.implicit)
    view.buf = data
    view.obj = exporter
    view.len = b.shape().nbytes()
    view.itemsize = dv.dtype.itemsize
    view.readonly = not writable
    view.ndim = b.shape().rank
    view.format = NULL
    if (flags & PyBUF_FORMAT) == PyBUF_FORMAT:
        view.format = <char*>dv._format
    view.shape = NULL
    if (flags & PyBUF_ND) == PyBUF_ND:
        view.shape = &dv._shape[0]
    view.strides = NULL
    if (flags & PyBUF_STRIDES) == PyBUF_STRIDES:
        view.strides = &dv._strides[0]
    view.suboffsets = NULL
    view.internal = NULL
    return 0


cdef class _HostExport:
    """A buffer exporter of a DualView's host side, writable or not; what asnumpy() and asmemref()
    wrap, so that the array's .base chain keeps the DualView alive."""
    cdef DualView dv
    cdef bint writable

    def __cinit__(self, DualView dv, bint writable):
        self.dv = dv
        self.writable = writable

    def __getbuffer__(self, Py_buffer* view, int flags):
        _export_host(self.dv, self, view, flags, self.writable)
