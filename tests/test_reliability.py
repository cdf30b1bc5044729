"""Long-running use leaks nothing; reference cycles through DualViews are collectable; threads
sharing DualViews keep flags and counts exact."""
import gc
import threading
import weakref

import numpy

import lapis
import lapis.kernels as K
from conftest import counts


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
