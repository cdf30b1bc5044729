"""lapis.kernels against numpy references, the transfer contract (exact, on the simulated device),
and bad input."""
import numpy
import pytest

import lapis
import lapis.kernels as K
from support import references as ref
from conftest import APART, counts

FLOATS = [numpy.float32, numpy.float64]


def tolerance(dtype):
    return dict(rtol=1e-4, atol=1e-4) if dtype == numpy.float32 else dict(rtol=1e-12, atol=1e-12)


def check(result, expected, dtype):
    result = result.asnumpy() if isinstance(result, lapis.DualView) else result
    assert result.dtype == numpy.dtype(dtype) and result.shape == expected.shape
    numpy.testing.assert_allclose(result, expected, **tolerance(dtype))


def out_variants(shape, dtype):
    """out=None, a numpy array (C and Fortran order, and a strided view), and a DualView."""
    yield None
    yield numpy.full(shape, numpy.nan, dtype=dtype)
    yield numpy.asfortranarray(numpy.full(shape, numpy.nan, dtype=dtype))
    yield numpy.full(tuple(2 * n for n in shape), numpy.nan, dtype=dtype)[tuple(slice(None, None, 2) for _ in shape)]
    yield lapis.full(shape, numpy.nan, dtype=dtype)


def run(kernel, args, kwargs, out):
    result = kernel(*args, **kwargs, out=out)
    if out is None:
        assert isinstance(result, lapis.DualView) and not result.is_borrowed
    else:
        assert result is out
    return result


# ---------------------------------------------------------------- values against numpy

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (3, 4, 5), (7, 13, 5), (0, 3, 2), (4, 0, 3), (2, 3, 0)])
def test_gemm(m, k, n, dtype, rng):
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    for out in out_variants((m, n), dtype):
        check(run(K.gemm, (a, b), {}, out), a @ b, dtype)
    check(K.gemm(numpy.asfortranarray(a), b[:, ::-1]), a @ b[:, ::-1], dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("batch,m,k,n", [(1, 1, 1, 1), (3, 4, 5, 2), (2, 7, 3, 9), (0, 2, 2, 2), (2, 3, 0, 4)])
def test_batched_gemm(batch, m, k, n, dtype, rng):
    a = rng.standard_normal((batch, m, k)).astype(dtype)
    b = rng.standard_normal((batch, k, n)).astype(dtype)
    for out in out_variants((batch, m, n), dtype):
        check(run(K.batched_gemm, (a, b), {}, out), a @ b, dtype)
    check(K.batched_gemm(a.transpose(0, 2, 1).copy().transpose(0, 2, 1), b), a @ b, dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(1,), (17,), (3, 5), (2, 3, 4), (2, 1, 3, 5), (0, 4), (3, 0, 2)], ids=str)
def test_matadd(shape, dtype, rng):
    a = rng.standard_normal(shape).astype(dtype)
    b = rng.standard_normal(shape).astype(dtype)
    for out in out_variants(shape, dtype):
        check(run(K.matadd, (a, b), {}, out), a + b, dtype)
    check(K.matadd(numpy.asfortranarray(a), b), a + b, dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,params", [
    ((1, 1, 3, 3), {}),
    ((2, 3, 9, 11), {}),
    ((1, 2, 8, 8), dict(kernel_size=2, stride=2, padding=0, dilation=1)),
    ((2, 1, 10, 7), dict(kernel_size=3, stride=2, padding=1, dilation=1)),
    ((1, 1, 12, 12), dict(kernel_size=4, stride=3, padding=2, dilation=2)),
], ids=str)
def test_maxpool_nchw(shape, params, dtype, rng):
    x = rng.standard_normal(shape).astype(dtype)
    expected = ref.maxpool_nchw(x, **params)
    for out in out_variants(expected.shape, dtype):
        check(run(K.maxpool_nchw, (x,), params, out), expected, dtype)


def test_maxpool_padding_never_wins_and_nan_propagates():
    x = -numpy.ones((1, 1, 5, 5))  # all negative: a zero pad would win if it were counted
    assert (K.maxpool_nchw(x).asnumpy() == -1).all()
    x[0, 0, 2, 2] = numpy.nan
    numpy.testing.assert_array_equal(K.maxpool_nchw(x).asnumpy(), ref.maxpool_nchw(x))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("index_dtype", [numpy.int32, numpy.int64])
@pytest.mark.parametrize("rows,columns,density", [(1, 1, 1.0), (6, 5, 0.4), (33, 17, 0.2), (4, 3, 0.0), (0, 3, 0.5)])
def test_spmv(rows, columns, density, dtype, index_dtype, rng):
    indptr, indices, data, dense = ref.random_csr(rng, rows, columns, density, dtype, index_dtype)
    x = rng.standard_normal(columns).astype(dtype)
    for out in out_variants((rows,), dtype):
        check(run(K.spmv, (indptr, indices, data, x), dict(shape=(rows, columns)), out), dense @ x, dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("index_dtype", [numpy.int32, numpy.int64])
@pytest.mark.parametrize("rows,columns,n,density", [(1, 1, 1, 1.0), (8, 6, 3, 0.3), (20, 9, 5, 0.1), (5, 4, 2, 0.0)])
def test_spmm_dcsr(rows, columns, n, density, dtype, index_dtype, rng):
    listed, indptr, indices, data, dense = ref.random_dcsr(rng, rows, columns, density, dtype, index_dtype)
    b = rng.standard_normal((columns, n)).astype(dtype)
    for out in out_variants((rows, n), dtype):
        result = run(K.spmm_dcsr, (listed, indptr, indices, data, b), dict(shape=(rows, columns)), out)
        check(result, dense @ b, dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [0, 1, 7, 1000])
def test_dot(n, dtype, rng):
    x = rng.standard_normal(n).astype(dtype)
    y = rng.standard_normal(n).astype(dtype)
    result = K.dot(x, y)
    assert isinstance(result, float)
    numpy.testing.assert_allclose(result, numpy.dot(x.astype(numpy.float64), y), **tolerance(dtype))
    numpy.testing.assert_allclose(K.dot(lapis.DualView(x[::-1].copy()), x[::-1]), x.astype(numpy.float64) @ x,
                                  **tolerance(dtype))


# ---------------------------------------------------------------- the transfer contract

def test_numpy_inputs_cost_one_upload_each_per_call():
    a, b = numpy.ones((4, 3)), numpy.ones((3, 2))
    for _ in range(2):
        with lapis.count_transfers() as t:
            K.gemm(a, b)
        assert t == counts(2, a.nbytes + b.nbytes)


def test_the_same_numpy_array_twice_is_uploaded_once():
    a = numpy.ones((5, 5))
    with lapis.count_transfers() as t:
        K.matadd(a, a)
    assert t == counts(1, a.nbytes)


def test_resident_dualview_inputs_cost_nothing_and_are_uploaded_once():
    A, B = lapis.DualView(numpy.ones((4, 3))), lapis.DualView(numpy.ones((3, 2)))
    with lapis.count_transfers() as t:
        for _ in range(3):
            K.gemm(A, B)
    assert t == counts(2, 96 + 48)
    A.asnumpy(writable=True)[0, 0] = 2.0  # the host side changed: the next call uploads A again
    with lapis.count_transfers() as t:
        r = K.gemm(A, B)
    assert t == counts(1, 96)
    numpy.testing.assert_array_equal(r.asnumpy()[0], [4.0, 4.0])
    A.modify_host()
    with lapis.count_transfers() as t:
        K.gemm(A, B)
    assert t == counts(1, 96)


@pytest.mark.parametrize("call", [
    lambda out: K.gemm(numpy.ones((2, 3)), numpy.ones((3, 4)), out=out),
    lambda out: K.batched_gemm(numpy.ones((2, 2, 3)), numpy.ones((2, 3, 2)), out=out),
    lambda out: K.matadd(numpy.ones((2, 4)), numpy.ones((2, 4)), out=out),
    lambda out: K.spmv(numpy.array([0, 1, 2, 2, 3]), numpy.array([0, 1, 1]), numpy.ones(3), numpy.ones(2),
                       shape=(4, 2), out=out),
], ids=["gemm", "batched_gemm", "matadd", "spmv"])
def test_numpy_out_costs_one_download_and_no_upload(call):
    probe = call(None)
    out = numpy.full(probe.shape, -7.0)
    with lapis.count_transfers() as t:
        assert call(out) is out
    inputs = lapis.TransferStats(t.h2d_count, t.h2d_bytes)
    assert t.stats - inputs == counts(d2h=1, d2h_bytes=out.nbytes)
    assert t.h2d_bytes == (sum_of_input_bytes(call) if APART else 0)
    numpy.testing.assert_array_equal(out, probe.asnumpy())


def sum_of_input_bytes(call):
    with lapis.count_transfers() as t:
        call(None)
    return t.h2d_bytes


def test_dualview_out_is_written_on_the_device_without_transfers():
    A, B = lapis.full((2, 3), 1.0), lapis.full((3, 2), 2.0)
    C = lapis.zeros((2, 2))
    with lapis.count_transfers() as t:
        assert K.gemm(A, B, out=C) is C
    assert t == lapis.TransferStats()
    assert C.need_sync_host
    numpy.testing.assert_array_equal(C.asnumpy(), numpy.full((2, 2), 6.0))


def test_allocating_calls_stay_on_the_device_until_read():
    a, b = numpy.ones((3, 3)), numpy.ones((3, 3))
    with lapis.count_transfers() as t:
        r = K.gemm(a, b)
    assert t.d2h_count == 0
    assert r.device_allocated and r.host_allocated == (not APART)
    with lapis.count_transfers() as t:
        s = K.matadd(r, r)          # feeding the result to the next kernel moves nothing
        u = K.gemm(s, r)
    assert t == lapis.TransferStats()
    with lapis.count_transfers() as t:
        value = u.asnumpy()
        u.asnumpy()
    assert t == counts(d2h=1, d2h_bytes=72)
    numpy.testing.assert_array_equal(value, numpy.full((3, 3), 54.0))


def test_queued_kernels_run_in_call_order():
    # Calls return once their kernel is queued; each reads what the one before it wrote.
    ones = lapis.full((128, 128), 1.0)
    x, y = lapis.zeros((128, 128)), lapis.zeros((128, 128))
    for _ in range(50):
        K.matadd(x, ones, out=y)
        K.matadd(y, ones, out=x)
    assert lapis.fence() is None
    numpy.testing.assert_array_equal(x.asnumpy(), numpy.full((128, 128), 100.0))


def test_sparse_validation_of_resident_data_copies_nothing():
    P, J = lapis.DualView(numpy.array([0, 1, 2])), lapis.DualView(numpy.array([0, 5]))
    D, X = lapis.DualView(numpy.ones(2)), lapis.DualView(numpy.ones(2))
    for dv in (P, J, D, X):
        dv.sync_device()
    with lapis.count_transfers() as t:
        with pytest.raises(ValueError, match="out of range"):
            K.spmv(P, J, D, X, shape=(2, 2))
    assert t == lapis.TransferStats()


def test_results_never_hold_uninitialized_memory():
    # spmm_dcsr writes only listed rows in its main loop; every other row must still be zero
    out = numpy.full((6, 3), numpy.nan)
    K.spmm_dcsr(numpy.array([4]), numpy.array([0, 1]), numpy.array([0]), numpy.array([2.0]), numpy.ones((2, 3)),
                shape=(6, 2), out=out)
    expected = numpy.zeros((6, 3))
    expected[4] = 2.0
    numpy.testing.assert_array_equal(out, expected)
    assert not numpy.isnan(K.gemm(numpy.ones((3, 0)), numpy.ones((0, 4))).asnumpy()).any()


# ---------------------------------------------------------------- bad input

def untouched(out, before):
    numpy.testing.assert_array_equal(out, before)


@pytest.mark.parametrize("call,error,match", [
    (lambda out: K.gemm(numpy.ones((2, 3)), numpy.ones((4, 2)), out=out), ValueError, "align"),
    (lambda out: K.gemm(numpy.ones(3), numpy.ones((3, 2)), out=out), ValueError, "2-dimensional"),
    (lambda out: K.gemm(numpy.ones((2, 3)), numpy.ones((3, 2), numpy.float32), out=out), TypeError, "mixed"),
    (lambda out: K.gemm(numpy.ones((2, 3), int), numpy.ones((3, 2), int), out=out), TypeError, "float32 or float64"),
    (lambda out: K.gemm(2.0, numpy.ones((3, 2)), out=out), TypeError, "a:"),
    (lambda out: K.gemm([[1.0]], numpy.ones((1, 2)), out=out), TypeError, "a:"),
    (lambda out: K.batched_gemm(numpy.ones((2, 2, 3)), numpy.ones((3, 3, 2)), out=out), ValueError, "align"),
    (lambda out: K.matadd(numpy.ones((2, 2)), numpy.ones((2, 3)), out=out), ValueError, "differ"),
    (lambda out: K.matadd(numpy.ones((1,) * 5), numpy.ones((1,) * 5), out=out), ValueError, "4-dimensional"),
    (lambda out: K.maxpool_nchw(numpy.ones((1, 1, 1, 1)), out=out), ValueError, "too small"),
    (lambda out: K.maxpool_nchw(numpy.ones((1, 1, 5, 5)), padding=2, out=out), ValueError, "half"),
    (lambda out: K.maxpool_nchw(numpy.ones((1, 1, 5, 5)), stride=0, out=out), ValueError, "positive"),
    (lambda out: K.maxpool_nchw(numpy.ones((1, 5, 5)), out=out), ValueError, "4-dimensional"),
    (lambda out: K.maxpool_nchw(numpy.ones((1, 1, 5, 5)), kernel_size=2.5, out=out), TypeError, "kernel_size"),
    (lambda out: K.spmv(numpy.array([0, 1]), numpy.array([0]), numpy.ones(1), numpy.ones(2),
                        shape=(2, 2), out=out[0]), ValueError, "indptr"),
    (lambda out: K.spmv(numpy.array([0, 1, 2]), numpy.array([0, 1], numpy.int32), numpy.ones(2), numpy.ones(2),
                        shape=(2, 2), out=out[0]), TypeError, "index"),
    (lambda out: K.spmv(numpy.array([0, 1, 2]), numpy.array([0, 1]), numpy.ones(2), numpy.ones(3),
                        shape=(2, 2), out=out[0]), ValueError, "columns"),
    (lambda out: K.spmm_dcsr(numpy.array([1, 0]), numpy.array([0, 1, 2]), numpy.array([0, 1]), numpy.ones(2),
                             numpy.ones((2, 2)), shape=(2, 2), out=out), ValueError, "increasing"),
    (lambda out: K.spmm_dcsr(numpy.array([0, 2]), numpy.array([0, 1, 2]), numpy.array([0, 1]), numpy.ones(2),
                             numpy.ones((2, 2)), shape=(2, 2), out=out), ValueError, "increasing"),
    (lambda out: K.spmm_dcsr(numpy.array([0, 1]), numpy.array([0, 1, 2]), numpy.array([0, 9]), numpy.ones(2),
                             numpy.ones((2, 2)), shape=(2, 2), out=out), ValueError, "out of range"),
    (lambda out: K.dot(numpy.ones(3), numpy.ones(4)), ValueError, "lengths"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_bad_input_raises_before_writing_out(call, error, match):
    out = numpy.full((2, 2), 5.0)
    with pytest.raises(error, match=match):
        call(out)
    untouched(out, numpy.full((2, 2), 5.0))


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


def test_bad_outputs():
    a, b = numpy.ones((2, 3)), numpy.ones((3, 2))
    with pytest.raises(TypeError, match="out: dtype"):
        K.gemm(a, b, out=numpy.zeros((2, 2), numpy.float32))
    with pytest.raises(TypeError, match="out: dtype"):
        K.gemm(a, b, out=lapis.zeros((2, 2), numpy.float32))
    with pytest.raises(ValueError, match="out: shape"):
        K.gemm(a, b, out=numpy.zeros((2, 3)))
    frozen = numpy.zeros((2, 2))
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        K.gemm(a, b, out=frozen)
    with pytest.raises(ValueError, match="read-only"):
        K.gemm(a, b, out=lapis.DualView(frozen))
    with pytest.raises(TypeError, match="out"):
        K.gemm(a, b, out=[[0, 0], [0, 0]])
    assert (frozen == 0).all()


def test_outputs_overlapping_inputs_are_refused():
    a = numpy.ones((3, 3))
    with pytest.raises(ValueError, match="overlaps"):
        K.gemm(a, numpy.ones((3, 3)), out=a)
    with pytest.raises(ValueError, match="overlaps"):
        K.matadd(a[:, ::-1], numpy.ones((3, 3)), out=a)  # elementwise, but not exactly that input
    K.gemm(a[:, :2].copy(), numpy.ones((2, 3)), out=a)  # an input copied first does not overlap
    numpy.testing.assert_array_equal(a, 2.0)
    with pytest.raises(ValueError, match="overlaps"):
        K.gemm(a, numpy.ones((3, 3)), out=a.T)
    A = lapis.DualView(a)
    with pytest.raises(ValueError, match="overlaps"):
        K.gemm(A, A, out=A)
    with pytest.raises(ValueError, match="overlaps"):  # the same memory, another DualView's state
        K.matadd(A, numpy.ones((3, 3)), out=a)
    big = numpy.zeros((2, 6))
    K.matadd(numpy.ones((2, 3)), numpy.ones((2, 3)), out=big[:, ::2])  # disjoint from its inputs
    numpy.testing.assert_array_equal(big[:, ::2], 2.0)
    assert (big[:, 1::2] == 0).all()


def test_a_read_only_out_is_refused_before_any_input_moves():
    a = lapis.DualView(numpy.ones((2, 3)))  # host side newer: a call would upload it
    frozen = numpy.zeros((2, 2))
    frozen.flags.writeable = False
    with lapis.count_transfers() as t:
        with pytest.raises(lapis.ReadOnlyError, match="gemm: out"):
            K.gemm(a, numpy.ones((3, 2)), out=frozen)
    assert t.stats == lapis.TransferStats() and a.need_sync_device
    assert issubclass(lapis.ReadOnlyError, ValueError) and issubclass(lapis.ReadOnlyError, BufferError)


@pytest.mark.parametrize("setting", ["kernel_size", "stride", "padding", "dilation"])
def test_integer_settings_take_ints_only(setting):
    x = numpy.ones((1, 1, 5, 5))
    with pytest.raises(TypeError, match=setting):
        K.maxpool_nchw(x, **{setting: True})
    with pytest.raises(ValueError, match=setting):
        K.maxpool_nchw(x, **{setting: 2**70})


@pytest.mark.parametrize("make", [lapis.empty, lapis.zeros], ids=["unallocated", "allocated"])
def test_overlapping_parts_are_refused_allocated_or_not(make):
    y = make(1000)
    with pytest.raises(ValueError, match="overlaps the input x"):
        K.add(y[0:999], 1.0, out=y[1:1000])
    with pytest.raises(ValueError, match="overlaps the input a"):
        K.matadd(y[0:500], y[500:1000], out=y[250:750])
    K.add(y[0:500], 1.0, out=y[500:1000])  # disjoint parts of one buffer are fine
    K.add(y[0::2], 1.0, out=y[1::2])       # and so are interleaved ones
    numpy.testing.assert_array_equal(y.asnumpy()[1::2], y.asnumpy()[0::2] + 1.0)


@pytest.mark.parametrize("step", [1, 3])
@pytest.mark.parametrize("n", [7, 8, 9, 4103, 100_003])
def test_dot_over_unit_and_wider_strides(n, step):
    """Host reductions sum in blocks of 8 partial sums, over the views seen without their stride
    where it is 1 (execution/reduction.hpp, execution/unit_stride.hpp): lengths that are not whole
    blocks, and strided parts, give numpy's value."""
    rng = numpy.random.default_rng(n)
    x, y = rng.standard_normal(n * step), rng.standard_normal(n * step)
    X, Y = lapis.DualView(x)[::step], lapis.DualView(y)[::step]
    numpy.testing.assert_allclose(K.dot(X, Y), x[::step] @ y[::step], rtol=1e-12)
    numpy.testing.assert_allclose(K.dot(X, Y, out=lapis.empty(())).asnumpy(), x[::step] @ y[::step], rtol=1e-12)


@pytest.mark.parametrize("n", [1, 4096, 4097, 100_000])
def test_short_loops_on_the_calling_thread_and_long_ones_on_the_device_agree(n):
    """Streaming kernels of up to 4096 elements run on the calling thread where it reaches the
    device's memory (execution/flat_loop.hpp), longer ones on the device's execution space."""
    rng = numpy.random.default_rng(n)
    x, y = rng.standard_normal(n), rng.standard_normal(n)
    numpy.testing.assert_allclose(K.add(x, y).asnumpy(), x + y, rtol=0, atol=0)
    numpy.testing.assert_allclose(K.dot(x, y), x @ y, rtol=1e-12)
    total = K.dot(x, y, out=lapis.empty(()))
    numpy.testing.assert_allclose(total.asnumpy(), x @ y, rtol=1e-12)


# ---------------------------------------------------------------- fused conjugate-gradient updates

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [1, 9, 4097, 30_001])
def test_the_fused_cg_updates_match_numpy_and_move_nothing(n, dtype):
    """cg_step, cg_precondition and cg_direction on resident DualViews: numpy's values, and not one
    copy, their step lengths read from 0-d DualViews on the device (examples/pcg_solve.py)."""
    rng = numpy.random.default_rng(n)
    p, q, x, r, m = (rng.standard_normal(n).astype(dtype) for _ in range(5))
    P, Q, X, R, M = (lapis.DualView(a.copy()) for a in (p, q, x, r, m))
    rz, pq = lapis.full((), 3.0, dtype), lapis.full((), 1.5, dtype)
    rr, rz_next, Z = lapis.empty((), dtype), lapis.empty((), dtype), lapis.empty(n, dtype)
    for resident in (P, Q, X, R, M, rz, pq):
        resident.sync_device()
    with lapis.count_transfers() as t:
        assert K.cg_step(rz, pq, P, Q, X, R, rr) is rr
        assert K.cg_precondition(M, R, Z, rz_next) is rz_next
        assert K.cg_direction(Z, rz_next, rz, P) is P
    assert t == lapis.TransferStats()
    alpha = dtype(2.0)
    x_, r_ = x + alpha * p, r - alpha * q
    z_ = m * r_
    expected = {"x": (X, x_), "r": (R, r_), "rr": (rr, r_ @ r_), "z": (Z, z_), "rz": (rz_next, r_ @ z_),
                "p": (P, z_ + (r_ @ z_) / dtype(3.0) * p)}
    for name, (actual, value) in expected.items():
        numpy.testing.assert_allclose(actual.asnumpy(), value, **tolerance(dtype), err_msg=name)


def test_the_fused_cg_updates_refuse_what_they_cannot_do_and_change_nothing():
    n = 8
    P, Q, X, R, Z = (lapis.DualView(numpy.arange(n, dtype=numpy.float64)) for _ in range(5))
    rz, pq, rr = lapis.full((), 1.0), lapis.full((), 2.0), lapis.empty(())
    frozen = numpy.zeros(n)
    frozen.flags.writeable = False
    refused = [
        (lambda: K.cg_step(rz, pq, P, Q, numpy.zeros(n), R, rr), TypeError, "x: expected a lapis.DualView"),
        (lambda: K.cg_step(rz, pq, P, Q, X, X, rr), ValueError, "r: overlaps the input x"),
        (lambda: K.cg_step(rz, pq, P, Q, X, P, rr), ValueError, "r: overlaps the input p"),
        (lambda: K.cg_step(rz, pq, P, Q, X, R, rz), ValueError, "rr: overlaps the input rz"),
        (lambda: K.cg_step(rz, pq, P, Q[:5], X, R, rr), ValueError, "q has 5 elements; x has 8"),
        (lambda: K.cg_step(rz, pq, P, Q, X, R, lapis.empty(3)), ValueError, "rr: expected a 0-dimensional"),
        (lambda: K.cg_step(rz, pq, P, Q, X, R, lapis.empty((), numpy.float32)), TypeError, "rr: dtype"),
        (lambda: K.cg_step(rz, pq, P, lapis.DualView(numpy.zeros(n, numpy.float32)), X, R, rr), TypeError,
         "mixed dtypes"),
        (lambda: K.cg_step(rz, pq, P, Q, lapis.DualView(frozen), R, rr), lapis.ReadOnlyError, "cg_step: x"),
        (lambda: K.cg_precondition(P, R, numpy.zeros(n), rr), TypeError, "z: expected a lapis.DualView"),
        (lambda: K.cg_precondition(P, R, R, rr), ValueError, "z: overlaps the input r"),
        (lambda: K.cg_direction(Z, rz, pq, Z), ValueError, "p: overlaps the input z"),
        (lambda: K.cg_direction(Z, rz, pq, P[:4]), ValueError, "z has 8 elements; p has 4"),
    ]
    for call, kind, message in refused:
        with pytest.raises(kind, match=message):
            call()
    for vector in (P, Q, X, R, Z):
        numpy.testing.assert_array_equal(vector.asnumpy(), numpy.arange(n))
