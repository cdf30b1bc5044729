"""lapis.DualView: wrapping, syncing, exporting; exact transfer counts on the simulated device."""
import ctypes
import gc
import sys

import numpy
import pytest

import lapis
from conftest import APART, counts


def test_wrap_then_sync_device_uploads_once():
    a = numpy.arange(12, dtype=numpy.float64).reshape(3, 4)
    dv = lapis.DualView(a)
    assert dv.is_borrowed
    assert dv.need_sync_device
    with lapis.count_transfers() as t:
        dv.sync_device()
    assert t == counts(1, a.nbytes)
    with lapis.count_transfers() as t:
        dv.sync_device()
    assert t == counts()
    assert dv.transfers == counts(1, 96)


def test_modify_device_then_asnumpy_downloads_once():
    dv = lapis.DualView(numpy.ones((5, 2), dtype=numpy.float32))
    dv.sync_device()
    dv.modify_device()
    assert dv.need_sync_host
    with lapis.count_transfers() as t:
        first = dv.asnumpy()
    assert t == counts(d2h=1, d2h_bytes=40)
    with lapis.count_transfers() as t:
        second = dv.asnumpy()
    assert t == counts()
    numpy.testing.assert_array_equal(first, second)


def test_borrowed_array_reflects_device_results_after_sync_host():
    a = numpy.zeros((2, 3))
    dv = lapis.DualView(a)
    with lapis.count_transfers() as t:
        dv.fill(7.0)  # a device-side write that overwrites everything: nothing is uploaded
    assert t == counts()
    if APART:
        assert (a == 0).all()  # the host side really is stale until synced
    with lapis.count_transfers() as t:
        dv.sync_host()
    assert t == counts(d2h=1, d2h_bytes=48)
    assert (a == 7).all()


def test_writable_asnumpy_marks_the_host_side_modified():
    dv = lapis.zeros((4,), dtype=numpy.int32)
    array = dv.asnumpy(writable=True)
    array[2] = 9
    assert dv.need_sync_device
    with lapis.count_transfers() as t:
        dv.sync_device()
    assert t == counts(1, 16)
    dv.fill(1)
    numpy.testing.assert_array_equal(dv.asnumpy(), [1, 1, 1, 1])


def test_asnumpy_is_read_only_and_zero_copy():
    a = numpy.arange(6.0)
    dv = lapis.DualView(a)
    array = dv.asnumpy()
    assert not array.flags.writeable
    with pytest.raises(ValueError):
        array[0] = 1
    if not APART:
        assert array.__array_interface__["data"][0] == a.__array_interface__["data"][0]
    assert dv.asnumpy().__array_interface__["data"][0] == array.__array_interface__["data"][0]


def test_asnumpy_array_outlives_its_dualview():
    dv = lapis.full((1000,), 2.5)
    array = dv.asnumpy()
    del dv
    gc.collect()
    junk = [numpy.full(1000, -1.0) for _ in range(50)]  # reuse freed memory if it were freed
    assert (array == 2.5).all()
    del junk


def test_borrowed_dualview_keeps_its_array_alive():
    a = numpy.arange(4.0)
    dv = lapis.DualView(a)
    refs = sys.getrefcount(a)
    del a
    gc.collect()
    numpy.testing.assert_array_equal(dv.asnumpy(), [0, 1, 2, 3])
    assert refs >= 3


@pytest.mark.usefixtures("no_gc")
def test_many_dualviews_leave_no_allocation_behind():
    base = lapis.runtime_info()
    a = numpy.ones((8, 8))
    for i in range(10_000):
        dv = lapis.DualView(a)
        dv.sync_device()
        z = lapis.zeros(16)
        z.asnumpy()
    del dv, z
    info = lapis.runtime_info()
    assert info["live_allocations"] == base["live_allocations"]
    assert info["live_bytes"] == base["live_bytes"]


def test_live_allocations_count_each_side():
    base = lapis.runtime_info()["live_allocations"]
    dv = lapis.zeros((10,))
    assert lapis.runtime_info()["live_allocations"] == base + 1
    assert lapis.runtime_info()["live_bytes"] >= 80
    dv.asnumpy()
    assert lapis.runtime_info()["live_allocations"] == base + (2 if APART else 1)
    del dv
    assert lapis.runtime_info()["live_allocations"] == base


def test_copy_true_owns_a_fresh_host_copy():
    a = numpy.arange(6.0).reshape(2, 3)
    dv = lapis.DualView(a[:, ::2], copy=True)
    assert not dv.is_borrowed
    a[:] = -1
    numpy.testing.assert_array_equal(dv.asnumpy(), [[0, 2], [3, 5]])
    assert dv.asnumpy().flags.c_contiguous
    with lapis.count_transfers() as t:
        dv.sync_device()
    assert t == counts(1, 32)


def test_read_only_object_gives_a_read_only_host_side():
    a = numpy.arange(3.0)
    a.flags.writeable = False
    dv = lapis.DualView(a)
    numpy.testing.assert_array_equal(dv.asnumpy(), [0, 1, 2])
    dv.sync_device()
    for write in (lambda: dv.asnumpy(writable=True), dv.modify_host, dv.modify_device,
                  lambda: dv.fill(1.0), lambda: dv.asmemref(writable=True)):
        with pytest.raises(ValueError, match="read-only"):
            write()
    numpy.testing.assert_array_equal(a, [0, 1, 2])


def test_modifying_both_sides_without_sync_is_an_error():
    # the same on every device: the flags are tracked even where the sides are one memory
    dv = lapis.DualView(numpy.zeros(3))
    with pytest.raises(lapis.ConcurrentModificationError):
        dv.modify_device()
    assert issubclass(lapis.ConcurrentModificationError, RuntimeError)
    with lapis.count_transfers() as t:
        dv.sync_device()
    assert t == counts(1, 24)
    dv.modify_device()
    assert dv.need_sync_host


@pytest.mark.parametrize("view", [
    lambda a: a[:, ::2],
    lambda a: a[::-1],
    lambda a: a.T,
    lambda a: numpy.asfortranarray(a),
    lambda a: a[1:, 1:3],
], ids=["step", "negative", "transposed", "fortran", "slice"])
def test_non_contiguous_arrays_round_trip_through_the_device(view):
    base = numpy.arange(20, dtype=numpy.float64).reshape(4, 5)
    a = view(base)
    expected = a.copy()
    dv = lapis.DualView(a)
    with lapis.count_transfers() as t:
        dv.sync_device()
        dv.modify_device()
        dv.sync_host()
    # Negative strides are beyond what a device view can address: such an array gets a contiguous
    # device side of its own even where the device could share host memory.
    apart = APART or any(s < 0 for s in a.strides)
    assert t == (lapis.TransferStats(1, a.nbytes, 1, a.nbytes) if apart else lapis.TransferStats())
    numpy.testing.assert_array_equal(dv.asnumpy(), expected)
    numpy.testing.assert_array_equal(a, expected)
    dv.fill(-3.0)
    dv.sync_host()
    assert (a == -3).all()
    # elements outside the view are never touched
    outside = numpy.ones(base.shape, bool)
    outside[numpy.nonzero(numpy.isin(base, -3.0))] = False
    assert (base[outside] != -3).all()


DTYPES = [numpy.bool_, numpy.int8, numpy.int16, numpy.int32, numpy.int64, numpy.uint8, numpy.uint16,
          numpy.uint32, numpy.uint64, numpy.float16, numpy.float32, numpy.float64, numpy.complex64,
          numpy.complex128]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: numpy.dtype(d).name)
def test_the_element_type_table_agrees_with_numpy(dtype):
    """lapis's one table of dtype facts (core/element_type.hpp) against numpy's own: numpy reads the
    buffer protocol's format and item size as the dtype, and DLPack's type code both ways."""
    a = numpy.zeros(3, dtype)
    dv = lapis.zeros(3, dtype)
    exported = memoryview(dv)
    assert numpy.asarray(exported).dtype == numpy.dtype(dtype) and exported.itemsize == a.itemsize
    assert lapis.DualView.from_dlpack(a).dtype == numpy.dtype(dtype)  # numpy's DLPack code read by lapis
    if dv.__dlpack_device__()[0] == 1:  # a device side in host memory, which numpy can read
        assert numpy.from_dlpack(dv).dtype == numpy.dtype(dtype)  # lapis's DLPack code read by numpy


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: numpy.dtype(d).name)
@pytest.mark.parametrize("shape", [(), (7,), (2, 3), (2, 1, 3), (2, 3, 1, 2)], ids=str)
def test_every_dtype_and_rank_comes_back_as_it_went(dtype, shape, rng):
    a = numpy.asarray(rng.standard_normal(shape) * 10).astype(dtype)
    dv = lapis.DualView(a)
    dv.sync_device()
    dv.modify_device()
    back = dv.asnumpy()
    assert back.dtype == numpy.dtype(dtype)
    assert back.shape == shape
    numpy.testing.assert_array_equal(back, a)
    assert dv.dtype == numpy.dtype(dtype) and dv.ndim == len(shape)
    assert dv.size == a.size and dv.itemsize == a.itemsize and dv.nbytes == a.nbytes
    copy = lapis.DualView(a, copy=True)
    numpy.testing.assert_array_equal(numpy.asarray(copy), a)


@pytest.mark.parametrize("dtype", ["f16" if numpy.dtype(numpy.longdouble).itemsize == 16 else "g", "O", "U3",
                                   "M8[s]", ">f8", "V8", [("x", "f8")]], ids=str)
def test_unsupported_dtypes_raise_type_error_naming_them(dtype):
    try:
        a = numpy.zeros(3, dtype=dtype)
    except TypeError:
        pytest.skip(f"numpy has no dtype {dtype}")
    with pytest.raises(TypeError, match="dtype"):
        lapis.DualView(a)
    with pytest.raises(TypeError, match="dtype"):
        lapis.zeros(3, dtype=dtype)


@pytest.mark.parametrize("obj", [3.0, [1, 2, 3], "abc", None, object()], ids=["float", "list", "str", "None", "object"])
def test_unsupported_objects_raise_type_error(obj):
    with pytest.raises(TypeError):
        lapis.DualView(obj)


def test_buffer_and_array_interface_exporters_are_wrapped_without_copy():
    raw = bytearray(16)
    dv = lapis.DualView(raw)
    assert dv.dtype == numpy.uint8 and dv.shape == (16,)
    dv.fill(5)
    dv.sync_host()
    assert raw == bytearray([5] * 16)

    class Exporter:
        def __init__(self, array):
            self.array = array
            self.__array_interface__ = array.__array_interface__

    backing = numpy.zeros(4, dtype=numpy.int16)
    dv = lapis.DualView(Exporter(backing))
    dv.fill(-2)
    dv.sync_host()
    numpy.testing.assert_array_equal(backing, [-2] * 4)


def test_scalars_come_back_as_zero_dimensional_arrays():
    dv = lapis.DualView(numpy.array(4.5))
    assert dv.shape == () and dv.ndim == 0 and dv.size == 1
    dv.sync_device()
    dv.modify_device()
    out = dv.asnumpy()
    assert out.shape == () and out[()] == 4.5
    z = lapis.full((), 2, dtype=numpy.int8)
    assert z.asnumpy()[()] == 2


def test_empty_arrays_never_transfer():
    dv = lapis.DualView(numpy.zeros((0, 4)))
    assert dv.size == 0 and dv.nbytes == 0
    with lapis.count_transfers() as t:
        dv.sync_device()
        dv.modify_device()
        out = dv.asnumpy()
    assert t == lapis.TransferStats()
    assert out.shape == (0, 4)
    assert lapis.zeros((3, 0)).asnumpy().shape == (3, 0)


def test_zeros_allocates_the_device_side_only_and_reads_without_copies():
    dv = lapis.zeros((3, 2), dtype=numpy.complex64)
    assert dv.device_allocated
    assert dv.host_allocated == (not APART)
    assert not dv.is_borrowed
    with lapis.count_transfers() as t:
        out = dv.asnumpy()
    assert t == lapis.TransferStats()  # unmodified zeros: the host side is zero-filled, not copied
    assert out.dtype == numpy.complex64 and (out == 0).all()
    assert lapis.zeros(5).dtype == numpy.float64
    assert lapis.zeros(numpy.int64(2)).shape == (2,)


def test_full_fills_on_the_device_and_downloads_once():
    dv = lapis.full((2, 2), 3)
    assert dv.dtype == numpy.asarray(3).dtype
    with lapis.count_transfers() as t:
        numpy.testing.assert_array_equal(dv.asnumpy(), numpy.full((2, 2), 3))
    assert t == counts(d2h=1, d2h_bytes=32)
    half = lapis.full(3, 1.5, dtype=numpy.float16)
    assert half.asnumpy().dtype == numpy.float16
    numpy.testing.assert_array_equal(half.asnumpy(), numpy.full(3, 1.5, numpy.float16))
    numpy.testing.assert_array_equal(lapis.full(2, 1 + 2j).asnumpy(), [1 + 2j, 1 + 2j])
    with pytest.raises(ValueError, match="scalar"):
        lapis.full(3, [1, 2, 3])


@pytest.mark.parametrize("factory", [lapis.zeros, lambda s: lapis.full(s, 1.0)], ids=["zeros", "full"])
def test_bad_shapes(factory):
    with pytest.raises(ValueError, match="negative"):
        factory((2, -1))
    with pytest.raises(TypeError):
        factory((2.5, 1))
    with pytest.raises(TypeError):
        factory("abc")
    with pytest.raises(ValueError, match="too big"):
        factory((2**62, 4))
    with pytest.raises(ValueError, match="rank"):
        factory((1,) * 9)


def test_asdualview_returns_dualviews_unchanged():
    dv = lapis.zeros(3)
    assert lapis.asdualview(dv) is dv
    a = numpy.ones(2)
    wrapped = lapis.asdualview(a)
    assert isinstance(wrapped, lapis.DualView) and wrapped.is_borrowed


def test_numpy_asarray_follows_numpy2_copy_semantics():
    dv = lapis.full(3, 2.0)
    view = numpy.asarray(dv)
    assert not view.flags.writeable
    assert numpy.asarray(dv, copy=False).__array_interface__["data"] == view.__array_interface__["data"]
    copied = numpy.array(dv)
    assert copied.flags.writeable and copied.__array_interface__["data"] != view.__array_interface__["data"]
    converted = numpy.asarray(dv, dtype=numpy.float32)
    assert converted.dtype == numpy.float32
    numpy.testing.assert_array_equal(converted, [2, 2, 2])
    with pytest.raises(ValueError):
        numpy.asarray(dv, dtype=numpy.float32, copy=False)


def test_buffer_protocol_exports_the_host_side_read_only():
    dv = lapis.full((2, 3), 1, dtype=numpy.int16)
    m = memoryview(dv)
    assert m.readonly and m.format == "h" and m.shape == (2, 3) and m.itemsize == 2
    assert m.tolist() == [[1, 1, 1], [1, 1, 1]]
    with pytest.raises(TypeError, match="not writable"):
        ctypes.c_int16.from_buffer(dv)  # asks for a writable buffer
    assert not numpy.frombuffer(dv, dtype=numpy.int16).flags.writeable
    strided = lapis.DualView(numpy.zeros((4, 4))[:, ::2])
    assert memoryview(strided).strides == (32, 16)
    with pytest.raises(BufferError, match="contiguous"):
        numpy.frombuffer(strided)  # asks for a contiguous buffer


def test_asmemref_is_a_typed_memoryview():
    dv = lapis.full((2, 2), 4.0)
    m = dv.asmemref()
    assert isinstance(m, memoryview) and m.readonly and m.format == "d" and m.shape == (2, 2)
    w = dv.asmemref(writable=True)
    assert not w.readonly
    w[0, 1] = 8.0
    assert dv.need_sync_device
    assert dv.asnumpy()[0, 1] == 8.0


def test_repr_shows_shape_dtype_sides_and_modification():
    dv = lapis.DualView(numpy.zeros((2, 3), dtype=numpy.float32))
    text = repr(dv)
    assert "shape=(2, 3)" in text and "dtype=float32" in text and "borrowed" in text
    assert "modified=host" in text  # tracked even where the sides are one memory
    assert ("device=unallocated" in text) == APART
    dv.sync_device()
    assert "device=allocated" in repr(dv) and "modified=none" in repr(dv)


def test_a_dualview_of_a_dualview_shares_its_state():
    dv = lapis.DualView(numpy.arange(4.0))
    other = lapis.DualView(dv)
    other.sync_device()
    assert not dv.need_sync_device and dv.transfers == other.transfers
    other.modify_device()
    assert dv.need_sync_host
    assert numpy.asarray(other).ctypes.data == numpy.asarray(dv).ctypes.data
    copied = lapis.DualView(dv, copy=True)
    copied.modify_host()
    assert not dv.need_sync_device  # a copy has a state of its own
    numpy.testing.assert_array_equal(copied.asnumpy(), numpy.arange(4.0))
    with pytest.raises(TypeError):
        lapis.DualView(lapis.DualView.__new__(lapis.DualView))


@pytest.mark.parametrize("values", [[0.0], [2.5], [], [1.0, 2.0], [[3.0]]], ids=str)
def test_truth_membership_and_numbers_answer_as_numpy_does(values):
    expected = numpy.array(values)
    dv = lapis.DualView(expected.copy())
    dv.sync_device()
    dv.modify_device()  # the answers come from the host side, downloaded as any read downloads it

    def outcome(function, value):
        try:
            return function(value)
        except (ValueError, TypeError) as error:
            return type(error)

    for function in (bool, int, float, complex, list, lambda v: 1.0 in v, lambda v: 2.5 in v):
        assert outcome(function, dv) == outcome(function, expected), function


def test_protocols_of_a_0d_dualview():
    byte = lapis.full((), 55, numpy.uint8)
    assert int(byte) == 55 and float(lapis.full((), 2.5)) == 2.5  # int() read the exported bytes as text
    assert complex(lapis.full((), 1 + 2j)) == 1 + 2j
    assert [1, 2, 3][lapis.full((), 1, numpy.int64)] == 2  # an index, as a 0-d integer array is
    with pytest.raises(TypeError):
        list(lapis.full((), 5.0))  # iteration over a 0-d array
    with pytest.raises(TypeError):
        len(lapis.full((), 5.0))
    assert list(lapis.DualView(numpy.arange(6.0).reshape(3, 2)))[1].tolist() == [2.0, 3.0]
