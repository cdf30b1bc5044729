"""What every example shares: a seeded generator, and the closing report that prints the result,
the copies lapis made, checks the result against numpy and gives the exit status."""
import sys

import numpy

import lapis


def rng():
    return numpy.random.default_rng(2026)


def finish(name, result, expected, transfers, rtol=1e-12):
    """Prints and checks; returns the exit status (0 when the result matches numpy)."""
    values = result.asnumpy() if isinstance(result, lapis.DualView) else result
    info = lapis.runtime_info()
    device = "simulated device" if info["simulated_device"] else f"default device ({info['execution_space']})"
    print(f"{name} on the {device}")
    with numpy.printoptions(precision=4, threshold=12, edgeitems=2):
        print(f"result {values.shape} {values.dtype}:\n{values}")
    print(f"host->device: {transfers.h2d_count} copies, {transfers.h2d_bytes} bytes; "
          f"device->host: {transfers.d2h_count} copies, {transfers.d2h_bytes} bytes")
    ok = values.shape == expected.shape and numpy.allclose(values, expected, rtol=rtol, atol=rtol)
    print("OK" if ok else "MISMATCH against numpy")
    return 0 if ok else 1


def main(run):
    sys.exit(run())
