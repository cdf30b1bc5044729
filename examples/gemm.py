"""gemm with an allocating call: the result stays on the device until .asnumpy() reads it once."""
import lapis
import lapis.kernels as K
from _example import finish, main, rng


def run():
    r = rng()
    a, b = r.standard_normal((64, 32)), r.standard_normal((32, 48))
    with lapis.count_transfers() as t:
        c = K.gemm(a, b)        # two uploads; nothing comes back
        host = c.asnumpy()      # the one download
    return finish("gemm", host, a @ b, t)


main(run)
