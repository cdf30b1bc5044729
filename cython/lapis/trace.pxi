# The trace's Python side (its recording is lapis's runtime library's: runtime/trace.hpp): the
# Python caller of each operation, noted on the calling thread; the recording started, stopped and
# read; spans for what Python times (LAPIS module calls, MPI messages). lapis/tracing.py makes the
# records, tables, files and plots of it. Included into _core.pyx.

import os

from cpython.pystate cimport PyThreadState, PyThreadState_Get
from cpython.ref cimport PyObject, Py_XDECREF
from libcpp.memory cimport unique_ptr


cdef extern from "Python.h":
    ctypedef struct PyFrameObject:
        pass
    ctypedef struct PyCodeObject:
        pass
    PyFrameObject* PyThreadState_GetFrame(PyThreadState* tstate)  # a new reference, or NULL
    PyFrameObject* PyFrame_GetBack(PyFrameObject* frame)  # a new reference, or NULL
    PyCodeObject* PyFrame_GetCode(PyFrameObject* frame)  # a new reference
    int PyFrame_GetLineNumber(PyFrameObject* frame)


cdef str _PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep
# each kind's name -> its number (LAPIS_TRACE_KINDS, runtime/trace.hpp)
cdef dict _KINDS = {trace_kind_name(<TraceKind><int>number).decode(): number for number in range(trace_kind_count)}


cdef dict _ENCODED = {}  # a code file's name -> its bytes, or None for lapis's own files


cdef void note_python_caller_now() noexcept:
    # the first frame whose code is not lapis's own (its Python modules; Cython makes no frames), as
    # warnings.warn(stacklevel=) names the user's line. Frames are read through the C API, which
    # skips those CPython runs no Python code in: where a deallocation runs as a function returns
    # (lapis.DualView's last handle a local), CPython 3.12's current frame is its interpreter
    # trampoline, which sys._getframe(0) handed out as a frame object over C stack memory (a crash)
    cdef PyFrameObject* frame = PyThreadState_GetFrame(PyThreadState_Get())
    cdef PyFrameObject* back
    cdef PyCodeObject* code
    try:
        while frame != NULL:
            code = PyFrame_GetCode(frame)
            filename = (<object><PyObject*>code).co_filename
            Py_XDECREF(<PyObject*>code)
            encoded = _ENCODED.get(filename, False)
            if encoded is False:
                encoded = _ENCODED[filename] = None if filename.startswith(_PACKAGE) else os.fsencode(filename)
            if encoded is not None:
                trace_set_location(<bytes>encoded, PyFrame_GetLineNumber(frame))
                return
            back = PyFrame_GetBack(frame)
            Py_XDECREF(<PyObject*>frame)
            frame = back
    except Exception:  # (a frame without a file name: the event goes without a place)
        pass
    finally:
        Py_XDECREF(<PyObject*>frame)


def _trace_start():
    """Starts a recording of the runtime's; returns its number."""
    return trace_start()


cdef object _field(const TraceEvent& event, unsigned field):
    """Field number `field` of a recorded event as Python reads it (its FieldForm, runtime/trace.hpp)."""
    cdef TraceFieldValue value = trace_field_value(event, field)
    cdef TraceFieldForm form = trace_event_fields[field].form
    if form == TraceFieldForm.count:
        return value.count
    if form == TraceFieldForm.flag:
        return value.flag
    if form == TraceFieldForm.microseconds:
        return value.number
    if form == TraceFieldForm.line:
        return value.count if value.count else None
    if form == TraceFieldForm.path:
        return os.fsdecode(value.text[:value.size]) if value.size else None
    return value.text[:value.size].decode("utf-8", "replace")


def _trace_stop(uint64_t recording):
    """Stops a recording; its events as tuples of _trace_fields() (tracing.TraceEvent's fields)."""
    cdef vector[TraceEvent] events = trace_stop(recording)  # RuntimeError: no such recording is open
    cdef unsigned field
    return [tuple([_field(e, field) for field in range(trace_event_field_count)]) for e in events]


def _trace_fields():
    """The name of each field of an event, in order (LAPIS_TRACE_EVENT_FIELDS, runtime/trace.hpp)."""
    return [trace_event_fields[field].name.decode() for field in range(trace_event_field_count)]


def _trace_on():
    return trace_on()


def _copy_directions():
    """The names of a copy's directions in events' `detail`: (to the device, to the host)."""
    return direction_name(Direction.host_to_device).decode(), direction_name(Direction.device_to_host).decode()


def _trace_kinds():
    """Each kind of event's name -> whether it is an instant (no duration)."""
    return {name: trace_is_instant(<TraceKind><int>number) for name, number in _KINDS.items()}


cdef class _TraceSpan:
    """with _TraceSpan(kind, operation, name, detail=..., nbytes=...): the block as one timed event
    of the trace (and a Kokkos profiling region while a tool is loaded); nothing when neither is."""
    cdef unique_ptr[TraceSpan] span
    cdef TraceKind kind
    cdef bytes operation, name, detail
    cdef uint64_t nbytes

    def __cinit__(self, str kind, str operation, str name, str detail="", uint64_t nbytes=0):
        self.kind = <TraceKind><int>_KINDS[kind]
        self.operation, self.name, self.detail, self.nbytes = operation.encode(), name.encode(), detail.encode(), nbytes

    def __enter__(self):
        if trace_spans_wanted():
            note_python_caller()
            self.span.reset(new TraceSpan(self.kind, self.operation, self.name))
            if self.span.get().recorded():
                self.span.get().event.detail = self.detail
                self.span.get().event.bytes = self.nbytes
        return self

    def __exit__(self, *exception):
        self.span.reset()
        return False
