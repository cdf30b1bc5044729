"""Time and bytes moved per iteration of Jacobi-preconditioned CG on the 2-D Laplacian of an n x n
grid, the same matrix, right-hand side and iteration count for each: lapis (examples/pcg_solve.py,
every vector and step length resident), lapis replaying one iteration recorded in a lapis.graph(),
the memory floor (the iteration's bytes over a streaming kernel's measured rate, same run), and
where a GPU and the libraries are there CuPy
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
STREAM_CALLS = 10


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


def lapis_graph_cg(matrix, dinv, b, iterations):
    """One iteration recorded once and replayed: pcg's loop without its convergence test (tolerance
    0 runs every iteration anyway); the step lengths' ratio rz_next / rz read on the device. Timed:
    `iterations` replays queued back to back, then one fence; each round starts the solve afresh
    (outside the time) on the same DualViews, so that it replays the one graph. The first replay, which
    on a GPU captures the graph's device form, is timed apart (`first_replay_us`)."""
    import lapis.kernels as K
    parts = [lapis.DualView(a) for a in matrix]
    dinv_, b_ = lapis.DualView(dinv), lapis.DualView(b)
    for part in parts + [dinv_, b_]:
        part.sync_device()
    rows = len(b)
    x, r, z, p, Ap = (lapis.empty(rows) for _ in range(5))
    rz, rz_next, pap, rr = (lapis.empty(()) for _ in range(4))

    def start():
        x.fill(0.0)
        K.multiply(b_, 1.0, out=r)
        K.multiply(dinv_, r, out=z)
        K.multiply(z, 1.0, out=p)
        K.dot(r, z, out=rz)
        lapis.fence()

    start()
    K.spmv(*parts, p, shape=(rows, rows), out=Ap)  # the structure checked once, before the capture
    with lapis.graph() as iteration:
        K.spmv(*parts, p, shape=(rows, rows), out=Ap)
        K.dot(p, Ap, out=pap)
        K.cg_step(rz, pap, p, Ap, x, r, rr)
        K.cg_precondition(dinv_, r, z, rz_next)
        K.cg_direction(z, rz_next, rz, p)
        K.axpby(1.0, rz_next, 0.0, rz_next, out=rz)
    started = time.perf_counter()
    iteration.replay()
    lapis.fence()
    first_replay = time.perf_counter() - started
    times = []
    for _ in range(ROUNDS):
        start()
        started = time.perf_counter()
        for _ in range(iterations):
            iteration.replay()
        lapis.fence()
        times.append(time.perf_counter() - started)
    return {"us_per_iteration": 1e6 * statistics.median(times) / iterations, "first_replay_us": 1e6 * first_replay,
            "replay_mode": iteration.replay_mode}


def memory_floor(matrix, rows):
    """The bytes one iteration must move (spmv: the matrix and its two vectors; dot 2, cg_step 6,
    cg_precondition 3 and cg_direction 3 vectors) and the time they take at the rate of the fastest
    streaming kernel at hand, over 8M float64 elements: lapis's out = x * 1 and, on a GPU with
    PyTorch, torch's copy (a plain copy kernel). Each rate is the best of 20 rounds of STREAM_CALLS
    calls queued back to back, then one wait, so that a launch's latency is not counted as the
    memory's time."""
    import lapis.kernels as K
    vector = 8 * rows
    nbytes = sum(a.nbytes for a in matrix) + 2 * vector + (2 + 6 + 3 + 3) * vector
    x, out = lapis.full(8 << 20, 1.0), lapis.empty(8 << 20)
    kernels = {"lapis multiply": (lambda: K.multiply(x, 1.0, out=out), lapis.fence)}
    if lapis.runtime_info()["execution_space"] == "Cuda":
        try:
            import torch
            tx = torch.ones(8 << 20, dtype=torch.float64, device="cuda")
            tout = torch.empty_like(tx)
            kernels["torch copy"] = (lambda: tout.copy_(tx), torch.cuda.synchronize)
        except ImportError:
            pass
    best = {}
    for name, (kernel, wait) in kernels.items():
        kernel()
        wait()
        best[name] = float("inf")
        for _ in range(20):
            started = time.perf_counter()
            for _ in range(STREAM_CALLS):
                kernel()
            wait()
            best[name] = min(best[name], (time.perf_counter() - started) / STREAM_CALLS)
    fastest = min(best, key=best.get)
    rate = 2 * x.nbytes / best[fastest]
    return {"bytes_per_iteration": nbytes, "stream_GBps": rate / 1e9, "stream_kernel": fastest,
            "us_per_iteration": 1e6 * nbytes / rate}


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
               "lapis_execution_space": info["execution_space"], "lapis": lapis_cg(matrix, dinv, b, iterations),
               "lapis_graph": lapis_graph_cg(matrix, dinv, b, iterations), "memory_floor": memory_floor(matrix, n * n)}
    results["lapis_graph_over_floor"] = (results["lapis_graph"]["us_per_iteration"]
                                         / results["memory_floor"]["us_per_iteration"])
    if info["execution_space"] == "Cuda":
        for name, fn in (("cupy", cupy_cg), ("torch", torch_cg)):
            try:
                results[name] = fn(matrix, dinv, b, iterations)
            except ImportError as e:
                results[name] = f"not installed: {e}"
    if isinstance(results.get("torch"), dict):
        results["lapis_graph_over_torch"] = (results["lapis_graph"]["us_per_iteration"]
                                             / results["torch"]["us_per_iteration"])
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000, int(sys.argv[2]) if len(sys.argv) > 2 else 100)
