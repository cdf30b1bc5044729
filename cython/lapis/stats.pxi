# Counting copies: TransferStats and count_transfers. Included into _core.pyx.


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

    def __reduce__(self):  # an immutable value pickles as its fields
        return (TransferStats, self._astuple())

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
