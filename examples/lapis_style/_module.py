"""Builds the LAPIS-style module (module/) against the installed lapis on first use and loads it
with ctypes, as LAPIS's Python glue loads the modules it compiles. Two ways to call it:
  memref_*: LAPIS's own entry points over MLIR memref descriptors of numpy arrays (every call
            uploads its inputs and downloads its result);
  dv_*:     lapis's entry points over lapis.DualView objects (results stay on the device)."""
import ctypes
import pathlib
import sys

import numpy

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import _modules  # noqa: E402

import lapis  # noqa: E402
from lapis import memref  # noqa: E402


class CsrShape(ctypes.Structure):
    _fields_ = [("rows", ctypes.c_int64), ("columns", ctypes.c_int64)]


def load():
    library = ctypes.PyDLL(str(_modules.build(HERE / "module") / "lapis_style.so"))
    if library.lapis_style_init() != 0:
        raise ImportError("lapis_style: lapis_style_init failed")
    for name, nargs in (("dv_gemm", 2), ("dv_residual", 3), ("dv_norm2", 1), ("dv_sum_and_product", 2)):
        function = getattr(library, name)
        function.argtypes, function.restype = [ctypes.py_object] * nargs, ctypes.py_object
    library.dv_spmv.argtypes = [ctypes.py_object] * 4 + [ctypes.c_int64, ctypes.c_int64]
    library.dv_spmv.restype = ctypes.py_object
    return library


def memref_call(function, result_ctype, result_ndim, *arrays, extra=()):
    """Calls a memref entry point on numpy arrays (viewed, not copied) and returns its result as
    a DualView over the result's host memory, which the module keeps alive."""
    result = memref.descriptor_type(result_ctype, result_ndim)()
    descriptors = [memref.descriptor(lapis.DualView(numpy.ascontiguousarray(a))) for a in arrays]
    function(ctypes.byref(result), *(ctypes.byref(d) for d in descriptors), *extra)
    if not result.data:
        raise ValueError(f"{function.__name__}: the module refused its arguments")
    return memref.from_descriptor(result)
