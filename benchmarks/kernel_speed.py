"""Kernel speed next to the libraries people would use instead, in one run: lapis.kernels on
resident DualViews (inputs on the device, `out` preallocated, each call fenced) against numpy and
scipy on this CPU, or, on a CUDA build with a GPU, torch (TF32 off, as lapis computes in full
precision) and cupy for sparse. Rounds alternate between the contenders; each round times a block
of calls after one untimed call (which absorbs the other library's threads going idle); the figure
is the median over rounds. Prints JSON: one row per kernel, size and dtype.
Usage: kernel_speed.py [--quick]"""
import json
import os
import pathlib
import statistics
import sys
import time

# Two OpenBLAS copies share this process (numpy's, and the one lapis reaches through Kokkos Kernels),
# and OpenBLAS keeps its threads spinning for about 0.1 s after each call: taken in turns, each
# library would run while the other's threads still spin on the same cores (half speed measured on
# 2 cores). A short timeout makes both sleep at once. Read when OpenBLAS loads: set before imports.
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")

import numpy  # noqa: E402

import lapis  # noqa: E402
import lapis.kernels as K  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "examples"))
from _resnet import NumpyOps  # noqa: E402

ON_GPU = lapis.runtime_info()["execution_space"] == "Cuda"
ROUNDS = 5
BLOCK_SECONDS = 0.05
# A pause before every block: after a call, a library's idle worker threads keep spinning for a
# while (OpenBLAS's, numpy's BLAS, for 2^28 cycles, about 0.1 s, by default), and on a machine of
# few cores they take the cores from whatever runs next. Measured here at 8M elements, lapis's dot
# took 4.2-4.5 ms right after numpy's and 2.7-2.9 ms after a 0.3 s pause (numpy's: 2.6-2.9 ms).
# Every contender starts its block with the others' threads asleep.
IDLE_SECONDS = 0.25
# Untimed calls at the start of every block: after the pause the first calls of either library run
# slow while the idle cores come back up (8M dot here: lapis's first five took 5.4, 5.0, 4.0, 3.0
# and 2.5 ms before settling at 1.9; numpy's first four 3.9, 3.7, 2.6 and 2.0 before 2.0).
WARM_UP_SECONDS = 0.02
# ResNet-18's convolutions on a 224x224 image: (C, H) in, (K, kernel, stride, padding)
RESNET_CONVS = [("conv1", (3, 224), (64, 7, 2, 3)), ("layer1", (64, 56), (64, 3, 1, 1)),
                ("layer2", (64, 56), (128, 3, 2, 1)), ("layer3", (128, 28), (256, 3, 2, 1)),
                ("layer4", (256, 14), (512, 3, 2, 1)), ("layer4 3x3", (512, 7), (512, 3, 1, 1))]
CONV_BATCH = 8


def timed_block(call):
    """Seconds per call of `call`, over a block of calls lasting about BLOCK_SECONDS, after
    WARM_UP_SECONDS of untimed calls."""
    warm_until = time.perf_counter() + WARM_UP_SECONDS
    call()
    while time.perf_counter() < warm_until:
        call()
    started = time.perf_counter()
    call()
    once = time.perf_counter() - started
    reps = max(1, int(BLOCK_SECONDS / max(once, 1e-7)))
    started = time.perf_counter()
    for _ in range(reps):
        call()
    return (time.perf_counter() - started) / reps


def compare(contenders, rounds):
    """name -> median seconds per call, the contenders taken in turns every round."""
    times = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, call in contenders.items():
            time.sleep(IDLE_SECONDS)
            times[name].append(timed_block(call))
    return {name: statistics.median(values) for name, values in times.items()}


def fenced(call):
    def run():
        call()
        lapis.fence()
    return run


def resident(array):
    dv = lapis.DualView(array, copy=True)
    dv.sync_device()
    return dv


class Peer:
    """The library lapis is compared with: numpy/scipy here, torch/cupy on a GPU."""

    def __init__(self):
        if ON_GPU:
            import torch
            torch.backends.cuda.matmul.allow_tf32 = False
            torch.backends.cudnn.allow_tf32 = False
            self.torch = torch

    def name(self, kernel):
        if not ON_GPU:
            return {"spmv": "scipy", "conv2d_nchw": "numpy (im2col: sliding windows, einsum)",
                    "copy": "numpy.copyto"}.get(kernel, "numpy")
        return {"spmv": "cupy (cuSPARSE)", "copy": "torch (Tensor.copy_)"}.get(kernel, "torch")

    def array(self, a):
        return self.torch.as_tensor(a).cuda() if ON_GPU else a

    def synchronized(self, call):
        if not ON_GPU:
            return call

        def run():
            call()
            self.torch.cuda.synchronize()
        return run


def dense_rows(peer, rng, quick):
    rows = []
    sizes = ([512, 2048] if quick else [512, 2048, 4096]) if ON_GPU else ([256] if quick else [256, 1024])
    for dtype in (numpy.float64, numpy.float32):
        for n in sizes:
            a, b = (rng.standard_normal((n, n)).astype(dtype) for _ in range(2))
            A, B, C = resident(a), resident(b), lapis.empty((n, n), dtype)
            pa, pb, pc = peer.array(a), peer.array(b), peer.array(numpy.empty((n, n), dtype))
            matmul = peer.torch.matmul if ON_GPU else numpy.matmul
            times = compare({"lapis": fenced(lambda: K.gemm(A, B, out=C)),
                             "peer": peer.synchronized(lambda: matmul(pa, pb, out=pc))}, ROUNDS)
            rows.append(row("gemm", f"{n}^3", dtype, times, peer.name("gemm"), flops=2 * n ** 3))
        batch, n = (64, 256) if ON_GPU else (32, 96)
        a, b = (rng.standard_normal((batch, n, n)).astype(dtype) for _ in range(2))
        A, B, C = resident(a), resident(b), lapis.empty((batch, n, n), dtype)
        pa, pb, pc = peer.array(a), peer.array(b), peer.array(numpy.empty((batch, n, n), dtype))
        matmul = peer.torch.matmul if ON_GPU else numpy.matmul
        times = compare({"lapis": fenced(lambda: K.batched_gemm(A, B, out=C)),
                         "peer": peer.synchronized(lambda: matmul(pa, pb, out=pc))}, ROUNDS)
        rows.append(row("batched_gemm", f"{batch} x {n}^3", dtype, times, peer.name("batched_gemm"),
                        flops=2 * batch * n ** 3))
    return rows


def streaming_rows(peer, rng, quick):
    """The memory-bound kernels a solver loop is made of, at 1M float64 elements (8 MiB a vector,
    held in a GPU's L2) and 8M (64 MiB): an elementwise add, a dot product into a 0-d result and the
    fused CG updates, each next to what a user of the peer writes for it (the CG updates as
    benchmarks/cg.py's torch loop has them, step lengths on the device), and a plain copy, whose rate
    is the floor each kernel's is held to. Bytes: each vector read or written once."""
    rows = []
    for n in [1 << 20] if quick else [1 << 20, 8 << 20]:
        size = f"{n:,} elements"
        x, y, z, p, r = (rng.standard_normal(n) for _ in range(5))
        X, Y, Z, P, R = (resident(a) for a in (x, y, z, p, r))
        # the step lengths' inputs stay 2 and 3 (their ratio keeps p bounded call after call); the
        # kernels' 0-d results go to U and V
        S, T, U, V = (resident(numpy.array(v)) for v in (2.0, 3.0, 0.0, 0.0))
        px, py, pz, pp, pr = (peer.array(a) for a in (x, y, z, p, r))
        ps, pt, pu, pv = (peer.array(numpy.array(v)) for v in (2.0, 3.0, 0.0, 0.0))
        if ON_GPU:
            torch = peer.torch
            copy, add, dot = (lambda: pz.copy_(px)), (lambda: torch.add(px, py, out=pz)), (lambda: torch.dot(px, py, out=pu))

            def cg_step():
                alpha = ps / pt
                px.add_(alpha * pp)
                pr.sub_(alpha * py)
                torch.dot(pr, pr, out=pu)

            def cg_precondition():
                torch.mul(py, pr, out=pz)
                torch.dot(pr, pz, out=pv)

            def cg_direction():
                pp.mul_(ps / pt).add_(pz)
        else:
            copy, add, dot = (lambda: numpy.copyto(pz, px)), (lambda: numpy.add(px, py, out=pz)), (lambda: numpy.dot(px, py, out=pu))

            def cg_step():
                alpha = ps / pt
                numpy.add(px, alpha * pp, out=px)
                numpy.subtract(pr, alpha * py, out=pr)
                numpy.dot(pr, pr, out=pu)

            def cg_precondition():
                numpy.multiply(py, pr, out=pz)
                numpy.dot(pr, pz, out=pv)

            def cg_direction():
                numpy.multiply(pp, ps / pt, out=pp)
                numpy.add(pp, pz, out=pp)
        copy_s = compare({"copy": peer.synchronized(copy)}, ROUNDS)["copy"]
        copy_gbps = 2 * 8 * n / copy_s / 1e9
        rows.append({"kernel": "copy", "size": size, "dtype": "float64", "peer": peer.name("copy"),
                     "peer_s": copy_s, "peer_gbps": copy_gbps})
        for kernel, mine, theirs, vectors in (
                ("add", lambda: K.add(X, Y, out=Z), add, 3),
                ("dot", lambda: K.dot(X, Y, out=U), dot, 2),
                ("cg_step", lambda: K.cg_step(S, T, P, Y, X, R, U), cg_step, 6),
                ("cg_precondition", lambda: K.cg_precondition(Y, R, Z, V), cg_precondition, 3),
                ("cg_direction", lambda: K.cg_direction(Z, S, T, P), cg_direction, 3)):
            times = compare({"lapis": fenced(mine), "peer": peer.synchronized(theirs)}, ROUNDS)
            rows.append(row(kernel, size, numpy.float64, times, peer.name(kernel), bytes_moved=vectors * 8 * n,
                            copy_gbps=copy_gbps))
    return rows


def laplacian(n):
    """The 5-point 2-D Laplacian on an n x n grid, as scipy CSR with int32 indices."""
    import scipy.sparse as sp
    identity = sp.identity(n, format="csr")
    line = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n), format="csr")
    return (sp.kron(identity, line) + sp.kron(line, identity)).tocsr()


def spmv_rows(peer, rng, quick):
    n = 400 if quick else 700
    m = laplacian(n)
    x = rng.standard_normal(m.shape[1])
    A, X, Y = K.CSRMatrix(m), resident(x), lapis.empty(m.shape[0])
    for array in (A.data, A.indices, A.indptr):
        array.sync_device()
    if ON_GPU:
        import cupy
        import cupyx.scipy.sparse
        pm, px = cupyx.scipy.sparse.csr_matrix(m), cupy.asarray(x)

        def peer_call():
            pm @ px
            cupy.cuda.runtime.deviceSynchronize()
    else:
        def peer_call():
            m @ x
    times = compare({"lapis": fenced(lambda: K.spmv(A, X, out=Y)), "peer": peer_call}, ROUNDS)
    # bytes a CSR product must read and write at least: values, indices, row pointers, x once, y
    moved = m.data.nbytes + m.indices.nbytes + m.indptr.nbytes + x.nbytes + m.shape[0] * 8
    return [row("spmv", f"2-D Laplacian, {m.shape[0]:,} rows", numpy.float64, times, peer.name("spmv"),
                bytes_moved=moved)]


def conv_rows(peer, rng, quick):
    rows = []
    for name, (c, size), (k, r, stride, padding) in RESNET_CONVS[:2] if quick else RESNET_CONVS:
        x = rng.standard_normal((CONV_BATCH, c, size, size)).astype(numpy.float32)
        w = rng.standard_normal((k, c, r, r)).astype(numpy.float32)
        X, W = resident(x), resident(w)
        p = (size + 2 * padding - r) // stride + 1
        out = lapis.empty((CONV_BATCH, k, p, p), numpy.float32)
        if ON_GPU:
            functional = peer.torch.nn.functional
            px, pw = peer.array(x), peer.array(w)
            peer_call = peer.synchronized(lambda: functional.conv2d(px, pw, stride=stride, padding=padding))
        else:
            def peer_call():
                NumpyOps.conv(x, w, stride, padding)
        times = compare({"lapis": fenced(lambda: K.conv2d_nchw(X, W, stride=stride, padding=padding, out=out)),
                         "peer": peer_call}, ROUNDS)
        rows.append(row("conv2d_nchw", f"ResNet-18 {name}, batch {CONV_BATCH}: {c}x{size}^2, {k} of {r}x{r}, stride {stride}",
                        numpy.float32, times, peer.name("conv2d_nchw"), flops=2 * CONV_BATCH * k * c * r * r * p * p))
    return rows


def row(kernel, size, dtype, times, peer_name, flops=None, bytes_moved=None, copy_gbps=None):
    result = {"kernel": kernel, "size": size, "dtype": numpy.dtype(dtype).name, "peer": peer_name,
              "lapis_s": times["lapis"], "peer_s": times["peer"], "peer_over_lapis": times["peer"] / times["lapis"]}
    if flops:
        result.update(lapis_gflops=flops / times["lapis"] / 1e9, peer_gflops=flops / times["peer"] / 1e9)
    if bytes_moved:
        result.update(lapis_gbps=bytes_moved / times["lapis"] / 1e9, peer_gbps=bytes_moved / times["peer"] / 1e9)
    if copy_gbps:
        result.update(copy_gbps=copy_gbps, lapis_over_copy_rate=result["lapis_gbps"] / copy_gbps)
    return result


def main():
    quick = "--quick" in sys.argv[1:]
    peer, rng = Peer(), numpy.random.default_rng(2026)
    rows = (dense_rows(peer, rng, quick) + streaming_rows(peer, rng, quick) + spmv_rows(peer, rng, quick)
            + conv_rows(peer, rng, quick))
    print(json.dumps({"device": lapis.runtime_info()["execution_space"], "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
