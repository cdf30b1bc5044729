"""The seed's programs as LAPIS modules (gemm, batched_gemm, matadd, multiple_results, spmv from the
emitter-exact corpus in this folder), called through lapis's resident entry points: a program of
calls that feed each other's results, every input uploaded once, the results resident between
calls, one download at the end. Then one call of each through LAPIS's own memref entry points,
which upload every input and download every result, every call, for comparison."""
import pathlib
import sys

import numpy
import scipy.sparse

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import _corpus  # noqa: E402
from _example import finish, main, rng  # noqa: E402

import lapis  # noqa: E402
from lapis import lapis_module  # noqa: E402


def run():
    modules = {name: lapis_module.load(_corpus.path(name))
               for name in ["gemm", "batched_gemm", "matadd", "multiple_results", "spmv"]}
    r = rng()
    a, b = r.standard_normal((48, 32)), r.standard_normal((32, 48))
    batched = r.standard_normal((4, 16, 16)).astype(numpy.float32)
    matrix = scipy.sparse.random(48, 48, density=0.1, format="csr", random_state=7)
    shape = [48, 48, 49, matrix.nnz, matrix.nnz]  # the storage specifier: sizes, then array lengths
    with lapis.count_transfers() as resident:
        c = modules["gemm"].forward(a, b)                         # 48 x 48
        d = modules["matadd"].forward(c, c)                       # 2 c, read in place
        x = lapis.DualView(r.standard_normal(48))
        y = modules["spmv"].spmv(matrix.indptr.astype(numpy.int64), matrix.indices.astype(numpy.int64),
                                 matrix.data, shape, x)
        s, dot = modules["multiple_results"].sum_and_dot(y, x)  # an array and a scalar
        bb = modules["batched_gemm"].forward(batched, batched)
        result = modules["gemm"].forward(d, s.reshape(48, 1))   # a part of s: nothing copied
        values = result.asnumpy()
    print(f"resident program of 6 calls: {resident.h2d_count} uploads (the inputs), {resident.d2h_count} "
          f"download (the result)")
    expected_y = matrix @ x.asnumpy()
    expected_s = expected_y + x.asnumpy()
    expected = (2 * (a @ b)) @ expected_s.reshape(48, 1)
    checks = [numpy.isclose(dot, expected_y @ x.asnumpy()),
              numpy.allclose(bb.asnumpy(), batched @ batched, rtol=1e-4, atol=1e-4)]

    memref_modules = {name: _corpus.MemrefModule(_corpus.path(name)) for name in ["gemm", "matadd"]}
    with lapis.count_transfers() as through_memrefs:
        c_memref = memref_modules["gemm"].forward(a, b)
        d_memref = memref_modules["matadd"].forward(c_memref, c_memref)
    print(f"memref entry points, gemm then matadd: {through_memrefs.h2d_count} uploads, "
          f"{through_memrefs.d2h_count} downloads (every input up, every result down)")
    checks.append(numpy.allclose(d_memref, d.asnumpy()))
    for module in memref_modules.values():
        module.close()
    if not all(checks):
        print(f"MISMATCH: {checks}")
        return 1
    return finish("seed programs as LAPIS modules (resident)", values, expected, resident, rtol=1e-9)


if __name__ == "__main__":
    main(run)
