"""Strong scaling of examples/mpi_cg.py on this machine: the same 2-D Laplacian solved on 1, 2 and 4
ranks (one OpenMP thread each on a CPU; on a GPU the ranks share it), its time per iteration and
the bytes that cross per iteration on rank 0 (MPI halo messages, lapis's copies between host and
device), the median of 3 runs each. Usage: mpi_cg_scaling.py [n] [ranks ...] (default 300 and
1 2 4). Prints JSON; needs mpiexec and mpi4py."""
import json
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import sys

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"
LINE = re.compile(r"\[\d+,0\]<stdout>: ?rank 0 of (\d+) .*?: (\d+) iterations, ([\d.]+) us each; per product MPI sent "
                  r"(\d+) and received (\d+) halo bytes; (\d+) scalars summed; in the loop lapis copied (\d+) bytes up "
                  r"and (\d+) down per iteration")


def run(ranks, n):
    launcher = [shutil.which("mpiexec"), "-n", str(ranks), "--oversubscribe", "--tag-output"]
    if os.geteuid() == 0:
        launcher.append("--allow-run-as-root")
    out = subprocess.run(launcher + [sys.executable, "mpi_cg.py", str(n)], capture_output=True, text=True,
                         timeout=600, cwd=EXAMPLES, env=dict(os.environ, OMP_NUM_THREADS="1"), check=True).stdout
    match = LINE.search(out)
    if match is None:
        raise RuntimeError(f"mpi_cg.py printed no figures for rank 0:\n{out}")
    _, iterations, us, sent, received, _, up, down = match.groups()
    return {"iterations": int(iterations), "us_per_iteration": float(us), "halo_bytes_sent": int(sent),
            "halo_bytes_received": int(received), "h2d_bytes_per_iteration": int(up),
            "d2h_bytes_per_iteration": int(down)}


def main(n, rank_counts):
    rows = []
    for ranks in rank_counts:
        runs = [run(ranks, n) for _ in range(3)]
        row = dict(runs[0], ranks=ranks, us_per_iteration=statistics.median(r["us_per_iteration"] for r in runs))
        rows.append(row)
    print(json.dumps({"n": n, "rows": rows}, indent=1))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300, [int(a) for a in sys.argv[2:]] or [1, 2, 4])
