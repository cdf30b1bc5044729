"""spmm_dcsr: a doubly compressed sparse matrix (empty rows not stored) times a dense matrix."""
import lapis
import lapis.kernels as K
from _example import finish, main, rng
from _sparse import dcsr, random_matrix


def run():
    r = rng()
    dense = random_matrix(r, 60, 40, 0.1)
    b = r.standard_normal((40, 8))
    rows, indptr, indices, data = dcsr(dense)
    with lapis.count_transfers() as t:
        host = K.spmm_dcsr(rows, indptr, indices, data, b, shape=dense.shape).asnumpy()
    return finish("spmm_dcsr", host, dense @ b, t)


main(run)
