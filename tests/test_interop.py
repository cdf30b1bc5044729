"""Zero-copy exchange with other libraries: DLPack both ways and the CUDA array interface.
The GPU tests need a CUDA build of lapis and CuPy / PyTorch with a GPU; they are skipped elsewhere."""
import numpy
import pytest

import lapis
import lapis.kernels as K
from conftest import APART, counts

DEVICE = lapis.DualView(numpy.zeros(1)).__dlpack_device__()
ON_CUDA = DEVICE[0] == 2


def test_dlpack_device_names_where_device_sides_live():
    assert DEVICE == ((2, DEVICE[1]) if ON_CUDA else (1, 0))


@pytest.mark.skipif(ON_CUDA, reason="numpy cannot read CUDA memory")
def test_numpy_reads_the_device_side_without_copying():
    dv = lapis.full((3, 2), 1.5)
    with lapis.count_transfers() as t:
        array = numpy.from_dlpack(dv)
    assert t == lapis.TransferStats()
    numpy.testing.assert_array_equal(array, numpy.full((3, 2), 1.5))
    assert dv.need_sync_host     # a consumer may write: the device side is marked modified
    with lapis.count_transfers() as t:
        numpy.testing.assert_array_equal(dv.asnumpy(), array)
    assert t == counts(d2h=1, d2h_bytes=48)


def test_from_dlpack_of_a_host_array_borrows_it():
    a = numpy.arange(6.0).reshape(2, 3)
    dv = lapis.DualView.from_dlpack(a)
    assert dv.is_borrowed and dv.shape == (2, 3) and dv.dtype == numpy.float64
    dv.fill(2.0)
    dv.sync_host()
    assert (a == 2.0).all()
    assert lapis.DualView.from_dlpack(dv) is dv


def test_dlpack_export_refuses_what_it_cannot_promise():
    frozen = numpy.zeros(2)
    frozen.flags.writeable = False
    with pytest.raises(BufferError, match="read-only"):
        lapis.DualView(frozen).__dlpack__()
    with pytest.raises(BufferError, match="copy"):
        lapis.zeros(2).__dlpack__(copy=True)
    with pytest.raises(TypeError, match="DLPack"):
        lapis.DualView.from_dlpack(object())


def test_versioned_dlpack_carries_the_read_only_flag_both_ways():
    dv = lapis.full(3, 2.0)
    capsule = dv.__dlpack__(max_version=(1, 0))
    assert "dltensor_versioned" in repr(capsule)
    assert "dltensor\"" in repr(dv.__dlpack__())  # the unversioned kind without max_version
    frozen = numpy.arange(3.0)
    frozen.flags.writeable = False
    readonly = lapis.DualView(frozen)
    readonly.__dlpack__(max_version=(1, 0))       # read-only is no obstacle to a versioned export
    assert not readonly.need_sync_host             # and nothing is marked modified
    wrapped = lapis.DualView.from_dlpack(frozen)   # numpy sends the read-only flag
    assert wrapped.is_borrowed
    with pytest.raises(ValueError, match="read-only"):
        wrapped.modify_host()
    if not ON_CUDA:
        array = numpy.from_dlpack(readonly)        # numpy asks for a versioned tensor
        assert not array.flags.writeable
        numpy.testing.assert_array_equal(array, frozen)


@pytest.mark.skipif(ON_CUDA, reason="CUDA device sides take a stream")
def test_dlpack_export_of_host_memory_takes_no_stream():
    with pytest.raises(BufferError, match="stream"):
        lapis.zeros(2).__dlpack__(stream=1)


def test_probing_for_the_cuda_array_interface_changes_nothing():
    # CuPy and Numba probe with hasattr: that must not sync, mark a side modified or copy
    dv = lapis.DualView(numpy.arange(4.0))          # host side modified, device side unallocated
    with lapis.count_transfers() as t:
        assert not hasattr(dv, "__cuda_array_interface__")
    assert t == lapis.TransferStats()
    assert dv.need_sync_device and not dv.need_sync_host
    assert dv.device_allocated == (not APART)


@pytest.mark.skipif(ON_CUDA, reason="CPU builds only")
def test_no_cuda_array_without_cuda():
    with pytest.raises(BufferError, match="not CUDA memory"):
        lapis.zeros(2).cuda_array()


# ---------------------------------------------------------------- on a GPU

cupy = pytest.importorskip("cupy") if ON_CUDA else None
gpu = pytest.mark.skipif(not ON_CUDA, reason="needs a CUDA build of lapis and a GPU")


def torch_cuda():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no GPU")
    return torch


@gpu
def test_cupy_reads_and_writes_the_device_side_without_copies():
    dv = lapis.full((4, 5), 2.0)
    dv.sync_host()
    with lapis.count_transfers() as t:
        read = dv.cuda_array()                    # read-only: nothing marked
        assert read.__cuda_array_interface__["data"][1] is True
        assert (cupy.asarray(read) == 2.0).all()
        assert not dv.need_sync_host
        c = cupy.asarray(dv.cuda_array(writable=True))  # through __cuda_array_interface__
        c *= 3
    assert t == lapis.TransferStats()
    assert dv.need_sync_host
    with lapis.count_transfers() as t:
        numpy.testing.assert_array_equal(dv.asnumpy(), numpy.full((4, 5), 6.0))
    assert t == counts(d2h=1, d2h_bytes=160)
    d = cupy.from_dlpack(lapis.full(3, 7.0))      # through DLPack
    assert (d == 7.0).all()


@gpu
def test_cupy_arrays_are_kernel_arguments_without_host_round_trips():
    a = cupy.random.standard_normal((64, 32))
    b = cupy.random.standard_normal((32, 16))
    out = cupy.zeros((64, 16))
    with lapis.count_transfers() as t:
        assert K.gemm(a, b, out=out) is out
        r = K.gemm(a, b)
    assert t == lapis.TransferStats()
    expected = cupy.asnumpy(a @ b)
    numpy.testing.assert_allclose(cupy.asnumpy(out), expected, rtol=1e-12)
    numpy.testing.assert_allclose(cupy.asnumpy(cupy.asarray(r)), expected, rtol=1e-12)
    with pytest.raises(ValueError, match="overlaps"):
        K.matadd(out, out[::1], out=out)


@gpu
def test_other_libraries_streams_see_lapis_kernels_finished():
    # lapis returns before its kernels finish; what it lends out must be finished anyway, even to
    # a stream that never waits for lapis's (non-blocking streams skip the legacy default stream).
    torch = torch_cuda()
    a, b = (torch.rand((1024, 1024), dtype=torch.float64, device="cuda") for _ in range(2))
    expected = (a @ b).cpu()
    out = torch.zeros((1024, 1024), dtype=torch.float64, device="cuda")
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        from_dlpack = torch.from_dlpack(K.gemm(a, b)).clone()    # a lapis result, through DLPack
        K.gemm(a, b, out=out)                                    # torch memory written by lapis
        from_out = out.clone()
    with cupy.cuda.Stream(non_blocking=True) as stream:
        from_interface = cupy.asarray(K.gemm(cupy.asarray(a), cupy.asarray(b))).copy()
        stream.synchronize()
    side.synchronize()
    for got in (from_dlpack.cpu(), from_out.cpu(), torch.from_numpy(cupy.asnumpy(from_interface))):
        torch.testing.assert_close(got, expected, rtol=1e-12, atol=1e-9)


@gpu
def test_torch_tensors_both_ways():
    torch = torch_cuda()
    x = torch.arange(12, dtype=torch.float64, device="cuda").reshape(3, 4)
    with lapis.count_transfers() as t:
        dv = lapis.DualView.from_dlpack(x)
        s = K.matadd(dv, x)
        back = torch.from_dlpack(s)
    assert t == lapis.TransferStats()
    assert dv.is_borrowed and not dv.host_allocated
    torch.testing.assert_close(back, 2 * x)
    out = torch.empty((3, 4), dtype=torch.float64, device="cuda")
    K.matadd(x, x, out=out)
    torch.testing.assert_close(out, 2 * x)
    with pytest.raises(ValueError, match="contiguous"):
        lapis.DualView.from_dlpack(x.t())
    with pytest.raises(TypeError, match="dtype"):
        K.matadd(x, x, out=torch.empty((3, 4), dtype=torch.float32, device="cuda"))
