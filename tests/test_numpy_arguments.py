"""numpy arrays handed to kernels call after call (a LAPIS program's common path): lapis keeps the
DualView it made of an array for the next call with that array (cython/lapis/adoptions.pxi), with
no device memory between calls where the sides are apart, and on either device nothing a user can
see changes: values, copies, errors, memory held, the array's own life."""
import os
import subprocess
import sys
import threading
import weakref

import numpy
import pytest

import lapis
import lapis.kernels as K
from lapis import _core
from conftest import counts


def cached():
    return _core._cached_arrays()


@pytest.fixture(autouse=True)
def no_kept_wrappings():
    lapis.empty_cache()  # drops the wrappings earlier tests' arrays left
    assert cached() == 0


def test_each_call_reads_the_arrays_as_they_are_now_and_copies_the_same():
    x, y, z = numpy.arange(4.0), numpy.ones(4), numpy.zeros(4)
    with lapis.count_transfers() as first:
        K.matadd(x, y, out=z)
    numpy.testing.assert_array_equal(z, x + 1)
    assert first == counts(2, 64, 1, 32)
    for step in range(1, 4):  # written in between, by numpy, as a program does
        x += step
        y[step] = -7.0
        with lapis.count_transfers() as later:
            K.matadd(x, y, out=z)
        numpy.testing.assert_array_equal(z, x + y)
        assert later == first  # the host side is taken as current at every call, as a new wrapping is


def test_the_cache_keeps_no_array_alive():
    x, y, z = numpy.ones(3), numpy.ones(3), numpy.zeros(3)
    K.matadd(x, y, out=z)
    K.matadd(x, y, out=z)
    gone = weakref.ref(x)
    del x
    assert gone() is None  # (and numpy's resize(refcheck=True), which refuses referenced arrays, works:)
    y.resize(5, refcheck=True)
    y[:] = 1.0
    numpy.testing.assert_array_equal(K.matadd(y, y).asnumpy(), 2.0)


def test_a_new_array_in_a_dead_ones_place_gets_its_own_values():
    for i in range(50):  # numpy often gives the new array the old one's id and memory
        x = numpy.full(4, float(i))
        numpy.testing.assert_array_equal(K.matadd(x, x).asnumpy(), 2.0 * i)
        del x
    for i in range(20):  # the same id and memory, another dtype or layout
        x = numpy.full(4, float(i), dtype=numpy.float32 if i % 2 else numpy.float64)
        out = K.matadd(x, x)
        assert out.dtype == x.dtype
        numpy.testing.assert_array_equal(out.asnumpy(), 2.0 * i)
        del x, out


def test_an_array_resized_reshaped_or_made_read_only_is_wrapped_anew():
    x, z = numpy.arange(4.0), numpy.zeros(4)
    K.matadd(x, x, out=z)
    x.resize(6, refcheck=True)  # new memory
    x[:] = numpy.arange(6.0)
    z6 = numpy.zeros(6)
    K.matadd(x, x, out=z6)
    numpy.testing.assert_array_equal(z6, 2 * numpy.arange(6.0))
    x.shape = (2, 3)  # in place: the same memory, another shape
    out = K.matadd(x, x)
    assert out.shape == (2, 3)
    numpy.testing.assert_array_equal(out.asnumpy(), 2 * x)
    z.flags.writeable = False
    with pytest.raises(lapis.ReadOnlyError):
        K.matadd(numpy.ones(4), numpy.ones(4), out=z)
    z.flags.writeable = True
    K.matadd(numpy.ones(4), numpy.ones(4), out=z)
    numpy.testing.assert_array_equal(z, 2.0)


def test_a_read_only_input_gives_the_right_values_call_after_call_wrapped_anew_each_time():
    x = numpy.arange(5.0)
    x.flags.writeable = False
    for _ in range(3):
        numpy.testing.assert_array_equal(K.matadd(x, x).asnumpy(), 2 * x)
    assert cached() == 0  # its host side could not be marked current again


@pytest.mark.parametrize("call,reference,arrays", [
    (lambda x, y, z: K.add(x, y, out=z), lambda x, y: x + y, 3),
    (lambda x, y, z: K.axpby(2.0, x, 1.0, y, out=z), lambda x, y: 2.0 * x + y, 3),
    (lambda x, y, z: K.maximum(x, 0.5, out=z), lambda x, y: numpy.maximum(x, 0.5), 2),
    (lambda x, y, z: K.matadd(x, y, out=z), lambda x, y: x + y, 3),
], ids=["add", "axpby", "maximum with a number", "matadd"])
def test_every_kernel_keeps_its_arrays_and_reads_them_anew(call, reference, arrays):
    kept = arrays
    x, y, z = numpy.arange(3.0), numpy.ones(3), numpy.zeros(3)
    call(x, y, z)
    assert cached() == kept
    x += 1.0
    with lapis.count_transfers() as later:
        call(x, y, z)
    numpy.testing.assert_array_equal(z, reference(x, y))
    assert cached() == kept
    assert later == counts(arrays - 1, (arrays - 1) * 24, 1, 24)  # each input up, the result back


def test_a_kept_wrapping_has_a_new_wrappings_flags_at_each_call():
    x, y, z = numpy.ones(4), numpy.ones(4), numpy.zeros(4)
    K.matadd(x, y, out=z)  # z's device side was written, then written back where the sides are apart
    fresh = lapis.DualView(z)
    adoptions = _core.Adoptions()
    kept = adoptions.take(z)
    assert kept is not fresh
    assert (kept.need_sync_host, kept.need_sync_device) == (fresh.need_sync_host, fresh.need_sync_device)
    adoptions.keep()


def test_a_call_that_raises_leaves_its_arrays_out_of_the_cache():
    x, y = numpy.ones(3), numpy.ones(3)
    K.matadd(x, y)
    before = cached()
    with pytest.raises(ValueError):
        K.matadd(x, y, out=numpy.zeros(4))  # the kernel refuses out's shape after taking x and y
    assert cached() == before - 2
    numpy.testing.assert_array_equal(K.matadd(x, y).asnumpy(), 2.0)  # and a later call is as before
    assert cached() == before


def test_an_array_passed_twice_in_one_call_is_one_dualview():
    x = numpy.arange(3.0)
    K.matadd(x, x, out=x)  # out is exactly the input: allowed, each element read before written
    numpy.testing.assert_array_equal(x, [0.0, 2.0, 4.0])
    K.matadd(x, x, out=x)
    numpy.testing.assert_array_equal(x, [0.0, 4.0, 8.0])


def test_the_cache_holds_at_most_64_arrays_and_none_that_a_call_let_escape():
    arrays = [numpy.full(2, float(i)) for i in range(100)]
    for a in arrays:
        K.matadd(a, a)
    assert cached() == 64
    lapis.empty_cache()
    assert cached() == 0
    assert numpy.array_equal(K.matadd(arrays[0], arrays[0]).asnumpy(), [0.0, 0.0])
    assert numpy.array_equal(K.matadd(arrays[99], arrays[99]).asnumpy(), [198.0, 198.0])
    data, indices, indptr = numpy.ones(2), numpy.array([0, 1]), numpy.array([0, 1, 2])
    K.matadd(data, data)
    before = cached()
    A = K.CSRMatrix((data, indices, indptr), shape=(2, 2))  # its DualViews are the matrix's now
    assert cached() == before - 1
    numpy.testing.assert_array_equal(K.matadd(data, data).asnumpy(), [2.0, 2.0])  # wrapped anew
    assert cached() == before
    numpy.testing.assert_array_equal(K.spmv(A, numpy.ones(2)).asnumpy(), [1.0, 1.0])


def test_a_kept_wrapping_holds_no_memory_between_calls():
    before = lapis.runtime_info()["live_allocations"]
    x = numpy.ones(8)
    for step in range(1, 4):
        with lapis.count_transfers() as copies:
            numpy.testing.assert_array_equal(K.matadd(x, x, out=x), 2.0 ** step)
        assert copies == counts(1, 64, 1, 64)  # up, and back: the device side is made anew each call
        assert cached() == 1
        assert lapis.runtime_info()["live_allocations"] == before  # its device side went with the call


def test_threads_sharing_input_arrays_each_get_their_own_right_answer():
    x, y = numpy.arange(1000.0), numpy.ones(1000)
    failures = []

    def work(seed):
        out = numpy.empty(1000)
        for i in range(300):
            K.matadd(x, y, out=out)
            if not numpy.array_equal(out, x + 1):
                failures.append((seed, i))
                return

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures


@pytest.mark.parametrize("setting,expected", [("0", "0 0"), ("2", "2 2"), ("", "5 64")])
def test_lapis_cached_arrays_caps_the_cache_and_0_turns_it_off(setting, expected):
    show = ("import numpy, lapis, lapis.kernels as K; from lapis import _core; "
            "arrays = [numpy.full(2, float(i)) for i in range(5)]; "
            "assert all((K.matadd(a, a).asnumpy() == 2 * a).all() for a in arrays for _ in range(2)); "
            "print(_core._cached_arrays(), lapis.runtime_info()['cached_arrays'])")
    done = subprocess.run([sys.executable, "-c", show], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, LAPIS_CACHED_ARRAYS=setting))
    assert done.returncode == 0 and done.stdout.strip() == expected, (done.stdout, done.stderr)


def test_a_wrapping_a_module_kept_a_handle_on_is_not_reused():
    x = numpy.ones(3)
    adoptions = _core.Adoptions()
    held = adoptions.take(x)
    handle = _core._new_ref(held)  # what a LAPIS module's call may keep beyond the call
    adoptions.keep()
    try:
        again = _core.Adoptions()
        assert again.take(x) is not held  # it could have been changed through the handle, unseen
        again.keep()
    finally:
        _core._release_ref(handle)
    numpy.testing.assert_array_equal(K.matadd(x, x).asnumpy(), 2.0)
