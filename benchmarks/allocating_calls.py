"""Per-call time of allocating calls, measured from Python: lapis.kernels.matadd(a, b) on resident
inputs with the result dropped (1 and 1M float32 elements), and lapis.zeros of 1 MiB allocated and
freed; next to numpy (np.add, np.zeros) and, where a GPU and the libraries are there, torch and
cupy doing the same on CUDA arrays. Timed in turns, best round (python_overhead.timed_in_turns).

With --compare-unpooled it runs itself again with LAPIS_POOL=0 and reports both. Also reports
what lapis's pool did during the timed rounds: blocks allocated from and freed to the memory
space (0 and 0 in the steady state: no cudaMalloc, no cudaFree) and requests it reused.
Prints JSON: microseconds per call."""
import json
import os
import sys

import numpy

import lapis
import lapis.kernels as K
from python_overhead import device_name, lapis_figures_with, timed_in_turns

CALLS, ROUNDS = 500, 5
SIZES = {"1": 1, "1M": 1 << 20}
ZEROS_ELEMENTS = (1 << 20) // 4  # 1 MiB of float32


def lapis_candidates():
    candidates = {}
    for name, n in SIZES.items():
        a, b = lapis.full(n, 1.0, dtype=numpy.float32), lapis.full(n, 2.0, dtype=numpy.float32)
        candidates[f"lapis_matadd_{name}_us"] = lambda a=a, b=b: K.matadd(a, b)
    candidates["lapis_zeros_1MiB_us"] = lambda: lapis.zeros(ZEROS_ELEMENTS, dtype=numpy.float32)
    return candidates


def other_candidates(on_gpu):
    candidates = {}
    if not on_gpu:
        for name, n in SIZES.items():
            x, y = numpy.ones(n, numpy.float32), numpy.ones(n, numpy.float32)
            candidates[f"numpy_add_{name}_us"] = lambda x=x, y=y: numpy.add(x, y)
        candidates["numpy_zeros_1MiB_us"] = lambda: numpy.zeros(ZEROS_ELEMENTS, numpy.float32)
        return candidates
    try:
        import torch
        for name, n in SIZES.items():
            x, y = torch.ones(n, device="cuda"), torch.ones(n, device="cuda")
            candidates[f"torch_add_{name}_us"] = lambda x=x, y=y: torch.add(x, y)
        candidates["torch_zeros_1MiB_us"] = lambda: torch.zeros(ZEROS_ELEMENTS, device="cuda")
    except ImportError:
        pass
    try:
        import cupy
        for name, n in SIZES.items():
            x, y = cupy.ones(n, cupy.float32), cupy.ones(n, cupy.float32)
            candidates[f"cupy_add_{name}_us"] = lambda x=x, y=y: cupy.add(x, y)
        candidates["cupy_zeros_1MiB_us"] = lambda: cupy.zeros(ZEROS_ELEMENTS, cupy.float32)
    except ImportError:
        pass
    return candidates


def pool_totals():
    stats = lapis.memory_stats().values()
    return {key: sum(s[key] for s in stats) for key in ("allocated", "freed", "reused")}


def main():
    on_gpu = lapis.DualView(numpy.zeros(1)).__dlpack_device__()[0] == 2
    candidates = {**lapis_candidates(), **other_candidates(on_gpu)}
    for fn in candidates.values():
        fn()  # the first call of each size allocates; the pool's counts below are the steady state's
    before = pool_totals()
    figures = timed_in_turns(candidates, calls=CALLS, rounds=ROUNDS)
    after = pool_totals()
    figures.update({f"pool_{key}": after[key] - before[key] for key in before})
    figures["pooled"] = os.environ.get("LAPIS_POOL", "1") != "0"
    figures["device"] = device_name()
    if "--compare-unpooled" in sys.argv:
        figures["unpooled"] = lapis_figures_with(__file__, LAPIS_POOL="0")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
