"""Misuse from pure Python raises a Python exception, never crashes: objects that skipped
__init__, __init__ called twice, shape arguments that are not ints."""
import subprocess
import sys
import textwrap

import numpy
import pytest

import lapis
import lapis.kernels as K
from conftest import APART


def test_dualviews_that_skipped_init_raise_typeerror_and_never_crash():
    # in a subprocess: before the fix, the first of these was a segfault
    code = textwrap.dedent("""
        import numpy, lapis, lapis.kernels as K

        class Lazy(lapis.DualView):
            def __init__(self, obj):   # never calls DualView.__init__
                pass

        uses = {
            "ndim": lambda dv: dv.ndim, "size": lambda dv: dv.size, "nbytes": lambda dv: dv.nbytes,
            "need_sync_host": lambda dv: dv.need_sync_host, "host_allocated": lambda dv: dv.host_allocated,
            "is_borrowed": lambda dv: dv.is_borrowed, "transfers": lambda dv: dv.transfers,
            "sync_host": lambda dv: dv.sync_host(), "sync_device": lambda dv: dv.sync_device(),
            "modify_host": lambda dv: dv.modify_host(), "fill": lambda dv: dv.fill(1.0),
            "asnumpy": lambda dv: dv.asnumpy(), "asmemref": lambda dv: dv.asmemref(),
            "numpy.asarray": lambda dv: numpy.asarray(dv), "memoryview": lambda dv: memoryview(dv),
            "__dlpack__": lambda dv: dv.__dlpack__(), "matadd": lambda dv: K.matadd(dv, dv),
            "matadd out": lambda dv: K.matadd(numpy.ones(2), numpy.ones(2), out=dv),
            "dot": lambda dv: K.dot(dv, numpy.ones(2)),
        }
        for make in (lambda: lapis.DualView.__new__(lapis.DualView), lambda: Lazy(numpy.ones(3))):
            dv = make()
            assert repr(dv).startswith("<uninitialized"), repr(dv)
            for name, use in uses.items():
                try:
                    use(dv)
                except TypeError as e:
                    assert "never initialized" in str(e), (name, e)
                else:
                    raise AssertionError(f"{name} did not raise")
        print("ok")
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, (result.returncode, result.stdout, result.stderr)
    assert result.stdout == "ok\n" and result.stderr == ""


def test_init_called_again_raises_and_keeps_exports_valid():
    dv = lapis.DualView(numpy.arange(4.0), copy=True)
    exported = dv.asnumpy()
    with pytest.raises(TypeError, match="already initialized"):
        dv.__init__(numpy.zeros(8))
    numpy.testing.assert_array_equal(exported, numpy.arange(4.0))
    numpy.testing.assert_array_equal(dv.asnumpy(), numpy.arange(4.0))
    assert dv.shape == (4,)


@pytest.mark.parametrize("shape", [2.5, (2, 3.0), ("2",), (numpy.float64(2),), None])
def test_shape_entries_must_be_ints(shape):
    with pytest.raises(TypeError):
        lapis.zeros(shape)


@pytest.mark.parametrize("shape", [(2**64,), (2**70, 1), (-1,)])
def test_shapes_beyond_memory_raise_valueerror(shape):
    with pytest.raises(ValueError):
        lapis.zeros(shape)


@pytest.mark.parametrize("shape", [(3.7, 4), ("3", "4"), (3, 4, 5), 3])
def test_sparse_matrix_shapes_must_be_pairs_of_ints(shape):
    indptr, indices, data = numpy.array([0, 1, 1, 1]), numpy.array([0]), numpy.array([1.0])
    with pytest.raises(ValueError, match="pair of ints"):
        K.spmv(indptr, indices, data, numpy.ones(4), shape=shape)


def _structured_field():
    return numpy.zeros(5, dtype=[("i", "i4"), ("x", "f8")])["x"]  # packed: strides of 12 bytes


def _misaligned():
    return numpy.zeros(8 * 5 + 1, numpy.uint8)[1:].view(numpy.float64)


@pytest.mark.parametrize("make", [_structured_field, _misaligned, lambda: numpy.arange(5.0)[::-1]],
                         ids=["structured-field", "misaligned", "negative-strides"])
def test_memory_a_device_view_cannot_address_gets_a_device_side_of_its_own(make):
    host = make()
    host[...] = numpy.arange(1.0, 6.0)
    dv = lapis.DualView(host)
    assert "aliased" not in repr(dv)
    with lapis.count_transfers() as t:   # a real copy on every device, as docs/guide/devices.md says
        assert K.dot(dv, numpy.ones(5)) == 15.0
    assert (t.h2d_count, t.h2d_bytes) == (1 + APART, 40 + 40 * APART)  # dv, and the ones where sides are apart
    dv.fill(3.0)
    with lapis.count_transfers() as t:
        dv.sync_host()
    assert t == lapis.TransferStats(d2h_count=1, d2h_bytes=40)
    numpy.testing.assert_array_equal(host, 3.0)


EXPORTS = {
    "asnumpy": lambda dv: dv.asnumpy(),
    "asnumpy-writable": lambda dv: dv.asnumpy(writable=True),
    "from-dlpack-of-asnumpy": lambda dv: lapis.DualView.from_dlpack(dv.asnumpy(writable=True)),
    "numpy-from-dlpack": lambda dv: numpy.from_dlpack(dv),   # the device side, where numpy can read it
}


@pytest.mark.parametrize("export", EXPORTS.values(), ids=EXPORTS.keys())
def test_an_export_of_the_output_passed_as_input_is_refused(export):
    if export is EXPORTS["numpy-from-dlpack"] and lapis.DualView(numpy.zeros(1)).__dlpack_device__()[0] != 1:
        pytest.skip("numpy cannot read CUDA memory")
    ones = numpy.ones((3, 3))
    c = K.matadd(ones, ones)                           # lapis-owned memory
    alias = export(c)
    with pytest.raises(ValueError, match="overlaps the input a"):
        K.matadd(alias, ones, out=c)
    numpy.testing.assert_array_equal(c.asnumpy(), 2.0)  # nothing written


def test_a_dualview_of_the_output_passed_as_input_is_an_update_in_place():
    ones = numpy.ones((3, 3))
    c = K.matadd(ones, ones)
    alias = lapis.DualView(c)                          # the same state as c, not an export of it
    assert K.matadd(alias, ones, out=c) is c
    numpy.testing.assert_array_equal(c.asnumpy(), 3.0)


@pytest.mark.parametrize("export", ["asnumpy-writable", "from-dlpack-of-asnumpy"])
def test_the_owner_passed_as_input_with_its_export_as_out_is_refused(export):
    ones = numpy.ones(4)
    c = K.matadd(ones, ones)
    alias = EXPORTS[export](c)
    with pytest.raises(ValueError, match="overlaps the input b"):
        K.matadd(ones, c, out=alias)


@pytest.mark.parametrize("out, given", [
    (lambda a: a[1:5], lambda a: a[3:7]),        # overlapping ranges of one array
    (lambda a: a[::-1][2:6], lambda a: a[:4]),   # a reversed view reaching the other's bytes
    (lambda a: a[:8:2], lambda a: a[1:9:2]),     # interleaved bounds that meet (exactly apart: the full check)
])
def test_numpy_parts_of_one_array_whose_bounds_meet_take_the_full_overlap_check(out, given):
    a = numpy.arange(10.0)
    o, g = out(a), given(a)
    if numpy.shares_memory(o, g):
        with pytest.raises(ValueError, match="overlaps the input a"):
            K.matadd(g, numpy.ones(4), out=o)
    else:
        K.matadd(g, numpy.ones(4), out=o)
        numpy.testing.assert_array_equal(o, g + 1)


@pytest.mark.parametrize("out, given", [
    (lambda a: a[1:5], lambda a: a[3:7]),        # overlapping ranges of one array
    (lambda a: a[::-1][2:6], lambda a: a[:4]),   # a reversed view beside the other, bytes apart
    (lambda a: a[:8:2], lambda a: a[1:9:2]),     # interleaved bounds that meet (exactly apart: the full check)
    (lambda a: a[:4], lambda a: a[4:8]),         # bytes apart: the first test decides
])
def test_dualviews_borrowing_parts_of_one_array_are_checked_by_their_bytes(out, given):
    a = numpy.arange(10.0)
    o, g = out(a), given(a)
    borrowed_out, borrowed_given = lapis.DualView(o), lapis.DualView(g)
    if numpy.shares_memory(o, g):
        with pytest.raises(ValueError, match="overlaps the input a"):
            K.matadd(borrowed_given, numpy.ones(4), out=borrowed_out)
    else:
        K.matadd(borrowed_given, numpy.ones(4), out=borrowed_out)
        numpy.testing.assert_array_equal(borrowed_out.asnumpy(), g + 1)


def test_an_export_of_a_borrowing_dualviews_device_side_as_out_is_refused():
    y = lapis.DualView(numpy.ones(4))  # its host side a numpy array's, its device side lapis's own
    if y.__dlpack_device__()[0] != 1:
        pytest.skip("numpy cannot read CUDA memory")
    y.sync_device()
    alias = numpy.from_dlpack(y)  # the device side (where the sides are one memory: the array itself)
    with pytest.raises(ValueError, match="overlaps the input a"):
        K.matadd(y, numpy.ones(4), out=alias)


def test_empty_numpy_arrays_share_no_memory():
    a = numpy.zeros((0, 3))
    assert K.matadd(a, a[:, ::-1], out=numpy.zeros((0, 3))).shape == (0, 3)


def test_disjoint_parts_of_one_array_do_not_overlap():
    a = numpy.zeros((4, 4))
    K.matadd(numpy.ones((4, 2)), numpy.ones((4, 2)), out=a[:, ::2])  # a read-only input beside it
    K.matadd(a[:, ::2], numpy.ones((4, 2)), out=a[:, 1::2])          # interleaved, never the same bytes
    numpy.testing.assert_array_equal(a, numpy.tile([2.0, 3.0], (4, 2)))


def _run(code, env=None, timeout=180):
    """Runs `code` in a fresh interpreter: it must exit cleanly (never a signal) and print ok."""
    import os
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                            timeout=timeout, env={**os.environ, **(env or {})})
    assert result.returncode == 0, (result.returncode, result.stdout[-2000:], result.stderr[-4000:])
    assert result.stdout.endswith("ok\n"), result.stdout[-2000:]
    return result


RACING_THREADS = """
    import sys, threading, time
    import numpy, lapis, lapis.kernels as K

    ones = lapis.full(4096, 1.0)
    ones.sync_host()
    failures, refused, stop = [], [0], threading.Event()

    def work(seed):
        rng = numpy.random.default_rng(seed)
        mine = lapis.DualView(numpy.arange(4096.0))
        while not stop.is_set():
            try:
                step = rng.integers(6)
                if step == 0:
                    assert K.dot(mine, ones) == 4096 * 4095 / 2
                elif step == 1:
                    K.matadd(ones, ones).sync_host()
                elif step == 2:
                    array = mine.asnumpy()
                    assert array.dtype == numpy.float64 and array[-1] == 4095.0, array.dtype
                elif step == 3:
                    ones.__dlpack__()             # an export no consumer takes: released unused
                elif step == 4:
                    lapis.zeros(1000).asnumpy()
                else:
                    mine.sync_device()
            except lapis.RuntimeFinalizedError:
                refused[0] += 1
            except Exception as e:   # anything else is a wrong answer
                failures.append(repr(e))
                return
"""


@pytest.mark.parametrize("round", range(3))
def test_finalize_racing_threads_is_clean(round):
    _run(RACING_THREADS + """
    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    time.sleep(0.2 + 0.1 * %d)
    lapis.finalize()               # while the others run kernels, sync and export
    time.sleep(0.2)
    stop.set()
    for t in threads:
        t.join()
    assert not failures, failures
    assert refused[0] > 0          # the others saw RuntimeFinalizedError, never a crash
    print("ok")
    """ % round)


def test_interpreter_exit_with_daemon_threads_still_calling_lapis_is_clean():
    _run(RACING_THREADS + """
    for i in range(6):
        threading.Thread(target=work, args=(i,), daemon=True).start()
    time.sleep(0.3)
    print("ok")                    # exit now: atexit finalizes while the daemon threads run
    """)


def test_exports_stay_valid_after_finalize():
    # glibc fills freed memory with the perturb byte: reading an export freed by finalize shows
    _run("""
        import numpy, lapis
        on_cuda = lapis.zeros(1).__dlpack_device__()[0] == 2
        if on_cuda:
            import cupy as consumer           # the device side in CUDA memory
        else:
            consumer = numpy                  # the device side, where numpy can read it
        dv = lapis.full(1000, 2.5)
        device_side = consumer.from_dlpack(dv)
        host_side = lapis.full(1000, 3.5).asnumpy()
        del dv
        lapis.finalize()
        garbage = [numpy.ones(1000) for _ in range(100)]
        if on_cuda:
            garbage += [consumer.ones(1000) for _ in range(100)]
        assert (device_side == 2.5).all(), device_side[:4]
        assert (host_side == 3.5).all(), host_side[:4]
        print("ok")
    """, env={"MALLOC_PERTURB_": "165"})


def test_a_dualview_used_in_a_del_at_interpreter_exit_raises_runtime_finalized_error():
    # the holder outlives lapis's finalize (atexit) and goes when __main__ is cleared, where the
    # import system is gone (sys.meta_path is None): the error type must be known without an import
    result = _run("""
        import sys
        import lapis

        class Holder:  # what __del__ needs is its own: the module's names may be None by then
            finalized, write = lapis.RuntimeFinalizedError, sys.stderr.write
            def __del__(self):
                try:
                    self.dv.asnumpy()
                except self.finalized:
                    self.write("RuntimeFinalizedError at exit\\n")
                except BaseException as e:
                    self.write(f"{type(e).__name__} at exit\\n")

        holder = Holder()
        holder.dv = lapis.zeros(3)
        print("ok")
    """)
    assert result.stderr == "RuntimeFinalizedError at exit\n"
