"""Every example runs as a script on both devices and checks itself."""
import os
import pathlib
import subprocess
import sys

import pytest

from conftest import SIMULATED_AVAILABLE

_EXAMPLES_DIR = pathlib.Path(__file__).parent.parent / "examples"
EXAMPLES = (sorted(_EXAMPLES_DIR.glob("[!_]*.py")) + sorted(_EXAMPLES_DIR.glob("*/run.py"))
            + sorted(_EXAMPLES_DIR.glob("lapis_style/[!_]*.py")))


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
def test_lapis_style_calls_move_what_they_should():
    # resident inputs: ten calls through lapis's entry point upload nothing and download once, at
    # .asnumpy(); LAPIS's memref entry point uploads both inputs and downloads the result per call
    result = subprocess.run([sys.executable, str(_EXAMPLES_DIR / "lapis_style" / "gemm.py")], capture_output=True,
                            text=True, timeout=300, env=dict(os.environ, LAPIS_DEVICE="simulated"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "lapis entry point, 10 calls: 0 uploads, 1 download" in result.stdout
    assert "memref entry point, 1 call: 2 uploads, 1 download" in result.stdout
    assert "host->device: 0 copies, 0 bytes; device->host: 1 copies, 16384 bytes" in result.stdout


_LAPIS_STYLE_BAD_INPUT = """
import ctypes
import sys
sys.path.insert(0, sys.argv[1])
import numpy
import pytest
import lapis
import _module
from lapis import memref

module = _module.load()
a, b = lapis.DualView(numpy.ones((4, 3))), lapis.DualView(numpy.ones((3, 2)))
with pytest.raises(ValueError, match="rank 1 as rank 2"):
    module.dv_gemm(lapis.DualView(numpy.ones(4)), b)
with pytest.raises(ValueError, match="float32 elements as float64"):
    module.dv_gemm(lapis.DualView(numpy.ones((4, 3), numpy.float32)), b)
with pytest.raises(ValueError, match="shapes do not align"):
    module.dv_gemm(a, lapis.DualView(numpy.ones((4, 2))))
with pytest.raises(TypeError, match="expected a lapis.DualView"):
    module.dv_gemm(numpy.ones((4, 3)), b)
# a transposed array's descriptor: strides LAPIS's entry points do not take, refused, not misread
result = memref.descriptor_type(ctypes.c_double, 2)()
transposed = memref.descriptor(lapis.DualView(numpy.ones((3, 4)).T))
module.py_gemm(ctypes.byref(result), ctypes.byref(transposed), ctypes.byref(memref.descriptor(b)))
assert not result.data
print("refused")
"""


def test_the_lapis_style_module_refuses_what_does_not_match_its_arguments():
    result = subprocess.run([sys.executable, "-c", _LAPIS_STYLE_BAD_INPUT, str(_EXAMPLES_DIR / "lapis_style")],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "refused"
    assert "lapis_style: memref: a contiguous row-major array is expected" in result.stderr


@pytest.mark.parametrize("device", ["default", "simulated"])
def test_the_lapis_style_cpp_driver_builds_against_lapis_and_runs(device):
    if device == "simulated" and not SIMULATED_AVAILABLE:
        pytest.skip("no simulated device on this build")
    sys.path.insert(0, str(_EXAMPLES_DIR))
    import _modules
    folder = _modules.build(_EXAMPLES_DIR / "lapis_style" / "driver")
    result = subprocess.run([str(folder / "driver")], capture_output=True, text=True, timeout=300,
                            env=dict(os.environ, LAPIS_DEVICE=device))
    assert result.returncode == 0, result.stdout + result.stderr
    # inputs filled on the device and synced to the host once, before the timed calls: the calls
    # upload nothing; the one download is the result's (none on the default device of a build whose
    # device memory is host memory, the builds that have a simulated device)
    downloads = 1 if device == "simulated" or not SIMULATED_AVAILABLE else 0
    copies = f"0 copies; device->host: {downloads} copies"
    assert f"host->device: {copies}" in result.stdout and result.stdout.endswith("OK\n")


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
