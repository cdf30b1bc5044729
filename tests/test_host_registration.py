"""Host memory registered with the device's driver for copies at the pinned rate
(lapis/runtime/host_registration.hpp, cython/lapis/host_blocks.pxi): which copies register which
memory (a block on its second copy, a large one on its first), one registration per allocation
however many DualViews borrow it, and each released when the memory goes. On the simulated device the decisions are the same as on a GPU and the driver is
never asked; where the sides are one memory nothing is copied, so nothing is registered."""
import gc
import mmap
import os
import subprocess
import sys
import textwrap

import numpy
import pytest

import lapis
import lapis.kernels as K
from conftest import APART, counts

BIG = 128 * 1024  # bytes, at and above which a copy asks for a registration (64 KiB)


HELD_BEFORE = 0  # what earlier tests left registered (the memory of arrays they still hold)


def held():
    """Registrations held now, made since the test began."""
    return lapis.host_registrations()["held"] - HELD_BEFORE


@pytest.fixture(autouse=True)
def nothing_held_before(no_gc):
    global HELD_BEFORE
    lapis.empty_cache()  # earlier tests' arrays and pooled blocks let go
    HELD_BEFORE = lapis.host_registrations()["held"]
    yield


def made_since(before):
    now = lapis.host_registrations()
    return {key: now[key] - before[key] for key in ("made", "released", "refused")}


def test_a_numpy_array_is_registered_once_for_every_call_and_released_when_it_dies():
    x, y, z = numpy.ones(BIG // 8), numpy.arange(BIG // 8, dtype=float), numpy.zeros(BIG // 8)
    before = lapis.host_registrations()
    for step in range(4):  # a new DualView of each array at every call, as a LAPIS program makes
        x += 1
        with lapis.count_transfers() as t:
            K.matadd(x, y, out=z)
        numpy.testing.assert_array_equal(z, x + y)
        assert t == counts(2, 2 * BIG, 1, BIG)  # a copy is a copy: the counts are the pageable path's
    assert made_since(before) == ({"made": 3, "released": 0, "refused": 0} if APART else
                                  {"made": 0, "released": 0, "refused": 0})
    assert lapis.host_registrations()["held_bytes"] == (3 * BIG if APART else 0)
    del x
    assert held() == (2 if APART else 0)
    del y, z
    assert held() == 0 and made_since(before)["released"] == (3 if APART else 0)


def test_dualviews_of_one_array_and_of_overlapping_parts_of_it_share_one_registration():
    a = numpy.arange(BIG // 4, dtype=float)  # 2 * BIG bytes
    before = lapis.host_registrations()
    views = [lapis.DualView(a), lapis.DualView(a), lapis.DualView(a[: BIG // 8]), lapis.DualView(a[BIG // 16:])]
    with lapis.trace() as t:
        for dv in views:
            dv.sync_device()
    # the array's first copy goes the driver's way; its second registers its memory for all four
    assert [e.detail for e in t.events if e.kind == "register"] == (["registered"] if APART else [])
    assert made_since(before) == {"made": 1 if APART else 0, "released": 0, "refused": 0}
    assert lapis.host_registrations()["held_bytes"] == (2 * BIG if APART else 0)
    del views, dv
    assert held() == (1 if APART else 0)  # kept for the next DualView of the array, while it lives
    del a
    assert held() == 0


def test_overlapping_parts_of_memory_no_numpy_array_owns_go_the_pageable_way_with_the_same_values():
    raw = bytearray(2 * BIG)
    a = numpy.frombuffer(raw, dtype=float)
    a[:] = numpy.arange(a.size)
    before = lapis.host_registrations()
    first, second = lapis.DualView(a[: a.size * 3 // 4]), lapis.DualView(a[a.size // 4:])
    with lapis.count_transfers() as t, lapis.trace() as events:
        first.sync_device()
        first.modify_host()
        first.sync_device()  # its second copy: registered
        second.sync_device()  # overlaps the first's registration without lying in it: refused, counted
    assert t == counts(3, 3 * BIG + 3 * BIG // 2, 0, 0)
    # the driver refuses to copy a range that is partly registered: the second goes through staging
    assert [e.staged for e in events.events if e.kind == "copy"] == ([False, False, True] if APART else [])
    edge = lapis.DualView(a[a.size * 3 // 4 - 16: a.size * 3 // 4 + 16])  # 256 bytes across its end
    with lapis.trace() as events:
        edge.sync_device()
    assert [e.staged for e in events.events if e.kind == "copy"] == ([True] if APART else [])
    del edge
    assert made_since(before) == ({"made": 1, "released": 0, "refused": 1} if APART else
                                  {"made": 0, "released": 0, "refused": 0})
    del first  # registered for that DualView's life only: nothing says when the bytearray goes
    assert held() == 0
    numpy.testing.assert_array_equal(K.matadd(second, second).asnumpy(), 2 * a[a.size // 4:])


def test_small_and_strided_arrays_are_not_registered():
    before = lapis.host_registrations()
    small = numpy.ones(BIG // 32)  # 32 KiB
    strided = numpy.ones((BIG // 8, 2))[:, 0]
    for _ in range(3):
        K.matadd(small, small, out=lapis.zeros(small.shape))
        K.matadd(strided, strided, out=lapis.zeros(strided.shape))
    assert made_since(before) == {"made": 0, "released": 0, "refused": 0}


def test_numpy_cannot_resize_a_registered_array_until_empty_cache_lets_it_go():
    a, out = numpy.ones(BIG // 8), numpy.zeros(BIG // 8)
    K.matadd(a, a, out=out)
    if APART:  # the weak reference that ends the registration when `a` dies
        with pytest.raises(ValueError, match="cannot resize"):
            a.resize(BIG // 4, refcheck=False)
    lapis.empty_cache()
    assert held() == 0
    a.resize(BIG // 4, refcheck=False)
    a[:] = 3.0
    out = numpy.zeros(BIG // 4)
    before = lapis.host_registrations()
    for _ in range(2):
        K.matadd(a, a, out=out)  # its new memory registered anew, on its second copy
    numpy.testing.assert_array_equal(out, 6.0)
    assert made_since(before)["made"] == (2 if APART else 0)


def test_a_read_only_array_is_read_from_registered_memory():
    a = numpy.arange(BIG // 8, dtype=float)
    a.flags.writeable = False
    before = lapis.host_registrations()
    results = [K.matadd(dv, dv, out=lapis.zeros(a.shape)) for dv in (lapis.DualView(a), lapis.DualView(a))]
    # (counted before the results are read: lapis's own host block is registered on its second copy too)
    assert made_since(before)["made"] == (1 if APART else 0)
    for result in results:
        numpy.testing.assert_array_equal(result.asnumpy(), 2 * a)


def test_memory_the_driver_refuses_is_copied_the_pageable_way():
    # read-only pages that no numpy array owns, large enough to be registered on their first copy:
    # a GPU's driver will not lock them
    pages = mmap.mmap(-1, 8 << 20, prot=mmap.PROT_READ)
    dv = lapis.DualView(numpy.frombuffer(pages, dtype=float))
    before = lapis.host_registrations()
    numpy.testing.assert_array_equal(K.matadd(dv, dv, out=lapis.zeros(dv.shape)).asnumpy(), 0.0)
    on_gpu = lapis.runtime_info()["device_memory_space"].startswith("Cuda")
    # (and the result's own host block, read once, registered); the simulated device asks no
    # driver: it registers the pages too, for the DualView's life
    assert made_since(before) == ({"made": 1, "released": 0, "refused": 1} if on_gpu else
                                  {"made": 2, "released": 0, "refused": 0} if APART else
                                  {"made": 0, "released": 0, "refused": 0})
    del dv
    assert held() == (1 if APART else 0)  # the result's pooled block


def test_lapis_own_host_side_keeps_its_registration_with_its_pooled_block():
    before = lapis.host_registrations()
    for step in range(3):
        r = K.add(numpy.full(BIG // 8, float(step)), 1.0)
        numpy.testing.assert_array_equal(r.asnumpy(), step + 1.0)
        del r
    # the result's host block came back from the pool each time: registered on its second copy,
    # kept while it is pooled; each input array was copied once, so never registered
    assert made_since(before) == ({"made": 1, "released": 0, "refused": 0} if APART else
                                  {"made": 0, "released": 0, "refused": 0})
    assert held() == (1 if APART else 0)
    lapis.empty_cache()
    assert held() == 0


def test_a_large_array_is_registered_on_its_first_copy():
    large = numpy.ones((8 << 20) // 8)
    before = lapis.host_registrations()
    lapis.DualView(large).sync_device()
    assert made_since(before)["made"] == (1 if APART else 0)


def test_the_trace_shows_each_registration_and_release_with_its_bytes():
    a = numpy.ones(BIG // 8)
    with lapis.trace() as t:
        lapis.DualView(a).sync_device()
        lapis.DualView(a).sync_device()
        del a
    events = [(e.kind, e.detail, e.bytes) for e in t.events if e.kind == "register"]
    assert events == ([("register", "registered", BIG), ("register", "released", BIG)] if APART else [])


CHILD = textwrap.dedent("""
    import gc, os, sys, numpy, lapis, lapis.kernels as K
    def held():
        return lapis.host_registrations()["held"]
    BIG = 128 * 1024
    step = sys.argv[1]
    out = lapis.zeros(BIG // 8)
    if step == "cap":  # 1.5 arrays fit: the idle one used longest ago goes for each new one
        arrays = [numpy.full(BIG // 8, float(i)) for i in range(4)]
        for i, a in enumerate(arrays):
            for _ in range(2):  # registered on its second copy
                K.matadd(a, a, out=out)
        assert (out.asnumpy() == 6.0).all()
        r = lapis.host_registrations()
        print(r["held"], r["held_bytes"] <= BIG * 3 // 2, r["refused"])
    elif step == "over":  # larger than the cap: refused, counted, the values right
        a = numpy.ones(BIG // 8)
        for _ in range(2):
            K.matadd(a, a, out=out)
        assert (out.asnumpy() == 2.0).all()
        print(lapis.host_registrations()["refused"])
    elif step == "finalize":
        a = numpy.ones(BIG // 8)
        dv = lapis.DualView(a)
        dv.sync_device()
        dv.modify_host()
        dv.sync_device()
        before = held()
        lapis.finalize()
        print(before, held())
    elif step == "fork":
        a = numpy.ones(BIG // 8)
        lapis.DualView(a).sync_device()
        lapis.DualView(a).sync_device()
        pid = os.fork()
        if pid == 0:  # the registry as the child sees it: the parent's on a CPU build, none on a GPU
            simulated = lapis.runtime_info()["simulated_device"]
            os._exit(0 if held() == (1 if simulated else 0) else 3)
        _, status = os.waitpid(pid, 0)
        a += 2  # written after the fork: the registered memory is still the parent's
        print(os.waitstatus_to_exitcode(status), (K.matadd(a, a, out=out).asnumpy() == 6.0).all(), held())
""")


def run_child(step, **settings):
    done = subprocess.run([sys.executable, "-W", "ignore::DeprecationWarning", "-c", CHILD, step],
                          capture_output=True, text=True, timeout=120, env=dict(os.environ, **settings))
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@pytest.mark.skipif(not APART, reason="nothing is copied where the sides are one memory")
def test_the_cap_releases_the_least_recently_used_idle_registration_first():
    assert run_child("cap", LAPIS_REGISTER_MAX_BYTES=str(BIG * 3 // 2)) == ["1", "True", "0"]


@pytest.mark.skipif(not APART, reason="nothing is copied where the sides are one memory")
def test_memory_over_the_cap_is_copied_the_pageable_way():
    assert run_child("over", LAPIS_REGISTER_MAX_BYTES=str(BIG - 1)) == ["1"]  # a, on its second copy
    assert run_child("over", LAPIS_REGISTER_MAX_BYTES="0") == ["0"]  # off: nothing asked, nothing refused


@pytest.mark.skipif(not APART, reason="nothing is copied where the sides are one memory")
def test_finalize_releases_every_registration():
    assert run_child("finalize") == ["1", "0"]


@pytest.mark.skipif(not APART, reason="nothing is copied where the sides are one memory")
def test_fork_after_a_registration():
    assert run_child("fork") == ["0", "True", "1"]  # a


@pytest.mark.parametrize("poison", ["0", "1"])
def test_pooled_registered_blocks_with_and_without_the_pool_and_its_poison(poison):
    for pool in ("0", "1"):
        code = ("import numpy, lapis, lapis.kernels as K\n"
                "for i in range(3):\n"
                "    r = K.add(numpy.full(16384, float(i)), 1.0)\n"
                "    assert (r.asnumpy() == i + 1.0).all()\n"
                "    del r\n"
                "print(lapis.host_registrations()['held'])")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                              env=dict(os.environ, LAPIS_POOL=pool, LAPIS_POOL_POISON=poison))
        assert done.returncode == 0, done.stderr
        # pooled, the result's block stays registered; unpooled, it is freed and released with it
        assert done.stdout.split() == [("1" if pool == "1" else "0") if APART else "0"]
