"""Runtime: statistics, runtime_info, Kokkos lifetime (in subprocesses), headers."""
import ast
import os
import subprocess
import sys
import textwrap

import numpy
import pytest

import lapis
from conftest import APART, ROOT, SIMULATED_AVAILABLE, counts


def run_python(code, **env):
    environment = dict(os.environ, **env)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=environment, timeout=120)


def test_transfer_stats_are_process_wide_and_resettable():
    dv = lapis.DualView(numpy.ones(10))
    lapis.reset_transfer_stats()
    assert lapis.transfer_stats() == lapis.TransferStats()
    dv.sync_device()
    assert lapis.transfer_stats() == counts(1, 80)
    stats = lapis.transfer_stats()
    assert (stats.h2d_count, stats.h2d_bytes, stats.d2h_count, stats.d2h_bytes) == tuple(counts(1, 80)._astuple())
    assert lapis.TransferStats(1, 2, 3, 4) - lapis.TransferStats(1, 1, 1, 1) == lapis.TransferStats(0, 1, 2, 3)
    assert "h2d_count=1" in repr(lapis.TransferStats(1))


def test_count_transfers_holds_only_the_block():
    a = lapis.DualView(numpy.ones(4))
    a.sync_device()
    with lapis.count_transfers() as t:
        b = lapis.DualView(numpy.ones(8))
        b.sync_device()
        b.modify_device()
        b.asnumpy()
    assert t == counts(1, 64, 1, 64)


def test_transfer_stats_are_immutable_values():
    stats = lapis.TransferStats(1, 2, 3, 4)
    with pytest.raises(AttributeError):
        stats.h2d_count = 5
    stats.__init__(9, 9, 9, 9)  # no second construction in place
    assert stats == lapis.TransferStats(1, 2, 3, 4)
    assert stats + lapis.TransferStats(1, 1, 1, 1) == lapis.TransferStats(2, 3, 4, 5)
    assert len({stats, lapis.TransferStats(1, 2, 3, 4)}) == 1


def test_count_transfers_counts_so_far_inside_the_block_and_is_not_hashable():
    b = lapis.DualView(numpy.ones(8))
    with lapis.count_transfers() as t:
        b.sync_device()
        inside = t.stats
        b.modify_device()
        b.asnumpy()
    assert inside == counts(1, 64)
    assert t.stats == counts(1, 64, 1, 64) and isinstance(t.stats, lapis.TransferStats)
    assert t.h2d_count == t.stats.h2d_count
    with pytest.raises(TypeError):
        hash(t)
    with pytest.raises(AttributeError):
        t.h2d_total


def test_runtime_info():
    info = lapis.runtime_info()
    for key in ("kokkos_version", "execution_space", "device_memory_space", "host_memory_space",
                "simulated_device", "live_allocations", "live_bytes"):
        assert key in info
    assert info["kokkos_version"].count(".") == 2
    assert info["simulated_device"] == (os.environ.get("LAPIS_DEVICE") == "simulated")


def _stub_fields(class_name):
    """name -> annotation text of a TypedDict in lapis/_core.pyi (type-check-only: read as text)."""
    tree = ast.parse((ROOT / "cython" / "lapis" / "_core.pyi").read_text())
    (node,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name]
    return {field.target.id: ast.unparse(field.annotation) for field in node.body if isinstance(field, ast.AnnAssign)}


def test_runtime_info_is_what_its_stub_says():
    """runtime_info()'s entries are written once, in bridge.cpp, and declared for type checkers in
    the stub's TypedDict: this holds the dict to the stub, key for key and type for type."""
    simple = {"str": str, "int": int, "bool": bool, "list[str]": list}
    for info, stub in ((lapis.runtime_info(), "_RuntimeInfo"), (lapis.runtime_info()["staging"], "_StagingInfo")):
        fields = _stub_fields(stub)
        assert sorted(info) == sorted(fields)
        for key, annotation in fields.items():
            if annotation in simple:
                assert type(info[key]) is simple[annotation], (key, annotation, info[key])
        assert all(isinstance(b, str) for b in info.get("kokkos_backends", []))


def test_get_include_holds_the_headers():
    include = lapis.get_include()
    for header in ("dualview.hpp", "core/any_dual_buffer.hpp", "sync_policy.hpp", "alloc_policy.hpp"):
        assert os.path.isfile(os.path.join(include, "lapis", header))


def test_import_prints_nothing_and_exit_with_live_dualviews_is_silent():
    result = run_python("""
        import gc, numpy, lapis
        kept = lapis.full((100,), 1.0)
        exported = lapis.zeros(50).asnumpy()            # only the array refers to its DualView
        a = lapis.DualView(numpy.ones(3)); b = [a]; b.append(b)   # a reference cycle
        try:
            raise RuntimeError(lapis.zeros(3))           # a DualView inside an exception
        except RuntimeError as e:
            pending = e
    """)
    assert result.returncode == 0
    assert result.stdout == "" and result.stderr == ""


def test_finalize_releases_everything_and_later_use_raises():
    result = run_python("""
        import numpy, lapis, lapis.kernels
        dv = lapis.full((4,), 3.0)
        exported = dv.asnumpy()
        borrowed = lapis.DualView(numpy.ones(2))
        location = dv.__dlpack_device__()
        lapis.finalize()
        assert dv.__dlpack_device__() == location       # answered without Kokkos
        assert lapis.runtime_info()["live_allocations"] == 1     # dv's host side, still exported
        assert (exported == 3.0).all()                  # host memory outlives Kokkos
        for use in (dv.asnumpy, dv.sync_device, dv.modify_host, lambda: dv.fill(1.0),
                    lambda: numpy.asarray(dv), borrowed.sync_device, lambda: lapis.zeros(2),
                    lambda: lapis.DualView(numpy.ones(2)), lambda: lapis.kernels.matadd(dv, dv),
                    lambda: lapis.kernels.dot(dv, dv), dv.__dlpack__,
                    lambda: lapis.DualView.from_dlpack(numpy.ones(2))):
            try:
                use()
            except lapis.RuntimeFinalizedError as e:
                assert isinstance(e, RuntimeError)
            else:
                raise AssertionError("no RuntimeFinalizedError")
        lapis.finalize()   # idempotent
        lapis.fence()      # nothing queued: returns
        print("ok", dv.shape)
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "ok (4,)\n" and result.stderr == ""


def test_finalize_from_another_thread_is_clean():
    result = run_python("""
        import threading, lapis, lapis.kernels
        dv = lapis.full((1000,), 2.0)

        def work():
            assert (lapis.kernels.matadd(dv, dv).asnumpy() == 4.0).all()
            lapis.finalize()

        thread = threading.Thread(target=work)
        thread.start()
        thread.join()
        try:
            dv.asnumpy()
        except lapis.RuntimeFinalizedError:
            print("finalized")
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "finalized\n" and result.stderr == ""


def test_unknown_lapis_device_is_refused_at_import():
    result = run_python("import lapis", LAPIS_DEVICE="quantum")
    assert result.returncode != 0
    assert "LAPIS_DEVICE" in result.stderr and "ValueError" in result.stderr


@pytest.mark.parametrize("device", ["default", "simulated"])
def test_both_devices_are_selectable_in_one_installed_package(device):
    result = run_python("""
        import lapis, numpy
        dv = lapis.DualView(numpy.ones(4)); dv.sync_device()
        print(lapis.runtime_info()["simulated_device"], dv.transfers.h2d_count)
    """, LAPIS_DEVICE=device)
    if device == "simulated" and not SIMULATED_AVAILABLE:
        assert result.returncode != 0 and "LAPIS_DEVICE='simulated': expected 'default' on this build" in result.stderr
        return
    assert result.returncode == 0, result.stderr
    default_copies = 0 if SIMULATED_AVAILABLE else 1  # a CPU build's default device shares host memory
    expected = "True 1" if device == "simulated" else f"False {default_copies}"
    assert result.stdout.strip() == expected
