"""LAPIS-built modules with resident results: build a module from LAPIS's Kokkos emitter's output as it
is (build(), or python -m lapis build: lapis/lapis_build.py), load the shared library and call its
functions with numpy arrays or lapis.DualViews. Results come back as lapis.DualViews that stay where they were computed: passing
one to the next call, of this module or another, moves nothing, and .asnumpy() downloads it once.
Nothing piles up: a result is freed when it is dropped.

    module = lapis.lapis_module.load(lapis.lapis_module.build(["gemm.cpp", "gemm.hpp"]))
    c = module.forward(a, b)          # a lapis.DualView, resident
    d = module.forward(c, b)          # c read in place
    print(d.asnumpy())

Each function's parameters and results come from the module's lapis_signatures(). A numpy array
argument is borrowed (its memory is the host side); if the function writes it, the array holds the
result when the call returns. Arguments are checked by the module's C++ (rank, dtype, static
extents) before its function runs: TypeError for a wrong dtype or what is not an array, ValueError
for a wrong rank or extent, lapis.RuntimeFinalizedError once lapis is finalized (load() too).
"""
from __future__ import annotations

import ctypes
import json
import os
from typing import Any

import numpy

from lapis import _core
from lapis.lapis_build import AdaptError, BuildError, build, refuse_unsupported

__all__ = ["AdaptError", "BuildError", "LAPISModule", "build", "load"]


def _ctype(name: str) -> type[ctypes._SimpleCData[Any]]:
    """The ctypes type of the scalar type numpy calls `name`."""
    ctype: type[ctypes._SimpleCData[Any]] = numpy.ctypeslib.as_ctypes_type(numpy.dtype(name))
    return ctype


class _Function:
    """One function of a module, called through its resident entry point dv_<name>, which takes an
    array of pointers to its results and one to its parameters (include/lapis/interop/lapis_resident.hpp
    says what each points to)."""

    def __init__(self, library: ctypes.CDLL, name: str, signature: dict[str, Any]) -> None:
        self.name = name
        self.params: list[dict[str, Any]] = signature["params"]
        self.results: list[dict[str, Any]] = signature["results"]
        self.entry = getattr(library, "dv_" + name)
        self.entry.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p)]
        self.entry.restype = ctypes.c_int

    def __call__(self, *args: Any) -> Any:
        if len(args) != len(self.params):
            raise TypeError(f"{self.name}() takes {len(self.params)} arguments ({len(args)} given)")
        _core._refuse_while_recording(self.name, "a LAPIS module's function, which lapis does not record")
        adoptions = _core.Adoptions()  # the arrays passed, as DualViews
        kept: list[object] = []
        handles: list[int] = []
        params = (ctypes.c_void_p * max(len(self.params), 1))()
        try:
            for i, (param, arg) in enumerate(zip(self.params, args)):
                params[i] = self._argument(i, param, arg, adoptions, kept, handles)
            results: list[Any] = [ctypes.c_void_p() if "memref" in result else _ctype(result["scalar"])()
                                  for result in self.results]
            addresses = (ctypes.c_void_p * max(len(results), 1))(*(ctypes.addressof(r) for r in results))
            with _core._TraceSpan("call", "call", self.name):
                status = self.entry(addresses, params)
        finally:
            for handle in handles:
                _core._release_ref(handle)
        if status != 0:
            _core._raise_kept_error()
        returned = tuple(_core._from_ref(r.value) if "memref" in result else r.value
                         for result, r in zip(self.results, results))
        for dv in adoptions.views:  # a numpy argument holds what the function wrote into it
            _core._write_back(dv)
        adoptions.keep()
        return returned[0] if len(returned) == 1 else returned

    def _argument(self, i: int, param: dict[str, Any], arg: Any, adoptions: _core.Adoptions,
                  kept: list[object], handles: list[int]) -> Any:
        """The pointer that stands for argument i; `adoptions` makes each array a DualView (one per
        array, however often it is passed), `kept` holds what must live through the call, `handles`
        the buffer handles to give back after it."""
        where = f"{self.name}: argument {i}"
        if "memref" in param:
            try:
                dv = arg if isinstance(arg, _core.DualView) else adoptions.take(arg)
            except TypeError as error:
                raise TypeError(f"{where}: expected an array or a lapis.DualView: {error}") from None
            handles.append(_core._new_ref(dv))
            return handles[-1]
        if "scalar" in param:
            value = _ctype(param["scalar"])(_scalar(where, numpy.dtype(param["scalar"]), arg))
            kept.append(value)
            return ctypes.addressof(value)
        if "struct" in param:  # LAPIS passes a struct of one element type as its flat array
            flat = numpy.ascontiguousarray(arg, dtype=param["struct"]).ravel()
            if flat.size != param["count"]:
                raise ValueError(f"{where}: expected {param['count']} {param['struct']} values, got {flat.size}")
            kept.append(flat)
            return flat.ctypes.data
        if arg is not None and not isinstance(arg, int):
            raise TypeError(f"{where}: expected an address (int), not {type(arg).__name__}")
        return arg


def _scalar(where: str, dtype: numpy.dtype[Any], value: Any) -> Any:
    """`value` as a number of `dtype`: TypeError for what is not a number of its kind (a float for an
    integer, an array), ValueError for an integer out of its range."""
    integral = dtype.kind in "iub"
    if isinstance(value, (bool, numpy.bool_)) and dtype.kind != "b":
        raise TypeError(f"{where}: expected a {dtype} number, not a bool")
    if not isinstance(value, (int, numpy.integer) if integral else (int, float, numpy.integer, numpy.floating)):
        raise TypeError(f"{where}: expected a {dtype} number, not {type(value).__name__}")
    if integral and dtype.kind != "b" and not numpy.iinfo(dtype).min <= value <= numpy.iinfo(dtype).max:
        raise ValueError(f"{where}: {value} is out of range for {dtype}")
    return value


class LAPISModule:
    """A loaded LAPIS module: one attribute per function (see the module's docstring)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = str(path)
        self._library = ctypes.CDLL(self.path)
        # the module's globals and kept data go when lapis finalizes, while Kokkos is alive
        addresses: list[Any] = [ctypes.cast(f, ctypes.c_void_p).value
                                for f in (self._library.lapis_initialize, self._library.lapis_finalize)]
        _core._start_module(*addresses)
        self._library.lapis_signatures.restype = ctypes.c_char_p
        signatures = json.loads(self._library.lapis_signatures().decode())
        refuse_unsupported(signatures, lambda name: f"{self.path}: ")
        self.functions = {name: _Function(self._library, name, signature) for name, signature in signatures.items()}

    def __getattr__(self, name: str) -> _Function:
        functions: dict[str, _Function] = self.__dict__.get("functions", {})
        if name in functions:
            return functions[name]
        raise AttributeError(f"LAPIS module {self.__dict__.get('path')!r} has no function {name!r}")

    def __dir__(self) -> list[str]:
        return list(super().__dir__()) + list(self.functions)


def load(path: str | os.PathLike[str]) -> LAPISModule:
    """The LAPIS module at `path` (a shared library built from the emitter's output)."""
    return LAPISModule(path)
