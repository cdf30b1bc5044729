"""examples/pcg_solve.py's conjugate gradients with one iteration recorded in a lapis.graph() and
replayed K times between convergence tests, under lapis.trace(). The step lengths live in 0-d
DualViews on the device; the loop's only copies are the residual's 8 bytes at each test, and the
trace shows each replay as one event around its six kernel calls. Usage: graph_cg.py [n] [K]
[PREFIX] (defaults 32 and 5; with PREFIX, writes PREFIX.json, the Chrome trace, and PREFIX.png, the
picture)."""
import sys

import numpy

import lapis
import lapis.kernels as K
from _example import finish, main
from _sparse import laplacian_2d
from pcg_solve import TOLERANCE, numpy_pcg

CALLS_PER_ITERATION = 6


def run():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 32
    per_test = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    indptr, indices, data = laplacian_2d(n)
    rows = n * n
    b = numpy.sin(numpy.arange(rows) + 1.0)
    dinv = 1.0 / data[indices == numpy.repeat(numpy.arange(rows), numpy.diff(indptr))]
    with lapis.trace() as t, lapis.count_transfers() as moved:
        P, J, D = (lapis.DualView(array) for array in (indptr, indices, data))
        m, r = lapis.DualView(dinv), lapis.DualView(b.copy())
        for dv in (P, J, D, m, r):
            dv.sync_device()                             # what the graph reads goes up once
        x, p, q, z = lapis.zeros(rows), lapis.empty(rows), lapis.empty(rows), lapis.empty(rows)
        rz, rz_old, pq, rr = (lapis.empty(()) for _ in range(4))
        K.cg_precondition(m, r, z, rz)                   # z = m r; rz = r.z
        K.axpby(1.0, z, 0.0, z, out=p)
        K.spmv(P, J, D, p, shape=(rows, rows), out=q)    # the structure checked once, before the capture
        with lapis.graph() as iteration:
            K.spmv(P, J, D, p, shape=(rows, rows), out=q)
            K.dot(p, q, out=pq)
            K.cg_step(rz, pq, p, q, x, r, rr)            # x += alpha p; r -= alpha q; rr = r.r
            K.axpby(1.0, rz, 0.0, rz, out=rz_old)
            K.cg_precondition(m, r, z, rz)
            K.cg_direction(z, rz, rz_old, p)             # p = z + (rz / rz_old) p
        threshold = TOLERANCE ** 2 * float(b @ b)
        iterations = tests = 0
        with lapis.count_transfers() as loop:
            while iterations < 10 * n:
                for _ in range(per_test):
                    iteration.replay()
                iterations, tests = iterations + per_test, tests + 1
                if float(rr.asnumpy()) < threshold:      # the loop's one download: 8 bytes
                    break
        host = x.asnumpy()
    print(t.summary())
    replays = [e for e in t.events if e.kind == "replay"]
    kernels = sum(e.kind == "kernel" for e in t.events)
    print(f"{iterations} iterations in {len(replays)} replays of {len(iteration)} calls ({iteration.replay_mode}), "
          f"{tests} convergence tests; the loop moved {loop.h2d_bytes} bytes up and {loop.d2h_count} scalars down")
    expected_down = tests if not lapis.runtime_info()["sides_alias"] else 0
    if (len(replays) != iterations or len(iteration) != CALLS_PER_ITERATION or loop.h2d_count != 0
            or (loop.d2h_count, loop.d2h_bytes) != (expected_down, 8 * expected_down)):
        print("MISMATCH: each iteration should be one replay, and the loop should only download r.r at each test")
        return 1
    if kernels < CALLS_PER_ITERATION * iterations:
        print(f"MISMATCH: the trace shows {kernels} kernel calls, fewer than the replays made")
        return 1
    if len(sys.argv) > 3:
        t.save(sys.argv[3] + ".json")
        t.plot(sys.argv[3] + ".png")
    # numpy's solve stops at the first iteration that converges, the replays at the next test: both
    # are within the tolerance's reach of the solution
    return finish(f"graph_cg ({n} x {n} Laplacian, {per_test} iterations per test)", host,
                  numpy_pcg(indptr, indices, data, dinv, b, max_iterations=10 * n), moved, rtol=1e-6)


if __name__ == "__main__":
    main(run)
