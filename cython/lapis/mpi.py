"""DualViews as MPI buffers, over mpi4py, by Tpetra's protocol: each operation uses one side of a
DualView, the *communication side* (`communication_side()`): the host side by default, the device
side where MPI is GPU-aware (`LAPIS_MPI_GPU_AWARE=1`, shown in `lapis.runtime_info()`). A send syncs
that side first (a host-staged send of a device-modified DualView downloads it: an implicit copy,
counted and judged by the transfer guard); a receive marks it modified without copying anything to
it first, so the next kernel reads the message (uploading it, where the side is the host's). Every
copy is counted as any other; a device side is handed to MPI only once lapis's queued kernels on it
are done.

    from mpi4py import MPI
    import lapis, lapis.mpi
    comm = MPI.COMM_WORLD
    x = lapis.zeros(100)
    if comm.rank == 0:
        lapis.mpi.send(comm, x[:10], dest=1)        # a contiguous part goes as it lies
    elif comm.rank == 1:
        lapis.mpi.recv(comm, x[90:], source=0)
    total = lapis.mpi.allreduce(comm, lapis.full((), 1.0))   # a 0-d DualView, left where kernels read it

Nothing touches a DualView before its call is known to proceed: ranks, roots, tags, sizes,
dtypes, writability and overlap are checked first, so a refused call leaves every DualView as it
was. Point-to-point messages are bytes: a receive checks the message's size against the DualView's
(ValueError, the message consumed, the DualView untouched); both ranks must agree on the dtype. A
Request completes (is checked and unpacked) once. Collectives first agree across the ranks (one
small allgather of every rank's verdict, dtype, shape and root; check=False skips it): if any rank
refused (the transfer guard included: a copy the call needs that the guard in force refuses), every
rank raises the same exception type before any data moves. A Request dropped unfinished is kept with
its buffers until MPI completes it (at a later lapis.mpi call, or at exit). Parts that are not
contiguous are packed into host memory around the call (on a CUDA device side: ValueError).
docs/mpi.md says what each refusal promises.
`comm.Send(dv)` with a DualView itself goes through the buffer protocol: the host side, synced (an
implicit copy the guard judges), whatever the communication side; `comm.Recv(dv)` finds that export
read-only and falls back to DLPack, the device side (on CUDA, a device pointer for a GPU-aware MPI
only). Use this module for DualViews.
"""
from __future__ import annotations

import atexit
import collections
import ctypes
import warnings
from collections.abc import Callable, Iterable
from typing import Any, Literal, TypeVar

import numpy
from mpi4py import MPI
from numpy.typing import NDArray

from lapis import _core

__all__ = ["Request", "allgather", "allreduce", "bcast", "communication_side", "irecv", "isend", "recv", "send",
           "waitall"]
_T = TypeVar("_T")


# Fixed for the process: LAPIS_MPI_GPU_AWARE is read once, at import (every operation asks).
_RUNTIME = _core.runtime_info()
_COMMUNICATION_SIDE: Literal["host", "device"] = "device" if _RUNTIME["mpi_gpu_aware"] else "host"
_CUDA_MEMORY = _RUNTIME["execution_space"] == "Cuda"


def communication_side() -> Literal["host", "device"]:
    """"device" where lapis takes MPI to be GPU-aware (LAPIS_MPI_GPU_AWARE=1), else "host"."""
    return _COMMUNICATION_SIDE


def _dualview(dv: object, who: str, name: str = "dv") -> _core.DualView:
    if not isinstance(dv, _core.DualView):
        raise TypeError(f"lapis.mpi.{who}: {name}: expected a lapis.DualView, not {type(dv).__name__} "
                        "(numpy arrays go to mpi4py directly)")
    return dv


def _rank(comm: MPI.Comm, value: object, who: str, name: str, wildcard: int | None = None) -> int:
    """`value` as a rank of comm's (remote) group, MPI.PROC_NULL, or `wildcard`: else ValueError,
    before anything is touched (an MPI error raised later could leave a receive's side prepared)."""
    size = comm.Get_remote_size() if isinstance(comm, MPI.Intercomm) else comm.Get_size()
    return _core._mpi_peer(f"lapis.mpi.{who}", name, value, size, MPI.PROC_NULL, wildcard)


def _tag(comm: MPI.Comm, value: object, who: str, wildcard: bool = False) -> int:
    return _core._mpi_tag(f"lapis.mpi.{who}", value, comm.Get_attr(MPI.TAG_UB), MPI.ANY_TAG if wildcard else None)


def _mpi_takes_cuda_memory() -> bool:
    """False where the MPI library says it cannot read CUDA memory (Open MPI's
    MPIX_Query_cuda_support(), reachable once mpi4py has loaded the library); True otherwise."""
    try:
        query = ctypes.CDLL(None).MPIX_Query_cuda_support
    except AttributeError:
        return True
    query.restype = ctypes.c_int
    return bool(query())


def _refuse_unreadable_device_memory(who: str) -> None:
    """Refuses to hand MPI CUDA device pointers that the MPI library says it cannot read."""
    if _COMMUNICATION_SIDE == "device" and _CUDA_MEMORY and not _mpi_takes_cuda_memory():
        _core._mpi_refuse_unreadable_device_memory(f"lapis.mpi.{who}")


class _Side:
    """The communication side of `dv` accessed for one operation, as a contiguous buffer for
    mpi4py; a strided host-addressable side goes through a packed copy (`finish` unpacks it).
    Made only once every check of the call has passed: a receive's access marks the side modified."""

    def __init__(self, dv: _core.DualView, access: Literal["read", "write", "overwrite"]) -> None:
        self.target = _core._comm_buffer(dv, communication_side(), access)
        self.buffer = self.target
        if isinstance(self.target, numpy.ndarray) and not self.target.flags.c_contiguous:
            self.buffer = numpy.ascontiguousarray(self.target)

    @staticmethod
    def check(dv: _core.DualView, access: Literal["read", "write", "overwrite"], who: str, name: str = "dv") -> None:
        """Raises what would refuse this access, before anything touches dv: RuntimeError for device
        memory this MPI cannot read, lapis.ReadOnlyError, ValueError (lapis._core._comm_check)."""
        _refuse_unreadable_device_memory(who)
        _core._comm_check(dv, communication_side(), access, f"lapis.mpi.{who}: {name}")

    def finish(self) -> None:
        """Copies a received packed buffer into the strided side (only a host-addressable one is packed)."""
        if isinstance(self.target, numpy.ndarray) and self.buffer is not self.target:
            self.target[...] = self.buffer


def _message(who: str, peer: str, dv: _core.DualView) -> _core._TraceSpan:
    """The MPI call in its block as a trace event (and a Kokkos region where a tool is loaded)."""
    return _core._TraceSpan("mpi", "mpi", who, peer, dv.nbytes)


def _check_size(status: MPI.Status, dv: _core.DualView, who: str) -> None:
    _core._mpi_check_message_size(f"lapis.mpi.{who}", status.Get_source(), status.Get_count(MPI.BYTE), dv)


def _to_send(comm: MPI.Comm, dv: object, dest: object, tag: object, who: str) -> tuple[int, int, _Side]:
    """What send and isend check, in this order, and the side they send from."""
    _complete_dropped()
    checked = _dualview(dv, who)
    dest, tag = _rank(comm, dest, who, "dest"), _tag(comm, tag, who)
    _Side.check(checked, "read", who)
    return dest, tag, _Side(checked, "read")


def send(comm: MPI.Comm, dv: _core.DualView, dest: int, tag: int = 0) -> None:
    """Sends dv's communication side to rank `dest` (blocking)."""
    dest, tag, side = _to_send(comm, dv, dest, tag, "send")
    with _message("send", f"to rank {dest}", dv):
        comm.Send(side.buffer, dest, tag)


def recv(comm: MPI.Comm, dv: _core.DualView, source: int = MPI.ANY_SOURCE, tag: int = MPI.ANY_TAG) -> MPI.Status:
    """Receives a message into dv's communication side, marked modified (blocking); returns the
    MPI.Status. The message's size and dv's writability are checked first (ValueError,
    lapis.ReadOnlyError; the message is consumed, dv untouched)."""
    _complete_dropped()
    _dualview(dv, "recv")
    source = _rank(comm, source, "recv", "source", wildcard=MPI.ANY_SOURCE)
    tag = _tag(comm, tag, "recv", wildcard=True)
    status = MPI.Status()
    comm.Probe(source, tag, status)
    source, tag = status.Get_source(), status.Get_tag()
    try:
        _check_size(status, dv, "recv")
        _Side.check(dv, "overwrite", "recv")
    except Exception:
        comm.Recv(bytearray(status.Get_count(MPI.BYTE)), source, tag)  # the message goes nowhere else
        raise
    side = _Side(dv, "overwrite")
    with _message("recv", f"from rank {source}", dv):
        comm.Recv(side.buffer, source, tag, status)
    side.finish()
    return status


class Request:
    """A nonblocking send or receive: keeps its DualView and buffers alive until it completes. It
    completes once, through wait(), test() or waitall(): a receive's size is checked and its packed
    buffer unpacked then, once; an error raised at completion is raised again by later calls.

    A Request dropped before it completed is kept, with its buffers, until MPI is done with them
    (a ResourceWarning says so): every later lapis.mpi call completes the dropped requests that
    have finished, and interpreter exit waits for the rest (cancelling receives nobody sent to), so
    memory MPI still reads or writes is never reused."""

    def __init__(self, request: MPI.Request, dv: _core.DualView, side: _Side, who: str) -> None:
        self._request, self.dualview, self._side, self._who = request, dv, side, who
        self._status: MPI.Status | None = None
        self._error: Exception | None = None

    def __del__(self) -> None:
        if self._status is None and self._error is None:
            _dropped.append(self)  # kept alive (PEP 442: __del__ runs once) until MPI completes it
            warnings.warn(f"lapis.mpi: a Request of {self._who} was dropped before it completed; lapis keeps its "
                          "buffers until MPI is done with them (wait() for it to know its outcome)",
                          ResourceWarning, stacklevel=2)

    def _complete(self, complete: Callable[[MPI.Status], bool]) -> bool:
        """Runs MPI's Wait or Test (`complete`) unless done; on completion, checks and unpacks once."""
        if self._status is None:
            status = MPI.Status()
            try:
                if not complete(status):
                    return False
            except MPI.Exception as error:
                if error.Get_error_class() != MPI.ERR_TRUNCATE:
                    raise
                self._error = ValueError(f"lapis.mpi.{self._who}: the message is larger than the DualView "
                                         f"({self.dualview.nbytes} bytes); its values are unspecified")
            self._status = status
            if self._error is None and self._who == "irecv":
                try:
                    _check_size(status, self.dualview, "irecv")
                    self._side.finish()
                except ValueError as error:
                    self._error = error
        if self._error is not None:
            raise self._error
        return True

    def wait(self) -> MPI.Status:
        """Waits for completion; a receive's size is checked then (ValueError: the DualView's values
        are unspecified). Returns the MPI.Status."""
        self._complete(lambda status: self._request.Wait(status) or True)
        assert self._status is not None
        return self._status

    def test(self) -> bool:
        """True once complete (then as wait()); False while the operation is under way."""
        return self._complete(self._request.Test)


# Requests dropped before they completed, with their buffers (Request.__del__). A deque: its
# append and popleft are atomic, and a Request may be dropped in the middle of going through it.
_dropped: collections.deque[Request] = collections.deque()


def _complete_dropped(finishing: bool = False) -> None:
    """Completes the dropped requests MPI has finished (their errors are theirs: nobody waits for
    them); `finishing` (at exit) waits for every one, cancelling the receives first."""
    for _ in range(len(_dropped)):
        request = _dropped.popleft()
        try:
            if not finishing:
                done = request.test()
            else:
                if request._who == "irecv" and not request._request.Test():
                    request._request.Cancel()
                request.wait()
                done = True
        except Exception:  # noqa: BLE001 - the outcome of a request its owner dropped: nobody to tell
            done = True
        if not done:
            _dropped.append(request)


atexit.register(_complete_dropped, True)  # runs before mpi4py finalizes MPI (registered earlier)


def isend(comm: MPI.Comm, dv: _core.DualView, dest: int, tag: int = 0) -> Request:
    """Starts sending dv's communication side (synced now) to `dest`; returns a Request."""
    dest, tag, side = _to_send(comm, dv, dest, tag, "isend")
    with _message("isend", f"to rank {dest}", dv):
        return Request(comm.Isend(side.buffer, dest, tag), dv, side, "isend")


def irecv(comm: MPI.Comm, dv: _core.DualView, source: int = MPI.ANY_SOURCE, tag: int = MPI.ANY_TAG) -> Request:
    """Starts receiving into dv's communication side, marked modified now (Tpetra's order: nothing
    may read dv until the request completes); returns a Request, whose completion checks the size.
    Ranks, tag and writability are checked before dv is touched."""
    _complete_dropped()
    _dualview(dv, "irecv")
    source = _rank(comm, source, "irecv", "source", wildcard=MPI.ANY_SOURCE)
    tag = _tag(comm, tag, "irecv", wildcard=True)
    _Side.check(dv, "overwrite", "irecv")
    side = _Side(dv, "overwrite")
    with _message("irecv", f"from rank {source}", dv):
        return Request(comm.Irecv(side.buffer, source, tag), dv, side, "irecv")


def waitall(requests: Iterable[Request]) -> list[MPI.Status]:
    """Completes every Request, then raises the first error one raised, if any; else returns their
    statuses."""
    _complete_dropped()
    requests = list(requests)
    errors = []
    for request in requests:
        try:
            request.wait()
        except Exception as error:  # noqa: BLE001 - raised below, once every request is complete
            errors.append(error)
    if errors:
        raise errors[0]
    return [request.wait() for request in requests]


# The exception types a refused collective raises on every rank, most specific first: a rank's
# error is agreed as the first of these it is an instance of.
_AGREED_ERRORS: tuple[type[Exception], ...] = (_core.ReadOnlyError, _core.RuntimeFinalizedError,
                                               _core.TransferGuardError, TypeError, OverflowError, ValueError,
                                               RuntimeError, Exception)


def _agree(comm: MPI.Comm, who: str, check: bool, local: Callable[[], _T], dv: object, rooted: bool = False) -> _T:
    """Runs this rank's checks (`local`, which touches no DualView; for a rooted call it returns the
    root) and, with check, makes the ranks agree before any data moves: if any rank's checks failed,
    or the ranks' roots differ, or their dtypes and shapes differ from the root's (rank 0's), every
    rank raises the same exception type, naming the first rank at fault. Returns what `local`
    returned. Without check, a local failure raises on its rank alone (the others may then wait in
    MPI)."""
    failure: Exception | None = None
    try:
        result = local()
    except Exception as error:  # noqa: BLE001 - agreed with the other ranks below
        if not check:
            raise
        failure = error
    if not check:
        return result
    # a row per rank: [refusal (1 + its _AGREED_ERRORS index, or 0), root, dtype number, rank, shape...]
    mine = numpy.zeros(4 + _core.MAX_RANK, numpy.int64)
    if failure is not None:
        mine[0] = 1 + next(i for i, kind in enumerate(_AGREED_ERRORS) if isinstance(failure, kind))
    else:
        assert isinstance(dv, _core.DualView)
        mine[1] = int(result) if rooted else 0  # type: ignore[call-overload]
        mine[2], mine[3] = dv.dtype.num, dv.ndim
        mine[4:4 + dv.ndim] = dv.shape
    every = numpy.empty((comm.size, mine.size), numpy.int64)
    comm.Allgather(mine, every)
    refused = [rank for rank in range(comm.size) if every[rank, 0] != 0]
    if refused:
        messages = comm.allgather(None if failure is None else str(failure))  # every rank comes here
        first = refused[0]
        if failure is not None and comm.rank == first:
            raise failure
        raise _AGREED_ERRORS[every[first, 0] - 1](f"lapis.mpi.{who}: rank {first} refused the call: {messages[first]}")
    if (every[:, 1] != every[0, 1]).any():
        other = int(numpy.flatnonzero(every[:, 1] != every[0, 1])[0])
        raise ValueError(f"lapis.mpi.{who}: every rank must pass the same root; rank 0 passed {every[0, 1]}, "
                         f"rank {other} passed {every[other, 1]}")
    reference = int(every[0, 1])
    different = [rank for rank in range(comm.size) if not numpy.array_equal(every[rank, 2:], every[reference, 2:])]
    if different:
        def describe(row: NDArray[numpy.int64]) -> str:
            return f"{_dtype_of(int(row[2]))}, shape {tuple(int(n) for n in row[4:4 + int(row[3])])}"
        raise ValueError(f"lapis.mpi.{who}: every rank must pass the same dtype and shape; rank {different[0]} has "
                         f"{describe(every[different[0]])}, rank {reference} has {describe(every[reference])}")
    return result


def _dtype_of(number: int) -> numpy.dtype[Any]:
    """The dtype whose dtype.num is `number` (ranks run one numpy)."""
    return next(numpy.dtype(t) for t in set(numpy.sctypeDict.values()) if numpy.dtype(t).num == number)


def allreduce(comm: MPI.Comm, dv: _core.DualView, out: _core.DualView | None = None, op: MPI.Op = MPI.SUM,
              check: bool = True) -> _core.DualView:
    """Combines dv over every rank with `op` into `out` (default: dv itself, in place) on every rank;
    returns it. `out` may be dv's own state (in place) but may not overlap it otherwise. The result is
    left on the communication side, modified: a 0-d result is where the next kernel reads it (on the
    device, without a visit to Python, where MPI is GPU-aware)."""
    _complete_dropped()
    def local() -> bool:
        _dualview(dv, "allreduce")
        if not isinstance(op, MPI.Op):
            raise TypeError(f"lapis.mpi.allreduce: op must be an MPI.Op, not {type(op).__name__}")
        in_place = out is None or out is dv
        if out is not None and not in_place:
            target = _dualview(out, "allreduce", "out")
            if target.dtype != dv.dtype or target.shape != dv.shape:
                raise ValueError(f"lapis.mpi.allreduce: out ({target.dtype}, shape {target.shape}) differs from dv "
                                 f"({dv.dtype}, shape {dv.shape})")
            aliasing = _core._comm_aliasing(dv, target)
            if aliasing == "overlap":
                raise ValueError("lapis.mpi.allreduce: out overlaps dv; it must be dv's own memory (in place) or "
                                 "share none of it")
            in_place = aliasing == "same"
            if not in_place:
                _Side.check(dv, "read", "allreduce")
                _Side.check(target, "overwrite", "allreduce", "out")
        if in_place:
            _Side.check(dv, "write", "allreduce")
        return in_place

    in_place = _agree(comm, "allreduce", check, local, dv)
    if in_place:
        side = _Side(dv, "write")
        with _message("allreduce", f"{comm.size} ranks", dv):
            comm.Allreduce(MPI.IN_PLACE, side.buffer, op)
        side.finish()
        return dv if out is None else out
    assert out is not None
    source = _Side(dv, "read")
    target = _Side(out, "overwrite")
    with _message("allreduce", f"{comm.size} ranks", dv):
        comm.Allreduce(source.buffer, target.buffer, op)
    target.finish()
    return out


def allgather(comm: MPI.Comm, dv: _core.DualView, out: _core.DualView, check: bool = True) -> _core.DualView:
    """Gathers every rank's dv into `out` (on every rank), rank by rank: out holds comm.size times
    dv's elements, of dv's dtype (any shape of that size, e.g. (comm.size,) + dv.shape), and shares
    no memory with dv. Returns out."""
    _complete_dropped()
    def local() -> None:
        _dualview(dv, "allgather")
        _dualview(out, "allgather", "out")
        if out.dtype != dv.dtype or out.size != comm.size * dv.size:
            raise ValueError(f"lapis.mpi.allgather: out ({out.dtype}, shape {out.shape}) must hold {comm.size} x "
                             f"{dv.size} elements of {dv.dtype}")
        if _core._comm_aliasing(dv, out) != "none":
            raise ValueError("lapis.mpi.allgather: out overlaps dv; it must share none of its memory")
        _Side.check(dv, "read", "allgather")
        _Side.check(out, "overwrite", "allgather", "out")

    _agree(comm, "allgather", check, local, dv)
    source = _Side(dv, "read")
    target = _Side(out, "overwrite")
    with _message("allgather", f"{comm.size} ranks", dv):
        comm.Allgather(source.buffer, target.buffer)
    target.finish()
    return out


def bcast(comm: MPI.Comm, dv: _core.DualView, root: int = 0, check: bool = True) -> _core.DualView:
    """Sends the root's dv into every other rank's dv (synced on the root, marked modified
    elsewhere). Returns dv."""
    _complete_dropped()
    def local() -> int:
        _dualview(dv, "bcast")
        checked_root = _rank(comm, root, "bcast", "root")
        _Side.check(dv, "read" if comm.rank == checked_root else "overwrite", "bcast")
        return checked_root

    agreed_root = _agree(comm, "bcast", check, local, dv, rooted=True)
    side = _Side(dv, "read" if comm.rank == agreed_root else "overwrite")
    with _message("bcast", f"root {agreed_root}", dv):
        comm.Bcast(side.buffer, agreed_root)
    side.finish()
    return dv
