"""sparse_matadd: the sum of two CSR matrices against numpy (the union of their structures, canonical
and left on the device), from scipy matrices, and its bad input."""
import numpy
import pytest

import lapis
import lapis.kernels as K
from conftest import APART, counts


def random_csr(rng, shape, density, dtype=numpy.float64, index_dtype=numpy.int64):
    dense = rng.standard_normal(shape).astype(dtype)
    dense[rng.random(shape) > density] = 0
    rows, columns = numpy.nonzero(dense)
    indptr = numpy.concatenate([[0], numpy.cumsum((dense != 0).sum(axis=1))]).astype(index_dtype)
    return dense, lapis.CSRMatrix((dense[rows, columns], columns.astype(index_dtype), indptr), shape=shape)


def to_dense(m):
    indptr, indices, data = m.indptr.asnumpy(), m.indices.asnumpy(), m.data.asnumpy()
    dense = numpy.zeros(m.shape, m.dtype)
    rows = numpy.repeat(numpy.arange(m.shape[0]), numpy.diff(indptr))
    numpy.add.at(dense, (rows, indices), data)
    assert all((numpy.diff(indices[indptr[i]:indptr[i + 1]]) > 0).all() for i in range(m.shape[0])), "not canonical"
    return dense


@pytest.mark.parametrize("index_dtype", [numpy.int32, numpy.int64])
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape,density", [((40, 30), 0.1), ((7, 9), 0.9), ((5, 5), 0.0), ((0, 4), 0.5), ((3, 0), 0.5)],
                         ids=str)
def test_sparse_matadd_against_dense(shape, density, dtype, index_dtype, rng):
    a_dense, A = random_csr(rng, shape, density, dtype, index_dtype)
    b_dense, B = random_csr(rng, shape, density, dtype, index_dtype)
    C = K.sparse_matadd(A, B)
    assert isinstance(C, lapis.CSRMatrix) and C.shape == shape and C.dtype == dtype and C.indices.dtype == index_dtype
    assert C.nnz == ((a_dense != 0) | (b_dense != 0)).sum()  # the union of the structures
    numpy.testing.assert_allclose(to_dense(C), a_dense + b_dense, rtol=1e-6)


def test_sparse_matadd_counts_on_the_device_and_leaves_the_result_there(rng):
    _, A = random_csr(rng, (20, 20), 0.2)
    _, B = random_csr(rng, (20, 20), 0.2)
    for m in (A, B):
        for part in (m.indptr, m.indices, m.data):
            part.sync_device()
    with lapis.count_transfers() as t:
        C = K.sparse_matadd(A, B)
        D = K.sparse_matadd(C, A)      # a result feeds the next call in place
        y = K.spmv(D, numpy.ones(20))
    assert t.stats == counts(1, 160)   # only the vector went up; nothing came down
    if APART:  # (where the sides alias, one allocation is both)
        assert not any(part.host_allocated for m in (C, D) for part in (m.indptr, m.indices, m.data))
    numpy.testing.assert_allclose(y.asnumpy(), (2 * to_dense(A) + to_dense(B)) @ numpy.ones(20), rtol=1e-12)


def test_sparse_matadd_takes_scipy_matrices():
    scipy_sparse = pytest.importorskip("scipy.sparse")
    a, b = scipy_sparse.random(30, 20, density=0.2, random_state=1), scipy_sparse.random(30, 20, density=0.2,
                                                                                         random_state=2)
    numpy.testing.assert_allclose(to_dense(K.sparse_matadd(a, b)), (a + b).toarray(), rtol=1e-12)


def test_sparse_matadd_sums_to_zero_stay_explicit():
    A = lapis.CSRMatrix((numpy.array([1.0]), numpy.array([0]), numpy.array([0, 1])), shape=(1, 2))
    B = lapis.CSRMatrix((numpy.array([-1.0]), numpy.array([0]), numpy.array([0, 1])), shape=(1, 2))
    C = K.sparse_matadd(A, B)
    assert C.nnz == 1 and C.data.asnumpy()[0] == 0.0


@pytest.mark.parametrize("b,error,match", [
    ((numpy.array([1.0, 2]), numpy.array([1, 0]), numpy.array([0, 2, 2])), ValueError, "b: each row's column"),
    ((numpy.array([1.0, 2]), numpy.array([1, 1]), numpy.array([0, 2, 2])), ValueError, "strictly increasing"),
    ((numpy.array([1.0, 2]), numpy.array([1, 5]), numpy.array([0, 2, 2])), ValueError, "out of range"),
    ((numpy.array([1.0, 2]), numpy.array([0, 1]), numpy.array([0, 3, 2])), ValueError, "indptr is inconsistent"),
    ((numpy.array([1.0]), numpy.array([0]), numpy.array([0, 1, 1, 1])), ValueError, "shapes"),
    ((numpy.array([1.0]), numpy.array([0], numpy.int32), numpy.array([0, 1, 1], numpy.int32)), TypeError,
     "index arrays"),
    ((numpy.array([1.0], numpy.float32), numpy.array([0]), numpy.array([0, 1, 1])), TypeError, "mixed dtypes"),
    ("not a matrix", TypeError, "CSRMatrix"),
], ids=["unsorted", "duplicates", "column range", "indptr", "shape", "index dtype", "dtype", "string"])
def test_sparse_matadd_bad_input(b, error, match):
    A = lapis.CSRMatrix((numpy.array([1.0]), numpy.array([1]), numpy.array([0, 1, 1])), shape=(2, 3))
    if isinstance(b, tuple):
        b = lapis.CSRMatrix(b, shape=(len(b[2]) - 1, 3))
    with pytest.raises(error, match=match):
        K.sparse_matadd(A, b)
