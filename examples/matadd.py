"""matadd on float32, once allocating and once into the result of the first call (a DualView out:
nothing is transferred)."""
import numpy

import lapis
import lapis.kernels as K
from _example import finish, main, rng


def run():
    r = rng()
    a = r.standard_normal((32, 32)).astype(numpy.float32)
    b = r.standard_normal((32, 32)).astype(numpy.float32)
    with lapis.count_transfers() as t:
        s = K.matadd(a, b)
        K.matadd(a, b, out=s)   # the same values again, written on the device only
        host = s.asnumpy()
    return finish("matadd", host, a + b, t, rtol=1e-5)


main(run)
