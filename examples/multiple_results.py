"""One call, two results: the LAPIS-style module's sum_and_product(a, b) returns (a + b, a * b) as a
tuple of DualViews, both left on the device. Feeding them to the next calls moves nothing; each
comes down once, when read. LAPIS's memref entry point for the same function (one result
descriptor per result) uploads both inputs and downloads both results on every call."""
import ctypes
import pathlib
import sys

import numpy

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "lapis_style"))
import _module  # noqa: E402
from _example import finish, main, rng  # noqa: E402

import lapis  # noqa: E402
from lapis import memref  # noqa: E402


def run():
    module = _module.load()
    r = rng()
    a_host, b_host = r.standard_normal((40, 30)), r.standard_normal((40, 30))
    with lapis.count_transfers() as t:
        total, product = module.dv_sum_and_product(lapis.DualView(a_host), lapis.DualView(b_host))
        again, _ = module.dv_sum_and_product(total, product)   # both results read in place
        result = again.asnumpy()
    print(f"results resident: sum on host {total.host_allocated}, product on host {product.host_allocated}")
    expected = (a_host + b_host) + a_host * b_host
    with lapis.count_transfers() as through_memrefs:
        descriptor = memref.descriptor_type(ctypes.c_double, 2)
        sum_result, product_result = descriptor(), descriptor()
        inputs = [memref.descriptor(lapis.DualView(a)) for a in (a_host, b_host)]
        module.py_sum_and_product(ctypes.byref(sum_result), ctypes.byref(product_result), *map(ctypes.byref, inputs))
    print(f"memref entry point, 1 call: {through_memrefs.h2d_count} uploads, {through_memrefs.d2h_count} downloads")
    if not (numpy.allclose(memref.from_descriptor(sum_result).asnumpy(), a_host + b_host)
            and numpy.allclose(memref.from_descriptor(product_result).asnumpy(), a_host * b_host)):
        print("MISMATCH: the memref entry point")
        return 1
    return finish("multiple_results (sum_and_product, then again on its two results)", result, expected, t)


if __name__ == "__main__":
    main(run)
