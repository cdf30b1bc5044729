# The dtypes a DualView holds and the shapes it takes, from the C++ element type table. Included
# into _core.pyx.


# The supported dtypes, from the element type table (core/element_type.hpp), looked up per call
# instead of computed: comparing dtypes one by one and `dtype.name` (built by numpy in Python) cost
# microseconds, as much as the rest of a kernel call. Typed as dicts, so that Cython looks them up
# in C.
cdef dict _ELEMENT_TYPES = {}  # numpy's dtype -> its ElementType
cdef dict _DTYPES = {}         # ElementType (as an int) -> numpy's dtype
for _i in range(1, element_type_count):
    _dtype = numpy.dtype(element_types[_i].name.decode())
    _ELEMENT_TYPES[_dtype] = element_types[_i].type
    _DTYPES[<int>element_types[_i].type] = _dtype
cdef dict _CANONICAL = {dtype: dtype for dtype in _ELEMENT_TYPES}  # any equal dtype (intp, "f8") -> the key above
cdef object _DTYPE = numpy.dtype


cdef _supported_dtype(dtype):
    """The dtype itself, normalized (e.g. intp -> int64), or TypeError naming it."""
    # Most calls pass a dtype already: no numpy.dtype() call. (isinstance would ask numpy.dtype's
    # metaclass for __instancecheck__.)
    if PyObject_TypeCheck(dtype, <PyTypeObject*>_DTYPE):
        canonical = _CANONICAL.get(dtype)  # a dtype of another byte order is equal to no key
        if canonical is not None:
            return canonical
    try:
        dtype = numpy.dtype(dtype)
    except TypeError:
        raise TypeError(f"lapis: {dtype!r} is not a dtype") from None
    if dtype.isnative and dtype in _CANONICAL:
        return _CANONICAL[dtype]
    raise TypeError(f"lapis: unsupported dtype {dtype.str!r} ({dtype}); supported: "
                    f"{', '.join(d.name for d in _ELEMENT_TYPES)}, in native byte order")


cdef Shape _make_shape(shape, dtype) except *:
    """A C++ Shape of `dtype` elements (a supported dtype) from an integer or a sequence of integers
    (integers.pxi's rule): TypeError for anything else; ValueError as _shape_of says."""
    if hasattr(shape, "__index__") and not isinstance(shape, _BOOLS):
        shape = (shape,)
    cdef tuple entries
    try:
        entries = shape if type(shape) is tuple else tuple(shape)
    except TypeError:
        raise TypeError(f"lapis: shape must be an int or a sequence of ints, not {type(shape).__name__}") from None
    cdef vector[int64_t] extents
    extents.reserve(len(entries))
    for n in entries:
        extents.push_back(_int64(n, "lapis: a shape entry"))
    return _shape_of(extents, dtype)


MAX_RANK = max_rank  # the most dimensions a DualView has (core/shape.hpp), for the Python modules


cdef Shape _shape_of(const vector[int64_t]& extents, dtype) except *:
    """A C++ Shape of `extents` and `dtype` elements (a supported dtype); ValueError for negative
    extents, ranks over lapis's maximum and sizes that do not fit in memory addresses."""
    if extents.size() > max_rank:
        raise ValueError(f"lapis: rank {extents.size()} exceeds the maximum of {max_rank}")
    cdef Shape result
    result.rank = extents.size()
    result.itemsize = dtype.itemsize
    result.element = _ELEMENT_TYPES[dtype]
    for i in range(result.rank):
        if extents[i] < 0:
            raise ValueError(f"lapis: negative dimensions are not allowed (shape {tuple(extents)})")
        result.extents[i] = extents[i]
    result.nbytes()  # ValueError when the size does not fit in memory addresses
    return result
