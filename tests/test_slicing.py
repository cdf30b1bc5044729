"""Basic slicing (dv[1:3, ::2], dv[0], dv[..., -1]) and reshape(): DualViews of part of another,
sharing its state under the whole-allocation rule (the C++ subview's): marking, syncing and counting
are the whole array's, so syncing one part never loses another part's pending change."""
import gc

import numpy
import pytest

import lapis
import lapis.kernels as K
from conftest import APART, counts


def grid():
    return numpy.arange(24.0).reshape(4, 6)


@pytest.mark.parametrize("key", [
    (slice(1, 3), slice(None, None, 2)), 0, -1, (Ellipsis, -1), (2, 3), (slice(None), 4), slice(10, 20),
    (slice(1, 1),), (Ellipsis,), (numpy.int64(1), slice(-4, None)),
], ids=str)
def test_slices_see_what_numpy_sees_and_copy_nothing(key):
    host = grid()
    dv = lapis.DualView(host)
    with lapis.count_transfers() as moved:
        part = dv[key]
    assert moved == counts()
    expected = host[key]
    assert part.shape == expected.shape and part.dtype == host.dtype
    numpy.testing.assert_array_equal(part.asnumpy(), expected)
    assert numpy.shares_memory(part.asnumpy(), host) == (expected.size > 0)  # the borrowed host side itself


def test_a_part_shares_the_whole_state_and_a_sibling_change_is_never_lost():
    dv = lapis.zeros((4, 6))
    top, bottom = dv[:2], dv[2:]
    top.asnumpy(writable=True)[0, 0] = 1.0
    bottom.asnumpy(writable=True)[1, 5] = 2.0
    assert dv.need_sync_device and top.need_sync_device and bottom.need_sync_device
    with lapis.count_transfers() as moved:
        top.sync_device()  # the whole allocation, once
    assert moved == counts(1, 192)
    assert not bottom.need_sync_device
    assert K.dot(dv.reshape(-1), numpy.ones(24)) == 3.0  # both changes reached the device
    assert top.transfers == dv.transfers


def test_kernels_read_and_write_parts_in_place():
    dv = lapis.DualView(grid())
    dv.sync_device()
    with lapis.count_transfers() as moved:
        column = K.matadd(dv[:, 1], dv[:, 2])  # strided inputs, read on the device
        K.matadd(dv[0], dv[1], out=dv[3])  # a part as out: the rest of dv is kept
    assert moved == counts()
    numpy.testing.assert_array_equal(column.asnumpy(), grid()[:, 1] + grid()[:, 2])
    expected = grid()
    expected[3] = expected[0] + expected[1]
    numpy.testing.assert_array_equal(dv.asnumpy(), expected)


def test_writing_a_part_on_the_device_syncs_the_rest_first():
    dv = lapis.DualView(grid())  # host side modified, device side stale
    with lapis.count_transfers() as moved:
        dv[1].fill(-1.0)
    assert moved == counts(1, 192)  # the rest of the array went up first
    expected = grid()
    expected[1] = -1.0
    numpy.testing.assert_array_equal(dv.asnumpy(), expected)


def test_a_kernel_overwriting_a_whole_reshape_uploads_nothing_of_it():
    dv = lapis.DualView(numpy.zeros((2, 3)))  # host side modified
    a = lapis.full(6, 2.0)
    with lapis.count_transfers() as moved:
        K.matadd(a, a, out=dv.reshape(6))
    assert moved == counts()  # its old contents are overwritten, never uploaded
    numpy.testing.assert_array_equal(dv.asnumpy(), numpy.full((2, 3), 4.0))


def test_reshape_shares_the_state_and_needs_contiguous_sides():
    dv = lapis.DualView(grid())
    flat = dv.reshape(-1)
    assert flat.shape == (24,) and dv.reshape(2, 3, 4).shape == (2, 3, 4) and dv.reshape((3, 8)).shape == (3, 8)
    assert dv[0, 0].reshape(()).shape == () and dv[0, 0].reshape(1, 1).shape == (1, 1)
    flat.fill(5.0)
    assert dv.need_sync_host
    numpy.testing.assert_array_equal(dv.asnumpy(), numpy.full((4, 6), 5.0))
    with pytest.raises(ValueError, match="C-contiguous"):
        dv[:, 1].reshape(4)
    with pytest.raises(ValueError, match="element counts"):
        dv.reshape(5, 5)
    with pytest.raises(ValueError, match="-1"):
        dv.reshape(-1, -1)
    with pytest.raises(ValueError, match="-1"):
        dv.reshape(-1, 7)
    with pytest.raises(TypeError):
        dv.reshape(2.0, 12)


@pytest.mark.parametrize("key", [slice(7, 3), slice(-1, 0), slice(5, 2, 3), slice(0, 10, 2**63 - 1), slice(None, None, 2**64),
                                 slice(3, None, 2**70), slice(-2**70, 2**70), slice(2**64, None)], ids=str)
def test_reversed_empty_and_huge_slices_select_what_numpy_selects(key):
    base = numpy.arange(10.0)
    part = lapis.DualView(base)[key]
    assert part.shape == base[key].shape
    numpy.testing.assert_array_equal(part.asnumpy(), base[key])


@pytest.mark.parametrize("call, error", [
    (lambda dv: dv[2**64], IndexError), (lambda dv: dv[-2**64], IndexError), (lambda dv: dv[0, 2**63], IndexError),
    (lambda dv: dv.reshape(2**63), ValueError), (lambda dv: dv.reshape(-2**70), ValueError),
    (lambda dv: dv.reshape(True, 40), TypeError), (lambda dv: dv[::-2**64], ValueError),
])
def test_integers_beyond_64_bits_are_index_and_value_errors(call, error):
    with pytest.raises(error):
        call(lapis.zeros((4, 10)))


@pytest.mark.parametrize("key, error", [
    (4, IndexError), (-5, IndexError), ((0, 6), IndexError), ((0, 0, 0), IndexError),
    ((Ellipsis, Ellipsis), IndexError), (None, IndexError), ([0, 1], IndexError), (True, IndexError),
    (slice(None, None, -1), ValueError), (slice(None, None, 0), ValueError), ("a", IndexError),
])
def test_bad_indices_are_refused(key, error):
    with pytest.raises(error):
        lapis.zeros((4, 6))[key]


def test_a_part_keeps_borrowed_memory_alive():
    dv = lapis.DualView(grid())
    part = dv[1:3]
    del dv
    gc.collect()
    numpy.testing.assert_array_equal(part.asnumpy(), grid()[1:3])
