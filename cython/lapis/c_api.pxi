# lapis's C-level entry point for other extensions (lapis/interop/python_api.hpp): the capsule
# lapis._core._C_API holding a table of C function pointers, with an ABI version (must match) and a
# feature version (only grows: new entries are appended). Included into _core.pyx.

from cpython.exc cimport PyErr_SetObject
from cpython.pycapsule cimport PyCapsule_New
from cpython.ref cimport PyObject


cdef extern from "lapis/runtime/build_info.hpp" namespace "lapis" nogil:
    cdef cppclass BuildInfo "lapis::BuildInfo":
        pass
    # the address of the runtime library's record (a reference, which Cython cannot take)
    const BuildInfo* runtime_build_address "(&lapis::runtime_build())"


cdef extern from "lapis/core/buffer_ref.hpp" nogil:
    ctypedef struct lapis_buffer_ref:
        pass
    lapis_buffer_ref* new_ref "lapis::new_ref"(shared_ptr[AnyDualBuffer] buffer) except +
    shared_ptr[AnyDualBuffer] buffer_of "lapis::buffer_of"(const lapis_buffer_ref* ref)
    void release_ref "lapis::release_ref"(lapis_buffer_ref* ref)


cdef extern from "lapis/interop/python_api.hpp" namespace "lapis::python_api" nogil:
    cdef cppclass CApi "lapis::python_api::CApi":
        int abi_version
        int feature_version
        const BuildInfo* build
        PyObject* (*to_python)(const lapis_buffer_ref* buffer) noexcept
        lapis_buffer_ref* (*from_python)(PyObject* obj) noexcept
        void (*release)(lapis_buffer_ref* buffer) noexcept
        PyObject* (*asdualview)(PyObject* obj) noexcept
        void (*set_error)(int kind, const char* message) noexcept
    const char* capsule_name


# The table's functions report errors the C way: NULL with the Python exception set (an exception
# caught here would be cleared on leaving the except clause, so it is set again).
cdef void _keep_raised(BaseException error) noexcept:
    PyErr_SetObject(type(error), error)


cdef PyObject* _api_to_python(const lapis_buffer_ref* buffer) noexcept with gil:
    try:
        dv = wrap(buffer_of(buffer), None)
    except BaseException as error:
        _keep_raised(error)
        return NULL
    Py_INCREF(dv)
    return <PyObject*>dv


cdef lapis_buffer_ref* _api_from_python(PyObject* obj) noexcept with gil:
    if not isinstance(<object>obj, DualView):
        PyErr_SetObject(TypeError, f"expected a lapis.DualView, not {type(<object>obj).__name__}")
        return NULL
    try:
        (<DualView>obj)._buffer()  # TypeError for a DualView that was never initialized
        return new_ref((<DualView>obj).buffer)
    except BaseException as error:
        _keep_raised(error)
        return NULL


cdef void _api_release(lapis_buffer_ref* buffer) noexcept nogil:
    release_ref(buffer)


cdef PyObject* _api_asdualview(PyObject* obj) noexcept with gil:
    try:
        dv = asdualview(<object>obj)
    except BaseException as error:
        _keep_raised(error)
        return NULL
    Py_INCREF(dv)
    return <PyObject*>dv


cdef void _api_set_error(int kind, const char* message) noexcept with gil:
    try:
        _raise_error(<ErrorKind>kind, message)
    except BaseException as error:
        _keep_raised(error)


cdef CApi _api
_api.abi_version = LAPIS_ABI_VERSION
_api.feature_version = LAPIS_C_API_FEATURE_VERSION
_api.build = runtime_build_address
_api.to_python = _api_to_python
_api.from_python = _api_from_python
_api.release = _api_release
_api.asdualview = _api_asdualview
_api.set_error = _api_set_error
_C_API = PyCapsule_New(&_api, capsule_name, NULL)
