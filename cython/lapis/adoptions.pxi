# The numpy arrays a call takes as DualViews, and the cache that spares the next call given the same
# array the cost of wrapping it again (a LAPIS program hands lapis its numpy arrays on every call).
# Included into _core.pyx.
#
# Where the sides are one memory (a CPU build's default device), a cached array's DualView is the one
# its first call made. Each later call finds it by the array's id, checks that the array still has
# the same memory, shape, strides, element type and writability (resized, reshaped in place or made
# read-only, it is wrapped anew), and gives it the flags a new wrapping starts out with, its host side
# current. (A read-only array is wrapped at every call: its host side cannot be marked.) An array
# that died and a new one with its id and the very same memory and layout are one wrapping, the same
# memory. The cache holds no reference to an array (its DualView holds the array only while a call
# uses it: numpy may resize it, and it dies when its owner lets it go), and reuses no buffer that
# anything but the cache holds (a handle a module kept could have changed it unseen). One call at a
# time uses an entry (another thread's call wraps the array anew meanwhile); a call that raises drops
# its entries, and their DualViews go as new ones would have.

# The most arrays the cache holds (the first cached go first).
cdef Py_ssize_t _CACHED_ARRAYS = c_cached_arrays()  # LAPIS_CACHED_ARRAYS; 0: off

cdef dict _adopted = {}  # id(array) -> _Adopted


cdef class _Adopted:
    """A cached array's DualView and what the array looked like when it was wrapped."""
    cdef DualView dv
    cdef object key    # the array's id, its key in the cache
    cdef bint in_use   # by a call (one at a time)
    cdef bint listed   # the cache's entry for its key (set and cleared where the cache changes)
    cdef void* data
    cdef int ndim
    cdef int writeable
    cdef object dtype  # the array's own dtype object, held so that its address names it
    cdef Py_ssize_t shape[max_rank]
    cdef Py_ssize_t strides[max_rank]

    cdef bint describes(self, PyArrayObject* array):
        if PyArray_DATA(array) != self.data or PyArray_NDIM(array) != self.ndim \
                or <PyObject*>PyArray_DESCR(array) != <PyObject*>self.dtype \
                or (PyArray_FLAGS(array) & NPY_ARRAY_WRITEABLE) != self.writeable:
            return False
        cdef Py_ssize_t* shape = PyArray_DIMS(array)
        cdef Py_ssize_t* strides = PyArray_STRIDES(array)
        for i in range(self.ndim):
            if shape[i] != self.shape[i] or strides[i] != self.strides[i]:
                return False
        return True


cdef type _ndarray = numpy.ndarray


cdef _Adopted _cached_wrapping(obj):
    """The cache's entry for `obj`, marked in use, if it has one that no other call uses and that
    still describes obj's memory."""
    cdef _Adopted entry = _adopted.get(<Py_ssize_t><PyObject*>obj)
    if entry is None or entry.in_use:
        return None
    if entry.dv.buffer.use_count() != 1:  # held elsewhere too (a module kept a handle): changed unseen
        _forget(entry)
        return None
    if not entry.describes(<PyArrayObject*>obj):
        return None
    entry.in_use = True
    return entry


cdef _Adopted _new_entry(obj, DualView dv):
    """An entry for `obj`, just wrapped as `dv`, marked in use, if the cache may hold it."""
    cdef AnyDualBuffer* b = dv.buffer.get()
    # Only where the sides are one memory: a wrapping then holds no memory of its own. Apart, its device
    # side would stay allocated after the array died, until newer arrays took its place (and there
    # each call's copy costs far more than wrapping the array does). A read-only host side could not
    # be marked current again.
    if _CACHED_ARRAYS == 0 or not b.aliased() or not b.borrowed(Side.host) or not b.host_writable():
        return None
    cdef PyArrayObject* array = <PyArrayObject*>obj
    cdef _Adopted entry = _Adopted()
    entry.dv, entry.data, entry.ndim = dv, PyArray_DATA(array), PyArray_NDIM(array)
    entry.dtype = <object><PyObject*>PyArray_DESCR(array)
    entry.writeable = PyArray_FLAGS(array) & NPY_ARRAY_WRITEABLE
    for i in range(entry.ndim):
        entry.shape[i], entry.strides[i] = PyArray_DIMS(array)[i], PyArray_STRIDES(array)[i]
    entry.key = <Py_ssize_t><PyObject*>obj
    entry.in_use = True
    return entry


cdef _forget(_Adopted entry):
    if entry.listed:
        _unlist(entry.key)


cdef _unlist(key):
    cdef _Adopted entry = _adopted.pop(key)
    entry.listed = False


# Its DualViews hold the call's arrays, and its death ends the call's use of their entries: the
# collector must not clear it first.
@cython.no_gc_clear
cdef class Adoptions:
    """The arrays one call takes as DualViews: each object once, however often it is passed."""

    def __cinit__(self):
        self.taken = []  # (one list: a call's cost is mostly its objects')

    @property
    def views(self):
        """The DualViews of the objects taken, in order."""
        return self.taken[1::3]

    cpdef DualView take(self, obj):
        """`obj` as a DualView (lapis.asdualview), the same one each time this call passes it; a
        numpy array's from the cache where it has one."""
        cdef list taken = self.taken
        cdef Py_ssize_t i
        for i in range(0, len(taken), 3):
            if taken[i] is obj:
                return taken[i + 1]
        cdef DualView dv
        cdef _Adopted entry = None
        cdef AnyDualBuffer* b
        cdef bint array = isinstance(obj, _ndarray)
        if array:
            entry = _cached_wrapping(obj)
        if entry is not None:
            dv = entry.dv
            taken.append(obj)  # (first: should marking it raise, the call's end drops its entry)
            taken.append(dv)
            taken.append(entry)
            dv._owner = obj
            b = dv.buffer.get()
            # its flags as a new wrapping's: the host side current, the caller may have written the
            # array since (one memory: a write access syncs by flags alone, then marks the host side)
            b.access(Side.host, Access.write, Intent.implicit)
            return dv
        dv = asdualview(obj)
        if array:
            entry = _new_entry(obj, dv)
        taken.append(obj)
        taken.append(dv)
        taken.append(entry)
        return dv

    cpdef keep(self):
        """After the call returned normally: its arrays' entries serve the next call."""
        cdef _Adopted entry
        cdef list taken = self.taken
        cdef Py_ssize_t i
        for i in range(2, len(taken), 3):
            if taken[i] is None:
                continue
            entry = taken[i]
            taken[i] = None  # (done with: a later death of this Adoptions leaves it be)
            entry.in_use = False
            if entry.listed:  # (the cache's already: no lookup)
                entry.dv._owner = None
                continue
            cached = _adopted.get(entry.key)
            if cached is not None and cached is not entry and (<_Adopted>cached).in_use:
                continue  # another call's, for an array of this id: that call decides
            entry.dv._owner = None
            if cached is None and len(_adopted) >= _CACHED_ARRAYS:
                _unlist(next(iter(_adopted)))  # the oldest
            elif cached is not None:
                (<_Adopted>cached).listed = False
            _adopted[entry.key] = entry
            entry.listed = True

    def __dealloc__(self):
        # A call that raised: its entries leave the cache, and their DualViews go as a new one
        # would have at the end of such a call.
        cdef list taken = self.taken
        cdef Py_ssize_t i
        for i in range(2, len(taken), 3):
            if taken[i] is not None:
                _forget(taken[i])


cdef drop_idle_wrappings():
    """Drops every kept wrapping that no call is using."""
    for key in [key for key, entry in _adopted.items() if not (<_Adopted>entry).in_use]:
        _unlist(key)


def _cached_arrays():
    """How many numpy arrays the adoption cache holds (for tests)."""
    return len(_adopted)
