# Whether two DualViews may share memory, read from metadata alone (addresses, extents, strides;
# nothing is read from the memory): what a kernel checks of its output against its inputs
# (calls.pxi) and lapis.mpi of the buffers of one call (comm.pxi). Included into _core.pyx.


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


cdef void _byte_range(size_t rank, const size_t* extents, const Py_ssize_t* strides, Py_ssize_t itemsize,
                      Py_ssize_t* low, Py_ssize_t* high) noexcept:
    """The bytes an array of `rank` extents and byte strides spans around its first element:
    [low, high), (0, 0) where it has no elements."""
    low[0], high[0] = 0, itemsize
    cdef Py_ssize_t step
    for i in range(rank):
        if extents[i] == 0:
            low[0], high[0] = 0, 0
            return
        step = strides[i] * <Py_ssize_t>(extents[i] - 1)
        if step < 0:
            low[0] += step
        else:
            high[0] += step


cdef int spans_in_memory(DualView dv, MemorySpan* found) except -1:
    """Fills `found` (room for 2) with the span of each side of dv (one where the sides are one
    memory); returns how many."""
    cdef AnyDualBuffer* b = dv._buffer()
    cdef int count = 0
    cdef size_t base, address
    cdef Py_ssize_t low, high
    cdef Side side
    cdef Side sides[2]
    sides[0], sides[1] = Side.host, Side.device
    for side in sides[:1 if b.aliased() else 2]:
        if b.allocated(side):
            base, address = 0, <size_t>b.address(side)
        else:  # 4096: a nonzero address for numpy, never read
            base, address = <size_t>whole_address_of(b[0]), 4096 + location_of(b[0]).offset_of(side)
        _byte_range(b.shape().rank, &b.shape().extents[0], &b.strides(side)[0], b.shape().itemsize, &low, &high)
        found[count] = MemorySpan(base, address, address + low, address + high, side)
        count += 1
    return count


cdef bint surely_apart(DualView a, DualView b) except -1:
    """True when a and b lie in different buffers whose memory cannot meet: neither borrows memory
    (what lapis allocated is no other buffer's), or both borrow their host sides only, at bytes that
    do not meet, and their device sides are that memory or lapis's own, never handed out
    (device_version is not 0: no export of it can be the other's memory). (A cheap first test:
    may_overlap decides the other cases, such as memory one buffer lent and the other wraps.)"""
    cdef AnyDualBuffer* x = a._buffer()
    cdef AnyDualBuffer* y = b._buffer()
    if whole_address_of(x[0]) == whole_address_of(y[0]):
        return False
    if not _borrows(x) and not _borrows(y):
        return True
    return _borrows_its_host_only(x) and _borrows_its_host_only(y) and _host_bytes_apart(x, y)


cdef bint _borrows(AnyDualBuffer* b) noexcept:
    return b.borrowed(Side.host) or b.borrowed(Side.device)


cdef bint _borrows_its_host_only(AnyDualBuffer* b) noexcept:
    if not b.borrowed(Side.host):
        return False
    return b.aliased() or (not b.borrowed(Side.device) and b.device_version() != 0)


cdef bint _host_bytes_apart(AnyDualBuffer* x, AnyDualBuffer* y) noexcept:
    """Whether two buffers' borrowed host sides share no byte."""
    cdef size_t x_low, x_high, y_low, y_high
    if not _borrowed_host_bytes(x, &x_low, &x_high) or not _borrowed_host_bytes(y, &y_low, &y_high):
        return False
    return _bytes_apart(x_low, x_high, y_low, y_high)


cdef bint _borrowed_host_bytes(AnyDualBuffer* b, size_t* low, size_t* high) noexcept:
    """The bytes b's borrowed host side spans; False where it borrows none."""
    cdef const unsigned char* address = b.borrowed_address(Side.host)
    if address == NULL:
        return False
    cdef Py_ssize_t first, last
    _byte_range(b.shape().rank, &b.shape().extents[0], &b.strides(Side.host)[0], b.shape().itemsize, &first, &last)
    low[0], high[0] = <size_t>address + first, <size_t>address + last
    return True


cdef void _array_bytes(obj, Py_ssize_t itemsize, size_t* low, size_t* high) noexcept:
    """The bytes numpy array `obj` spans, read off its own fields (its extents are never negative)."""
    cdef PyArrayObject* array = <PyArrayObject*>obj
    cdef Py_ssize_t first, last
    _byte_range(PyArray_NDIM(array), <const size_t*>PyArray_DIMS(array), PyArray_STRIDES(array), itemsize, &first,
                &last)
    low[0], high[0] = <size_t>PyArray_DATA(array) + first, <size_t>PyArray_DATA(array) + last


cdef bint _bytes_apart(size_t a_low, size_t a_high, size_t b_low, size_t b_high) noexcept:
    """Whether the bytes [a_low, a_high) and [b_low, b_high) share none (an empty range shares none)."""
    return a_low == a_high or b_low == b_high or a_high <= b_low or b_high <= a_low


cdef bint arrays_surely_apart(a, DualView a_dv, b, DualView b_dv) except -1:
    """True when a and b are numpy arrays wrapped as two buffers (a_dv, b_dv) whose bytes do not
    meet: their DualViews share no memory on either side (a device side apart from the host is an
    allocation of each buffer's own). Another cheap first test, read off the arrays' fields."""
    if not isinstance(a, _ndarray) or not isinstance(b, _ndarray) or a_dv.buffer.get() == b_dv.buffer.get():
        return False
    cdef size_t a_low, a_high, b_low, b_high
    _array_bytes(a, a_dv._buffer().shape().itemsize, &a_low, &a_high)
    _array_bytes(b, b_dv._buffer().shape().itemsize, &b_low, &b_high)
    return _bytes_apart(a_low, a_high, b_low, b_high)


cdef bint may_overlap(out, DualView out_dv, const MemorySpan* out_spans, int out_count, obj, DualView dv) except -1:
    """True when the output (its spans given) and an input may share memory on any side: through
    the same buffer or parts of one buffer (allocated or not yet), or through memory one of them
    lent to the other (an export of lapis-owned memory wrapped again, a borrowed numpy array, a CuPy
    array). Spans first; exact only when they meet."""
    if out_dv is dv or out is obj or out_dv.buffer.get() == dv.buffer.get():
        return True
    cdef MemorySpan spans[2]
    cdef int count = spans_in_memory(dv, spans)
    for i in range(out_count):
        for j in range(count):
            if out_spans[i].base != spans[j].base or (spans[j].base != 0 and out_spans[i].side != spans[j].side):
                continue
            if not (out_spans[i].low < spans[j].high and spans[j].low < out_spans[i].high):
                continue
            try:
                if numpy.shares_memory(numpy.asarray(_SideMemory(out_dv, out_spans[i].side, out_spans[i].address)),
                                       numpy.asarray(_SideMemory(dv, spans[j].side, spans[j].address)),
                                       max_work=10_000):
                    return True
            except numpy.exceptions.TooHardError:
                return True
    return False
