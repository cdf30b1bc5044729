import gc
import importlib.util
import os
import pathlib
import sys

import numpy
import pytest

import lapis

INFO = lapis.runtime_info()
# True when a DualView's two sides are separate memories (the simulated device, a GPU): every sync
# is then a real copy. False on a CPU build's default device, where nothing is ever copied.
APART = not INFO["sides_alias"]
# The simulated device exists on builds whose device memory is host memory (CPU builds).
SIMULATED_AVAILABLE = INFO["simulated_device"] or INFO["device_memory_space"] == INFO["host_memory_space"]


def pytest_report_header(config):
    return (f"lapis: Kokkos {INFO['kokkos_version']}, {INFO['execution_space']}, device memory "
            f"{INFO['device_memory_space']}, sides {'apart' if APART else 'aliased'}")


# The parts of the test suite, by marker (pyproject.toml describes each): test.sh runs everything,
# gpu-check.sh all but `package_index`, sanitize.sh `memory_core` (quick) or all but `builds`, less
# `allocator_effects`, and `threads` under ThreadSanitizer. An entry is a file of tests/ or a test in
# it (file::name).
SUITE_PARTS = {
    "builds": ["test_wheel.py", "test_modules.py", "test_downstream.py", "test_examples.py"],
    "package_index": ["test_wheel.py::test_wheel_contents"],
    "allocator_effects": ["test_bad_input.py::test_failed_allocations_raise_memory_error",  # no bad_alloc
                          "test_reliability.py::test_a_hundred_thousand_iterations_leave_nothing_behind",  # quarantine
                          "test_soak.py::test_a_million_allocating_calls_hold_memory_steady"],
    "memory_core": ["test_misuse.py", "test_reliability.py", "test_fuzz_calls.py", "test_dualview.py"],
}
# `threads`: the tests of these files whose names say threads or finalize.
THREAD_TEST_FILES = ["test_reliability.py", "test_misuse.py", "test_runtime.py", "test_staged_copies.py"]


def pytest_collection_modifyitems(config, items):
    tests = pathlib.Path(__file__).parent
    for item in items:
        file = item.path.relative_to(tests).as_posix()
        for marker, entries in SUITE_PARTS.items():
            if file in entries or f"{file}::{item.originalname}" in entries:
                item.add_marker(marker)
        if file in THREAD_TEST_FILES and ("threads" in item.name.lower() or "finalize" in item.name.lower()):
            item.add_marker("threads")


def FUZZ(examples):
    """Hypothesis examples per property: `examples` in the test command (about a second each),
    scaled by LAPIS_FUZZ_SCALE for longer runs (scripts/fuzz.sh)."""
    return examples * int(os.environ.get("LAPIS_FUZZ_SCALE", "1"))


def counts(h2d=0, h2d_bytes=0, d2h=0, d2h_bytes=0):
    """The TransferStats expected on this device: the given copies when the sides are apart, none
    when they alias."""
    if not APART:
        return lapis.TransferStats()
    return lapis.TransferStats(h2d, h2d_bytes, d2h, d2h_bytes)


ROOT = pathlib.Path(__file__).parent.parent


def _build_modules(tmp_path_factory, projects):
    """{name: the build folder of the module project at ROOT / path} for {name: path}, built against
    the installed lapis (examples/_modules.py)."""
    sys.path.insert(0, str(ROOT / "examples"))
    import _modules
    folder = tmp_path_factory.mktemp("modules")
    return {name: _modules.build(ROOT / path, folder / name) for name, path in projects.items()}


@pytest.fixture(scope="session")
def example_modules(tmp_path_factory):
    """Build folders of the adder and matmul example modules and the capi_probe test module, built
    against the installed lapis once per test run."""
    return _build_modules(tmp_path_factory, {"adder": "examples/twomodules/adder",
                                             "matmul": "examples/twomodules/matmul",
                                             "capi_probe": "tests/modules/capi"})


@pytest.fixture(scope="session")
def binding_modules(tmp_path_factory):
    """Build folders of the nanobind_probe and pybind11_probe test modules, by binding library, built
    against the installed lapis once per test run; a library that is not installed is left out."""
    return _build_modules(tmp_path_factory, {name: f"tests/modules/{name}" for name in ("nanobind", "pybind11")
                                             if importlib.util.find_spec(name) is not None})


@pytest.fixture
def no_gc():
    """For tests that compare memory figures before and after: earlier tests' garbage (cycles through
    tracebacks that hold DualViews) is collected first, and no collection runs during the test."""
    gc.collect()
    gc.disable()
    yield
    gc.enable()


@pytest.fixture
def rng():
    return numpy.random.default_rng(12345)
