"""Misuse from pure Python raises a Python exception, never crashes: objects that skipped
__init__, __init__ called twice, shape arguments that are not ints."""
import subprocess
import sys
import textwrap

import numpy
import pytest

import lapis
import lapis.kernels as K
from conftest import APART


def test_dualviews_that_skipped_init_raise_typeerror_and_never_crash():
    # in a subprocess: before the fix, the first of these was a segfault
    code = textwrap.dedent("""
        import numpy, lapis, lapis.kernels as K

        class Lazy(lapis.DualView):
            def __init__(self, obj):   # never calls DualView.__init__
                pass

        uses = {
            "ndim": lambda dv: dv.ndim, "size": lambda dv: dv.size, "nbytes": lambda dv: dv.nbytes,
            "need_sync_host": lambda dv: dv.need_sync_host, "host_allocated": lambda dv: dv.host_allocated,
            "is_borrowed": lambda dv: dv.is_borrowed, "transfers": lambda dv: dv.transfers,
            "sync_host": lambda dv: dv.sync_host(), "sync_device": lambda dv: dv.sync_device(),
            "modify_host": lambda dv: dv.modify_host(), "fill": lambda dv: dv.fill(1.0),
            "asnumpy": lambda dv: dv.asnumpy(), "asmemref": lambda dv: dv.asmemref(),
            "numpy.asarray": lambda dv: numpy.asarray(dv), "memoryview": lambda dv: memoryview(dv),
            "__dlpack__": lambda dv: dv.__dlpack__(), "matadd": lambda dv: K.matadd(dv, dv),
            "matadd out": lambda dv: K.matadd(numpy.ones(2), numpy.ones(2), out=dv),
            "dot": lambda dv: K.dot(dv, numpy.ones(2)),
        }
        for make in (lambda: lapis.DualView.__new__(lapis.DualView), lambda: Lazy(numpy.ones(3))):
            dv = make()
            assert repr(dv).startswith("<uninitialized"), repr(dv)
            for name, use in uses.items():
                try:
                    use(dv)
                except TypeError as e:
                    assert "never initialized" in str(e), (name, e)
                else:
                    raise AssertionError(f"{name} did not raise")
        print("ok")
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, (result.returncode, result.stdout, result.stderr)
    assert result.stdout == "ok\n" and result.stderr == ""


def test_init_called_again_raises_and_keeps_exports_valid():
    dv = lapis.DualView(numpy.arange(4.0), copy=True)
    exported = dv.asnumpy()
    with pytest.raises(TypeError, match="already initialized"):
        dv.__init__(numpy.zeros(8))
    numpy.testing.assert_array_equal(exported, numpy.arange(4.0))
    numpy.testing.assert_array_equal(dv.asnumpy(), numpy.arange(4.0))
    assert dv.shape == (4,)


@pytest.mark.parametrize("shape", [2.5, (2, 3.0), ("2",), (numpy.float64(2),), None])
def test_shape_entries_must_be_ints(shape):
    with pytest.raises(TypeError):
        lapis.zeros(shape)


@pytest.mark.parametrize("shape", [(2**64,), (2**70, 1), (-1,)])
def test_shapes_beyond_memory_raise_valueerror(shape):
    with pytest.raises(ValueError):
        lapis.zeros(shape)


@pytest.mark.parametrize("shape", [(3.7, 4), ("3", "4"), (3, 4, 5), 3])
def test_sparse_matrix_shapes_must_be_pairs_of_ints(shape):
    indptr, indices, data = numpy.array([0, 1, 1, 1]), numpy.array([0]), numpy.array([1.0])
    with pytest.raises(ValueError, match="pair of ints"):
        K.spmv(indptr, indices, data, numpy.ones(4), shape=shape)


def _structured_field():
    return numpy.zeros(5, dtype=[("i", "i4"), ("x", "f8")])["x"]  # packed: strides of 12 bytes


def _misaligned():
    return numpy.zeros(8 * 5 + 1, numpy.uint8)[1:].view(numpy.float64)


@pytest.mark.parametrize("make", [_structured_field, _misaligned, lambda: numpy.arange(5.0)[::-1]],
                         ids=["structured-field", "misaligned", "negative-strides"])
def test_memory_a_device_view_cannot_address_gets_a_device_side_of_its_own(make):
    host = make()
    host[...] = numpy.arange(1.0, 6.0)
    dv = lapis.DualView(host)
    assert "aliased" not in repr(dv)
    with lapis.count_transfers() as t:   # a real copy on every device, as the README says
        assert K.dot(dv, numpy.ones(5)) == 15.0
    assert (t.h2d_count, t.h2d_bytes) == (1 + APART, 40 + 40 * APART)  # dv, and the ones where sides are apart
    dv.fill(3.0)
    with lapis.count_transfers() as t:
        dv.sync_host()
    assert t == lapis.TransferStats(d2h_count=1, d2h_bytes=40)
    numpy.testing.assert_array_equal(host, 3.0)


EXPORTS = {
    "asnumpy": lambda dv: dv.asnumpy(),
    "asnumpy-writable": lambda dv: dv.asnumpy(writable=True),
    "dualview-of-dualview": lambda dv: lapis.DualView(dv),
    "from-dlpack-of-asnumpy": lambda dv: lapis.DualView.from_dlpack(dv.asnumpy(writable=True)),
    "numpy-from-dlpack": lambda dv: numpy.from_dlpack(dv),   # the device side, where numpy can read it
}


@pytest.mark.parametrize("export", EXPORTS.values(), ids=EXPORTS.keys())
def test_an_export_of_the_output_passed_as_input_is_refused(export):
    if export is EXPORTS["numpy-from-dlpack"] and lapis.DualView(numpy.zeros(1)).__dlpack_device__()[0] != 1:
        pytest.skip("numpy cannot read CUDA memory")
    ones = numpy.ones((3, 3))
    c = K.matadd(ones, ones)                           # lapis-owned memory
    alias = export(c)
    with pytest.raises(ValueError, match="overlaps the input a"):
        K.matadd(alias, ones, out=c)
    numpy.testing.assert_array_equal(c.asnumpy(), 2.0)  # nothing written


@pytest.mark.parametrize("export", ["asnumpy-writable", "from-dlpack-of-asnumpy"])
def test_the_owner_passed_as_input_with_its_export_as_out_is_refused(export):
    ones = numpy.ones(4)
    c = K.matadd(ones, ones)
    alias = EXPORTS[export](c)
    with pytest.raises(ValueError, match="overlaps the input b"):
        K.matadd(ones, c, out=alias)


def test_disjoint_parts_of_one_array_do_not_overlap():
    a = numpy.zeros((4, 4))
    K.matadd(numpy.ones((4, 2)), numpy.ones((4, 2)), out=a[:, ::2])  # a read-only input beside it
    K.matadd(a[:, ::2], numpy.ones((4, 2)), out=a[:, 1::2])          # interleaved, never the same bytes
    numpy.testing.assert_array_equal(a, numpy.tile([2.0, 3.0], (4, 2)))
