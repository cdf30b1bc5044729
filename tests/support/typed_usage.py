"""lapis's public API used with its types, for tests/test_typing.py: mypy --strict checks this file
(each assert_type states what the stubs say a call returns), and the test runs main(), so that what
the types claim holds at runtime too. rejected() is never run: each of its lines is a type error,
which its `type: ignore[code]` expects (mypy reports an ignore that nothing needed)."""
from __future__ import annotations

import ctypes
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy
import numpy.typing as npt
from typing_extensions import assert_type

import lapis
import lapis.kernels as K
from lapis import memref
from lapis.lapis_module import LAPISModule, load

if TYPE_CHECKING:
    from mpi4py import MPI

    import lapis.mpi


def dualviews() -> None:
    host = numpy.arange(12.0).reshape(3, 4)
    dv = lapis.DualView(host)
    assert_type(dv, lapis.DualView)
    assert_type(lapis.DualView(dv, copy=True), lapis.DualView)
    assert_type(lapis.DualView(memoryview(bytearray(8)).cast("d")), lapis.DualView)
    assert_type(lapis.asdualview(host), lapis.DualView)
    assert_type(dv.shape, tuple[int, ...])
    assert_type(dv.dtype, numpy.dtype[Any])
    sizes: list[int] = [dv.ndim, dv.size, dv.itemsize, dv.nbytes]
    assert sizes == [2, 12, 8, 96]
    flags: list[bool] = [dv.need_sync_host, dv.need_sync_device, dv.host_allocated, dv.device_allocated,
                         dv.is_borrowed]
    assert flags[-1]
    assert_type(dv.transfers, lapis.TransferStats)

    array = dv.asnumpy()
    assert_type(array, npt.NDArray[Any])
    assert_type(dv.asnumpy(writable=True), npt.NDArray[Any])
    assert_type(dv.asmemref(), memoryview)
    assert_type(numpy.asarray(dv), npt.NDArray[Any])
    assert_type(dv.__dlpack_device__(), tuple[int, int])
    if dv.__dlpack_device__()[0] == 1:  # kDLCPU: the device side is host memory, which numpy takes
        assert numpy.from_dlpack(dv).shape == (3, 4)
    dv.sync_device()
    dv.modify_device()
    dv.sync_host()
    dv.modify_host()

    row = dv[1]
    assert_type(row, lapis.DualView)
    assert dv[1:, ::2].shape == (2, 2) and dv[..., -1].shape == (3,) and dv[numpy.int64(0), 1].shape == ()
    assert dv.reshape(4, 3).shape == (4, 3) and dv.reshape((2, 6)).shape == (2, 6) and dv.reshape([-1]).shape == (12,)
    assert_type(dv.astype(numpy.float32), lapis.DualView)
    assert_type(dv.astype("f8", copy=False), lapis.DualView)
    assert_type(dv.copy(), lapis.DualView)
    dv.fill(1.5)

    assert_type(len(dv), int)
    for item in row:
        assert float(item) == 1.5
    scalar = lapis.full((), 3.0)
    assert_type(float(scalar), float)
    assert_type(int(scalar), int)
    assert_type(complex(scalar), complex)
    assert bool(scalar) and 3.0 in scalar
    assert [10, 20, 30, 40][lapis.full((), 2, numpy.int64)] == 30  # __index__


def factories() -> None:
    made = [lapis.zeros(3), lapis.zeros((2, 3), numpy.float32), lapis.empty([4]), lapis.ones(numpy.int64(5), "i4"),
            lapis.full((2,), 7), lapis.full(2, 1.0, dtype=numpy.float32),
            lapis.zeros_like(numpy.ones(3)), lapis.ones_like(lapis.zeros(2), shape=(4,)),
            lapis.empty_like([1.0, 2.0], dtype=numpy.float32), lapis.full_like(lapis.zeros(2), 5.0)]
    assert_type(made, list[lapis.DualView])
    assert [m.shape for m in made][-1] == (2,)


def kernels() -> None:
    a, b = numpy.ones((4, 3)), numpy.ones((3, 2))
    c = K.gemm(a, b)
    assert_type(c, lapis.DualView)
    assert_type(K.gemm(a, b, out=c), lapis.DualView)
    out: npt.NDArray[numpy.float64] = numpy.empty((4, 2))
    assert_type(K.gemm(a, b, out), npt.NDArray[numpy.float64])
    assert out[0, 0] == 3.0

    x = lapis.DualView(numpy.arange(3.0))
    assert_type(K.add(x, 1.0), lapis.DualView)
    assert_type(K.multiply(numpy.float64(2.0), x, out=x), lapis.DualView)
    assert_type(K.axpby(0.5, x, 1.0, x), lapis.DualView)
    relu: npt.NDArray[numpy.float32] = numpy.empty(3, numpy.float32)
    assert_type(K.maximum(lapis.zeros(3, numpy.float32), 0.0, out=relu), npt.NDArray[numpy.float32])
    assert_type(K.dot(x, x), float)
    assert_type(K.norm(x), float)
    norm = K.norm(x, out=lapis.empty(()))
    assert_type(norm, lapis.DualView)
    assert_type(K.divide(x, norm), lapis.DualView)

    indptr, indices, data = numpy.array([0, 1, 2]), numpy.array([0, 1]), numpy.array([2.0, 3.0])
    A = lapis.CSRMatrix((data, indices, indptr), shape=(2, 2))
    assert_type(A, K.CSRMatrix)
    assert_type(A.shape, tuple[int, int])
    assert_type(A.data, lapis.DualView)
    assert A.nnz == 2 and A.dtype == numpy.float64
    v = numpy.ones(2)
    assert_type(K.spmv(A, v), lapis.DualView)
    assert_type(K.spmv(A, x=v), lapis.DualView)
    assert_type(K.spmv(indptr, indices, data, v, shape=(2, 2)), lapis.DualView)
    product: npt.NDArray[numpy.float64] = numpy.empty(2)
    assert_type(K.spmv(A, v, out=product), npt.NDArray[numpy.float64])
    assert list(product) == [2.0, 3.0]
    assert_type(K.sparse_matadd(A, A), K.CSRMatrix)

    images = numpy.ones((1, 2, 5, 5))
    y = K.conv2d_nchw(images, numpy.ones((3, 2, 3, 3)), numpy.zeros(3), stride=1, padding=1)
    channels = numpy.ones(3)
    y = K.batchnorm_nchw(y, channels, channels, channels, channels, eps=1e-3, out=y)
    assert_type(K.maxpool_nchw(y, kernel_size=2, stride=2, padding=0, dilation=1), lapis.DualView)
    assert_type(K.linear(K.global_avgpool_nchw(y), numpy.ones((4, 3)), numpy.zeros(4)), lapis.DualView)


def runtime_and_copies() -> None:
    info = lapis.runtime_info()
    assert_type(info["lapis_version"], str)
    assert_type(info["kokkos_backends"], list[str])
    assert_type(info["staging"]["threads"], int)
    assert_type(lapis.__version__, str)
    for space, stats in lapis.memory_stats().items():
        assert_type(stats["cached_bytes"], int)
    assert_type(lapis.empty_cache(), int)
    lapis.fence()
    assert_type(lapis.get_include(), str)

    with lapis.count_transfers() as t:
        lapis.zeros(4).asnumpy()
    assert_type(t, lapis.count_transfers)
    assert_type(t.stats, lapis.TransferStats)
    assert_type(t.h2d_count + t.d2h_bytes, int)
    total = lapis.transfer_stats() - lapis.TransferStats(h2d_count=0)
    assert_type(total + lapis.TransferStats(), lapis.TransferStats)
    assert hash(total) == hash(total + lapis.TransferStats())
    lapis.reset_transfer_stats()

    before = lapis.get_transfer_guard()
    assert before["host_to_device"] in ("allow", "log", "disallow")
    with lapis.transfer_guard("log", device_to_host="disallow") as guard:
        assert_type(guard, lapis.transfer_guard)
        assert lapis.get_transfer_guard() == {"host_to_device": "log", "device_to_host": "disallow"}
    lapis.set_transfer_guard(host_to_device=before["host_to_device"])
    try:
        with lapis.transfer_guard("disallow"):
            lapis.zeros(2).asnumpy()
    except lapis.TransferGuardError as error:
        assert_type(error, lapis.TransferGuardError)


def descriptors() -> None:
    desc = memref.descriptor(lapis.full((2, 3), 1.0), writable=True)
    assert_type(desc, ctypes.Structure)
    assert_type(memref.descriptor_type(numpy.float32, 1), type[ctypes.Structure])
    back = memref.from_descriptor(desc)
    assert_type(back, lapis.DualView)
    assert back.shape == (2, 3)
    loader: Callable[[str | os.PathLike[str]], LAPISModule] = load
    assert loader is lapis.lapis_module.load


def exchange(comm: MPI.Comm, dv: lapis.DualView) -> float:
    """Typed use of lapis.mpi (checked only: importing mpi4py starts MPI)."""
    request = lapis.mpi.isend(comm, dv, dest=(comm.rank + 1) % comm.size)
    status = lapis.mpi.recv(comm, lapis.empty_like(dv), source=MPI.ANY_SOURCE)
    statuses = lapis.mpi.waitall([request])
    assert_type(status, MPI.Status)
    assert_type(statuses, list[MPI.Status])
    total = lapis.mpi.allreduce(comm, lapis.full((), 1.0), op=MPI.SUM)
    assert lapis.mpi.communication_side() in ("host", "device")
    return float(total)


def rejected() -> None:
    """Never run: each call is refused at runtime, and by the types."""
    lapis.DualView([1.0, 2.0])  # type: ignore[arg-type]  # a list exports no buffer
    lapis.zeros("3")  # type: ignore[arg-type]
    lapis.zeros(3)["a"]  # type: ignore[index]
    lapis.zeros(3).asnumpy(True)  # type: ignore[call-arg]  # writable is keyword-only
    lapis.set_transfer_guard("sometimes")  # type: ignore[arg-type]
    K.dot(lapis.zeros(3), lapis.zeros(3)).shape  # type: ignore[attr-defined]  # a float without out
    K.add(1j, lapis.zeros(3))  # type: ignore[call-overload]  # complex scalars are refused
    K.spmv(lapis.zeros(3), lapis.zeros(3))  # type: ignore[call-overload]  # the CSR arrays need shape=
    lapis.CSRMatrix((lapis.zeros(1), lapis.zeros(1), lapis.zeros(2)))  # type: ignore[call-overload]  # shape=
    lapis.not_a_name  # type: ignore[attr-defined]  # lapis's lazy __getattr__ serves CSRMatrix only


def main() -> None:
    dualviews()
    factories()
    kernels()
    runtime_and_copies()
    descriptors()
