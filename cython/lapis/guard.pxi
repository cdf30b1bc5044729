# The transfer guard's Python face (core/transfer_guard.hpp). Included into _core.pyx.


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
