"""Separately built modules share lapis's one runtime: the two example modules (Cython, with Kokkos
kernels of their own) and a plain C-API extension, built against the installed package as a user
would build them."""
import os
import pathlib
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

import lapis
from conftest import APART, SIMULATED_AVAILABLE

ROOT = pathlib.Path(__file__).parent.parent
sys.path.insert(0, str(ROOT / "examples"))
import _modules  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("meson", path=os.path.dirname(sys.executable) + os.pathsep
                                             + os.environ["PATH"]) is None, reason="meson is not installed")


def run_python(example_modules, code, device="default", **env):
    path = os.pathsep.join([str(folder) for folder in example_modules.values()] + [os.environ.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=300, env=dict(os.environ, PYTHONPATH=path, LAPIS_DEVICE=device, **env))


def check(result):
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stderr == ""  # nothing at exit either (a module-global View dies before Kokkos)
    assert result.stdout.endswith("ok\n"), result.stdout


DEVICES = ["default", "simulated"] if SIMULATED_AVAILABLE else ["default"]


@pytest.mark.parametrize("device", DEVICES)
def test_modules_run_their_kernels_on_lapis_runtime_and_counters(example_modules, device):
    check(run_python(example_modules, """
        import numpy, lapis, lapis.kernels as K, adder, matmul
        apart = not lapis.runtime_info()["sides_alias"]
        initialized, threads = adder.kokkos_state()       # the module's own view of Kokkos
        assert initialized, "the module sees lapis's Kokkos initialized (it never initializes it)"
        if lapis.runtime_info()["execution_space"] == "OpenMP":
            assert threads == 3, threads                   # OMP_NUM_THREADS below: lapis's runtime
        a = numpy.arange(12.0).reshape(3, 4)
        b = numpy.ones((4, 3))
        lapis.reset_transfer_stats()
        x = lapis.DualView(a)
        s = adder.add(x, x)                    # module code uploads x once
        p = matmul.matmul(s, b)                # b uploaded by the other module; s read in place
        q = K.matadd(p, p)                     # lapis.kernels reads the module's result in place
        r = adder.add(q, q)
        assert adder.total(r) == 4 * ((2 * a) @ b).sum()   # parallel_reduce on the device
        mid = lapis.transfer_stats()
        assert (mid.h2d_count, mid.h2d_bytes, mid.d2h_count) == ((2, 96 + 96, 0) if apart else (0, 0, 0)), mid
        numpy.testing.assert_array_equal(r.asnumpy(), 4 * ((2 * a) @ b))
        after = lapis.transfer_stats() - mid
        assert (after.d2h_count, after.d2h_bytes, after.h2d_count) == ((1, 72, 0) if apart else (0, 0, 0))
        assert r.transfers == after                  # the module's result counts its own copies
        assert adder.calls() == 2
        assert isinstance(r, lapis.DualView) and r.dtype == numpy.float64 and r.shape == (3, 3)
        print("ok")
    """, device, OMP_NUM_THREADS="3"))


@pytest.mark.parametrize("device", DEVICES)
def test_a_plain_c_api_extension_adopts_and_returns_dualviews(example_modules, device):
    check(run_python(example_modules, """
        import numpy, lapis, capi_probe
        apart = not lapis.runtime_info()["sides_alias"]
        x = lapis.DualView(numpy.arange(5.0))
        with lapis.count_transfers() as t:
            y = capi_probe.scale(x, 2.0)       # adopted, computed, handed back: x uploaded once
            z = capi_probe.scale(y, 0.5)       # resident: nothing moves
        assert (t.h2d_count, t.h2d_bytes, t.d2h_count) == ((1, 40, 0) if apart else (0, 0, 0)), t
        numpy.testing.assert_array_equal(z.asnumpy(), numpy.arange(5.0))
        strided = lapis.DualView(numpy.arange(6.0)[::2])
        bad_inputs = [(lapis.zeros(3, numpy.float32), TypeError, "float32 elements as float64"),
                      (lapis.zeros((2, 2)), ValueError, "rank 2 as rank 1"),
                      (["a"], TypeError, "cannot wrap a list")]
        numpy.testing.assert_array_equal(capi_probe.scale(numpy.arange(3.0), 2.0).asnumpy(), [0.0, 2.0, 4.0])
        if apart:  # the device side is contiguous: the LayoutRight views address it
            numpy.testing.assert_array_equal(capi_probe.scale(strided, 2.0).asnumpy(), [0.0, 4.0, 8.0])
        else:      # the device side is the strided host memory itself
            bad_inputs.append((strided, ValueError, "strides"))
        for bad, kind, words in bad_inputs:
            try:
                capi_probe.scale(bad, 1.0)
            except kind as e:
                assert words in str(e), e
            else:
                raise AssertionError(f"no {kind.__name__} for {bad!r}")
        print("ok")
    """, device))


@pytest.mark.parametrize("device", DEVICES)
def test_a_module_writing_a_numpy_argument_in_place_loses_nothing(example_modules, device):
    check(run_python(example_modules, """
        import numpy, lapis, capi_probe
        apart = not lapis.runtime_info()["sides_alias"]
        array = numpy.zeros(5)
        with lapis.count_transfers() as t:
            capi_probe.fill(array, 4.0)   # through lapis.asdualview(array): a DualView that dies with the call
        assert (array == 4.0).all(), array
        assert (t.h2d_count, t.d2h_count, t.d2h_bytes) == ((0, 1, 40) if apart else (0, 0, 0)), t
        # The write commits lapis to an implicit write-back: a guard that would refuse it refuses the
        # write, before the kernel runs, rather than the copy failing when the temporary goes.
        with lapis.transfer_guard(device_to_host="disallow"):
            try:
                capi_probe.fill(array, 5.0)
            except lapis.TransferGuardError as e:
                assert apart and "implicit device->host copy" in str(e), e
                assert (array == 4.0).all(), array
            else:
                assert not apart and (array == 5.0).all(), array
        print("ok")
    """, device))


@pytest.mark.parametrize("device", DEVICES)
def test_a_modules_implicit_read_is_judged_by_the_transfer_guard(example_modules, device):
    check(run_python(example_modules, """
        import numpy, lapis, capi_probe
        apart = not lapis.runtime_info()["sides_alias"]
        x = lapis.DualView(numpy.arange(5.0))  # the host side is newer: a device read uploads it
        with lapis.transfer_guard(host_to_device="disallow"):
            try:
                capi_probe.scale(x, 2.0)
            except lapis.TransferGuardError as e:
                assert apart and "implicit host->device copy" in str(e), e
            else:
                assert not apart
        x.sync_device()                    # explicit: allowed
        with lapis.transfer_guard("disallow"):
            assert capi_probe.scale(x, 2.0).transfers == lapis.TransferStats()
        print("ok")
    """, device))


def _fields(declaration):
    """The field names of a struct's body, in order: `int x;`, `void (*f)(int);` (C++ or Cython)."""
    names = []
    for line in declaration.splitlines():
        line = line.split("//")[0].split("#")[0].strip()
        if line:
            pointer = re.search(r"\(\*(\w+)\)", line)
            names.append(pointer[1] if pointer else re.search(r"(\w+);?$", line)[1])
    return names


def test_the_c_api_table_is_declared_to_cython_as_it_is_in_cpp():
    """_core fills the C API table (python_api.hpp's CApi) through c_api.pxi's declaration of it: a
    field that the declaration left out would stay NULL in the table, and a module calling it would
    crash. Both name the same fields in the same order, and c_api.pxi fills every one."""
    header = (ROOT / "include" / "lapis" / "interop" / "python_api.hpp").read_text()
    cpp = _fields(re.search(r"^struct CApi \{\n(.*?)^\};", header, re.M | re.S)[1])
    pxi = (ROOT / "cython" / "lapis" / "c_api.pxi").read_text()
    cython = _fields(re.search(r'cdef cppclass CApi "[^"]+":\n((?: {8}.*\n)+)', pxi)[1])
    assert cpp == cython
    assert cpp[:3] == ["abi_version", "feature_version", "build"]
    assert re.findall(r"^_api\.(\w+) = ", pxi, re.M) == cpp


@pytest.mark.parametrize("target", ["older", "newer"])
def test_a_module_built_for_another_c_api_feature_version(tmp_path, target):
    """The C API's feature version only grows: a module built for an older one (it uses only the entries
    that version had) runs; one built for a newer one than this lapis is refused at import."""
    feature = lapis.runtime_info()["c_api_feature_version"]
    version = 1 if target == "older" else feature + 1
    build = _modules.build(ROOT / "tests" / "modules" / "capi", tmp_path / "build",
                           kokkos_args=[f"-DLAPIS_C_API_TARGET_VERSION={version}"])
    result = run_python({"probe": build}, """
        import numpy, lapis
        try:
            import capi_probe
        except ImportError as e:
            print(e)
        else:
            print(capi_probe.scale(lapis.DualView(numpy.arange(3.0)), 2.0).asnumpy().tolist())
            try:
                capi_probe.scale(numpy.arange(3.0), 2.0)   # asdualview came with feature version 2
            except TypeError as e:
                print(e)
    """)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    if target == "older":
        assert result.stdout == "[0.0, 2.0, 4.0]\nexpected a lapis.DualView, not ndarray\n"
    else:
        assert result.stdout == (f"capi_probe was built for lapis C API feature version {version}, but this process "
                                 f"runs a lapis with feature version {feature} (upgrade lapis, or build the "
                                 f"extension with LAPIS_C_API_TARGET_VERSION={feature})\n")


@pytest.mark.parametrize("order", [["adder", "matmul", "lapis"], ["matmul", "lapis.kernels", "adder"],
                                   ["capi_probe", "adder", "matmul"]])
def test_modules_import_and_die_in_any_order(example_modules, order):
    check(run_python(example_modules, f"""
        import gc, importlib, sys, numpy
        order = {order!r}
        for name in order:
            importlib.import_module(name)
        import adder, matmul, lapis
        keep = adder.add(numpy.ones((2, 2)), numpy.ones((2, 2)))   # outlives the modules' deletion
        for name in reversed(order):
            if name != "lapis":
                del sys.modules[name]
        del adder, matmul
        gc.collect()
        import adder, matmul                   # imported again: the same extension, the same runtime
        product = matmul.matmul(keep, keep)
        assert (product.asnumpy() == 8).all() and adder.calls() == 1
        print("ok")
    """))


def test_eight_threads_calling_two_modules_keep_exact_counts(example_modules):
    check(run_python(example_modules, """
        import threading, numpy, lapis, adder, matmul
        apart = not lapis.runtime_info()["sides_alias"]
        n, rounds, threads = 16, 25, 8
        failures = []
        def work(seed):
            x = numpy.full((n, n), float(seed))
            for _ in range(rounds):
                wrapped = lapis.DualView(x)
                s = adder.add(wrapped, wrapped)   # one upload of x
                p = matmul.matmul(s, s)        # resident
                if not (p.asnumpy() == 4 * seed * seed * n).all():   # one download
                    failures.append(seed)
        lapis.reset_transfer_stats()
        pool = [threading.Thread(target=work, args=(seed,)) for seed in range(1, threads + 1)]
        for t in pool:
            t.start()
        for t in pool:
            t.join()
        calls = threads * rounds
        stats = lapis.transfer_stats()
        expected = (calls, calls * n * n * 8, calls, calls * n * n * 8) if apart else (0, 0, 0, 0)
        assert (stats.h2d_count, stats.h2d_bytes, stats.d2h_count, stats.d2h_bytes) == expected, stats
        assert failures == [] and adder.calls() == calls, (failures, adder.calls())
        print("ok")
    """, "simulated" if SIMULATED_AVAILABLE else "default"))


def _resolved_kokkos(library):
    for line in subprocess.check_output(["ldd", str(library)], text=True).splitlines():
        if "libkokkoscore" in line:
            return os.path.realpath(line.split("=>")[1].split("(")[0].strip())
    return None


def test_ldd_shows_one_kokkos_for_lapis_and_the_modules(example_modules):
    package = pathlib.Path(lapis.__file__).parent
    libraries = [*package.glob("_core.*.so"), *package.glob("kernels.*.so"), package / "lib" / "liblapis-runtime.so",
                 *example_modules["adder"].glob("adder.*.so"), *example_modules["matmul"].glob("matmul.*.so")]
    assert len(libraries) == 5, libraries
    resolved = {library.name: _resolved_kokkos(library) for library in libraries}
    assert len(set(resolved.values())) == 1 and None not in resolved.values(), resolved
    assert pathlib.Path(next(iter(resolved.values()))).is_relative_to(lapis.runtime_info()["kokkos_prefix"])


def _serial_kokkos():
    """A Kokkos other than lapis's (Serial only, same version), built once by the bootstrap script."""
    major, minor, patch = lapis.runtime_info()["kokkos_version"].split(".")
    run = subprocess.run(["bash", str(ROOT / "scripts" / "bootstrap-kokkos.sh")], capture_output=True, text=True,
                         env=dict(os.environ, LAPIS_KOKKOS_BACKENDS="serial",
                                  LAPIS_KOKKOS_VERSION=f"{major}.{minor}.{int(patch):02d}"))
    if run.returncode != 0:
        pytest.skip(f"cannot build a second Kokkos here: {run.stderr.strip().splitlines()[-1:]}")
    return run.stdout.strip().splitlines()[-1]


def _mismatched_package(tmp_path, mismatch):
    """lapis's headers and pkg-config file as a module author might wrongly have them: pointing at
    another Kokkos, or from an older, incompatible lapis (ABI 0). Returns the pkg-config folder."""
    package = pathlib.Path(lapis.__file__).parent
    copy = tmp_path / "lapis"
    shutil.copytree(package / "include", copy / "include")
    shutil.copytree(package / "lib", copy / "lib")
    if mismatch == "kokkos":
        pc = copy / "lib" / "pkgconfig" / "lapis-dualview.pc"
        prefix = lapis.runtime_info()["kokkos_prefix"]
        pc.write_text(pc.read_text().replace(prefix, str(_serial_kokkos())))
    else:
        config = copy / "include" / "lapis" / "config.hpp"
        text = config.read_text()
        current = f"#define LAPIS_ABI_VERSION {lapis.runtime_info()['abi_version']}"
        assert current in text
        config.write_text(text.replace(current, "#define LAPIS_ABI_VERSION 0"))
    return copy / "lib" / "pkgconfig"


@pytest.mark.parametrize("mismatch", ["kokkos", "abi"])
def test_a_module_built_against_another_kokkos_or_lapis_fails_at_import(tmp_path, mismatch):
    if mismatch == "kokkos" and lapis.runtime_info()["kokkos_backends"] == ["SERIAL"]:
        pytest.skip("lapis itself runs a Serial-only Kokkos")
    build = _modules.build(ROOT / "tests" / "modules" / "capi", tmp_path / "build", _mismatched_package(tmp_path, mismatch))
    result = run_python({"probe": build}, """
        import lapis, numpy
        try:
            import capi_probe
        except ImportError as e:
            print(e)
        else:
            print("imported")
    """)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    info = lapis.runtime_info()
    running = f"Kokkos {info['kokkos_version']} ({','.join(info['kokkos_backends'])})"
    if mismatch == "kokkos":
        abi = info["abi_version"]
        assert result.stdout == (f"capi_probe was built against lapis {info['lapis_version']} (ABI {abi}) with Kokkos "
                                 f"{info['kokkos_version']} (SERIAL), but this process runs lapis {info['lapis_version']} (ABI {abi}) with "
                                 f"{running} from {info['kokkos_prefix']}: rebuild it against the installed lapis\n")
    else:
        assert result.stdout == f"capi_probe was built against lapis ABI 0, but this process runs lapis ABI {info['abi_version']}\n"
