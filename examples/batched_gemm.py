"""batched_gemm with an allocating call."""
import lapis
import lapis.kernels as K
from _example import finish, main, rng


def run():
    r = rng()
    a, b = r.standard_normal((8, 16, 12)), r.standard_normal((8, 12, 10))
    with lapis.count_transfers() as t:
        host = K.batched_gemm(a, b).asnumpy()
    return finish("batched_gemm", host, a @ b, t)


main(run)
