"""Per-call time of a no-alloc lapis.kernels.matadd on tiny resident DualViews, measured from
Python, next to numpy.add(..., out=...) on tiny arrays and, where a GPU and the libraries are
there, torch.add(..., out=...) and cupy.add(..., out=...) on tiny CUDA arrays. Each GPU library
is timed twice: the call alone (it returns once the kernel is queued) and the call followed by a
wait for the device (lapis.fence(), torch.cuda.synchronize(), stream.synchronize()). Prints JSON:
microseconds per call (best of several repeats). Run it on the same device as the C++ benchmark
it is compared with."""
import json
import timeit

import numpy

import lapis
import lapis.kernels as K

CALLS, REPEATS = 20_000, 7


def per_call_us(fn):
    fn()
    return min(timeit.repeat(fn, number=CALLS, repeat=REPEATS)) / CALLS * 1e6


def main():
    a, b, c = (lapis.zeros(1) for _ in range(3))
    x, y, z = (numpy.zeros(1) for _ in range(3))
    with lapis.count_transfers() as moved:
        lapis_us = per_call_us(lambda: K.matadd(a, b, out=c))
        lapis_fence_us = per_call_us(lambda: (K.matadd(a, b, out=c), lapis.fence()))
    figures = {
        "lapis_matadd_us": lapis_us,
        "lapis_matadd_fence_us": lapis_fence_us,
        "numpy_add_us": per_call_us(lambda: numpy.add(x, y, out=z)),
        "lapis_transfers": moved.h2d_count + moved.d2h_count,
        "device": "simulated" if lapis.runtime_info()["simulated_device"] else lapis.runtime_info()["execution_space"],
    }
    if a.__dlpack_device__()[0] == 2:
        figures.update(gpu_libraries())
    print(json.dumps(figures))


def gpu_libraries():
    """torch.add and cupy.add with out= on 1-element CUDA arrays, alone and with a synchronization."""
    figures = {}
    try:
        import torch
        if torch.cuda.is_available():
            x, y, z = (torch.zeros(1, device="cuda") for _ in range(3))
            figures["torch_add_us"] = per_call_us(lambda: torch.add(x, y, out=z))
            figures["torch_add_sync_us"] = per_call_us(lambda: (torch.add(x, y, out=z), torch.cuda.synchronize()))
    except ImportError:
        pass
    try:
        import cupy
        x, y, z = (cupy.zeros(1) for _ in range(3))
        stream = cupy.cuda.get_current_stream()
        figures["cupy_add_us"] = per_call_us(lambda: cupy.add(x, y, out=z))
        figures["cupy_add_sync_us"] = per_call_us(lambda: (cupy.add(x, y, out=z), stream.synchronize()))
    except ImportError:
        pass
    return figures


if __name__ == "__main__":
    main()
