"""Other projects build on the installed package: a Cython extension that cimports lapis, and a
C++ program that finds lapis's headers through pkg-config."""
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap

import pytest

import lapis
from conftest import SIMULATED_AVAILABLE

HERE = pathlib.Path(__file__).parent


def kokkos_prefix():
    for prefix in os.environ.get("CMAKE_PREFIX_PATH", "").split(os.pathsep):
        if prefix and list(pathlib.Path(prefix).glob("lib*/cmake/Kokkos/KokkosConfig.cmake")):
            return prefix
    return None


def host_compiler_kokkos():
    """True when lapis's Kokkos can be compiled against by a plain C++ compiler (not a CUDA Kokkos,
    whose users compile with nvcc)."""
    return "CUDA" not in lapis.runtime_info()["kokkos_backends"]


@pytest.fixture(scope="module")
def downstream(tmp_path_factory):
    """The downstream project, built against the installed lapis."""
    if shutil.which("meson", path=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"]) is None:
        pytest.skip("meson is not installed")
    source = tmp_path_factory.mktemp("downstream") / "src"
    shutil.copytree(HERE / "downstream", source)
    build = source / "build"
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"],
               PKG_CONFIG_PATH=subprocess.check_output([sys.executable, "-m", "lapis", "--pkgconfigdir"], text=True).strip())
    cpp_program = host_compiler_kokkos()
    for command in (["meson", "setup", str(build), f"-Dwith_cpp_program={str(cpp_program).lower()}"],
                    ["meson", "compile", "-C", str(build)]):
        result = subprocess.run(command, cwd=source, env=env, capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr
    return build, cpp_program


def run_consumer(build, code, device):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(build), os.environ.get("PYTHONPATH")])),
               LAPIS_DEVICE=device)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env)


@pytest.mark.parametrize("device", ["default", "simulated"])
def test_a_cython_extension_cimports_lapis_and_trades_dualviews_zero_copy(downstream, device):
    if not SIMULATED_AVAILABLE:
        pytest.skip("the consumer reads device sides through host pointers: CPU builds only")
    build, _ = downstream
    result = run_consumer(build, """
        import numpy, lapis, lapis.kernels as K, consumer
        apart = not lapis.runtime_info()["sides_alias"]
        with lapis.count_transfers() as t:
            r = consumer.ramp(1000)                   # the extension's own buffer, lent to lapis
            s = K.matadd(r, r)                        # r uploaded once; s stays on the device
            total = consumer.device_sum(s)            # read where it lives: no copy
        assert r.is_borrowed and total == 999 * 1000, total
        assert (t.h2d_count, t.h2d_bytes, t.d2h_count) == ((1, 8000, 0) if apart else (0, 0, 0)), t
        assert consumer.describe(lapis.DualView(numpy.zeros((3, 4))[:, ::2])) == ((3, 2), (32, 16), 8)
        z = consumer.like(s)
        assert isinstance(z, lapis.DualView) and z.shape == (1000,) and z.dtype == numpy.float64
        consumer.scale_on_host(r, 2.0)                # host writes, marked modified by the extension
        with lapis.count_transfers() as t:
            assert consumer.device_sum(r) == 999 * 1000
        assert t.h2d_count == (1 if apart else 0)
        numpy.testing.assert_array_equal(K.matadd(r, z).asnumpy(), 2 * numpy.arange(1000))
        print("ok")
    """, device)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "ok\n"


def test_a_cython_extension_makes_results_from_cpp_extents(downstream):
    build, _ = downstream
    result = run_consumer(build, """
        import numpy, pytest, lapis, consumer
        e = consumer.empty_of([2, 3], numpy.float32)
        assert isinstance(e, lapis.DualView) and e.shape == (2, 3) and e.dtype == numpy.float32, (e.shape, e.dtype)
        assert not e.host_allocated and not e.device_allocated
        assert consumer.empty_of([], "f8").shape == ()
        with pytest.raises(ValueError, match="negative dimensions"):
            consumer.empty_of([2, -1], numpy.float64)
        with pytest.raises(ValueError, match="rank 9 exceeds"):
            consumer.empty_of([1] * 9, numpy.float64)
        with pytest.raises(ValueError, match="too big"):
            consumer.empty_of([2**62, 4], numpy.float64)
        with pytest.raises(TypeError, match="unsupported dtype"):
            consumer.empty_of([2], numpy.dtype(">f8"))
        print("ok")
    """, "default")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "ok\n"


def test_a_cimported_device_pointer_is_ready_for_other_streams_on_cuda(downstream):
    if lapis.zeros(1).__dlpack_device__()[0] != 2:
        pytest.skip("needs a CUDA build of lapis and a GPU")
    pytest.importorskip("cupy")
    build, _ = downstream
    result = run_consumer(build, """
        import cupy, lapis, lapis.kernels as K, consumer
        n = 1 << 22
        with lapis.count_transfers() as t:
            r = consumer.ramp(n)                      # the extension's host buffer, lent to lapis
            s = K.matadd(r, r)                        # returns with the kernel queued
            memory = cupy.cuda.UnownedMemory(consumer.device_address(s), s.nbytes, s)
            with cupy.cuda.Stream(non_blocking=True) as stream:   # never waits for lapis's stream
                total = float(cupy.ndarray(s.shape, s.dtype, cupy.cuda.MemoryPointer(memory, 0)).sum())
        assert total == (n - 1) * n, total
        assert (t.h2d_count, t.h2d_bytes, t.d2h_count) == (1, 8 * n, 0), t
        print("ok")
    """, "default")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "ok\n"


def test_a_cpp_program_finds_lapis_through_pkg_config(downstream):
    build, cpp_program = downstream
    if not cpp_program:
        pytest.skip("lapis runs a CUDA Kokkos: the C++ program would need nvcc")
    result = subprocess.run([str(build / "residency")], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == "last=297 h2d=1 d2h=1\n"


def test_a_cmake_project_finds_lapis_with_find_package(tmp_path):
    if not host_compiler_kokkos() or shutil.which("cmake") is None:
        pytest.skip("needs CMake and a host-compiler Kokkos")
    env = dict(os.environ,
               CMAKE_PREFIX_PATH=subprocess.check_output([sys.executable, "-m", "lapis", "--cmakedir"], text=True).strip())
    build = tmp_path / "build"
    for command in (["cmake", "-S", str(HERE / "downstream"), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release"],
                    ["cmake", "--build", str(build)]):
        result = subprocess.run(command, env=env, capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr
    result = subprocess.run([str(build / "residency")], capture_output=True, text=True)
    assert result.stdout == "last=297 h2d=1 d2h=1\n" and result.returncode == 0


def test_python_m_lapis_prints_flags():
    def flag(name):
        return subprocess.check_output([sys.executable, "-m", "lapis", name], text=True).strip()
    assert flag("--includes") == f"-I{lapis.get_include()}"
    assert (pathlib.Path(flag("--pkgconfigdir")) / "lapis-dualview.pc").is_file()
    assert (pathlib.Path(flag("--cmakedir")) / "lapis-dualview" / "lapis-dualviewConfig.cmake").is_file()
    info = lapis.runtime_info()
    assert flag("--kokkos-prefix") == info["kokkos_prefix"]
    assert flag("--build-info") == (f"lapis {info['lapis_version']} (ABI {info['abi_version']}) with Kokkos "
                                    f"{info['kokkos_version']} ({','.join(info['kokkos_backends'])}) from "
                                    f"{info['kokkos_prefix']}" + (f", CUDA sm_{info['kokkos_cuda_arch']}"
                                                                  if info["kokkos_cuda_arch"] else ""))
