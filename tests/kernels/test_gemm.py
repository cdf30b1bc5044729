"""gemm and batched_gemm: values against numpy for every kind of out, the transfer contract of a
call (exact, on the simulated device), and bad input and outputs."""
import numpy
import pytest

import lapis
import lapis.kernels as K
from conftest import counts
from support.kernel_checks import FLOATS, check, out_variants, raises_before_writing_out, run


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


def test_results_never_hold_uninitialized_memory():
    # k == 0: nothing is summed into the result, which must still be zero
    assert not numpy.isnan(K.gemm(numpy.ones((3, 0)), numpy.ones((0, 4))).asnumpy()).any()


# ---------------------------------------------------------------- the transfer contract

def test_numpy_inputs_cost_one_upload_each_per_call():
    a, b = numpy.ones((4, 3)), numpy.ones((3, 2))
    for _ in range(2):
        with lapis.count_transfers() as t:
            K.gemm(a, b)
        assert t == counts(2, a.nbytes + b.nbytes)


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


def test_dualview_out_is_written_on_the_device_without_transfers():
    A, B = lapis.full((2, 3), 1.0), lapis.full((3, 2), 2.0)
    C = lapis.zeros((2, 2))
    with lapis.count_transfers() as t:
        assert K.gemm(A, B, out=C) is C
    assert t == lapis.TransferStats()
    assert C.need_sync_host
    numpy.testing.assert_array_equal(C.asnumpy(), numpy.full((2, 2), 6.0))


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("call,error,match", [
    (lambda out: K.gemm(numpy.ones((2, 3)), numpy.ones((4, 2)), out=out), ValueError, "align"),
    (lambda out: K.gemm(numpy.ones(3), numpy.ones((3, 2)), out=out), ValueError, "2-dimensional"),
    (lambda out: K.gemm(numpy.ones((2, 3)), numpy.ones((3, 2), numpy.float32), out=out), TypeError, "mixed"),
    (lambda out: K.gemm(numpy.ones((2, 3), int), numpy.ones((3, 2), int), out=out), TypeError, "float32 or float64"),
    (lambda out: K.gemm(2.0, numpy.ones((3, 2)), out=out), TypeError, "a:"),
    (lambda out: K.gemm([[1.0]], numpy.ones((1, 2)), out=out), TypeError, "a:"),
    (lambda out: K.batched_gemm(numpy.ones((2, 2, 3)), numpy.ones((3, 3, 2)), out=out), ValueError, "align"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_bad_input_raises_before_writing_out(call, error, match):
    raises_before_writing_out(call, error, match)


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


def test_a_read_only_out_is_refused_before_any_input_moves():
    a = lapis.DualView(numpy.ones((2, 3)))  # host side newer: a call would upload it
    frozen = numpy.zeros((2, 2))
    frozen.flags.writeable = False
    with lapis.count_transfers() as t:
        with pytest.raises(lapis.ReadOnlyError, match="gemm: out"):
            K.gemm(a, numpy.ones((3, 2)), out=frozen)
    assert t.stats == lapis.TransferStats() and a.need_sync_device
    assert issubclass(lapis.ReadOnlyError, ValueError) and issubclass(lapis.ReadOnlyError, BufferError)
