"""batched_gemm into a caller's (Fortran-ordered) numpy array."""
import numpy

import lapis
import lapis.kernels as K
from _example import finish, main, rng


def run():
    r = rng()
    a, b = r.standard_normal((8, 16, 12)), r.standard_normal((8, 12, 10))
    out = numpy.asfortranarray(numpy.full((8, 16, 10), numpy.nan))
    with lapis.count_transfers() as t:
        K.batched_gemm(a, b, out=out)
    return finish("batched_gemm_no_alloc", out, a @ b, t)


main(run)
