"""global_avgpool_nchw against the numpy network of examples/_resnet.py in float32 and float64, and
the empty image it refuses."""
import numpy
import pytest

import lapis.kernels as K
from support.kernel_checks import FLOATS, close
from support.resnet import NumpyOps


@pytest.mark.parametrize("dtype", FLOATS)
def test_global_avgpool_nchw(dtype, rng):
    x = rng.standard_normal((2, 3, 7, 6)).astype(dtype)
    close(K.global_avgpool_nchw(x), NumpyOps.global_avgpool(x), dtype)


@pytest.mark.parametrize("call,error,match", [
    (lambda: K.global_avgpool_nchw(numpy.ones((1, 2, 0, 3))), ValueError, "empty image"),
], ids=["empty image"])
def test_bad_layer_settings(call, error, match):
    with pytest.raises(error, match=match):
        call()
