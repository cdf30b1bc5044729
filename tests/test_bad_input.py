"""Bad input outside the kernels' own arguments (those are tests/kernels/): impossible shapes and
failed allocations, and NumPy's rule for an integer in every place lapis takes one."""
import numpy
import pytest

import lapis
import lapis.kernels as K


@pytest.mark.parametrize("shape", [(2**62, 4), (2**40, 2**40), (-1, 3)], ids=str)
def test_impossible_shapes(shape):
    with pytest.raises(ValueError):
        lapis.zeros(shape)


def test_failed_allocations_raise_memory_error():
    with pytest.raises(MemoryError):
        lapis.zeros((2**41,))


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
