"""A sparse matrix as one argument: lapis.CSRMatrix holds data, indices and indptr as DualViews plus
its shape, made from a scipy.sparse matrix when SciPy is installed (else from scipy's (data,
indices, indptr) triple). Five steps of power iteration, y <- A y / |A y|, keep the matrix and the
iterate on the device: the matrix's three arrays and x go up once, the result comes down once."""
import numpy

import lapis
import lapis.kernels as K
from _example import finish, main, rng
from _sparse import csr, random_matrix


def run():
    dense = random_matrix(rng(), 200, 200, 0.05)
    try:
        import scipy.sparse
        source = scipy.sparse.csr_array(dense)
    except ImportError:
        indptr, indices, data = csr(dense)
        source = (data, indices, indptr)
    A = lapis.CSRMatrix(source, shape=dense.shape)
    print(A, "from", type(source).__name__)
    x = numpy.ones(200)
    expected = x
    with lapis.count_transfers() as t:
        y = lapis.DualView(x)
        for _ in range(5):
            Ay = K.spmv(A, y)
            y = K.divide(Ay, K.norm(Ay))
        result = y.asnumpy()
    for _ in range(5):
        expected = dense @ expected
        expected = expected / numpy.linalg.norm(expected)
    return finish("spmv_sparsetensor (power iteration on a CSRMatrix)", result, expected, t)


main(run)
