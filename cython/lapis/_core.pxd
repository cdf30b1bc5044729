# Declarations of lapis's C++ core and of the DualView extension type, for the lapis package itself
# and for other Cython extensions (`from lapis cimport DualView`, see lapis/__init__.pxd). Only
# Kokkos-free headers are named here: an extension that cimports this needs no Kokkos to compile,
# and its calls run in lapis's own extension module, on lapis's one Kokkos.

from libc.stddef cimport ptrdiff_t
from libc.stdint cimport int64_t, uint64_t
from libcpp cimport bool
from libcpp.memory cimport shared_ptr
from libcpp.string cimport string
from libcpp.vector cimport vector


cdef extern from "lapis/core/errors.hpp" namespace "lapis" nogil:
    cdef enum class ErrorKind "lapis::ErrorKind":
        runtime
        finalized
        value
        index
        memory
        concurrent_modification
        transfer_guard
        read_only
        stale_access
        element_type
        graph_capture
    ErrorKind classify_current_exception(string& message)
    ErrorKind take_kept_error "lapis::detail::take_kept_error"(string& message)


# The Python exception type that stands for a C++ error of `kind` (errors.hpp): the one mapping,
# held by the core's module from import on (a lookup at raise time would fail at interpreter exit,
# where a DualView's __del__ may still raise).
cdef object error_type(ErrorKind kind)


cdef inline int _raise_error(ErrorKind kind, const char* message) except -1:
    raise error_type(kind)(message.decode("utf-8", "replace"))


# Turns the C++ exception being handled into the matching Python exception.
cdef inline int raise_lapis_error() except -1:
    cdef string message
    cdef ErrorKind kind = classify_current_exception(message)
    return _raise_error(kind, message.c_str())


cdef extern from "lapis/core/transfer_stats.hpp" namespace "lapis" nogil:
    cdef cppclass CTransferStats "lapis::TransferStats":
        uint64_t h2d_count
        uint64_t h2d_bytes
        uint64_t d2h_count
        uint64_t d2h_bytes
    CTransferStats process_transfer_stats()
    void reset_process_transfer_stats()
    cdef enum class Direction "lapis::Direction":
        host_to_device
        device_to_host
    const char* direction_name "lapis::direction_name"(Direction direction)


cdef extern from "lapis/core/element_type.hpp" namespace "lapis" nogil:
    cdef enum class ElementType "lapis::ElementType":  # the enumerators Cython code names
        opaque
        int32
        int64
        float32
        float64
    # The one table of element types' facts (name, item size, kind, DLPack code, PEP 3118 format).
    ctypedef struct ElementTypeInfo "lapis::ElementTypeInfo":
        ElementType type
        const char* name
        unsigned char itemsize
        char kind
        unsigned char dlpack_code
        const char* format
    const ElementTypeInfo* element_types "lapis::element_types"
    const int element_type_count "lapis::element_type_count"
    const ElementTypeInfo& element_info "lapis::info"(ElementType type)
    ElementType element_type_of_dlpack(int code, int bits)


cdef extern from "lapis/core/shape.hpp" namespace "lapis" nogil:
    # the most dimensions a DualView has; a compile-time constant, so that arrays can be sized by it
    enum: max_rank "lapis::max_rank"
    cdef cppclass Extents "std::array<std::size_t, lapis::max_rank>":
        size_t& operator[](size_t)
    cdef cppclass Strides "lapis::Strides":
        Py_ssize_t& operator[](size_t)
    cdef cppclass Shape "lapis::Shape":
        size_t rank
        Extents extents
        size_t itemsize
        ElementType element
        size_t size() except +raise_lapis_error
        size_t nbytes() except +raise_lapis_error
    cdef enum class Order "lapis::Order":
        right
        left
    bool is_contiguous(const Shape& shape, const Strides& strides, Order order)


cdef extern from "lapis/core/any_dual_buffer.hpp" namespace "lapis" nogil:
    cdef enum class Side "lapis::Side":
        host
        device
    cdef enum class Access "lapis::Access":
        address
        sync
        read
        write
        overwrite
        mark
    cdef enum class Intent "lapis::Intent":
        implicit
        named
        refused
    cdef cppclass AnyDualBuffer "lapis::AnyDualBuffer":
        const string& label()
        const Shape& shape()
        const Strides& strides(Side side)
        const char* space_name(Side side)
        bool allocated(Side side)
        bool need_sync(Side side)
        bool aliased()
        bool borrowed(Side side)
        bool host_writable()
        const unsigned char* borrowed_address(Side side)
        uint64_t device_version()
        # The one operation on a side's data (see any_dual_buffer.hpp); the others are its names.
        void* access(Side side, Access access, Intent intent) except +raise_lapis_error
        void sync(Side side) except +raise_lapis_error
        void modify(Side side) except +raise_lapis_error
        void* data(Side side) except +raise_lapis_error
        const void* address(Side side) except +raise_lapis_error
        void* data_for_overwrite(Side side) except +raise_lapis_error
        CTransferStats transfers()
        bool free_device_side() except +raise_lapis_error
        void clear_sync_state()
    bool writes_back "lapis::writes_back"(const AnyDualBuffer& buffer)
    void refuse_if_write_back_disallowed "lapis::refuse_if_write_back_disallowed"(
        const AnyDualBuffer& buffer) except +raise_lapis_error


cdef extern from "lapis/runtime/trace.hpp" namespace "lapis::trace" nogil:
    # The trace (runtime/trace.hpp): Python's side of it is trace.pxi.
    # (its kinds are LAPIS_TRACE_KINDS's, reached by number: trace.pxi)
    cdef enum class TraceKind "lapis::trace::Kind":
        pass
    const unsigned trace_kind_count "lapis::trace::kind_count"
    bool trace_is_instant "lapis::trace::is_instant"(TraceKind kind)
    cdef cppclass TraceEvent "lapis::trace::Event":
        # (what Python sets in a span; it reads every field through trace_field_value)
        string detail
        uint64_t bytes
    cdef enum class TraceFieldForm "lapis::trace::FieldForm":
        kind
        text
        count
        flag
        microseconds
        path
        line
    cdef struct TraceEventField "lapis::trace::EventField":
        const char* name
        TraceFieldForm form
    const TraceEventField* trace_event_fields "lapis::trace::event_fields"
    const unsigned trace_event_field_count "lapis::trace::event_field_count"
    cdef struct TraceFieldValue "lapis::trace::FieldValue":
        const char* text
        size_t size
        uint64_t count
        bool flag
        double number
    TraceFieldValue trace_field_value "lapis::trace::field_value"(const TraceEvent& event, unsigned field)
    cdef cppclass TraceSpan "lapis::trace::Span":
        TraceSpan(TraceKind kind, const char* operation, string name) except +raise_lapis_error
        bool recorded()
        TraceEvent event
    bool trace_on "lapis::trace::on"()
    bool trace_spans_wanted "lapis::trace::spans_wanted"()
    const char* trace_kind_name "lapis::trace::kind_name"(TraceKind kind)
    uint64_t trace_start "lapis::trace::start"() except +raise_lapis_error
    vector[TraceEvent] trace_stop "lapis::trace::stop"(uint64_t recording) except +raise_lapis_error
    void trace_set_location "lapis::trace::set_location"(const char* file, int line)

# Notes the calling thread's Python caller (the first frame outside lapis) for the trace's next
# events, while a trace records: note_python_caller() runs on every use of a DualView, and only a
# recording makes it more than one load; note_python_caller_now() walks the frames (trace.pxi).
cdef void note_python_caller_now() noexcept


cdef inline void note_python_caller() noexcept:
    if trace_on():
        note_python_caller_now()


cdef extern from "lapis/core/part.hpp" namespace "lapis" nogil:
    # Where a part of a buffer lies in its whole buffer (part.hpp).
    cdef cppclass Part "lapis::Part":
        Shape shape
        const Strides& strides_of(Side side)
        ptrdiff_t offset_of(Side side)


cdef extern from "lapis/core/buffer_part.hpp" namespace "lapis" nogil:
    shared_ptr[AnyDualBuffer] whole_of "lapis::whole_of"(const shared_ptr[AnyDualBuffer]& buffer)
    const AnyDualBuffer* whole_address_of "lapis::whole_address_of"(const AnyDualBuffer& buffer)
    Part location_of "lapis::location_of"(const AnyDualBuffer& buffer)


cdef extern from "lapis/interop/python_api.hpp" namespace "lapis::python_api":
    # Checks that the calling extension, as compiled, can run with the installed lapis (ABI and
    # Kokkos); call it once at the top of every extension that cimports lapis. ImportError otherwise.
    int import_lapis "lapis::python_api::import_lapis"(const char* extension) except -1


cdef class DualView:
    cdef shared_ptr[AnyDualBuffer] buffer
    cdef readonly object dtype
    # what keeps lent memory alive (an array, a memoryview, an exporter), as long as this DualView
    cdef object _owner
    cdef const char* _format  # PEP 3118, from the element type table
    cdef readonly tuple shape
    # host shape and strides as the buffer protocol wants them (they never change)
    cdef Py_ssize_t _shape[max_rank]
    cdef Py_ssize_t _strides[max_rank]

    # The buffer, or TypeError for an object that never went through __init__ (DualView.__new__, a
    # subclass whose __init__ skips the base's): every use of a DualView goes through this.
    cdef AnyDualBuffer* _buffer(self) except NULL
    # Takes ownership of `buffer` (a new DualView made by lapis or by another extension).
    cdef _adopt(self, shared_ptr[AnyDualBuffer] buffer, dtype, owner)
    cdef _host_export(self, bint writable)

    # Raw access for other extensions. Each side comes back synced; write=True also marks it
    # modified (write through the pointer before the next sync of the other side). The device
    # side comes back with every kernel lapis queued finished: any stream may use it at once.
    cdef void* host_data(self, bint write) except NULL
    cdef void* device_data(self, bint write) except NULL
    # The device side for a caller that overwrites every element: nothing is copied, the host
    # side's unsynced changes are discarded, the device side is marked modified.
    cdef void* device_data_for_overwrite(self) except NULL


# A DualView whose host side is `data` (`shape`, byte `strides`, `dtype`), memory that `owner`
# keeps alive (lapis holds a reference to owner); the host side starts out modified.
cdef DualView borrow_host(void* data, tuple shape, tuple strides, object dtype, object owner, bint writable)
# The arrays one call takes as DualViews (adoptions.pxi): take() gives each argument's DualView (a
# numpy array's from the cache of arrays earlier calls took), keep() after the call returned normally
# puts the arrays' DualViews (back) into that cache.
cdef class Adoptions:
    cdef list taken  # each object taken, in order, its DualView and its cache entry (or None): three items each
    cpdef DualView take(self, obj)
    cpdef keep(self)
# A new zero-filled DualView (device side allocated, host side on first use), as lapis.zeros.
cdef DualView zeros_dualview(tuple shape, object dtype)
# A new DualView with nothing allocated, for a caller that overwrites its device side at once
# (device_data_for_overwrite, or a C++ kernel through data_for_overwrite): nothing is zero-filled.
cdef DualView empty_dualview(tuple shape, object dtype)
# The same for a shape that C++ code computed (a kernel's result): no Python objects to check.
cdef DualView empty_dualview_of(const vector[int64_t]& extents, object dtype)
# A lapis.DualView sharing `buffer` (made by C++ code, e.g. a typed lapis::DualView's buffer()),
# its dtype given by the buffer's element type; `owner` is kept alive with it (or None).
cdef DualView wrap(shared_ptr[AnyDualBuffer] buffer, object owner)
# Brings a borrowed host side (a numpy array's memory) up to date before control returns to its owner:
# an implicit copy, which the transfer guard judges; nothing for other DualViews.
cdef int write_back(DualView dv) except -1
# TransferGuardError now if write_back(dv) would be refused: for a call that refuses before it runs.
cdef int check_write_back(DualView dv) except -1

# The bytes one side of a DualView spans: [low, high), empty when low == high. An allocated side's
# are addresses (base 0); an unallocated side's are offsets in its whole buffer (base: that buffer),
# comparable only with the same side of parts of the same whole buffer (overlap.pxi).
cdef struct MemorySpan:
    size_t base
    size_t address  # of the first element
    size_t low
    size_t high
    Side side
# Fills `found` (room for 2) with the span of each side of dv (one where the sides are one memory);
# returns how many.
cdef int spans_in_memory(DualView dv, MemorySpan* found) except -1
# True when a and b are parts of different allocations lapis made itself: they cannot overlap.
cdef bint surely_apart(DualView a, DualView b) except -1
# True when numpy arrays a and b, wrapped as a_dv and b_dv, span bytes that do not meet.
cdef bint arrays_surely_apart(a, DualView a_dv, b, DualView b_dv) except -1
# True when `out_dv` (its spans given; `out` the object it was made from) and `dv` (from `obj`) may
# share memory on any side.
cdef bint may_overlap(out, DualView out_dv, const MemorySpan* out_spans, int out_count, obj, DualView dv) except -1
