"""lapis.graph(): kernel calls recorded once and replayed in C++ (runtime/graph.hpp), on both CPU
devices: values against numpy after 1, 2 and 100 replays, no copy per replay, every operation a graph
cannot take refused with GraphCaptureError and nothing changed, the DualViews a graph uses alive as
long as it is, the trace's replay event, one capture per thread, and replay after finalize refused."""
import gc
import inspect
import subprocess
import sys
import threading
import weakref

import numpy
import pytest

import lapis
import lapis.kernels as K
from conftest import APART


def resident(array):
    dv = lapis.DualView(numpy.array(array, dtype=float))
    dv.sync_device()
    return dv


@pytest.mark.parametrize("replays", [1, 2, 100])
def test_replays_match_the_calls_made_that_many_times(replays):
    x0, y0 = numpy.arange(5.0), numpy.linspace(1, 2, 5)
    x, y, t = resident(x0), resident(y0), lapis.empty(5)
    with lapis.graph() as g:
        K.multiply(y, 0.5, out=t)   # t = y / 2
        K.axpby(1.0, x, 2.0, t, out=x)  # x += y
        s = K.add(x, 1.0)           # a result the graph allocates
    assert g.calls == ("multiply", "axpby", "add") and len(g) == 3
    numpy.testing.assert_array_equal(x.asnumpy(), x0)  # nothing ran while recording
    for _ in range(replays):
        g.replay()
    numpy.testing.assert_allclose(x.asnumpy(), x0 + replays * y0, rtol=1e-12)
    numpy.testing.assert_allclose(s.asnumpy(), x0 + replays * y0 + 1, rtol=1e-12)


def test_a_replay_moves_nothing_and_leaves_the_device_sides_modified():
    x, y = resident([1.0, 2.0]), resident([3.0, 4.0])
    out = lapis.empty(2)
    with lapis.graph() as g:
        K.matadd(x, y, out=out)
    numpy.testing.assert_array_equal(out.asnumpy(), out.asnumpy())  # its host side current now
    with lapis.count_transfers() as t:
        for _ in range(10):
            g.replay()
    assert t.stats == lapis.TransferStats()
    with lapis.count_transfers() as t:
        numpy.testing.assert_array_equal(out.asnumpy(), [4.0, 6.0])  # the replay's result comes up
    assert t.stats == (lapis.TransferStats(0, 0, 1, 16) if APART else lapis.TransferStats())


def test_a_replay_syncs_what_changed_on_the_host_since_as_the_call_would():
    x, out = resident([1.0, 2.0]), lapis.empty(2)
    with lapis.graph() as g:
        K.multiply(x, 2.0, out=out)
    x.asnumpy(writable=True)[:] = [5.0, 7.0]  # marks the host side modified
    with lapis.count_transfers() as t:
        g.replay()
    assert t.stats == (lapis.TransferStats(1, 16, 0, 0) if APART else lapis.TransferStats())
    numpy.testing.assert_array_equal(out.asnumpy(), [10.0, 14.0])


REFUSED = {
    "numpy argument": (lambda x, out: K.matadd(numpy.ones(3), x, out=out), "matadd: a: a numpy.ndarray"),
    "numpy out": (lambda x, out: K.matadd(x, x, out=numpy.empty(3)), "matadd: out: a numpy.ndarray"),
    "result to the host": (lambda x, out: K.dot(x, x), "dot: returns its result to the host"),
    "asnumpy": (lambda x, out: x.asnumpy(), "reads or writes the host side"),
    "sync_host": (lambda x, out: x.sync_host(), "reads or writes the host side"),
    "zeros": (lambda x, out: lapis.zeros(3), "lapis.zeros: fills a new DualView"),
    "full": (lambda x, out: lapis.full(3, 1.0), "lapis.full: fills a DualView"),
    "nested capture": (lambda x, out: lapis.graph().__enter__(), "this thread records a graph already"),
}


@pytest.mark.parametrize("name", REFUSED)
def test_what_a_graph_cannot_take_is_refused_and_changes_nothing(name):
    operation, message = REFUSED[name]
    x, out = resident([1.0, 2.0, 3.0]), resident([9.0, 9.0, 9.0])
    before = lapis.transfer_stats()
    with pytest.raises(lapis.GraphCaptureError, match=message):
        with lapis.graph() as g:
            K.matadd(x, x, out=out)  # recorded, then abandoned with the capture
            operation(x, out)
    assert len(g) == 0
    with pytest.raises(lapis.GraphCaptureError, match="abandoned"):
        g.replay()
    assert lapis.transfer_stats() == before
    numpy.testing.assert_array_equal(out.asnumpy(), [9.0, 9.0, 9.0])
    with lapis.graph() as again:  # the thread records again
        K.matadd(x, x, out=out)
    again.replay()
    numpy.testing.assert_array_equal(out.asnumpy(), [2.0, 4.0, 6.0])


def test_an_input_stale_on_the_device_is_refused():
    x, out = resident([1.0, 2.0]), lapis.empty(2)
    x.modify_host()
    with pytest.raises(lapis.GraphCaptureError, match="sync_device"):
        with lapis.graph():
            K.matadd(x, x, out=out)


def test_bad_input_raises_as_the_call_would_and_abandons_the_capture():
    with pytest.raises(ValueError, match="gemm"):
        with lapis.graph() as g:
            K.gemm(lapis.empty((2, 3)), lapis.empty((2, 3)))
    with pytest.raises(lapis.GraphCaptureError, match="ValueError"):
        g.replay()


def test_a_graph_records_once():
    with lapis.graph() as g:
        K.add(lapis.empty(1), 1.0)
    with pytest.raises(lapis.GraphCaptureError, match="records once"):
        with g:
            pass


def test_the_dualviews_a_graph_uses_live_as_long_as_it_does():
    gc.collect()
    live = lapis.runtime_info()["live_bytes"]
    x = lapis.full(1000, 2.0)
    with lapis.graph() as g:
        y = K.multiply(x, 3.0)  # allocated inside: the graph's (its memory at the first replay)
        K.add(y, 1.0, out=y)
    del x, y  # the graph holds both
    gc.collect()
    for _ in range(2):
        g.replay()
        assert lapis.runtime_info()["live_bytes"] == live + 2 * 8000
    del g
    gc.collect()
    assert lapis.runtime_info()["live_bytes"] == live


def test_a_result_allocated_inside_holds_each_replays_values():
    x = lapis.full(4, 2.0)
    with lapis.graph() as g:
        y = K.multiply(x, 3.0)
        K.add(y, 1.0, out=y)
    for value in (1.0, 5.0):
        K.multiply(x, 0.0, out=x)
        K.add(x, value, out=x)
        g.replay()
        numpy.testing.assert_array_equal(y.asnumpy(), numpy.full(4, value * 3 + 1))


def test_a_replay_is_one_trace_event_around_its_calls():
    x = resident([1.0, 2.0])
    with lapis.graph() as g:
        K.add(x, 1.0, out=x)
        K.multiply(x, 2.0, out=x)
    with lapis.trace() as t:
        g.replay()
    replays = [e for e in t.events if e.kind == "replay"]
    kernels = [e for e in t.events if e.kind == "kernel"]
    assert len(replays) == 1 and replays[0].name == "2 calls"
    assert [k.name for k in kernels] == ["add", "multiply"]
    start, end = replays[0].start_us, replays[0].start_us + replays[0].duration_us
    assert all(start <= k.start_us and k.start_us + k.duration_us <= end for k in kernels)


def test_a_replays_events_name_the_line_that_replayed():
    x = resident([1.0, 2.0])
    with lapis.graph() as g:
        K.add(x, 1.0, out=x)
    with lapis.trace() as t:
        x.sync_device()  # a use of a DualView on another line just before
        g.replay()
    line = inspect.getsourcelines(test_a_replays_events_name_the_line_that_replayed)[1] + 6
    events = [e for e in t.events if e.kind in ("replay", "kernel")]
    assert [e.kind for e in events] == ["replay", "kernel"]
    assert all(e.file == __file__ and e.line == line for e in events), [(e.file, e.line) for e in events]


def test_one_capture_per_thread_and_other_threads_run_their_calls():
    x = resident([1.0])
    ran = {}

    def other():
        y = resident([2.0])
        K.add(y, 1.0, out=y)  # runs now: this thread records nothing
        ran["y"] = y.asnumpy()[0]
        with lapis.graph() as h:  # a capture of its own
            K.add(y, 1.0, out=y)
        h.replay()
        ran["replayed"] = y.asnumpy()[0]

    with lapis.graph() as g:
        K.add(x, 1.0, out=x)
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    assert ran == {"y": 3.0, "replayed": 4.0} and len(g) == 1
    g.replay()
    assert x.asnumpy()[0] == 2.0


def test_a_cg_iteration_replayed_solves_the_system():
    n = 50
    a = numpy.diag(numpy.full(n, 4.0)) + numpy.diag(numpy.full(n - 1, -1.0), 1) + numpy.diag(numpy.full(n - 1, -1.0), -1)
    b = numpy.ones(n)
    from scipy.sparse import csr_matrix
    A = K.CSRMatrix(csr_matrix(a))
    x, r, p = resident(numpy.zeros(n)), resident(b), resident(b)
    q, z = lapis.empty(n), lapis.empty(n)
    m = resident(1 / numpy.diag(a))
    rz, rz_old, pq, rr = (lapis.empty(()) for _ in range(4))
    K.cg_precondition(m, r, z, rz)
    K.axpby(1.0, z, 0.0, z, out=p)
    K.spmv(A, p, out=q)  # the structure checked once, outside the capture
    with lapis.graph() as iteration:
        K.spmv(A, p, out=q)
        K.dot(p, q, out=pq)
        K.cg_step(rz, pq, p, q, x, r, rr)
        K.axpby(1.0, rz, 0.0, rz, out=rz_old)
        K.cg_precondition(m, r, z, rz)
        K.cg_direction(z, rz, rz_old, p)
    for _ in range(30):
        for _ in range(5):  # k iterations per convergence test
            iteration.replay()
        if float(rr.asnumpy()) < 1e-24:
            break
    numpy.testing.assert_allclose(x.asnumpy(), numpy.linalg.solve(a, b), rtol=1e-10)


def test_replay_after_finalize_is_refused():
    program = """
import lapis, lapis.kernels as K
x = lapis.empty(2)
with lapis.graph() as g:
    K.add(x, 1.0, out=x)
lapis.finalize()
try:
    g.replay()
except lapis.RuntimeFinalizedError as e:
    print("refused:", e)
"""
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("refused:")


def test_a_graph_keeps_the_numpy_arrays_its_dualviews_borrow_and_writes_back_into_them():
    array = numpy.arange(3.0)
    x = lapis.DualView(array)  # borrows the array's memory
    x.sync_device()
    alive = weakref.ref(array)
    with lapis.graph() as g:
        K.add(x, 1.0, out=x)
    del x, array  # the graph holds the DualView, and with it the array
    gc.collect()
    g.replay()
    g.replay()
    assert alive() is not None
    array = alive()
    del g  # the DualView dies with the graph and writes its device side back into the array
    gc.collect()
    numpy.testing.assert_array_equal(array, [2.0, 3.0, 4.0])


def test_the_replay_mode_says_how_replays_run():
    x = lapis.full(4, 1.0)
    with lapis.graph() as g:
        K.add(x, 1.0, out=x)
        K.multiply(x, 2.0, out=x)
    assert g.replay_mode == ""
    g.replay()
    g.replay()
    numpy.testing.assert_array_equal(x.asnumpy(), numpy.full(4, 10.0))
    if lapis.runtime_info()["execution_space"] == "Cuda":
        assert g.replay_mode == "device graph"  # one launch per replay
    else:
        assert g.replay_mode == "call by call: this device records no launches"


def test_a_graph_keeps_the_scratch_its_kernels_use():
    """A convolution takes scratch from lapis's pool at each call; captured into a device graph, that
    scratch stays the graph's, so replays interleaved with other convolutions give the calls' values."""
    rng = numpy.random.default_rng(5)
    image, weights = (rng.standard_normal(shape).astype(numpy.float32) for shape in ((2, 3, 9, 9), (4, 3, 3, 3)))
    x, w = lapis.DualView(image), lapis.DualView(weights)
    expected = K.conv2d_nchw(x, w, padding=1).asnumpy().copy()
    out = lapis.empty(expected.shape, numpy.float32)
    with lapis.graph() as g:
        K.conv2d_nchw(x, w, padding=1, out=out)
        K.maximum(out, 0.0, out=out)
    for _ in range(3):
        g.replay()
        other = K.conv2d_nchw(w, w, padding=1)  # another convolution's scratch between replays
        numpy.testing.assert_allclose(out.asnumpy(), numpy.maximum(expected, 0.0), rtol=1e-5, atol=1e-5)
        del other
    expected_mode = "device graph" if lapis.runtime_info()["execution_space"] == "Cuda" else \
        "call by call: this device records no launches"
    assert g.replay_mode == expected_mode
