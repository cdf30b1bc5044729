# The allocation a borrowed numpy array's memory lies in: registered with the driver for its copies
# (lapis/runtime/host_registration.hpp), the registration is kept from one DualView of the array to
# the next (a LAPIS program wraps its arrays anew at every call) until the numpy array that owns the
# memory dies. A weak reference to that owner says when: its callback runs before numpy frees the
# memory, and numpy refuses to resize an array that has one, so the memory stays where it was
# registered until then (lapis.empty_cache() lets go of every one). Memory that no numpy array owns
# (a bytearray's, a foreign buffer's) is registered for one DualView's life. Included into _core.pyx.

import functools
import weakref


cdef type _owning_array = numpy.ndarray
# id(owner) -> (the weak reference whose callback ends its registration, the block's address)
cdef dict _block_owners = {}


def _block_owner_died(size_t key, size_t begin, reference):
    _block_owners.pop(key, None)
    forget_kept_host_block(<const void*>begin)


cdef forget_block_owners():
    """Lets go of every owner (lapis.empty_cache): each registration goes with its last DualView,
    and numpy may resize the arrays again."""
    cdef size_t begin
    for reference, begin in _block_owners.values():
        forget_kept_host_block(<const void*>begin)
    _block_owners.clear()


cdef HostBlock host_block_of(array, const void* data, size_t nbytes):
    """The block to register for `nbytes` at `data`, a part of numpy array `array`'s memory: the
    allocation of the array that owns it, kept while that array lives; empty (the part itself, for
    one DualView's life) where no numpy array owns it whole, and where no copy would ask."""
    cdef HostBlock block
    block.begin, block.bytes, block.kept = NULL, 0, False
    if nbytes < host_registration_min_bytes or c_sides_alias():
        return block
    owner = array
    cdef PyObject* base
    while not (PyArray_FLAGS(<PyArrayObject*>owner) & NPY_ARRAY_OWNDATA):
        base = PyArray_BASE(<PyArrayObject*>owner)
        if base == NULL or not isinstance(<object>base, _owning_array):
            return block
        owner = <object>base
    if not PyArray_FLAGS(<PyArrayObject*>owner) & (NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_F_CONTIGUOUS):
        return block
    cdef size_t begin = <size_t>PyArray_DATA(<PyArrayObject*>owner), size = owner.nbytes
    if <size_t>data < begin or <size_t>data + nbytes > begin + size:
        return block
    cdef size_t key = id(owner)
    if key not in _block_owners:
        _block_owners[key] = (weakref.ref(owner, functools.partial(_block_owner_died, key, begin)), begin)
    block.begin, block.bytes, block.kept = <const void*>begin, size, True
    return block
