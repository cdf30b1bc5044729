"""`python -m lapis build` (lapis.lapis_module.build) on what the emitter writes beyond the corpus's
--hpp form: the single-file form, rebuilds only on change, a CMake project's
lapis_dualview_add_lapis_module, and every refusal (a type Python cannot pass, a missing declaration,
a syntax error the reader sees, a compile error): each names the construct and the line, and leaves
no library behind for load() to pick up. The corpus itself goes through the tool in
test_lapis_corpus.py."""
import ctypes
import os
import pathlib
import shutil
import subprocess
import sys

import numpy
import pytest

import lapis
from conftest import counts
from lapis import lapis_build, lapis_module

ROOT = pathlib.Path(__file__).parent.parent
sys.path.insert(0, str(ROOT / "examples" / "lapis"))
import _corpus  # noqa: E402

CUDA = "CUDA" in lapis.runtime_info()["kokkos_backends"]


def module(folder, declarations, definitions, name="module"):
    """A module in the emitter's single-file form: the pasted support header, the declarations, the
    definitions (as LAPIS writes them: functions over LAPIS::DualView, lapis_initialize/finalize)."""
    path = pathlib.Path(folder) / f"{name}.cpp"
    path.write_text(_corpus.support_header() + declarations + 'extern "C" void lapis_initialize();\n'
                    'extern "C" void lapis_finalize();\n' + definitions
                    + 'extern "C" void lapis_initialize() {}\nextern "C" void lapis_finalize() {}\n')
    return path


TWICE = ("LAPIS::DualView<double*, Kokkos::LayoutRight> twice(LAPIS::DualView<double*, Kokkos::LayoutRight> v1);\n",
         """LAPIS::DualView<double*, Kokkos::LayoutRight> twice(LAPIS::DualView<double*, Kokkos::LayoutRight> v1)
{
  auto v1_d = v1.device_view();
  Kokkos::View<double*, Kokkos::LayoutRight, Kokkos::DefaultExecutionSpace> v2(std::string("v2"), v1.extent(0));
  v1.syncDevice();
  Kokkos::parallel_for(Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>(0, v1.extent(0)),
  KOKKOS_LAMBDA(size_t i) { v2(i) = 2.0 * v1_d(i); });
  return v2;
}
""")


def test_the_single_file_form_builds_once_and_rebuilds_on_change(tmp_path):
    source = _corpus.single_file("gemm", tmp_path)
    library = lapis_module.build([source], tmp_path / "out")
    assert library == tmp_path / "out" / "libgemm.so"
    a, b = numpy.arange(6.0).reshape(2, 3), numpy.ones((3, 2))
    with lapis.count_transfers() as t:
        c = lapis_module.load(library).forward(a, b)
    assert isinstance(c, lapis.DualView) and t == counts(2, a.nbytes + b.nbytes)  # the result stays
    numpy.testing.assert_allclose(c.asnumpy(), a @ b)
    built = library.stat().st_mtime_ns
    assert lapis_module.build([source], tmp_path / "out") == library and library.stat().st_mtime_ns == built
    source.write_text(source.read_text() + "// a change\n")
    assert lapis_module.build([source], tmp_path / "out") == library and library.stat().st_mtime_ns != built
    # the adapted sources are kept beside the library: the header cut, the entry points added
    adapted = (tmp_path / "out" / "libgemm.sources" / "gemm.cpp").read_text()
    assert "namespace LAPIS\n{" not in adapted and "#include <lapis/interop/lapis_compat.hpp>" in adapted
    assert "LAPIS_RESIDENT(forward)" in adapted and "LAPIS_SIGNATURES(LAPIS_SIGNATURE(forward))" in adapted


def test_a_compile_error_is_shown_whole_at_the_original_line_and_leaves_no_library(tmp_path):
    source = module(tmp_path, *TWICE)
    library = lapis_module.build([source], tmp_path)
    numpy.testing.assert_allclose(lapis_module.load(library).twice(numpy.arange(3.0)).asnumpy(), [0, 2, 4])
    text = source.read_text()
    line = text[:text.index("2.0 * v1_d(i)")].count("\n") + 1
    source.write_text(text.replace("2.0 * v1_d(i)", "2.0 * v9_d(i)"))
    with pytest.raises(lapis_module.BuildError) as refused:
        lapis_module.build([source], tmp_path)
    # at the line in the user's file, as the compiler names it: gcc "file:line:", nvcc "file(line)"
    assert any(place in str(refused.value) for place in (f"{source}:{line}:", f"{source}({line})"))
    assert "v9_d" in refused.value.output
    assert not library.exists() and not (tmp_path / "libmodule.so.key").exists()  # the older build is gone too
    assert sorted(p.name for p in tmp_path.iterdir()) == [".libmodule.so.lock", "module.cpp"]


def test_a_type_python_cannot_pass_is_refused_naming_function_parameter_type_and_line(tmp_path):
    declarations = ("LAPIS::DualView<double*, Kokkos::LayoutRight> first(LAPIS::DualView<double*, Kokkos::LayoutRight> v1, "
                    "std::string v2);\n")
    definitions = ("LAPIS::DualView<double*, Kokkos::LayoutRight> first(LAPIS::DualView<double*, Kokkos::LayoutRight> v1, "
                   "std::string v2)\n{\n  return v1;\n}\n")
    source = module(tmp_path, declarations, definitions)
    line = source.read_text().count("\n", 0, source.read_text().index("first(")) + 1
    with pytest.raises(lapis_module.AdaptError, match=rf"{source}:{line}: first: parameter 1 is a std::.*string"):
        lapis_module.build([source], tmp_path)
    assert not (tmp_path / "libmodule.so").exists()


def test_a_missing_declaration_is_refused(tmp_path):
    header, source = _corpus.emitted("gemm", tmp_path / "gemm")[1], tmp_path / "gemm" / "gemm.cpp"
    moved = tmp_path / "elsewhere.cpp"
    shutil.copy(source, moved)  # the .cpp without its --hpp header beside it
    with pytest.raises(lapis_module.AdaptError, match=r'elsewhere.cpp:1: #include "gemm.hpp": no such file'):
        lapis_module.build([moved], tmp_path)
    header.write_text(header.read_text().replace("forward(", "renamed("))  # py_forward without a forward
    with pytest.raises(lapis_module.AdaptError, match=r"gemm.cpp:\d+: py_forward calls forward, which no file"):
        lapis_module.build([source], tmp_path)
    assert list(tmp_path.glob("*.so")) == []


@pytest.mark.parametrize("broken,words", [
    ("{\n  return v1;\n", r"module.cpp:\d+: syntax error: '\{' is never closed"),
    ("{\n  return v1;\n}\n}\n", r"module.cpp:\d+: syntax error: '\}' closes nothing"),
    ("(\n", r"module.cpp:\d+: syntax error: '\(' is never closed"),
], ids=["unclosed brace", "extra brace", "unclosed parenthesis"])
def test_a_syntax_error_is_refused_with_its_line_before_anything_compiles(tmp_path, broken, words):
    declaration = "LAPIS::DualView<double*, Kokkos::LayoutRight> f(LAPIS::DualView<double*, Kokkos::LayoutRight> v1);\n"
    source = module(tmp_path, declaration, declaration[:-2] + "\n" + broken)
    with pytest.raises(lapis_module.AdaptError, match=words):
        lapis_module.build([source], tmp_path)
    assert not (tmp_path / "libmodule.so").exists()


def test_a_module_with_no_pasted_header_or_declarations_is_refused(tmp_path):
    source = tmp_path / "empty.cpp"
    source.write_text('#include <Kokkos_Core.hpp>\nextern "C" void lapis_initialize() {}\n')
    with pytest.raises(lapis_module.AdaptError, match="no function declarations in"):
        lapis_module.build([source], tmp_path)
    odd = tmp_path / "odd.cpp"
    odd.write_text("#include <vector>\nnamespace LAPIS {\n}\n")
    with pytest.raises(lapis_module.AdaptError, match=r"odd.cpp:1: the pasted support header starts with"):
        lapis_module.build([odd], tmp_path)


def test_the_command_line_prints_the_library_or_the_refusal(tmp_path):
    source = _corpus.single_file("matadd", tmp_path)
    command = [sys.executable, "-m", "lapis", "build", str(source), "-o", str(tmp_path / "out")]
    run = subprocess.run(command, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout == f"{tmp_path / 'out' / 'libmatadd.so'}\n" and "lapis build: compiling matadd.cpp" in run.stderr
    a = numpy.ones((2, 2))
    numpy.testing.assert_allclose(lapis_module.load(run.stdout.strip()).forward(a, a).asnumpy(), 2 * a)
    adapted = subprocess.run([*command[:-2], "--adapt-only", "-o", str(tmp_path / "adapted")], capture_output=True,
                             text=True)
    assert adapted.returncode == 0 and adapted.stdout == f"{tmp_path / 'adapted' / 'matadd.cpp'}\n"
    refused = subprocess.run([sys.executable, "-m", "lapis", "build", str(tmp_path / "missing.cpp")],
                             capture_output=True, text=True)
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr == f"lapis build: {tmp_path / 'missing.cpp'}: no such file\n"


def test_a_cmake_project_builds_a_module_with_lapis_dualview_add_lapis_module(tmp_path):
    if shutil.which("cmake") is None:
        pytest.skip("cmake is not installed")
    files = _corpus.emitted("multiple_results", tmp_path / "emitted")
    project = tmp_path / "project"
    project.mkdir()
    languages = "CXX CUDA" if CUDA else "CXX"
    (project / "CMakeLists.txt").write_text(
        f"cmake_minimum_required(VERSION 3.16)\nproject(lapis_module LANGUAGES {languages})\n"
        "set(CMAKE_CXX_STANDARD 17)\nfind_package(lapis-dualview CONFIG REQUIRED)\n"
        f"lapis_dualview_add_lapis_module(multiple_results {' '.join(str(f) for f in files)})\n")
    env = dict(os.environ, CMAKE_PREFIX_PATH=subprocess.check_output([sys.executable, "-m", "lapis", "--cmakedir"],
                                                                     text=True).strip())
    for command in (["cmake", "-S", str(project), "-B", str(tmp_path / "build"), "-DCMAKE_BUILD_TYPE=Release"],
                    ["cmake", "--build", str(tmp_path / "build")]):
        run = subprocess.run(command, capture_output=True, text=True, env=env)
        assert run.returncode == 0, run.stdout + run.stderr
    loaded = lapis_module.load(tmp_path / "build" / "libmultiple_results.so")
    a, b = numpy.arange(4.0), numpy.full(4, 2.0)
    with lapis.count_transfers() as t:
        total, dot = loaded.sum_and_dot(a, b)
    numpy.testing.assert_allclose(total.asnumpy(), a + b)
    assert dot == pytest.approx(a @ b) and t == counts(2, a.nbytes + b.nbytes)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_nvcc_links_a_library_named_as_a_file_instead_of_compiling_it(tmp_path):
    # nvcc's -x cu holds for every file on its command line (unlike g++'s, which holds for the files
    # after it): a library given as a path went to the CUDA front end as a source
    helper = tmp_path / "libhelper.so"
    (tmp_path / "helper.cpp").write_text('extern "C" int helper() { return 3; }\n')
    subprocess.run(["c++", "-shared", "-fPIC", str(tmp_path / "helper.cpp"), "-o", str(helper)], check=True)
    source = tmp_path / "module.cpp"
    source.write_text('extern "C" int helper();\nextern "C" int call() { return helper(); }\n')
    cuda = {"kokkos_language": "cuda", "kokkos_compiler": "nvcc", "kokkos_args": "", "Cflags": "", "Libs": ""}
    command = lapis_build._compile_command(cuda, [source], tmp_path / "libmodule.so", [], [str(helper)])
    run = subprocess.run(command, capture_output=True, text=True, errors="replace", timeout=300)
    assert run.returncode == 0 and run.stderr == "", run.stderr
    assert ctypes.CDLL(str(tmp_path / "libmodule.so")).call() == 3
