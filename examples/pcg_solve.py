"""Jacobi-preconditioned conjugate gradients on the 2-D Laplacian of an n x n grid, every vector and
every scalar of the iteration resident on the device. Usage: pcg_solve.py [n] (default 32).

The loop body uploads nothing and downloads one 8-byte scalar per iteration: r.r, for the
convergence test. The scalars r.z and p.Ap are 0-d DualViews that the kernels leave on the device,
and the fused updates (K.cg_step, K.cg_precondition, K.cg_direction) take their step lengths as
quotients of them there, each update one pass over its vectors."""
import sys

import numpy

import lapis
import lapis.kernels as K
from _example import finish, main
from _sparse import csr_matvec, laplacian_2d

TOLERANCE = 1e-10  # on |r| / |b|


def pcg(spmv, dinv, b, x, max_iterations, tolerance=TOLERANCE, dot=K.dot, p=None, sum_over_ranks=None):
    """Solves A x = b in place of x (a DualView; the other vectors DualViews or numpy arrays);
    returns (iterations, the loop's TransferStats). tolerance=0 runs max_iterations (benchmarks).
    `dot` is called as K.dot is and `sum_over_ranks(s)`, if given, sums a 0-d DualView over the
    ranks in place (a distributed solver passes both); `p`, if given, is the DualView the search
    direction lives in (a distributed spmv reads it with halos)."""
    scalar = lambda: lapis.empty(())  # noqa: E731 - a 0-d result that stays on the device
    summed = sum_over_ranks or (lambda s: None)
    r = K.subtract(b, spmv(x))
    z = K.multiply(dinv, r)
    p = z.copy() if p is None else K.multiply(z, 1.0, out=p)
    rz, rz_next, pap, rr = (scalar() for _ in range(4))
    Ap = lapis.empty(b.shape)
    threshold = tolerance ** 2 * dot(b, b)
    dot(r, z, out=rz)
    with lapis.count_transfers() as loop:
        iteration = 0
        while iteration < max_iterations:
            iteration += 1
            spmv(p, out=Ap)
            dot(p, Ap, out=pap)
            K.cg_step(rz, pap, p, Ap, x, r, rr)          # x += alpha p; r -= alpha Ap; rr = r.r
            summed(rr)
            if rr.asnumpy() < threshold:                 # the loop's one download: 8 bytes
                break
            K.cg_precondition(dinv, r, z, rz_next)       # z = dinv r; rz_next = r.z
            summed(rz_next)
            K.cg_direction(z, rz_next, rz, p)            # p = z + (rz_next / rz) p
            rz, rz_next = rz_next, rz
    return iteration, loop.stats


def numpy_pcg(indptr, indices, data, dinv, b, max_iterations):
    x = numpy.zeros_like(b)
    r = b.copy()
    z = dinv * r
    p = z.copy()
    rz = r @ z
    for _ in range(max_iterations):
        Ap = csr_matvec(indptr, indices, data, p)
        alpha = rz / (p @ Ap)
        x += alpha * p
        r -= alpha * Ap
        if r @ r < TOLERANCE ** 2 * (b @ b):
            break
        z = dinv * r
        rz, rz_old = r @ z, rz
        p = z + rz / rz_old * p
    return x


def run():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 32
    indptr, indices, data = laplacian_2d(n)
    b = numpy.sin(numpy.arange(n * n) + 1.0)
    dinv = 1.0 / data[indices == numpy.repeat(numpy.arange(n * n), numpy.diff(indptr))]
    with lapis.count_transfers() as t:
        matrix = (lapis.DualView(indptr), lapis.DualView(indices), lapis.DualView(data))
        for array in matrix:
            array.sync_device()                          # the matrix goes up once

        def spmv(v, out=None):
            return K.spmv(*matrix, v, shape=(n * n, n * n), out=out)

        x = lapis.zeros(n * n)
        iterations, loop = pcg(spmv, lapis.DualView(dinv), lapis.DualView(b), x, max_iterations=10 * n)
        host = x.asnumpy()
    print(f"{n * n} unknowns, {iterations} iterations; the loop moved {loop.h2d_bytes} bytes up and "
          f"{loop.d2h_count} scalars down ({loop.d2h_bytes} bytes: r.r for the convergence test)")
    expected = numpy_pcg(indptr, indices, data, dinv, b, max_iterations=10 * n)
    residual = numpy.linalg.norm(b - csr_matvec(indptr, indices, data, host)) / numpy.linalg.norm(b)
    print(f"relative residual |b - A x| / |b| = {residual:.2e}")
    return finish(f"pcg_solve ({n} x {n} Laplacian)", host, expected, t, rtol=1e-8)


if __name__ == "__main__":
    main(run)
