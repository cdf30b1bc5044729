"""What a CuPy or PyTorch user reaches for first: len(), __version__, empty/ones/*_like, copy() and
astype() on the side that holds the data, and a repr that shows values only where the host side
holds them (a repr never copies)."""
import importlib.metadata
import pathlib

import numpy
import pytest

import lapis
import lapis.kernels as K
from conftest import APART, counts


def test_version_is_the_runtimes_and_the_installed_distributions():
    assert lapis.__version__ == lapis.runtime_info()["lapis_version"]
    try:
        installed = importlib.metadata.version("lapis-dualview")
    except importlib.metadata.PackageNotFoundError:
        # lapis runs from a build's staged install (scripts/gpu-check.sh): no metadata beside it
        assert not list(pathlib.Path(lapis.__file__).parents[1].glob("lapis_dualview-*.dist-info"))
        return
    assert lapis.__version__ == installed


def test_len_is_the_first_extent():
    assert len(lapis.zeros((4, 2))) == 4
    assert len(lapis.zeros(0)) == 0
    with pytest.raises(TypeError, match="0-d"):
        len(lapis.zeros(()))


@pytest.mark.parametrize("make, value", [(lapis.ones, 1), (lapis.zeros, 0)])
def test_ones_and_zeros_are_filled_on_the_device(make, value):
    with lapis.count_transfers() as moved:
        dv = make((2, 3), numpy.int32)
        assert dv.dtype == numpy.int32 and dv.shape == (2, 3)
        assert not dv.host_allocated or not APART
        numpy.testing.assert_array_equal(dv.asnumpy(), numpy.full((2, 3), value, numpy.int32))
    assert moved == counts(0, 0, 1 if value else 0, 24 if value else 0)  # zeros' host side is zeroed, not copied


def test_empty_allocates_nothing_until_used_and_serves_as_an_out():
    dv = lapis.empty((3, 4), numpy.float32)
    assert (dv.shape, dv.dtype, dv.host_allocated, dv.device_allocated) == ((3, 4), numpy.float32, False, False)
    a = numpy.ones((3, 4), numpy.float32)
    with lapis.count_transfers() as moved:
        K.matadd(a, a, out=dv)
    assert moved == counts(1, 48)  # a's upload only: nothing of dv's moves
    numpy.testing.assert_array_equal(dv.asnumpy(), 2 * a)


@pytest.mark.parametrize("prototype", [numpy.zeros((2, 5), numpy.int16), lapis.zeros((2, 5), numpy.int16)],
                         ids=["numpy", "dualview"])
def test_like_functions_take_shape_and_dtype_from_the_prototype(prototype):
    for made, value in ((lapis.zeros_like(prototype), 0), (lapis.ones_like(prototype), 1),
                        (lapis.full_like(prototype, 7), 7)):
        assert made.shape == (2, 5) and made.dtype == numpy.int16
        numpy.testing.assert_array_equal(made.asnumpy(), numpy.full((2, 5), value, numpy.int16))
    assert lapis.empty_like(prototype).shape == (2, 5)
    other = lapis.full_like(prototype, 0.5, dtype=numpy.float32, shape=(3,))
    assert other.shape == (3,) and other.dtype == numpy.float32 and other.asnumpy().tolist() == [0.5] * 3
    assert lapis.zeros_like(prototype, shape=4).shape == (4,)


@pytest.mark.parametrize("call, error", [
    (lambda: lapis.empty(-1), ValueError),
    (lambda: lapis.empty("3"), TypeError),
    (lambda: lapis.ones(2, dtype=object), TypeError),
    (lambda: lapis.zeros_like(object()), TypeError),
    (lambda: lapis.full_like(numpy.zeros(2), [1, 2]), ValueError),
])
def test_bad_arguments_are_refused(call, error):
    with pytest.raises(error):
        call()


def test_repr_shows_values_only_where_the_host_side_holds_them():
    dv = lapis.DualView(numpy.arange(6.0).reshape(2, 3))
    assert "values=[[0., 1., 2.],\n" in repr(dv) and "[3., 4., 5.]]" in repr(dv)
    result = K.matadd(dv, dv)
    with lapis.count_transfers() as moved, lapis.transfer_guard("disallow"):
        text = repr(result)
    assert moved == counts()
    if APART:
        assert "values=(the host side is not allocated)" in text
        result.sync_host()
        result.modify_device()
        assert "values=(the device side is newer" in repr(result)
    result.sync_host()
    assert "[ 6.,  8., 10.]]" in repr(result)
    long = repr(lapis.DualView(numpy.arange(100)))
    assert "values=[ 0,  1,  2, ..., 97, 98, 99]" in long


def test_copy_is_made_on_the_side_that_holds_the_data():
    resident = K.matadd(lapis.full((3, 4), 1.5), lapis.full((3, 4), 1.0))  # current on the device only
    with lapis.count_transfers() as moved:
        copied = resident.copy()
    assert moved == counts()
    assert copied.need_sync_host  # made on the device (flags are kept where the sides alias too)
    copied.fill(0.0)  # an independent array
    numpy.testing.assert_array_equal(resident.asnumpy(), numpy.full((3, 4), 2.5))
    host = numpy.arange(12.0).reshape(3, 4)
    with lapis.count_transfers() as moved:
        on_host = lapis.DualView(host).copy()  # the host side is the current one: copied there
    assert moved == counts() and on_host.need_sync_device
    host[0, 0] = 99.0
    numpy.testing.assert_array_equal(on_host.asnumpy(), numpy.arange(12.0).reshape(3, 4))


@pytest.mark.parametrize("source, target", [
    (numpy.float64, numpy.float32), (numpy.float64, numpy.int32), (numpy.int64, numpy.float64),
    (numpy.int16, numpy.uint8), (numpy.float32, numpy.bool_), (numpy.bool_, numpy.float64),
    (numpy.uint32, numpy.int64), (numpy.complex128, numpy.complex128), (numpy.float16, numpy.float16),
])
def test_astype_converts_as_numpy_does_on_either_side(source, target):
    values = numpy.array([[0, 1, -2, 3], [4, -5, 6, 127]]).astype(source)
    on_device = lapis.DualView(values)
    on_device.sync_device()
    on_device.modify_device()  # the device side is the newer one now
    for dv in (on_device, lapis.DualView(values), lapis.DualView(numpy.asfortranarray(values))[:, 1:]):
        with lapis.count_transfers() as moved:
            converted = dv.astype(target)
        assert moved == counts() and converted.dtype == target
        expected = values.astype(target) if dv.shape == values.shape else values[:, 1:].astype(target)
        numpy.testing.assert_array_equal(converted.asnumpy(), expected)
        assert converted.asnumpy().flags.c_contiguous


def test_astype_without_copy_returns_itself_only_when_nothing_changes():
    dv = lapis.zeros(3)
    assert dv.astype(numpy.float64, copy=False) is dv
    assert dv.astype(numpy.float64) is not dv
    assert dv.astype(numpy.float32, copy=False).dtype == numpy.float32


@pytest.mark.parametrize("source, target, error", [
    (numpy.complex64, numpy.float32, ValueError), (numpy.float64, numpy.complex128, ValueError),
    (numpy.float16, numpy.float32, ValueError), (numpy.float64, object, TypeError),
])
def test_astype_refuses_what_it_does_not_convert(source, target, error):
    with pytest.raises(error):
        lapis.DualView(numpy.ones(2, source)).astype(target)


SPECIAL = numpy.array([numpy.nan, numpy.inf, -numpy.inf, -1.0, -3.7, 3.7, 255.9, 256.0, 2.0**31, 2.0**32 + 5,
                       2.0**63, 2.0**64, -2.0**63, 1e30, -1e30])


@pytest.mark.parametrize("target", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"])
@pytest.mark.parametrize("source", ["float32", "float64"])
def test_float_to_integer_conversion_is_stated_exactly(source, target):
    """numpy's values wherever they follow from the numbers (truncation toward zero, then the integer
    wrapped into the target's range), lapis's stated rule (0) where numpy's come from its build's
    instructions: NaN, infinities and what lies beyond int64's range (for uint64, below int64's or
    beyond uint64's)."""
    values = SPECIAL.astype(source)
    result = lapis.DualView(values).astype(target).asnumpy()
    limit = 2.0**64 if target == "uint64" else 2.0**63
    stated = (values >= -2.0**63) & (values < limit)
    with numpy.errstate(invalid="ignore"):
        truncated = numpy.trunc(values[stated].astype(numpy.float64))
    wrapped = [int(v) % 2**64 if target == "uint64" else int(v) for v in truncated]
    expected = numpy.array(wrapped, dtype=numpy.uint64 if target == "uint64" else numpy.int64).astype(target)
    numpy.testing.assert_array_equal(result[stated], expected)
    assert (result[~stated] == 0).all()


def test_transfer_stats_pickle_as_values():
    import pickle
    stats = lapis.TransferStats(1, 8, 2, 16)
    again = pickle.loads(pickle.dumps(stats))
    assert again == stats and isinstance(again, lapis.TransferStats) and hash(again) == hash(stats)
