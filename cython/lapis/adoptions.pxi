# The numpy arrays a call takes as DualViews, and the cache that spares the next call given the same
# array the cost of wrapping it again (a LAPIS program hands lapis its numpy arrays on every call).
# Included into _core.pyx.
#
# A cached array's DualView is the one its first call made. Each later call finds it by the array's
# id, checks that the array still has the same memory, shape, strides, element type and writability
# (resized, reshaped in place or made read-only, it is wrapped anew), and gives it the flags a new
# wrapping starts out with, its host side current. Where the sides are apart, a call that ends frees
# the device side (into the pool: the next call's allocation reuses the block), as a new wrapping's
# death would: a kept wrapping holds no memory between calls, and each call copies what it copied
# before. (A read-only array is wrapped at every call: its host side cannot be marked; so, where the
# sides are apart, is an array of 64 KiB or more: _new_entry says why.) An array
# that died and a new one with its id and the very same memory and layout are one wrapping, the same
# memory. The cache holds no reference to an array (its DualView holds the array only while a call
# uses it: numpy may resize it, and it dies when its owner lets it go), and reuses no buffer that
# anything but the cache holds (a handle a module kept could have changed it unseen). One call at a
# time uses an entry (another thread's call wraps the array anew meanwhile); a call that raises drops
# its entries, and their DualViews go as new ones would have.

# The most arrays the cache holds (the first cached go first).
cdef Py_ssize_t _CACHED_ARRAYS = c_cached_arrays()  # LAPIS_CACHED_ARRAYS; 0: off

cdef dict _adopted = {}  # id(array) -> _Adopted

# The entries the latest calls found, by the array's address, asked before the dict (whose lookup
# makes an int of the id): a program passes the same few arrays call after call. Each is listed.
cdef enum:
    _RECENT = 8
cdef size_t _recent_addresses[_RECENT]  # 0: an empty slot
cdef list _recent = [None] * _RECENT    # their entries
cdef Py_ssize_t _recent_next = 0        # the slot the next one takes


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
    cdef size_t address  # the array's, its id

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
    cdef _Adopted entry = _listed_entry(<size_t><PyObject*>obj)
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
    cdef PyArrayObject* array = <PyArrayObject*>obj
    # A read-only host side could not be marked current again.
    if _CACHED_ARRAYS == 0 or not b.borrowed(Side.host) or not b.host_writable():
        return None
    # Apart, only an array too small for its memory to be registered for copies (host_blocks.pxi): a
    # wrapping's record of which array owns its memory would outlive that array, and a new array in a
    # dead one's place would be registered as the dead one's. (A larger array's copy costs far more
    # than its wrapping.)
    if not b.aliased() and b.shape().nbytes() >= host_registration_min_bytes:
        return None
    cdef _Adopted entry = _Adopted()
    entry.dv, entry.data, entry.ndim = dv, PyArray_DATA(array), PyArray_NDIM(array)
    entry.dtype = <object><PyObject*>PyArray_DESCR(array)
    entry.writeable = PyArray_FLAGS(array) & NPY_ARRAY_WRITEABLE
    for i in range(entry.ndim):
        entry.shape[i], entry.strides[i] = PyArray_DIMS(array)[i], PyArray_STRIDES(array)[i]
    entry.address = <size_t><PyObject*>obj
    entry.key = <Py_ssize_t>entry.address
    entry.in_use = True
    return entry


cdef _forget(_Adopted entry):
    if entry.listed:
        _unlist(entry.key)


cdef _unlist(key):
    cdef _Adopted entry = _adopted.pop(key)
    entry.listed = False
    _drop_recent(entry)


cdef _list(_Adopted entry):
    """Lists `entry` under its key, in place of the entry listed there, if any."""
    cdef _Adopted listed = _adopted.get(entry.key)
    if listed is not None:
        listed.listed = False
        _drop_recent(listed)
    _adopted[entry.key] = entry
    entry.listed = True
    _remember(entry)


cdef _Adopted _listed_entry(size_t address):
    """The entry listed for the array at `address`, or None."""
    for i in range(_RECENT):
        if _recent_addresses[i] == address:
            return _recent[i]
    cdef _Adopted entry = _adopted.get(<Py_ssize_t>address)
    if entry is not None:
        _remember(entry)
    return entry


cdef _remember(_Adopted entry):
    global _recent_next
    _recent_addresses[_recent_next] = entry.address
    _recent[_recent_next] = entry
    _recent_next = (_recent_next + 1) % _RECENT


cdef _drop_recent(_Adopted entry):
    for i in range(_RECENT):
        if _recent[i] is entry:
            _recent_addresses[i] = 0
            _recent[i] = None


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
            # its flags as a new wrapping's: the host side current, whatever the device side held (the
            # caller may have written the array since); nothing is copied
            b.access(Side.host, Access.overwrite, Intent.implicit)
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
            if entry.dv.buffer.use_count() == 1:  # (the one user; where the sides are apart)
                entry.dv.buffer.get().free_device_side()
            if entry.listed:  # (the cache's already: no lookup)
                entry.dv._owner = None
                continue
            cached = _adopted.get(entry.key)
            if cached is not None and (<_Adopted>cached).in_use:
                continue  # another call's, for an array of this id: that call decides
            entry.dv._owner = None
            if cached is None and len(_adopted) >= _CACHED_ARRAYS:
                _unlist(next(iter(_adopted)))  # the oldest
            _list(entry)

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
