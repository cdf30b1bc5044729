"""The trace: which line of a program moved which array, when, and how long it took.

    with lapis.trace() as t:
        run()
    print(t.summary())          # by source line: copies, bytes each way, time; the busiest first
    t.save("trace.json")        # Chrome Trace Event format: Perfetto, chrome://tracing
    t.plot("trace.png")         # memory in use over time, copies marked

lapis's runtime library records, on every thread and for every module of the process: each copy
between the sides of a DualView, each allocation and free of a side, each lapis kernel call and
each call of a LAPIS module through lapis.lapis_module, transfer-guard decisions and lapis.mpi
messages. Each event names the Python line that caused it (the first frame outside lapis). Traces
nest and may overlap across threads; `python -m lapis trace script.py` runs a script under one.
"""
from __future__ import annotations

import collections
import contextlib
import json
import os
import threading
import warnings
from collections.abc import Iterator
from typing import Any, NamedTuple

from lapis import _core

__all__ = ["Trace", "TraceEvent", "start_trace", "stop_trace", "trace"]

# the kinds of events that have no duration (runtime/trace.hpp's list of kinds says which)
_INSTANTS = frozenset(kind for kind, instant in _core._trace_kinds().items() if instant)
# a copy's `detail`: its direction, as the runtime names it
_UP, _DOWN = _core._copy_directions()


class TraceEvent(NamedTuple):
    """One thing lapis did. `kind` is "copy", "allocate", "free", "kernel", "call" (a LAPIS module's
    function), "guard", "mpi", "register" (host memory registered with the driver, or released) or
    "replay" (a graph replayed, around its calls' own events);
    `name` the DualView's label (copy, allocate, free, guard, register) or the operation's name;
    `detail` the direction ("host->device"), the memory space, the guard's decision, the MPI peer or
    the registration's fate ("registered", "released", "refused: <why>"). Times are microseconds
    since the trace started; `duration_us` is 0 for instants (allocate, free, guard). `file` and
    `line` name the Python caller (None when the event had none: a C++ program's). The fields are
    the runtime's (LAPIS_TRACE_EVENT_FIELDS, runtime/trace.hpp), in its order."""
    kind: str
    name: str
    detail: str
    dtype: str
    shape: str
    bytes: int
    staged: bool
    explicit: bool
    pool_hit: bool
    start_us: float
    duration_us: float
    thread: int
    file: str | None
    line: int | None

    @property
    def where(self) -> str:
        """"file:line" of the Python caller, or "(no Python caller)"."""
        return f"{self.file}:{self.line}" if self.file is not None else "(no Python caller)"


class Trace:
    """The events of one recording (filled in when it stops) and what can be made of them."""

    def __init__(self) -> None:
        self.events: list[TraceEvent] = []

    def transfer_stats(self) -> _core.TransferStats:
        """The copies between the sides, as count_transfers counts them."""
        copies = [e for e in self.events if e.kind == "copy"]
        up = [e.bytes for e in copies if e.detail == _UP]
        down = [e.bytes for e in copies if e.detail == _DOWN]
        return _core.TransferStats(len(up), sum(up), len(down), sum(down))

    def summary(self) -> str:
        """A table by source line: copies and bytes each way, copy time, kernel and module calls;
        the lines that moved most first, then a total line."""
        rows: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0, 0, 0, 0.0, 0])
        for e in self.events:
            row = rows[e.where]
            if e.kind == "copy":
                index = 0 if e.detail == _UP else 2
                row[index] += 1
                row[index + 1] += e.bytes
                row[4] += e.duration_us
            elif e.kind in ("kernel", "call"):
                row[5] += 1
        header = f"{'line':<48} {'up':>5} {'up bytes':>12} {'down':>5} {'down bytes':>12} {'copy us':>10} {'calls':>6}"
        lines = [header, "-" * len(header)]
        for where, (up, up_bytes, down, down_bytes, seconds, calls) in sorted(
                rows.items(), key=lambda item: (-(item[1][1] + item[1][3]), -item[1][4], item[0])):
            lines.append(f"{_tail(where, 48):<48} {up:>5} {up_bytes:>12,} {down:>5} {down_bytes:>12,} "
                         f"{seconds:>10.1f} {calls:>6}")
        total = self.transfer_stats()
        copy_us = sum(e.duration_us for e in self.events if e.kind == "copy")
        calls = sum(e.kind in ("kernel", "call") for e in self.events)
        lines.append("-" * len(header))
        lines.append(f"{'total':<48} {total.h2d_count:>5} {total.h2d_bytes:>12,} {total.d2h_count:>5} "
                     f"{total.d2h_bytes:>12,} {copy_us:>10.1f} {calls:>6}")
        return "\n".join(lines)

    def chrome_trace(self) -> dict[str, Any]:
        """The Chrome Trace Event format's object: copies, kernel, module and MPI calls and
        registrations as complete events on their thread's track, allocations, frees and guard
        decisions as instants, and each memory space's bytes in use as a counter track."""
        events: list[dict[str, Any]] = [{"ph": "M", "name": "process_name", "pid": 1, "tid": 0,
                                         "args": {"name": "lapis"}}]
        for thread in sorted({e.thread for e in self.events}):
            events.append({"ph": "M", "name": "thread_name", "pid": 1, "tid": thread,
                           "args": {"name": f"thread {thread}"}})
        in_use: dict[str, int] = collections.defaultdict(int)
        for e in self.events:
            args = {"detail": e.detail, "bytes": e.bytes, "where": e.where}
            if e.dtype:
                args.update(dtype=e.dtype, shape=e.shape)
            if e.kind == "copy":
                args.update(staged=e.staged, explicit=e.explicit)
            event = {"name": f"{e.kind} {e.name}" + (f" {e.detail}" if e.kind == "copy" else ""), "cat": e.kind,
                     "pid": 1, "tid": e.thread, "ts": e.start_us, "args": args}
            if e.kind in _INSTANTS:
                event.update(ph="i", s="t")
            else:
                event.update(ph="X", dur=e.duration_us)
            events.append(event)
            if e.kind in ("allocate", "free"):
                in_use[e.detail] += e.bytes if e.kind == "allocate" else -e.bytes
                events.append({"ph": "C", "name": f"{e.detail} in use (bytes)", "pid": 1, "tid": 0, "ts": e.start_us,
                               "args": {"bytes": in_use[e.detail]}})
        return {"traceEvents": events, "displayTimeUnit": "ms"}

    def save(self, path: str | os.PathLike[str]) -> None:
        """Writes the trace as Chrome Trace Event JSON (opens in Perfetto and chrome://tracing)."""
        with open(path, "w") as file:
            json.dump(self.chrome_trace(), file)

    def plot(self, path: str | os.PathLike[str]) -> None:
        """Draws each memory space's bytes in use over time with the copies marked (up and down,
        their sizes) and saves the picture (needs matplotlib)."""
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        figure, (memory, copies) = plt.subplots(2, 1, figsize=(10, 6), sharex=True,
                                                gridspec_kw={"height_ratios": [3, 1]})
        in_use: dict[str, list[tuple[float, int]]] = collections.defaultdict(lambda: [(0.0, 0)])
        for e in self.events:
            if e.kind in ("allocate", "free"):
                steps = in_use[e.detail]
                steps.append((e.start_us / 1e3, steps[-1][1] + (e.bytes if e.kind == "allocate" else -e.bytes)))
        end = max((e.start_us + e.duration_us for e in self.events), default=0.0) / 1e3
        for space, steps in sorted(in_use.items()):
            times, used = zip(*(steps + [(end, steps[-1][1])]))
            memory.step(times, [u / 2**20 for u in used], where="post", label=space)
        memory.set_ylabel("in use (MiB)")
        memory.legend(loc="upper left")
        memory.set_title(f"lapis trace: {len(self.events)} events")
        for direction, colour, row in ((_UP, "tab:blue", 1), (_DOWN, "tab:orange", 0)):
            moved = [e for e in self.events if e.kind == "copy" and e.detail == direction]
            copies.broken_barh([(e.start_us / 1e3, max(e.duration_us / 1e3, end * 2e-3)) for e in moved],
                               (row - 0.4, 0.8), color=colour, label=f"{direction}: {len(moved)} copies, "
                               f"{sum(e.bytes for e in moved):,} bytes")
        copies.set_yticks([0, 1], ["down", "up"])
        copies.set_xlabel("time (ms)")
        copies.legend(loc="upper left", fontsize="small")
        figure.tight_layout()
        figure.savefig(path)
        plt.close(figure)


class _Started(list):  # type: ignore[type-arg]
    """One thread's recordings from start_trace(), the latest last. Those still open when the
    thread ends are stopped then, with a ResourceWarning: nobody could stop them any more, and an
    open recording keeps every event of the process."""

    def __del__(self) -> None:
        if self:
            warnings.warn(f"lapis: a thread ended with {len(self)} recording(s) from lapis.start_trace() "
                          "open; they were stopped and their events dropped", ResourceWarning, stacklevel=1)
        for recording, _ in self:
            with contextlib.suppress(Exception):  # (at interpreter exit the runtime may be gone)
                _core._trace_stop(recording)


class _ThreadState(threading.local):
    def __init__(self) -> None:
        self.started = _Started()


_thread = _ThreadState()


def start_trace() -> None:
    """Starts recording; stop_trace() on the same thread ends the latest recording that thread
    started. Recordings nest and may overlap other threads' own: each sees what every thread did
    while it was open."""
    recording = _core._trace_start()
    _thread.started.append((recording, Trace()))


def stop_trace() -> Trace:
    """Stops the latest recording start_trace() began on this thread and returns its Trace."""
    if not _thread.started:
        raise RuntimeError("lapis.stop_trace: this thread has no recording open "
                           "(start one with lapis.start_trace(), on the thread that stops it)")
    return _stopped(*_thread.started.pop())


@contextlib.contextmanager
def trace() -> Iterator[Trace]:
    """with lapis.trace() as t: records the block; t.events and the rest are there once it ends."""
    result = Trace()
    recording = _core._trace_start()
    try:
        yield result
    finally:
        _stopped(recording, result)


def _stopped(recording: int, result: Trace) -> Trace:
    result.events = [TraceEvent(*fields) for fields in _core._trace_stop(recording)]
    return result


def _tail(text: str, width: int) -> str:
    return text if len(text) <= width else "..." + text[-(width - 3):]
