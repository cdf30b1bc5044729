"""LAPIS-style two-function program: residual(A, x, b) = b - A x, then norm2 of that residual.
The second function reads the first's result where it lives: after the inputs' uploads nothing
moves, and the norm comes back as a scalar (a reduction, not a copy)."""
import pathlib
import sys

import numpy

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import _example  # noqa: E402

import _module  # noqa: E402
import lapis  # noqa: E402


def run():
    module = _module.load()
    rng = _example.rng()
    a_host, x_host, b_host = rng.standard_normal((80, 80)), rng.standard_normal(80), rng.standard_normal(80)
    a, x, b = (lapis.DualView(v) for v in (a_host, x_host, b_host))
    with lapis.count_transfers() as copies:
        r = module.dv_residual(a, x, b)
        norm = module.dv_norm2(r)
        residual = r.asnumpy()
    expected = b_host - a_host @ x_host
    if not numpy.isclose(norm, expected @ expected):
        print(f"MISMATCH: norm2 {norm}, numpy {expected @ expected}")
        return 1
    return _example.finish("lapis_style chain", residual, expected, copies.stats)


if __name__ == "__main__":
    _example.main(run)
