"""What every kernel of lapis.kernels shares, checked across kernels at once: each argument replaced by
each kind of bad value and each kind of bad out (the documented exception, naming the kernel, out
untouched), empty results, the transfer contract of a numpy out and of chained results, overlap of
out with the inputs, and the same values from short and long loops."""
import numpy
import pytest

import lapis
import lapis.kernels as K
from conftest import APART, counts

# ---------------------------------------------------------------- bad arguments and outs, kernel by kernel

def valid_calls():
    """kernel name -> (function, valid keyword arguments, the result's shape)."""
    indptr, indices = numpy.array([0, 1, 2]), numpy.array([1, 0])
    return {
        "gemm": (K.gemm, dict(a=numpy.ones((2, 3)), b=numpy.ones((3, 2))), (2, 2)),
        "batched_gemm": (K.batched_gemm, dict(a=numpy.ones((2, 2, 3)), b=numpy.ones((2, 3, 2))), (2, 2, 2)),
        "matadd": (K.matadd, dict(a=numpy.ones((2, 2)), b=numpy.ones((2, 2))), (2, 2)),
        "maxpool_nchw": (K.maxpool_nchw, dict(x=numpy.ones((1, 1, 5, 5))), (1, 1, 3, 3)),
        "spmv": (K.spmv, dict(indptr=indptr, indices=indices, data=numpy.ones(2), x=numpy.ones(2), shape=(2, 2)),
                 (2,)),
        "spmm_dcsr": (K.spmm_dcsr, dict(rows=numpy.array([0, 1]), indptr=indptr, indices=indices, data=numpy.ones(2),
                                        b=numpy.ones((2, 3)), shape=(2, 2)), (2, 3)),
        "dot": (K.dot, dict(x=numpy.ones(3), y=numpy.ones(3)), None),
        **{name: (getattr(K, name), dict(x=numpy.ones((2, 2)), y=numpy.ones((2, 2))), (2, 2)) for name in ELEMENTWISE},
        "conv2d_nchw": (K.conv2d_nchw, dict(x=numpy.ones((1, 2, 5, 5)), w=numpy.ones((3, 2, 3, 3))), (1, 3, 3, 3)),
        "batchnorm_nchw": (K.batchnorm_nchw, dict(x=numpy.ones((1, 2, 3, 3)), mean=numpy.zeros(2), var=numpy.ones(2),
                                                  weight=numpy.ones(2), bias=numpy.zeros(2)), (1, 2, 3, 3)),
        "global_avgpool_nchw": (K.global_avgpool_nchw, dict(x=numpy.ones((2, 3, 4, 4))), (2, 3)),
        "linear": (K.linear, dict(x=numpy.ones((2, 3)), weight=numpy.ones((4, 3)), bias=numpy.ones(4)), (2, 4)),
        "axpby": (K.axpby, dict(alpha=2.0, x=numpy.ones((2, 2)), beta=1.0, y=numpy.ones((2, 2))), (2, 2)),
    }


# kernels whose array operands may also be scalars (a Python number there is valid)
ELEMENTWISE = ["add", "subtract", "multiply", "divide", "maximum"]
TAKES_SCALARS = set(ELEMENTWISE) | {"axpby"}
# a wider image has the same (N, C) mean: not bad input there
STILL_VALID = {("global_avgpool_nchw", "x", "mismatched shape")}


def replacements(value):
    """(label, bad value, exception) for an array argument."""
    yield "python scalar", 2.0, TypeError
    yield "list", value.tolist(), TypeError
    yield "None", None, TypeError
    yield "string", "abc", TypeError
    yield "object dtype", value.astype(object), TypeError
    yield "byte-swapped", value.astype(value.dtype.newbyteorder()), TypeError
    other = numpy.float32 if value.dtype.kind == "f" else numpy.float64
    yield "other dtype", value.astype(other), TypeError
    yield "extra dimension", value[..., None], ValueError
    if value.ndim > 1:
        yield "missing dimension", value[..., 0], ValueError
    yield "mismatched shape", numpy.concatenate([value, value], axis=-1), ValueError


def table():
    for kernel, (fn, arguments, result_shape) in valid_calls().items():
        for name, value in arguments.items():
            if not isinstance(value, numpy.ndarray):
                continue
            for label, bad, error in replacements(value):
                if (label == "python scalar" and kernel in TAKES_SCALARS) or (kernel, name, label) in STILL_VALID:
                    continue
                yield pytest.param(kernel, name, bad, error, id=f"{kernel}-{name}-{label}")


@pytest.mark.parametrize("kernel,name,bad,error", list(table()))
def test_bad_argument(kernel, name, bad, error):
    fn, arguments, result_shape = valid_calls()[kernel]
    out = numpy.full(result_shape, 7.0) if result_shape else None
    arguments = dict(arguments, **{name: bad})
    if out is not None:
        arguments["out"] = out
    with pytest.raises(error) as raised:
        fn(**arguments)
    message = str(raised.value)
    assert kernel in message
    if error is TypeError and not isinstance(bad, numpy.ndarray):
        assert f"{name}:" in message
    if out is not None:
        assert (out == 7.0).all()


@pytest.mark.parametrize("kernel", [k for k, (_, _, shape) in valid_calls().items() if shape])
@pytest.mark.parametrize("label", ["wrong dtype", "wrong shape", "read-only", "not an array", "zero-size"])
def test_bad_out(kernel, label):
    fn, arguments, shape = valid_calls()[kernel]
    out = {
        "wrong dtype": numpy.full(shape, 7.0, numpy.float32),
        "wrong shape": numpy.full(shape + (1,), 7.0),
        "read-only": numpy.full(shape, 7.0),
        "not an array": [[7.0]],
        "zero-size": numpy.zeros((0,) * len(shape)),
    }[label]
    if label == "read-only":
        out.flags.writeable = False
    error = TypeError if label in ("wrong dtype", "not an array") else ValueError
    with pytest.raises(error, match=f"{kernel}: out"):
        fn(**arguments, out=out)
    if isinstance(out, numpy.ndarray) and out.size:
        assert (out == 7.0).all()


# ---------------------------------------------------------------- empty and inconsistent input

def test_zero_size_arrays_give_correct_empty_results():
    assert K.gemm(numpy.ones((0, 3)), numpy.ones((3, 2))).shape == (0, 2)
    assert K.matadd(numpy.ones((0, 2)), numpy.ones((0, 2))).asnumpy().shape == (0, 2)
    assert K.dot(numpy.ones(0), numpy.ones(0)) == 0.0
    assert K.spmv(numpy.array([0]), numpy.array([], numpy.int64), numpy.ones(0), numpy.ones(3),
                  shape=(0, 3)).shape == (0,)


@pytest.mark.parametrize("indptr", [[5], [-1], [1]])
@pytest.mark.parametrize("kernel", ["spmv", "spmm_dcsr"])
def test_a_matrix_of_no_rows_needs_the_one_pointer_to_be_zero(kernel, indptr):
    """Every sparse kernel refuses the same inconsistent arrays, rows or not."""
    pointers, indices, data = numpy.array(indptr), numpy.array([], numpy.int64), numpy.ones(0)
    with pytest.raises(ValueError, match="indptr"):
        if kernel == "spmv":
            K.spmv(pointers, indices, data, numpy.ones(3), shape=(0, 3))
        else:
            K.spmm_dcsr(numpy.array([], numpy.int64), pointers, indices, data, numpy.ones((3, 2)), shape=(0, 3))


# ---------------------------------------------------------------- the transfer contract

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


# ---------------------------------------------------------------- overlap and loops

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
