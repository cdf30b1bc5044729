"""Long-running use leaks nothing; reference cycles through DualViews are collectable; threads
sharing DualViews keep flags and counts exact."""
import gc
import os
import subprocess
import sys
import textwrap
import threading
import time
import weakref

import numpy
import pytest

import lapis
import lapis.kernels as K
from conftest import APART, counts


def resident_bytes():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


def churn(iterations, a):
    for _ in range(iterations):
        result = K.matadd(a, a)          # an allocating kernel result (a is wrapped for the call)
        wrapped = lapis.DualView(a)      # a borrowed wrap
        wrapped.sync_device()
        exported = result.asnumpy()      # an export that keeps its DualView alive
        del result, wrapped, exported    # every DualView dropped


def test_a_hundred_thousand_iterations_leave_nothing_behind():
    a = numpy.ones(64)
    churn(2_000, a)                      # let allocator pools settle before the baseline
    gc.collect()
    base, rss = lapis.runtime_info(), resident_bytes()
    churn(100_000, a)
    gc.collect()
    info = lapis.runtime_info()
    assert (info["live_allocations"], info["live_bytes"]) == (base["live_allocations"], base["live_bytes"])
    grown = resident_bytes() - rss
    print(f"resident memory grew by {grown / 2**20:.2f} MiB over 100,000 iterations")
    assert grown < 10 * 2**20


class Exporter:
    """An array-interface exporter that can sit in a reference cycle with the DualView wrapping it."""

    def __init__(self):
        self.array = numpy.zeros(1000)
        self.__array_interface__ = self.array.__array_interface__


def test_reference_cycles_through_dualviews_are_collected():
    gc.collect()
    base = lapis.runtime_info()["live_allocations"]
    exporter = Exporter()
    exporter.dv = lapis.DualView(exporter)     # exporter -> dv -> (its borrowed array) -> exporter
    exporter.dv.sync_device()
    exporter.result = K.matadd(exporter.dv, exporter.dv)
    alive = weakref.ref(exporter)
    del exporter
    gc.collect()
    assert alive() is None
    assert lapis.runtime_info()["live_allocations"] == base



def test_threads_sharing_dualviews_keep_flags_and_counts_exact():
    a = numpy.arange(64.0).reshape(8, 8)
    b = numpy.eye(8)
    A, B = lapis.DualView(a), lapis.DualView(b)     # shared inputs, uploaded on first use only
    shared = K.gemm(a, b)                            # a shared result, modified on the device
    errors = []
    barrier = threading.Barrier(8)

    def work():
        try:
            barrier.wait()
            for _ in range(200):
                numpy.testing.assert_array_equal(K.gemm(A, B).asnumpy(), a)
                numpy.testing.assert_array_equal(shared.asnumpy(), a)   # downloaded once, by one thread
                A.sync_device()
        except Exception as e:  # reported to the main thread
            errors.append(e)

    with lapis.count_transfers() as t:
        threads = [threading.Thread(target=work) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert errors == []
    calls = 8 * 200  # A and B go up once each, shared comes down once, every result once
    assert t == counts(2, 2 * a.nbytes, calls + 1, (calls + 1) * a.nbytes)
    assert not A.need_sync_device and not shared.need_sync_host


@pytest.mark.parametrize("handle", ["whole", "part", "second handle"])
def test_borrowed_memory_gets_the_device_sides_changes_when_the_last_handle_dies(handle):
    array = numpy.zeros(6)
    dv = lapis.DualView(array)
    target = {"whole": dv, "part": dv[2:5], "second handle": lapis.DualView(dv)}[handle]
    target.fill(3.0)  # the device side only: nothing synced yet
    with lapis.count_transfers() as t:
        del dv, target
        gc.collect()
    expected = numpy.zeros(6)
    expected[slice(2, 5) if handle == "part" else slice(None)] = 3.0
    numpy.testing.assert_array_equal(array, expected)  # the write was not lost
    assert t == counts(d2h=1, d2h_bytes=48)


def test_a_refused_write_back_is_reported_never_raised(capfd):
    array = numpy.zeros(4)
    dv = lapis.DualView(array)
    dv.fill(1.0)
    with lapis.transfer_guard(device_to_host="disallow"):
        del dv
        gc.collect()
    err = capfd.readouterr().err
    if APART:
        assert "could not be copied into the borrowed host memory" in err and "TransferGuardError" not in err
        assert (array == 0.0).all()
    else:
        assert err == "" and (array == 1.0).all()


def test_finalize_writes_borrowed_memory_back_before_it_releases_the_device_side():
    code = textwrap.dedent("""
        import numpy, lapis
        array = numpy.zeros(4)
        dv = lapis.DualView(array)
        dv.fill(2.5)
        lapis.finalize()
        print(array.tolist(), lapis.transfer_stats().d2h_count)
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert result.stdout == f"[2.5, 2.5, 2.5, 2.5] {1 if APART else 0}\n"


@pytest.mark.skipif(not APART, reason="where the sides are one memory an export copies nothing")
def test_a_large_export_lets_other_threads_run():
    dv = lapis.zeros(25_000_000)  # 200 MB, the device side newer once filled
    dv.fill(1.0)
    ticks, running = [], threading.Event()
    running.set()

    def ticker():
        while running.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.0005)

    thread = threading.Thread(target=ticker)
    thread.start()
    time.sleep(0.02)
    started = time.perf_counter()
    view = memoryview(dv)  # one download of 200 MB, under the buffer's lock but without the GIL
    finished = time.perf_counter()
    running.clear()
    thread.join()
    assert view.nbytes == 200_000_000
    during = [t for t in ticks if started < t < finished]
    print(f"export: {1e3 * (finished - started):.1f} ms, the other thread ticked {len(during)} times meanwhile")
    assert len(during) >= 3


@pytest.mark.skipif(not APART, reason="where the sides are one memory nothing is ever written back")
def test_a_borrowed_array_nobody_else_holds_is_not_written_back_when_dropped():
    """lapis.DualView(x.copy()) written on the device and dropped: its array dies with it, so
    copying the device side into it would be wasted; an array someone still holds gets the copy."""
    x = numpy.arange(1000.0)
    with lapis.count_transfers() as t:
        X = lapis.DualView(x.copy())
        K.multiply(X, 2.0, out=X)             # in place, on the device: the host side is stale
        del X                                 # its array is unreachable: nothing to write back
    assert t == counts(1, 8000)               # the one upload the kernel needed
    kept = x.copy()
    with lapis.count_transfers() as t:
        X = lapis.DualView(kept)
        K.multiply(X, 2.0, out=X)
        part = X[::2]
        del X                                 # the part still holds the whole buffer
        K.multiply(part, 2.0, out=part)
        del part                              # `kept` is still reachable: written back
    assert t == counts(1, 8000, 1, 8000)
    numpy.testing.assert_array_equal(kept[::2], 4 * x[::2])
    numpy.testing.assert_array_equal(kept[1::2], 2 * x[1::2])
    view = x.copy()[10:]                      # the array dies, but its memory is the base's: a view's
    with lapis.count_transfers() as t:        # owner may be reachable, so it is written back
        X = lapis.DualView(view)
        K.multiply(X, 2.0, out=X)
        del X
    assert t == counts(1, 7920, 1, 7920)
