"""Time and bytes moved per iteration of Jacobi-preconditioned CG on the 2-D Laplacian of an n x n
grid, the same matrix, right-hand side and iteration count for each: lapis (examples/pcg_solve.py,
every vector and step length resident), and where a GPU and the libraries are there CuPy
(cupyx.scipy.sparse.linalg.cg) and PyTorch (the same algorithm over a CSR tensor, scalars on the
device, .item() for the convergence test). The tolerance is 0, so each runs every iteration.
Median of ROUNDS runs. Usage: cg.py [n] [iterations]. Prints JSON."""
import json
import pathlib
import statistics
import sys
import time

import numpy

import lapis

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "examples"))
from _sparse import laplacian_2d  # noqa: E402
from pcg_solve import pcg  # noqa: E402

ROUNDS = 5


def median_seconds(run):
    run()  # warm-up: module loading, pools, caches
    times = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def lapis_cg(matrix, dinv, b, iterations):
    import lapis.kernels as K
    parts = [lapis.DualView(a) for a in matrix]
    for part in parts:
        part.sync_device()
    dinv_, b_ = lapis.DualView(dinv), lapis.DualView(b)
    dinv_.sync_device(), b_.sync_device()
    rows = len(b)
    spmv = lambda v, out=None: K.spmv(*parts, v, shape=(rows, rows), out=out)  # noqa: E731
    moved = {}

    def run():
        x = lapis.zeros(rows)
        _, loop = pcg(spmv, dinv_, b_, x, max_iterations=iterations, tolerance=0.0)
        lapis.fence()
        moved["h2d"], moved["d2h"] = loop.h2d_bytes / iterations, loop.d2h_bytes / iterations

    seconds = median_seconds(run)
    return {"us_per_iteration": 1e6 * seconds / iterations, "h2d_bytes_per_iteration": moved["h2d"],
            "d2h_bytes_per_iteration": moved["d2h"]}


def cupy_cg(matrix, dinv, b, iterations):
    import cupy
    import cupyx.scipy.sparse as sparse
    from cupyx.scipy.sparse.linalg import cg
    indptr, indices, data = matrix
    A = sparse.csr_matrix((cupy.asarray(data), cupy.asarray(indices), cupy.asarray(indptr)), shape=(len(b),) * 2)
    M = sparse.diags(cupy.asarray(dinv)).tocsr()
    b_ = cupy.asarray(b)
    tolerance = {"rtol": 0.0} if "rtol" in cg.__code__.co_varnames else {"tol": 0.0}

    def run():
        cg(A, b_, M=M, maxiter=iterations, atol=0.0, **tolerance)
        cupy.cuda.Device().synchronize()

    return {"us_per_iteration": 1e6 * median_seconds(run) / iterations}


def torch_cg(matrix, dinv, b, iterations):
    import torch
    indptr, indices, data = (torch.as_tensor(a, device="cuda") for a in matrix)
    A = torch.sparse_csr_tensor(indptr, indices, data, size=(len(b),) * 2)
    dinv_, b_ = torch.as_tensor(dinv, device="cuda"), torch.as_tensor(b, device="cuda")

    def run():
        x = torch.zeros_like(b_)
        r = b_ - A @ x
        z = dinv_ * r
        p = z.clone()
        rz = torch.dot(r, z)
        for _ in range(iterations):
            Ap = A @ p
            alpha = rz / torch.dot(p, Ap)
            x.add_(alpha * p)
            r.sub_(alpha * Ap)
            if torch.dot(r, r).item() < 0.0:  # the convergence test's one download
                break
            torch.mul(dinv_, r, out=z)
            rz_next = torch.dot(r, z)
            p.mul_(rz_next / rz).add_(z)
            rz = rz_next
        torch.cuda.synchronize()

    return {"us_per_iteration": 1e6 * median_seconds(run) / iterations}


def main(n, iterations):
    matrix = laplacian_2d(n)
    indptr, indices, data = matrix
    b = numpy.sin(numpy.arange(n * n) + 1.0)
    dinv = 1.0 / data[indices == numpy.repeat(numpy.arange(n * n), numpy.diff(indptr))]
    info = lapis.runtime_info()
    results = {"rows": n * n, "nonzeros": int(len(data)), "iterations": iterations,
               "lapis_execution_space": info["execution_space"], "lapis": lapis_cg(matrix, dinv, b, iterations)}
    if info["execution_space"] == "Cuda":
        for name, fn in (("cupy", cupy_cg), ("torch", torch_cg)):
            try:
                results[name] = fn(matrix, dinv, b, iterations)
            except ImportError as e:
                results[name] = f"not installed: {e}"
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000, int(sys.argv[2]) if len(sys.argv) > 2 else 100)
