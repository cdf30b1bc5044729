"""A kernel result stays where it was computed until someone reads it on the host.

Runs a few device-side steps on a 1000x1000 result and counts the copies lapis makes, next to
what a runtime that copies every result back after each call (LAPIS before DualViews) would move.
Checks its own result against numpy and exits non-zero on a mismatch.
"""
import sys

import numpy

import lapis

STEPS = 5
SHAPE = (1000, 1000)


def main():
    info = lapis.runtime_info()
    device = "simulated device" if info["simulated_device"] else f"default device ({info['execution_space']})"
    print(f"lapis on Kokkos {info['kokkos_version']}, {device}; sides {'alias' if info['sides_alias'] else 'apart'}")

    with lapis.count_transfers() as resident:
        result = lapis.zeros(SHAPE)                # computed on the device
        for step in range(1, STEPS + 1):
            result.fill(float(step))               # each step writes the device side only
        print(f"after {STEPS} device steps: {result!r}")
        host = result.asnumpy()                    # the one copy to the host
        again = result.asnumpy()                   # already current: no copy
    ok = (host == STEPS).all() and again is not host and (again == host).all()

    nbytes = result.nbytes
    print(f"lapis:  {resident.d2h_count} device->host copy ({resident.d2h_bytes:,} bytes), "
          f"{resident.h2d_count} host->device")
    print(f"naive:  {STEPS} device->host copies ({STEPS * nbytes:,} bytes): one after every call, on a separate device")

    borrowed = numpy.arange(6.0).reshape(2, 3)
    with lapis.count_transfers() as wrapped:
        dv = lapis.DualView(borrowed)              # numpy memory is the host side
        dv.sync_device()                           # one upload
        dv.sync_device()                           # current: nothing
        dv.fill(-1.0)                              # a device write into the caller's array...
        dv.sync_host()                             # ...written back once
    ok = ok and (borrowed == -1).all()
    print(f"borrowed numpy array: {wrapped!r}")

    print("OK" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
