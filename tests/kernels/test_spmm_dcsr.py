"""spmm_dcsr: values against numpy for every kind of out, rows not listed left zero, and bad input."""
import numpy
import pytest

import lapis.kernels as K
from support import references as ref
from support.kernel_checks import FLOATS, check, out_variants, raises_before_writing_out, run


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("index_dtype", [numpy.int32, numpy.int64])
@pytest.mark.parametrize("rows,columns,n,density", [(1, 1, 1, 1.0), (8, 6, 3, 0.3), (20, 9, 5, 0.1), (5, 4, 2, 0.0)])
def test_spmm_dcsr(rows, columns, n, density, dtype, index_dtype, rng):
    listed, indptr, indices, data, dense = ref.random_dcsr(rng, rows, columns, density, dtype, index_dtype)
    b = rng.standard_normal((columns, n)).astype(dtype)
    for out in out_variants((rows, n), dtype):
        result = run(K.spmm_dcsr, (listed, indptr, indices, data, b), dict(shape=(rows, columns)), out)
        check(result, dense @ b, dtype)


def test_results_never_hold_uninitialized_memory():
    # spmm_dcsr writes only listed rows in its main loop; every other row must still be zero
    out = numpy.full((6, 3), numpy.nan)
    K.spmm_dcsr(numpy.array([4]), numpy.array([0, 1]), numpy.array([0]), numpy.array([2.0]), numpy.ones((2, 3)),
                shape=(6, 2), out=out)
    expected = numpy.zeros((6, 3))
    expected[4] = 2.0
    numpy.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("call,error,match", [
    (lambda out: K.spmm_dcsr(numpy.array([1, 0]), numpy.array([0, 1, 2]), numpy.array([0, 1]), numpy.ones(2),
                             numpy.ones((2, 2)), shape=(2, 2), out=out), ValueError, "increasing"),
    (lambda out: K.spmm_dcsr(numpy.array([0, 2]), numpy.array([0, 1, 2]), numpy.array([0, 1]), numpy.ones(2),
                             numpy.ones((2, 2)), shape=(2, 2), out=out), ValueError, "increasing"),
    (lambda out: K.spmm_dcsr(numpy.array([0, 1]), numpy.array([0, 1, 2]), numpy.array([0, 9]), numpy.ones(2),
                             numpy.ones((2, 2)), shape=(2, 2), out=out), ValueError, "out of range"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_bad_input_raises_before_writing_out(call, error, match):
    raises_before_writing_out(call, error, match)
