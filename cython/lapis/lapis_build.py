"""LAPIS's output, built as a resident module: `python -m lapis build MODULE.cpp [MODULE.hpp] [-o DIR]`,
or build() from Python, takes the files lapis-translate wrote, exactly as it wrote them, and

1. adapts them (adapt()): the pasted support header becomes `#include <lapis/interop/lapis_compat.hpp>`
   (a `#line` keeps the compiler's line numbers those of the original file), and after the module's
   code come one `LAPIS_RESIDENT(f)` line per function it declares and one `LAPIS_SIGNATURES(...)`
   line (include/lapis/interop/lapis_resident.hpp derives each entry point and signature from the
   function's C++ type; a `#line` before each names the declaration in the compiler's messages);
2. compiles them into DIR/lib<module>.so with the compiler, flags, Kokkos and lapis that
   lapis-dualview.pc records (nvcc with a CUDA Kokkos);
3. refuses a module whose functions take or return what Python cannot pass, naming the function,
   the parameter, the type and the declaration's line.

The library, DIR/lib<module>.so, is what lapis.lapis_module.load() takes. A build is reused while the
files, the options and the installed lapis are what they were (a key over their contents, kept in
DIR/lib<module>.so.key); the adapted sources stay in DIR/lib<module>.sources/ (a C++ driver compiles
against them). A build that fails leaves no library behind, not even an older one, so load() cannot
pick up what does not match the sources."""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence

from lapis._emitted import AdaptError, Declaration, EmittedFile

__all__ = ["AdaptError", "BuildError", "adapt", "build", "refuse_unsupported"]

PathLike = str | os.PathLike[str]


class BuildError(RuntimeError):
    """The compiler refused the adapted module; `output` is everything it printed."""

    def __init__(self, message: str, output: str) -> None:
        super().__init__(message)
        self.output = output


def _read(paths: Sequence[PathLike]) -> list[EmittedFile]:
    """The module's files: those given, and each header a given .cpp includes from beside it."""
    files: dict[pathlib.Path, EmittedFile] = {}
    pending = [pathlib.Path(p).resolve() for p in paths]
    if not any(p.suffix in (".cpp", ".cc", ".cxx", ".cu") for p in pending):
        raise AdaptError("no C++ source (.cpp) among " + ", ".join(str(p) for p in paths))
    while pending:
        path = pending.pop(0)
        if path in files:
            continue
        if not path.is_file():
            raise AdaptError(f"{path}: no such file")
        files[path] = EmittedFile(str(path), path.read_text())
        for name, line in files[path].includes():
            included = path.parent / name
            if included.is_file():
                pending.append(included.resolve())
            elif not any(p.name == name for p in files) and not any(pathlib.Path(p).name == name for p in paths):
                raise AdaptError(f"{path}:{line}: #include \"{name}\": no such file beside it (the declarations "
                                 f"of lapis-translate --hpp; give it: python -m lapis build {path.name} {name})")
    return list(files.values())


def _entry_points(declarations: list[Declaration]) -> str:
    lines = ["", "// Resident entry points and their signatures, derived from the declarations by lapis build."]
    for declaration in declarations:
        lines += [f'#line {declaration.line} "{declaration.path}"', f"LAPIS_RESIDENT({declaration.name})"]
    signatures = ", ".join(f"LAPIS_SIGNATURE({d.name})" for d in declarations)
    lines += [f"LAPIS_SIGNATURES({signatures})", ""]
    return "\n".join(lines)


def _adapted_texts(files: list[EmittedFile]) -> tuple[dict[str, str], list[Declaration]]:
    """{file name: adapted text} and the functions that get entry points."""
    texts: dict[str, str] = {}
    for file in files:
        header = file.pasted_header()
        text = file.text
        if header is not None:
            start, end = header
            last_line = text.count("\n", 0, end) + 1  # the header's; the #line below names the one after it
            text = (text[:start] + "#include <lapis/interop/lapis_compat.hpp>\n"
                    + f'#line {last_line + 1} "{file.path}"' + text[end:])
        texts[file.path] = text
    declarations = [d for file in files for d in file.declarations()]
    declared = {d.name for d in declarations}
    for file in files:
        for name, line in file.py_entry_points():
            if name not in declared:
                raise AdaptError(f"{file.path}:{line}: py_{name} calls {name}, which no file of the module declares "
                                 "(is the --hpp header missing?)")
    if not declarations:
        raise AdaptError("no function declarations in " + ", ".join(f.path for f in files)
                         + ": a module's functions are declared at file scope (in its --hpp header, or at the top "
                           "of its .cpp)")
    seen: dict[str, Declaration] = {}
    for d in declarations:
        if d.name in seen:
            raise AdaptError(f"{d.path}:{d.line}: {d.name} is declared twice (also {seen[d.name].path}:"
                             f"{seen[d.name].line}): overloads cannot be told apart from Python")
        seen[d.name] = d
    # The entry points go into the one source that declares, or includes the declarations of, every
    # function (a team-level module's: its launcher).
    def sees(source: EmittedFile, path: str) -> bool:
        return source.path == path or any(pathlib.Path(source.path).parent / name == pathlib.Path(path)
                                          for name, _ in source.includes())
    sources = [f for f in files if not _is_header(pathlib.Path(f.path))]
    target = next((s for s in sources if all(sees(s, d.path) for d in declarations)), None)
    if target is None:
        raise AdaptError("no one source of " + ", ".join(s.path for s in sources) + " declares or includes every "
                         "function (" + ", ".join(f"{d.name} at {d.path}:{d.line}" for d in declarations) + ")")
    texts[target.path] += _entry_points(declarations)
    return texts, declarations


def adapt(files: Sequence[PathLike], output_dir: PathLike) -> list[pathlib.Path]:
    """Writes the adapted files of a module (see the module's docstring) into `output_dir`, under
    their own names, and returns their paths, sources first. AdaptError names what cannot be adapted."""
    texts, _ = _adapted_texts(_read(files))
    return _write(texts, pathlib.Path(output_dir))


def _write(texts: dict[str, str], folder: pathlib.Path) -> list[pathlib.Path]:
    """Writes each adapted text into `folder` under its file's name; their paths, sources first."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for path, text in texts.items():
        target = folder / pathlib.Path(path).name
        target.write_text(text)
        written.append(target)
    return sorted(written, key=_is_header)


def _is_header(path: pathlib.Path) -> bool:
    return path.suffix in (".hpp", ".h", ".hxx")


def _pkgconfig() -> dict[str, str]:
    """The variables and fields of the installed lapis-dualview.pc, ${...} expanded."""
    package = pathlib.Path(__file__).resolve().parent
    path = package / "lib" / "pkgconfig" / "lapis-dualview.pc"
    values: dict[str, str] = {"pcfiledir": str(path.parent)}
    for line in path.read_text().splitlines():
        match = re.match(r"^([A-Za-z_][\w.]*)\s*([=:])\s*(.*)$", line)
        if match:
            values[match.group(1)] = re.sub(r"\$\{(\w+)\}", lambda m: values.get(m.group(1), ""), match.group(3))
    return values


def _compile_command(pc: dict[str, str], sources: list[pathlib.Path], library: pathlib.Path,
                     compile_args: Sequence[str], link_args: Sequence[str]) -> list[str]:
    """The command that builds `library` from `sources` as lapis-dualview.pc says modules compile."""
    cflags, libs = shlex.split(pc["Cflags"]), shlex.split(pc["Libs"]) + list(link_args)
    if pc["kokkos_language"] == "cuda":
        # nvcc takes the host linker's options with -Xlinker and the host compiler's with -Xcompiler;
        # its -x cu holds for every file named, so a library named as a file goes to the linker too
        libs = [a for arg in libs for a in ((["-Xlinker", arg[4:]] if arg.startswith("-Wl,") else
                                             ["-Xlinker", arg] if not arg.startswith("-") else
                                             ["-Xcompiler", arg] if arg == "-fopenmp" else [arg]))]
        cflags = [a for arg in cflags for a in (["-Xcompiler", arg] if arg == "-fopenmp" else [arg])]
        return [*shlex.split(pc["kokkos_compiler"]), "-x", "cu", "-std=c++17", "-O2", "-Xcompiler", "-fPIC",
                "-shared", *shlex.split(pc["kokkos_args"]), *cflags, *compile_args, *map(str, sources),
                "-o", str(library), *libs]
    return [*shlex.split(pc["kokkos_compiler"]), "-std=c++17", "-O2", "-fPIC", "-shared", *cflags, *compile_args,
            *map(str, sources), "-o", str(library), *libs]


def _key(files: list[EmittedFile], pc: dict[str, str], compile_args: Sequence[str],
         link_args: Sequence[str]) -> str:
    """What a build depends on: the files, the options, and the installed lapis (its .pc, its
    headers, its runtime library and this tool)."""
    digest = hashlib.sha256()
    for file in sorted(files, key=lambda f: f.path):
        digest.update(f"{file.path}\0{file.text}\0".encode())
    digest.update(json.dumps([sorted(pc.items()), list(compile_args), list(link_args)]).encode())
    package = pathlib.Path(__file__).resolve().parent
    for path in sorted((package / "include").rglob("*")) + sorted((package / "lib").glob("*.so")) + [
            pathlib.Path(__file__), package / "_emitted.py"]:
        if path.is_file():
            digest.update(f"{path}\0".encode() + path.read_bytes())
    return digest.hexdigest()


@contextlib.contextmanager
def _locked(path: pathlib.Path) -> Iterator[None]:
    """One build of a library at a time, across processes (pytest workers build the same modules)."""
    with open(path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _run_compiler(command: list[str], progress: Callable[[str], None] | None) -> subprocess.CompletedProcess[str]:
    """Runs the compiler; every 15 s of a slow build (nvcc's), says it is still at it."""
    started = time.monotonic()
    done = threading.Event()

    def report() -> None:
        while progress is not None and not done.wait(15):
            progress(f"still compiling ({time.monotonic() - started:.0f} s)")
    reporter = threading.Thread(target=report, daemon=True)
    reporter.start()
    try:
        return subprocess.run(command, capture_output=True, text=True, errors="replace")  # (it may quote binary input)
    finally:
        done.set()
        reporter.join()


def _signatures(library: pathlib.Path) -> dict[str, dict[str, list[dict[str, object]]]]:
    """The library's lapis_signatures(), read in a separate process (loading a module runs its
    static initializers: not in this one before it is asked to)."""
    probe = ("import ctypes, sys; library = ctypes.CDLL(sys.argv[1]); library.lapis_signatures.restype = "
             "ctypes.c_char_p; sys.stdout.write(library.lapis_signatures().decode())")
    run = subprocess.run([sys.executable, "-c", probe, str(library)], capture_output=True, text=True)
    if run.returncode != 0:
        raise BuildError(f"{library}: the built module does not load: {run.stderr.strip()}", run.stderr)
    signatures: dict[str, dict[str, list[dict[str, object]]]] = json.loads(run.stdout)
    return signatures


def refuse_unsupported(signatures: dict[str, dict[str, list[dict[str, object]]]],
                       where: Callable[[str], str]) -> None:
    """AdaptError for the first parameter or result of a type lapis cannot pass (its signature entry
    says "unsupported"), naming `where(function)`, the function, the position and the C++ type."""
    for name, signature in signatures.items():
        for role in ("params", "results"):
            for index, entry in enumerate(signature[role]):
                if "unsupported" in entry:
                    what = f"parameter {index}" if role == "params" else f"result {index}"
                    raise AdaptError(f"{where(name)}{name}: {what} is a {entry['unsupported']}, which lapis cannot "
                                     "pass to or from Python (DualViews, scalars, pointers and the emitter's structs "
                                     "of one element type can be)")


def build(files: Sequence[PathLike], output_dir: PathLike | None = None, *, compile_args: Sequence[str] = (),
          link_args: Sequence[str] = (), progress: Callable[[str], None] | None = None) -> pathlib.Path:
    """Builds the module lapis-translate wrote as `files` (its .cpp, its --hpp header if any, a
    team-level module's launcher) into `output_dir` (default: the first file's folder) and returns
    the library's path, lib<name of the first .cpp>.so. `compile_args` and `link_args` are added to
    the compiler's command (a sparse runtime's library, say); `progress` is told of a slow build.
    AdaptError: what cannot be adapted, with its file and line; BuildError: the compiler's refusal,
    its whole output in the message."""
    emitted = _read(files)
    first_source = next(pathlib.Path(f.path) for f in emitted if not _is_header(pathlib.Path(f.path)))
    output = pathlib.Path(output_dir) if output_dir is not None else first_source.parent
    output.mkdir(parents=True, exist_ok=True)
    library = output / f"lib{first_source.stem}.so"
    key_file, sources_dir = library.with_name(library.name + ".key"), library.with_name(library.name[:-3] + ".sources")
    pc = _pkgconfig()
    key = _key(emitted, pc, compile_args, link_args)
    with _locked(library.with_name("." + library.name + ".lock")):
        if library.is_file() and key_file.is_file() and key_file.read_text() == key:
            return library
        for stale in (library, key_file):
            stale.unlink(missing_ok=True)
        shutil.rmtree(sources_dir, ignore_errors=True)
        with tempfile.TemporaryDirectory(prefix=f".{library.name}.", dir=output) as scratch:
            staged = pathlib.Path(scratch)
            texts, declarations = _adapted_texts(emitted)
            sources = [p for p in _write(texts, staged / "sources") if not _is_header(p)]
            command = _compile_command(pc, sources, staged / library.name, compile_args, link_args)
            if progress is not None:
                progress(f"compiling {', '.join(p.name for p in sources)} with {pathlib.Path(command[0]).name}")
            run = _run_compiler(command, progress)
            if run.returncode != 0:
                output_text = run.stdout + run.stderr
                raise BuildError(f"{first_source.name} did not compile ({shlex.join(command)}):\n{output_text}",
                                 output_text)
            lines = {d.name: f"{d.path}:{d.line}: " for d in declarations}
            refuse_unsupported(_signatures(staged / library.name), lines.__getitem__)
            os.replace(staged / "sources", sources_dir)
            os.replace(staged / library.name, library)
            key_file.write_text(key)
    return library


def main(argv: list[str]) -> int:
    import argparse
    parser = argparse.ArgumentParser(prog="python -m lapis build", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", help="the module's .cpp, its --hpp header, a team-level launcher")
    parser.add_argument("-o", "--output-dir", help="where the library goes (default: beside the .cpp)")
    parser.add_argument("--adapt-only", action="store_true",
                        help="write the adapted sources into the output folder and print their paths; build nothing")
    parser.add_argument("--compile-arg", action="append", default=[], metavar="ARG", help="one more compiler argument")
    parser.add_argument("--link-arg", action="append", default=[], metavar="ARG", help="one more linker argument")
    options = parser.parse_args(argv)

    def say(message: str) -> None:
        print(f"lapis build: {message}", file=sys.stderr, flush=True)
    try:
        if options.adapt_only:
            for path in adapt(options.files, options.output_dir or "."):
                print(path)
        else:
            print(build(options.files, options.output_dir, compile_args=options.compile_arg,
                        link_args=options.link_arg, progress=say))
    except (AdaptError, BuildError) as error:
        say(str(error))
        return 1
    return 0
