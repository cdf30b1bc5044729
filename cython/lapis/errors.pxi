# lapis's exception types, raised by the one translation of C++ exceptions (raise_lapis_error in
# _core.pxd). Included into _core.pyx.


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


class GraphCaptureError(RuntimeError):
    """Something inside lapis.graph() that a graph cannot record: work on the host side, a copy
    between the sides, a numpy argument, a result returned to Python, a call lapis does not record.
    The capture is abandoned: the graph holds nothing and refuses to replay."""


cdef dict _ERROR_TYPES = {
    <int>ErrorKind.runtime: RuntimeError,
    <int>ErrorKind.finalized: RuntimeFinalizedError,
    <int>ErrorKind.value: ValueError,
    <int>ErrorKind.index: IndexError,
    <int>ErrorKind.memory: MemoryError,
    <int>ErrorKind.concurrent_modification: ConcurrentModificationError,
    <int>ErrorKind.transfer_guard: TransferGuardError,
    <int>ErrorKind.read_only: ReadOnlyError,
    <int>ErrorKind.stale_access: StaleAccessError,
    <int>ErrorKind.element_type: TypeError,
    <int>ErrorKind.graph_capture: GraphCaptureError,
}


cdef object error_type(ErrorKind kind):
    return _ERROR_TYPES.get(<int>kind, RuntimeError)
