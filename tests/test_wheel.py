"""`pip wheel .` ships what users and downstream builds need, and no build leftovers."""
import os
import pathlib
import subprocess
import sys
import zipfile

import pytest

from test_downstream import kokkos_prefix

ROOT = pathlib.Path(__file__).parent.parent


def test_wheel_contents(tmp_path):
    if kokkos_prefix() is None:
        pytest.skip("no Kokkos on CMAKE_PREFIX_PATH to build the wheel against")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
                   check=True, capture_output=True, env=dict(os.environ))
    (wheel,) = tmp_path.glob("lapis_dualview-*.whl")
    archive = zipfile.ZipFile(wheel)
    names = sorted(archive.namelist())
    print("\n".join(names))
    package = [n for n in names if n.startswith("lapis/")]
    headers = sorted(p.relative_to(ROOT / "include").as_posix() for p in (ROOT / "include").rglob("*.hpp"))
    expected = {f"lapis/include/{h}" for h in headers} | {
        "lapis/include/lapis/config.hpp",  # generated: which lapis and which Kokkos
        "lapis/__init__.py", "lapis/__main__.py", "lapis/memref.py", "lapis/lapis_module.py", "lapis/mpi.py",
        "lapis/lapis_build.py", "lapis/_emitted.py",  # python -m lapis build
        "lapis/tracing.py", "lapis/_openblas.py", "lapis/__init__.pxd", "lapis/_core.pxd",
        "lapis/_core.pyi", "lapis/kernels.pyi", "lapis/py.typed",  # the type stubs and the PEP 561 marker
        "lapis/lib/liblapis-runtime.so",
        "lapis/lib/pkgconfig/lapis-dualview.pc", "lapis/lib/cmake/lapis-dualview/lapis-dualviewConfig.cmake"}
    extensions = [n for n in package if n.endswith(".so") and n.startswith(("lapis/_core.", "lapis/kernels."))]
    assert len(extensions) == 2, extensions
    assert sorted(set(package) - set(extensions)) == sorted(expected)
    others = [n for n in names if not n.startswith(("lapis/", "lapis_dualview-"))]
    assert others == []
