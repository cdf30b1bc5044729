# lapis's C-level entry point for other extensions (lapis/interop/python_api.hpp): the capsule
# lapis._core._C_API holding a versioned table of function pointers. Included into _core.pyx.

from cpython.exc cimport PyErr_SetObject
from cpython.pycapsule cimport PyCapsule_New
from cpython.ref cimport PyObject


cdef extern from "lapis/core/build_info.hpp" namespace "lapis" nogil:
    cdef cppclass BuildInfo "lapis::BuildInfo":
        pass
    # the address of the runtime library's record (a reference, which Cython cannot take)
    const BuildInfo* runtime_build_address "(&lapis::runtime_build())"


cdef extern from "lapis/interop/python_api.hpp" namespace "lapis::python_api" nogil:
    cdef cppclass CApi "lapis::python_api::CApi":
        int abi_version
        const BuildInfo* build
        PyObject* (*to_python)(const shared_ptr[AnyDualBuffer]* buffer) noexcept
        int (*from_python)(PyObject* obj, shared_ptr[AnyDualBuffer]* buffer) noexcept
    const char* capsule_name


cdef extern from "lapis/config.hpp":
    int LAPIS_ABI_VERSION


cdef PyObject* _api_to_python(const shared_ptr[AnyDualBuffer]* buffer) noexcept with gil:
    try:
        dv = wrap(buffer[0], None)
    except BaseException:
        return NULL
    Py_INCREF(dv)
    return <PyObject*>dv


cdef int _api_from_python(PyObject* obj, shared_ptr[AnyDualBuffer]* buffer) noexcept with gil:
    if not isinstance(<object>obj, DualView):
        PyErr_SetObject(TypeError, f"expected a lapis.DualView, not {type(<object>obj).__name__}")
        return -1
    try:
        (<DualView>obj)._buffer()  # TypeError for a DualView that was never initialized
    except BaseException:
        return -1
    buffer[0] = (<DualView>obj).buffer
    return 0


cdef CApi _api
_api.abi_version = LAPIS_ABI_VERSION
_api.build = runtime_build_address
_api.to_python = _api_to_python
_api.from_python = _api_from_python
_C_API = PyCapsule_New(&_api, capsule_name, NULL)
