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
    """True when a and b are parts of different allocations that lapis made itself (neither side of
    either borrowed): such memory is no other buffer's, so they cannot overlap. (A cheap first test:
    may_overlap decides the other cases.)"""
    cdef AnyDualBuffer* x = a._buffer()
    cdef AnyDualBuffer* y = b._buffer()
    if x.borrowed(Side.host) or x.borrowed(Side.device) or y.borrowed(Side.host) or y.borrowed(Side.device):
        return False
    return whole_address_of(x[0]) != whole_address_of(y[0])


cdef void _array_bytes(obj, Py_ssize_t itemsize, size_t* low, size_t* high) noexcept:
    """The bytes numpy array `obj` spans, read off its own fields (its extents are never negative)."""
    cdef PyArrayObject* array = <PyArrayObject*>obj
    cdef Py_ssize_t first, last
    _byte_range(PyArray_NDIM(array), <const size_t*>PyArray_DIMS(array), PyArray_STRIDES(array), itemsize, &first,
                &last)
    low[0], high[0] = <size_t>PyArray_DATA(array) + first, <size_t>PyArray_DATA(array) + last


cdef bint arrays_surely_apart(a, DualView a_dv, b, DualView b_dv) except -1:
    """True when a and b are numpy arrays wrapped as two buffers (a_dv, b_dv) whose bytes do not
    meet: their DualViews share no memory on either side (a device side apart from the host is an
    allocation of each buffer's own). Another cheap first test, read off the arrays' fields."""
    if not isinstance(a, _ndarray) or not isinstance(b, _ndarray) or a_dv.buffer.get() == b_dv.buffer.get():
        return False
    cdef size_t a_low, a_high, b_low, b_high
    _array_bytes(a, a_dv._buffer().shape().itemsize, &a_low, &a_high)
    _array_bytes(b, b_dv._buffer().shape().itemsize, &b_low, &b_high)
    return a_low == a_high or b_low == b_high or a_high <= b_low or b_high <= a_low


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
