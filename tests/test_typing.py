"""lapis's types, as installed (PEP 561: py.typed, stubs for the compiled modules _core and kernels,
annotations in the Python modules): they name what runs and its signatures, mypy.stubtest finds
nothing beyond tests/support/stubtest_allowlist.txt, and mypy accepts the examples and a typed use of the API
(tests/support/typed_usage.py, --strict) and lapis's own modules (--strict)."""
import ast
import importlib
import importlib.util
import inspect
import os
import pathlib
import subprocess
import sys
import types

import pytest

import lapis
import lapis.kernels

ROOT = pathlib.Path(__file__).parent.parent
PACKAGE = pathlib.Path(lapis.__file__).parent  # the installed package: what type checkers read
STUBBED = {"lapis._core": "_core.pyi", "lapis.kernels": "kernels.pyi"}
ANNOTATED = ["__init__.py", "__main__.py", "memref.py", "lapis_module.py", "mpi.py"]  # typed inline
MYPY_MISSING = importlib.util.find_spec("mypy") is None
needs_mypy = pytest.mark.skipif(MYPY_MISSING, reason="mypy is not installed (it is in the test extra: "
                                                     "pip install 'lapis-dualview[test]', or pip install mypy)")


# -- the stubs, read with ast --------------------------------------------------------------------------

def _resolved(nodes):
    """A stub body's statements, its `if sys.version_info ...` blocks resolved for this Python."""
    for node in nodes:
        if isinstance(node, ast.If):
            holds = eval(compile(ast.Expression(node.test), "<stub>", "eval"), {"sys": sys})
            yield from _resolved(node.body if holds else node.orelse)
        else:
            yield node


def _definitions(nodes):
    """name -> the stub's definitions of it (an overloaded function has several)."""
    found = {}
    for node in _resolved(nodes):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            found.setdefault(node.name, []).append(node)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found.setdefault(node.target.id, []).append(node)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found.setdefault(target.id, []).append(node)
    return found


def _stub(module_name):
    path = PACKAGE / STUBBED[module_name]
    assert path.is_file(), f"{path.name} is not installed beside the extension (meson.build's install_sources)"
    return _definitions(ast.parse(path.read_text()).body)


def _decorators(node):
    return {ast.unparse(d).rsplit(".", 1)[-1] for d in getattr(node, "decorator_list", [])}


def _typing_only(nodes):
    """True for a name that exists for type checkers alone: an alias, a TypeVar, a @type_check_only class."""
    node = nodes[0]
    if isinstance(node, ast.ClassDef):
        return "type_check_only" in _decorators(node)
    if isinstance(node, ast.AnnAssign):
        return ast.unparse(node.annotation).endswith("TypeAlias")
    return isinstance(node, ast.Assign) and ast.unparse(node.value).startswith("TypeVar(")


def _public_runtime_names(module):
    if hasattr(module, "__all__"):
        return set(module.__all__)
    return {name for name, value in vars(module).items()
            if not name.startswith("_") and not isinstance(value, types.ModuleType)}


def test_the_package_is_marked_typed_and_ships_its_stubs():
    assert (PACKAGE / "py.typed").is_file()
    for name in STUBBED.values():
        assert (PACKAGE / name).is_file(), name


@pytest.mark.parametrize("module_name", sorted(STUBBED))
def test_stubs_define_what_the_compiled_module_defines(module_name):
    module, stub = importlib.import_module(module_name), _stub(module_name)
    public = _public_runtime_names(module)
    assert sorted(public - set(stub)) == [], "defined at runtime, missing from the stub"
    for name, nodes in stub.items():
        if name == "__all__":
            assert ast.literal_eval(nodes[0].value) == module.__all__
        elif name.startswith("_") and _typing_only(nodes):
            assert not hasattr(module, name), f"{name}, a typing helper, shadows a runtime name"
        else:
            assert hasattr(module, name), f"{module_name}.{name} is in the stub, not at runtime"


def _class_members(module_name):
    """(runtime class, its stub ClassDef) of every class the stub of module_name defines at runtime."""
    module = importlib.import_module(module_name)
    for name, nodes in _stub(module_name).items():
        if isinstance(nodes[0], ast.ClassDef) and hasattr(module, name):
            yield getattr(module, name), nodes[0]


@pytest.mark.parametrize("module_name", sorted(STUBBED))
def test_stub_classes_have_the_runtime_members(module_name):
    for cls, node in _class_members(module_name):
        stub = _definitions(node.body)
        public = {name for name in vars(cls) if not name.startswith("_")}
        assert sorted(public - set(stub)) == [], f"{cls.__name__}: members missing from the stub"
        instance = None
        if "__getattr__" in vars(cls):  # count_transfers serves TransferStats's fields through it
            with cls() as instance:
                pass
        for name in stub:
            assert hasattr(cls, name) or (instance is not None and hasattr(instance, name)), \
                f"{cls.__name__}.{name} is in the stub, not at runtime"


# -- signatures: inspect's where the runtime has one, else the one Cython's embedsignature wrote ----

_KINDS = {"posonlyargs": inspect.Parameter.POSITIONAL_ONLY, "args": inspect.Parameter.POSITIONAL_OR_KEYWORD,
          "kwonlyargs": inspect.Parameter.KEYWORD_ONLY}


def _stub_parameters(node):
    """(name, kind, default source or None) of a stub function's parameters, self/cls left out."""
    a = node.args
    positional = a.posonlyargs + a.args
    defaults = [None] * (len(positional) - len(a.defaults)) + a.defaults
    result = []
    for kind in ("posonlyargs", "args"):
        for arg in getattr(a, kind):
            result.append((arg.arg, _KINDS[kind], defaults[positional.index(arg)]))
    if a.vararg:
        result.append((a.vararg.arg, inspect.Parameter.VAR_POSITIONAL, None))
    for arg, default in zip(a.kwonlyargs, a.kw_defaults):
        result.append((arg.arg, _KINDS["kwonlyargs"], default))
    if a.kwarg:
        result.append((a.kwarg.arg, inspect.Parameter.VAR_KEYWORD, None))
    if result and result[0][0] in ("self", "cls") and "staticmethod" not in _decorators(node):
        result = result[1:]
    return [(name, kind, None if default is None else ast.unparse(default)) for name, kind, default in result]


def _docstring_names(obj, *prefixes):
    """The parameter names of the signature that embedsignature (or the author) put first in obj's
    docstring, `prefix(...)`, or None."""
    first = (getattr(obj, "__doc__", None) or "").split("\n", 1)[0]
    for prefix in prefixes:
        if first.startswith(prefix + "("):
            inside = first[len(prefix) + 1:first.index(")")]
            names = [p.split("=")[0].strip().lstrip("*") for p in inside.split(",")]
            return [n for n in names if n and n not in ("self", "cls", "/")]
    return None


def _runtime_signature(owner, name, obj):
    """inspect's signature of obj, or None where it has none worth comparing (a slot wrapper's)."""
    if isinstance(obj, (types.WrapperDescriptorType, types.MethodWrapperType)):
        return None
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    parameters = list(signature.parameters.values())
    if isinstance(owner, type) and not isinstance(inspect.getattr_static(owner, name), staticmethod):
        parameters = parameters[1:]  # self
    return parameters


def _compare(where, stub_nodes, runtime, names_only_from):
    overloads = [_stub_parameters(node) for node in stub_nodes]
    if runtime is None:
        expected = names_only_from
        if expected is None:
            return False
        if len(overloads) == 1:
            assert [n for n, _, _ in overloads[0]] == expected, where
        else:
            assert {n for o in overloads for n, _, _ in o} == set(expected), where
        return True
    if len(overloads) == 1:
        stub = overloads[0]
        assert [(n, k) for n, k, _ in stub] == [(p.name, p.kind) for p in runtime], where
        for (name, _, default), parameter in zip(stub, runtime):
            assert (default is not None) == (parameter.default is not inspect.Parameter.empty), (where, name)
            if default not in (None, "..."):
                assert ast.literal_eval(default) == parameter.default, (where, name)
    else:  # each overload takes some of the runtime's parameters, under their names, and all are taken
        names = {p.name: p for p in runtime}
        assert {n for o in overloads for n, _, _ in o} == set(names), where
        for overload in overloads:
            for name, kind, default in overload:
                if default not in (None, "...") and names[name].default is not inspect.Parameter.empty:
                    assert ast.literal_eval(default) in (names[name].default, None), (where, name)
    return True


@pytest.mark.parametrize("module_name", sorted(STUBBED))
def test_stub_signatures_match_the_runtime(module_name):
    module, stub = importlib.import_module(module_name), _stub(module_name)
    unchecked = []
    for name, nodes in stub.items():
        if isinstance(nodes[0], ast.FunctionDef):
            obj = getattr(module, name)
            _compare(f"{module_name}.{name}", nodes, _runtime_signature(module, name, obj),
                     _docstring_names(obj, name)) or unchecked.append(name)
    for cls, node in _class_members(module_name):
        for name, nodes in _definitions(node.body).items():
            if not isinstance(nodes[0], ast.FunctionDef) or "property" in _decorators(nodes[0]):
                continue
            if name in ("__init__", "__new__"):  # the class's docstring, where Cython's __init__ has none
                obj = vars(cls).get("__init__")
                runtime = None if obj is None else _runtime_signature(cls, "__init__", obj)
                names = _docstring_names(cls, cls.__name__)
            else:
                obj = getattr(cls, name)
                runtime, names = _runtime_signature(cls, name, obj), _docstring_names(obj, f"{cls.__name__}.{name}")
            _compare(f"{module_name}.{cls.__name__}.{name}", nodes, runtime, names) \
                or unchecked.append(f"{cls.__name__}.{name}")
    # what no signature is exposed for: slot wrappers (len(), bool(), ==, ...) and TransferStats's
    # constructor; mypy.stubtest checks them as far as they can be (test_stubtest)
    assert all(n.rsplit(".", 1)[-1].startswith("__") for n in unchecked), unchecked


@pytest.mark.parametrize("file_name", ANNOTATED)
def test_python_modules_annotate_every_function(file_name):
    # read, not imported: importing lapis.mpi would start MPI in this process
    for node in ast.walk(ast.parse((PACKAGE / file_name).read_text())):
        if isinstance(node, ast.FunctionDef):
            a = node.args
            parameters = a.posonlyargs + a.args + a.kwonlyargs + [p for p in (a.vararg, a.kwarg) if p]
            missing = [p.arg for i, p in enumerate(parameters)
                       if p.annotation is None and not (i == 0 and p.arg in ("self", "cls"))]
            assert missing == [] and node.returns is not None, (file_name, node.name, missing)


def test_lapis_names_what_it_exports():
    tree = ast.parse((PACKAGE / "__init__.py").read_text())
    bound = set()
    for node in ast.walk(tree):  # imports (those for type checkers included) and definitions
        if isinstance(node, ast.ImportFrom):
            bound |= {alias.asname or alias.name for alias in node.names}
        elif isinstance(node, ast.FunctionDef) and node.col_offset == 0:
            bound.add(node.name)
    assert sorted(set(lapis.__all__) - bound) == []
    assert all(hasattr(lapis, name) for name in lapis.__all__)
    runtime = {n for n, v in vars(lapis).items() if not n.startswith("_") and not isinstance(v, types.ModuleType)}
    assert sorted(runtime - set(lapis.__all__)) == []
    assert lapis.CSRMatrix is lapis.kernels.CSRMatrix


# -- mypy ----------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("mypy_cache"))


def _mypy(cache, *args, cwd=ROOT):
    """mypy (this Python's: it finds the installed lapis), pyproject.toml's settings."""
    result = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                             "--cache-dir", cache, "--no-error-summary", "--show-error-codes", *args],
                            cwd=cwd, capture_output=True, text=True, timeout=600,
                            env={k: v for k, v in os.environ.items() if k != "MYPYPATH"})
    assert result.returncode == 0, result.stdout + result.stderr


@needs_mypy
def test_stubtest(tmp_path):
    # the installed stubs against the installed modules, from a folder where no other lapis lies
    result = subprocess.run([sys.executable, "-m", "mypy.stubtest", "lapis", "--allowlist",
                             str(ROOT / "tests" / "support" / "stubtest_allowlist.txt")],
                            cwd=tmp_path, capture_output=True, text=True, timeout=600,
                            env={k: v for k, v in os.environ.items() if k != "MYPYPATH"})
    assert result.returncode == 0, result.stdout + result.stderr


@needs_mypy
def test_mypy_accepts_the_examples(mypy_cache):
    pytest.importorskip("mpi4py", reason="examples/mpi_cg.py imports mpi4py")
    _mypy(mypy_cache, *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "examples").glob("*.py")))


@needs_mypy
def test_mypy_strict_accepts_typed_usage(mypy_cache):
    pytest.importorskip("mpi4py", reason="tests/support/typed_usage.py types a use of lapis.mpi")
    _mypy(mypy_cache, "--strict", "tests/support/typed_usage.py")


@needs_mypy
def test_mypy_strict_accepts_lapis_itself(mypy_cache, tmp_path):
    pytest.importorskip("mpi4py", reason="lapis.mpi imports mpi4py")
    _mypy(mypy_cache, "--strict", "-p", "lapis", cwd=tmp_path)


def test_typed_usage_holds_at_runtime():
    # what typed_usage.py's assert_type lines claim, and its asserts, for real
    pytest.importorskip("typing_extensions",
                        reason="tests/support/typed_usage.py imports assert_type from typing_extensions")
    from support import typed_usage
    typed_usage.main()
