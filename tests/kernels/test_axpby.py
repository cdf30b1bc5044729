"""axpby (alpha * x + beta * y): values against numpy with scalars as numbers or 0-d DualViews, its
update in place, and bad scalars and operands."""
import numpy
import pytest

import lapis
import lapis.kernels as K
from support.kernel_checks import BAD_OPERANDS, FLOATS, relative_tolerance, values


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("alpha_kind", ["number", "0-d DualView"])
def test_axpby(alpha_kind, dtype, rng):
    x, y = rng.standard_normal((4, 5)).astype(dtype), rng.standard_normal((4, 5)).astype(dtype)
    alpha = -1.5 if alpha_kind == "number" else lapis.full((), -1.5, dtype)
    result = K.axpby(alpha, x, 0.25, y)
    numpy.testing.assert_allclose(values(result), dtype(-1.5) * x + dtype(0.25) * y, **relative_tolerance(dtype))
    numpy.testing.assert_allclose(values(K.axpby(2.0, x, 1.0, 3.0)), 2 * x + 3, **relative_tolerance(dtype))


def test_in_place_update_of_a_dualview_moves_nothing(rng):
    x, y = rng.standard_normal(50), rng.standard_normal(50) + 3
    X, Y = lapis.DualView(x.copy()), lapis.DualView(y.copy())
    X.sync_device(), Y.sync_device()
    with lapis.count_transfers() as t:
        result = K.axpby(2.0, X, 1.0, Y, out=Y)
        expected = 2 * x + y
    assert result is Y and t.stats == lapis.TransferStats()
    numpy.testing.assert_allclose(Y.asnumpy(), expected, rtol=1e-13)


@pytest.mark.parametrize("bad", [numpy.ones(2), lapis.zeros((1,))], ids=["array", "1-element DualView"])
def test_axpby_scalars_must_be_scalars(bad):
    with pytest.raises(ValueError, match="alpha: expected a scalar"):
        K.axpby(bad, numpy.ones(2), 1.0, numpy.ones(2))
    with pytest.raises(ValueError, match="beta: expected a scalar"):
        K.axpby(1.0, numpy.ones(2), bad, numpy.ones(2))


@pytest.mark.parametrize("bad,error,match", BAD_OPERANDS)
def test_bad_operands(bad, error, match):
    out = numpy.full(3, 7.0)
    with pytest.raises(error, match=match):
        K.axpby(2.0, numpy.ones(3), 1.0, bad, out=out)
    assert (out == 7.0).all()
