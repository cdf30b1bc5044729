"""The C++ sources keep .clang-format's style: the clang-format that the test extras pin (the
clang-format wheel, in this Python's environment) would change no tracked C++ file. Other versions
format some constructs differently, so only the pinned one is asked."""
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).parent.parent
PINNED = "19.1.7"  # pyproject.toml's test extras
CLANG_FORMAT = pathlib.Path(sys.executable).parent / "clang-format"


def tracked_cpp_files():
    run = subprocess.run(["git", "ls-files", "*.hpp", "*.cpp", "*.h"], cwd=ROOT, capture_output=True,
                         text=True)
    if run.returncode != 0:
        pytest.skip("not a git checkout: its tracked files are unknown")
    return run.stdout.split()


def test_every_cpp_file_keeps_the_style():
    if not CLANG_FORMAT.exists():
        pytest.skip(f"clang-format {PINNED} is not installed here (pip install clang-format=={PINNED})")
    version = subprocess.run([str(CLANG_FORMAT), "--version"], capture_output=True, text=True).stdout
    if PINNED not in version:
        pytest.skip(f"the clang-format here is not {PINNED}: {version.strip()}")
    files = tracked_cpp_files()
    assert len(files) > 100
    run = subprocess.run([str(CLANG_FORMAT), "--dry-run", "--Werror", *files], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[:6000]
