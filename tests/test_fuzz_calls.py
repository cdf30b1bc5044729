"""Random programs over lapis's Python entry points (parts, the transfer guard, threads and
separately built modules included), misuse and finalize at any point included, each run in a fresh
interpreter by support/fuzz_calls.py: every call works or raises a documented exception, values match numpy,
and the process never dies by a signal. Random settings in the environment either work or are refused
at import with a ValueError naming the variable."""
import json
import os
import pathlib
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FUZZ, SIMULATED_AVAILABLE

RUNNER = os.path.join(os.path.dirname(__file__), "support", "fuzz_calls.py")
index = st.integers(0, 7)
value = st.integers(-100, 100)
flag = st.integers(0, 1)
STEPS = {
    "zeros": [index], "full": [index, value], "wrap": [index, value, flag], "wrap_strided": [value],
    "uninitialized": [], "reinit": [index], "bad_shape": [index], "from_dlpack_of_export": [index],
    "wrap_dualview": [index], "sync_host": [index], "sync_device": [index], "modify_host": [index],
    "modify_device": [index], "fill": [index, value], "probe": [index], "asnumpy": [index, flag],
    "write_export": [index, value], "dlpack": [index], "matadd": [index, index, index, flag],
    "matadd_numpy_out": [index, index], "matadd_export_as_input": [index], "dot": [index, index],
    "gemm": [index, index], "drop": [index], "finalize": [],
    "slice": [index, index, index, index], "index": [index, index], "reshape": [index, index],
    "module_add": [index, index], "module_fill_numpy": [index, value], "lapis_matadd": [index, index, flag],
    "guard": [index], "threads": [index, index],
}
step = st.one_of(*(st.tuples(st.just(name), *args) for name, args in STEPS.items()))



@pytest.fixture(scope="module")
def modules_env(example_modules):
    """The environment that lets support/fuzz_calls.py import the separately built modules."""
    sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / "examples" / "lapis"))
    import _corpus
    folders = {name: str(example_modules[name]) for name in ("adder", "capi_probe")}
    folders["matadd"] = str(_corpus.path("matadd"))
    return dict(os.environ, LAPIS_FUZZ_MODULES=json.dumps(folders))


def run_program(steps, env):
    result = subprocess.run([sys.executable, RUNNER], input=json.dumps(steps), capture_output=True, text=True,
                            timeout=120, env=env)
    assert result.returncode == 0 and result.stdout == "ok\n", (result.returncode, steps, result.stderr[-3000:])


@settings(max_examples=FUZZ(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(step, min_size=1, max_size=40))
def test_random_programs_never_crash_or_answer_wrong(modules_env, steps):
    run_program(steps, modules_env)


SETTINGS = ["LAPIS_STAGING_CHUNK_BYTES", "LAPIS_STAGING_MIN_BYTES", "LAPIS_STAGING_THREADS", "LAPIS_POOL",
            "LAPIS_POOL_POISON", "LAPIS_DEVICE"]
SETTING_VALUES = ["0", "1", "-1", "-8", "7", "64", "65", "4096", "1e3", " 4", "4 ", "0x10", "abc", "simulated",
                  str(2**40), str(2**40 + 1), str(2**64 - 1), str(2**64), "9" * 40]
# A staged copy in each direction (the simulated device stages above LAPIS_STAGING_MIN_BYTES), a kernel, the pool.
SETTINGS_PROGRAM = """
import numpy, lapis, lapis.kernels as K
a = numpy.arange(100000.0)
dv = lapis.DualView(a)
dv.sync_device()
r = K.add(dv, 1.0)
assert (r.asnumpy() == a + 1).all()
print("ok")
"""


@settings(max_examples=FUZZ(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(SETTINGS), st.sampled_from(SETTING_VALUES), min_size=1, max_size=3))
def test_random_settings_work_or_are_refused_at_import(environment):
    env = dict(os.environ, LAPIS_DEVICE="simulated" if SIMULATED_AVAILABLE else "default", LAPIS_STAGING_MIN_BYTES="0")
    env.update(environment)
    result = subprocess.run([sys.executable, "-c", SETTINGS_PROGRAM], capture_output=True, text=True, timeout=120,
                            env=env)
    if result.returncode == 0:
        assert result.stdout == "ok\n", result.stderr
    else:
        assert result.returncode == 1, (environment, result.returncode, result.stderr[-2000:])  # never a signal
        refusal = result.stderr.strip().splitlines()[-1]
        assert refusal.startswith("ValueError: lapis: LAPIS_"), (environment, refusal)
        assert any(f"{name}='{value}'" in refusal for name, value in env.items() if name in SETTINGS), refusal


def test_the_runner_fails_on_anything_undocumented(modules_env):
    result = subprocess.run([sys.executable, RUNNER], input=json.dumps([["zeros", 0], ["no_such_step"]]),
                            capture_output=True, text=True, timeout=120, env=modules_env)
    assert result.returncode == 1 and "AttributeError" in result.stderr
