# The machinery of a kernel call: each argument becomes a DualView (a numpy array borrowed, its
# wrapping kept for the next call with it: adoptions.pxi), the element type picks the
# instantiation, the output is `out` or a new result, checked against the inputs for overlap, and a
# numpy `out` holds the result on return. Included into kernels.pyx.


cdef extern from "lapis/runtime/graph.hpp" namespace "lapis" nogil:
    const void* recording_graph "lapis::recording_graph"()


cdef object _NUMPY_SCALAR = numpy.generic
cdef dict _FLOATS = {numpy.dtype(numpy.float32): ElementType.float32, numpy.dtype(numpy.float64): ElementType.float64}
_DTYPES = {ElementType.float32: numpy.dtype(numpy.float32), ElementType.float64: numpy.dtype(numpy.float64)}
_INDICES = {numpy.dtype(numpy.int32): ElementType.int32, numpy.dtype(numpy.int64): ElementType.int64}


cdef class _Operand:
    """An operand of an elementwise kernel: a DualView (an array, or a 0-d one read on the device),
    or a number passed by value. `dtype` is None for a Python number, which takes the arrays' type
    as in NumPy 2 (a "weak" scalar); a NumPy scalar keeps its own."""
    cdef DualView dv
    cdef double value
    cdef object dtype

    cdef OperandArg arg(self):
        cdef OperandArg a
        if self.dv is not None:
            a.buffer = self.dv.buffer
        a.value = self.value
        return a


cdef class _Call:
    """One kernel call's arguments: each becomes a DualView (a numpy array is borrowed, once per
    distinct array), checked by name; then the output, `out` or a new result."""
    cdef str kernel
    cdef object out
    cdef Adoptions adoptions  # the arguments that are not DualViews, once the call has one
    cdef list inputs          # name, original object, DualView of each, in a row (no tuple per
                              # input: every call with an `out` keeps them), to check `out` against

    def __cinit__(self, str kernel, out=None, bint updates=False):
        """`updates`: the call writes arguments other than its result (written()), so it checks them
        against the others even without an `out`."""
        self.kernel = kernel
        self.out = out
        if out is not None or updates or recording_graph() != NULL:  # (a graph keeps every argument)
            self.inputs = []

    cdef DualView input(self, str name, obj):
        cdef DualView dv = obj if isinstance(obj, DualView) else self.take(name, obj)
        dv._buffer()  # TypeError for a DualView that was never initialized
        if self.inputs is not None:
            self.keep_input(name, obj, dv)
        return dv

    cdef keep_input(self, str name, obj, DualView dv):
        self.inputs.append(name)
        self.inputs.append(obj)
        self.inputs.append(dv)

    cdef DualView take(self, str name, obj):
        """An argument that is not a DualView, as one (each object once per call; a numpy array
        through the cache of arrays earlier calls took, adoptions.pxi)."""
        if recording_graph() != NULL:
            raise GraphCaptureError(f"{self.kernel}: {name}: a {type(obj).__module__}.{type(obj).__qualname__} inside "
                                    "lapis.graph(): a graph replays calls on DualViews only (lapis.asdualview() it "
                                    "before the capture)")
        if self.adoptions is None:
            self.adoptions = Adoptions()
        try:
            return self.adoptions.take(obj)
        except TypeError as e:
            raise TypeError(f"{self.kernel}: {name}: expected a numpy array, a device array or a lapis.DualView: "
                            f"{e}") from None

    cdef DualView written(self, str name, obj):
        """An argument the kernel writes (or reads and writes) on the device, other than its result:
        a lapis.DualView (an array would need the result copied back into it), apart from the
        arguments taken before."""
        if not isinstance(obj, DualView):
            raise TypeError(f"{self.kernel}: {name}: expected a lapis.DualView (updated in place on the device), "
                            f"got {type(obj).__name__}")
        cdef DualView dv = obj
        dv._buffer()
        self.check_apart(name, obj, dv, False)
        self.keep_input(name, obj, dv)
        return dv

    cdef _Operand operand(self, str name, obj):
        """A scalar or array operand: Python and NumPy numbers by value, anything else as input()."""
        cdef _Operand o = _Operand()
        number = isinstance(obj, _NUMPY_SCALAR) or isinstance(obj, (bool, int, float, complex))
        if not isinstance(obj, DualView) and number:
            if isinstance(obj, _NUMPY_SCALAR):
                o.dtype = obj.dtype
                if o.dtype.kind not in "biuf":
                    raise TypeError(f"{self.kernel}: {name}: unsupported scalar of dtype {o.dtype}")
            elif isinstance(obj, complex):
                raise TypeError(f"{self.kernel}: {name}: complex scalars are not supported")
            o.value = obj
        else:
            o.dv = self.input(name, obj)
            o.dtype = o.dv.dtype
        return o

    cdef ElementType operand_scalar(self, names_and_operands):
        """The element type of an elementwise call: the one dtype of its arrays and typed scalars
        (float32 or float64; TypeError for a mix), float64 when it has only Python numbers."""
        cdef _Operand o
        dtype = None
        for _, o in names_and_operands:  # at once when every typed operand has the same dtype object
            if o.dtype is not None and o.dtype is not dtype:
                if dtype is not None:
                    break
                dtype = o.dtype
        else:
            if dtype is None:
                return ElementType.float64
            if dtype in _FLOATS:
                return _FLOATS[dtype]
        typed = [(name, o.dtype) for name, o in names_and_operands if o.dtype is not None]
        dtypes = {dtype for _, dtype in typed}
        if len(dtypes) > 1:
            listed = ", ".join(f"{name}={dtype}" for name, dtype in typed)
            raise TypeError(f"{self.kernel}: mixed dtypes ({listed}); all must be float32 or all float64 "
                            f"(Python numbers take the arrays' type)")
        dtype = dtypes.pop() if dtypes else numpy.dtype(numpy.float64)
        if dtype not in _FLOATS:
            raise TypeError(f"{self.kernel}: unsupported dtype {dtype}; expected float32 or float64")
        return _FLOATS[dtype]

    cdef error(self, str name, str message, kind=ValueError):
        return kind(f"{self.kernel}: {name}: {message}")

    cdef ElementType scalar(self, names_and_views):
        """The common float dtype of the named DualViews, or TypeError (no silent casting)."""
        cdef DualView dv
        dtype = None
        for _, dv in names_and_views:
            if dtype is None:
                dtype = dv.dtype
            elif dv.dtype is not dtype:  # a DualView's dtype is canonical: one object per dtype
                listed = ", ".join(f"{name}={view.dtype}" for name, view in names_and_views)
                raise TypeError(f"{self.kernel}: mixed dtypes ({listed}); all must be float32 or all float64")
        if dtype not in _FLOATS:
            raise TypeError(f"{self.kernel}: unsupported dtype {dtype}; expected float32 or float64")
        return _FLOATS[dtype]

    cdef ElementType scalar_of_two(self, str a_name, DualView a, str b_name, DualView b) except *:
        """scalar() of two DualViews, without building its list where their dtype agrees (every call
        of a two-input kernel asks)."""
        if a.dtype is b.dtype and a.dtype in _FLOATS:
            return _FLOATS[a.dtype]
        return self.scalar([(a_name, a), (b_name, b)])

    cdef ElementType index(self, names_and_views):
        dtypes = {dv.dtype for _, dv in names_and_views}
        if len(dtypes) != 1 or next(iter(dtypes)) not in _INDICES:
            listed = ", ".join(f"{name}={dv.dtype}" for name, dv in names_and_views)
            raise TypeError(f"{self.kernel}: index arrays must all be int32 or all int64 ({listed})")
        return _INDICES[dtypes.pop()]

    cdef DualView output(self, const vector[int64_t]& shape, dtype, bint in_place=False, str name="out"):
        """The DualView the kernel writes: a new result of `shape`, `out` itself, or `out` wrapped (a
        numpy array as the host side, a CuPy array or PyTorch CUDA tensor as the device side). The
        kernel checks out's shape. With in_place (elementwise kernels), out may be exactly one of
        the inputs (the same DualView state, or the same array): each element is read before it is
        written."""
        cdef DualView dv
        out = self.out
        if out is None:
            return empty_dualview_of(shape, dtype)
        dv = out if isinstance(out, DualView) else self.take(name, out)
        dv._buffer()
        if dv.dtype is not dtype and dv.dtype != dtype:  # (canonical dtypes: most calls compare none)
            raise self.error(name, f"dtype {dv.dtype} does not match the result's {dtype} (no silent casting)",
                             TypeError)
        self.check_apart(name, out, dv, in_place)
        if not isinstance(out, DualView):
            check_write_back(dv)  # before anything runs: the result would stay on the device
        return dv

    cdef check_apart(self, str name, obj, DualView dv, bint in_place):
        """ValueError unless `dv` (argument `name`, given as `obj`) shares no memory with the
        arguments taken so far; with in_place, it may be exactly one of them."""
        cdef MemorySpan spans[2]
        cdef int count = -1  # (dv's spans, found once they are needed)
        cdef list inputs = self.inputs
        cdef Py_ssize_t i
        for i in range(0, len(inputs), 3):
            input_name, input_obj, input_dv = inputs[i], inputs[i + 1], <DualView>inputs[i + 2]
            if in_place and dv.buffer.get() == (<DualView>input_dv).buffer.get():
                continue
            if obj is not input_obj and (surely_apart(dv, input_dv)
                                         or arrays_surely_apart(obj, dv, input_obj, input_dv)):
                continue
            if count < 0:
                count = spans_in_memory(dv, spans)
            if may_overlap(obj, dv, spans, count, input_obj, input_dv):
                hint = "be exactly that input, or " if in_place else ""
                raise self.error(name, f"overlaps the input {input_name}; it must {hint}not share its memory")

    cdef finish(self, DualView result):
        """Returns `out` itself, or the new result. A numpy `out` holds the result on return: its
        device side is copied into it (once, where the sides are apart); a device array `out`
        (CuPy, PyTorch) already does."""
        returned = result
        if self.out is not None and not isinstance(self.out, DualView):
            write_back(result)
            returned = self.out
        self.done(result)
        return returned

    cdef done(self, DualView result=None):
        """The call returned normally: the arrays it took may serve the next call (adoptions.pxi);
        a graph that recorded the call keeps its DualViews."""
        if self.adoptions is not None:
            self.adoptions.keep()
        if recording_graph() != NULL:
            _keep_for_graph(self.inputs[2::3] + ([] if result is None else [result]))


cdef int64_t _int_setting(str kernel, str name, value) except? -1:
    """An integer setting of a kernel (a stride, a size), by lapis's one rule for integers
    (integers.pxi): TypeError for anything else, ValueError beyond 64 bits; its range is the
    kernel's to check."""
    number = _integer(value, f"{kernel}: {name}")
    try:
        return number
    except OverflowError:
        raise ValueError(f"{kernel}: {name} is out of range ({number})") from None


cdef double _number_setting(str kernel, str name, value) except? -1:
    """A floating-point setting of a kernel (an epsilon): a Python or NumPy number, not a bool."""
    if not isinstance(value, (int, float, numpy.integer, numpy.floating)) or isinstance(value, bool):
        raise TypeError(f"{kernel}: {name} must be a number, not {type(value).__name__}")
    return value
