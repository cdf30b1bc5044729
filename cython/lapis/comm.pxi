# One side of a DualView handed to a communication library (lapis.mpi, over mpi4py), accessed as
# the operation needs it, in one step: synced for a send ("read"), marked modified without a copy
# for a receive ("overwrite", Tpetra's protocol), both for an in-place reduction ("write"). The
# host side's copies are implicit, as any export's: counted, judged by the transfer guard.
# Included into _core.pyx, after dlpack.pxi.

cdef dict _COMM_ACCESS = {"read": Access.read, "write": Access.write, "overwrite": Access.overwrite}


cdef extern from "lapis/core/any_dual_buffer.hpp" nogil:
    void refuse_if_sync_disallowed "lapis::refuse_if_sync_disallowed"(
        const AnyDualBuffer& buffer, Side side) except +raise_lapis_error
    void refuse_if_write_back_disallowed "lapis::refuse_if_write_back_disallowed"(
        const AnyDualBuffer& buffer) except +raise_lapis_error


cdef class _SideExport:
    """A buffer exporter of one side of a DualView, the side's memory being host-addressable; its
    access is made when it is constructed. What _comm_buffer wraps in a numpy array, whose .base
    chain keeps the DualView alive."""
    cdef DualView dv
    cdef void* data
    cdef bint writable
    cdef Py_ssize_t strides[max_rank]

    def __getbuffer__(self, Py_buffer* view, int flags):
        if (flags & PyBUF_WRITABLE) and not self.writable:
            raise BufferError("lapis: this side was exported for reading")
        cdef AnyDualBuffer* b = self.dv._buffer()
        view.buf = self.data
        view.obj = self
        view.len = b.shape().nbytes()
        view.itemsize = self.dv.dtype.itemsize
        view.readonly = not self.writable
        view.ndim = b.shape().rank
        view.format = <char*>self.dv._format if (flags & PyBUF_FORMAT) == PyBUF_FORMAT else NULL
        view.shape = &self.dv._shape[0]
        view.strides = &self.strides[0]
        view.suboffsets = NULL
        view.internal = NULL


def _comm_buffer(DualView dv, str side, str access):
    """dv's "host" or "device" side after `access` ("read", "write" or "overwrite"), as an object
    mpi4py takes: a numpy array where the side is host memory (the device side of a CPU build), an
    object with __cuda_array_interface__ where it is CUDA memory. A device side is lent: lapis's
    queued work on it is finished first, and finalize leaves it allocated for its borrower."""
    cdef Access how = _COMM_ACCESS[access]
    cdef Side s = Side.host if side == "host" else Side.device
    cdef AnyDualBuffer* b = dv._buffer()
    if s == Side.device and _device_location()[0] != kDLCPU:
        return _CudaArray(dv, how != Access.read)  # (an overwrite syncs first there: one upload more)
    cdef _SideExport export = _SideExport.__new__(_SideExport)
    export.dv = dv
    export.writable = how != Access.read
    with nogil:
        if s == Side.host:
            export.data = b.access(Side.host, how, Intent.implicit)
        else:
            export.data = c_lend_device(b[0], how)
    for i in range(b.shape().rank):
        export.strides[i] = b.strides(s)[i]
    return numpy.asarray(export)


def _comm_aliasing(DualView a, DualView b):
    """How two DualViews handed to one MPI call share memory: "same" (one state, or parts that lie
    exactly on each other: one buffer, which MPI takes in place), "overlap" (some memory in common,
    which MPI forbids) or "none"."""
    cdef MemorySpan spans_a[2]
    cdef MemorySpan spans_b[2]
    cdef int count_a = spans_in_memory(a, spans_a)
    cdef int count_b = spans_in_memory(b, spans_b)
    cdef AnyDualBuffer* buffer_a = a._buffer()
    cdef AnyDualBuffer* buffer_b = b._buffer()
    if a.buffer.get() == b.buffer.get():
        return "same"
    cdef bint same = a.dtype == b.dtype and a.shape == b.shape and count_a == count_b
    for i in range(count_a if same else 0):
        same = (spans_a[i].base == spans_b[i].base and spans_a[i].address == spans_b[i].address and
                spans_a[i].side == spans_b[i].side)
        for d in range(buffer_a.shape().rank if same else 0):
            same = same and buffer_a.strides(spans_a[i].side)[d] == buffer_b.strides(spans_b[i].side)[d]
        if not same:
            break
    if same:
        return "same"
    return "overlap" if may_overlap(a, a, spans_a, count_a, b, b) else "none"


def _comm_check(DualView dv, str side, str access, str who):
    """Raises what _comm_buffer(dv, side, access) would refuse, before anything touches dv:
    lapis.ReadOnlyError for a write of a DualView whose host side is read-only, ValueError for a
    part that is not contiguous on a CUDA device side (CUDA memory cannot be packed on the host),
    lapis.TransferGuardError for the implicit copy the access would make (or commit lapis to: the
    write-back of a borrowed array) that the guard in force refuses. A collective runs it on every
    rank before the ranks agree, so no rank refuses once the others are in MPI."""
    cdef AnyDualBuffer* b = dv._buffer()
    cdef Side s = Side.host if side == "host" else Side.device
    cdef Access how = _COMM_ACCESS[access]
    cdef bint cuda = s == Side.device and _device_location()[0] != kDLCPU
    if how != Access.read and not b.host_writable():
        raise ReadOnlyError(f"{who}: the DualView is read-only (its host side is): nothing can be received into it")
    if cuda and not is_contiguous(b.shape(), b.strides(s), Order.right):
        raise ValueError(f"{who}: a part that is not contiguous cannot be communicated from CUDA device "
                         "memory; copy it first (dv.copy())")
    # an overwrite copies nothing, except on a CUDA device side, which _CudaArray syncs first
    if how != Access.overwrite or cuda:
        refuse_if_sync_disallowed(b[0], s)
    if how != Access.read and s == Side.device:
        refuse_if_write_back_disallowed(b[0])


cdef extern from "lapis/core/mpi_rules.hpp" namespace "lapis::mpi_rules" nogil:
    const int64_t least_tag_upper_bound "lapis::mpi_rules::least_tag_upper_bound"
    void rule_check_peer "lapis::mpi_rules::check_peer"(
        const string& who, const char* name, int64_t rank, int64_t size, int64_t proc_null, bool wildcard_allowed,
        int64_t wildcard) except +raise_lapis_error
    void rule_check_tag "lapis::mpi_rules::check_tag"(
        const string& who, int64_t tag, int64_t upper, bool wildcard_allowed, int64_t wildcard) except +raise_lapis_error
    void rule_check_message_size "lapis::mpi_rules::check_message_size"(
        const string& who, int64_t source, int64_t bytes, const Shape& shape) except +raise_lapis_error
    void rule_refuse_unreadable_device_memory "lapis::mpi_rules::refuse_unreadable_device_memory"(
        const string& who) except +raise_lapis_error


# lapis.mpi's checks are lapis/mpi.hpp's (core/mpi_rules.hpp): one rule and one message for both.

def _mpi_peer(str who, str name, value, int64_t size, int64_t proc_null, wildcard=None):
    """`value` as a rank of a group of `size`, `proc_null` or `wildcard` (a receive's); else ValueError."""
    cdef int64_t rank = _int64(value, f"{who}: {name}")
    rule_check_peer(who.encode(), name.encode(), rank, size, proc_null, wildcard is not None,
                    0 if wildcard is None else wildcard)
    return rank


def _mpi_tag(str who, value, upper, wildcard=None):
    """`value` as a tag in [0, upper] (upper None: MPI's least promise) or `wildcard`; else ValueError."""
    cdef int64_t tag = _int64(value, f"{who}: tag")
    rule_check_tag(who.encode(), tag, least_tag_upper_bound if upper is None else upper, wildcard is not None,
                   0 if wildcard is None else wildcard)
    return tag


def _mpi_check_message_size(str who, int64_t source, int64_t nbytes, DualView dv):
    rule_check_message_size(who.encode(), source, nbytes, dv._buffer().shape())


def _mpi_refuse_unreadable_device_memory(str who):
    rule_refuse_unreadable_device_memory(who.encode())
