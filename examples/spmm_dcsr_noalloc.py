"""spmm_dcsr into a caller's preallocated numpy array (the seed's failing "spmm" case)."""
import numpy

import lapis
import lapis.kernels as K
from _example import finish, main, rng
from _sparse import dcsr, random_matrix


def run():
    r = rng()
    dense = random_matrix(r, 60, 40, 0.1)
    b = r.standard_normal((40, 8))
    out = numpy.full((60, 8), numpy.nan)
    rows, indptr, indices, data = dcsr(dense)
    with lapis.count_transfers() as t:
        K.spmm_dcsr(rows, indptr, indices, data, b, shape=dense.shape, out=out)
    return finish("spmm_dcsr_noalloc", out, dense @ b, t)


main(run)
