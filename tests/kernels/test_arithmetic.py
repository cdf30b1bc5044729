"""The elementwise kernels add, subtract, multiply, divide and maximum (one C++ kernel, arithmetic):
values against numpy with arrays and scalars, numpy 2's typing of scalars, updates in place with
exact copy counts, maximum as ReLU, and bad operands."""
import operator

import numpy
import pytest

import lapis
import lapis.kernels as K
from conftest import counts
from support.kernel_checks import BAD_OPERANDS, FLOATS, close, relative_tolerance, values
from support.resnet import NumpyOps

OPS = {"add": operator.add, "subtract": operator.sub, "multiply": operator.mul, "divide": operator.truediv}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (2, 3, 4), (2, 1, 3, 2), (0, 3)], ids=str)
def test_array_and_array(name, shape, dtype, rng):
    x = rng.standard_normal(shape).astype(dtype)
    y = (rng.standard_normal(shape) + 3).astype(dtype)
    result = getattr(K, name)(x, y)
    assert result.dtype == dtype and result.shape == shape
    numpy.testing.assert_allclose(values(result), OPS[name](x, y), **relative_tolerance(dtype))


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
        numpy.testing.assert_allclose(values(result), expected, **relative_tolerance(dtype))


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


@pytest.mark.parametrize("bad,error,match", BAD_OPERANDS)
@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide"])
def test_bad_operands(name, bad, error, match):
    out = numpy.full(3, 7.0)
    fn = getattr(K, name)
    with pytest.raises(error, match=match):
        fn(numpy.ones(3), bad, out=out)
    assert (out == 7.0).all()


def test_rank_5_operands_are_refused_even_alone():
    with pytest.raises(ValueError, match="rank 0 to 4"):
        K.multiply(numpy.ones((1, 1, 1, 1, 2)), 2.0)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide"])
def test_in_place_updates_of_a_dualview_move_nothing(name, rng):
    x, y = rng.standard_normal(50), rng.standard_normal(50) + 3
    X, Y = lapis.DualView(x.copy()), lapis.DualView(y.copy())
    X.sync_device(), Y.sync_device()
    with lapis.count_transfers() as t:
        result = getattr(K, name)(Y, X, out=Y)
        expected = OPS[name](y, x)
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


# ---------------------------------------------------------------- maximum, the ReLU of ResNet-18

@pytest.mark.parametrize("dtype", FLOATS)
def test_maximum_as_relu(dtype, rng):
    x = rng.standard_normal((2, 3, 7, 6)).astype(dtype)
    close(K.maximum(x, 0.0), NumpyOps.relu(x), dtype)


def test_maximum_propagates_nan_as_numpy():
    x = numpy.array([numpy.nan, 1.0, -1.0])
    numpy.testing.assert_array_equal(K.maximum(x, 0.0).asnumpy(), numpy.maximum(x, 0.0))
    numpy.testing.assert_array_equal(K.maximum(0.0, x).asnumpy(), numpy.maximum(0.0, x))
