"""lapis.mpi and lapis/mpi.hpp across processes: every operation on 2 and 4 ranks (support/mpi_programs.py),
host-staged and device to device (LAPIS_MPI_GPU_AWARE=1, which the simulated device's host-memory
device side allows here), with exact copies; random programs with a bad argument on one rank, on 2
and 3 ranks (support/mpi_fuzz.py); and the distributed CG example (Python and C++ halo exchange) against
the one-process solve. Each run has a timeout, so a rank that fails never hangs
the test run."""
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

import lapis
from conftest import SIMULATED_AVAILABLE

pytest.importorskip("mpi4py")
ROOT = pathlib.Path(__file__).parent.parent
MPIEXEC = shutil.which("mpiexec")
pytestmark = pytest.mark.skipif(MPIEXEC is None, reason="mpiexec is not installed (the test command installs Open MPI)")
DEVICES = ["default", "simulated"] if SIMULATED_AVAILABLE else ["default"]
ON_CUDA = lapis.runtime_info()["execution_space"] == "Cuda"


def mpi_says_it_is_cuda_aware():
    """Whether this MPI says it takes CUDA memory: Open MPI's ompi_info reports how it was built;
    other MPIs are taken not to."""
    if shutil.which("ompi_info") is None:
        return False
    run = subprocess.run(["ompi_info", "--parsable", "--all"], capture_output=True, text=True, timeout=60)
    return "mpi_built_with_cuda_support:value:true" in run.stdout


# A CUDA device side is device memory: LAPIS_MPI_GPU_AWARE=1 there hands MPI device pointers
DEVICE_TO_DEVICE = pytest.mark.skipif(ON_CUDA and not mpi_says_it_is_cuda_aware(),
                                      reason="this MPI is not CUDA-aware (ompi_info)")


def mpiexec(ranks, args, timeout=180, **env):
    """Runs `python args` on `ranks` ranks; returns (the completed process, each rank's stdout)."""
    launcher = [MPIEXEC, "-n", str(ranks), "--oversubscribe", "--tag-output"]
    if os.geteuid() == 0:
        launcher.append("--allow-run-as-root")
    # one OpenMP thread per rank: the ranks share the machine's cores
    environment = dict(os.environ, OMP_NUM_THREADS="1", **env)
    run = subprocess.run(launcher + [sys.executable] + args, capture_output=True, text=True, timeout=timeout,
                         env=environment, cwd=ROOT / "examples")
    # Open MPI tags each piece of output it forwards with its rank: pieces of one rank, in order, are its stream
    pieces = re.split(r"\[\d+,(\d+)\]<stdout>: ?", run.stdout)[1:]
    streams = [""] * ranks
    for rank, text in zip(pieces[::2], pieces[1::2]):
        streams[int(rank)] += text
    return run, streams


@pytest.mark.parametrize("program", ["point_to_point", "nonblocking_parts", "collectives", "bad_input",
                                     "guard_and_bare_dualviews", "polled_receives", "refused_collectives",
                                     "aliased_buffers", "refused_point_to_point", "dropped_requests",
                                     "guard_refusal_on_one_rank", "rules_shared_with_cpp"])
@pytest.mark.parametrize("gpu_aware", ["0", pytest.param("1", marks=DEVICE_TO_DEVICE)])
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("ranks", [2, 4])
def test_operations(program, gpu_aware, device, ranks):
    run, streams = mpiexec(ranks, [str(ROOT / "tests" / "support" / "mpi_programs.py"), program], LAPIS_DEVICE=device,
                           LAPIS_MPI_GPU_AWARE=gpu_aware)
    assert run.returncode == 0 and streams == ["ok\n"] * ranks, run.stdout + run.stderr


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("ranks", [2, 3])
def test_random_programs_with_a_bad_argument_on_one_rank(seed, device, ranks):
    """tests/support/mpi_fuzz.py: 60 random steps, about half with one bad argument on one rank; a hang
    fails here at the time limit instead of blocking the run."""
    run, streams = mpiexec(ranks, [str(ROOT / "tests" / "support" / "mpi_fuzz.py"), str(seed), "60"], timeout=120,
                           LAPIS_DEVICE=device)
    assert run.returncode == 0 and streams == ["ok\n"] * ranks, run.stdout + run.stderr


@pytest.mark.parametrize("halo", ["python", "module"])
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("ranks", [2, 4])
def test_distributed_cg_matches_the_one_process_solve(halo, device, ranks):
    run, streams = mpiexec(ranks, ["mpi_cg.py", "24", f"--halo={halo}"], timeout=300, LAPIS_DEVICE=device)
    assert run.returncode == 0, run.stdout + run.stderr
    for rank, stream in enumerate(streams):
        assert stream.endswith("\nOK\n"), stream
        line = stream.splitlines()[0]
        neighbours = (rank > 0) + (rank < ranks - 1)
        halo_bytes = 24 * 8 * neighbours
        assert f"per product MPI sent {halo_bytes} and received {halo_bytes} halo bytes" in line, line
        # only halos and the three summed scalars cross between host and device (r.r stays on the host)
        apart = device == "simulated" or ON_CUDA
        up, down = (halo_bytes + 16, halo_bytes + 24) if apart else (0, 0)
        assert f"lapis copied {up} bytes up and {down} down per iteration" in line, line


def test_the_setting_is_strict_and_reported():
    check = "import lapis; print(lapis.runtime_info()['mpi_gpu_aware'])"
    for value, expected in (("1", "True\n"), ("0", "False\n")):
        run = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, timeout=60,
                             env=dict(os.environ, LAPIS_MPI_GPU_AWARE=value))
        assert run.stdout == expected, run.stderr
    run = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, timeout=60,
                         env=dict(os.environ, LAPIS_MPI_GPU_AWARE="yes"))
    assert run.returncode == 1 and "LAPIS_MPI_GPU_AWARE='yes': expected 0 or 1" in run.stderr
