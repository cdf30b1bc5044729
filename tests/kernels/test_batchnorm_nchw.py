"""batchnorm_nchw against the numpy network of examples/_resnet.py in float32 and float64, in place
and not (exact copy counts), and the settings it refuses."""
import numpy
import pytest

import lapis
import lapis.kernels as K
from conftest import counts
from support.kernel_checks import FLOATS, close
from support.resnet import NumpyOps


@pytest.mark.parametrize("dtype", FLOATS)
def test_batchnorm_nchw_in_place_and_not(dtype, rng):
    x = rng.standard_normal((2, 3, 4, 5)).astype(dtype)
    w = {f"bn.{k}": v.astype(dtype) for k, v in (("weight", rng.standard_normal(3)), ("bias", rng.standard_normal(3)),
                                                 ("running_mean", rng.standard_normal(3)),
                                                 ("running_var", rng.random(3) + 0.5))}
    expected = NumpyOps().batchnorm(x, w, "bn")
    args = (w["bn.running_mean"], w["bn.running_var"], w["bn.weight"], w["bn.bias"])
    close(K.batchnorm_nchw(x, *args), expected, dtype)
    X = lapis.DualView(x.copy())
    X.sync_device()
    with lapis.count_transfers() as t:
        assert K.batchnorm_nchw(X, *(lapis.DualView(a) for a in args), out=X) is X
    assert t.stats == counts(4, 4 * 3 * x.itemsize)  # the four channel vectors; X is updated in place
    close(X, expected, dtype)


@pytest.mark.parametrize("call,error,match", [
    (lambda: K.batchnorm_nchw(numpy.ones((1, 2, 3, 3)), *[numpy.ones(2)] * 4, eps=-1.0), ValueError, "eps"),
    (lambda: K.batchnorm_nchw(numpy.ones((1, 2, 3, 3)), *[numpy.ones(2)] * 4, eps="1"), TypeError, "eps"),
], ids=["negative eps", "string eps"])
def test_bad_layer_settings(call, error, match):
    with pytest.raises(error, match=match):
        call()
