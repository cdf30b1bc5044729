"""Every kernel argument, replaced by each kind of bad value: the documented exception, naming the
kernel (and the argument, for what is not an array at all), the output untouched, no crash."""
import numpy
import pytest

import lapis
import lapis.kernels as K

f8 = numpy.float64


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


def test_zero_size_arrays_give_correct_empty_results():
    assert K.gemm(numpy.ones((0, 3)), numpy.ones((3, 2))).shape == (0, 2)
    assert K.matadd(numpy.ones((0, 2)), numpy.ones((0, 2))).asnumpy().shape == (0, 2)
    assert K.dot(numpy.ones(0), numpy.ones(0)) == 0.0
    assert K.spmv(numpy.array([0]), numpy.array([], numpy.int64), numpy.ones(0), numpy.ones(3),
                  shape=(0, 3)).shape == (0,)


@pytest.mark.parametrize("shape", [(2**62, 4), (2**40, 2**40), (-1, 3)], ids=str)
def test_impossible_shapes(shape):
    with pytest.raises(ValueError):
        lapis.zeros(shape)
    with pytest.raises(ValueError):
        K.spmv(numpy.array([0]), numpy.array([0]), numpy.ones(1), numpy.ones(1), shape=shape)


def test_failed_allocations_raise_memory_error():
    with pytest.raises(MemoryError):
        lapis.zeros((2**41,))


@pytest.mark.parametrize("kwargs,error", [
    (dict(shape=(2,)), ValueError), (dict(shape="ab"), ValueError), (dict(shape=None), ValueError),
], ids=str)
def test_bad_sparse_shapes(kwargs, error):
    with pytest.raises(error, match="shape"):
        K.spmv(numpy.array([0, 1, 2]), numpy.array([0, 1]), numpy.ones(2), numpy.ones(2), **kwargs)


@pytest.mark.parametrize("indptr_dtype,indices_dtype", [
    (numpy.int32, numpy.int64), (numpy.int64, numpy.int32), (numpy.float64, numpy.float64), (numpy.uint32, numpy.uint32),
], ids=str)
def test_index_arrays_of_mixed_or_non_index_dtypes_are_refused_by_name(indptr_dtype, indices_dtype):
    indptr, indices = numpy.array([0, 1, 2], indptr_dtype), numpy.array([0, 1], indices_dtype)
    listed = rf"\(indptr={numpy.dtype(indptr_dtype)}, indices={numpy.dtype(indices_dtype)}\)"
    with pytest.raises(TypeError, match=rf"spmv: index arrays must all be int32 or all int64 {listed}"):
        K.spmv(indptr, indices, numpy.ones(2), numpy.ones(2), shape=(2, 2))


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


class Extent:
    """An object that is an integer by NumPy's rule: it has __index__."""

    def __index__(self):
        return 2


@pytest.mark.parametrize("make", [
    lambda n: lapis.zeros((n, 3)), lambda n: lapis.zeros(n), lambda n: lapis.empty((3, n)),
    lambda n: lapis.zeros(6).reshape(n, 3), lambda n: lapis.zeros(6).reshape((3, n)),
    lambda n: lapis.zeros((4, 4))[n], lambda n: K.conv2d_nchw(numpy.ones((1, 1, 4, 4)), numpy.ones((1, 1, 2, 2)),
                                                             stride=n),
], ids=["zeros", "zeros(int)", "empty", "reshape", "reshape(tuple)", "index", "kernel setting"])
def test_one_integer_rule_everywhere(make):
    """NumPy's rule, in every place lapis takes an integer: __index__ objects and numpy integers are
    integers; a bool and a float are not (TypeError, IndexError for an index)."""
    for integer in (2, numpy.int32(2), Extent()):
        make(integer)
    for not_integer in (True, numpy.True_, 2.0):
        with pytest.raises((TypeError, IndexError)):
            make(not_integer)
