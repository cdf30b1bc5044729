"""numpy references for the kernels, and random inputs for them."""
import numpy

# a 4 x 3 matrix with an empty row, and scipy's CSR triple of it (lapis.CSRMatrix and spmv)
DENSE = numpy.array([[1.0, 0, 2], [0, 0, 0], [0, 3, 4], [5, 0, 0]])
DATA, INDICES, INDPTR = numpy.array([1.0, 2, 3, 4, 5]), numpy.array([0, 2, 1, 2, 0]), numpy.array([0, 2, 2, 4, 5])


def maxpool_nchw(x, kernel_size=3, stride=1, padding=1, dilation=2):
    n, c, h, w = x.shape
    span = dilation * (kernel_size - 1)
    ho = (h + 2 * padding - span - 1) // stride + 1
    wo = (w + 2 * padding - span - 1) // stride + 1
    padded = numpy.full((n, c, h + 2 * padding, w + 2 * padding), -numpy.inf, dtype=x.dtype)
    padded[:, :, padding:padding + h, padding:padding + w] = x
    out = numpy.full((n, c, ho, wo), -numpy.inf, dtype=x.dtype)
    for kh in range(kernel_size):
        for kw in range(kernel_size):
            window = padded[:, :, kh * dilation:kh * dilation + stride * (ho - 1) + 1:stride,
                            kw * dilation:kw * dilation + stride * (wo - 1) + 1:stride]
            out = numpy.maximum(out, window)  # propagates NaN, as torch does
    return out


def random_csr(rng, rows, columns, density, dtype, index_dtype):
    dense = rng.standard_normal((rows, columns)).astype(dtype)
    dense[rng.random((rows, columns)) > density] = 0
    indptr = numpy.zeros(rows + 1, dtype=index_dtype)
    indptr[1:] = numpy.cumsum((dense != 0).sum(axis=1))
    r, cols = numpy.nonzero(dense)
    return indptr, cols.astype(index_dtype), dense[r, cols], dense


def random_dcsr(rng, rows, columns, density, dtype, index_dtype):
    """(rows_listed, indptr, indices, data, dense): only non-empty rows are stored."""
    indptr, indices, data, dense = random_csr(rng, rows, columns, density, dtype, index_dtype)
    listed = numpy.flatnonzero(numpy.diff(indptr)).astype(index_dtype)
    compressed = numpy.concatenate([[0], indptr[listed + 1]]).astype(index_dtype)
    return listed, compressed, indices, data, dense
