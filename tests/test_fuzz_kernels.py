"""Property-based tests of every kernel against numpy over shapes, dtypes, memory orders, strides
and out variants."""
import numpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lapis
from support import references as ref
from conftest import FUZZ
import lapis.kernels as K

dims = st.integers(0, 6)
indices = st.sampled_from([numpy.int32, numpy.int64])
dtypes = st.sampled_from([numpy.float32, numpy.float64])
layouts = st.sampled_from(["C", "F", "strided", "reversed"])
outs = st.sampled_from(["none", "numpy", "numpy_F", "dualview"])


def arrange(array, layout):
    if layout == "F":
        return numpy.asfortranarray(array)
    if layout == "strided":
        wide = numpy.zeros(tuple(2 * n for n in array.shape), array.dtype)
        view = wide[tuple(slice(None, None, 2) for _ in array.shape)]
        view[...] = array
        return view
    if layout == "reversed":
        return array[::-1].copy()[::-1]
    return numpy.ascontiguousarray(array)


def make_out(kind, shape, dtype):
    if kind == "numpy":
        return numpy.full(shape, numpy.nan, dtype)
    if kind == "numpy_F":
        return numpy.asfortranarray(numpy.full(shape, numpy.nan, dtype))
    if kind == "dualview":
        return lapis.full(shape, numpy.nan, dtype=dtype)
    return None


def result_of(result):
    return result.asnumpy() if isinstance(result, lapis.DualView) else result


def close(dtype):
    return dict(rtol=1e-4, atol=1e-4) if dtype == numpy.float32 else dict(rtol=1e-10, atol=1e-10)


@settings(max_examples=FUZZ(400), deadline=None)
@given(m=dims, k=dims, n=dims, dtype=dtypes, la=layouts, lb=layouts, out=outs, seed=st.integers(0, 2**32 - 1))
def test_gemm_matches_numpy(m, k, n, dtype, la, lb, out, seed):
    rng = numpy.random.default_rng(seed)
    a = arrange(rng.standard_normal((m, k)).astype(dtype), la)
    b = arrange(rng.standard_normal((k, n)).astype(dtype), lb)
    target = make_out(out, (m, n), dtype)
    result = result_of(K.gemm(a, b, out=target))
    numpy.testing.assert_allclose(result, a.astype(numpy.float64) @ b, **close(dtype))


@settings(max_examples=FUZZ(400), deadline=None)
@given(shape=st.lists(st.integers(0, 5), min_size=1, max_size=4).map(tuple), dtype=dtypes, la=layouts, lb=layouts,
       out=outs, seed=st.integers(0, 2**32 - 1))
def test_matadd_matches_numpy(shape, dtype, la, lb, out, seed):
    rng = numpy.random.default_rng(seed)
    a = arrange(rng.standard_normal(shape).astype(dtype), la)
    b = arrange(rng.standard_normal(shape).astype(dtype), lb)
    result = result_of(K.matadd(a, b, out=make_out(out, shape, dtype)))
    numpy.testing.assert_array_equal(result, a + b)


@settings(max_examples=FUZZ(400), deadline=None)
@given(rows=st.integers(0, 12), columns=st.integers(1, 12), density=st.floats(0, 1), dtype=dtypes,
       index=indices, out=outs, seed=st.integers(0, 2**32 - 1))
def test_spmv_matches_numpy(rows, columns, density, dtype, index, out, seed):
    rng = numpy.random.default_rng(seed)
    dense = rng.standard_normal((rows, columns)).astype(dtype)
    dense[rng.random((rows, columns)) >= density] = 0
    r, c = numpy.nonzero(dense)
    indptr = numpy.concatenate([[0], numpy.cumsum((dense != 0).sum(axis=1))]).astype(index)
    x = rng.standard_normal(columns).astype(dtype)
    result = result_of(K.spmv(indptr, c.astype(index), dense[r, c], x, shape=(rows, columns),
                              out=make_out(out, (rows,), dtype)))
    numpy.testing.assert_allclose(result, dense.astype(numpy.float64) @ x, **close(dtype))


@settings(max_examples=FUZZ(400), deadline=None)
@given(batch=dims, m=dims, k=dims, n=dims, dtype=dtypes, la=layouts, lb=layouts, out=outs,
       seed=st.integers(0, 2**32 - 1))
def test_batched_gemm_matches_numpy(batch, m, k, n, dtype, la, lb, out, seed):
    rng = numpy.random.default_rng(seed)
    a = arrange(rng.standard_normal((batch, m, k)).astype(dtype), la)
    b = arrange(rng.standard_normal((batch, k, n)).astype(dtype), lb)
    result = result_of(K.batched_gemm(a, b, out=make_out(out, (batch, m, n), dtype)))
    numpy.testing.assert_allclose(result, a.astype(numpy.float64) @ b, **close(dtype))


@settings(max_examples=FUZZ(400), deadline=None)
@given(shape=st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(1, 9), st.integers(1, 9)),
       kernel_size=st.integers(1, 4), stride=st.integers(1, 3), padding=st.integers(0, 2), dilation=st.integers(1, 3),
       dtype=dtypes, layout=layouts, out=outs, nans=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_maxpool_nchw_matches_numpy(shape, kernel_size, stride, padding, dilation, dtype, layout, out, nans, seed):
    rng = numpy.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(dtype)
    if nans:
        x[rng.random(shape) < 0.1] = numpy.nan
    x = arrange(x, layout)
    params = dict(kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation)
    span = dilation * (kernel_size - 1)
    extents = [(size + 2 * padding - span - 1) // stride + 1 for size in shape[2:]]
    if 2 * padding > kernel_size or any(size + 2 * padding - span - 1 < 0 for size in shape[2:]):
        with pytest.raises(ValueError):   # settings torch refuses, or an empty output
            K.maxpool_nchw(x, **params)
        return
    target = make_out(out, shape[:2] + tuple(extents), dtype)
    result = result_of(K.maxpool_nchw(x, **params, out=target))
    numpy.testing.assert_array_equal(result, ref.maxpool_nchw(x, **params))


@settings(max_examples=FUZZ(400), deadline=None)
@given(rows=st.integers(0, 12), columns=st.integers(1, 12), n=dims, density=st.floats(0, 1), dtype=dtypes,
       index=indices, layout=layouts, out=outs, seed=st.integers(0, 2**32 - 1))
def test_spmm_dcsr_matches_numpy(rows, columns, n, density, dtype, index, layout, out, seed):
    rng = numpy.random.default_rng(seed)
    listed, indptr, cols, data, dense = ref.random_dcsr(rng, rows, columns, density, dtype, index)
    b = arrange(rng.standard_normal((columns, n)).astype(dtype), layout)
    result = result_of(K.spmm_dcsr(listed, indptr, cols, data, b, shape=(rows, columns),
                                   out=make_out(out, (rows, n), dtype)))
    numpy.testing.assert_allclose(result, dense.astype(numpy.float64) @ b, **close(dtype))


@settings(max_examples=FUZZ(400), deadline=None)
@given(n=st.integers(0, 300), dtype=dtypes, lx=layouts, ly=layouts, resident=st.booleans(),
       seed=st.integers(0, 2**32 - 1))
def test_dot_matches_numpy(n, dtype, lx, ly, resident, seed):
    rng = numpy.random.default_rng(seed)
    x = arrange(rng.standard_normal(n).astype(dtype), lx)
    y = arrange(rng.standard_normal(n).astype(dtype), ly)
    args = (lapis.DualView(x, copy=True), lapis.DualView(y, copy=True)) if resident else (x, y)
    value = K.dot(*args)
    assert isinstance(value, float)
    numpy.testing.assert_allclose(value, x.astype(numpy.float64) @ y, **close(dtype))
