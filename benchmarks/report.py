"""Runs the benchmark suites and writes the report: a Markdown table per workload (strategy, size,
copies and bytes per call, time per call), the sync bandwidth both ways, the Python-facade
overhead, allocating calls, numpy arrays to and from the device, the seed workloads (CG, ResNet-18)
and PNG plots (bytes moved and time per call vs size, one line per strategy).

Usage: report.py TRANSFERS_BINARY --out DIR [--short]
--short runs each benchmark briefly, leaves out the seed workloads and the plots, and prints the
transfer table (the main job)."""
import argparse
import collections
import importlib.util
import json
import os
import pathlib
import platform
import shutil
import subprocess
import sys
import textwrap

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import gbench  # noqa: E402
WORKLOADS = ["gemm_no_alloc", "batched_gemm_no_alloc", "spmv_noalloc", "spmm_dcsr_noalloc", "chained_pipeline"]
STRATEGIES = ["naive", "kokkos_dualview", "lapis", "lapis_pinned"]
# What the size n of each workload's rows is (benchmarks/transfers.cpp).
SIZES = {
    "gemm_no_alloc": "(n, n) @ (n, n) into the caller's (n, n) host array",
    "batched_gemm_no_alloc": "8 products (n, n) @ (n, n) into the caller's (8, n, n) host array",
    "spmv_noalloc": "an n x n banded CSR matrix (8 nonzeros per row) times a vector of n, into the caller's host vector",
    "spmm_dcsr_noalloc": "an n x n banded doubly compressed matrix times an (n, 16) matrix, into the caller's host array",
    "chained_pipeline": "gemm -> matadd -> gemm on (n, n) matrices, only the final result read on the host",
}


def explanation(simulated):
    """The paragraph every printout of the tables carries: what the strategies and sizes are and how
    to read the copy counts."""
    text = ("Copies are counted per call through Kokkos's deep_copy Tools callback, the same way for every "
            "strategy, after one untimed call (so inputs that stay resident count as uploaded at set-up). "
            "`naive` copies every input up and every output down on every call (LAPIS before DualViews); "
            "`kokkos_dualview` is Kokkos::DualView with careful modify/sync; `lapis` is lapis::DualView "
            "with its default policies, `lapis_pinned` with PinnedHost. Each workload's result is read on the "
            "host after every call (a no-alloc kernel writing into the caller's array), so one download per call "
            "is the least any strategy can do where the sides are apart; the inputs stay resident.")
    if simulated:
        text += (" On this CPU build lapis runs on its simulated device (device side kept apart, so every copy "
                 "is real), while Kokkos::DualView cannot be told to keep its sides apart: it aliases them, "
                 "so its rows show no copies here. Its comparison with lapis matters on a GPU: "
                 "docs/cuda/benchmarks.md has the same tables from an NVIDIA GPU.")
    return text


def run_suite(binary, short, repetitions):
    return gbench.run(binary, 0.005, repetitions=1) if short else gbench.run(binary, 0.2, repetitions=repetitions)


def run_python_benchmark(script, simulated, *args):
    """The JSON that benchmarks/`script` prints, run on the simulated or the default device."""
    env = dict(os.environ, LAPIS_DEVICE="simulated" if simulated else "default")
    out = subprocess.run([sys.executable, str(HERE / script), *args], stdout=subprocess.PIPE, text=True,
                         check=True, env=env).stdout
    return json.loads(out)


def gpu_description():
    """", GPU <model>, driver <version>, CUDA <version>" where nvidia-smi answers; "" elsewhere."""
    try:
        query = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                               capture_output=True, text=True, timeout=30)
        header = subprocess.run(["nvidia-smi"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""
    if query.returncode != 0 or not query.stdout.strip():
        return ""
    name, driver = (field.strip() for field in query.stdout.splitlines()[0].split(","))
    cuda = next((line.split("CUDA Version:")[1].split()[0] for line in header.splitlines() if "CUDA Version:" in line), "?")
    return f", GPU {name}, driver {driver}, CUDA {cuda}"


def allocating_table(figures, cpp_rows):
    """lapis's allocating calls (pooled, with LAPIS_POOL=0, and the same calls from C++ through
    Google Benchmark) beside the other libraries measured."""
    others = [library for library in ("numpy", "torch", "cupy") if f"{library}_add_1_us" in figures]
    cpp = {(name, size): time_us(row) for name, size, row in cpp_rows}
    lines = ["| call | lapis | lapis, LAPIS_POOL=0 | lapis from C++ | " + " | ".join(others) + " | lapis / "
             + others[0] + " |", "|---|---:|---:|---:|" + "---:|" * len(others) + "---:|"]
    calls = (("matadd_1", "add_1", ("matadd_cpp", 1), "`K.matadd(a, b)`, 1 float32 element, result dropped"),
             ("matadd_1M", "add_1M", ("matadd_cpp", 1 << 20), "`K.matadd(a, b)`, 1M float32 elements, result dropped"),
             ("zeros_1MiB", "zeros_1MiB", ("zeros_1MiB_cpp", 0), "`zeros` of 1 MiB, allocated and freed"))
    for lapis_call, other_call, cpp_call, text in calls:
        lapis_us = figures[f"lapis_{lapis_call}_us"]
        row = [text, f"{lapis_us:.2f}", f"{figures['unpooled'][f'lapis_{lapis_call}_us']:.2f}", f"{cpp[cpp_call]:.2f}"]
        row += [f"{figures[f'{library}_{other_call}_us']:.2f}" for library in others]
        row.append(f"{lapis_us / figures[f'{others[0]}_{other_call}_us']:.2f}")
        lines.append("| " + " | ".join(row) + " |")
    return lines


COPY_SIZES = ("64KiB", "256KiB", "1MiB", "16MiB", "256MiB")
NO_ALLOC_WORKLOADS = ("gemm_no_alloc", "batched_gemm_no_alloc", "spmv_noalloc", "spmm_dcsr_noalloc")
REPLAYED_CALL_TARGET_US = 0.25  # the graph issue's, for a CPU build: a GPU's replays wait on its kernels


def numpy_copies_table(figures):
    """GB/s of copies of a numpy array each way: lapis through one DualView, through a new one at
    every call, its first copy, lapis with nothing registered, and the other libraries measured; then
    the numpy -> numpy matadd."""
    others = [name for name in ("cuda_memcpy", "cuda_memcpy_pinned", "torch", "cupy")
              if f"{name}_upload_1MiB_us" in figures]
    baseline = "cuda_memcpy_pinned" if "cuda_memcpy_pinned" in others else None
    columns = ["copy", "bytes", "lapis", "lapis, new DualView each call", "lapis, first copy", "lapis, unregistered",
               *others, f"lapis / {baseline or 'unregistered'}"]
    lines = ["| " + " | ".join(columns) + " |", "|---|" + "---:|" * (len(columns) - 1)]
    for way in ("upload", "download"):
        for size in COPY_SIZES:
            rate = lambda name, source=figures: source[f"{name}_{way}_{size}_GBps"]  # noqa: E731
            unregistered = rate("lapis", figures["unregistered"])
            row = [way, size, f"{rate('lapis'):.2f}", f"{rate('lapis_new'):.2f}", f"{rate('lapis_first'):.2f}",
                   f"{unregistered:.2f}"]
            row += [f"{rate(name):.2f}" for name in others]
            row.append(f"{(rate(baseline) if baseline else unregistered) / rate('lapis'):.2f}")  # a time ratio
            lines.append("| " + " | ".join(row) + " |")
    matadd = [name for name in ("torch", "cupy") if f"{name}_matadd_numpy_8MB_us" in figures]
    lines += ["", "| numpy -> numpy `K.matadd(a, b, out=c)`, 8 MB float64 arrays | us per call |", "|---|---:|",
              f"| lapis | {figures['lapis_matadd_numpy_8MB_us']:,.1f} |",
              f"| lapis, unregistered | {figures['unregistered']['lapis_matadd_numpy_8MB_us']:,.1f} |"]
    lines += [f"| {name} (`.cuda()`, add, copy back) | {figures[f'{name}_matadd_numpy_8MB_us']:,.1f} |"
              for name in matadd]
    return lines


def copy_target_rows(copies, table):
    """The link-speed issue's targets on a GPU: a borrowed numpy array's copies against the driver's
    pinned cudaMemcpy (kept and new DualViews), its first copy against the pageable cudaMemcpy, and
    the seed's no-alloc workloads on pageable memory against the same on a pinned host side."""
    rows = []
    for way in ("upload", "download"):
        for size in COPY_SIZES[1:]:
            us = lambda name: copies[f"{name}_{way}_{size}_us"]  # noqa: E731
            rows += [(f"{way} of a borrowed numpy array, {size}, later copies", us("lapis"),
                      us("cuda_memcpy_pinned"), "pinned cudaMemcpy", 1.15),
                     (f"{way} of a numpy array given anew at each call, {size}", us("lapis_new"),
                      us("cuda_memcpy_pinned"), "pinned cudaMemcpy", 1.15),
                     (f"{way} of a numpy array, {size}, its first copy", us("lapis_first"), us("cuda_memcpy"),
                      "pageable cudaMemcpy", 1.0 if size in ("16MiB", "256MiB") else None)]
    for workload in NO_ALLOC_WORKLOADS:
        pinned = {size: time_us(row) for strategy, size, row in table[workload] if strategy == "lapis_pinned"}
        rows += [(f"{workload} {size:,}, pageable host side", time_us(row), pinned[size], "lapis_pinned", 1.15)
                 for strategy, size, row in table[workload] if strategy == "lapis"]
    return rows


def workload_lines(cg, resnet):
    """The CG and ResNet-18 benchmarks (benchmarks/cg.py, benchmarks/resnet18.py) as tables."""
    lines = [f"Jacobi-preconditioned CG on the 2-D Laplacian with {cg['rows']:,} rows and {cg['nonzeros']:,} "
             f"nonzeros, {cg['iterations']} iterations (tolerance 0), median of 5 runs; bytes moved by lapis in the "
             "loop, per iteration (the one download is r.r for the convergence test):", "",
             "| library | us per iteration | bytes up per iteration | bytes down per iteration |", "|---|---:|---:|---:|",
             f"| lapis | {cg['lapis']['us_per_iteration']:,.1f} | {cg['lapis']['h2d_bytes_per_iteration']:,.0f} | "
             f"{cg['lapis']['d2h_bytes_per_iteration']:,.0f} |",
             f"| lapis, one iteration replayed from a `lapis.graph()` ({cg['lapis_graph']['replay_mode']}; replays "
             f"queued back to back, the first, {cg['lapis_graph']['first_replay_us']:,.0f} us with its capture, apart) | "
             f"{cg['lapis_graph']['us_per_iteration']:,.1f} | 0 | 0 |",
             f"| the memory floor: {cg['memory_floor']['bytes_per_iteration']:,} bytes at "
             f"{cg['memory_floor']['stream_GBps']:,.0f} GB/s ({cg['memory_floor']['stream_kernel']}, the fastest "
             "streaming kernel measured, calls queued back to back) | "
             f"{cg['memory_floor']['us_per_iteration']:,.1f} | | |"]
    lines += [f"| {name} | {cg[name]['us_per_iteration']:,.1f} | | |" for name in ("cupy", "torch")
              if isinstance(cg.get(name), dict)]
    lines += ["", f"ResNet-18 inference on generated weights, a batch of {resnet['batch']} images of "
              f"{resnet['image_size']}x{resnet['image_size']}, host images to host logits, median of 5 runs:", "",
              "| library | ms per inference |", "|---|---:|", f"| lapis | {resnet['lapis_ms']:,.2f} |",
              f"| lapis, the forward pass replayed from a `lapis.graph()` | {resnet['lapis_replayed_ms']:,.2f} |"]
    if "numpy_ms" in resnet:
        lines += [f"| numpy (the same network, convolutions as im2col: sliding windows and one einsum product) "
                  f"| {resnet['numpy_ms']:,.2f} |", "",
                  f"lapis / numpy: {resnet['lapis_over_numpy']:.2f}x (taken in turns); largest logit difference "
                  f"{resnet['max_abs_difference']:.3g}."]
    if "torch_eager_ms" in resnet:
        lines += [f"| torch eager (torchvision resnet18, same weights) | {resnet['torch_eager_ms']:,.2f} |",
                  f"| torch, the model replayed from a `torch.cuda.graph` | {resnet['torch_graph_ms']:,.2f} |", "",
                  f"lapis / torch: {resnet['lapis_over_torch']:.1f}x; largest logit difference "
                  f"{resnet['max_abs_difference']:.3g} (torch's convolutions use TF32 by default)."]
    return lines


def streaming_target_rows(speed):
    """Each streaming kernel's time against the peer's, and against a plain copy moving the same
    bytes at its measured rate (0.95 of that rate is 1/0.95 of its time)."""
    rows = []
    for r in speed["rows"]:
        if "copy_gbps" in r:
            probe = f"{r['kernel']}, {r['size']}"
            rows += [(probe, 1e6 * r["lapis_s"], 1e6 * r["peer_s"], r["peer"], 1.0),
                     (probe, 1e6 * r["lapis_s"], 1e6 * r["lapis_s"] * r["lapis_over_copy_rate"],
                      "a plain copy, same bytes", round(1 / 0.95, 3))]
    return rows


def graph_target_rows(on_gpu, cg, resnet_1):
    """The graph issue's targets: a replayed PCG iteration against the memory floor (and torch), and
    on a GPU ResNet-18 at batch 1 replayed against torch eager and torch's own CUDA graph."""
    replayed = cg["lapis_graph"]["us_per_iteration"]
    probe = f"Jacobi-PCG per iteration, {cg['rows']:,} rows, replayed"
    rows = [(probe, replayed, cg["memory_floor"]["us_per_iteration"], "the memory floor", 1.25)]
    if on_gpu and isinstance(cg.get("torch"), dict):
        rows.append((probe, replayed, cg["torch"]["us_per_iteration"], "torch", 0.45))
    if on_gpu and "torch_graph_ms" in resnet_1:
        probe = f"ResNet-18 batch {resnet_1['batch']}, host to host, replayed"
        rows += [(probe, 1e3 * resnet_1["lapis_replayed_ms"], 1e3 * resnet_1["torch_eager_ms"], "torch eager", 0.5),
                 (probe, 1e3 * resnet_1["lapis_replayed_ms"], 1e3 * resnet_1["torch_graph_ms"],
                  "torch, `torch.cuda.graph`", 1.0)]
    return rows


def target_lines(on_gpu, table, overhead, allocating, speed, cg, resnet, resnet_1, copies):
    """The speed targets that the project's speed and graph issues set, each measured in this run:
    lapis's time over the peer's (below 1: lapis is faster), the target, and whether it holds."""
    rows = []  # (probe, lapis, peer, lapis time / peer time, target)
    convolutions = [r for r in speed["rows"] if r["kernel"] == "conv2d_nchw"]
    if on_gpu:
        sync = {(strategy, way): time_us(row) for way in ("upload", "download") for strategy, size, row in table[way]
                if size == 8}
        rows += [("no-alloc `K.matadd(a, b, out=c)`, 1 element, queued, from Python", overhead["lapis_matadd_us"],
                  overhead["torch_add_us"], "torch", 0.95),
                 ("allocating `K.matadd(a, b)`, 1 element", allocating["lapis_matadd_1_us"],
                  allocating["torch_add_1_us"], "torch", 0.9)]
        rows += [(f"one 8-byte sync of a pageable numpy array, {way}", sync[("lapis_pageable", way)],
                  sync[("cuda_memcpy_pageable", way)], "cudaMemcpy", 1.2) for way in ("upload", "download")]
        rows += copy_target_rows(copies, table)
        peer = "torch (cuDNN)"
    else:
        rows.append(("no-alloc `K.matadd(a, b, out=c)`, 1 element, from Python", overhead["lapis_matadd_us"],
                     overhead["numpy_add_us"], "numpy", 3.0))
        rows += [("the same call on numpy arrays in and out", overhead["lapis_matadd_numpy_us"],
                  overhead["lapis_matadd_us"], "lapis, resident", 1.5),
                 ("the same call on DualViews borrowing numpy arrays", overhead["lapis_matadd_borrowed_us"],
                  overhead["lapis_matadd_us"], "lapis, resident", 1.1)]
        peer = "numpy"
    rows += streaming_target_rows(speed)
    rows += [(f"conv2d {r['size'].split(':')[0].removeprefix('ResNet-18 ')}", 1e6 * r["lapis_s"], 1e6 * r["peer_s"],
              peer, 1.5 if on_gpu else None) for r in convolutions]
    if on_gpu:
        rows.append((f"ResNet-18 batch {resnet['batch']}, host to host", 1e3 * resnet["lapis_ms"],
                     1e3 * resnet["torch_eager_ms"], "torch eager", 1.3))
        if isinstance(cg.get("torch"), dict):
            rows.append((f"Jacobi-PCG per iteration, {cg['rows']:,} rows", cg["lapis"]["us_per_iteration"],
                         cg["torch"]["us_per_iteration"], "torch", 0.7))
    rows += graph_target_rows(on_gpu, cg, resnet_1)
    lines = ["Each target of the speed and graph issues, lapis's time over the peer's from the figures above (below 1: lapis "
             "takes less time):", "",
             "| probe | lapis (us) | peer | peer (us) | lapis / peer | target | holds |", "|---|---:|---|---:|---:|---:|---|"]
    for probe, mine, theirs, name, target in rows:
        ratio = mine / theirs
        verdict = "-" if target is None else ("yes" if ratio <= target else "no")
        lines.append(f"| {probe} | {mine:,.2f} | {name} | {theirs:,.2f} | {ratio:.2f} | "
                     f"{'-' if target is None else f'<= {target:g}'} | {verdict} |")
    return lines


def replay_lines(replay, on_gpu):
    """benchmarks/graph_replay.py as a table, with the graph issue's target for a replayed call on
    a CPU build."""
    holds = "yes" if replay["replayed_us_per_call"] <= REPLAYED_CALL_TARGET_US else "no"
    target = ("" if on_gpu else f" Target: a replayed call <= {REPLAYED_CALL_TARGET_US} us on a CPU build; "
              f"holds: {holds}.")
    return [f"A sequence of {replay['calls']} one-element kernel calls on resident DualViews, made from Python and "
            "replayed from a `lapis.graph()`, each sequence followed by `lapis.fence()`; microseconds per call, taken "
            f"in turns (replay mode: {replay['replay_mode']}):", "",
            "| calls | us per call |", "|---|---:|",
            f"| from Python | {replay['python_us_per_call']:.2f} |",
            f"| replayed | {replay['replayed_us_per_call']:.2f} |", "",
            f"Replayed / from Python: {replay['replayed_over_python']:.2f}.{target}"]


def scaling_lines(scaling, on_gpu):
    """The strong-scaling run of examples/mpi_cg.py (benchmarks/mpi_cg_scaling.py) as a table."""
    n = scaling["n"]
    sharing = "all sharing the one GPU" if on_gpu else "one OpenMP thread each, on this machine's cores"
    lines = [f"examples/mpi_cg.py on the 2-D Laplacian of a {n} x {n} grid ({n * n:,} unknowns), its grid rows split "
             f"among the ranks ({sharing}), halos exchanged host-staged through "
             "lapis.mpi; rank 0's time per iteration, median of 3 runs, and the bytes that cross per iteration on "
             "rank 0 (its one neighbour's halo row each way, and the three summed scalars):", "",
             "| ranks | us per iteration | speed-up | MPI halo bytes sent / received | lapis bytes up / down |",
             "|---:|---:|---:|---:|---:|"]
    base = scaling["rows"][0]["us_per_iteration"]
    for r in scaling["rows"]:
        lines.append(f"| {r['ranks']} | {r['us_per_iteration']:,.1f} | {base / r['us_per_iteration']:.2f}x | "
                     f"{r['halo_bytes_sent']:,} / {r['halo_bytes_received']:,} | {r['h2d_bytes_per_iteration']:,} / "
                     f"{r['d2h_bytes_per_iteration']:,} |")
    return lines


def kernel_speed_lines(speed):
    """The kernel-speed comparison (benchmarks/kernel_speed.py) as a table."""
    lines = ["lapis.kernels on resident DualViews (`out` preallocated, each call fenced) next to the library a "
             "user would call instead, taken in turns, medians of 5 rounds; each block of calls starts 0.25 s after "
             "the last, once the other library's idle threads have stopped spinning, and with 20 ms of untimed calls, "
             "while the cores come back up. Dense products and convolutions go "
             "through Kokkos Kernels to the vendor BLAS; spmv is lapis's own kernel, its CSR structure checked "
             "on the device in the same pass.", "",
             "| kernel | size | dtype | lapis | peer | peer | peer time / lapis time |", "|---|---|---|---:|---|---:|---:|"]
    for r in speed["rows"]:
        if r["kernel"] == "copy":
            continue
        unit, key = ("GB/s", "gbps") if "lapis_gbps" in r else ("GFLOP/s", "gflops")
        lines.append(f"| {r['kernel']} | {r['size']} | {r['dtype']} | {r['lapis_' + key]:,.1f} {unit} | {r['peer']} | "
                     f"{r['peer_' + key]:,.1f} {unit} | {r['peer_over_lapis']:.2f} |")
    lines += ["", "The streaming kernels' rates (each vector read or written once) against a plain copy's, measured "
              "in the same run (the rate no kernel that reads and writes memory can pass):", "",
              "| kernel | size | lapis | plain copy | lapis rate / copy rate |", "|---|---|---:|---:|---:|"]
    copies = {r["size"]: r for r in speed["rows"] if r["kernel"] == "copy"}
    for r in speed["rows"]:
        if "copy_gbps" in r:
            lines.append(f"| {r['kernel']} | {r['size']} | {r['lapis_gbps']:,.1f} GB/s | {r['copy_gbps']:,.1f} GB/s "
                         f"({copies[r['size']]['peer']}) | {r['lapis_over_copy_rate']:.2f} |")
    return lines


def time_us(row):
    scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[row["time_unit"]]
    return row["real_time"] * scale


def rows_by_workload(report):
    table = collections.defaultdict(list)
    for row in report["benchmarks"]:
        workload, strategy, *size = row["name"].split("/")
        table[workload].append((strategy, int(size[0]) if size else 0, row))
    return table


def transfer_tables(table):
    lines = []
    for workload in WORKLOADS:
        lines += [f"### {workload}", "", f"Size n: {SIZES[workload]}.", "",
                  "| strategy | size | h2d per call | h2d bytes per call | d2h per call | d2h bytes per call | time per call (us) |",
                  "|---|---:|---:|---:|---:|---:|---:|"]
        for strategy, size, row in sorted(table[workload], key=lambda r: (STRATEGIES.index(r[0]), r[1])):
            lines.append(f"| {strategy} | {size} | {row['h2d_count']:.0f} | {row['h2d_bytes']:,.0f} | "
                         f"{row['d2h_count']:.0f} | {row['d2h_bytes']:,.0f} | {time_us(row):,.1f} |")
        lines.append("")
    return lines


def ratio_table(table):
    """Bytes moved per call, naive vs lapis, at each workload's largest size."""
    lines = ["| workload | size | naive bytes per call | lapis bytes per call | naive / lapis |",
             "|---|---:|---:|---:|---:|"]
    for workload in WORKLOADS:
        moved = {(s, size): r["h2d_bytes"] + r["d2h_bytes"] for s, size, r in table[workload]}
        size = max(size for _, size, _ in table[workload])
        naive, lapis = moved[("naive", size)], moved[("lapis", size)]
        lines.append(f"| {workload} | {size} | {naive:,.0f} | {lapis:,.0f} | {naive / lapis:.1f}x |")
    return lines


BANDWIDTH_NOTE = ("One sync of the given bytes per iteration. `lapis_pageable` is a DualView whose host side is "
                  "ordinary (pageable) memory, as a numpy array's is: on a GPU build its copies from "
                  "`LAPIS_STAGING_MIN_BYTES` (4 MiB by default) on go through lapis's pinned staging, below that "
                  "straight through `Kokkos::deep_copy`, as `kokkos_deep_copy_pageable` does; `lapis_pinned` has a "
                  "page-locked host side. `cuda_memcpy_*` is the driver's own `cudaMemcpy`, no Kokkos, no lapis. "
                  "Where device memory is host memory nothing is staged.")


def bandwidth_table(table, way):
    lines = ["| variant | bytes | time per sync (us) | GB/s |", "|---|---:|---:|---:|"]
    for strategy, size, row in sorted(table[way], key=lambda r: (r[0], r[1])):
        lines.append(f"| {strategy} | {size:,} | {time_us(row):,.3f} | {row['bytes_per_second'] / 1e9:,.2f} |")
    return lines


def staging_gain(table, way):
    """lapis's pageable copy beside the driver's (or Kokkos's, on a CPU build) at the largest size."""
    rates = {(s, size): row["bytes_per_second"] for s, size, row in table[way]}
    size = max(size for _, size, _ in table[way])
    baseline = "cuda_memcpy_pageable" if ("cuda_memcpy_pageable", size) in rates else "kokkos_deep_copy_pageable"
    return (f"At {size:,} bytes, lapis_pageable runs at {rates[('lapis_pageable', size)] / 1e9:.2f} GB/s, "
            f"{rates[('lapis_pageable', size)] / rates[(baseline, size)]:.2f}x {baseline}.")


def plots(table, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    names = []
    # Strategies often coincide (lapis and lapis_pinned move the same bytes): each has its own marker
    # and line style and is drawn a little to the side of the others, so none hides another.
    styles = {"naive": ("o", "-"), "kokkos_dualview": ("s", "--"), "lapis": ("^", "-."), "lapis_pinned": ("D", ":")}
    for workload in WORKLOADS:
        fig, (moved, timed) = plt.subplots(1, 2, figsize=(11, 4.2))
        sizes = sorted({size for _, size, _ in table[workload]})
        any_zero = False
        for k, strategy in enumerate(STRATEGIES):
            rows = sorted((size, row) for s, size, row in table[workload] if s == strategy)
            any_zero = any_zero or any(r["h2d_bytes"] + r["d2h_bytes"] == 0 for _, r in rows)
            shift = 1.06 ** (k - (len(STRATEGIES) - 1) / 2)
            xs = [size * shift for size, _ in rows]
            marker, line = styles[strategy]
            style = dict(marker=marker, linestyle=line, label=strategy, markersize=6, alpha=0.85)
            moved.plot(xs, [r["h2d_bytes"] + r["d2h_bytes"] for _, r in rows], **style)
            timed.plot(xs, [time_us(r) for _, r in rows], **style)
        # zero bytes drawn at zero where there are any; a plain log axis otherwise, whose labels
        # stay readable over a short range (symlog labels only whole decades)
        moved.set_yscale("symlog", linthresh=1) if any_zero else moved.set_yscale("log")
        timed.set_yscale("log")
        moved_label = "bytes moved per call (0 drawn at 0)" if any_zero else "bytes moved per call"
        for axis, label in ((moved, moved_label), (timed, "time per call (us)")):
            axis.set_xscale("log")
            axis.set_xticks(sizes, [f"{size:,}" for size in sizes], rotation=30)
            axis.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
            if axis.get_yscale() == "log":  # label some minor ticks too when the range is under two decades
                axis.yaxis.set_minor_formatter(matplotlib.ticker.LogFormatterSciNotation(
                    labelOnlyBase=False, minor_thresholds=(2, 0.5)))
            axis.set_xlabel("size n")
            axis.set_ylabel(label)
            axis.grid(True, which="major", alpha=0.3)
        moved.legend(fontsize=8)
        fig.suptitle(f"{workload} (size n: {SIZES[workload]})", fontsize=10)
        fig.tight_layout()
        name = f"benchmarks_{workload}.png"
        fig.savefig(out / name, dpi=90)
        plt.close(fig)
        names.append((workload, name))
    return names


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--out", required=True, type=pathlib.Path)
    parser.add_argument("--short", action="store_true")
    parser.add_argument("--repetitions", type=int, default=5,
                        help="of each C++ benchmark in a full run, interleaved (fewer where device time is short)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    report = run_suite(args.binary, args.short, args.repetitions)
    context = report["context"]
    simulated = context.get("lapis_device", "").startswith("simulated")
    table = rows_by_workload(report)
    overhead = run_python_benchmark("python_overhead.py", simulated)
    allocating = run_python_benchmark("allocating_calls.py", simulated, "--compare-unpooled")
    copies = run_python_benchmark("pageable_copies.py", simulated, "--compare-unregistered")
    tracing = run_python_benchmark("trace_overhead.py", simulated)
    cpp_us = time_us(table["python_overhead"][0][2])
    launch = {name: time_us(row) for name, _, row in table["launch"]}

    environment = (f"Kokkos {context.get('kokkos_version')} ({context.get('kokkos_execution_space')}), device: "
                   f"{context.get('lapis_device')}{gpu_description()}; {context.get('num_cpus')} CPUs at {context.get('mhz_per_cpu')} MHz; "
                   f"{platform.system()} {platform.machine()}, Python {platform.python_version()}; "
                   f"{'short run' if args.short else f'full run, medians of {args.repetitions} interleaved repetitions,'} "
                   f"of {context.get('date')}")
    transfers = transfer_tables(table)
    lines = ["# Benchmarks", "",
             "Generated by benchmarks/report.py (`bash scripts/benchmarks.sh` on a CPU machine, "
             "`scripts/gpu-check.sh OUT_DIR` on a GPU machine); do not edit by hand.", "",
             f"Environment: {environment}.", "", explanation(simulated), ""]
    ratios = ratio_table(table)
    lines += ["## Bytes moved per call, naive vs lapis", ""] + ratios + [""]
    lines += ["## Copies and time per call", ""] + transfers
    lines += ["## Sync bandwidth", "", BANDWIDTH_NOTE, ""]
    for way, title in (("upload", "Upload (host->device)"), ("download", "Download (device->host)")):
        lines += [f"### {title}", ""] + bandwidth_table(table, way) + ["", staging_gain(table, way), ""]
    lines += ["## Python-facade overhead", "",
              "Per call, a no-alloc `matadd` on 1-element resident DualViews (no copies), same device:", "",
              "| call | us per call |", "|---|---:|",
              f"| `lapis.kernels.matadd(a, b, out=c)` from Python, queued | {overhead['lapis_matadd_us']:.2f} |",
              f"| `lapis.kernels.matadd(a, b, out=c)` from Python, then `lapis.fence()` "
              f"| {overhead['lapis_matadd_fence_us']:.2f} |",
              f"| `lapis::kernels::matadd(a, b, c)` from C++, then a fence (Google Benchmark) | {cpp_us:.2f} |",
              f"| `lapis::kernels::matadd(a, b, c)` from C++, queued (Google Benchmark) | {launch['matadd_cpp']:.2f} |",
              f"| `Kokkos::parallel_for` of one element from C++, queued: Kokkos's launch, the floor of any kernel "
              f"call | {launch['kokkos_parallel_for']:.2f} |",
              f"| `numpy.add(x, y, out=z)` | {overhead['numpy_add_us']:.2f} |"]
    for library in ("torch", "cupy"):
        if f"{library}_add_us" in overhead:
            lines += [f"| `{library}.add(x, y, out=z)` on CUDA, launch only | {overhead[library + '_add_us']:.2f} |",
                      f"| `{library}.add(x, y, out=z)` on CUDA, then synchronize | {overhead[library + '_add_sync_us']:.2f} |"]
    lines += ["",
              "A kernel call returns once its kernel is queued (on a CPU build the kernel has run by then); "
              "lapis orders its later work after it, so only timing code waits.", "",
              f"Python-facade overhead over the C++ call, both fenced: "
              f"{overhead['lapis_matadd_fence_us'] - cpp_us:.2f} us "
              f"(ratio {overhead['lapis_matadd_fence_us'] / cpp_us:.2f}); copies made during the Python timing: "
              f"{overhead['lapis_transfers']}.", ""]
    lines += ["## The trace's cost", "",
              "Microseconds per call from Python without a trace and under `lapis.trace()`, taken in turns, best of "
              "7 rounds of 5,000 calls; `events` is what each call records (a kernel call; an allocation and a "
              "free of the result; a copy). Off, the calls above pay one relaxed atomic load for it.", "",
              "| call | off | on | events per call | cost per event (us) |", "|---|---:|---:|---:|---:|"]
    for name, call in (("matadd_no_alloc", "`K.matadd(a, b, out=c)`, 1 element"),
                       ("matadd_allocating", "`K.matadd(a, b)`, 1 element, result dropped"),
                       ("sync_host", "`x.modify_device(); x.sync_host()`, 128 elements")):
        off, on, events = (tracing[f"{name}_{key}"] for key in ("off_us", "on_us", "events_per_call"))
        per_event = f"{(on - off) / events:.2f}" if events else "-"
        lines.append(f"| {call} | {off:.2f} | {on:.2f} | {events:g} | {per_event} |")
    lines += [""]
    lines += ["## Allocating calls", "",
              "Microseconds per call from Python, the best of 5 rounds of 500 calls taken in turns with the "
              "other libraries' equivalents (on CUDA arrays where a GPU is there). lapis's results come from its "
              "caching allocator; `LAPIS_POOL=0` sends every allocation to the memory space. `lapis from C++` is "
              "the same call from C++ (Google Benchmark; a `lapis::for_overwrite` result per call, its "
              "kernel queued; for zeros, a zero-filled `DualView` made and dropped). During the pooled "
              f"rounds the pool allocated {allocating['pool_allocated']} blocks from the memory space, freed "
              f"{allocating['pool_freed']} to it and served {allocating['pool_reused']:,} requests from its cache.",
              ""] + allocating_table(allocating, table["allocating"]) + [""]
    staging = copies["staging"]
    registrations = copies["registrations"]
    lines += ["## numpy arrays to and from the device", "",
              "GB/s of one sync of a DualView borrowing a numpy array (pageable memory), from Python, best of 5 "
              "rounds taken in turns: through one DualView kept from call to call, through a new DualView at "
              "every call (uploads a sync, downloads a kernel's numpy `out`, the kernel's own time taken out), "
              "and the first copy of a new array (the median of 5), which registers its memory with the driver "
              "(docs/guide/memory.md); `lapis, unregistered` is the kept DualView with "
              "`LAPIS_REGISTER_MAX_BYTES=0` (staged through pinned buffers from "
              f"{staging['min_bytes']:,} bytes on, 0: never; chunks of {staging['chunk_bytes']:,} bytes, "
              f"{staging['threads']} threads). Beside it, on a GPU: the driver's `cudaMemcpy` on a copy of the "
              "array (pageable) and on pinned memory, `torch` (`Tensor.copy_`) and `cupy` (`set`, `get`), each "
              "followed by a synchronization. The last column is a time ratio. Registrations made in the run: "
              f"{registrations['made']:,}, refused: {registrations['refused']:,}.", ""]
    lines += numpy_copies_table(copies) + [""]
    if not args.short:
        on_gpu = allocating["device"] == "Cuda"
        cg = run_python_benchmark("cg.py", simulated, *(("1000", "100") if on_gpu else ("300", "50")))
        resnet = run_python_benchmark("resnet18.py", simulated, *(("8", "224") if on_gpu else ("1", "224")))
        resnet_1 = run_python_benchmark("resnet18.py", simulated, "1", "224") if on_gpu else resnet
        replay = run_python_benchmark("graph_replay.py", simulated)
        speed = run_python_benchmark("kernel_speed.py", simulated)
        lines += ["## Kernel speed", ""] + kernel_speed_lines(speed) + [""]
        lines += ["## Seed workloads", ""] + workload_lines(cg, resnet) + [""]
        lines += ["## Record once, replay many", ""] + replay_lines(replay, on_gpu) + [""]
        lines += ["## Speed targets", ""] + target_lines(on_gpu, table, overhead, allocating, speed, cg, resnet,
                                                         resnet_1, copies) + [""]
        if shutil.which("mpiexec") and importlib.util.find_spec("mpi4py"):
            scaling = run_python_benchmark("mpi_cg_scaling.py", simulated, *(("1000", "1", "2") if on_gpu else ()))
            lines += ["## Distributed CG (MPI)", ""] + scaling_lines(scaling, on_gpu) + [""]
        lines += ["## Plots", ""] + [f"![{w}]({name})" for w, name in plots(table, args.out)] + [""]
    (args.out / "benchmarks.md").write_text("\n".join(lines))
    print(f"{environment}\n")
    print(textwrap.fill(explanation(simulated), width=100) + "\n")
    print("\n".join(transfers))
    print("\n".join(ratios) + "\n")
    print(f"Python-facade overhead: lapis {overhead['lapis_matadd_fence_us']:.2f} us vs C++ {cpp_us:.2f} us per "
          f"fenced call "
          f"(numpy.add {overhead['numpy_add_us']:.2f} us)")
    print(f"\nreport written to {args.out / 'benchmarks.md'}")


if __name__ == "__main__":
    main()
