"""The OpenBLAS core for this CPU, named by its instruction sets, for an OpenBLAS older than the CPU.

An OpenBLAS built for many CPUs (DYNAMIC_ARCH, as Debian's is) picks its kernels by the CPU's model
number when it loads; one older than the CPU does not know that number and falls back to its
generic SSE3 kernels. Debian 12's OpenBLAS 0.3.21, which Kokkos Kernels calls for lapis's products,
ran float32 gemm at 81 GFLOP/s on an Emerald Rapids Xeon where its SkylakeX kernels reach 390.
OpenBLAS reads OPENBLAS_CORETYPE when it loads, so this runs before lapis's extensions load; a core
the user names there is kept."""
import os
import platform
import typing

# The OpenBLAS core whose kernels each instruction-set family runs, best first.
CORES = [("SkylakeX", {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"}),
         ("Haswell", {"avx2", "fma"})]


def core_for(cpu_flags: typing.AbstractSet[str]) -> typing.Optional[str]:
    """The best core in CORES whose instruction sets are all among `cpu_flags`, or None."""
    return next((core for core, needed in CORES if needed <= cpu_flags), None)


def cpu_flags(cpuinfo: str = "/proc/cpuinfo") -> typing.Set[str]:
    """The instruction-set flags of the first processor in `cpuinfo` (empty where it cannot be read)."""
    try:
        with open(cpuinfo) as lines:
            for line in lines:
                if line.startswith("flags"):
                    return set(line.partition(":")[2].split())
    except OSError:
        pass
    return set()


def name_core(environ: typing.MutableMapping[str, str] = os.environ) -> None:
    """Sets OPENBLAS_CORETYPE for this x86-64 CPU unless it is set."""
    if "OPENBLAS_CORETYPE" in environ or platform.machine() != "x86_64":
        return
    core = core_for(cpu_flags())
    if core is not None:
        environ["OPENBLAS_CORETYPE"] = core
