"""The documentation runs and builds.

Every ```python block of README.md and of every page under docs/ runs as written. The blocks of one
file run in order in one fresh interpreter, on the device of this test run (the test command runs
pytest on the default and on the simulated device, so both are covered). Each block starts in a fresh
namespace, unless its first line is the comment "# continues the block above": then it runs in the
namespace of the block before it.

A block that cannot run on a CPU build (it needs a GPU, CuPy or PyTorch, several MPI ranks, a module
built first) says so in its first line, "# not run: " and the reason, e.g. "# not run: needs a GPU";
it is skipped, and no block may continue it. Such blocks should be few. A file whose blocks import an
optional dependency that is not installed (mpi4py, scipy) is skipped, naming it. Because a file's
blocks share one process, a block that finalizes lapis comes last in its file.

The site (docs/conf.py) builds with Sphinx with warnings as errors, as
`python -m sphinx -W --keep-going -b html docs build/docs` does; skipped where Sphinx or myst-parser
is not installed (the `test` extra installs both).
"""
import importlib.util
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).parent.parent
DOCS = ROOT / "docs"
FILES = [ROOT / "README.md"] + sorted(DOCS.rglob("*.md"))
CONTINUES = "# continues the block above"
NOT_RUN = "# not run: "
OPTIONAL = ("mpi4py", "scipy")


def python_blocks(path):
    """The ```python blocks of a Markdown file, in order."""
    return re.findall(r"^```python\n(.*?)^```", path.read_text(), flags=re.S | re.M)


def name(path):
    return str(path.relative_to(ROOT))


BLOCKS = {name(path): python_blocks(path) for path in FILES}
# Runs the blocks given on stdin (separated by NUL) in turn; prints "block N OK" after each.
RUNNER = """
import sys
namespace = {}
for block in sys.stdin.read().split("\\0"):
    number, _, code = block.partition("\\n")
    if not code.startswith(%r):
        namespace = {"__name__": "__main__"}
    exec(compile(code, f"{sys.argv[1]}, python block {number}", "exec"), namespace)
    print(f"block {number} OK", flush=True)
""" % CONTINUES


def test_the_readme_and_the_guide_have_python_blocks():
    assert len(BLOCKS["README.md"]) >= 1
    assert sum(len(blocks) for blocks in BLOCKS.values()) >= 10


@pytest.mark.parametrize("file", sorted(BLOCKS))
def test_blocks_are_marked_consistently(file):
    blocks = BLOCKS[file]
    for n, block in enumerate(blocks):
        if block.startswith(NOT_RUN):
            assert block[len(NOT_RUN):].split("\n", 1)[0].strip(), f"{file}, block {n}: say why it is not run"
        if block.startswith(CONTINUES):
            assert n > 0, f"{file}: the first block continues nothing"
            assert not blocks[n - 1].startswith(NOT_RUN), f"{file}, block {n} continues a block that is not run"


def test_few_blocks_are_not_run():
    skipped = [(file, n) for file, blocks in BLOCKS.items() for n, block in enumerate(blocks)
               if block.startswith(NOT_RUN)]
    assert len(skipped) <= 4, skipped


@pytest.mark.parametrize("file", [file for file, blocks in sorted(BLOCKS.items())
                                  if any(not block.startswith(NOT_RUN) for block in blocks)])
def test_every_python_block_runs(file):
    runnable = [f"{n}\n{block}" for n, block in enumerate(BLOCKS[file]) if not block.startswith(NOT_RUN)]
    for module in OPTIONAL:
        if re.search(rf"^\s*(from|import)\s+{module}\b", "\n".join(runnable), flags=re.M):
            pytest.importorskip(module, reason=f"{file} needs {module}, which is not installed")
    result = subprocess.run([sys.executable, "-c", RUNNER, file], input="\0".join(runnable), capture_output=True,
                            text=True, timeout=300, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count(" OK\n") == len(runnable), result.stdout + result.stderr


@pytest.mark.skipif(importlib.util.find_spec("sphinx") is None or importlib.util.find_spec("myst_parser") is None,
                    reason="Sphinx or myst-parser is not installed (pip install the `test` extra)")
def test_the_site_builds_without_warnings(tmp_path):
    result = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                             "-d", str(tmp_path / "doctrees"), str(DOCS), str(tmp_path / "html")],
                            capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "html" / "index.html").is_file()
