"""LAPIS-style spmv: a CSR matrix with the shape struct LAPIS passes, through lapis's entry point
on resident arrays and through LAPIS's memref entry point on numpy arrays."""
import ctypes
import pathlib
import sys

import numpy

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import _example  # noqa: E402
import _sparse  # noqa: E402

import _module  # noqa: E402
import lapis  # noqa: E402


def run():
    module = _module.load()
    rows, columns = 200, 150
    rng = _example.rng()
    dense = _sparse.random_matrix(rng, rows, columns, density=0.05)
    indptr, indices, data = _sparse.csr(dense)
    x_host = rng.standard_normal(columns)
    arrays = [lapis.DualView(a) for a in (indptr.astype(numpy.int64), indices.astype(numpy.int64), data, x_host)]
    with lapis.count_transfers() as copies:
        y = module.dv_spmv(*arrays, rows, columns)
        again = module.dv_spmv(*arrays, rows, columns)  # the inputs are resident now
        result = again.asnumpy()
    expected = dense @ x_host
    via_memref = _module.memref_call(module.py_spmv, ctypes.c_double, 1, indptr.astype(numpy.int64),
                                     indices.astype(numpy.int64), data, x_host, extra=(_module.CsrShape(rows, columns),))
    if not numpy.allclose(via_memref.asnumpy(), expected) or not numpy.allclose(y.asnumpy(), expected):
        print("MISMATCH: the memref entry point or the first call")
        return 1
    return _example.finish("lapis_style spmv", result, expected, copies.stats)


if __name__ == "__main__":
    _example.main(run)
