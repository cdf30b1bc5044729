"""LAPIS-style gemm: the module's forward function over LAPIS::DualViews, called ten times on
resident inputs through lapis's entry point (nothing moves up; one download, at .asnumpy()), then once through LAPIS's memref entry point (two uploads, one
download: what every call cost under LAPIS's own runtime)."""
import ctypes
import pathlib
import sys

import numpy

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import _example  # noqa: E402

import _module  # noqa: E402
import lapis  # noqa: E402


def run():
    module = _module.load()
    rng = _example.rng()
    a_host, b_host = rng.standard_normal((64, 48)), rng.standard_normal((48, 32))
    a, b = lapis.DualView(a_host), lapis.DualView(b_host)
    a.sync_device()  # resident inputs, as a previous call's results would be
    b.sync_device()
    with lapis.count_transfers() as resident:
        for _ in range(10):
            c = module.dv_gemm(a, b)
        result = c.asnumpy()
    print(f"lapis entry point, 10 calls: {resident.h2d_count} uploads, {resident.d2h_count} download")
    with lapis.count_transfers() as through_memrefs:
        via_memref = _module.memref_call(module.py_gemm, ctypes.c_double, 2, a_host, b_host)
    print(f"memref entry point, 1 call: {through_memrefs.h2d_count} uploads, {through_memrefs.d2h_count} download")
    if not numpy.allclose(via_memref.asnumpy(), a_host @ b_host):
        print("MISMATCH: the memref entry point")
        return 1
    return _example.finish("lapis_style gemm", result, a_host @ b_host, resident.stats)


if __name__ == "__main__":
    _example.main(run)
