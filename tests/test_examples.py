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
