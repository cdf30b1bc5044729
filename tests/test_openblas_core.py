"""lapis names the OpenBLAS core for this CPU by its instruction sets (lapis/_openblas.py), so an
OpenBLAS older than the CPU runs its vector kernels rather than its generic ones."""
import os
import subprocess
import sys

import pytest

from lapis import _openblas

AVX512 = {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"}


@pytest.mark.parametrize("flags,core", [
    (AVX512 | {"avx2", "fma", "sse2"}, "SkylakeX"),
    ({"avx2", "fma", "avx512f"}, "Haswell"),  # AVX-512 foundation alone is not SkylakeX's set
    ({"avx", "sse4_2"}, None),
    (set(), None),
])
def test_the_core_is_the_best_one_whose_instruction_sets_the_cpu_has(flags, core):
    assert _openblas.core_for(flags) == core


def test_the_flags_are_those_of_the_first_processor(tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu avx2 fma\n\nprocessor\t: 1\nflags\t\t: fpu\n")
    assert _openblas.cpu_flags(str(cpuinfo)) == {"fpu", "avx2", "fma"}
    assert _openblas.cpu_flags(str(tmp_path / "absent")) == set()


def test_a_core_the_user_names_is_kept(monkeypatch):
    monkeypatch.setattr(_openblas.platform, "machine", lambda: "x86_64")
    monkeypatch.setattr(_openblas, "cpu_flags", lambda: AVX512 | {"avx2", "fma"})
    named = {"OPENBLAS_CORETYPE": "Prescott"}
    _openblas.name_core(named)
    assert named == {"OPENBLAS_CORETYPE": "Prescott"}
    unnamed = {}
    _openblas.name_core(unnamed)
    assert unnamed == {"OPENBLAS_CORETYPE": "SkylakeX"}
    monkeypatch.setattr(_openblas.platform, "machine", lambda: "aarch64")
    elsewhere = {}
    _openblas.name_core(elsewhere)
    assert elsewhere == {}


CORE_OF_LOADED_OPENBLAS = """
import ctypes, lapis.kernels
paths = {line.split()[-1] for line in open("/proc/self/maps") if "/libopenblas" in line}
for path in sorted(paths):
    library = ctypes.CDLL(path)
    library.openblas_get_corename.restype = ctypes.c_char_p
    print(path, library.openblas_get_corename().decode())
"""


def test_the_openblas_lapis_loads_runs_the_cores_kernels():
    expected = _openblas.core_for(_openblas.cpu_flags())
    if expected is None:
        pytest.skip("this CPU has neither AVX2 nor AVX-512")
    run = subprocess.run([sys.executable, "-c", CORE_OF_LOADED_OPENBLAS], capture_output=True, text=True,
                         env={k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"})
    assert run.returncode == 0, run.stderr
    cores = [line.split()[-1] for line in run.stdout.splitlines()]
    if not cores:
        pytest.skip("lapis's kernels do not load an OpenBLAS here")
    assert all(core.lower() == expected.lower() for core in cores), run.stdout
