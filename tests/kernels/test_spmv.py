"""spmv: values against numpy from CSR arrays and from a lapis.CSRMatrix, its check of the structure
(in its own pass, on the device, with no copy), and bad input and shapes."""
import numpy
import pytest

import lapis
import lapis.kernels as K
from conftest import counts
from support import references as ref
from support.kernel_checks import FLOATS, check, out_variants, raises_before_writing_out, run
from support.references import DATA, DENSE, INDICES, INDPTR


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("index_dtype", [numpy.int32, numpy.int64])
@pytest.mark.parametrize("rows,columns,density", [(1, 1, 1.0), (6, 5, 0.4), (33, 17, 0.2), (4, 3, 0.0), (0, 3, 0.5)])
def test_spmv(rows, columns, density, dtype, index_dtype, rng):
    indptr, indices, data, dense = ref.random_csr(rng, rows, columns, density, dtype, index_dtype)
    x = rng.standard_normal(columns).astype(dtype)
    for out in out_variants((rows,), dtype):
        check(run(K.spmv, (indptr, indices, data, x), dict(shape=(rows, columns)), out), dense @ x, dtype)


def test_spmv_of_a_matrix_into_out():
    A = lapis.CSRMatrix((DATA, INDICES, INDPTR), shape=(4, 3))
    out = numpy.full(4, numpy.nan)
    assert K.spmv(A, numpy.ones(3), out=out) is out
    numpy.testing.assert_array_equal(out, DENSE.sum(axis=1))


# ---------------------------------------------------------------- the check of the structure

@pytest.mark.parametrize("indptr,indices,match", [
    ([0, 1, 2], [0, 3], "out of range"), ([0, 1, 2], [0, -1], "out of range"), ([0, 2, 1], [0, 1], "indptr"),
    ([1, 1, 2], [0, 1], "indptr"), ([0, 1, 1], [0, 1], "indptr"), ([0, 3, 2], [0, 1], "indptr"),
])
@pytest.mark.parametrize("index_dtype", [numpy.int32, numpy.int64])
def test_spmv_checks_the_structure_in_its_own_pass(indptr, indices, match, index_dtype):
    """spmv checks the structure while it computes (docs/guide/kernels.md): a defect raises
    ValueError, and out's values are then unspecified; nothing outside the arrays is read or written."""
    indptr, indices = numpy.array(indptr, index_dtype), numpy.array(indices, index_dtype)
    for out in (None, numpy.zeros(2), lapis.zeros(2)):
        with pytest.raises(ValueError, match=match):
            K.spmv(indptr, indices, numpy.ones(2), numpy.ones(2), shape=(2, 2), out=out)
    assert K.spmv(numpy.array([0, 1, 2], index_dtype), numpy.array([1, 0], index_dtype), numpy.array([2.0, 3.0]),
                  numpy.array([5.0, 7.0]), shape=(2, 2)).asnumpy().tolist() == [14.0, 15.0]


def test_sparse_validation_of_resident_data_copies_nothing():
    P, J = lapis.DualView(numpy.array([0, 1, 2])), lapis.DualView(numpy.array([0, 5]))
    D, X = lapis.DualView(numpy.ones(2)), lapis.DualView(numpy.ones(2))
    for dv in (P, J, D, X):
        dv.sync_device()
    with lapis.count_transfers() as t:
        with pytest.raises(ValueError, match="out of range"):
            K.spmv(P, J, D, X, shape=(2, 2))
    assert t == lapis.TransferStats()


def test_bad_structure_is_found_on_the_device_by_spmv():
    A = lapis.CSRMatrix((DATA, numpy.array([0, 2, 1, 9, 0]), INDPTR), shape=(4, 3))
    with lapis.count_transfers() as t:  # found where the arrays live: nothing comes back but the verdict
        with pytest.raises(ValueError, match="out of range"):
            K.spmv(A, lapis.full(3, 1.0), out=lapis.empty(4))
    assert (t.d2h_count, t.h2d_count) == (0, counts(3, 0).h2d_count)  # the matrix's three arrays go up


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("call,error,match", [
    (lambda out: K.spmv(numpy.array([0, 1]), numpy.array([0]), numpy.ones(1), numpy.ones(2),
                        shape=(2, 2), out=out[0]), ValueError, "indptr"),
    (lambda out: K.spmv(numpy.array([0, 1, 2]), numpy.array([0, 1], numpy.int32), numpy.ones(2), numpy.ones(2),
                        shape=(2, 2), out=out[0]), TypeError, "index"),
    (lambda out: K.spmv(numpy.array([0, 1, 2]), numpy.array([0, 1]), numpy.ones(2), numpy.ones(3),
                        shape=(2, 2), out=out[0]), ValueError, "columns"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_bad_input_raises_before_writing_out(call, error, match):
    raises_before_writing_out(call, error, match)


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


@pytest.mark.parametrize("kwargs,error", [
    (dict(shape=(2,)), ValueError), (dict(shape="ab"), ValueError), (dict(shape=None), ValueError),
], ids=str)
def test_bad_sparse_shapes(kwargs, error):
    with pytest.raises(error, match="shape"):
        K.spmv(numpy.array([0, 1, 2]), numpy.array([0, 1]), numpy.ones(2), numpy.ones(2), **kwargs)


@pytest.mark.parametrize("shape", [(2**62, 4), (2**40, 2**40), (-1, 3)], ids=str)
def test_impossible_shapes(shape):
    with pytest.raises(ValueError):
        K.spmv(numpy.array([0]), numpy.array([0]), numpy.ones(1), numpy.ones(1), shape=shape)


@pytest.mark.parametrize("indptr_dtype,indices_dtype", [
    (numpy.int32, numpy.int64), (numpy.int64, numpy.int32), (numpy.float64, numpy.float64), (numpy.uint32, numpy.uint32),
], ids=str)
def test_index_arrays_of_mixed_or_non_index_dtypes_are_refused_by_name(indptr_dtype, indices_dtype):
    indptr, indices = numpy.array([0, 1, 2], indptr_dtype), numpy.array([0, 1], indices_dtype)
    listed = rf"\(indptr={numpy.dtype(indptr_dtype)}, indices={numpy.dtype(indices_dtype)}\)"
    with pytest.raises(TypeError, match=rf"spmv: index arrays must all be int32 or all int64 {listed}"):
        K.spmv(indptr, indices, numpy.ones(2), numpy.ones(2), shape=(2, 2))
