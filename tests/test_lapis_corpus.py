"""LAPIS's emitter output on lapis: the corpus in examples/lapis (modules written to the emitter's
rules, with the support header pasted as the emitter pastes it), built by `lapis build` against the
installed package. Each module is driven the way LAPIS drives it (its py_ entry points over memref
descriptors, as the generated ctypes Python calls them) and through lapis's resident entry points
(lapis.lapis_module); values are checked against numpy, and copies exactly where the sides are apart."""
import ctypes
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap

import numpy
import pytest

import lapis
from conftest import APART, SIMULATED_AVAILABLE, counts
from lapis import lapis_module

ROOT = pathlib.Path(__file__).parent.parent
sys.path.insert(0, str(ROOT / "examples" / "lapis"))
import _corpus  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("meson", path=os.path.dirname(sys.executable) + os.pathsep
                                             + os.environ["PATH"]) is None, reason="meson is not installed")


@pytest.fixture(scope="module")
def corpus():
    _corpus.build()
    return {name: lapis_module.load(_corpus.path(name)) for name in _corpus.built_modules()}


@pytest.fixture(scope="module")
def memref_modules(corpus):
    return {name: _corpus.MemrefModule(_corpus.path(name)) for name in _corpus.built_modules()}


def skip_unless_built(name):
    """Skips the test where module `name` needs a newer Kokkos than lapis runs (_corpus.KOKKOS4), saying so."""
    reason = _corpus.kokkos4_skip_reason(name)
    if reason is not None:
        pytest.skip(reason)


@pytest.fixture
def rng():
    return numpy.random.default_rng(5)


def test_gemm_through_both_paths(corpus, memref_modules, rng):
    a, b = rng.standard_normal((6, 5)), rng.standard_normal((5, 4))
    with lapis.count_transfers() as t:  # LAPIS's path: every input up, the result down, every call
        c = memref_modules["gemm"].forward(a, b)
    assert t == counts(2, a.nbytes + b.nbytes, 1, 6 * 4 * 8)
    numpy.testing.assert_allclose(c, a @ b)
    A, B = lapis.DualView(a), lapis.DualView(b)
    with lapis.count_transfers() as t:  # lapis's: inputs up once, ten results resident, one read
        for _ in range(10):
            r = corpus["gemm"].forward(A, B)
        values = r.asnumpy()
    assert t == counts(2, a.nbytes + b.nbytes, 1, 6 * 4 * 8)
    numpy.testing.assert_allclose(values, a @ b)


def test_batched_gemm_in_float32(corpus, memref_modules, rng):
    a, b = rng.standard_normal((3, 4, 5)).astype(numpy.float32), rng.standard_normal((3, 5, 2)).astype(numpy.float32)
    numpy.testing.assert_allclose(memref_modules["batched_gemm"].forward(a, b), a @ b, rtol=1e-5)
    r = corpus["batched_gemm"].forward(a, b)
    assert r.dtype == numpy.float32 and r.shape == (3, 4, 2)
    numpy.testing.assert_allclose(r.asnumpy(), a @ b, rtol=1e-5)


def test_module_calls_and_their_copies_are_traced_to_the_calling_line(corpus, rng):
    a, b = rng.standard_normal((6, 5)), rng.standard_normal((5, 4))
    with lapis.trace() as t:
        c = corpus["gemm"].forward(a, b)
        line = sys._getframe().f_lineno - 1
        c.asnumpy()
    calls = [(e.name, e.line) for e in t.events if e.kind == "call"]
    assert calls == [("forward", line)]
    uploads = [e.line for e in t.events if e.kind == "copy" and e.detail == "host->device"]
    assert uploads == ([line, line] if APART else [])


def test_a_chain_across_two_modules_moves_nothing_between_calls(corpus, rng):
    a, b = rng.standard_normal((8, 8)), rng.standard_normal((8, 8))
    c = corpus["gemm"].forward(a, b)
    with lapis.count_transfers() as t:
        d = corpus["matadd"].forward(c, c)
        e = corpus["gemm"].forward(d, c)
    assert t == lapis.TransferStats()
    numpy.testing.assert_allclose(e.asnumpy(), (2 * (a @ b)) @ (a @ b))


def test_a_numpy_output_holds_the_result_when_the_call_returns(corpus, memref_modules, rng):
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    out = numpy.zeros((4, 3))
    with lapis.count_transfers() as t:
        returned = corpus["matadd"].forward_out(a, b, out)
    numpy.testing.assert_allclose(out, a + b)  # written back before control returned
    numpy.testing.assert_allclose(returned.asnumpy(), a + b)
    # the emitter syncs an output to the device before marking it (its rule: sync, then modify)
    assert t == counts(3, 3 * a.nbytes, 1, a.nbytes)
    out_memref = numpy.zeros((4, 3))
    numpy.testing.assert_allclose(memref_modules["matadd"].forward_out(a, b, out_memref), a + b)
    numpy.testing.assert_allclose(out_memref, a + b)  # LAPIS's path writes it back through the result's sync


def test_a_tuple_result_with_a_scalar_and_results_taken_with_tie(corpus, memref_modules, rng):
    x, y = rng.standard_normal(7), rng.standard_normal(7)
    total, dot = memref_modules["multiple_results"].sum_and_dot(x, y)
    numpy.testing.assert_allclose(total, x + y)
    assert dot == pytest.approx(x @ y)
    X = lapis.DualView(x)  # a numpy array is borrowed afresh by each call: this one goes up once
    with lapis.count_transfers() as t:
        total, dot = corpus["multiple_results"].sum_and_dot(X, y)
        again, combined = corpus["multiple_results"].program(total, X)  # two calls of sum_and_dot inside
    assert t == counts(2, 2 * x.nbytes)
    assert isinstance(dot, float) and dot == pytest.approx(x @ y)
    s = x + y
    numpy.testing.assert_allclose(again.asnumpy(), (s + x) + s)
    assert combined == pytest.approx(s @ x + (s + x) @ s)


def test_spmv_with_the_storage_specifier_struct(corpus, memref_modules, rng):
    scipy_sparse = pytest.importorskip("scipy.sparse")
    matrix = scipy_sparse.random(30, 20, density=0.2, format="csr", random_state=3)
    indptr, indices = matrix.indptr.astype(numpy.int64), matrix.indices.astype(numpy.int64)
    x = rng.standard_normal(20)
    specifier = [30, 20, 31, matrix.nnz, matrix.nnz]
    numpy.testing.assert_allclose(memref_modules["spmv"].spmv(indptr, indices, matrix.data, specifier, x), matrix @ x)
    y = corpus["spmv"].spmv(indptr, indices, matrix.data, specifier, x)
    numpy.testing.assert_allclose(y.asnumpy(), matrix @ x)
    with pytest.raises(ValueError, match="expected 5 int64 values"):
        corpus["spmv"].spmv(indptr, indices, matrix.data, specifier[:4], x)


def test_children_subview_and_reshape(corpus, memref_modules, rng):
    a = rng.standard_normal((5, 8))
    numpy.testing.assert_allclose(memref_modules["children"].column_sums(a), a[:, 1::2].sum(axis=0))
    sums = corpus["children"].column_sums(a)
    numpy.testing.assert_allclose(sums.asnumpy(), a[:, 1::2].sum(axis=0))
    in_place = a.copy()
    corpus["children"].scale_in_place(in_place)  # through a reshaped child, into the caller's array
    numpy.testing.assert_allclose(in_place, 2 * a)
    dv = lapis.DualView(a.copy())
    dv.sync_device()
    with lapis.count_transfers() as t:
        same = corpus["children"].scale_in_place(dv)  # the parameter returned: its own state
        twice = corpus["children"].scale_in_place(same)
    assert t == lapis.TransferStats()
    assert dv.need_sync_host  # the device side was written, on any device
    numpy.testing.assert_allclose(twice.asnumpy(), 4 * a)
    numpy.testing.assert_allclose(dv.asnumpy(), 4 * a)


def test_rank_0_static_extents_and_alloca(corpus, memref_modules, rng):
    a = rng.standard_normal((4, 4))
    factors = 1.5 * numpy.arange(1, 5)
    numpy.testing.assert_allclose(memref_modules["buffers"].scale_rows(a, numpy.array(1.5)), a * factors[:, None])
    scaled = corpus["buffers"].scale_rows(a, numpy.array(1.5))
    assert scaled.shape == (4, 4)
    numpy.testing.assert_allclose(scaled.asnumpy(), a * factors[:, None])
    trace = corpus["buffers"].trace(scaled)
    assert trace.shape == () and trace.asnumpy() == pytest.approx(numpy.trace(a * factors[:, None]))
    assert memref_modules["buffers"].trace(a) == pytest.approx(numpy.trace(a))
    with pytest.raises(ValueError, match="extent 1 is 3"):  # a static extent: the type's, checked
        corpus["buffers"].trace(numpy.ones((4, 3)))


def test_a_sparse_runtime_result_syncs_its_host_side_when_it_dies(corpus, rng):
    runtime = ctypes.CDLL(str(_corpus.build() / "libsparse_runtime.so"))
    runtime.toy_sparse_tensor.restype = runtime.toy_sparse_tensor_values.restype = ctypes.c_void_p
    values = rng.standard_normal(6)
    tensor = runtime.toy_sparse_tensor(values.ctypes.data_as(ctypes.c_void_p), ctypes.c_int64(6))
    storage = numpy.ctypeslib.as_array(ctypes.cast(runtime.toy_sparse_tensor_values(ctypes.c_void_p(tensor)),
                                                   ctypes.POINTER(ctypes.c_double)), (6,))
    try:
        with lapis.count_transfers() as t:
            scaled = corpus["sparse_values"].scale_values(tensor, 3.0)
        # up once for the kernel; down once when the function's own handle died (syncHostOnDestroy)
        assert t == counts(1, 48, 1, 48)
        numpy.testing.assert_allclose(storage, 3 * values)  # the runtime's memory holds the result
        numpy.testing.assert_allclose(scaled.asnumpy(), 3 * values)
        del scaled
    finally:
        runtime.toy_sparse_tensor_delete(ctypes.c_void_p(tensor))


def test_team_policies_with_atomics(corpus, memref_modules, rng):
    values = rng.integers(0, 10, 1000)
    numpy.testing.assert_array_equal(memref_modules["team_atomics"].histogram(values, 10),
                                     numpy.bincount(values, minlength=10))
    numpy.testing.assert_array_equal(corpus["team_atomics"].histogram(values, 10).asnumpy(),
                                     numpy.bincount(values, minlength=10))
    x = rng.standard_normal(300)
    x[[3, 150]] = numpy.nan  # maxnum: a NaN loses to a number
    assert corpus["team_atomics"].max_abs(x).asnumpy() == numpy.nanmax(numpy.abs(x))
    with pytest.raises(ValueError, match="out of range"):
        corpus["team_atomics"].histogram(values, -1)


def test_an_atomic_add_whose_old_value_is_unused(corpus, memref_modules, rng):
    vec = rng.standard_normal(1000)
    # atomics_test sets a one-element sum to 0 on the host, adds into it on the device, reads it on the host:
    # the input and the sum go up, the sum comes down, on either path
    with lapis.count_transfers() as t:
        total = memref_modules["atomics"].atomics_test(vec)
    assert t == counts(2, vec.nbytes + 8, 1, 8)
    assert total == pytest.approx(vec.sum(), rel=1e-12, abs=1e-12)
    V = lapis.DualView(vec)
    with lapis.count_transfers() as t:
        total = corpus["atomics"].atomics_test(V)
        again = corpus["atomics"].atomics_test(V)  # the input is on the device already
    assert t == counts(3, vec.nbytes + 16, 2, 16)
    assert isinstance(total, float) and total == pytest.approx(vec.sum(), rel=1e-12, abs=1e-12)
    assert again == pytest.approx(total, rel=1e-12, abs=1e-12)


def test_an_atomic_whose_old_value_a_per_thread_single_broadcasts(corpus, memref_modules, rng):
    rows, cols = 37, 53
    x = rng.standard_normal((rows, cols))
    row_sums = numpy.abs(x).sum(axis=1)

    def check(out, order):  # each row claimed one slot: its sum and its index are stored there
        numpy.testing.assert_array_equal(numpy.sort(order), numpy.arange(rows))
        numpy.testing.assert_allclose(out, row_sums[order], rtol=1e-12)

    with lapis.count_transfers() as t:  # x and the claim counter (set to 0 on the host) up, both results down
        check(*memref_modules["atomics"].row_abs_sums(x))
    assert t == counts(2, x.nbytes + 8, 2, 2 * rows * 8)
    with lapis.count_transfers() as t:
        out, order = corpus["atomics"].row_abs_sums(x)
    assert t == counts(2, x.nbytes + 8)  # both results stay on the device
    assert out.dtype == numpy.float64 and order.dtype == numpy.int64 and out.shape == order.shape == (rows,)
    with lapis.count_transfers() as t:
        check(out.asnumpy(), order.asnumpy())
    assert t == counts(0, 0, 2, 2 * rows * 8)


def maxpool_reference(x):
    """LAPIS's maxpool example in numpy: padded by 1 with -inf, window 3x3, stride 3, dilation 2."""
    padded = numpy.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-numpy.inf)
    return numpy.max([padded[:, :, 2 * kh:2 * kh + 16:3, 2 * kw:2 * kw + 28:3] for kh in range(3) for kw in range(3)],
                     axis=0)


@pytest.mark.parametrize("function", ["forward_batch", "forward_batch_spill"])
def test_a_team_level_module_with_scratch_run_by_its_launcher(corpus, memref_modules, rng, function):
    skip_unless_built("maxpool_team")
    x = rng.standard_normal((2, 3, 20, 30)).astype(numpy.float32)
    expected = maxpool_reference(x)
    with lapis.count_transfers() as t:  # LAPIS's path: the input up, the result down
        numpy.testing.assert_array_equal(getattr(memref_modules["maxpool_team"], function)(x), expected)
    assert t == counts(1, x.nbytes, 1, expected.nbytes)
    X = lapis.DualView(x)
    with lapis.count_transfers() as t:  # lapis's: the input up once, the results resident, one read
        for _ in range(3):
            r = getattr(corpus["maxpool_team"], function)(X)
        values = r.asnumpy()
    assert t == counts(1, x.nbytes, 1, expected.nbytes)
    assert r.dtype == numpy.float32 and r.shape == (2, 3, 6, 10)
    numpy.testing.assert_array_equal(values, expected)


def test_the_padded_image_in_level_0_or_spilled_to_level_1_gives_the_same_values(corpus, rng):
    skip_unless_built("maxpool_team")
    x = lapis.DualView(rng.standard_normal((5, 3, 20, 30)).astype(numpy.float32))
    in_l0, spilled = corpus["maxpool_team"].forward_batch(x), corpus["maxpool_team"].forward_batch_spill(x)
    numpy.testing.assert_array_equal(in_l0.asnumpy(), spilled.asnumpy())
    numpy.testing.assert_array_equal(in_l0.asnumpy(), maxpool_reference(x.asnumpy()))
    with lapis.count_transfers() as t, pytest.raises(ValueError, match=r"\[N, 3, 20, 30\], not \[2, 3, 20, 31\]"):
        corpus["maxpool_team"].forward_batch(numpy.zeros((2, 3, 20, 31), numpy.float32))  # the launcher checks the extents
    assert t == lapis.TransferStats()


def test_a_dualview_global_with_initial_data(corpus, memref_modules):
    x = numpy.arange(4.0)
    numpy.testing.assert_allclose(corpus["globals"].add_weights(x).asnumpy(), x + [0.5, 1.5, 2.5, 3.5])
    numpy.testing.assert_allclose(memref_modules["globals"].add_weights(x), x + [0.5, 1.5, 2.5, 3.5])
    with lapis.count_transfers() as t:  # the global went up once, at lapis_initialize
        corpus["globals"].add_weights(lapis.full(4, 1.0))
    assert t == lapis.TransferStats()


@pytest.mark.parametrize("bad,error,words", [
    (numpy.ones(3), ValueError, "rank 1 as rank 2"),
    (numpy.ones((3, 2), numpy.float32), TypeError, "float32 elements as float64"),
    ("text", TypeError, "expected an array or a lapis.DualView"),
    (None, TypeError, "expected an array or a lapis.DualView"),
], ids=["rank", "dtype", "not an array", "None"])
def test_bad_input_raises_before_anything_runs(corpus, bad, error, words):
    b = numpy.ones((2, 2))
    with lapis.count_transfers() as t, pytest.raises(error, match=words):
        corpus["gemm"].forward(bad, b)
    assert t == lapis.TransferStats()
    with pytest.raises(TypeError, match="takes 2 arguments"):
        corpus["gemm"].forward(b)
    with pytest.raises(TypeError, match="expected a uint64 number, not float"):
        corpus["team_atomics"].histogram(numpy.zeros(3, numpy.int64), 2.5)


def test_a_finalized_runtime_refuses_before_anything_runs():
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT / "examples" / "lapis")!r})
        import numpy, lapis, _corpus
        from lapis import lapis_module
        module = lapis_module.load(_corpus.path("gemm"))
        kept = lapis.DualView(numpy.ones((2, 2)))
        lapis.finalize()
        for arguments in [(numpy.ones((2, 2)), numpy.ones((2, 2))), (kept, kept)]:
            try:
                module.forward(*arguments)
            except lapis.RuntimeFinalizedError as e:
                print("refused")
        try:  # its lapis_initialize would start a second Kokkos after lapis's
            lapis_module.load(_corpus.path("matadd"))
        except lapis.RuntimeFinalizedError as e:
            print("refused")
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert result.stdout == "refused\nrefused\nrefused\n"  # nothing from a Kokkos initialized again


@pytest.mark.parametrize("driver", ["gemm_driver", "batched_gemm_driver"])
@pytest.mark.parametrize("device", ["default", "simulated"])
def test_cpp_drivers_in_lapis_benchmark_shape(driver, device):
    if device == "simulated" and not SIMULATED_AVAILABLE:
        pytest.skip("no simulated device on this build")
    result = subprocess.run([str(_corpus.build() / driver)], capture_output=True, text=True, timeout=300,
                            env=dict(os.environ, LAPIS_DEVICE=device, OMP_PROC_BIND="false"))
    assert result.returncode == 0, result.stdout + result.stderr
    # inputs filled on the device and synced once before the calls: eleven calls move nothing; the
    # one download is the final read (none where the sides are one memory)
    downloads = 1 if device == "simulated" or not SIMULATED_AVAILABLE else 0
    assert f"0 uploads, {downloads} downloads" in result.stdout


@pytest.mark.parametrize("device", ["default", "simulated"])
def test_the_team_level_driver_in_the_shape_of_lapis_main(device):
    skip_unless_built("maxpool_team")
    if device == "simulated" and not SIMULATED_AVAILABLE:
        pytest.skip("no simulated device on this build")
    result = subprocess.run([str(_corpus.build() / "maxpool_team_driver")], capture_output=True, text=True, timeout=300,
                            env=dict(os.environ, LAPIS_DEVICE=device, OMP_PROC_BIND="false"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "maximum elementwise diff 0, 0 values differ when spilled" in result.stdout
    # the input copied to the device before the calls: twelve calls move nothing; the two downloads are the
    # final reads of the two results (none where the sides are one memory)
    downloads = 2 if device == "simulated" or not SIMULATED_AVAILABLE else 0
    assert f"0 uploads, {downloads} downloads" in result.stdout


MLIR_INCLUDE = os.environ.get("LAPIS_MLIR_INCLUDE", "")


@pytest.mark.skipif(not (pathlib.Path(MLIR_INCLUDE) / "mlir" / "ExecutionEngine" / "CRunnerUtils.h").is_file(),
                    reason="MLIR's CRunnerUtils.h is not at LAPIS_MLIR_INCLUDE (the test command fetches it)")
@pytest.mark.parametrize("order", ["mlir first", "lapis first"])
def test_strided_memref_type_is_mlirs_in_one_translation_unit(tmp_path, order):
    if "CUDA" in lapis.runtime_info()["kokkos_backends"]:
        pytest.skip("lapis's Kokkos is a CUDA Kokkos: its users compile with nvcc")
    includes = ["#include <mlir/ExecutionEngine/CRunnerUtils.h>", "#include <lapis/interop/lapis_compat.hpp>"]
    if order == "lapis first":
        includes.reverse()
    source = tmp_path / "both.cpp"
    source.write_text("\n".join(includes) + textwrap.dedent("""
        static_assert(sizeof(StridedMemRefType<float, 2>) == 56);
        int rank_one(StridedMemRefType<double, 1>& m) { return m[0] > 0; }  // MLIR's operator[]
        auto descriptor = LAPIS::viewToStridedMemref(Kokkos::View<double*, Kokkos::HostSpace>());
        """))
    pkgconfig = subprocess.check_output([sys.executable, "-m", "lapis", "--pkgconfigdir"], text=True).strip()
    flags = subprocess.check_output(["pkg-config", "--cflags", "lapis-dualview"], text=True,
                                    env=dict(os.environ, PKG_CONFIG_PATH=pkgconfig)).split()
    result = subprocess.run(["c++", "-std=c++17", "-fsyntax-only", *flags, f"-I{MLIR_INCLUDE}", str(source)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
