"""dot and norm: values against numpy (unit and wider strides), results into 0-d DualViews that stay
on the device (exact copy counts) or into a 0-d numpy array, and bad input and outputs."""
import numpy
import pytest

import lapis
import lapis.kernels as K
from conftest import counts
from support.kernel_checks import FLOATS, raises_before_writing_out, relative_tolerance, tolerance, values


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [0, 1, 7, 1000])
def test_dot(n, dtype, rng):
    x = rng.standard_normal(n).astype(dtype)
    y = rng.standard_normal(n).astype(dtype)
    result = K.dot(x, y)
    assert isinstance(result, float)
    numpy.testing.assert_allclose(result, numpy.dot(x.astype(numpy.float64), y), **tolerance(dtype))
    numpy.testing.assert_allclose(K.dot(lapis.DualView(x[::-1].copy()), x[::-1]), x.astype(numpy.float64) @ x,
                                  **tolerance(dtype))


@pytest.mark.parametrize("step", [1, 3])
@pytest.mark.parametrize("n", [7, 8, 9, 4103, 100_003])
def test_dot_over_unit_and_wider_strides(n, step):
    """Host reductions sum in blocks of 8 partial sums, over the views seen without their stride
    where it is 1 (execution/reduction.hpp, execution/unit_stride.hpp): lengths that are not whole
    blocks, and strided parts, give numpy's value."""
    rng = numpy.random.default_rng(n)
    x, y = rng.standard_normal(n * step), rng.standard_normal(n * step)
    X, Y = lapis.DualView(x)[::step], lapis.DualView(y)[::step]
    numpy.testing.assert_allclose(K.dot(X, Y), x[::step] @ y[::step], rtol=1e-12)
    numpy.testing.assert_allclose(K.dot(X, Y, out=lapis.empty(())).asnumpy(), x[::step] @ y[::step], rtol=1e-12)


@pytest.mark.parametrize("dtype", FLOATS)
def test_dot_and_norm_into_0d_dualviews_stay_on_the_device(dtype, rng):
    x, y = rng.standard_normal(100).astype(dtype), rng.standard_normal(100).astype(dtype)
    X, Y = lapis.DualView(x), lapis.DualView(y)
    X.sync_device(), Y.sync_device()
    with lapis.count_transfers() as t:
        d = K.dot(X, Y, out=lapis.empty((), dtype))
        n = K.norm(X, out=lapis.empty((), dtype))
        ratio = K.divide(d, n)                  # 0-d from 0-d operands, on the device
        scaled = K.multiply(ratio, X)           # a device scalar broadcast over an array
    assert t.stats == lapis.TransferStats()
    assert d.shape == n.shape == ratio.shape == () and d.dtype == n.dtype == dtype
    assert not d.host_allocated or not d.need_sync_device
    with lapis.count_transfers() as t:
        got = float(d.asnumpy())
    assert t.stats == counts(0, 0, 1, numpy.dtype(dtype).itemsize)
    numpy.testing.assert_allclose(got, x @ y, **relative_tolerance(dtype))
    numpy.testing.assert_allclose(values(n), numpy.linalg.norm(x), **relative_tolerance(dtype))
    numpy.testing.assert_allclose(values(scaled), (x @ y) / numpy.linalg.norm(x) * x, **relative_tolerance(dtype))
    numpy.testing.assert_allclose(K.norm(x), numpy.linalg.norm(x), **relative_tolerance(dtype))


def test_dot_into_a_numpy_0d_out_holds_the_value_on_return():
    out = numpy.array(0.0)
    assert K.dot(numpy.arange(3.0), numpy.arange(3.0), out=out) is out
    assert out == 5.0


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("call,error,match", [
    (lambda out: K.dot(numpy.ones(3), numpy.ones(4)), ValueError, "lengths"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_bad_input_raises_before_writing_out(call, error, match):
    raises_before_writing_out(call, error, match)


@pytest.mark.parametrize("out,error,match", [
    (lapis.empty((1,)), ValueError, "out: expected a 0-dimensional"),
    (lapis.empty((), numpy.float32), TypeError, "out: dtype"),
    ([0.0], TypeError, "out"),
], ids=["rank 1", "float32", "list"])
def test_dot_and_norm_bad_out(out, error, match):
    with pytest.raises(error, match=match):
        K.dot(numpy.ones(3), numpy.ones(3), out=out)
    with pytest.raises(error, match=match):
        K.norm(numpy.ones(3), out=out)


@pytest.mark.parametrize("bad,error", [(numpy.ones((2, 2)), ValueError), (numpy.ones(3, numpy.int32), TypeError),
                                       ([1.0, 2.0], TypeError), (2.0, TypeError)],
                         ids=["matrix", "int32", "list", "number"])
def test_norm_bad_input(bad, error):
    with pytest.raises(error, match="norm"):
        K.norm(bad)
