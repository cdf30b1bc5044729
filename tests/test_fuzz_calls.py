"""Random programs over lapis's Python entry points, misuse and finalize at any point included,
each run in a fresh interpreter by fuzz_calls.py: every call works or raises a documented
exception, values match numpy, and the process never dies by a signal."""
import json
import os
import subprocess
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FUZZ

RUNNER = os.path.join(os.path.dirname(__file__), "fuzz_calls.py")
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
}
step = st.one_of(*(st.tuples(st.just(name), *args) for name, args in STEPS.items()))


def run_program(steps):
    result = subprocess.run([sys.executable, RUNNER], input=json.dumps(steps), capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0 and result.stdout == "ok\n", (result.returncode, steps, result.stderr[-3000:])


@settings(max_examples=FUZZ(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(step, min_size=1, max_size=40))
def test_random_programs_never_crash_or_answer_wrong(steps):
    run_program(steps)


def test_the_runner_fails_on_anything_undocumented():
    result = subprocess.run([sys.executable, RUNNER], input=json.dumps([["zeros", 0], ["no_such_step"]]),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and "AttributeError" in result.stderr
