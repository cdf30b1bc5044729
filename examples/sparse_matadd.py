"""Sparse + sparse -> sparse, the result's size found on the device: sparse_matadd counts each
row's entries there, one number (the total) comes to the host to size the result, and the result
(a CSRMatrix) stays on the device. Checked against the dense sum; the result's rows are sorted and
duplicate-free."""
import numpy

import lapis
import lapis.kernels as K
from _example import finish, main, rng
from _sparse import csr, random_matrix


def run():
    r = rng()
    a_dense, b_dense = random_matrix(r, 60, 50, 0.1), random_matrix(r, 60, 50, 0.1)
    a_dense[5, :10] = 1.0   # rows where the two share columns
    b_dense[5, 5:15] = 2.0
    A = lapis.CSRMatrix(csr(a_dense)[::-1], shape=a_dense.shape)   # (data, indices, indptr)
    B = lapis.CSRMatrix(csr(b_dense)[::-1], shape=b_dense.shape)
    with lapis.count_transfers() as t:
        C = K.sparse_matadd(A, B)
        on_device = not C.indices.host_allocated and not C.data.host_allocated
        indptr, indices, data = C.indptr.asnumpy(), C.indices.asnumpy(), C.data.asnumpy()
    print(f"{C}; result left on the device until read: {on_device}")
    canonical = all((numpy.diff(indices[indptr[i]:indptr[i + 1]]) > 0).all() for i in range(C.shape[0]))
    if not canonical:
        print("MISMATCH: a row of the result is unsorted or has duplicates")
        return 1
    dense = numpy.zeros(C.shape)
    dense[numpy.repeat(numpy.arange(C.shape[0]), numpy.diff(indptr)), indices] = data
    return finish("sparse_matadd", dense, a_dense + b_dense, t)


main(run)
