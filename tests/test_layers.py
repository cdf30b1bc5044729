"""The layers of docs/architecture.md are the code's: every #include of every header under include/lapis,
every runtime library source and every C++ bridge is checked against the table "What each folder
holds", whose last column says what a folder's files may include. The table is read from the page
itself, so the page and the code cannot disagree."""
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).parent.parent
PAGE = ROOT / "docs" / "architecture.md"
ROW = re.compile(r"^\| `(?P<folder>[^`]+)`(?: \((?P<files>[^)]*)\))? \| .* \| (?P<allowed>[^|]*) \|$")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def rules():
    """{(folder, file or None): the set of what its files may include}, from the page's table."""
    table = {}
    for line in PAGE.read_text().splitlines():
        match = ROW.match(line)
        if match is None or not match["folder"].startswith(("include/", "src/", "cython/")):
            continue
        allowed = set(re.findall(r"`([^`]+)`", match["allowed"]))
        if "its own headers" in match["allowed"]:
            allowed.add("own")
        names = re.findall(r"`([^`]+)`", match["files"] or "") or [None]
        for name in names:
            table[(match["folder"], name)] = allowed
    return table


def what(name, quote):
    """What an included file is, in the table's words."""
    if name.startswith("lapis/"):
        parts = name.split("/")
        return f"{parts[1]}/" if len(parts) > 2 else ("lapis/config.hpp" if name == "lapis/config.hpp" else "lapis/*.hpp")
    for prefix, kind in (("KokkosBlas", "Kokkos Kernels"), ("KokkosKernels", "Kokkos Kernels"),
                         ("KokkosSparse", "Kokkos Kernels"), ("Kokkos", "Kokkos"), ("impl/Kokkos", "Kokkos"),
                         ("Python.h", "Python.h"), ("mpi.h", "mpi.h"), ("mpi-ext.h", "mpi.h"),
                         ("nanobind/", "nanobind"), ("pybind11/", "pybind11"), ("mlir/", "mlir")):
        if name.startswith(prefix):
            return kind
    return "own" if quote == '"' else None  # (None: the standard library, C and POSIX headers)


def row_of(path, table):
    """The table's key for a file: its folder, and its name where the table names it."""
    relative = path.relative_to(ROOT).as_posix()
    folder = relative.rsplit("/", 1)[0] + "/"
    if (folder, path.name) in table:
        return folder, path.name
    return folder, None


def violations(files, table):
    """'file: #include x (what) is not allowed in folder' for every include against the table."""
    found = []
    for path in files:
        key = row_of(path, table)
        if key not in table:
            found.append(f"{path.relative_to(ROOT)}: its folder has no row in {PAGE.name}'s table")
            continue
        for quote, name in INCLUDE.findall(path.read_text()):
            kind = what(name, quote)
            if kind is not None and kind not in table[key]:
                found.append(f"{path.relative_to(ROOT)}: #include {name} ({kind}) is not one of {sorted(table[key])}")
    return found


def checked_files():
    return (sorted((ROOT / "include" / "lapis").rglob("*.hpp")) + sorted((ROOT / "src").glob("*.[ch]pp"))
            + sorted((ROOT / "cython" / "lapis").glob("*.[ch]pp")))


def test_every_include_keeps_to_the_layer_table():
    table = rules()
    assert len(table) >= 10, table
    files = checked_files()
    assert len(files) > 80
    assert violations(files, table) == []


@pytest.mark.parametrize("folder,include,kind", [
    ("core", "<Kokkos_Core.hpp>", "Kokkos"),
    ("core", '"lapis/runtime/runtime.hpp"', "runtime/"),
    ("detail", '"lapis/dualview.hpp"', "lapis/*.hpp"),
    ("runtime", '"lapis/detail/allocation.hpp"', "detail/"),
    ("kernels", "<mpi.h>", "mpi.h"),
])
def test_an_include_against_the_table_is_found(tmp_path, monkeypatch, folder, include, kind):
    """The check itself: a header that breaks its folder's rule is reported."""
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path)
    header = tmp_path / "include" / "lapis" / folder / "wrong.hpp"
    header.parent.mkdir(parents=True)
    header.write_text(f"#pragma once\n#include <cstdint>\n#include {include}\n")
    found = violations([header], {(key[0], key[1]): allowed for key, allowed in rules().items()})
    assert len(found) == 1 and f"({kind})" in found[0], found
