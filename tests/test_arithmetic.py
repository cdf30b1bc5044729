"""The elementwise kernels with scalars (add, subtract, multiply, divide, axpby), updates in place,
and dot / norm into 0-d DualViews: values against numpy, numpy 2's typing of scalars, and exact
copy counts (a scalar left on the device moves nothing)."""
import operator

import numpy
import pytest

import lapis
import lapis.kernels as K
from conftest import counts

FLOATS = [numpy.float32, numpy.float64]
OPS = {"add": operator.add, "subtract": operator.sub, "multiply": operator.mul, "divide": operator.truediv}


def tolerance(dtype):
    return dict(rtol=1e-5) if dtype == numpy.float32 else dict(rtol=1e-13)


def values(result):
    return result.asnumpy() if isinstance(result, lapis.DualView) else numpy.asarray(result)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (2, 3, 4), (2, 1, 3, 2), (0, 3)], ids=str)
def test_array_and_array(name, shape, dtype, rng):
    x = rng.standard_normal(shape).astype(dtype)
    y = (rng.standard_normal(shape) + 3).astype(dtype)
    result = getattr(K, name)(x, y)
    assert result.dtype == dtype and result.shape == shape
    numpy.testing.assert_allclose(values(result), OPS[name](x, y), **tolerance(dtype))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("kind", ["python float", "python int", "numpy scalar", "0-d array", "0-d DualView"])
def test_scalar_operands_on_either_side(name, kind, dtype, rng):
    x = (rng.standard_normal((3, 4)) + 3).astype(dtype)
    scalar = {"python float": 2.5, "python int": 3, "numpy scalar": dtype(2.5), "0-d array": numpy.array(2.5, dtype),
              "0-d DualView": lapis.full((), 2.5, dtype)}[kind]
    number = float(values(scalar)) if isinstance(scalar, lapis.DualView) else scalar
    fn = getattr(K, name)
    for result, expected in ((fn(x, scalar), OPS[name](x, dtype(number))), (fn(scalar, x), OPS[name](dtype(number), x))):
        assert result.dtype == dtype and result.shape == x.shape
        numpy.testing.assert_allclose(values(result), expected, **tolerance(dtype))


def test_python_numbers_take_the_arrays_dtype_as_in_numpy_2():
    x32 = numpy.ones(3, numpy.float32)
    assert K.multiply(x32, 2.0).dtype == (x32 * 2.0).dtype == numpy.float32
    assert K.add(1.5, 2).dtype == numpy.float64 and K.add(1.5, 2).shape == ()
    assert float(K.add(1.5, 2).asnumpy()) == 3.5
    assert K.divide(True, x32).dtype == numpy.float32


@pytest.mark.parametrize("scalar", [numpy.float64(2.0), numpy.array(2.0), lapis.full((), 2.0), numpy.int64(2)],
                         ids=["numpy float64", "0-d float64 array", "0-d float64 DualView", "numpy int64"])
def test_typed_scalars_of_another_dtype_are_refused(scalar):
    with pytest.raises(TypeError, match="mixed dtypes"):
        K.multiply(numpy.ones(3, numpy.float32), scalar)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("alpha_kind", ["number", "0-d DualView"])
def test_axpby(alpha_kind, dtype, rng):
    x, y = rng.standard_normal((4, 5)).astype(dtype), rng.standard_normal((4, 5)).astype(dtype)
    alpha = -1.5 if alpha_kind == "number" else lapis.full((), -1.5, dtype)
    result = K.axpby(alpha, x, 0.25, y)
    numpy.testing.assert_allclose(values(result), dtype(-1.5) * x + dtype(0.25) * y, **tolerance(dtype))
    numpy.testing.assert_allclose(values(K.axpby(2.0, x, 1.0, 3.0)), 2 * x + 3, **tolerance(dtype))


@pytest.mark.parametrize("bad", [numpy.ones(2), lapis.zeros((1,))], ids=["array", "1-element DualView"])
def test_axpby_scalars_must_be_scalars(bad):
    with pytest.raises(ValueError, match="alpha: expected a scalar"):
        K.axpby(bad, numpy.ones(2), 1.0, numpy.ones(2))
    with pytest.raises(ValueError, match="beta: expected a scalar"):
        K.axpby(1.0, numpy.ones(2), bad, numpy.ones(2))


@pytest.mark.parametrize("bad,error,match", [
    (1 + 2j, TypeError, "complex"),
    (numpy.complex128(1), TypeError, "unsupported scalar"),
    ("2", TypeError, "expected a numpy array"),
    (None, TypeError, "expected a numpy array"),
    (numpy.ones(4), ValueError, "differ"),
    (numpy.ones((3, 1)), ValueError, "differ"),
    (numpy.ones(3, numpy.int64), TypeError, "mixed dtypes"),
    (numpy.ones((1, 1, 1, 1, 3)), ValueError, "differ"),
], ids=["complex", "numpy complex", "string", "None", "length", "rank", "int array", "rank 5"])
@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "axpby"])
def test_bad_operands(name, bad, error, match):
    out = numpy.full(3, 7.0)
    fn = getattr(K, name)
    with pytest.raises(error, match=match):
        if name == "axpby":
            fn(2.0, numpy.ones(3), 1.0, bad, out=out)
        else:
            fn(numpy.ones(3), bad, out=out)
    assert (out == 7.0).all()


def test_rank_5_operands_are_refused_even_alone():
    with pytest.raises(ValueError, match="rank 0 to 4"):
        K.multiply(numpy.ones((1, 1, 1, 1, 2)), 2.0)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "axpby", "matadd"])
def test_in_place_updates_of_a_dualview_move_nothing(name, rng):
    x, y = rng.standard_normal(50), rng.standard_normal(50) + 3
    X, Y = lapis.DualView(x.copy()), lapis.DualView(y.copy())
    X.sync_device(), Y.sync_device()
    with lapis.count_transfers() as t:
        if name == "axpby":
            result = K.axpby(2.0, X, 1.0, Y, out=Y)
            expected = 2 * x + y
        else:
            result = getattr(K, name)(Y, X, out=Y)
            expected = {"matadd": operator.add, **OPS}[name](y, x)
    assert result is Y and t.stats == lapis.TransferStats()
    numpy.testing.assert_allclose(Y.asnumpy(), expected, rtol=1e-13)


def test_in_place_update_of_a_numpy_array_uploads_it_once_and_downloads_it_once():
    a = numpy.arange(6.0).reshape(2, 3)
    with lapis.count_transfers() as t:
        assert K.multiply(a, 2.0, out=a) is a
    numpy.testing.assert_array_equal(a, 2 * numpy.arange(6.0).reshape(2, 3))
    assert t.stats == counts(1, 48, 1, 48)


def test_overlap_that_is_not_the_same_input_is_still_refused():
    a = numpy.arange(6.0)
    with pytest.raises(ValueError, match="overlaps"):
        K.add(a[1:], 1.0, out=a[:-1])
    with pytest.raises(ValueError, match="overlaps"):
        K.add(lapis.DualView(a), 1.0, out=a)  # the same memory under another DualView's state
    numpy.testing.assert_array_equal(a, numpy.arange(6.0))


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
    numpy.testing.assert_allclose(got, x @ y, **tolerance(dtype))
    numpy.testing.assert_allclose(values(n), numpy.linalg.norm(x), **tolerance(dtype))
    numpy.testing.assert_allclose(values(scaled), (x @ y) / numpy.linalg.norm(x) * x, **tolerance(dtype))
    numpy.testing.assert_allclose(K.norm(x), numpy.linalg.norm(x), **tolerance(dtype))


def test_dot_into_a_numpy_0d_out_holds_the_value_on_return():
    out = numpy.array(0.0)
    assert K.dot(numpy.arange(3.0), numpy.arange(3.0), out=out) is out
    assert out == 5.0


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
