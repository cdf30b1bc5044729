"""What lapis.trace() costs: the no-alloc and the allocating one-element matadd, and a sync of a
small DualView (one copy where the sides are apart), each timed without a trace and under one, in
turns, round after round; best round of each. Prints JSON: microseconds per call for each
operation off and on, and the events each call records (so that (on - off) / events is the cost of
one event)."""
import json
import time

import numpy

import lapis
import lapis.kernels as K
from python_overhead import device_name

CALLS, ROUNDS = 5_000, 7


def operations():
    a, b, c = (lapis.zeros(1) for _ in range(3))
    x = lapis.zeros(128)

    def sync_round_trip():  # a device write, then the host reads it: a download where the sides are apart
        x.modify_device()
        x.sync_host()

    return {"matadd_no_alloc": lambda: K.matadd(a, b, out=c), "matadd_allocating": lambda: K.matadd(a, b),
            "sync_host": sync_round_trip}


def main():
    ops = operations()
    best = {f"{name}_{mode}_us": float("inf") for name in ops for mode in ("off", "on")}
    events = {}
    for fn in ops.values():  # warm up: allocations pooled, kernels launched once
        for _ in range(100):
            fn()
    for _ in range(ROUNDS):
        for name, fn in ops.items():
            for mode in ("off", "on"):
                if mode == "on":
                    lapis.start_trace()
                start = time.perf_counter()
                for _ in range(CALLS):
                    fn()
                seconds = time.perf_counter() - start
                if mode == "on":
                    events[name] = len(lapis.stop_trace().events) / CALLS
                best[f"{name}_{mode}_us"] = min(best[f"{name}_{mode}_us"], seconds / CALLS * 1e6)
    figures = {**best, **{f"{name}_events_per_call": count for name, count in events.items()}}
    figures["device"] = device_name()
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
