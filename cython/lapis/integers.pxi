# One rule for every integer lapis takes from Python: extents and shapes, indices, a kernel's
# integer settings, MPI ranks and tags. NumPy's rule: anything with __index__ (int, numpy
# integers, a 0-d integer lapis.DualView), never a bool (True is no extent). Included into _core.pyx.

import operator

cdef tuple _BOOLS = (type(True), numpy.bool_)  # (`bool` is C++'s here)


def _integer(value, str what):
    """`value` as an int by the rule above; TypeError naming `what` otherwise. Ranges are the
    caller's to check."""
    if isinstance(value, _BOOLS):
        raise TypeError(f"{what} must be an integer, not a bool")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an integer, not {type(value).__name__}") from None


cdef int64_t _int64(value, str what) except? -1:
    """_integer(value, what) within 64 bits; ValueError beyond them."""
    number = _integer(value, what)
    try:
        return number
    except OverflowError:
        raise ValueError(f"{what} is out of range ({number})") from None
