"""lapis.CSRMatrix: a sparse matrix as one kernel argument, made from scipy's triple or from
scipy.sparse, kept resident across calls (exact copy counts), and its bad input."""
import numpy
import pytest

import lapis
import lapis.kernels as K
from conftest import counts

DENSE = numpy.array([[1.0, 0, 2], [0, 0, 0], [0, 3, 4], [5, 0, 0]])
DATA, INDICES, INDPTR = numpy.array([1.0, 2, 3, 4, 5]), numpy.array([0, 2, 1, 2, 0]), numpy.array([0, 2, 2, 4, 5])


def test_lapis_csrmatrix_is_the_kernels_one():
    assert lapis.CSRMatrix is K.CSRMatrix
    with pytest.raises(AttributeError):
        lapis.no_such_name


@pytest.mark.parametrize("kind", ["numpy", "DualView"])
def test_from_the_triple(kind):
    parts = (DATA, INDICES, INDPTR) if kind == "numpy" else tuple(lapis.DualView(a) for a in (DATA, INDICES, INDPTR))
    A = lapis.CSRMatrix(parts, shape=(4, 3))
    assert A.shape == (4, 3) and A.nnz == 5 and A.dtype == numpy.float64
    assert isinstance(A.data, lapis.DualView) and A.indices.dtype == INDICES.dtype
    assert "shape=(4, 3), nnz=5" in repr(A)
    numpy.testing.assert_array_equal(K.spmv(A, numpy.arange(3.0)).asnumpy(), DENSE @ numpy.arange(3.0))


@pytest.mark.parametrize("index_dtype", [numpy.int32, numpy.int64])
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_from_scipy_sparse(dtype, index_dtype, rng):
    scipy_sparse = pytest.importorskip("scipy.sparse")
    dense = rng.standard_normal((30, 20)).astype(dtype)
    dense[rng.random((30, 20)) > 0.2] = 0
    m = scipy_sparse.coo_matrix(dense)  # any format: converted with tocsr()
    m.row, m.col = m.row.astype(index_dtype), m.col.astype(index_dtype)
    A = lapis.CSRMatrix(m)
    assert A.shape == (30, 20) and A.dtype == dtype and A.nnz == (dense != 0).sum()
    x = rng.standard_normal(20).astype(dtype)
    numpy.testing.assert_allclose(K.spmv(A, x).asnumpy(), dense @ x, rtol=1e-4 if dtype == numpy.float32 else 1e-12)


def test_the_matrix_goes_up_once_and_stays():
    A = lapis.CSRMatrix((DATA, INDICES, INDPTR), shape=(4, 3))
    x = lapis.DualView(numpy.ones(3))
    x.sync_device()
    with lapis.count_transfers() as first:
        K.spmv(A, x)
    assert first.stats == counts(3, DATA.nbytes + INDICES.nbytes + INDPTR.nbytes)
    with lapis.count_transfers() as later:
        for _ in range(5):
            y = K.spmv(A, x)
    assert later.stats == lapis.TransferStats()
    numpy.testing.assert_array_equal(y.asnumpy(), DENSE @ numpy.ones(3))


def test_spmv_into_out():
    A = lapis.CSRMatrix((DATA, INDICES, INDPTR), shape=(4, 3))
    out = numpy.full(4, numpy.nan)
    assert K.spmv(A, numpy.ones(3), out=out) is out
    numpy.testing.assert_array_equal(out, DENSE.sum(axis=1))


@pytest.mark.parametrize("make,error,match", [
    (lambda: lapis.CSRMatrix([DATA, INDICES, INDPTR], shape=(4, 3)), TypeError, "expected \\(data, indices, indptr\\)"),
    (lambda: lapis.CSRMatrix((DATA, INDICES), shape=(4, 3)), TypeError, "expected"),
    (lambda: lapis.CSRMatrix((DATA, INDICES, INDPTR)), ValueError, "shape=.* is required"),
    (lambda: lapis.CSRMatrix((DATA, INDICES, INDPTR), shape=(4,)), ValueError, "shape must be a pair"),
    (lambda: lapis.CSRMatrix((DATA, INDICES, INDPTR), shape=(3, 3)), ValueError, "indptr"),
    (lambda: lapis.CSRMatrix((DATA[:4], INDICES, INDPTR), shape=(4, 3)), ValueError, "differ in length"),
    (lambda: lapis.CSRMatrix((DATA.astype(int), INDICES, INDPTR), shape=(4, 3)), TypeError, "unsupported dtype"),
    (lambda: lapis.CSRMatrix((DATA, INDICES.astype(float), INDPTR), shape=(4, 3)), TypeError, "index arrays"),
    (lambda: lapis.CSRMatrix((DATA, INDICES.astype(numpy.int32), INDPTR), shape=(4, 3)), TypeError, "index arrays"),
    (lambda: lapis.CSRMatrix((DATA, "x", INDPTR), shape=(4, 3)), TypeError, "indices"),
], ids=["list", "pair", "no shape", "bad shape", "rows", "lengths", "int data", "float indices", "mixed indices",
        "string"])
def test_bad_construction(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_bad_structure_is_found_on_the_device_by_spmv():
    A = lapis.CSRMatrix((DATA, numpy.array([0, 2, 1, 9, 0]), INDPTR), shape=(4, 3))
    out = numpy.full(4, 7.0)
    with pytest.raises(ValueError, match="out of range"):
        K.spmv(A, numpy.ones(3), out=out)
    assert (out == 7.0).all()


def test_bad_spmv_calls_with_a_matrix():
    A = lapis.CSRMatrix((DATA, INDICES, INDPTR), shape=(4, 3))
    with pytest.raises(TypeError, match="spmv\\(A, x\\)"):
        K.spmv(A, numpy.ones(3), shape=(4, 3))
    with pytest.raises(TypeError, match="spmv\\(A, x\\)"):
        K.spmv(A)
    with pytest.raises(ValueError, match="x: has 4 entries"):
        K.spmv(A, numpy.ones(4))
    with pytest.raises(TypeError, match="mixed dtypes"):
        K.spmv(A, numpy.ones(3, numpy.float32))
    with pytest.raises(TypeError, match="spmv: x: expected"):
        K.spmv(INDPTR, INDICES, DATA, shape=(4, 3))
