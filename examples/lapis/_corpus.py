"""The emitter-exact corpus (this folder), built against the installed lapis on first use, and the
two ways to call a module of it. Each module is built as a LAPIS user builds one: its files as the
emitter writes them (emitted(): the support header pasted back where the emitter pastes it), given
to `python -m lapis build` (lapis.lapis_module.build). The pasted header is LAPIS's own
LAPISSupport.hpp where LAPIS_SUPPORT_HEADER names its path, else support_header_standin.hpp.
The calls:
  - lapis.lapis_module.load(path): the resident entry points (dv_<f>) through lapis: lapis.DualView
    results that stay where they were computed;
  - MemrefModule(path): LAPIS's own path, as the Python the emitter generates drives it: ctypes, each
    numpy argument as a memref descriptor (made C-contiguous), py_<f> called with pointers to result
    descriptors, results returned as numpy arrays over memory the module keeps alive in
    LAPIS::alives until lapis_finalize."""
import concurrent.futures
import ctypes
import fcntl
import json
import os
import pathlib
import sys

import numpy

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import _modules  # noqa: E402

import lapis  # noqa: E402
from lapis import lapis_module  # noqa: E402
from lapis import memref  # noqa: E402

MODULES = ["gemm", "batched_gemm", "matadd", "multiple_results", "spmv", "children", "buffers", "sparse_values",
           "team_atomics", "globals", "atomics", "maxpool_team"]

# The modules that need Kokkos 4, and what of it: meson.build builds them (and their drivers) only when
# lapis's Kokkos is 4 or newer, and their tests skip on Kokkos 3 with this reason (kokkos4_skip_reason).
# Every other module builds on Kokkos 3 too (lapis's interop/kokkos4_names.hpp gives it the Kokkos 4 names
# emitted code calls).
TEAM_LEVEL = {"maxpool_team"}
KOKKOS4 = {"maxpool_team": "TeamVectorMDRange, the nested MD range team-level code runs its loops in, and "
                           "Kokkos::fabs in its driver's check"}


def kokkos4_skip_reason(name):
    """Why module `name` is not built on this lapis's Kokkos, or None where it is built."""
    version = lapis.runtime_info()["kokkos_version"]  # "4.6.1", "3.4.1"
    if name not in KOKKOS4 or int(version.split(".")[0]) >= 4:
        return None
    return f"{name} needs Kokkos 4 ({KOKKOS4[name]}): lapis runs Kokkos {version}"


def built_modules():
    """The modules meson.build builds on this lapis's Kokkos."""
    return [name for name in MODULES if kokkos4_skip_reason(name) is None]


# Each module's files as lapis-translate and its user write them: the .cpp, the --hpp header and, for
# a team-level module, the launcher its user writes (sources first).
FILES = {name: [f"{name}.cpp", f"{name}.hpp"] for name in MODULES}
FILES["maxpool_team"] += ["maxpool_team_launch.cpp", "maxpool_team_launch.hpp"]
BUILD = HERE.parent.parent / "build" / "lapis-corpus"
EMITTED, LIBRARIES = BUILD / "emitted", BUILD / "modules"


def support_header():
    """The text the emitter pastes at the top of a module's declarations."""
    return pathlib.Path(os.environ.get("LAPIS_SUPPORT_HEADER") or HERE / "support_header_standin.hpp").read_text()


def emitted(name, folder=None):
    """Module `name`'s files as the emitter writes them, in `folder` (default: build/lapis-corpus/emitted/name):
    the support header pasted after the --hpp header's `#define LAPIS_MODULE_H` (a team-level module's
    header has none: the emitter pastes nothing there)."""
    folder = pathlib.Path(folder or EMITTED / name)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for file in FILES[name]:
        text = (HERE / file).read_text()
        if file == f"{name}.hpp" and name not in TEAM_LEVEL:
            guard = "#define LAPIS_MODULE_H\n"
            text = text.replace(guard, guard + support_header(), 1)
        _write_if_changed(folder / file, text)
        paths.append(folder / file)
    return paths


def _write_if_changed(path, text):
    """Writes `text` to `path` whole (through a file renamed over it), unless it holds it already:
    another test process may be reading it."""
    if path.is_file() and path.read_text() == text:
        return
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    partial.write_text(text)
    os.replace(partial, path)


def single_file(name, folder):
    """Module `name` as the emitter writes it without --hpp: one .cpp, the support header and the
    declarations at its top, then the definitions."""
    header, source = (HERE / f"{name}.hpp").read_text(), (HERE / f"{name}.cpp").read_text()
    declarations = header.split("#define LAPIS_MODULE_H\n", 1)[1].rsplit("#endif", 1)[0]
    body = source.replace(f'#include "{name}.hpp"\n', "", 1)
    path = pathlib.Path(folder) / f"{name}.cpp"
    path.write_text(support_header() + declarations + body)
    return path


def build():
    """The folder holding the C++ drivers and the stand-in sparse runtime (libsparse_runtime.so),
    built by meson.build against the modules lapis build made (build_modules()). One process at a
    time builds (the tests run this example beside the corpus tests, in processes of their own):
    the others wait, then find it built."""
    BUILD.mkdir(parents=True, exist_ok=True)
    with open(BUILD / "build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        build_modules(except_for=["sparse_values"])
        folder = _modules.build(HERE, options=[f"-Dmodules={LIBRARIES}"])
        runtime = folder / "libsparse_runtime.so"
        lapis_module.build(emitted("sparse_values"), LIBRARIES,
                           link_args=[str(runtime), f"-Wl,-rpath,{folder}"])
    return folder


def build_modules(except_for=()):
    """Builds the modules side by side: each build is a compiler process of its own."""
    names = [name for name in built_modules() if name not in except_for]
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count()) as pool:
        list(pool.map(lambda name: lapis_module.build(emitted(name), LIBRARIES), names))


def path(name):
    """Module `name`'s library, built (with the rest of the corpus) on first use."""
    build()
    return LIBRARIES / f"lib{name}.so"


class MemrefModule:
    """A module called as LAPIS's generated Python calls it (class LAPISModule): lapis_initialize on
    load, lapis_finalize when closed, py_<f> over memref descriptors."""

    def __init__(self, library_path):
        self.library = ctypes.CDLL(str(library_path))
        self.library.lapis_initialize()
        self.library.lapis_signatures.restype = ctypes.c_char_p
        self.signatures = json.loads(self.library.lapis_signatures().decode())

    def close(self):
        self.library.lapis_finalize()

    def __getattr__(self, name):
        signature = self.__dict__["signatures"][name]
        return lambda *args: self._call(name, signature, args)

    def _call(self, name, signature, args):
        keep, values = [], []
        for param, arg in zip(signature["params"], args):
            if "memref" in param:
                array = numpy.require(arg, dtype=param["memref"], requirements=["C"])
                desc = memref.descriptor(lapis.DualView(array))
                keep.append(desc)
                values.append(ctypes.pointer(desc))
            elif "scalar" in param:
                values.append(numpy.ctypeslib.as_ctypes_type(numpy.dtype(param["scalar"]))(arg))
            elif "struct" in param:
                flat = numpy.ascontiguousarray(arg, dtype=param["struct"]).ravel()
                keep.append(flat)
                values.append(flat.ctypes.data_as(ctypes.c_void_p))
            else:
                values.append(ctypes.c_void_p(arg))
        results = []
        for result in signature["results"]:
            if "memref" in result:
                results.append(ctypes.pointer(ctypes.pointer(memref.descriptor_type(result["memref"],
                                                                                    len(result["shape"]))())))
            else:
                results.append(numpy.zeros(1, dtype=result["scalar"]))
        getattr(self.library, "py_" + name)(
            *(r if isinstance(r, ctypes._Pointer) else r.ctypes.data_as(ctypes.c_void_p) for r in results), *values)
        returned = tuple(memref.from_descriptor(r[0].contents).asnumpy() if isinstance(r, ctypes._Pointer) else r[0]
                         for r in results)
        return returned[0] if len(returned) == 1 else returned
