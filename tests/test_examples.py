"""Every example runs as a script on both devices and checks itself."""
import os
import pathlib
import subprocess
import sys

import pytest

from conftest import SIMULATED_AVAILABLE

_EXAMPLES_DIR = pathlib.Path(__file__).parent.parent / "examples"
EXAMPLES = sorted(_EXAMPLES_DIR.glob("[!_]*.py")) + sorted(_EXAMPLES_DIR.glob("*/run.py"))


@pytest.mark.parametrize("device", ["default", "simulated"])
@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.relative_to(_EXAMPLES_DIR).as_posix())
def test_example(script, device):
    if device == "simulated" and not SIMULATED_AVAILABLE:
        pytest.skip("no simulated device on this build")
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300,
                            env=dict(os.environ, LAPIS_DEVICE=device))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.rstrip().endswith("OK")
    assert result.stderr == ""


@pytest.mark.skipif(not SIMULATED_AVAILABLE, reason="no simulated device on this build")
def test_pcg_solve_loop_moves_only_its_convergence_scalar():
    # 16 x 16 grid: the loop downloads r.r (8 bytes) once per iteration and uploads nothing; the
    # matrix (3 arrays), dinv and b go up once, x comes down once
    result = subprocess.run([sys.executable, str(_EXAMPLES_DIR / "pcg_solve.py"), "16"], capture_output=True,
                            text=True, timeout=300, env=dict(os.environ, LAPIS_DEVICE="simulated"))
    assert result.returncode == 0, result.stdout + result.stderr
    iterations = int(result.stdout.split(" iterations;")[0].split()[-1])
    assert iterations > 10
    assert (f"the loop moved 0 bytes up and {iterations} scalars down ({8 * iterations} bytes: r.r"
            in result.stdout)
    matrix_bytes = 8 * 257 + 8 * 1216 + 8 * 1216  # indptr, indices, data of the 16 x 16 Laplacian
    up = matrix_bytes + 2 * 8 * 256                # and dinv, b
    down = 8 * iterations + 8 * 256                # r.r each iteration, then x
    assert (f"host->device: 5 copies, {up} bytes; device->host: {iterations + 1} copies, {down} bytes"
            in result.stdout)


@pytest.mark.skipif(not SIMULATED_AVAILABLE, reason="no simulated device on this build")
@pytest.mark.parametrize("script,batches", [("resnet18_static.py", [2, 2, 2]), ("resnet18_dynamic.py", [1, 3, 2])])
def test_resnet18_moves_weights_once_and_per_inference_only_images_and_logits(script, batches):
    result = subprocess.run([sys.executable, str(_EXAMPLES_DIR / script), "32"], capture_output=True, text=True,
                            timeout=300, env=dict(os.environ, LAPIS_DEVICE="simulated"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "weights: 102 arrays, 46,796,448 bytes up once" in result.stdout  # 11,699,112 float32 parameters
    for number, batch in enumerate(batches, 1):
        images, logits = batch * 3 * 32 * 32 * 4, batch * 1000 * 4
        assert (f"inference {number}: batch {batch}," in result.stdout and
                f"up 1 ({images:,} bytes: the images), down 1 ({logits:,} bytes: the logits)" in result.stdout)
    assert result.stdout.count("allocations left after the inference beyond the weights: 0") == len(batches)
