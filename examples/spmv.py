"""spmv (CSR) with an allocating call."""
import lapis
import lapis.kernels as K
from _example import finish, main, rng
from _sparse import csr, random_matrix


def run():
    r = rng()
    dense = random_matrix(r, 100, 80, 0.05)
    x = r.standard_normal(80)
    indptr, indices, data = csr(dense)
    with lapis.count_transfers() as t:
        host = K.spmv(indptr, indices, data, x, shape=dense.shape).asnumpy()
    return finish("spmv", host, dense @ x, t)


main(run)
