# cython: language_level=3, embedsignature=True
"""The lapis.DualView extension type and the runtime. Everything here converts between Python
objects and the C++ core (include/lapis); the decisions (what to allocate, when to copy, what is
stale) are made there, never here."""

import numpy

from cpython.buffer cimport (
    PyBUF_ANY_CONTIGUOUS, PyBUF_C_CONTIGUOUS, PyBUF_F_CONTIGUOUS, PyBUF_FORMAT, PyBUF_ND,
    PyBUF_RECORDS_RO, PyBUF_STRIDES, PyBUF_WRITABLE, PyBuffer_Release, PyObject_CheckBuffer,
    PyObject_GetBuffer,
)
from cpython.object cimport PyObject_TypeCheck, PyTypeObject
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from libcpp cimport bool
from libcpp.map cimport map
from libcpp.memory cimport shared_ptr
from libcpp.string cimport string
from libcpp.vector cimport vector
from libc.stdint cimport int64_t


cdef extern from "bridge.hpp" namespace "lapis::python" nogil:
    cdef cppclass RuntimeInfo "lapis::python::RuntimeInfo":
        string lapis_version
        int abi_version
        string kokkos_version
        string kokkos_backends
        string kokkos_prefix
        string kokkos_cuda_arch
        string execution_space
        string device_memory_space
        string host_memory_space
        bool simulated_device
        bool sides_alias
        size_t live_allocations
        size_t live_bytes
        size_t staging_min_bytes
        size_t staging_chunk_bytes
        unsigned staging_threads
    void c_initialize "lapis::python::initialize"() except +raise_lapis_error
    void c_finalize "lapis::python::finalize"() except +raise_lapis_error
    RuntimeInfo c_runtime_info "lapis::python::runtime_info"()
    shared_ptr[AnyDualBuffer] c_borrow "lapis::python::borrow"(
        void* data, const Shape& shape, const Strides& strides, bool writable) except +raise_lapis_error
    shared_ptr[AnyDualBuffer] c_borrow_memref "lapis::python::borrow_memref"(
        void* data, int64_t offset, const vector[int64_t]& sizes, const vector[int64_t]& strides,
        ElementType element) except +raise_lapis_error
    shared_ptr[AnyDualBuffer] c_copy_of "lapis::python::copy_of"(
        const void* data, const Shape& shape, const Strides& strides) except +raise_lapis_error
    shared_ptr[AnyDualBuffer] c_borrow_device "lapis::python::borrow_device"(
        void* data, const Shape& shape) except +raise_lapis_error
    cdef cppclass DeviceLocation "lapis::python::DeviceLocation":
        int dlpack_device_type
        int device_id
    DeviceLocation c_device_location "lapis::python::device_location"() except +raise_lapis_error
    void c_synchronize_device "lapis::python::synchronize_device"() except +raise_lapis_error
    void c_fence "lapis::python::fence"() except +raise_lapis_error
    void* c_lend_device "lapis::python::lend_device"(AnyDualBuffer& buffer, Access access) except +raise_lapis_error
    shared_ptr[AnyDualBuffer] c_result "lapis::python::result"(const Shape& shape) except +raise_lapis_error
    shared_ptr[AnyDualBuffer] c_zeros "lapis::python::zeros"(const Shape& shape) except +raise_lapis_error
    shared_ptr[AnyDualBuffer] c_full "lapis::python::full"(
        const Shape& shape, const void* item) except +raise_lapis_error
    void c_fill "lapis::python::fill"(AnyDualBuffer& buffer, const void* item) except +raise_lapis_error
    shared_ptr[AnyDualBuffer] c_converted "lapis::python::converted"(
        AnyDualBuffer& source, ElementType element, size_t itemsize) except +raise_lapis_error
    void c_sync_explicitly "lapis::python::sync_explicitly"(AnyDualBuffer& buffer, Side side) except +raise_lapis_error


cdef extern from "lapis/core/transfer_guard.hpp" namespace "lapis" nogil:
    cdef enum class GuardLevel "lapis::GuardLevel":
        allow
        log
        disallow
    cdef cppclass TransferGuard "lapis::TransferGuard":
        GuardLevel host_to_device
        GuardLevel device_to_host
    cdef cppclass ThreadTransferGuard "lapis::detail::ThreadTransferGuard":
        bool set
        TransferGuard guard
    ThreadTransferGuard exchange_thread_transfer_guard "lapis::detail::exchange_thread_transfer_guard"(
        ThreadTransferGuard guard)
    TransferGuard process_transfer_guard()
    void set_process_transfer_guard(TransferGuard guard)
    TransferGuard current_transfer_guard()


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


class RuntimeFinalizedError(RuntimeError):
    """The lapis runtime was finalized (lapis.finalize() or interpreter exit): Kokkos memory is gone."""


class ConcurrentModificationError(RuntimeError):
    """Both sides of a DualView were marked modified with no sync in between."""


class TransferGuardError(RuntimeError):
    """The transfer guard refused an implicit copy between the sides (see lapis.transfer_guard)."""


class ReadOnlyError(ValueError, BufferError):
    """Something would write a DualView whose host side is read-only (a read-only array wrapped, or
    its device side, whose changes could never reach it). A ValueError, and a BufferError for the
    buffer and DLPack protocols' consumers."""


class StaleAccessError(RuntimeError):
    """A C++ DualView under the Manual sync policy was read while stale (raised through modules)."""


# The supported dtypes, from the element type table (core/element_type.hpp), looked up per call
# instead of computed: comparing dtypes one by one and `dtype.name` (built by numpy in Python) cost
# microseconds, as much as the rest of a kernel call. Typed as dicts, so that Cython looks them up
# in C.
cdef dict _ELEMENT_TYPES = {}  # numpy's dtype -> its ElementType
cdef dict _DTYPES = {}         # ElementType (as an int) -> numpy's dtype
for _i in range(1, element_type_count):
    _dtype = numpy.dtype(element_types[_i].name.decode())
    _ELEMENT_TYPES[_dtype] = element_types[_i].type
    _DTYPES[<int>element_types[_i].type] = _dtype
cdef dict _CANONICAL = {dtype: dtype for dtype in _ELEMENT_TYPES}  # any equal dtype (intp, "f8") -> the key above
cdef object _DTYPE = numpy.dtype
cdef object _INTEGER = numpy.integer


cdef _supported_dtype(dtype):
    """The dtype itself, normalized (e.g. intp -> int64), or TypeError naming it."""
    # Most calls pass a dtype already: no numpy.dtype() call. (isinstance would ask numpy.dtype's
    # metaclass for __instancecheck__.)
    if PyObject_TypeCheck(dtype, <PyTypeObject*>_DTYPE):
        canonical = _CANONICAL.get(dtype)  # a dtype of another byte order is equal to no key
        if canonical is not None:
            return canonical
    try:
        dtype = numpy.dtype(dtype)
    except TypeError:
        raise TypeError(f"lapis: {dtype!r} is not a dtype") from None
    if dtype.isnative and dtype in _CANONICAL:
        return _CANONICAL[dtype]
    raise TypeError(f"lapis: unsupported dtype {dtype.str!r} ({dtype}); supported: "
                    f"{', '.join(d.name for d in _ELEMENT_TYPES)}, in native byte order")


cdef Shape _make_shape(shape, dtype) except *:
    """A C++ Shape of `dtype` elements (a supported dtype) from an int or a sequence of ints:
    TypeError for anything else; ValueError as _shape_of says."""
    if isinstance(shape, int) or isinstance(shape, _INTEGER):
        shape = (shape,)
    cdef tuple entries
    try:
        entries = shape if type(shape) is tuple else tuple(shape)
    except TypeError:
        raise TypeError(f"lapis: shape must be an int or a sequence of ints, not {type(shape).__name__}") from None
    cdef vector[int64_t] extents
    extents.reserve(len(entries))
    for n in entries:
        if not (isinstance(n, int) or isinstance(n, _INTEGER)):
            raise TypeError(f"lapis: shape entries must be ints, not {type(n).__name__}")
        try:
            extents.push_back(n)
        except OverflowError:
            raise ValueError(f"lapis: dimension {n} is out of range (shape {entries})") from None
    return _shape_of(extents, dtype)


cdef Shape _shape_of(const vector[int64_t]& extents, dtype) except *:
    """A C++ Shape of `extents` and `dtype` elements (a supported dtype); ValueError for negative
    extents, ranks over lapis's maximum and sizes that do not fit in memory addresses."""
    if extents.size() > max_rank:
        raise ValueError(f"lapis: rank {extents.size()} exceeds the maximum of {max_rank}")
    cdef Shape result
    result.rank = extents.size()
    result.itemsize = dtype.itemsize
    result.element = _ELEMENT_TYPES[dtype]
    for i in range(result.rank):
        if extents[i] < 0:
            raise ValueError(f"lapis: negative dimensions are not allowed (shape {tuple(extents)})")
        result.extents[i] = extents[i]
    result.nbytes()  # ValueError when the size does not fit in memory addresses
    return result


cdef class TransferStats:
    """Counts and bytes of host->device (h2d) and device->host (d2h) copies: an immutable value
    (hashable; + and - combine two)."""
    cdef readonly unsigned long long h2d_count, h2d_bytes, d2h_count, d2h_bytes

    def __cinit__(self, h2d_count=0, h2d_bytes=0, d2h_count=0, d2h_bytes=0):
        self.h2d_count, self.h2d_bytes = h2d_count, h2d_bytes
        self.d2h_count, self.d2h_bytes = d2h_count, d2h_bytes

    cdef void _set(self, CTransferStats s):  # for _stats() only: a new object, before anyone sees it
        self.h2d_count, self.h2d_bytes = s.h2d_count, s.h2d_bytes
        self.d2h_count, self.d2h_bytes = s.d2h_count, s.d2h_bytes

    def _astuple(self):
        return (self.h2d_count, self.h2d_bytes, self.d2h_count, self.d2h_bytes)

    def __eq__(self, other):
        if not isinstance(other, TransferStats):
            return NotImplemented
        return self._astuple() == other._astuple()

    def __hash__(self):
        return hash(self._astuple())

    def __add__(self, TransferStats other):
        return TransferStats(*(a + b for a, b in zip(self._astuple(), other._astuple())))

    def __sub__(self, TransferStats other):
        return TransferStats(*(a - b for a, b in zip(self._astuple(), other._astuple())))

    def __repr__(self):
        return (f"TransferStats(h2d_count={self.h2d_count}, h2d_bytes={self.h2d_bytes}, "
                f"d2h_count={self.d2h_count}, d2h_bytes={self.d2h_bytes})")


cdef TransferStats _stats(CTransferStats s):
    cdef TransferStats result = TransferStats.__new__(TransferStats)
    result._set(s)
    return result


def transfer_stats():
    """Every copy lapis made in this process since start (or the last reset_transfer_stats())."""
    return _stats(process_transfer_stats())


def reset_transfer_stats():
    reset_process_transfer_stats()


class count_transfers:
    """`with lapis.count_transfers() as t:` -- t counts the copies made in the block: those so far
    while it runs, all of them after it. t.stats is that count as a TransferStats; t's fields
    (t.h2d_count, ...) and == are the count's. t itself changes, so it is not hashable."""

    _FIELDS = ("h2d_count", "h2d_bytes", "d2h_count", "d2h_bytes")

    def __enter__(self):
        self._final = None
        self._start = transfer_stats()
        return self

    def __exit__(self, *exc):
        self._final = transfer_stats() - self._start
        return False

    @property
    def stats(self):
        return self._final if self._final is not None else transfer_stats() - self._start

    def __getattr__(self, name):
        if name in count_transfers._FIELDS:
            return getattr(self.stats, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __eq__(self, other):
        return self.stats == other

    __hash__ = None

    def __repr__(self):
        return f"<count_transfers: {self.stats!r}>"


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
                self._adopt(c_borrow(view.buf, shape, strides, not view.readonly), dtype, owner)
        finally:
            PyBuffer_Release(&view)

    cdef AnyDualBuffer* _buffer(self) except NULL:
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
        if len(shape) == 1 and not isinstance(shape[0], (int, numpy.integer)):
            shape = tuple(shape[0])
        cdef vector[int64_t] extents
        for n in shape:
            if not isinstance(n, (int, numpy.integer)):
                raise TypeError(f"lapis.DualView.reshape: extents must be ints, not {type(n).__name__}")
            extents.push_back(n)
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
            dim.start, dim.stop, dim.step = k.indices(extent)
        elif isinstance(k, (int, numpy.integer)) and k is not True and k is not False:
            dim.index, dim.start, dim.stop, dim.step = True, k, 0, 1
        else:
            raise IndexError("lapis.DualView: only integers, slices (':') and an ellipsis ('...') are valid "
                             f"indices, not {type(k).__name__} (a DualView takes basic indexing only)")
        dims.push_back(dim)
    return dims


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


cdef DualView new_dualview(tuple shape, object dtype):
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
    dtype = _supported_dtype(numpy.asarray(fill_value).dtype if dtype is None else dtype)
    cdef bytes item = _item_bytes(fill_value, dtype, "lapis.full")
    cdef DualView dv = DualView.__new__(DualView)
    dv._adopt(c_full(_make_shape(shape, dtype), <const char*>item), dtype, None)
    return dv


def runtime_info():
    """What lapis runs on, and how much memory it holds now."""
    cdef RuntimeInfo info = c_runtime_info()
    return {
        "lapis_version": info.lapis_version.decode(),
        "abi_version": info.abi_version,
        "kokkos_version": info.kokkos_version.decode(),
        "kokkos_backends": info.kokkos_backends.decode().split(","),
        "kokkos_prefix": info.kokkos_prefix.decode(),
        "kokkos_cuda_arch": info.kokkos_cuda_arch.decode(),
        "execution_space": info.execution_space.decode(),
        "device_memory_space": info.device_memory_space.decode(),
        "host_memory_space": info.host_memory_space.decode(),
        "simulated_device": info.simulated_device,
        "sides_alias": info.sides_alias,
        "live_allocations": info.live_allocations,
        "live_bytes": info.live_bytes,
        "staging": {"min_bytes": info.staging_min_bytes, "chunk_bytes": info.staging_chunk_bytes,
                    "threads": info.staging_threads},
    }


cdef extern from "lapis/runtime/block_pool.hpp" namespace "lapis" nogil:
    ctypedef struct CPoolStats "lapis::PoolStats":
        size_t in_use_bytes
        size_t cached_bytes
        size_t cached_blocks
        size_t allocated
        size_t reused
        size_t freed
    map[string, CPoolStats] c_pool_stats "lapis::pool_stats"() except +raise_lapis_error
    size_t c_empty_cache "lapis::empty_cache"()


cdef GuardLevel _guard_level(level, str what) except *:
    if level == "allow":
        return GuardLevel.allow
    if level == "log":
        return GuardLevel.log
    if level == "disallow":
        return GuardLevel.disallow
    raise ValueError(f"lapis.transfer_guard: {what} must be 'allow', 'log' or 'disallow', not {level!r}")


cdef str _level_name(GuardLevel level):
    return "allow" if level == GuardLevel.allow else "log" if level == GuardLevel.log else "disallow"


cdef TransferGuard _guard_from(TransferGuard guard, level, host_to_device, device_to_host) except *:
    """`guard` with the levels given (not None) put in: `level` for both directions, then each
    direction's own."""
    if level is None and host_to_device is None and device_to_host is None:
        raise TypeError("lapis.transfer_guard: give a level, host_to_device= or device_to_host=")
    if level is not None:
        guard.host_to_device = guard.device_to_host = _guard_level(level, "the level")
    if host_to_device is not None:
        guard.host_to_device = _guard_level(host_to_device, "host_to_device")
    if device_to_host is not None:
        guard.device_to_host = _guard_level(device_to_host, "device_to_host")
    return guard


def set_transfer_guard(level=None, *, host_to_device=None, device_to_host=None):
    """Sets the process's transfer guard, for every thread outside a transfer_guard block: what
    lapis does about implicit copies (see transfer_guard); directions not given keep their level."""
    set_process_transfer_guard(_guard_from(process_transfer_guard(), level, host_to_device, device_to_host))


def get_transfer_guard():
    """The transfer guard in force on this thread, as {"host_to_device": level, "device_to_host": level}."""
    cdef TransferGuard guard = current_transfer_guard()
    return {"host_to_device": _level_name(guard.host_to_device), "device_to_host": _level_name(guard.device_to_host)}


cdef class transfer_guard:
    """transfer_guard(level=None, *, host_to_device=None, device_to_host=None): a context manager
    that sets, for this thread and inside the block, what lapis does about implicit copies between
    the sides: "allow" them, "log" each one to stderr, or "disallow" them (TransferGuardError,
    raised before anything moves). `level` sets both directions; a direction not given keeps the
    level in force when the block starts.

    A copy is implicit when a read asked for it: a kernel argument, asnumpy(), an export (buffer
    protocol, DLPack, cuda_array), a module's kernel. sync_host() and sync_device() are explicit and
    always allowed. Where the sides are one memory nothing is ever copied, so nothing is refused."""
    cdef object levels
    cdef ThreadTransferGuard previous
    cdef bint inside

    def __cinit__(self, level=None, *, host_to_device=None, device_to_host=None):
        _guard_from(current_transfer_guard(), level, host_to_device, device_to_host)  # checks them now
        self.levels = (level, host_to_device, device_to_host)

    def __enter__(self):
        if self.inside:
            raise RuntimeError("lapis.transfer_guard: this block is already entered; make a new transfer_guard")
        cdef ThreadTransferGuard mine
        mine.set = True
        level, host_to_device, device_to_host = self.levels
        mine.guard = _guard_from(current_transfer_guard(), level, host_to_device, device_to_host)
        self.previous = exchange_thread_transfer_guard(mine)
        self.inside = True
        return self

    def __exit__(self, *exc):
        exchange_thread_transfer_guard(self.previous)
        self.inside = False
        return False


def memory_stats():
    """lapis's caching allocator, per memory space (Kokkos's name for it): in_use_bytes (the
    capacity of the blocks DualViews hold now), cached_bytes and cached_blocks (freed by lapis and
    kept for reuse), and the counts of blocks allocated from the memory space, requests reused
    from the cache and blocks freed to the memory space. runtime_info()'s live_bytes counts what
    DualViews hold, cached memory not included."""
    return {space.decode(): dict(stats) for space, stats in c_pool_stats()}


def empty_cache():
    """Gives every cached block back to its memory space; returns the bytes freed."""
    cdef size_t freed
    with nogil:
        freed = c_empty_cache()
    return freed


def fence():
    """Waits until every kernel and copy lapis has queued is done. A kernel call returns once its
    work is queued on the device; lapis orders everything it does later (kernels, syncs,
    asnumpy(), exports) after it, so only timing code needs this."""
    with nogil:
        c_fence()


def finalize():
    """Releases the Kokkos memory of every DualView still alive and finalizes Kokkos (if lapis
    initialized it). Any later use of a DualView or kernel raises RuntimeFinalizedError; numpy
    arrays exported earlier stay valid (host memory does not depend on Kokkos). Idempotent;
    called at interpreter exit."""
    c_finalize()


include "dlpack.pxi"
include "c_api.pxi"


c_initialize()
