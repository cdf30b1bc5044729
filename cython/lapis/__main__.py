"""python -m lapis FLAG: what C++, Cython and CMake projects that build on lapis need to find it.
python -m lapis trace [--output PREFIX] script.py [args ...]: runs a script under lapis.trace(), as
python -m cProfile does, then writes PREFIX.json (Chrome trace) and PREFIX.png and prints the summary.
python -m lapis build MODULE.cpp [MODULE.hpp] [-o DIR]: builds LAPIS's output as a resident module and
prints the library's path (python -m lapis build --help)."""
import argparse
import os
import runpy
import sys
import traceback
from collections.abc import Callable

import lapis


def build_info() -> str:
    info = lapis.runtime_info()
    text = (f"lapis {info['lapis_version']} (ABI {info['abi_version']}) with Kokkos {info['kokkos_version']} "
            f"({','.join(info['kokkos_backends'])}) from {info['kokkos_prefix']}")
    return text + (f", CUDA sm_{info['kokkos_cuda_arch']}" if info["kokkos_cuda_arch"] else "")


def trace_main(argv: list[str]) -> str | int | None:
    """Runs the script under a trace; its files and summary are written however it ends (returns,
    sys.exit, an exception, Ctrl-C). Returns what sys.exit takes: the script's status or message,
    1 after an uncaught exception (its traceback printed first, as Python prints it)."""
    parser = argparse.ArgumentParser(prog="python -m lapis trace",
                                     description="Runs a Python script under lapis.trace().")
    parser.add_argument("--output", help="the files' path without suffix (default: the script's name + .trace)")
    parser.add_argument("script")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    options = parser.parse_args(argv)
    if not os.path.isfile(options.script):
        parser.error(f"no such script: {options.script}")
    prefix = options.output or os.path.splitext(os.path.basename(options.script))[0] + ".trace"
    sys.argv = [options.script, *options.args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(options.script)))
    status: str | int | None = None
    with lapis.trace() as recording:
        try:
            runpy.run_path(options.script, run_name="__main__")
        except SystemExit as stop:
            status = stop.code
        except BaseException:  # the script's own failure (Ctrl-C too): reported, the files still written
            traceback.print_exc()
            status = 1
    recording.save(prefix + ".json")
    try:
        recording.plot(prefix + ".png")
        written = f"{prefix}.json and {prefix}.png"
    except ImportError:
        print("lapis trace: no picture: matplotlib is not installed", file=sys.stderr)
        written = f"{prefix}.json"
    print(f"\nlapis trace of {options.script}: {len(recording.events)} events, written to {written}")
    print(recording.summary())
    return status


def main() -> None:
    if sys.argv[1:2] == ["trace"]:
        sys.exit(trace_main(sys.argv[2:]))
    if sys.argv[1:2] == ["build"]:
        from lapis import lapis_build
        sys.exit(lapis_build.main(sys.argv[2:]))
    package = os.path.dirname(lapis.__file__)
    flags: dict[str, tuple[str, Callable[[], str]]] = {
        "--includes": ("-I flags for the C++ headers", lambda: f"-I{lapis.get_include()}"),
        "--pkgconfigdir": ("the folder holding lapis-dualview.pc (PKG_CONFIG_PATH)",
                           lambda: os.path.join(package, "lib", "pkgconfig")),
        "--cmakedir": ("the folder to add to CMAKE_PREFIX_PATH for find_package(lapis-dualview)",
                       lambda: os.path.join(package, "lib", "cmake")),
        "--kokkos-prefix": ("the Kokkos installation lapis runs on (modules must use it)",
                            lambda: lapis.runtime_info()["kokkos_prefix"]),
        "--build-info": ("which lapis and which Kokkos this is", build_info),
    }
    parser = argparse.ArgumentParser(prog="python -m lapis", description=__doc__)
    group = parser.add_mutually_exclusive_group(required=True)
    for flag, (help_text, _) in flags.items():
        group.add_argument(flag, action="store_true", help=help_text)
    args = parser.parse_args()
    for flag, (_, value) in flags.items():
        if getattr(args, flag.lstrip("-").replace("-", "_")):
            print(value())


if __name__ == "__main__":
    main()
