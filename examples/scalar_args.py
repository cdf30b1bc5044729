"""Scalars as kernel arguments, typed as NumPy 2 types them. A Python number is passed by value
(nothing moves) and takes the arrays' dtype, so float32 data stays float32; a NumPy scalar or 0-d
array is typed and must match (a 0-d numpy array goes up like any array: one item); a 0-d DualView
that a kernel left on the device is read there. Computes y = 0.5 * x + shift for float32 x, then
scales it by |x|, a norm that never leaves the device."""
import numpy

import lapis
import lapis.kernels as K
from _example import finish, main, rng


def run():
    x_host = rng().standard_normal(1000).astype(numpy.float32)
    shift = numpy.array(2.0, numpy.float32)                   # a 0-d array: typed float32
    x = lapis.DualView(x_host)
    with lapis.count_transfers() as t:
        y = K.axpby(0.5, x, 1.0, K.add(0.0, shift))              # Python numbers: weak, by value
        norm = K.norm(x, out=lapis.empty((), numpy.float32))   # a 0-d result left on the device
        scaled = K.multiply(norm, y)                            # read where it is: nothing moves
        result = scaled.asnumpy()
    try:
        K.multiply(numpy.float64(2.0), x)
        print("MISMATCH: a float64 scalar was narrowed silently")
        return 1
    except TypeError as refused:
        print(f"refused as expected: {refused}")
    print(f"result dtype {result.dtype} (Python numbers took the arrays' float32)")
    if result.dtype != numpy.float32:
        print("MISMATCH: the result is not float32")
        return 1
    expected = numpy.linalg.norm(x_host) * (numpy.float32(0.5) * x_host + shift)
    return finish("scalar_args (|x| * (0.5 x + shift), float32)", result, expected, t, rtol=1e-5)


main(run)
