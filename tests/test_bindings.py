"""Extensions written with nanobind and pybind11 on lapis DualViews (lapis/nanobind.hpp,
lapis/pybind11.hpp): the test modules in tests/modules/nanobind and tests/modules/pybind11 bind the
same functions (tests/modules/probe_functions.hpp), built against the installed package as a user
would build them, and are held to what the plain C-API probe is held to in test_modules.py."""
import contextlib
import gc
import importlib.util
import os
import shutil
import sys

import numpy
import pytest

import lapis
from conftest import APART, ROOT, counts
from test_modules import _mismatched_package, check, run_python

sys.path.insert(0, str(ROOT / "examples"))
import _modules  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("meson", path=os.path.dirname(sys.executable) + os.pathsep
                                             + os.environ["PATH"]) is None, reason="meson is not installed")
BINDINGS = ["nanobind", "pybind11"]
# The device of this run: the suite runs once as it is and once with LAPIS_DEVICE=simulated.
DEVICE = os.environ.get("LAPIS_DEVICE", "default")


@pytest.fixture(params=BINDINGS)
def probe(request, binding_modules):
    if request.param not in binding_modules:
        pytest.skip(f"{request.param} is not installed")
    return _modules.import_from(binding_modules[request.param], f"{request.param}_probe")


def test_a_result_stays_on_the_device_until_read(probe):
    x = lapis.DualView(numpy.arange(5.0))
    with lapis.count_transfers() as t:
        y = probe.scale(x, 2.0)   # x uploaded once
        z = probe.scale(y, 0.5)   # y read where it is
    assert t == counts(h2d=1, h2d_bytes=40), t
    assert isinstance(z, lapis.DualView) and z.dtype == numpy.float64 and z.shape == (5,)
    with lapis.count_transfers() as t:
        numpy.testing.assert_array_equal(z.asnumpy(), numpy.arange(5.0))
    assert t == counts(d2h=1, d2h_bytes=40), t
    with lapis.count_transfers() as t:
        r = probe.scale(numpy.arange(3.0), 2.0)   # a numpy argument: uploaded once, nothing downloaded
    assert t == counts(h2d=1, h2d_bytes=24), t
    numpy.testing.assert_array_equal(r.asnumpy(), [0.0, 2.0, 4.0])


def test_a_numpy_argument_written_in_place_holds_the_values_when_the_call_returns(probe):
    array = numpy.zeros(5)
    with lapis.count_transfers() as t:
        probe.fill(array, 4.0)    # written on the device, written back as the call's DualView goes
    assert (array == 4.0).all(), array
    assert t == counts(d2h=1, d2h_bytes=40), t
    x = lapis.zeros(5)
    with lapis.count_transfers() as t:
        probe.fill(x, 3.0)        # a DualView keeps its device side: nothing moves
    assert t == counts() and x.need_sync_host, t
    numpy.testing.assert_array_equal(x.asnumpy(), numpy.full(5, 3.0))


def test_the_call_holds_a_borrowed_array_exactly_as_long_as_it_runs(probe):
    array = numpy.zeros(4)
    gc.collect()
    references, live = sys.getrefcount(array), lapis.runtime_info()["live_allocations"]
    for _ in range(100):
        probe.fill(array, 1.0)
        probe.scale(array, 2.0)
    gc.collect()
    assert sys.getrefcount(array) == references   # every DualView made for a call went with it
    assert lapis.runtime_info()["live_allocations"] == live
    numpy.testing.assert_array_equal(probe.scale(numpy.ones(2) + 1.0, 2.0).asnumpy(), [4.0, 4.0])  # a temporary
    memory = bytearray(32)
    probe.fill(memoryview(memory).cast("d"), 2.0)   # any buffer exporter: its export pinned for the call
    assert numpy.frombuffer(memory).tolist() == [2.0] * 4
    memory.extend(b"more")                          # resizable again: the export went with the call


@pytest.mark.parametrize("bad", [lambda: lapis.zeros(3, numpy.float32), lambda: numpy.zeros(3, numpy.float32),
                                 lambda: numpy.zeros((2, 2)), lambda: lapis.zeros(()), lambda: ["a"], lambda: None],
                         ids=["float32", "numpy float32", "rank 2", "rank 0", "list", "None"])
def test_an_argument_of_another_element_type_or_rank_is_a_type_error(probe, bad):
    with pytest.raises(TypeError, match=r"incompatible function arguments") as error:
        probe.scale(bad(), 1.0)
    assert "x: lapis.DualView[float64, ndim=1]" in str(error.value)   # the signature says what it takes


def test_strides_the_views_cannot_address_raise_lapis_value_error(probe):
    strided = numpy.arange(6.0)[::2]
    if APART:  # the device side is contiguous: the LayoutRight views address it
        numpy.testing.assert_array_equal(probe.scale(strided, 2.0).asnumpy(), [0.0, 4.0, 8.0])
    else:      # the device side is the strided host memory itself
        with pytest.raises(ValueError, match="strides this type's views cannot address"):
            probe.scale(strided, 2.0)


def raises_where_apart(error, match):
    """pytest.raises where the sides are apart (the copy that a guard refuses is real); nothing where
    they alias (there is no copy to refuse)."""
    return pytest.raises(error, match=match) if APART else contextlib.nullcontext()


def test_lapis_errors_arrive_as_lapis_exceptions(probe):
    readonly = numpy.zeros(3)
    readonly.flags.writeable = False
    with pytest.raises(lapis.ReadOnlyError, match="host side is read-only"):
        probe.fill(readonly, 1.0)
    x = lapis.DualView(numpy.arange(5.0))   # the host side is newer: a device read uploads it
    with lapis.transfer_guard(host_to_device="disallow"), \
            raises_where_apart(lapis.TransferGuardError, "implicit host->device copy"):
        probe.scale(x, 2.0)
    array = numpy.zeros(3)   # a write commits lapis to a write-back: refused before the kernel runs
    with lapis.transfer_guard(device_to_host="disallow"), \
            raises_where_apart(lapis.TransferGuardError, "implicit device->host copy"):
        probe.fill(array, 5.0)
    assert (array == (0.0 if APART else 5.0)).all(), array


def test_the_untyped_buffer_takes_any_dualview_and_shares_its_state(probe):
    x = lapis.zeros((2, 3), numpy.int32)
    y = probe.share(x)
    assert isinstance(y, lapis.DualView) and y is not x and (y.shape, y.dtype) == ((2, 3), numpy.int32)
    x.fill(7)
    assert (y.asnumpy() == 7).all()
    assert y.transfers == x.transfers


def test_signatures_name_the_element_type_and_rank(probe):
    assert "x: lapis.DualView[float64, ndim=1]" in probe.scale.__doc__
    assert "-> lapis.DualView[float64, ndim=1]" in probe.scale.__doc__
    assert "x: lapis.DualView) -> lapis.DualView" in probe.share.__doc__


def test_after_finalize_the_modules_raise_runtime_finalized_error(binding_modules):
    if not binding_modules:
        pytest.skip("neither nanobind nor pybind11 is installed")
    modules = {f"{name}_probe": folder for name, folder in binding_modules.items()}
    check(run_python(modules, f"""
        import importlib, numpy, lapis
        probes = [importlib.import_module(name) for name in {sorted(modules)!r}]
        kept = lapis.DualView(numpy.arange(3.0))
        lapis.finalize()
        for probe in probes:
            for argument in (kept, numpy.arange(3.0)):  # the array's DualView cannot even be made
                for call in (lambda: probe.scale(argument, 2.0), lambda: probe.fill(argument, 1.0)):
                    try:
                        call()
                    except lapis.RuntimeFinalizedError as e:
                        assert "finalized" in str(e), e
                    else:
                        raise AssertionError("no RuntimeFinalizedError")
        print("ok")
    """, DEVICE))


@pytest.mark.parametrize("binding", BINDINGS)
def test_a_module_built_against_another_lapis_fails_at_import(tmp_path, binding):
    if importlib.util.find_spec(binding) is None:
        pytest.skip(f"{binding} is not installed")
    package = _mismatched_package(tmp_path, "abi")   # lapis's headers, of ABI 0
    build = _modules.build(ROOT / "tests" / "modules" / binding, tmp_path / "build", package)
    result = run_python({"probe": build}, f"""
        import lapis
        try:
            import {binding}_probe
        except ImportError as e:   # the library's, with lapis's ImportError as its cause
            print(e.__cause__)
    """, DEVICE)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert result.stdout == (f"{binding}_probe was built against lapis ABI 0, but this process runs lapis ABI "
                             f"{lapis.runtime_info()['abi_version']}\n")
