"""Runs one program of lapis calls (a JSON list of [operation, arguments...] on stdin) and checks
what happens: each call either works or raises one of the exceptions lapis documents; any other
exception, a wrong value or a crash (the process dies by a signal) fails the program. Used by
test_fuzz_calls.py, one fresh interpreter per program, since `finalize` may come at any point.
Separately built modules (the adder example, the C-API probe, LAPIS's matadd from examples/lapis)
are called when LAPIS_FUZZ_MODULES names their folders (JSON: {"adder": ..., "capi_probe": ...,
"matadd": path of libmatadd.so})."""
import json
import os
import sys

import numpy

import lapis
import lapis.kernels as K
from threaded import run_on_threads

# What lapis raises for bad input, misuse and use after finalize (docs/guide: residency.md, kernels.md,
# threads.md).
DOCUMENTED = (TypeError, ValueError, BufferError, IndexError, lapis.ConcurrentModificationError,
              lapis.RuntimeFinalizedError, lapis.TransferGuardError)

SHAPES = [(4,), (2, 2), (3,), (0,), (4, 1)]
# Slice bounds and steps, picked by index: out of range, reversed and empty ranges included.
BOUNDS = [None, 0, 1, 2, -1, -3, 7, 2**70]
STEPS = [None, 1, 2, 3, 2**63, -1, 0, 1]
GUARD_LEVELS = ["allow", "log", "disallow"]


def modules():
    """The separately built modules named by LAPIS_FUZZ_MODULES, imported once."""
    if not hasattr(modules, "loaded"):
        folders = json.loads(os.environ["LAPIS_FUZZ_MODULES"])
        sys.path[:0] = [folders["adder"], folders["capi_probe"]]
        import adder
        import capi_probe
        from lapis import lapis_module
        modules.loaded = {"adder": adder, "capi_probe": capi_probe, "matadd": lapis_module.load(folders["matadd"])}
    return modules.loaded


class Program:
    def __init__(self):
        self.views = []      # DualViews made so far
        self.arrays = []     # numpy arrays exported so far: they must stay readable, finalize or not
        self.finalized = False
        # DualViews whose memory another DualView wraps: writes through one are, by design, not
        # tracked by the other (docs/guide/residency.md, asnumpy), so their values are not predicted
        self.shared = set()

    def view(self, i):
        return self.views[i % len(self.views)] if self.views else lapis.zeros(4)

    def run(self, op, *args):
        getattr(self, "op_" + op)(*args)

    # ---- making DualViews
    def op_zeros(self, shape):
        self.views.append(lapis.zeros(SHAPES[shape % len(SHAPES)]))

    def op_full(self, shape, value):
        dv = lapis.full(SHAPES[shape % len(SHAPES)], float(value))
        self.views.append(dv)

    def op_wrap(self, shape, value, copy):
        a = numpy.full(SHAPES[shape % len(SHAPES)], float(value))
        self.views.append(lapis.DualView(a, copy=bool(copy)))

    def op_wrap_strided(self, value):
        a = numpy.full((4, 6), float(value))[:, ::2]
        self.views.append(lapis.DualView(a))

    def op_uninitialized(self):
        self.views.append(lapis.DualView.__new__(lapis.DualView))

    def op_reinit(self, i):
        self.view(i).__init__(numpy.zeros(3))

    def op_bad_shape(self, kind):
        lapis.zeros([(2.5,), ("3",), (-1,), (2**70,), (1,) * 9][kind % 5])
        raise AssertionError("a bad shape was accepted")

    def op_from_dlpack_of_export(self, i):
        self.wrap_again(self.view(i), lambda dv: lapis.DualView.from_dlpack(dv.asnumpy(writable=True)))

    def op_wrap_dualview(self, i):
        self.wrap_again(self.view(i), lapis.DualView)

    def wrap_again(self, dv, wrap):
        wrapper = wrap(dv)
        self.shared.update((id(dv), id(wrapper)))
        self.views.append(wrapper)

    # ---- parts: they share their whole's state, so their values stay predictable
    def op_slice(self, i, start, stop, step):
        dv = self.view(i)
        key = (slice(BOUNDS[start % 8], BOUNDS[stop % 8], STEPS[step % 8]),) + (slice(None),) * max(dv.ndim - 1, 0)
        self.add_part(dv, key, dv[key])

    def op_index(self, i, at):
        dv = self.view(i)
        key = (at % 7 - 3, Ellipsis)
        self.add_part(dv, key, dv[key])

    def op_reshape(self, i, shape):
        dv = self.view(i)
        extents = SHAPES[shape % len(SHAPES)][:-1] + (-1,)
        part = dv.reshape(*extents)
        if self.predictable(dv):
            numpy.testing.assert_array_equal(part.asnumpy(), dv.asnumpy().reshape(extents))
        self.adopt(dv, part)

    def add_part(self, dv, key, part):
        if self.predictable(dv):
            numpy.testing.assert_array_equal(part.asnumpy(), dv.asnumpy()[key])
        self.adopt(dv, part)

    def adopt(self, whole, part):
        if id(whole) in self.shared:
            self.shared.add(id(part))
        self.views.append(part)

    def predictable(self, *views):
        return not self.finalized and not any(id(dv) in self.shared for dv in views)

    # ---- flags and syncs
    def op_sync_host(self, i):
        self.view(i).sync_host()

    def op_sync_device(self, i):
        self.view(i).sync_device()

    def op_modify_host(self, i):
        self.view(i).modify_host()

    def op_modify_device(self, i):
        self.view(i).modify_device()

    def op_fill(self, i, value):
        dv = self.view(i)
        dv.fill(float(value))
        self.check(dv, float(value))

    def op_probe(self, i):
        dv = self.view(i)
        before = (dv.need_sync_host, dv.need_sync_device, lapis.transfer_stats())
        hasattr(dv, "__cuda_array_interface__")
        assert before == (dv.need_sync_host, dv.need_sync_device, lapis.transfer_stats()), "a probe changed state"

    # ---- exports
    def op_asnumpy(self, i, writable):
        array = self.view(i).asnumpy(writable=bool(writable))
        assert array.dtype != object, "an object array instead of data"
        self.arrays.append(array)

    def op_write_export(self, i, value):
        dv = self.view(i)
        array = dv.asnumpy(writable=True)
        array[...] = float(value)
        self.check(dv, float(value))

    def op_dlpack(self, i):
        dv = self.view(i)
        capsule = dv.__dlpack__()
        if dv.__dlpack_device__()[0] == 1:  # numpy reads host memory only
            self.arrays.append(numpy.from_dlpack(dv))
        del capsule  # never consumed: released by its destructor

    # ---- kernels (wrong shapes, dtypes and overlaps included)
    def op_matadd(self, i, j, k, use_out):
        a, b = self.view(i), self.view(j)
        out = self.view(k) if use_out else None
        expected = None
        if self.predictable(a, b) and a.shape == b.shape and a.ndim and a.dtype == b.dtype == numpy.float64:
            expected = a.asnumpy() + b.asnumpy()
        result = K.matadd(a, b, out=out)
        if expected is not None:
            numpy.testing.assert_array_equal(result.asnumpy(), expected)
        if out is None:
            self.views.append(result)

    def op_matadd_numpy_out(self, i, j):
        a, b = self.view(i), self.view(j)
        out = numpy.full(a.shape, -7.0)
        K.matadd(a, b, out=out)
        if self.predictable(a, b):
            numpy.testing.assert_array_equal(out, a.asnumpy() + b.asnumpy())

    def op_matadd_export_as_input(self, i):
        c = self.view(i)
        if c.size == 0:
            return
        K.matadd(c.asnumpy(), c.asnumpy(), out=c)  # the output's own memory: must be refused
        raise AssertionError("an export of out passed as input was not refused")

    def op_dot(self, i, j):
        x, y = self.view(i), self.view(j)
        expected = None
        if self.predictable(x, y) and x.shape == y.shape and x.ndim == 1:
            expected = float(numpy.dot(x.asnumpy(), y.asnumpy()))
        got = K.dot(x, y)
        if expected is not None:
            assert got == expected, (got, expected)

    def op_gemm(self, i, j):
        a, b = self.view(i), self.view(j)
        r = K.gemm(a, b)
        if self.predictable(a, b):
            numpy.testing.assert_allclose(r.asnumpy(), a.asnumpy() @ b.asnumpy())
        self.views.append(r)

    # ---- separately built modules, on lapis's one runtime
    def op_module_add(self, i, j):
        a, b = self.view(i), self.view(j)
        expected = None
        if self.predictable(a, b) and a.shape == b.shape and a.ndim == 2 and a.dtype == b.dtype == numpy.float64:
            expected = a.asnumpy() + b.asnumpy()
        result = modules()["adder"].add(a, b)
        if expected is not None:
            numpy.testing.assert_array_equal(result.asnumpy(), expected)
        self.views.append(result)

    def op_module_fill_numpy(self, shape, value):
        array = numpy.zeros(SHAPES[shape % len(SHAPES)][0])
        modules()["capi_probe"].fill(array, float(value))
        numpy.testing.assert_array_equal(array, float(value))  # written in place: nothing lost

    def op_lapis_matadd(self, i, j, use_out):
        a, b = self.view(i), self.view(j)
        expected = None
        if self.predictable(a, b) and a.shape == b.shape and a.ndim == 2 and a.dtype == b.dtype == numpy.float64:
            expected = a.asnumpy() + b.asnumpy()
        matadd = modules()["matadd"]
        out = numpy.zeros(a.shape)
        result = matadd.forward_out(a, b, out) if use_out else matadd.forward(a, b)
        if expected is not None:
            numpy.testing.assert_array_equal(result.asnumpy(), expected)
            if use_out:
                numpy.testing.assert_array_equal(out, expected)  # written back before the call returned

    # ---- the transfer guard: a refused copy raises before anything changes
    def op_guard(self, level):
        lapis.set_transfer_guard(GUARD_LEVELS[level % 3])

    # ---- threads: calls that only read their inputs, from two threads at once, answer as alone
    def op_threads(self, i, j):
        a, b = self.view(i), self.view(j)
        expected = None
        if self.predictable(a, b) and a.shape == b.shape and a.ndim and a.dtype == b.dtype == numpy.float64:
            expected = a.asnumpy() + b.asnumpy()
        failures = []

        def read_and_add():
            try:
                for _ in range(3):
                    result = K.matadd(a, b)
                    if expected is not None:
                        numpy.testing.assert_array_equal(result.asnumpy(), expected)
            except DOCUMENTED:
                pass
            except BaseException as error:  # handed to the main thread, which fails the program
                failures.append(error)

        run_on_threads(read_and_add, 2)
        if failures:
            raise failures[0]

    # ---- lifetime
    def op_drop(self, i):
        if self.views:
            del self.views[i % len(self.views)]

    def op_finalize(self):
        lapis.finalize()
        self.finalized = True

    def check(self, dv, value):
        if self.predictable(dv):
            numpy.testing.assert_array_equal(dv.asnumpy(), numpy.full(dv.shape, value))

    def exported_arrays_are_readable(self):
        for array in self.arrays:
            assert numpy.isfinite(array).all()


def main():
    program = Program()
    for step in json.load(sys.stdin):
        try:
            program.run(*step)
        except DOCUMENTED:
            pass
    program.exported_arrays_are_readable()
    print("ok")


if __name__ == "__main__":
    main()
