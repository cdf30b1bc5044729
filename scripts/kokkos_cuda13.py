"""Adapts an unpacked Kokkos 4.6.01 tree to CUDA 13 and to one GPU architecture, in place.

CUDA 13 changed three runtime calls that Kokkos 4.6.01's CUDA instance wraps
(core/src/Cuda/Kokkos_Cuda_Instance.hpp): cudaGraphAddDependencies takes the edge data before the
count; cudaMemAdvise and cudaMemPrefetchAsync take a cudaMemLocation instead of a device number,
and cudaMemPrefetchAsync a flags argument before the stream. Each call is rewritten behind
`#if CUDART_VERSION >= 13000`, so the tree still builds with older toolkits. Kokkos's nvcc_wrapper
compiles for sm_70 unless told otherwise, which CUDA 13 refuses (CMake's compiler check included):
its default becomes the given architecture.

Usage: python3 kokkos_cuda13.py TREE ARCH   (ARCH as nvcc names it, e.g. sm_90)
"""
import pathlib
import re
import sys


def location(device: str) -> str:
    return f"cudaMemLocation{{cudaMemLocationTypeDevice, {device}}}"


# (the call as Kokkos 4.6.01 writes it, its CUDA 13 form); argument names are Kokkos's own
CALLS = [
    (re.compile(r"return cudaGraphAddDependencies\(graph, from, to, numDependencies\);"),
     "return cudaGraphAddDependencies(graph, from, to, nullptr, numDependencies);"),
    (re.compile(r"return cudaMemAdvise\(devPtr, count, advice, device\);"),
     f"return cudaMemAdvise(devPtr, count, advice, {location('device')});"),
    (re.compile(r"return cudaMemPrefetchAsync\(devPtr, count, dstDevice,\s*get_input_stream\(stream\)\);"),
     f"return cudaMemPrefetchAsync(devPtr, count, {location('dstDevice')}, 0, get_input_stream(stream));"),
]


def adapt_calls(path: pathlib.Path) -> None:
    text = path.read_text()
    for pattern, cuda13 in CALLS:
        found = re.findall(r"^[ \t]*" + pattern.pattern, text, flags=re.M)
        if len(found) != 1:
            sys.exit(f"kokkos_cuda13: expected one '{pattern.pattern}' in {path}, found {len(found)}: "
                     "is this Kokkos 4.6.01?")
        text = re.sub(r"^([ \t]*)(" + pattern.pattern + ")",
                      lambda m: f"#if CUDART_VERSION >= 13000\n{m[1]}{cuda13}\n#else\n{m[0]}\n#endif", text, flags=re.M)
    path.write_text(text)


def set_default_arch(wrapper: pathlib.Path, arch: str) -> None:
    text, count = re.subn(r'^default_arch="sm_\d+"$', f'default_arch="{arch}"', wrapper.read_text(), flags=re.M)
    if count != 1:
        sys.exit(f"kokkos_cuda13: no default_arch line in {wrapper}")
    wrapper.write_text(text)


def main() -> None:
    tree, arch = pathlib.Path(sys.argv[1]), sys.argv[2]
    adapt_calls(tree / "core" / "src" / "Cuda" / "Kokkos_Cuda_Instance.hpp")
    set_default_arch(tree / "bin" / "nvcc_wrapper", arch)


if __name__ == "__main__":
    main()
