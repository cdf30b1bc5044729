"""gemm into a caller's numpy array: `c` holds the product when the call returns, on every backend."""
import numpy

import lapis
import lapis.kernels as K
from _example import finish, main, rng


def run():
    r = rng()
    a, b = r.standard_normal((64, 32)), r.standard_normal((32, 48))
    c = numpy.full((64, 48), numpy.nan)
    with lapis.count_transfers() as t:
        K.gemm(a, b, out=c)     # uploads a and b; writes the result back into c (its old contents never go up)
    return finish("gemm_no_alloc", c, a @ b, t)


main(run)
