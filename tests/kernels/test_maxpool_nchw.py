"""maxpool_nchw: values against numpy for every kind of out and against ResNet-18's numpy layer,
padding and NaN, and bad input and settings."""
import numpy
import pytest

import lapis.kernels as K
from support import references as ref
from support.kernel_checks import FLOATS, check, close, out_variants, raises_before_writing_out, run
from support.resnet import NumpyOps


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,params", [
    ((1, 1, 3, 3), {}),
    ((2, 3, 9, 11), {}),
    ((1, 2, 8, 8), dict(kernel_size=2, stride=2, padding=0, dilation=1)),
    ((2, 1, 10, 7), dict(kernel_size=3, stride=2, padding=1, dilation=1)),
    ((1, 1, 12, 12), dict(kernel_size=4, stride=3, padding=2, dilation=2)),
], ids=str)
def test_maxpool_nchw(shape, params, dtype, rng):
    x = rng.standard_normal(shape).astype(dtype)
    expected = ref.maxpool_nchw(x, **params)
    for out in out_variants(expected.shape, dtype):
        check(run(K.maxpool_nchw, (x,), params, out), expected, dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_maxpool_nchw_as_resnet_18s_layer(dtype, rng):
    x = rng.standard_normal((2, 3, 7, 6)).astype(dtype)
    close(K.maxpool_nchw(x, kernel_size=3, stride=2, padding=1, dilation=1), NumpyOps.maxpool(x), dtype)


def test_maxpool_padding_never_wins_and_nan_propagates():
    x = -numpy.ones((1, 1, 5, 5))  # all negative: a zero pad would win if it were counted
    assert (K.maxpool_nchw(x).asnumpy() == -1).all()
    x[0, 0, 2, 2] = numpy.nan
    numpy.testing.assert_array_equal(K.maxpool_nchw(x).asnumpy(), ref.maxpool_nchw(x))


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("call,error,match", [
    (lambda out: K.maxpool_nchw(numpy.ones((1, 1, 1, 1)), out=out), ValueError, "too small"),
    (lambda out: K.maxpool_nchw(numpy.ones((1, 1, 5, 5)), padding=2, out=out), ValueError, "half"),
    (lambda out: K.maxpool_nchw(numpy.ones((1, 1, 5, 5)), stride=0, out=out), ValueError, "positive"),
    (lambda out: K.maxpool_nchw(numpy.ones((1, 5, 5)), out=out), ValueError, "4-dimensional"),
    (lambda out: K.maxpool_nchw(numpy.ones((1, 1, 5, 5)), kernel_size=2.5, out=out), TypeError, "kernel_size"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_bad_input_raises_before_writing_out(call, error, match):
    raises_before_writing_out(call, error, match)


@pytest.mark.parametrize("setting", ["kernel_size", "stride", "padding", "dilation"])
def test_integer_settings_take_ints_only(setting):
    x = numpy.ones((1, 1, 5, 5))
    with pytest.raises(TypeError, match=setting):
        K.maxpool_nchw(x, **{setting: True})
    with pytest.raises(ValueError, match=setting):
        K.maxpool_nchw(x, **{setting: 2**70})
