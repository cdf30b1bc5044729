"""Copies between pageable host memory and the device through pinned staging
(include/lapis/detail/staged_copy.hpp). With staging forced on for every size and chunks of a few
elements, every layout is cut into many chunks shared by several threads: the data must arrive
exactly, in both directions, with the same transfer counts as the direct path. On a CPU build this
runs on the simulated device, on a GPU build on the GPU."""
import os
import subprocess
import sys
import textwrap

import pytest

import lapis
from conftest import SIMULATED_AVAILABLE

CHILD = textwrap.dedent("""
    import concurrent.futures
    import numpy
    import lapis
    import lapis.kernels as K

    def cases():
        yield "contiguous", numpy.arange(101.0)
        yield "fortran", numpy.asfortranarray(numpy.arange(63, dtype=numpy.float32).reshape(7, 9))
        yield "negative-strides", numpy.arange(100.0)[::-3]
        yield "strided-3d", numpy.arange(210.0).reshape(5, 6, 7)[:, ::2, 1:]
        yield "transposed", numpy.arange(48.0).reshape(6, 8).T
        yield "0-d", numpy.array(7.5)
        yield "int8", (numpy.arange(250) % 127).astype(numpy.int8)[::-1]  # one byte an element

    for name, host in cases():
        expected = host.copy()
        dv = lapis.DualView(host)
        with lapis.count_transfers() as up:
            dv.sync_device()
        assert up == lapis.TransferStats(h2d_count=1, h2d_bytes=host.nbytes), (name, up)
        if host.dtype.kind == "f":  # read on the device by a kernel
            numpy.testing.assert_array_equal(K.add(dv, 0.0).asnumpy(), expected, err_msg=name)
        host[...] = -1.0
        dv.modify_device()
        with lapis.count_transfers() as down:
            dv.sync_host()
        assert down == lapis.TransferStats(d2h_count=1, d2h_bytes=host.nbytes), (name, down)
        numpy.testing.assert_array_equal(host, expected, err_msg=name)

    # a numpy `out` that a kernel wrote: its download
    out = numpy.zeros((13, 11))
    K.matadd(numpy.ones((13, 11)), numpy.full((13, 11), 2.0), out=out)
    numpy.testing.assert_array_equal(out, 3.0)
    # threads staging copies at once take turns with the one team of staging threads
    def round_trips(seed):
        host = numpy.random.default_rng(seed).random((37, 5))[:, ::2]
        expected = host.copy()
        dv = lapis.DualView(host)
        for _ in range(20):
            dv.sync_device()
            host[...] = -1.0
            dv.modify_device()
            dv.sync_host()
            numpy.testing.assert_array_equal(host, expected)
            dv.modify_host()
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        list(pool.map(round_trips, range(4)))
    print(lapis.runtime_info()["staging"])
""")


def run_child(**env):
    return subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, LAPIS_DEVICE="simulated" if SIMULATED_AVAILABLE else "default", **env))


def test_every_layout_arrives_exactly_through_many_small_chunks_and_several_threads():
    done = run_child(LAPIS_STAGING_MIN_BYTES="1", LAPIS_STAGING_CHUNK_BYTES="40", LAPIS_STAGING_THREADS="3")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "{'min_bytes': 1, 'chunk_bytes': 40, 'threads': 3}"


def test_more_threads_than_elements_per_chunk_and_chunks_of_one_element():
    done = run_child(LAPIS_STAGING_MIN_BYTES="1", LAPIS_STAGING_CHUNK_BYTES="1", LAPIS_STAGING_THREADS="16")
    assert done.returncode == 0, done.stderr


LARGE = textwrap.dedent("""
    import numpy
    import lapis

    base = numpy.arange(2048 * 8200, dtype=numpy.float64).reshape(2048, 8200)
    for name, host in (("unaligned", base.reshape(-1)[1:]), ("strided", base[:, :4100])):
        assert host.nbytes >= 64 << 20, name
        expected = host.copy()
        dv = lapis.DualView(host)
        dv.sync_device()
        host[...] = -1.0
        dv.modify_device()
        dv.sync_host()
        assert numpy.array_equal(host, expected), name
""")


def test_a_download_larger_than_the_caches_arrives_exactly_through_streaming_stores():
    """From 64 MiB a staged download is unpacked with streaming stores (streaming_copy.hpp): a start
    off their 16-byte step and strided rows arrive exactly."""
    done = subprocess.run([sys.executable, "-c", LARGE], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, LAPIS_DEVICE="simulated" if SIMULATED_AVAILABLE else "default",
                                   LAPIS_STAGING_MIN_BYTES="1"))
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("name,value,accepted", [
    ("LAPIS_STAGING_CHUNK_BYTES", "16MiB", "from 1 to 1099511627776"),
    ("LAPIS_STAGING_CHUNK_BYTES", "-8", "from 1 to 1099511627776"),  # strtoull takes it, as 2**64 - 8
    ("LAPIS_STAGING_CHUNK_BYTES", str(2**64 - 1), "from 1 to 1099511627776"),  # rounding it up overflowed
    ("LAPIS_STAGING_CHUNK_BYTES", "0", "from 1 to 1099511627776"),
    ("LAPIS_STAGING_THREADS", "-1", "from 1 to 64"),  # read as 4294967295: a thread per element
    ("LAPIS_STAGING_MIN_BYTES", str(2**64), "from 0 to 18446744073709551615"),
    ("LAPIS_STAGING_MIN_BYTES", " 4", "from 0 to 18446744073709551615"),
    ("LAPIS_POOL", "false", "0 or 1"),
    ("LAPIS_CACHED_ARRAYS", "4097", "from 0 to 4096"),
    ("LAPIS_CACHED_ARRAYS", "64 ", "from 0 to 4096"),
    ("LAPIS_POOL_POISON", "yes", "0 or 1"),
    ("LAPIS_REGISTER_MAX_BYTES", str(2**50 + 1), "from 0 to 1125899906842624"),
    ("LAPIS_REGISTER_MAX_BYTES", "1G", "from 0 to 1125899906842624"),
], ids=lambda v: v if len(v) < 24 else v[:20])
def test_a_bad_setting_stops_the_import_naming_the_variable_and_what_it_takes(name, value, accepted):
    done = run_child(**{name: value})
    assert done.returncode == 1, (done.returncode, done.stderr)  # a Python exception, never a signal
    assert f"ValueError: lapis: {name}='{value}': expected" in done.stderr and accepted in done.stderr


@pytest.mark.parametrize("name,value,key,expected", [
    ("LAPIS_STAGING_MIN_BYTES", str(2**64 - 1), "min_bytes", 2**64 - 1),  # was reported as -1
    ("LAPIS_STAGING_MIN_BYTES", "0", "min_bytes", 0),
    ("LAPIS_STAGING_CHUNK_BYTES", str(2**40), "chunk_bytes", 2**40),
    ("LAPIS_STAGING_CHUNK_BYTES", "1", "chunk_bytes", 1),
    ("LAPIS_STAGING_THREADS", "64", "threads", 64),
    ("LAPIS_STAGING_THREADS", "1", "threads", 1),
])
def test_each_settings_bounds_are_taken_and_reported_exactly(name, value, key, expected):
    done = subprocess.run([sys.executable, "-c", f"import lapis; print(lapis.runtime_info()['staging']['{key}'])"],
                          capture_output=True, text=True, timeout=120, env=dict(os.environ, **{name: value}))
    assert done.returncode == 0 and done.stdout == f"{expected}\n", done.stderr


def test_an_empty_setting_counts_as_unset():
    show = ("import lapis; x = lapis.zeros(100); del x; i = lapis.runtime_info(); "
            "print(i['staging'], i['register_max_bytes'], i['simulated_device'], i['mpi_gpu_aware'], "
            "sum(s['cached_blocks'] for s in lapis.memory_stats().values()))")
    unset = {name: value for name, value in os.environ.items() if not name.startswith("LAPIS_")}
    runs = [subprocess.run([sys.executable, "-c", show], capture_output=True, text=True, timeout=120,
                           env=dict(unset, **extra))
            for extra in ({}, {name: "" for name in ("LAPIS_DEVICE", "LAPIS_POOL", "LAPIS_POOL_POISON",
                                                     "LAPIS_MPI_GPU_AWARE", "LAPIS_CACHED_ARRAYS", "LAPIS_STAGING_MIN_BYTES",
                                                     "LAPIS_STAGING_CHUNK_BYTES", "LAPIS_STAGING_THREADS",
                                                     "LAPIS_REGISTER_MAX_BYTES")})]
    assert runs[0].returncode == runs[1].returncode == 0 and runs[0].stdout == runs[1].stdout, runs[1].stderr
    assert runs[1].stdout.split()[-3:] == ["False", "False", "1"]  # the default device, host MPI, the pool on


def test_staging_buffers_are_sized_from_the_copy_not_the_setting():
    # a chunk of 1 TiB (the largest accepted) staged every copy of the child's, none above a few KiB
    done = run_child(LAPIS_STAGING_MIN_BYTES="1", LAPIS_STAGING_CHUNK_BYTES=str(2**40))
    assert done.returncode == 0, done.stderr


@pytest.mark.skipif(any(name.startswith("LAPIS_STAGING_") for name in os.environ), reason="staging is set by hand")
def test_staging_defaults_on_from_4_MiB_on_a_gpu_and_off_where_device_memory_is_host_memory():
    info = lapis.runtime_info()
    on_gpu = "Cuda" in info["execution_space"]
    assert info["staging"] == {"min_bytes": 4 << 20 if on_gpu else 0, "chunk_bytes": 16 << 20,
                               "threads": min(8, os.cpu_count())}


FORKING = textwrap.dedent("""
    import os
    import numpy
    import lapis

    def round_trip():
        host = numpy.arange(1000.0)
        dv = lapis.DualView(host)
        dv.sync_device()
        host[...] = 0.0
        dv.modify_device()
        dv.sync_host()
        numpy.testing.assert_array_equal(host, numpy.arange(1000.0))

    round_trip()  # the parent's staging threads start
    child = os.fork()
    if child == 0:
        round_trip()
        os._exit(0)
    assert os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) == 0
    round_trip()
""")


@pytest.mark.skipif(not SIMULATED_AVAILABLE, reason="a GPU runtime does not survive fork")
def test_a_forked_child_stages_copies_with_a_team_of_its_own():
    done = subprocess.run([sys.executable, "-W", "ignore::DeprecationWarning", "-c", FORKING], capture_output=True,
                          text=True, timeout=60,
                          env=dict(os.environ, LAPIS_DEVICE="simulated", LAPIS_STAGING_MIN_BYTES="1",
                                   LAPIS_STAGING_CHUNK_BYTES="800", LAPIS_STAGING_THREADS="4"))
    assert done.returncode == 0, done.stderr
