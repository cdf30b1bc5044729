"""The fused conjugate-gradient updates cg_step, cg_precondition and cg_direction: values against
numpy with not one copy on resident DualViews, and what they refuse, changing nothing."""
import numpy
import pytest

import lapis
import lapis.kernels as K
from support.kernel_checks import FLOATS, tolerance


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


def test_cg_step_and_cg_precondition_make_their_scalar_when_given_none():
    rz, pq = lapis.full((), 2.0), lapis.full((), 4.0)
    p, q, x, r = (lapis.DualView(numpy.arange(3.0) + k) for k in range(4))
    rr = K.cg_step(rz, pq, p, q, x, r, None)
    expected_r = numpy.arange(3.0) + 3 - 0.5 * (numpy.arange(3.0) + 1)
    numpy.testing.assert_allclose(x.asnumpy(), numpy.arange(3.0) + 2 + 0.5 * numpy.arange(3.0))
    numpy.testing.assert_allclose(r.asnumpy(), expected_r)
    assert rr.shape == () and float(rr.asnumpy()) == pytest.approx(expected_r @ expected_r)
    z = lapis.zeros(3)
    rz = K.cg_precondition(lapis.full(3, 2.0), r, z, None)
    assert float(rz.asnumpy()) == pytest.approx(2 * expected_r @ expected_r)
