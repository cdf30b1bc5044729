"""Every ```python block of the README runs as written, on the simulated device (where every copy
is real), each in a fresh interpreter namespace; a block whose first line is the comment
"# continues the block above" runs in the namespace of the block before it."""
import os
import pathlib
import re
import subprocess
import sys

import pytest

from conftest import SIMULATED_AVAILABLE

README = pathlib.Path(__file__).parent.parent / "README.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", README.read_text(), flags=re.S | re.M)
CONTINUES = "# continues the block above"

# Runs the blocks given on stdin (separated by NUL) in turn; prints "block N OK" after each.
RUNNER = """
import sys
namespace = {}
for n, block in enumerate(sys.stdin.read().split("\\0")):
    if not block.startswith(%r):
        namespace = {"__name__": "__main__"}
    exec(compile(block, f"README block {n}", "exec"), namespace)
    print(f"block {n} OK")
""" % CONTINUES


def test_the_readme_has_python_blocks():
    assert len(BLOCKS) >= 3
    assert not BLOCKS[0].startswith(CONTINUES)


@pytest.mark.skipif(not SIMULATED_AVAILABLE, reason="no simulated device on this build")
def test_every_python_block_of_the_readme_runs():
    result = subprocess.run([sys.executable, "-c", RUNNER], input="\0".join(BLOCKS), capture_output=True, text=True,
                            timeout=120, env=dict(os.environ, LAPIS_DEVICE="simulated"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count(" OK\n") == len(BLOCKS), result.stdout
