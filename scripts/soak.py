"""A long soak of the leak test's loop: allocating kernel results, borrowed wraps, exports, all
dropped, for a given time. Prints the live allocations and resident memory as it goes and exits
non-zero if either has grown by the end. Usage: python scripts/soak.py [SECONDS] (default 600)."""
import gc
import sys
import time

import numpy

import lapis
import lapis.kernels as K


def resident_mib():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 1024


def main(seconds):
    a = numpy.ones(64)
    iterations, started, last_report = 0, time.monotonic(), 0.0
    base_live = base_rss = None
    while time.monotonic() - started < seconds:
        for _ in range(10_000):
            result = K.matadd(a, a)
            wrapped = lapis.DualView(a)
            wrapped.sync_device()
            exported = result.asnumpy()
            del result, wrapped, exported
        iterations += 10_000
        gc.collect()
        if base_live is None:
            base_live, base_rss = lapis.runtime_info()["live_allocations"], resident_mib()
        if time.monotonic() - last_report > 10:
            last_report = time.monotonic()
            print(f"{iterations:>12,} iterations  live allocations {lapis.runtime_info()['live_allocations']}  "
                  f"resident {resident_mib():.1f} MiB", flush=True)
    live, rss = lapis.runtime_info()["live_allocations"], resident_mib()
    print(f"{iterations:,} iterations: live allocations {base_live} -> {live}, resident {base_rss:.1f} -> {rss:.1f} MiB")
    return 0 if live == base_live and rss - base_rss < 10 else 1


if __name__ == "__main__":
    sys.exit(main(float(sys.argv[1]) if len(sys.argv) > 1 else 600))
