"""examples/pcg_solve.py's conjugate gradients under lapis.trace(): the trace shows where every copy
came from. The setup uploads the matrix and the vectors once; inside the loop the only copy is the
8-byte r.r each iteration downloads for the convergence test, attributed to that line of
pcg_solve.py. Usage: trace_cg.py [n] [PREFIX] (default 32; with PREFIX, writes PREFIX.json, the
Chrome trace, and PREFIX.png, the picture)."""
import pathlib
import sys

import numpy

import lapis
import lapis.kernels as K
from _example import finish, main
from _sparse import laplacian_2d
from pcg_solve import numpy_pcg, pcg


def run():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 32
    indptr, indices, data = laplacian_2d(n)
    b = numpy.sin(numpy.arange(n * n) + 1.0)
    dinv = 1.0 / data[indices == numpy.repeat(numpy.arange(n * n), numpy.diff(indptr))]
    with lapis.trace() as t, lapis.count_transfers() as moved:
        P, J, D = (lapis.DualView(array) for array in (indptr, indices, data))
        x = lapis.zeros(n * n)
        iterations, _ = pcg(lambda v, out=None: K.spmv(P, J, D, v, shape=(n * n, n * n), out=out),
                            lapis.DualView(dinv), lapis.DualView(b), x, max_iterations=10 * n)
        host = x.asnumpy()
    print(t.summary())
    loop_line = next(number for number, text in enumerate(
        (pathlib.Path(__file__).parent / "pcg_solve.py").read_text().splitlines(), 1) if "rr.asnumpy()" in text)
    in_loop = [e for e in t.events if e.kind == "copy" and e.line == loop_line and e.file is not None
               and e.file.endswith("pcg_solve.py")]
    print(f"{iterations} iterations: {len(in_loop)} copies on pcg_solve.py:{loop_line} "
          f"({sorted({(e.detail, e.bytes) for e in in_loop})})")
    expected_in_loop = iterations if not lapis.runtime_info()["sides_alias"] else 0
    if len(in_loop) != expected_in_loop or any((e.detail, e.bytes) != ("device->host", 8) for e in in_loop):
        print("MISMATCH: the loop should download r.r (8 bytes) once per iteration and copy nothing else")
        return 1
    if t.transfer_stats() != moved.stats:
        print(f"MISMATCH: the trace saw {t.transfer_stats()}, count_transfers {moved.stats}")
        return 1
    if len(sys.argv) > 2:
        t.save(sys.argv[2] + ".json")
        t.plot(sys.argv[2] + ".png")
    return finish(f"trace_cg ({n} x {n} Laplacian)", host,
                  numpy_pcg(indptr, indices, data, dinv, b, max_iterations=10 * n), moved, rtol=1e-8)


if __name__ == "__main__":
    main(run)
