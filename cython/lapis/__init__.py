"""lapis: Kokkos memory tied to Python object lifetimes, resident where it was computed.

A kernel result is a DualView that stays in device memory; passing it to the next kernel moves
nothing, and .asnumpy() copies it to the host lazily, once. The documentation (docs/) has the full story.
"""

import atexit
import os
import typing

from lapis import _openblas

_openblas.name_core()  # before the extensions load OpenBLAS

from lapis._core import (  # noqa: E402
    ConcurrentModificationError,
    DualView,
    Graph,
    GraphCaptureError,
    ReadOnlyError,
    RuntimeFinalizedError,
    StaleAccessError,
    TransferGuardError,
    TransferStats,
    asdualview,
    count_transfers,
    empty,
    empty_cache,
    empty_like,
    fence,
    finalize,
    full,
    full_like,
    get_transfer_guard,
    graph,
    host_registrations,
    memory_stats,
    ones,
    ones_like,
    reset_transfer_stats,
    runtime_info,
    set_transfer_guard,
    transfer_guard,
    transfer_stats,
    zeros,
    zeros_like,
)

from lapis.tracing import Trace, TraceEvent, start_trace, stop_trace, trace  # noqa: E402

if typing.TYPE_CHECKING:
    from lapis.kernels import CSRMatrix

__all__ = [
    "CSRMatrix",
    "ConcurrentModificationError",
    "DualView",
    "Graph",
    "GraphCaptureError",
    "ReadOnlyError",
    "RuntimeFinalizedError",
    "StaleAccessError",
    "Trace",
    "TraceEvent",
    "TransferGuardError",
    "TransferStats",
    "asdualview",
    "count_transfers",
    "empty",
    "empty_cache",
    "empty_like",
    "fence",
    "finalize",
    "full",
    "full_like",
    "get_include",
    "get_transfer_guard",
    "graph",
    "host_registrations",
    "memory_stats",
    "ones",
    "ones_like",
    "reset_transfer_stats",
    "runtime_info",
    "set_transfer_guard",
    "start_trace",
    "stop_trace",
    "trace",
    "transfer_guard",
    "transfer_stats",
    "zeros",
    "zeros_like",
]


__version__ = runtime_info()["lapis_version"]


if not typing.TYPE_CHECKING:  # type checkers see CSRMatrix imported above, and no other name made up here
    def __getattr__(name: str) -> type:
        # lapis.CSRMatrix is lapis.kernels.CSRMatrix, loaded on first use: `import lapis` alone does
        # not load the kernels.
        if name == "CSRMatrix":
            from lapis.kernels import CSRMatrix
            return CSRMatrix
        raise AttributeError(f"module 'lapis' has no attribute {name!r}")


def get_include() -> str:
    """The directory of lapis's installed C++ headers (holds lapis/dualview.hpp)."""
    return os.path.join(os.path.dirname(__file__), "include")


# Kokkos memory of DualViews still alive at exit is released before Kokkos is finalized.
atexit.register(finalize)
