"""Each kernel of lapis.kernels is stated once, in cython/lapis/schema/kernels.py, and docs/architecture.md's
recipe for a new kernel is true: the built module has exactly the schema's functions and signatures, no
hand-written file restates a kernel, and a kernel added to the schema alone gets its C++ entry point, shape
function, Cython declaration, Python function, stub and name in __all__."""
import importlib
import inspect
import pathlib
import re
import sys

import pytest

import lapis.kernels as K

ROOT = pathlib.Path(__file__).parent.parent
SCHEMA = ROOT / "cython" / "lapis" / "schema"
HAND_WRITTEN = ["kernels.pyx", "calls.pxi", "kernels.pyi.in", "kernels_bridge.hpp", "kernel_entry_call.hpp"]

if not (SCHEMA / "kernels.py").is_file():
    pytest.skip("not a source checkout: the schema is not here", allow_module_level=True)


@pytest.fixture(scope="module")
def schema():
    sys.path.insert(0, str(SCHEMA))
    try:
        vocabulary = importlib.import_module("vocabulary")
        kernels = importlib.import_module("kernels")
        generate = importlib.import_module("generate")
        yield vocabulary, kernels, generate
    finally:
        sys.path.remove(str(SCHEMA))
        for name in ("vocabulary", "kernels", "generate"):
            sys.modules.pop(name, None)


def test_the_module_has_exactly_the_schemas_kernels(schema):
    _, kernels, _ = schema
    names = [k.name for k in kernels.KERNELS]
    assert len(names) == len(set(names))
    assert sorted(K.__all__) == sorted(names + ["CSRMatrix"])


def test_each_function_takes_the_schemas_arguments_in_its_order(schema):
    vocabulary, kernels, _ = schema
    for kernel in kernels.KERNELS:
        expected, keyword_only = [], False
        for argument in kernel.arguments:
            if argument == vocabulary.KEYWORD_ONLY:
                keyword_only = True
            else:
                expected.append((argument.name, keyword_only))
        parameters = inspect.signature(getattr(K, kernel.name)).parameters.values()
        actual = [(p.name, p.kind == inspect.Parameter.KEYWORD_ONLY) for p in parameters]
        assert actual == expected, kernel.name
        assert " ".join(kernel.doc.split()) in " ".join(getattr(K, kernel.name).__doc__.split())


def test_no_hand_written_file_restates_a_kernel(schema):
    _, kernels, _ = schema
    for name in HAND_WRITTEN:
        text = (ROOT / "cython" / "lapis" / name).read_text()
        for kernel in kernels.KERNELS:
            for restated in (rf"\bdef {kernel.name}\(", rf"lapis::python::{kernel.name}\b",
                             rf"\b(void|double|ShapeList) {kernel.name}(_shape|_into)?\("):
                assert not re.search(restated, text), f"{name} restates {kernel.name}: {restated}"


def test_every_kernel_has_its_header_its_tests_and_its_row(schema):
    _, kernels, _ = schema
    umbrella = (ROOT / "include" / "lapis" / "kernels.hpp").read_text()
    headers = {h.name: h.read_text() for h in (ROOT / "include" / "lapis" / "kernels").glob("*.hpp")}
    tests = "".join(t.read_text() for t in (ROOT / "tests" / "kernels").glob("test_*.py"))
    guide = (ROOT / "docs" / "guide" / "kernels.md").read_text()
    for kernel in kernels.KERNELS:
        function = kernel.cpp_function.split("::")[-1]
        declaring = [h for h, text in headers.items() if re.search(rf"\b(void|auto|\w+) {function}\(", text)]
        assert declaring, f"{kernel.name}: no header of include/lapis/kernels declares {function}"
        assert any(f"lapis/kernels/{h}" in umbrella for h in declaring), f"{kernel.name}: kernels.hpp misses it"
        called = rf"\bK\.{kernel.name}\(|[\"']{kernel.name}[\"']"  # directly, or named in a parametrized list
        assert re.search(called, tests), f"{kernel.name}: tests/kernels never calls it"
        assert f"`{kernel.name}" in guide, f"{kernel.name}: no row in docs/guide/kernels.md"


def test_the_recipe_names_the_places_a_new_kernel_touches():
    page = (ROOT / "docs" / "architecture.md").read_text()
    recipe = page[page.index("- A new kernel touches"):page.index("- A new C API entry")]
    for place in ("include/lapis/kernels/", "cython/lapis/schema/kernels.py", "tests/kernels/test_<kernel>.py",
                  "docs/guide/kernels.md"):
        assert place in recipe
    assert re.findall(r"^  (\d)\.", recipe, re.MULTILINE) == ["1", "2", "3"]


def test_a_kernel_added_to_the_schema_alone_gets_everything(schema, tmp_path, monkeypatch):
    vocabulary, kernels, generate = schema
    added = vocabulary.Kernel(
        "scale_rows", "Each row of a times s.",
        [vocabulary.reads("a", 2), vocabulary.reads("s", 1), vocabulary.KEYWORD_ONLY, vocabulary.Integer("step", 1),
         vocabulary.result("out", 2)],
        shape=("kernels::scale_rows_extents", ["a", "s"]))
    monkeypatch.setattr(generate, "KERNELS", kernels.KERNELS + [added])
    generate.main(tmp_path, SCHEMA.parent / "kernels.pyi.in")
    entries = (tmp_path / "kernel_entries.cpp").read_text()
    assert "ShapeList scale_rows_shape(const AnyDualBuffer& a, const AnyDualBuffer& s) {" in entries
    assert re.search(r"void scale_rows\(ElementType type, const Buffer& a, const Buffer& s, std::int64_t step, "
                     r"const Buffer& out\) \{.*kernels::scale_rows\(a_view, s_view, step, out_view\).*"
                     r'input<2>\("a", a\), input<1>\("s", s\), written<2>\("out", out\)', entries, re.DOTALL)
    assert "void scale_rows(" in (tmp_path / "kernel_entries.hpp").read_text()
    assert 'k_scale_rows "lapis::python::scale_rows"' in (tmp_path / "kernel_declarations.pxi").read_text()
    wrappers = (tmp_path / "kernel_wrappers.pxi").read_text()
    assert "def scale_rows(a, s, *, step=1, out=None):" in wrappers
    assert '"scale_rows"' in wrappers[:wrappers.index("def ")]  # in __all__
    stubs = (tmp_path / "kernels.pyi").read_text()
    assert "def scale_rows(a: _ArrayArg, s: _ArrayArg, *, step: _Int = 1, out: _OutT) -> _OutT: ..." in stubs
    assert '    "scale_rows",\n' in stubs


def test_the_elementwise_kernels_are_cpps_operations(schema):
    _, kernels, _ = schema
    listed = re.search(r"#define LAPIS_OPERATIONS\(X\) (.*)", (ROOT / "include/lapis/kernels/operation.hpp").read_text())
    operations = re.findall(r"X\((\w+)\)", listed[1])
    elementwise = [k.name for k in kernels.KERNELS if k.cpp_function == "kernels::arithmetic"]
    assert elementwise == operations
