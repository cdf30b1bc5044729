import gc
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


@pytest.fixture(scope="session")
def example_modules(tmp_path_factory):
    """Build folders of the adder and matmul example modules and the capi_probe test module, built
    against the installed lapis once per test run (examples/_modules.py)."""
    root = pathlib.Path(__file__).parent.parent
    sys.path.insert(0, str(root / "examples"))
    import _modules
    folder = tmp_path_factory.mktemp("modules")
    return {
        "adder": _modules.build(root / "examples" / "twomodules" / "adder", folder / "adder"),
        "matmul": _modules.build(root / "examples" / "twomodules" / "matmul", folder / "matmul"),
        "capi_probe": _modules.build(root / "tests" / "modules" / "capi", folder / "capi"),
    }


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
