"""maxpool_nchw with torch.nn.MaxPool2d(3, stride=1, padding=1, dilation=2) semantics."""
import numpy

import lapis
import lapis.kernels as K
from _example import finish, main, rng


def reference(x, k=3, stride=1, padding=1, dilation=2):
    n, c, h, w = x.shape
    ho = (h + 2 * padding - dilation * (k - 1) - 1) // stride + 1
    wo = (w + 2 * padding - dilation * (k - 1) - 1) // stride + 1
    padded = numpy.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)), constant_values=-numpy.inf)
    windows = [padded[:, :, i * dilation:i * dilation + stride * (ho - 1) + 1:stride,
                      j * dilation:j * dilation + stride * (wo - 1) + 1:stride] for i in range(k) for j in range(k)]
    return numpy.max(windows, axis=0)


def run():
    x = rng().standard_normal((2, 3, 16, 16)).astype(numpy.float32)
    with lapis.count_transfers() as t:
        host = K.maxpool_nchw(x).asnumpy()
    return finish("maxpool_nchw", host, reference(x), t, rtol=0)


main(run)
