"""MLIR strided memref descriptors (lapis.memref) both ways, without copies."""
import ctypes

import numpy
import pytest

import lapis
from lapis import memref


def test_a_descriptor_describes_the_host_side_and_comes_back_as_a_dualview():
    dv = lapis.full((3, 4), 2.0)
    desc = memref.descriptor(dv)
    assert tuple(desc.sizes) == (3, 4) and tuple(desc.strides) == (4, 1) and desc.offset == 0
    with lapis.count_transfers() as t:
        back = memref.from_descriptor(desc)
    assert t.stats == lapis.TransferStats()
    assert back.is_borrowed and back.shape == (3, 4) and back.dtype == numpy.float64
    host = numpy.asarray(dv)
    assert numpy.asarray(back).ctypes.data == host.ctypes.data  # the same memory
    numpy.testing.assert_array_equal(back.asnumpy(), host)


def test_strided_descriptors_and_offsets_are_honoured():
    base = numpy.arange(12.0)
    desc = memref.descriptor_type(ctypes.c_double, 2)()
    desc.basePtr = desc.data = base.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    desc.offset = 1
    desc.sizes[:] = [3, 2]
    desc.strides[:] = [4, 2]   # every other column of a 3 x 4 array, from column 1
    dv = memref.from_descriptor(desc)
    numpy.testing.assert_array_equal(dv.asnumpy(), base.reshape(3, 4)[:, 1::2])
    dv.fill(5.0)  # the host side is the caller's memory: written back on sync
    dv.sync_host()
    assert (base.reshape(3, 4)[:, 1::2] == 5.0).all() and base[0] == 0.0


def test_a_writable_descriptor_marks_the_host_side_for_a_callee_that_writes():
    dv = lapis.zeros(4)
    desc = memref.descriptor(dv, writable=True)
    desc.data[2] = 7.0  # the callee writes through the descriptor
    assert dv.need_sync_device
    numpy.testing.assert_array_equal(dv.asnumpy(), [0.0, 0.0, 7.0, 0.0])


def test_bad_descriptors_raise_before_any_read():
    with pytest.raises(TypeError, match="descriptor"):
        memref.from_descriptor(numpy.zeros(3))
    desc = memref.descriptor_type(ctypes.c_float, 1)()
    desc.sizes[0], desc.strides[0] = 3, -1
    with pytest.raises(ValueError, match="non-negative"):
        memref.from_descriptor(desc)
    desc.strides[0] = 1
    with pytest.raises(ValueError, match="null"):
        memref.from_descriptor(desc)
    with pytest.raises(ValueError, match="ranks"):
        memref.descriptor_type(ctypes.c_float, 9)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.complex64, numpy.complex128, numpy.int8, numpy.bool_])
def test_descriptors_of_every_dtype_round_trip(dtype):
    a = (numpy.arange(6) % 2).astype(dtype).reshape(2, 3)
    dv = lapis.DualView(a)
    desc = memref.descriptor(dv)
    assert type(desc).dtype == numpy.dtype(dtype)
    back = memref.from_descriptor(desc)
    assert back.dtype == numpy.dtype(dtype)
    numpy.testing.assert_array_equal(back.asnumpy(), a)


def test_rank_0_descriptors_have_no_sizes():
    dv = lapis.full((), 4.5)
    desc = memref.descriptor(dv)
    assert [name for name, _ in desc._fields_] == ["basePtr", "data", "offset"]
    assert desc.data[0] == 4.5
    assert memref.from_descriptor(desc).asnumpy() == 4.5


def test_a_negative_offset_is_refused():
    base = numpy.arange(4.0)
    desc = memref.descriptor_type(numpy.float64, 1)()
    desc.basePtr = desc.data = base.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    desc.offset, desc.sizes[0], desc.strides[0] = -1, 2, 1
    with pytest.raises(ValueError, match="offset"):
        memref.from_descriptor(desc)
