"""linear against the numpy network of examples/_resnet.py in float32 and float64, of any layout of
its operands and out."""
import numpy
import pytest

import lapis.kernels as K
from support.kernel_checks import FLOATS, close, strided_layouts
from support.resnet import NumpyOps


@pytest.mark.parametrize("dtype", FLOATS)
def test_linear(dtype, rng):
    f, weight, bias = (rng.standard_normal(s).astype(dtype) for s in ((4, 5), (6, 5), 6))
    close(K.linear(f, weight, bias), NumpyOps.linear(f, weight, bias), dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_linear_of_any_layout(dtype, rng):
    x, weight, bias = (rng.standard_normal(s).astype(dtype) for s in ((4, 5), (6, 5), 6))
    expected = NumpyOps.linear(x, weight, bias)
    for x_layout in strided_layouts(x):
        for weight_layout in strided_layouts(weight):
            for out in strided_layouts(numpy.full(expected.shape, numpy.nan, dtype)):
                assert K.linear(x_layout, weight_layout, bias, out=out) is out
                numpy.testing.assert_allclose(out, expected, **({"rtol": 1e-4} if dtype == numpy.float32 else {}))
