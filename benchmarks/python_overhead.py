"""Per-call time of a no-alloc lapis.kernels.matadd on tiny resident DualViews, measured from
Python, next to numpy.add(..., out=...) on tiny arrays. Prints JSON: microseconds per call (best
of several repeats). Run it on the same device as the C++ benchmark it is compared with."""
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
    print(json.dumps({
        "lapis_matadd_us": lapis_us,
        "numpy_add_us": per_call_us(lambda: numpy.add(x, y, out=z)),
        "lapis_transfers": moved.h2d_count + moved.d2h_count,
        "device": "simulated" if lapis.runtime_info()["simulated_device"] else lapis.runtime_info()["execution_space"],
    }))


if __name__ == "__main__":
    main()
