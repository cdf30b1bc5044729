"""What the tests of lapis.kernels (tests/kernels/) share: the float dtypes, tolerances and checks of a
result against numpy, the kinds of out a kernel writes, layouts of an operand, and the check that bad
input raises before out is written."""
import numpy
import pytest

import lapis

FLOATS = [numpy.float32, numpy.float64]


def tolerance(dtype):
    return dict(rtol=1e-4, atol=1e-4) if dtype == numpy.float32 else dict(rtol=1e-12, atol=1e-12)


def relative_tolerance(dtype):
    """Relative only: for the elementwise kernels, dot and norm, whose results are not near zero."""
    return dict(rtol=1e-5) if dtype == numpy.float32 else dict(rtol=1e-13)


def values(result):
    return result.asnumpy() if isinstance(result, lapis.DualView) else numpy.asarray(result)


def check(result, expected, dtype):
    result = result.asnumpy() if isinstance(result, lapis.DualView) else result
    assert result.dtype == numpy.dtype(dtype) and result.shape == expected.shape
    numpy.testing.assert_allclose(result, expected, **tolerance(dtype))


def close(result, expected, dtype):
    """A layer's DualView result against numpy (the layers of ResNet-18: looser in float64 than check)."""
    assert result.dtype == dtype and result.shape == expected.shape
    tolerance = 1e-4 if dtype == numpy.float32 else 1e-11
    numpy.testing.assert_allclose(result.asnumpy(), expected, rtol=tolerance, atol=tolerance)


def out_variants(shape, dtype):
    """out=None, a numpy array (C and Fortran order, and a strided view), and a DualView."""
    yield None
    yield numpy.full(shape, numpy.nan, dtype=dtype)
    yield numpy.asfortranarray(numpy.full(shape, numpy.nan, dtype=dtype))
    yield numpy.full(tuple(2 * n for n in shape), numpy.nan, dtype=dtype)[tuple(slice(None, None, 2) for _ in shape)]
    yield lapis.full(shape, numpy.nan, dtype=dtype)


def run(kernel, args, kwargs, out):
    result = kernel(*args, **kwargs, out=out)
    if out is None:
        assert isinstance(result, lapis.DualView) and not result.is_borrowed
    else:
        assert result is out
    return result


def strided_layouts(array):
    """array as C order, Fortran order, and a strided part of a larger array (the gemm behind a
    layer takes row- and column-major operands in place and packs any other one first)."""
    yield array
    yield numpy.asfortranarray(array)
    larger = numpy.zeros(tuple(2 * n for n in array.shape), array.dtype)
    part = larger[tuple(slice(None, None, 2) for _ in array.shape)]
    part[...] = array
    yield part


def untouched(out, before):
    numpy.testing.assert_array_equal(out, before)


def raises_before_writing_out(call, error, match):
    """call(out), out a (2, 2) array of 5.0 (or its first row), raises error matching match, out untouched."""
    out = numpy.full((2, 2), 5.0)
    with pytest.raises(error, match=match):
        call(out)
    untouched(out, numpy.full((2, 2), 5.0))


# bad second operands of the elementwise kernels (add and the others, axpby's y), with the error each raises
BAD_OPERANDS = [pytest.param(bad, error, match, id=label) for label, bad, error, match in [
    ("complex", 1 + 2j, TypeError, "complex"),
    ("numpy complex", numpy.complex128(1), TypeError, "unsupported scalar"),
    ("string", "2", TypeError, "expected a numpy array"),
    ("None", None, TypeError, "expected a numpy array"),
    ("length", numpy.ones(4), ValueError, "differ"),
    ("rank", numpy.ones((3, 1)), ValueError, "differ"),
    ("int array", numpy.ones(3, numpy.int64), TypeError, "mixed dtypes"),
    ("rank 5", numpy.ones((1, 1, 1, 1, 3)), ValueError, "differ"),
]]
