"""matadd: values against numpy for every kind of out, its uploads and updates in place (exact
copy counts), calls queued in order, and bad input."""
import numpy
import pytest

import lapis
import lapis.kernels as K
from conftest import counts
from support.kernel_checks import FLOATS, check, out_variants, raises_before_writing_out, run


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(1,), (17,), (3, 5), (2, 3, 4), (2, 1, 3, 5), (0, 4), (3, 0, 2)], ids=str)
def test_matadd(shape, dtype, rng):
    a = rng.standard_normal(shape).astype(dtype)
    b = rng.standard_normal(shape).astype(dtype)
    for out in out_variants(shape, dtype):
        check(run(K.matadd, (a, b), {}, out), a + b, dtype)
    check(K.matadd(numpy.asfortranarray(a), b), a + b, dtype)


def test_the_same_numpy_array_twice_is_uploaded_once():
    a = numpy.ones((5, 5))
    with lapis.count_transfers() as t:
        K.matadd(a, a)
    assert t == counts(1, a.nbytes)


def test_in_place_update_of_a_dualview_moves_nothing(rng):
    x, y = rng.standard_normal(50), rng.standard_normal(50) + 3
    X, Y = lapis.DualView(x.copy()), lapis.DualView(y.copy())
    X.sync_device(), Y.sync_device()
    with lapis.count_transfers() as t:
        result = K.matadd(Y, X, out=Y)
        expected = y + x
    assert result is Y and t.stats == lapis.TransferStats()
    numpy.testing.assert_allclose(Y.asnumpy(), expected, rtol=1e-13)


def test_queued_kernels_run_in_call_order():
    # Calls return once their kernel is queued; each reads what the one before it wrote.
    ones = lapis.full((128, 128), 1.0)
    x, y = lapis.zeros((128, 128)), lapis.zeros((128, 128))
    for _ in range(50):
        K.matadd(x, ones, out=y)
        K.matadd(y, ones, out=x)
    assert lapis.fence() is None
    numpy.testing.assert_array_equal(x.asnumpy(), numpy.full((128, 128), 100.0))


@pytest.mark.parametrize("call,error,match", [
    (lambda out: K.matadd(numpy.ones((2, 2)), numpy.ones((2, 3)), out=out), ValueError, "differ"),
    (lambda out: K.matadd(numpy.ones((1,) * 5), numpy.ones((1,) * 5), out=out), ValueError, "4-dimensional"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_bad_input_raises_before_writing_out(call, error, match):
    raises_before_writing_out(call, error, match)
