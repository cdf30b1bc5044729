"""lapis.kernels, one entry per kernel: its name, its arguments (name, rank, group, role), its
shape rule and its C++ call, stated once. generate.py derives from it the bridge's C++ entry points,
their Cython declarations, the Python wrappers and the type stubs (vocabulary.py says what each word
means). A kernel's checks of extents and sparse structure are its C++ header's."""
from vocabulary import (ANY_RANK, ANY_RANK_OR_SCALAR, KEYWORD_ONLY, Integer, Kernel, MatrixShape, Number, Operand,
                        SparseMatrix, indices, reads, reads_writes, result, writes)

_OPERANDS = ("Each operand is an array (rank 0 to 4; those given must share one shape) or a scalar: a Python or "
             "NumPy number, or a 0-d array or DualView (read on the device, so a result left there by an earlier "
             "kernel moves nothing).")


def _elementwise(name, doc):
    return Kernel(name, doc, [Operand("x"), Operand("y"), result("out", ANY_RANK_OR_SCALAR, in_place=True)],
                  shape=("kernels::detail::result_extents", ["kernel", "x", "y"]), cpp="kernels::arithmetic",
                  call=[f"kernels::Operation::{name}", "x", "y", "out"])


KERNELS = [
    Kernel("gemm", "(m, k) @ (k, n) -> (m, n).",
           [reads("a", 2), reads("b", 2), result("out", 2)],
           shape=("kernels::gemm_extents", ["a", "b"])),
    Kernel("batched_gemm", "(batch, m, k) @ (batch, k, n) -> (batch, m, n).",
           [reads("a", 3), reads("b", 3), result("out", 3)],
           shape=("kernels::batched_gemm_extents", ["a", "b"])),
    Kernel("matadd", "Elementwise a + b for arrays of equal shape, rank 1 to 4; out may be a or b itself.",
           [reads("a", ANY_RANK), reads("b", ANY_RANK), result("out", ANY_RANK, in_place=True)],
           shape=("kernels::matadd_extents", ["a", "b"])),
    Kernel("maxpool_nchw",
           "2-D max pooling of an (N, C, H, W) array, as torch.nn.MaxPool2d(kernel_size, stride, padding, dilation): "
           "padding never wins the max; NaN propagates.",
           [reads("x", 4), Integer("kernel_size", 3), Integer("stride", 1), Integer("padding", 1),
            Integer("dilation", 2), result("out", 4)],
           shape=("kernels::maxpool_nchw_extents", ["x", "kernels::Pool2d{kernel_size, stride, padding, dilation}"]),
           call=["x", "out", "kernels::Pool2d{kernel_size, stride, padding, dilation}"]),
    Kernel("conv2d_nchw",
           "2-D convolution of an (N, C, H, W) array with weights (K, C, R, S) and an optional bias of K, as "
           "torch.nn.Conv2d (cross-correlation, zero padding, the same stride and padding in both dimensions) -> "
           "(N, K, P, Q).",
           [reads("x", 4), reads("w", 4), reads("bias", 1, optional=True), KEYWORD_ONLY, Integer("stride", 1),
            Integer("padding", 0), result("out", 4)],
           shape=("kernels::conv2d_nchw_extents", ["x", "w", "kernels::Conv2d{stride, padding}"]),
           call=["x", "w", "bias", "out", "kernels::Conv2d{stride, padding}"]),
    Kernel("batchnorm_nchw",
           "Inference batch normalization of an (N, C, H, W) array, as torch.nn.BatchNorm2d in eval mode: "
           "(x - mean) / sqrt(var + eps) * weight + bias, each of those a vector of C. out may be x itself.",
           [reads("x", 4), reads("mean", 1), reads("var", 1), reads("weight", 1), reads("bias", 1), KEYWORD_ONLY,
            Number("eps", 1e-5), result("out", 4, in_place=True)],
           shape=("kernels::batchnorm_nchw_extents", ["x", "mean", "var", "weight", "bias", "eps"])),
    Kernel("global_avgpool_nchw",
           "The mean over H and W of an (N, C, H, W) array -> (N, C), as torch.nn.AdaptiveAvgPool2d(1) then a flatten.",
           [reads("x", 4), result("out", 2)],
           shape=("kernels::global_avgpool_nchw_extents", ["x"])),
    Kernel("linear",
           "x @ weight.T + bias for x of (N, F), weight of (O, F) and bias of O -> (N, O), as torch.nn.Linear.",
           [reads("x", 2), reads("weight", 2), reads("bias", 1), result("out", 2)],
           shape=("kernels::linear_extents", ["x", "weight", "bias"])),
    Kernel("spmv",
           "A sparse matrix times the vector x: spmv(A, x) for a CSRMatrix A, or spmv(indptr, indices, data, x, "
           "shape=(rows, columns)) for the three CSR arrays. The structure is checked on the device in the product's "
           "own pass (out-of-range indices, inconsistent indptr: ValueError once the pass is done, out's values then "
           "unspecified).",
           [indices("indptr", 1), indices("indices", 1), reads("data", 1), reads("x", 1), KEYWORD_ONLY,
            MatrixShape(), result("out", 1)],
           shape=("kernels::spmv_csr_extents", ["indptr", "indices", "data", "x", "shape_rows", "shape_columns"]),
           cpp="kernels::spmv_csr", call=["indptr", "indices", "data", "x", "out"], result_checked_first=True,
           csr_form=True),
    Kernel("spmm_dcsr",
           "Doubly compressed sparse rows times a dense b of shape (shape[1], n): `rows` lists the non-empty rows "
           "(strictly increasing), indptr has len(rows) + 1 entries. Rows not listed are zero in the result. The "
           "structure is checked on the device before out is written.",
           [indices("rows", 1), indices("indptr", 1), indices("indices", 1), reads("data", 1), reads("b", 2),
            KEYWORD_ONLY, MatrixShape(), result("out", 2)],
           shape=("kernels::spmm_dcsr_extents",
                  ["rows", "indptr", "indices", "data", "b", "shape_rows", "shape_columns"]),
           call=["rows", "indptr", "indices", "data", "b", "out"], result_checked_first=True),
    Kernel("sparse_matadd",
           "A + B for two sparse matrices of one shape (CSRMatrix, or anything CSRMatrix takes) whose rows list "
           "their columns in strictly increasing order (scipy's canonical form; checked on the device, ValueError "
           "otherwise). Returns a new CSRMatrix, canonical too (coinciding entries summed; a sum of zero stays an "
           "explicit entry), left on the device: its size is counted there, and only that number comes to the host.",
           [SparseMatrix("a"), SparseMatrix("b")],
           returns="sparse_matrix"),
    _elementwise("add",
                 f"Elementwise x + y. {_OPERANDS} Python numbers take the arrays' dtype, as in NumPy 2; everything "
                 "else must be all float32 or all float64. out may be x or y itself."),
    _elementwise("subtract", "Elementwise x - y; operands and out as for add."),
    _elementwise("multiply", "Elementwise x * y; operands and out as for add."),
    _elementwise("divide", "Elementwise x / y (IEEE: a zero divisor gives inf or nan); operands and out as for add."),
    _elementwise("maximum", "Elementwise maximum, as numpy.maximum (a NaN in either wins); maximum(x, 0.0) is a "
                            "ReLU. Operands and out as for add."),
    Kernel("axpby",
           "alpha * x + beta * y, elementwise. alpha and beta are scalars (numbers, or 0-d arrays or DualViews read "
           "on the device); x and y as the operands of add. out may be x or y itself: axpby(a, x, 1.0, y, out=y) is "
           "the BLAS axpy update in place.",
           [Operand("alpha"), Operand("x"), Operand("beta"), Operand("y"),
            result("out", ANY_RANK_OR_SCALAR, in_place=True)],
           shape=("kernels::detail::result_extents", ["kernel", "x", "y"])),
    Kernel("dot",
           "The dot product of two vectors of equal length: a Python float (the call waits for the device), or, "
           "with out a 0-d DualView or array, written into out's device side and out returned (lapis.empty(()) makes "
           "one): a scalar that stays on the device for later kernels to read.",
           [reads("x", 1), reads("y", 1), result("out", 0)],
           returns="number_or_result"),
    Kernel("norm", "The 2-norm of a vector: a Python float, or into a 0-d out as for dot.",
           [reads("x", 1), result("out", 0)],
           cpp="kernels::norm2", returns="number_or_result"),
    Kernel("cg_step",
           "One pass of a conjugate-gradient iteration: x += alpha p and r -= alpha q (q = A p), with alpha = rz / pq "
           "read on the device, and rr = r . r. rz and pq are 0-d; x and r are DualViews updated in place; rr is a "
           "0-d DualView or array, written and returned.",
           [reads("rz", 0), reads("pq", 0), reads("p", 1), reads("q", 1), reads_writes("x", 1),
            reads_writes("r", 1), result("rr", 0, optional=False)]),
    Kernel("cg_precondition",
           "z = m * r elementwise (m the preconditioner's diagonal: Jacobi's is 1 / diag(A)) and rz = r . z, in one "
           "pass. z is a DualView, overwritten on the device; rz a 0-d DualView or array, written and returned.",
           [reads("m", 1), reads("r", 1), writes("z", 1), result("rz", 0, optional=False)]),
    Kernel("cg_direction",
           "p = z + beta p with beta = rz / rz_old read on the device (both 0-d), in one pass; p is a DualView "
           "updated in place and returned.",
           [reads("z", 1), reads("rz", 0), reads("rz_old", 0), reads_writes("p", 1)],
           returns="p"),
]
