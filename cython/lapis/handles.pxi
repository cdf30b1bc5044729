# Buffers handed to C callers as lapis_buffer_ref handles (core/buffer_ref.hpp), for the resident
# entry points of LAPIS modules (lapis.lapis_module), and what such a caller needs of the runtime.
# Included into _core.pyx, after c_api.pxi.

from libc.stdint cimport uintptr_t


def _new_ref(DualView dv):
    """The address of a new handle to dv's buffer, for a C callee that borrows it (give it back with
    _release_ref)."""
    dv._buffer()
    return <uintptr_t>new_ref(dv.buffer)


def _release_ref(uintptr_t address):
    release_ref(<lapis_buffer_ref*>address)


def _from_ref(uintptr_t address):
    """The lapis.DualView of a handle a C callee handed out; the handle is given back."""
    cdef lapis_buffer_ref* ref = <lapis_buffer_ref*>address
    try:
        return wrap(buffer_of(ref), None)
    finally:
        release_ref(ref)


def _raise_kept_error():
    """Raises the error a C callee kept for this thread (lapis::detail::keep_current_error)."""
    cdef string message
    cdef ErrorKind kind = take_kept_error(message)
    _raise_error(kind, message.c_str())


def _start_module(uintptr_t initialize, uintptr_t finalize):
    """Calls the C function at `initialize` (void(void): a LAPIS module's lapis_initialize) on the
    running runtime, and the one at `finalize` (its lapis_finalize, which drops its globals and what
    it keeps alive) when lapis finalizes. RuntimeFinalizedError once lapis is finalized."""
    c_start_module(<void (*)() noexcept nogil>initialize, <void (*)() noexcept nogil>finalize)


cdef int check_write_back(DualView dv) except -1:
    refuse_if_write_back_disallowed(dv._buffer()[0])
    return 0


cdef bint _WORK_DONE_ON_RETURN = c_work_done_on_return()


cdef int write_back(DualView dv) except -1:
    cdef AnyDualBuffer* b = dv._buffer()
    if not writes_back(b[0]):
        return 0
    if _WORK_DONE_ON_RETURN and b.aliased():  # flags only: nothing to wait for with the GIL released
        b.sync(Side.host)
    else:
        with nogil:
            b.sync(Side.host)
    return 0


def _write_back(DualView dv):
    """write_back (_core.pxd) for Python callers."""
    write_back(dv)
