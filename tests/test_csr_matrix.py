"""lapis.CSRMatrix: a sparse matrix as one kernel argument, made from scipy's triple or from
scipy.sparse, kept resident across calls (exact copy counts), and its bad input."""
import numpy
import pytest

import lapis
import lapis.kernels as K
from conftest import APART, counts

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
    with lapis.count_transfers() as t:  # found where the arrays live: nothing comes back but the verdict
        with pytest.raises(ValueError, match="out of range"):
            K.spmv(A, lapis.full(3, 1.0), out=lapis.empty(4))
    assert (t.d2h_count, t.h2d_count) == (0, counts(3, 0).h2d_count)  # the matrix's three arrays go up


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


# ---------------------------------------------------------------- a structure checked once

ON_HOST_MEMORY = lapis.DualView(numpy.ones(1)).__dlpack_device__()[0] == 1  # kDLCPU: numpy can consume it


def write_through_dlpack(j):
    numpy.from_dlpack(j)[1] = 9


WRITES = {
    "fill": lambda j: j.fill(9),
    "part fill": lambda j: j[1:2].fill(9),
    "writable asnumpy": lambda j: j.asnumpy(writable=True).__setitem__(1, 9),
    "dlpack consumer": write_through_dlpack,
}


def spmv_twice(A):
    """Two products, right: the second may skip the check the first passed."""
    for _ in range(2):
        numpy.testing.assert_array_equal(K.spmv(A, numpy.arange(3.0)).asnumpy(), DENSE @ numpy.arange(3.0))


@pytest.mark.parametrize("kind", ["owned", "borrowed"])
@pytest.mark.parametrize("write", list(WRITES))
def test_a_structure_found_valid_is_checked_again_once_written(kind, write):
    """spmv skips the check of a structure it found valid while lapis saw no write of its arrays
    (docs/guide/kernels.md); each way of writing them brings the check back."""
    if write == "dlpack consumer" and not ON_HOST_MEMORY:
        pytest.skip("numpy consumes host memory only")
    j = lapis.DualView(INDICES.copy(), copy=kind == "owned")
    A = lapis.CSRMatrix((DATA, j, INDPTR), shape=(4, 3))
    spmv_twice(A)
    WRITES[write](j)
    with pytest.raises(ValueError, match="out of range"):
        K.spmv(A, numpy.arange(3.0))


def torch_cuda_tensor(array):
    if lapis.runtime_info()["execution_space"] != "Cuda":
        pytest.skip("needs a CUDA build")
    return pytest.importorskip("torch").as_tensor(array, device="cuda")


def write_on_torch_stream(tensor):
    tensor[1] = 9
    __import__("torch").cuda.synchronize()  # lapis's stream is not ordered after torch's


LENDERS = {  # memory whose owner may write it with no lapis call, and how it writes
    "numpy, borrowed": (lambda a: a, lapis.DualView, lambda a: a.__setitem__(1, 9)),
    "numpy, from_dlpack": (lambda a: a, lapis.DualView.from_dlpack, lambda a: a.__setitem__(1, 9)),
    "torch CUDA tensor": (torch_cuda_tensor, lapis.DualView.from_dlpack, write_on_torch_stream),
}


@pytest.mark.parametrize("lender", list(LENDERS))
def test_memory_its_owner_writes_unseen_is_checked_at_every_call(lender):
    """Memory lent by its owner may change with no lapis call at all: a structure there is checked
    at every call that reads that memory."""
    make, borrow, write = LENDERS[lender]
    source = make(INDICES.copy())
    A = lapis.CSRMatrix((DATA, borrow(source), INDPTR), shape=(4, 3))
    spmv_twice(A)
    write(source)
    if APART and isinstance(source, numpy.ndarray):  # a host side: the device side is a copy, current
        spmv_twice(A)                                  # until the host side is marked modified
        A.indices.modify_host()
    with pytest.raises(ValueError, match="out of range"):
        K.spmv(A, numpy.arange(3.0))


# ---------------------------------------------------------------- sparse_matadd

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
