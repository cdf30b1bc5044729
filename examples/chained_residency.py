"""A chain of kernels whose intermediates never touch the host: y = gemm(matadd(gemm(a, b), c), d).
Only the four inputs go up and only the final result comes down."""
import numpy

import lapis
import lapis.kernels as K
from _example import finish, main, rng


def run():
    r = rng()
    a, b = r.standard_normal((32, 16)), r.standard_normal((16, 24))
    c, d = r.standard_normal((32, 24)), r.standard_normal((24, 8))
    with lapis.count_transfers() as t:
        ab = K.gemm(a, b)              # intermediate: device only
        abc = K.matadd(ab, c)          # reads ab in place
        y = K.gemm(abc, d)             # reads abc in place
        host = y.asnumpy()             # the only download
    expected = (a @ b + c) @ d
    print(f"intermediates' host sides allocated: ab={ab.host_allocated}, abc={abc.host_allocated}")
    return finish("chained_residency (gemm -> matadd -> gemm)", host, expected, t)


main(run)
