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


def _at_finalize_call(uintptr_t function):
    """Calls the C function at `function` (void(void)) when lapis finalizes, before it releases
    its memory: a LAPIS module's lapis_finalize, which drops its globals and what it keeps alive."""
    c_at_finalize_call(<void (*)() noexcept nogil>function)


cdef int check_write_back(DualView dv) except -1:
    cdef AnyDualBuffer* b = dv._buffer()
    if b.borrowed(Side.host) and not b.borrowed(Side.device) and not b.aliased():
        refuse_if_disallowed(Direction.device_to_host, b.label(), b.shape())
    return 0


cdef int write_back(DualView dv) except -1:
    cdef AnyDualBuffer* b = dv._buffer()
    if b.borrowed(Side.host) and not b.borrowed(Side.device):
        with nogil:
            b.sync(Side.host)
    return 0


def _write_back(DualView dv):
    """write_back (_core.pxd) for Python callers."""
    write_back(dv)
