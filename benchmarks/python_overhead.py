"""Per-call time of a no-alloc lapis.kernels.matadd on tiny resident DualViews, measured from
Python (and on numpy arrays, and on DualViews borrowing them), next to numpy.add(..., out=...) on tiny arrays and, where a GPU and the libraries are
there, torch.add(..., out=...) and cupy.add(..., out=...) on tiny CUDA arrays. Each GPU library
is timed twice: the call alone (it returns once the kernel is queued) and the call followed by a
wait for the device (lapis.fence(), torch.cuda.synchronize(), stream.synchronize()).

The candidates are warmed up together, then timed in turns, round after round, so that a slow
phase of the machine (clocks still ramping up, a neighbour's load) does not land on one of them;
each figure is its best round. Prints JSON: microseconds per call. Run it on the same device as
the C++ benchmark it is compared with."""
import json
import os
import subprocess
import sys
import time

import numpy

import lapis
import lapis.kernels as K

CALLS, ROUNDS, WARM_UP_SECONDS = 20_000, 7, 1.0


def timed_in_turns(candidates, calls=CALLS, rounds=ROUNDS, warm_up_seconds=WARM_UP_SECONDS):
    """{name: best microseconds per call over `rounds` rounds of `calls` calls} for {name: callable},
    after warming up together for `warm_up_seconds` (at least one pass of up to 100 calls each)."""
    deadline = time.perf_counter() + warm_up_seconds
    while True:
        for fn in candidates.values():
            for _ in range(min(100, calls)):
                fn()
        if time.perf_counter() >= deadline:
            break
    best = dict.fromkeys(candidates, float("inf"))
    for _ in range(rounds):
        for name, fn in candidates.items():
            start = time.perf_counter()
            for _ in range(calls):
                fn()
            best[name] = min(best[name], (time.perf_counter() - start) / calls * 1e6)
    return best


def main():
    a, b, c = (lapis.zeros(1) for _ in range(3))
    x, y, z = (numpy.zeros(1) for _ in range(3))
    u, v, w = (numpy.zeros(1) for _ in range(3))
    borrowed = [lapis.DualView(array) for array in (u, v, w)]
    candidates = {
        "lapis_matadd_us": lambda: K.matadd(a, b, out=c),
        "lapis_matadd_fence_us": lambda: (K.matadd(a, b, out=c), lapis.fence()),
        "numpy_add_us": lambda: numpy.add(x, y, out=z),
        # a LAPIS program's call: numpy arrays in and out (where the sides are apart, each call
        # uploads the inputs and writes the result back), and DualViews that borrow numpy arrays
        "lapis_matadd_numpy_us": lambda: K.matadd(x, y, out=z),
        "lapis_matadd_borrowed_us": lambda: K.matadd(borrowed[0], borrowed[1], out=borrowed[2]),
    }
    if a.__dlpack_device__()[0] == 2:
        candidates.update(gpu_libraries())
    figures = timed_in_turns(candidates)
    figures["lapis_transfers"] = sum(dv.transfers.h2d_count + dv.transfers.d2h_count for dv in (a, b, c))
    figures["device"] = device_name()
    print(json.dumps(figures))


def device_name():
    """What a benchmark ran on: "simulated", or the execution space's name."""
    info = lapis.runtime_info()
    return "simulated" if info["simulated_device"] else info["execution_space"]


def lapis_figures_with(script, **environment):
    """lapis's figures (the keys starting with "lapis") that `script` prints run again with
    `environment` added to this process's."""
    out = subprocess.run([sys.executable, script], capture_output=True, text=True, check=True,
                         env=dict(os.environ, **environment)).stdout
    return {key: value for key, value in json.loads(out).items() if key.startswith("lapis")}


def gpu_libraries():
    """torch.add and cupy.add with out= on 1-element CUDA arrays, alone and with a synchronization."""
    candidates = {}
    try:
        import torch
        if torch.cuda.is_available():
            t = [torch.zeros(1, device="cuda") for _ in range(3)]
            candidates["torch_add_us"] = lambda: torch.add(t[0], t[1], out=t[2])
            candidates["torch_add_sync_us"] = lambda: (torch.add(t[0], t[1], out=t[2]), torch.cuda.synchronize())
    except ImportError:
        pass
    try:
        import cupy
        u = [cupy.zeros(1) for _ in range(3)]
        stream = cupy.cuda.get_current_stream()
        candidates["cupy_add_us"] = lambda: cupy.add(u[0], u[1], out=u[2])
        candidates["cupy_add_sync_us"] = lambda: (cupy.add(u[0], u[1], out=u[2]), stream.synchronize())
    except ImportError:
        pass
    return candidates


if __name__ == "__main__":
    main()
