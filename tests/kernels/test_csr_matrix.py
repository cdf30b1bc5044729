"""lapis.CSRMatrix: a sparse matrix as one kernel argument, made from scipy's triple or from
scipy.sparse, kept resident across calls (exact copy counts), its bad construction, and its structure
checked again once written. (spmv's calls with a matrix: test_spmv.py; sparse_matadd:
test_sparse_matadd.py.)"""
import numpy
import pytest

import lapis
import lapis.kernels as K
from conftest import APART, counts
from support.references import DATA, DENSE, INDICES, INDPTR


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
