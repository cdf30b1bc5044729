"""spmv into a caller's numpy vector; the matrix is wrapped once and stays resident over 3 calls."""
import numpy

import lapis
import lapis.kernels as K
from _example import finish, main, rng
from _sparse import csr, random_matrix


def run():
    r = rng()
    dense = random_matrix(r, 100, 80, 0.05)
    x = r.standard_normal(80)
    indptr, indices, data = (lapis.DualView(part) for part in csr(dense))   # uploaded on first use only
    y = numpy.full(100, numpy.nan)
    with lapis.count_transfers() as t:
        for _ in range(3):
            K.spmv(indptr, indices, data, x, shape=dense.shape, out=y)      # x up and y down, each call
    return finish("spmv_noalloc (3 calls)", y, dense @ x, t)


main(run)
