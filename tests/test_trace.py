"""lapis.trace(): events recorded by the runtime for every copy, allocation, free, kernel and module
call, each attributed to the Python line that caused it; the summary, the Chrome trace and the plot
made of them; the command line; the C++ recording (tests/cpp); a Kokkos tool seeing lapis's regions."""
import inspect
import json
import os
import pathlib
import re
import subprocess
import sys
import textwrap
import threading
import typing

import numpy
import pytest

import lapis
import lapis.kernels as K
from conftest import APART, ROOT, counts

sys.path.insert(0, str(ROOT / "examples"))
import _modules  # noqa: E402

HERE = __file__


def line_of(marker):
    """The line of this file holding `marker` (a comment at the end of a statement)."""
    for number, text in enumerate(pathlib.Path(HERE).read_text().splitlines(), 1):
        if text.rstrip().endswith(f"# {marker}"):
            return number
    raise AssertionError(marker)


def test_the_readme_program_with_every_copy_on_its_line():
    a, b = numpy.random.rand(64, 32), numpy.random.rand(32, 16)
    with lapis.trace() as t, lapis.count_transfers() as moved:
        c = K.gemm(a, b)              # gemm line
        d = K.matadd(c, c)            # matadd line
        result = d.asnumpy()          # asnumpy line
    assert numpy.allclose(result, 2 * (a @ b))
    copies = [e for e in t.events if e.kind == "copy"]
    where = {(e.detail, e.bytes): (pathlib.Path(e.file).name, e.line) for e in copies}
    if APART:  # simulated device: a and b up where gemm reads them, d down where asnumpy reads it
        assert where == {("host->device", a.nbytes): ("test_trace.py", line_of("gemm line")),
                         ("host->device", b.nbytes): ("test_trace.py", line_of("gemm line")),
                         ("device->host", 64 * 16 * 8): ("test_trace.py", line_of("asnumpy line"))}
        assert all(not e.explicit and not e.staged and e.dtype == "float64" for e in copies)
    else:
        assert copies == []
    assert t.transfer_stats() == moved.stats == counts(2, a.nbytes + b.nbytes, 1, 64 * 16 * 8)
    kernels = [(e.name, e.line) for e in t.events if e.kind == "kernel"]
    assert kernels == [("gemm", line_of("gemm line")), ("matadd", line_of("matadd line"))]
    assert all(e.duration_us >= 0 and e.thread == 0 for e in t.events)
    summary = t.summary().splitlines()
    stats = t.transfer_stats()
    assert summary[-1].split() == ["total", str(stats.h2d_count), f"{stats.h2d_bytes:,}", str(stats.d2h_count),
                                   f"{stats.d2h_bytes:,}", summary[-1].split()[5], "2"]
    if APART:
        assert summary[2].startswith("...") or "test_trace.py:" in summary[2]
        assert summary[2].split()[1:5] == ["2", f"{a.nbytes + b.nbytes:,}", "0", "0"]  # the line that moved most


def test_allocations_and_frees_balance():
    with lapis.trace() as t:
        x = lapis.zeros((100, 100))
        y = K.multiply(x, 2.0)
        y.asnumpy()
        part = lapis.DualView(numpy.ones(1000))[::2]
        part.sync_device()
        del x, y, part
    allocated = [e for e in t.events if e.kind == "allocate"]
    freed = [e for e in t.events if e.kind == "free"]
    assert allocated and sorted((e.name, e.detail, e.bytes) for e in allocated) == \
        sorted((e.name, e.detail, e.bytes) for e in freed)
    assert {e.detail for e in allocated} == ({"host", "device"} if APART else {"device"})
    in_use = 0
    for e in t.events:  # never below zero: each free follows its allocation
        in_use += e.bytes if e.kind == "allocate" else -e.bytes if e.kind == "free" else 0
        assert in_use >= 0
    assert in_use == 0


def test_a_modules_copies_are_attributed_to_the_line_that_called_it(example_modules):
    adder = _modules.import_from(example_modules["adder"], "adder")
    a, b = numpy.ones((20, 25)), numpy.full((20, 25), 2.0)
    with lapis.trace() as t:
        s = adder.add(a, b)  # module line
        total = adder.total(s)  # total line
    assert total == 1500.0
    copies = [(e.detail, e.line) for e in t.events if e.kind == "copy"]
    assert copies == ([("host->device", line_of("module line"))] * 2 if APART else [])
    assert t.transfer_stats() == counts(2, 8000)


def test_the_chrome_trace_json_and_the_plot(tmp_path):
    pytest.importorskip("matplotlib")
    x = numpy.arange(10_000.0)
    with lapis.trace() as t:
        for _ in range(3):
            y = K.add(lapis.DualView(x), 1.0)
            y.asnumpy()
        del y
    t.save(tmp_path / "trace.json")
    document = json.loads((tmp_path / "trace.json").read_text())
    events = document["traceEvents"]
    assert {e["ph"] for e in events} >= {"M", "X", "C"}
    for e in events:
        assert isinstance(e["pid"], int) and isinstance(e["tid"], int) and isinstance(e["name"], str)
        if e["ph"] != "M":
            assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0
        if e["ph"] == "X":
            assert isinstance(e["dur"], (int, float)) and e["dur"] >= 0
    complete = [e for e in events if e["ph"] == "X"]
    instants = {kind for kind, instant in lapis._core._trace_kinds().items() if instant}
    assert instants == {"allocate", "free", "guard"}
    assert len(complete) == sum(e.kind not in instants for e in t.events)
    assert [e["args"]["bytes"] for e in events if e["ph"] == "C"][-1] == 0 or not APART  # all freed again
    t.plot(tmp_path / "trace.png")
    assert (tmp_path / "trace.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "trace.png").stat().st_size > 10_000


def test_guard_decisions_and_threads_are_recorded():
    x = K.add(lapis.zeros(8), 1.0)
    with lapis.trace() as t:
        with lapis.transfer_guard(device_to_host="disallow"):
            try:
                x.asnumpy()  # refused line
            except lapis.TransferGuardError:
                refused = True
            else:
                refused = False
        worker = threading.Thread(target=lambda: K.add(lapis.zeros(8), 1.0))
        worker.start()
        worker.join()
    assert refused == APART  # (where the sides are one memory nothing is copied)
    guards = [(e.detail, e.line) for e in t.events if e.kind == "guard"]
    assert guards == ([("device->host refused", line_of("refused line"))] if APART else [])
    assert len({e.thread for e in t.events if e.kind == "kernel"}) == 1
    assert {e.thread for e in t.events} == {0, 1} if APART else {e.thread for e in t.events} <= {0, 1}


def test_traces_nest_and_each_sees_its_own_time():
    x = lapis.DualView(numpy.ones(100))
    with lapis.trace() as outer:
        y = K.add(x, 1.0)
        lapis.start_trace()
        z = K.add(y, 1.0)
        inner = lapis.stop_trace()
        w = K.add(z, 1.0)
    assert [e.name for e in outer.events if e.kind == "kernel"] == ["add", "add", "add"]
    assert [e.name for e in inner.events if e.kind == "kernel"] == ["add"]
    assert all(e.start_us >= 0 for e in inner.events)
    assert w.asnumpy()[0] == 4.0
    with pytest.raises(RuntimeError, match="no recording open"):
        lapis.stop_trace()
    with lapis.trace() as t:
        pass
    assert t.events == [] and t.transfer_stats() == lapis.TransferStats()


def test_the_command_line_runs_a_script_under_a_trace(tmp_path):
    script = tmp_path / "program.py"
    script.write_text(textwrap.dedent("""
        import sys
        import numpy, lapis
        import lapis.kernels as K
        x = lapis.DualView(numpy.ones(100))
        y = K.add(x, float(sys.argv[1]))
        print("sum", float(y.asnumpy().sum()))
    """))
    run = subprocess.run([sys.executable, "-m", "lapis", "trace", "--output", str(tmp_path / "out"), str(script), "2"],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "sum 300.0" in run.stdout
    assert run.stdout.splitlines()[-1].split()[0] == "total"
    if APART:
        assert f"{script}:6" in run.stdout or "program.py:6" in run.stdout
    assert json.loads((tmp_path / "out.json").read_text())["traceEvents"]
    assert (tmp_path / "out.png").stat().st_size > 0 or "matplotlib" in run.stderr
    bad = subprocess.run([sys.executable, "-m", "lapis", "trace", str(tmp_path / "missing.py")],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert bad.returncode != 0 and "missing.py" in bad.stderr


REGION_TOOL = """
#include <stdint.h>
#include <stdio.h>
static FILE* out;
void kokkosp_init_library(int level, uint64_t version, uint32_t devices, void* info) { out = fopen(getenv("REGIONS"), "w"); }
void kokkosp_finalize_library(void) { fclose(out); }
void kokkosp_push_profile_region(const char* name) { fprintf(out, "%s\\n", name); fflush(out); }
void kokkosp_pop_profile_region(void) {}
"""


def test_a_kokkos_tool_sees_lapis_regions_and_the_trace_still_records(tmp_path):
    source = tmp_path / "tool.c"
    source.write_text("#include <stdlib.h>\n" + REGION_TOOL)
    library = tmp_path / "libregions.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(library), str(source)], check=True)
    program = textwrap.dedent("""
        import numpy, lapis
        import lapis.kernels as K
        with lapis.trace() as t:
            x = lapis.DualView(numpy.ones(64))
            y = K.add(x, 1.0)
            y.asnumpy()
        print(sorted({e.kind for e in t.events}))
    """)
    # (Kokkos 4 reads KOKKOS_TOOLS_LIBS, Kokkos 3.4 KOKKOS_PROFILE_LIBRARY)
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, KOKKOS_TOOLS_LIBS=str(library), KOKKOS_PROFILE_LIBRARY=str(library),
                                  REGIONS=str(tmp_path / "regions")))
    assert run.returncode == 0, run.stderr
    regions = (tmp_path / "regions").read_text().splitlines()
    assert "lapis kernel add" in regions
    if APART:
        assert "lapis sync_device lapis.DualView" in regions and "lapis sync_host lapis.DualView" in regions
    assert "kernel" in run.stdout and ("copy" in run.stdout) == APART


def test_off_the_trace_records_nothing():
    x = K.add(lapis.zeros(8), 1.0)
    x.asnumpy()
    with lapis.trace() as t:
        pass
    assert t.events == []
    assert inspect.signature(lapis.trace).parameters == {}


def test_each_allocation_and_free_names_the_line_where_it_happened():
    x = K.add(lapis.zeros(8), 1.0)  # the last lapis call before the trace: no event may carry its line
    with lapis.trace() as t:
        z = lapis.zeros(1000)  # zeros line
        f = lapis.full(1000, 2.0)  # full line
        o = lapis.ones(10)  # ones line
        like = lapis.zeros_like(z)  # zeros_like line
        copied = lapis.DualView(numpy.ones(10), copy=True)  # copy line
        twice = lapis.DualView(x, copy=True)  # copy of a DualView line
        del f  # del line
    places = {line_of(m) for m in ("zeros line", "full line", "ones line", "zeros_like line", "copy line",
                                   "copy of a DualView line")}
    allocated = [e.line for e in t.events if e.kind == "allocate"]
    assert set(allocated) == places and all(e.file == HERE for e in t.events if e.kind == "allocate")
    assert [e.line for e in t.events if e.kind == "free"] == [line_of("del line")]  # (f's device side only)
    assert z.size + o.size + like.size + copied.size + twice.size == 2028


class _DropsItsArrayOnReturn:
    """Called from C (a class's __call__): on CPython 3.12 its return leaves the interpreter's
    trampoline frame current while its locals are freed."""

    def __call__(self):
        local = lapis.zeros(1000)
        return local.size


def test_a_free_as_a_function_returns_names_the_line_that_called_it():
    with lapis.trace() as t:
        for _ in range(20):  # (a frame object made over the trampoline crashed a later call, not the first)
            assert _DropsItsArrayOnReturn()() == 1000  # call line
    frees = [e for e in t.events if e.kind == "free"]
    assert len(frees) >= 20 and {(e.file, e.line) for e in frees} == {(HERE, line_of("call line"))}


def test_the_first_event_of_a_process_names_its_line_and_long_paths_stay_whole(tmp_path):
    folder = tmp_path
    while len(str(folder)) < 640:  # (each name within the 255 bytes a file system allows)
        folder = folder / ("d" * 60)
    folder.mkdir(parents=True)
    script = folder / "program.py"
    script.write_text("import lapis\nlapis.start_trace()\nx = lapis.zeros(4)\n"
                      "print(repr([(e.kind, e.file, e.line) for e in lapis.stop_trace().events]))\n")
    assert len(str(script)) > 640
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert eval(run.stdout) == [("allocate", str(script), 3)]


def test_a_recording_sees_the_frees_of_only_the_memory_allocated_while_it_was_open():
    with lapis.trace() as earlier:
        x = lapis.zeros(1000)
    with lapis.trace() as later:
        del x
    assert [e.kind for e in earlier.events] == ["allocate"] and later.events == []
    with lapis.trace() as outer:
        y = lapis.zeros(1000)
        with lapis.trace() as inner:
            z = lapis.zeros(10)
            del y, z
    assert [e.kind for e in inner.events] == ["allocate", "free"] and inner.events[0].bytes == inner.events[1].bytes
    kinds = [e.kind for e in outer.events]
    assert sorted(kinds) == ["allocate", "allocate", "free", "free"]


def test_recordings_of_two_threads_overlap_and_neither_is_left_open():
    started, entered, stopped = threading.Event(), threading.Event(), threading.Event()
    results = {}

    def b():
        lapis.start_trace()
        started.set()
        entered.wait()
        results["b"] = lapis.stop_trace()
        stopped.set()

    worker = threading.Thread(target=b)
    worker.start()
    started.wait()
    with lapis.trace() as mine:
        entered.set()
        stopped.wait()
        K.add(lapis.zeros(8), 1.0)
    worker.join()
    assert [e.name for e in mine.events if e.kind == "kernel"] == ["add"]
    assert [e.kind for e in results["b"].events if e.kind == "kernel"] == []
    assert not lapis._core._trace_on()  # no recording left open
    with pytest.raises(RuntimeError, match="this thread has no recording open"):
        lapis.stop_trace()  # B's recording was B's to stop


def test_a_recording_a_thread_leaves_open_is_stopped_when_it_ends():
    worker = threading.Thread(target=lapis.start_trace)
    with pytest.warns(ResourceWarning, match="a thread ended with 1 recording"):
        worker.start()
        worker.join()
    assert not lapis._core._trace_on()


@pytest.mark.parametrize("ending, status, message", [
    ("raise KeyError('lost')", 1, "KeyError: 'lost'"),
    ("sys.exit('fatal: bad input file')", 1, "fatal: bad input file"),
    ("sys.exit(3)", 3, ""),
])
def test_the_command_line_writes_its_files_however_the_script_ends(tmp_path, ending, status, message):
    script = tmp_path / "program.py"
    script.write_text(f"import sys\nimport lapis\nx = lapis.zeros(4)\n{ending}\n")
    run = subprocess.run([sys.executable, "-m", "lapis", "trace", "--output", str(tmp_path / "out"), str(script)],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert run.returncode == status, run.stderr
    assert message in run.stderr
    assert "Traceback" in run.stderr if ending.startswith("raise") else "Traceback" not in run.stderr
    assert run.stdout.splitlines()[-1].split()[0] == "total"
    assert [e for e in json.loads((tmp_path / "out.json").read_text())["traceEvents"] if e.get("cat") == "allocate"]


def test_every_kind_of_event_is_in_the_guide():
    table = (pathlib.Path(__file__).parent.parent / "docs" / "guide" / "trace.md").read_text()
    rows = {kind for line in table.splitlines() if line.startswith("| `")
            for kind in re.findall(r"`(\w+)`", line.split("|")[1])}
    assert set(lapis._core._trace_kinds()) <= rows


def test_trace_event_declares_the_runtime_fields_and_their_values_have_its_types():
    """lapis.TraceEvent (a typed NamedTuple) names LAPIS_TRACE_EVENT_FIELDS in order, and the values
    the runtime records have the declared types: a field added in C++ fails here until Python has it."""
    assert list(lapis.TraceEvent._fields) == lapis._core._trace_fields()
    hints = typing.get_type_hints(lapis.TraceEvent)
    x = lapis.DualView(numpy.ones(3))
    with lapis.trace() as t:
        K.add(x, 1.0)  # traced line
        lapis.zeros(4)
    assert {e.kind for e in t.events} >= {"kernel", "allocate"}
    for event in t.events:
        for name, value in zip(event._fields, event):
            assert isinstance(value, typing.get_args(hints[name]) or hints[name]), (name, value)
    placed = [e for e in t.events if e.kind == "kernel"]
    assert [(e.file, e.line) for e in placed] == [(HERE, line_of("traced line"))]
