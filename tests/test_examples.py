"""Every example runs as a script on both devices and checks itself."""
import os
import pathlib
import subprocess
import sys

import pytest

from conftest import SIMULATED_AVAILABLE

EXAMPLES = sorted((pathlib.Path(__file__).parent.parent / "examples").glob("[!_]*.py"))


@pytest.mark.parametrize("device", ["default", "simulated"])
@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_example(script, device):
    if device == "simulated" and not SIMULATED_AVAILABLE:
        pytest.skip("no simulated device on this build")
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300,
                            env=dict(os.environ, LAPIS_DEVICE=device))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.rstrip().endswith("OK")
    assert result.stderr == ""
