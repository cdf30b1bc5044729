"""conv2d_nchw against the numpy network of examples/_resnet.py in float32 and float64: with and
without bias, in groups of images, of any layout and of strided parts, and the settings it refuses."""
import numpy
import pytest

import lapis
import lapis.kernels as K
from support.kernel_checks import FLOATS, close, strided_layouts
from support.resnet import NumpyOps


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("x_shape,w_shape,stride,padding", [
    ((2, 3, 9, 9), (4, 3, 3, 3), 1, 1), ((1, 3, 16, 12), (5, 3, 7, 7), 2, 3), ((2, 4, 6, 6), (8, 4, 1, 1), 2, 0),
    ((1, 2, 3, 3), (1, 2, 3, 3), 1, 0), ((0, 2, 4, 4), (3, 2, 3, 3), 1, 1),
], ids=str)
def test_conv2d_nchw(x_shape, w_shape, stride, padding, dtype, rng):
    x, w = rng.standard_normal(x_shape).astype(dtype), rng.standard_normal(w_shape).astype(dtype)
    bias = rng.standard_normal(w_shape[0]).astype(dtype)
    expected = NumpyOps.conv(x, w, stride, padding)
    close(K.conv2d_nchw(x, w, stride=stride, padding=padding), expected, dtype)
    close(K.conv2d_nchw(x, w, bias, stride=stride, padding=padding), expected + bias[:, None, None], dtype)


def test_conv2d_nchw_in_groups_of_images():
    """Images go through im2col and the product in groups whose scratch fits 128 MiB
    (kernels/conv2d_nchw.hpp): three 2000x2000 images of 2 channels take 48 MB each, so they go
    as a group of two and a group of one, each image's values in place."""
    rng = numpy.random.default_rng(3)
    x = rng.standard_normal((3, 2, 2000, 2000)).astype(numpy.float32)
    w, bias = rng.standard_normal((1, 2, 1, 1)).astype(numpy.float32), numpy.array([0.5], numpy.float32)
    expected = numpy.einsum("kc,nchw->nkhw", w[:, :, 0, 0], x) + bias[:, None, None]
    close(K.conv2d_nchw(x, w, bias), expected, numpy.float32)


@pytest.mark.parametrize("dtype", FLOATS)
def test_conv2d_nchw_of_any_layout(dtype, rng):
    x, w = rng.standard_normal((2, 3, 8, 7)).astype(dtype), rng.standard_normal((4, 3, 3, 3)).astype(dtype)
    bias = rng.standard_normal(4).astype(dtype)
    expected = NumpyOps.conv(x, w, 2, 1) + bias[:, None, None]
    for x_layout, w_layout in zip(strided_layouts(x), strided_layouts(w)):
        for out in strided_layouts(numpy.full(expected.shape, numpy.nan, dtype)):
            assert K.conv2d_nchw(x_layout, w_layout, bias, stride=2, padding=1, out=out) is out
            numpy.testing.assert_allclose(out, expected, **({"rtol": 1e-4} if dtype == numpy.float32 else {}))


@pytest.mark.parametrize("dtype", FLOATS)
def test_conv2d_nchw_of_parts_whose_trailing_extents_are_one(dtype, rng):
    """Weights and results that are DualView parts of larger arrays (their device sides strided as
    the whole's) with trailing extents of 1: their (c, r, s) or (p, q) still lie at the stride of
    the last extent longer than 1, not at that of the unit one. The result's 600 pixels an image
    are enough for CUDA's product straight into place (kernels/conv2d_nchw.hpp)."""
    for w_shape, whole_shape, part in [((4, 3, 3, 1), (4, 3, 3, 2), (..., slice(0, 1))),
                                       ((4, 3, 1, 1), (4, 3, 2, 2), (..., slice(0, 1), slice(1, 2)))]:
        x, w = rng.standard_normal((2, 3, 600, 4)).astype(dtype), rng.standard_normal(w_shape).astype(dtype)
        whole = numpy.zeros(whole_shape, dtype)
        whole[part] = w
        w_part = lapis.DualView(whole)[part]
        expected = NumpyOps.conv(x, w, 1, 0)
        close(K.conv2d_nchw(x, w_part), expected, dtype)
    x, w = rng.standard_normal((2, 3, 600, 1)).astype(dtype), rng.standard_normal((5, 3, 1, 1)).astype(dtype)
    results = lapis.zeros((2, 5, 600, 2), dtype=dtype)
    out = results[..., 1:]
    assert K.conv2d_nchw(x, w, out=out) is out
    close(out, NumpyOps.conv(x, w, 1, 0), dtype)
    assert not results.asnumpy()[..., 0].any()  # the other column untouched


@pytest.mark.parametrize("call,error,match", [
    (lambda: K.conv2d_nchw(numpy.ones((1, 2, 5, 5)), numpy.ones((3, 4, 3, 3))), ValueError, "input channels"),
    (lambda: K.conv2d_nchw(numpy.ones((1, 2, 2, 2)), numpy.ones((3, 2, 3, 3))), ValueError, "larger than"),
    (lambda: K.conv2d_nchw(numpy.ones((1, 2, 5, 5)), numpy.ones((3, 2, 3, 3)), stride=0), ValueError, "stride"),
    (lambda: K.conv2d_nchw(numpy.ones((1, 2, 5, 5)), numpy.ones((3, 2, 3, 3)), padding=-1), ValueError, "padding"),
    (lambda: K.conv2d_nchw(numpy.ones((1, 2, 5, 5)), numpy.ones((3, 2, 3, 3)), stride=1.5), TypeError, "stride"),
    (lambda: K.conv2d_nchw(numpy.ones((1, 2, 5, 5)), numpy.ones((3, 2, 3, 3)), numpy.ones(2)), ValueError, "bias"),
    (lambda: K.conv2d_nchw(numpy.ones((1, 2, 5, 5)), numpy.ones((3, 2, 3, 3)), numpy.ones(3, numpy.float32)),
     TypeError, "mixed dtypes"),
], ids=["channels", "kernel too large", "stride 0", "negative padding", "float stride", "bias length", "bias dtype"])
def test_bad_layer_settings(call, error, match):
    with pytest.raises(error, match=match):
        call()
