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

Point-to-point messages are bytes: a receive checks the message's size against the DualView's
(ValueError, the message consumed, the DualView untouched); both ranks must agree on the dtype.
Collectives first compare every rank's dtype and shape (one small allgather; check=False skips it)
and raise ValueError on every rank on a mismatch, before any data moves. Parts that are not
contiguous are packed into host memory around the call (on a CUDA device side: ValueError). A
receive into a read-only DualView raises lapis.ReadOnlyError before anything is received.
`comm.Send(dv)` with a DualView itself goes through the buffer protocol: the host side, synced (an
implicit copy the guard judges), whatever the communication side; `comm.Recv(dv)` finds that export
read-only and falls back to DLPack, the device side (on CUDA, a device pointer for a GPU-aware MPI
only). Use this module for DualViews.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

import numpy
from mpi4py import MPI
from numpy.typing import NDArray

from lapis import _core

__all__ = ["Request", "allgather", "allreduce", "bcast", "communication_side", "irecv", "isend", "recv", "send",
           "waitall"]


def communication_side() -> Literal["host", "device"]:
    """"device" where lapis takes MPI to be GPU-aware (LAPIS_MPI_GPU_AWARE=1), else "host"."""
    return "device" if _core.runtime_info()["mpi_gpu_aware"] else "host"


def _dualview(dv: object, who: str) -> _core.DualView:
    if not isinstance(dv, _core.DualView):
        raise TypeError(f"lapis.mpi.{who}: expected a lapis.DualView, not {type(dv).__name__} "
                        "(numpy arrays go to mpi4py directly)")
    return dv


class _Side:
    """The communication side of `dv` accessed for one operation, as a contiguous buffer for
    mpi4py; a strided host-addressable side goes through a packed copy (`finish` unpacks it)."""

    def __init__(self, dv: _core.DualView, access: Literal["read", "write", "overwrite"], who: str) -> None:
        self.target = _core._comm_buffer(dv, communication_side(), access)
        self.buffer = self.target
        if isinstance(self.target, numpy.ndarray):
            if not self.target.flags.c_contiguous:
                self.buffer = numpy.ascontiguousarray(self.target)
        elif self.target.__cuda_array_interface__["strides"] is not None:
            raise ValueError(f"lapis.mpi.{who}: a part that is not contiguous cannot be communicated from CUDA "
                             "device memory; copy it first (dv.copy())")

    def finish(self) -> None:
        """Copies a received packed buffer into the strided side (only a host-addressable one is packed)."""
        if isinstance(self.target, numpy.ndarray) and self.buffer is not self.target:
            self.target[...] = self.buffer


def _check_size(status: MPI.Status, dv: _core.DualView, who: str) -> None:
    got = status.Get_count(MPI.BYTE)
    if got != dv.nbytes:
        raise ValueError(f"lapis.mpi.{who}: the message from rank {status.Get_source()} has {got} bytes; the "
                         f"DualView ({dv.dtype}, shape {dv.shape}) takes {dv.nbytes}")


def send(comm: MPI.Comm, dv: _core.DualView, dest: int, tag: int = 0) -> None:
    """Sends dv's communication side to rank `dest` (blocking)."""
    side = _Side(_dualview(dv, "send"), "read", "send")
    comm.Send(side.buffer, dest, tag)


def recv(comm: MPI.Comm, dv: _core.DualView, source: int = MPI.ANY_SOURCE, tag: int = MPI.ANY_TAG) -> MPI.Status:
    """Receives a message into dv's communication side, marked modified (blocking); returns the
    MPI.Status. The message's size is checked first (ValueError; the message is consumed)."""
    _dualview(dv, "recv")
    status = MPI.Status()
    comm.Probe(source, tag, status)
    source, tag = status.Get_source(), status.Get_tag()
    try:
        _check_size(status, dv, "recv")
        side = _Side(dv, "overwrite", "recv")
    except Exception:
        comm.Recv(bytearray(status.Get_count(MPI.BYTE)), source, tag)  # the message goes nowhere else
        raise
    comm.Recv(side.buffer, source, tag, status)
    side.finish()
    return status


class Request:
    """A nonblocking send or receive: keeps its DualView and buffers alive until it completes."""

    def __init__(self, request: MPI.Request, dv: _core.DualView, side: _Side, who: str) -> None:
        self._request, self.dualview, self._side, self._who = request, dv, side, who
        self._status: MPI.Status | None = None

    def wait(self) -> MPI.Status:
        """Waits for completion; a receive's size is checked then (ValueError: the DualView's values
        are unspecified). Returns the MPI.Status."""
        if self._status is None:
            status = MPI.Status()
            try:
                self._request.Wait(status)
            except MPI.Exception as error:
                if error.Get_error_class() != MPI.ERR_TRUNCATE:
                    raise
                raise ValueError(f"lapis.mpi.{self._who}: the message is larger than the DualView "
                                 f"({self.dualview.nbytes} bytes)") from None
            self._status = status
            if self._who == "irecv":
                _check_size(status, self.dualview, "irecv")
                self._side.finish()
        return self._status

    def test(self) -> bool:
        """True once complete (then as wait())."""
        if self._status is None and not self._request.Test():
            return False
        self.wait()
        return True


def isend(comm: MPI.Comm, dv: _core.DualView, dest: int, tag: int = 0) -> Request:
    """Starts sending dv's communication side (synced now) to `dest`; returns a Request."""
    side = _Side(_dualview(dv, "isend"), "read", "isend")
    return Request(comm.Isend(side.buffer, dest, tag), dv, side, "isend")


def irecv(comm: MPI.Comm, dv: _core.DualView, source: int = MPI.ANY_SOURCE, tag: int = MPI.ANY_TAG) -> Request:
    """Starts receiving into dv's communication side, marked modified now (Tpetra's order: nothing
    may read dv until the request completes); returns a Request, whose wait() checks the size."""
    side = _Side(_dualview(dv, "irecv"), "overwrite", "irecv")
    return Request(comm.Irecv(side.buffer, source, tag), dv, side, "irecv")


def waitall(requests: Iterable[Request]) -> list[MPI.Status]:
    """Waits for every Request; returns their statuses."""
    return [request.wait() for request in requests]


def _agree(comm: MPI.Comm, dv: _core.DualView, who: str, root: int | None = None) -> None:
    """ValueError on every rank unless each rank's dtype and shape is this rank's (or the root's)."""
    mine = numpy.zeros(2 + 8, numpy.int64)
    mine[0], mine[1] = dv.dtype.num, dv.ndim
    mine[2:2 + dv.ndim] = dv.shape
    every = numpy.empty((comm.size, mine.size), numpy.int64)
    comm.Allgather(mine, every)
    reference = every[root if root is not None else 0]
    different = [rank for rank in range(comm.size) if not numpy.array_equal(every[rank], reference)]
    if different:
        def describe(row: NDArray[numpy.int64]) -> str:
            return f"{_dtype_of(row[0])}, shape {tuple(int(n) for n in row[2:2 + int(row[1])])}"
        raise ValueError(f"lapis.mpi.{who}: every rank must pass the same dtype and shape; rank {different[0]} has "
                         f"{describe(every[different[0]])}, rank {root if root is not None else 0} has "
                         f"{describe(reference)}")


def _dtype_of(number: int) -> numpy.dtype[Any]:
    """The dtype whose dtype.num is `number` (ranks run one numpy)."""
    return next(numpy.dtype(t) for t in set(numpy.sctypeDict.values()) if numpy.dtype(t).num == number)


def allreduce(comm: MPI.Comm, dv: _core.DualView, out: _core.DualView | None = None, op: MPI.Op = MPI.SUM,
              check: bool = True) -> _core.DualView:
    """Combines dv over every rank with `op` into `out` (default: dv itself, in place) on every rank;
    returns it. The result is left on the communication side, modified: a 0-d result is where the
    next kernel reads it (on the device, without a visit to Python, where MPI is GPU-aware)."""
    _dualview(dv, "allreduce")
    if check:
        _agree(comm, dv, "allreduce")
    if out is None or out is dv:
        side = _Side(dv, "write", "allreduce")
        comm.Allreduce(MPI.IN_PLACE, side.buffer, op)
        side.finish()
        return dv
    _dualview(out, "allreduce")
    if out.dtype != dv.dtype or out.shape != dv.shape:
        raise ValueError(f"lapis.mpi.allreduce: out ({out.dtype}, shape {out.shape}) differs from dv "
                         f"({dv.dtype}, shape {dv.shape})")
    source = _Side(dv, "read", "allreduce")
    target = _Side(out, "overwrite", "allreduce")
    comm.Allreduce(source.buffer, target.buffer, op)
    target.finish()
    return out


def allgather(comm: MPI.Comm, dv: _core.DualView, out: _core.DualView, check: bool = True) -> _core.DualView:
    """Gathers every rank's dv into `out` (on every rank), rank by rank: out holds comm.size times
    dv's elements, of dv's dtype (any shape of that size, e.g. (comm.size,) + dv.shape). Returns out."""
    _dualview(dv, "allgather")
    _dualview(out, "allgather")
    if check:
        _agree(comm, dv, "allgather")
    if out.dtype != dv.dtype or out.size != comm.size * dv.size:
        raise ValueError(f"lapis.mpi.allgather: out ({out.dtype}, shape {out.shape}) must hold {comm.size} x "
                         f"{dv.size} elements of {dv.dtype}")
    source = _Side(dv, "read", "allgather")
    target = _Side(out, "overwrite", "allgather")
    comm.Allgather(source.buffer, target.buffer)
    target.finish()
    return out


def bcast(comm: MPI.Comm, dv: _core.DualView, root: int = 0, check: bool = True) -> _core.DualView:
    """Sends the root's dv into every other rank's dv (synced on the root, marked modified
    elsewhere). Returns dv."""
    _dualview(dv, "bcast")
    if check:
        _agree(comm, dv, "bcast", root=root)
    side = _Side(dv, "read" if comm.rank == root else "overwrite", "bcast")
    comm.Bcast(side.buffer, root)
    side.finish()
    return dv
