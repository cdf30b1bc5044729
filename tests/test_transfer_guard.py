"""lapis.transfer_guard: implicit copies (a kernel argument, asnumpy(), an export) are allowed,
logged or refused per direction; sync_host() / sync_device() always go through. Where the sides
alias nothing is ever copied, so nothing is ever logged or refused."""
import threading

import numpy
import pytest

import lapis
import lapis.kernels as K
from conftest import APART, counts


@pytest.fixture(autouse=True)
def allow_after():
    yield
    lapis.set_transfer_guard("allow")


def test_a_refused_upload_moves_nothing_and_marks_nothing():
    a = lapis.DualView(numpy.arange(6.0))
    out = lapis.zeros(6)
    with lapis.count_transfers() as moved, lapis.transfer_guard(host_to_device="disallow"):
        if APART:
            with pytest.raises(lapis.TransferGuardError, match=r'implicit host->device copy of .* \(float64, shape \(6,\), 48 bytes\)'):
                K.matadd(a, a, out=out)
            assert a.need_sync_device
            assert not out.need_sync_host  # the output was never written
        a.sync_device()  # explicit: allowed
        K.matadd(a, a, out=out)
    assert moved == counts(1, 48)
    numpy.testing.assert_array_equal(out.asnumpy(), 2 * numpy.arange(6.0))


def test_downloads_are_guarded_on_their_own():
    a = lapis.full(4, 2.0)
    with lapis.transfer_guard(device_to_host="disallow"):
        assert lapis.get_transfer_guard() == {"host_to_device": "allow", "device_to_host": "disallow"}
        if APART:
            for read in (lambda: a.asnumpy(), lambda: numpy.asarray(a), lambda: memoryview(a),
                         lambda: a.asmemref()):
                with pytest.raises(lapis.TransferGuardError, match="device->host"):
                    read()
            assert a.need_sync_host
        K.matadd(lapis.DualView(numpy.ones(4)), a)  # uploads are still allowed
        a.sync_host()
        numpy.testing.assert_array_equal(a.asnumpy(), numpy.full(4, 2.0))  # current: nothing to copy


def test_log_writes_one_line_per_implicit_copy(capfd):
    a = lapis.DualView(numpy.ones(3))
    with lapis.transfer_guard("log"):
        c = K.matadd(a, a)
        c.asnumpy()
        c.asnumpy()  # current now: no copy, no line
        b = lapis.DualView(numpy.ones(3))
        b.sync_device()  # explicit: no line
    logged = capfd.readouterr().err.splitlines()
    expected = [f'lapis: transfer guard: implicit {direction} copy of "lapis.DualView" (float64, shape (3,), 24 bytes)'
                for direction in ("host->device", "device->host")]
    assert logged == (expected if APART else [])


def test_blocks_nest_and_restore_and_the_process_setting_applies_outside():
    assert lapis.get_transfer_guard() == {"host_to_device": "allow", "device_to_host": "allow"}
    with lapis.transfer_guard("log"):
        with lapis.transfer_guard(device_to_host="disallow"):
            assert lapis.get_transfer_guard() == {"host_to_device": "log", "device_to_host": "disallow"}
        assert lapis.get_transfer_guard() == {"host_to_device": "log", "device_to_host": "log"}
    lapis.set_transfer_guard("disallow")
    assert lapis.get_transfer_guard() == {"host_to_device": "disallow", "device_to_host": "disallow"}
    lapis.set_transfer_guard(host_to_device="allow")
    assert lapis.get_transfer_guard() == {"host_to_device": "allow", "device_to_host": "disallow"}
    with lapis.transfer_guard("allow"):  # a block overrides the process setting
        lapis.full(2, 1.0).asnumpy()


def test_a_block_guards_only_its_own_thread():
    a = lapis.full(2, 1.0)
    seen = {}

    def other_thread():
        seen["guard"] = lapis.get_transfer_guard()
        seen["values"] = a.asnumpy().tolist()  # allowed there

    with lapis.transfer_guard("disallow"):
        thread = threading.Thread(target=other_thread)
        thread.start()
        thread.join()
    assert seen == {"guard": {"host_to_device": "allow", "device_to_host": "allow"}, "values": [1.0, 1.0]}


@pytest.mark.parametrize("args, kwargs, error", [
    ((), {}, TypeError),
    (("never",), {}, ValueError),
    ((), {"host_to_device": "refuse"}, ValueError),
    ((), {"device_to_host": 0}, ValueError),
])
def test_bad_levels_are_refused(args, kwargs, error):
    with pytest.raises(error):
        lapis.transfer_guard(*args, **kwargs)
    with pytest.raises(error):
        lapis.set_transfer_guard(*args, **kwargs)
    assert lapis.get_transfer_guard() == {"host_to_device": "allow", "device_to_host": "allow"}


def test_a_block_cannot_be_entered_twice_at_once():
    guard = lapis.transfer_guard("log")
    with guard:
        with pytest.raises(RuntimeError, match="already entered"):
            with guard:
                pass
    with guard:  # again, after it was left
        assert lapis.get_transfer_guard()["host_to_device"] == "log"


def test_a_kernels_write_back_into_a_numpy_out_is_implicit_and_refused_before_the_kernel_runs():
    x = lapis.DualView(numpy.ones(8))
    x.sync_device()
    out = numpy.full(8, 7.0)
    with lapis.transfer_guard(device_to_host="disallow"), lapis.count_transfers() as t:
        if APART:
            with pytest.raises(lapis.TransferGuardError, match="device->host"):
                K.matadd(x, x, out=out)
        else:
            K.matadd(x, x, out=out)  # one memory: nothing to copy, nothing refused
    assert t == lapis.TransferStats()
    assert (out == (7.0 if APART else 2.0)).all()  # untouched: refused before the kernel ran


def test_a_kernels_write_back_is_logged(capfd):
    x = lapis.DualView(numpy.ones(8))
    x.sync_device()
    out = numpy.zeros(8)
    with lapis.transfer_guard(device_to_host="log"):
        K.matadd(x, x, out=out)
    assert (out == 2.0).all()
    logged = capfd.readouterr().err
    assert logged.count("implicit device->host copy") == (1 if APART else 0), logged
