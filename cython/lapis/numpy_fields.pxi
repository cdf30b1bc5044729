# The fields of a numpy array, read through numpy's inline accessors (no call into its C API): the
# cache of wrappings (adoptions.pxi) and the blocks registered for copies (host_blocks.pxi) read them
# on every call. Included into _core.pyx.

from cpython.object cimport PyObject


cdef extern from "numpy/ndarraytypes.h" nogil:
    ctypedef struct PyArrayObject:
        pass
    ctypedef struct PyArray_Descr:
        pass
    void* PyArray_DATA(PyArrayObject* array)
    int PyArray_NDIM(PyArrayObject* array)
    Py_ssize_t* PyArray_DIMS(PyArrayObject* array)
    Py_ssize_t* PyArray_STRIDES(PyArrayObject* array)
    PyArray_Descr* PyArray_DESCR(PyArrayObject* array)
    int PyArray_FLAGS(PyArrayObject* array)
    PyObject* PyArray_BASE(PyArrayObject* array)
    int NPY_ARRAY_WRITEABLE
    int NPY_ARRAY_OWNDATA
    int NPY_ARRAY_C_CONTIGUOUS
    int NPY_ARRAY_F_CONTIGUOUS
