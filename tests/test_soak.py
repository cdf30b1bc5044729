"""Soak and faults: a million allocating calls hold memory steady; Ctrl-C in the middle of long
staged copies leaves the DualView consistent; a forked child of a process whose runtime runs on a
GPU gets a clear error instead of a crash. (Memory running out is test_pool's: a MemoryError once
the pool gave its cached blocks back and the allocation was tried again.)"""
import gc
import os
import subprocess
import sys
import textwrap

import numpy
import pytest

import lapis
import lapis.kernels as K
from conftest import INFO, SIMULATED_AVAILABLE
from test_reliability import resident_bytes

ON_GPU = INFO["device_memory_space"] not in (INFO["host_memory_space"], "SimulatedDevice(HostSpace)")


def test_a_million_allocating_calls_hold_memory_steady():
    x = lapis.DualView(numpy.ones(16))
    samples = []  # (resident bytes, live allocations, live bytes) after each 100,000 calls
    for _ in range(10):
        for _ in range(100_000):
            K.add(x, 1.0)  # a new DualView each call, dropped at once
        gc.collect()
        info = lapis.runtime_info()
        samples.append((resident_bytes(), info["live_allocations"], info["live_bytes"]))
    assert len({sample[1:] for sample in samples}) == 1, samples
    grown = samples[-1][0] - samples[1][0]
    print(f"resident memory grew by {grown / 2**20:.2f} MiB over the last 900,000 calls")
    assert grown < 8 * 2**20, samples


INTERRUPTED = """
    import os, signal, threading
    import numpy, lapis, lapis.kernels as K

    a = numpy.arange(2.0**24)
    dv = lapis.DualView(a.copy())
    # Python keeps SIGINT ignored where its parent ignored it (a run started in the background by a
    # shell without job control): the loop would never end
    signal.signal(signal.SIGINT, signal.default_int_handler)
    threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    try:
        while True:
            dv.modify_host()
            dv.sync_device()   # 128 MiB up, through the staging team
    except KeyboardInterrupt:  # (in a copy, or between two: a loaded machine may finish the first late)
        pass
    numpy.testing.assert_array_equal(dv.asnumpy(), a)
    numpy.testing.assert_array_equal(K.add(dv, 0.0).asnumpy(), a)  # the device side agrees (synced if stale)
    assert not dv.need_sync_device
    print("ok")
"""


def test_ctrl_c_during_long_staged_copies_leaves_the_dualview_consistent():
    device = "simulated" if SIMULATED_AVAILABLE else "default"
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(INTERRUPTED)], capture_output=True, text=True,
                          timeout=300, env=dict(os.environ, LAPIS_DEVICE=device, LAPIS_STAGING_MIN_BYTES="1"))
    assert done.returncode == 0 and done.stdout == "ok\n", done.stderr


FORKED = """
    import os, sys
    import lapis

    x = lapis.full(8, 2.0)
    x.asnumpy()
    pid = os.fork()
    if pid == 0:
        try:
            lapis.zeros(4).asnumpy()
        except lapis.RuntimeFinalizedError as error:
            sys.exit(0 if "fork()" in str(error) else 3)
        sys.exit(4)   # (a normal exit: lapis's finalize and the DualViews' release run in the child)
    _, status = os.waitpid(pid, 0)
    print("child", os.waitstatus_to_exitcode(status), x.asnumpy().sum())
"""


@pytest.mark.skipif(not ON_GPU, reason="a forked child of a CPU build keeps its device (host) memory and runs on")
def test_a_forked_child_of_a_gpu_process_gets_a_clear_error():
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(FORKED)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0 and done.stdout == "child 0 16.0\n", (done.stdout, done.stderr)
