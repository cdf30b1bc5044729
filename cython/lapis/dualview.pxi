# The lapis.DualView type. Included into _core.pyx.


cdef extern from "lapis/core/buffer_part.hpp" namespace "lapis" nogil:
    cdef cppclass SliceDimension "lapis::SliceDimension":
        bool index
        int64_t start
        int64_t stop
        int64_t step
    shared_ptr[AnyDualBuffer] c_slice "lapis::slice"(
        const shared_ptr[AnyDualBuffer]& buffer, const vector[SliceDimension]& dims) except +raise_lapis_error
    shared_ptr[AnyDualBuffer] c_reshape "lapis::reshape"(
        const shared_ptr[AnyDualBuffer]& buffer, const vector[int64_t]& extents) except +raise_lapis_error


# The collector never clears a DualView's attributes before it dies: its buffer may write the
# device side's changes back into the memory its owner (an attribute) holds, when it goes.
@cython.no_gc_clear
cdef class DualView:
    """One logical array with a host side and a device side, synced lazily.

    DualView(obj, *, copy=False) wraps an array (numpy, or any buffer / __array_interface__
    exporter). With copy=False the host side *is* obj's memory (any strides; obj is kept alive;
    a read-only obj gives a read-only host side); with copy=True it is a new C-ordered copy.
    Either way the host side holds the data, and the device side is allocated and uploaded when a
    device reader first needs it. DualView(dv) of a lapis.DualView is a second handle on dv's
    state (both sides, flags, counts); DualView(dv, copy=True) copies its data.
    """

    def __init__(self, obj, *, copy=False):
        note_python_caller()  # the trace's allocate events (copy=True, or a copy of a DualView) name this line
        if self.buffer:
            raise TypeError("lapis.DualView: __init__ called on a DualView that is already initialized "
                            "(its memory may be exported); make a new DualView instead")
        cdef DualView other
        if isinstance(obj, DualView) and not copy:  # one state, two handles (copy=True copies its data)
            other = obj
            other._buffer()  # TypeError for one never initialized
            self._adopt(other.buffer, other.dtype, other._owner)
            return
        if not (PyObject_CheckBuffer(obj) or hasattr(obj, "__array_interface__")):
            raise TypeError(f"lapis.DualView: cannot wrap a {type(obj).__name__}: it exports neither "
                            "the buffer protocol nor __array_interface__")
        # What keeps the memory alive, chosen so that a reference cycle through it stays visible to
        # the garbage collector: the array itself, a memoryview pinning a buffer export, or the
        # array-interface exporter (a numpy array's .base is not traversed by the collector).
        if isinstance(obj, numpy.ndarray):
            owner = array = obj
        elif PyObject_CheckBuffer(obj):
            owner = memoryview(obj)
            array = numpy.asarray(owner)
        else:
            owner, array = obj, numpy.asarray(obj)
        dtype = _supported_dtype(array.dtype)
        cdef Py_buffer view
        PyObject_GetBuffer(array, &view, PyBUF_RECORDS_RO)
        cdef Shape shape
        cdef Strides strides
        try:
            shape = _make_shape(tuple(view.shape[i] for i in range(view.ndim)), dtype)
            for i in range(view.ndim):
                strides[i] = view.strides[i]
            if copy:
                self._adopt(c_copy_of(view.buf, shape, strides), dtype, None)
            else:
                self._adopt(c_borrow(view.buf, shape, strides, not view.readonly,
                                     host_block_of(array, view.buf, view.len)), dtype, owner)
        finally:
            PyBuffer_Release(&view)

    def __dealloc__(self):
        # A borrowed array that only this handle holds (lapis.DualView(x.copy())) is freed with the
        # buffer: nobody could ever see the device side's changes that a write-back would copy into
        # it, so the marks are dropped and the buffer goes without that copy.
        note_python_caller()  # the line that dropped the last handle (`del y`) is the frees' place
        if self.buffer and _only_this_handle_sees_the_host_side(self):
            self.buffer.get().clear_sync_state()

    cdef AnyDualBuffer* _buffer(self) except NULL:
        note_python_caller()  # every use of a DualView comes here: the trace's events name its caller
        if not self.buffer:
            raise TypeError(f"lapis.DualView: this {type(self).__name__} was never initialized (made by __new__, "
                            "or a subclass __init__ that does not call DualView.__init__)")
        return self.buffer.get()

    cdef _adopt(self, shared_ptr[AnyDualBuffer] buffer, dtype, owner):
        self.buffer = buffer
        self.dtype = dtype
        self._owner = owner
        self._format = element_info(buffer.get().shape().element).format
        cdef AnyDualBuffer* b = buffer.get()
        cdef size_t rank = b.shape().rank
        cdef tuple shape = PyTuple_New(rank)
        cdef object extent
        for i in range(rank):
            self._shape[i] = b.shape().extents[i]
            self._strides[i] = b.strides(Side.host)[i]
            extent = self._shape[i]
            Py_INCREF(extent)  # PyTuple_SET_ITEM steals a reference
            PyTuple_SET_ITEM(shape, i, extent)
        self.shape = shape

    @property
    def ndim(self):
        return self._buffer().shape().rank

    @property
    def size(self):
        return self._buffer().shape().size()

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self._buffer().shape().nbytes()

    @property
    def need_sync_host(self):
        """True when the device side holds changes the host side lacks."""
        return self._buffer().need_sync(Side.host)

    @property
    def need_sync_device(self):
        """True when the host side holds changes the device side lacks."""
        return self._buffer().need_sync(Side.device)

    @property
    def host_allocated(self):
        return self._buffer().allocated(Side.host)

    @property
    def device_allocated(self):
        return self._buffer().allocated(Side.device)

    @property
    def is_borrowed(self):
        """True when a side is memory lent by the wrapped object (a numpy array's memory as the
        host side, or a CuPy array's / PyTorch tensor's as the device side)."""
        return self._buffer().borrowed(Side.host) or self._buffer().borrowed(Side.device)

    @property
    def transfers(self):
        """The copies made for this DualView so far (a TransferStats)."""
        return _stats(self._buffer().transfers())

    def sync_host(self):
        """Copies the device side to the host if the host side is stale; otherwise nothing. An
        explicit copy: the transfer guard lets it through."""
        cdef AnyDualBuffer* b = self._buffer()
        with nogil:
            c_sync_explicitly(b[0], Side.host)

    def sync_device(self):
        """Copies the host side to the device if the device side is stale; otherwise nothing. An
        explicit copy: the transfer guard lets it through."""
        cdef AnyDualBuffer* b = self._buffer()
        with nogil:
            c_sync_explicitly(b[0], Side.device)

    def modify_host(self):
        """Records that the host side was written: the next device reader uploads it."""
        self._buffer().modify(Side.host)

    def modify_device(self):
        """Records that the device side was written: the next host reader downloads it."""
        self._buffer().modify(Side.device)

    def fill(self, value):
        """Sets every element to value on the device side and marks it modified; the host side's
        old contents are discarded, never uploaded."""
        cdef bytes item = _item_bytes(value, self.dtype, "lapis.DualView.fill")
        c_fill(self._buffer()[0], <const char*>item)

    def asnumpy(self, *, writable=False):
        """A numpy array viewing the host side, synced first (zero-copy; it keeps this DualView
        alive). Read-only unless writable=True, which also marks the host side modified, so the
        next device reader uploads it. Writes made after that upload (or a later device change)
        are not seen: call asnumpy(writable=True) or modify_host() again then."""
        # through a memoryview: numpy would swallow an error raised by the export (a DualView
        # finalized meanwhile) and return an object array; memoryview raises it
        return numpy.asarray(memoryview(self._host_export(writable)))

    def asmemref(self, *, writable=False):
        """A typed memoryview (PEP 3118) of the host side, under the same rules as asnumpy();
        Cython code can assign it to a typed memoryview such as double[:, :]."""
        return memoryview(self._host_export(writable))

    cdef void* host_data(self, bint write) except NULL:
        cdef AnyDualBuffer* b = self._buffer()
        cdef Access access = Access.write if write else Access.read
        with nogil:
            return b.access(Side.host, access, Intent.implicit)

    cdef void* device_data(self, bint write) except NULL:
        return c_lend_device(self._buffer()[0], Access.write if write else Access.read)

    cdef void* device_data_for_overwrite(self) except NULL:
        return c_lend_device(self._buffer()[0], Access.overwrite)

    cdef _host_export(self, bint writable):
        self._buffer()
        return _HostExport(self, writable)

    def __array__(self, dtype=None, copy=None):
        same_dtype = dtype is None or numpy.dtype(dtype) == self.dtype
        if copy is False and not same_dtype:
            raise ValueError(f"lapis.DualView: a {self.dtype} array cannot be viewed as {numpy.dtype(dtype)} without a copy")
        array = self.asnumpy()
        if not same_dtype:
            return array.astype(dtype)
        return array.copy() if copy else array

    def __getbuffer__(self, Py_buffer* view, int flags):
        _export_host(self, self, view, flags, False)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """Exports the device side without copying, synced first. A consumer that passes
        max_version=(1, x) gets a DLPack 1.0 versioned tensor, read-only where the host side is
        (and then nothing is marked); otherwise the side is marked modified, since the consumer may
        write it, and a read-only DualView refuses (BufferError). Everything lapis queued is
        finished when it returns, so any consumer stream may use the data at once; copy=True is
        refused (BufferError)."""
        return _dlpack_export(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self):
        return _device_location()

    def cuda_array(self, *, writable=False):
        """The device side for CUDA consumers: an object whose __cuda_array_interface__ (version 3)
        describes it, synced now (and marked modified with writable=True, for a consumer that
        writes). A DualView has no __cuda_array_interface__ of its own: consumers probe for it
        (hasattr), and a probe must never sync or mark anything. BufferError on builds whose
        device memory is not CUDA memory."""
        return _CudaArray(self, writable)

    @staticmethod
    def from_dlpack(obj):
        """A DualView over a DLPack exporter's memory, without copying: a device array (CuPy,
        PyTorch CUDA tensor; C-contiguous) becomes the device side, a host array the host side.
        The exporter is kept alive; the lent side starts out modified."""
        return _from_dlpack(obj)

    def __repr__(self):
        if not self.buffer:
            return f"<uninitialized {type(self).__name__}>"
        cdef AnyDualBuffer* b = self._buffer()
        allocated = lambda side: "allocated" if b.allocated(side) else "unallocated"
        modified = "host" if b.need_sync(Side.device) else "device" if b.need_sync(Side.host) else "none"
        extra = (", aliased" if b.aliased() else "") + (", borrowed" if self.is_borrowed else "")
        return (f"lapis.DualView(shape={self.shape}, dtype={self.dtype}, host={allocated(Side.host)}, "
                f"device={allocated(Side.device)}, modified={modified}{extra},\n  values={_values_text(self)})")

    def __getitem__(self, key):
        """A basic slice, dv[1:3, ::2], dv[0], dv[..., -1]: a DualView of that part of this one,
        sharing its state (syncing, marking and counting are the whole allocation's, so syncing one
        part never loses another's pending change; a kernel writing a part syncs the rest first).
        Nothing is copied or allocated. Integers, slices with positive steps and one Ellipsis;
        IndexError for an index out of bounds or another kind of index, ValueError for a negative
        step."""
        cdef vector[SliceDimension] dims = _slice_dimensions(key, self.shape)
        return wrap(c_slice(self.buffer, dims), self._owner)

    def reshape(self, *shape):
        """This DualView as an array of `shape` (ints or one sequence; one extent may be -1),
        sharing its state; nothing is copied. ValueError unless the sizes match and both sides are
        C-contiguous."""
        if len(shape) == 1 and not hasattr(shape[0], "__index__"):
            shape = tuple(shape[0])
        cdef vector[int64_t] extents
        for n in shape:
            extents.push_back(_int64(n, "lapis.DualView.reshape: an extent"))
        self._buffer()
        return wrap(c_reshape(self.buffer, extents), self._owner)

    def copy(self):
        """A new C-contiguous DualView holding this one's data, copied on the side that holds it
        (the device side, unless only the host side does) and marked modified there: nothing
        crosses between the sides."""
        return self.astype(self.dtype)

    def astype(self, dtype, *, copy=True):
        """A new C-contiguous DualView of this one's data converted to `dtype` as numpy's astype
        converts (bool, integer and float32/float64 types; float16 and complex only to themselves),
        on the side that holds the data, as copy() does. copy=False returns this DualView itself
        when the dtype is already `dtype`. ValueError for a conversion it does not make."""
        dtype = _supported_dtype(dtype)
        if dtype == self.dtype and not copy:
            return self
        cdef AnyDualBuffer* b = self._buffer()
        cdef shared_ptr[AnyDualBuffer] result
        cdef ElementType element = _ELEMENT_TYPES[dtype]
        cdef size_t itemsize = dtype.itemsize
        with nogil:
            result = c_converted(b[0], element, itemsize)
        return wrap(result, None)

    # The Python protocols that read values answer as numpy's would, from the host side (a read: an
    # implicit download where the device side is newer): truth of one element (ValueError for more
    # or none), membership, iteration over the first axis (TypeError for a 0-d DualView), and the
    # number of a one-element DualView.
    def __bool__(self):
        return self.asnumpy().__bool__()

    def __contains__(self, value):
        return value in self.asnumpy()

    def __iter__(self):
        return iter(self.asnumpy())

    def __int__(self):
        return int(self.asnumpy())

    def __float__(self):
        return float(self.asnumpy())

    def __complex__(self):
        return complex(self.asnumpy())

    def __index__(self):
        return self.asnumpy().__index__()

    def __len__(self):
        if self._buffer().shape().rank == 0:
            raise TypeError("len() of a 0-d lapis.DualView")
        return self.shape[0]


cdef str _values_text(DualView dv):
    """A few of dv's values where its host side holds them; a repr never copies or allocates."""
    cdef AnyDualBuffer* b = dv._buffer()
    if not b.allocated(Side.host):
        return "(the host side is not allocated)"
    if b.need_sync(Side.host):
        return "(the device side is newer: sync_host() or asnumpy() to see them)"
    try:
        values = dv.asnumpy()
    except RuntimeFinalizedError:
        return "(lapis is finalized)"
    return numpy.array2string(values, separator=", ", threshold=12, edgeitems=3, prefix="  values=")


cdef bint _only_this_handle_sees_the_host_side(DualView dv):
    """Whether dv is the last handle on its whole buffer, whose host side is a borrowed numpy array
    that owns its memory and that nothing but dv holds (no view of it, no other handle or part)."""
    owner = dv._owner
    if Py_REFCNT(owner) != 2 or not isinstance(owner, numpy.ndarray) or owner.base is not None:
        return False  # (2: dv's reference, and `owner`'s here)
    cdef shared_ptr[AnyDualBuffer] whole = whole_of(dv.buffer)
    # the whole is held here and by dv (or by dv's part, which dv alone holds)
    cdef bint part = whole.get() != dv.buffer.get()
    return whole.use_count() == 2 and (not part or dv.buffer.use_count() == 1) and writes_back(whole.get()[0])


cdef vector[SliceDimension] _slice_dimensions(key, tuple shape) except *:
    """Python's basic-indexing syntax (ints, slices, one Ellipsis, fewer keys than dimensions) as
    one SliceDimension per dimension; the C++ core checks the bounds."""
    key = key if isinstance(key, tuple) else (key,)
    ellipses = [i for i, k in enumerate(key) if k is Ellipsis]
    if len(ellipses) > 1:
        raise IndexError("lapis.DualView: an index can have only one ellipsis ('...')")
    if ellipses:
        i = ellipses[0]
        key = key[:i] + (slice(None),) * (len(shape) - len(key) + 1) + key[i + 1:]
    if len(key) > len(shape):
        raise IndexError(f"lapis.DualView: too many indices: the array is {len(shape)}-dimensional, "
                         f"but {len(key)} were given")
    key = key + (slice(None),) * (len(shape) - len(key))
    cdef vector[SliceDimension] dims
    cdef SliceDimension dim
    for k, extent in zip(key, shape):
        if isinstance(k, slice):
            dim.index = False
            start, stop, step = k.indices(extent)  # start and stop within [-1, extent]
            # a step past the extent selects at most the first element, as a step of the extent does
            # (numbers beyond 64 bits otherwise); a negative one stays negative, which C++ refuses
            dim.start, dim.stop, dim.step = start, stop, min(step, max(extent, 1)) if step > 0 else max(step, -1)
        else:
            try:
                k = _integer(k, "lapis.DualView: an index")
            except TypeError:
                raise IndexError("lapis.DualView: only integers, slices (':') and an ellipsis ('...') are valid "
                                 f"indices, not {type(k).__name__} (a DualView takes basic indexing only)") from None
            try:
                dim.index, dim.start, dim.stop, dim.step = True, k, 0, 1
            except OverflowError:  # beyond 64 bits: out of any extent's bounds (C++ checks the others)
                raise IndexError(f"lapis.DualView: index {k} is out of bounds for an axis of extent {extent}") from None
        dims.push_back(dim)
    return dims
