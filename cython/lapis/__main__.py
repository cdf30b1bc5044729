"""python -m lapis FLAG: what C++, Cython and CMake projects that build on lapis need to find it."""
import argparse
import os
from collections.abc import Callable

import lapis


def build_info() -> str:
    info = lapis.runtime_info()
    text = (f"lapis {info['lapis_version']} (ABI {info['abi_version']}) with Kokkos {info['kokkos_version']} "
            f"({','.join(info['kokkos_backends'])}) from {info['kokkos_prefix']}")
    return text + (f", CUDA sm_{info['kokkos_cuda_arch']}" if info["kokkos_cuda_arch"] else "")


def main() -> None:
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
