"""Two independently built modules, each with Kokkos kernels of its own (adder: MDRange and
parallel_reduce, a module-global View; matmul: a TeamPolicy), run on lapis's one Kokkos and trade
DualViews with each other and with lapis.kernels. Builds both against the installed lapis on first
run (into build/ beside them); later runs reuse the build.

The inputs are uploaded once each, nothing moves between the modules, and the result comes back
to the host once, at .asnumpy()."""
import pathlib
import sys

import numpy

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import _example  # noqa: E402
import _modules  # noqa: E402

import lapis  # noqa: E402
import lapis.kernels as K  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent


def run():
    adder = _modules.import_from(_modules.build(HERE / "adder"), "adder")
    matmul = _modules.import_from(_modules.build(HERE / "matmul"), "matmul")
    rng = _example.rng()
    a, b = rng.standard_normal((64, 64)), rng.standard_normal((64, 64))
    with lapis.count_transfers() as copies:
        s = adder.add(a, b)          # a and b uploaded once each; s stays on the device
        p = matmul.matmul(s, s)      # the other module reads s in place
        q = K.matadd(p, s)           # so does lapis's own kernel module
        r = adder.add(q, p)
        total = adder.total(r)       # a parallel_reduce where r lives: a scalar, no copy
        result = r.asnumpy()         # the one download
    s_ = a + b
    expected = (s_ @ s_ + s_) + s_ @ s_
    status = _example.finish("twomodules", result, expected, copies, rtol=1e-10)
    if not numpy.isclose(total, expected.sum(), rtol=1e-10) or adder.calls() != 2:
        print(f"MISMATCH: total {total} (numpy {expected.sum()}), adder calls {adder.calls()}")
        return 1
    return status


if __name__ == "__main__":
    _example.main(run)
