"""A random sparse matrix in CSR and in doubly compressed (DCSR) form, for the sparse examples."""
import numpy


def random_matrix(r, rows, columns, density):
    dense = r.standard_normal((rows, columns))
    dense[r.random((rows, columns)) > density] = 0
    dense[::3] = 0  # some empty rows, which DCSR leaves out
    return dense


def csr(dense):
    rows, columns = numpy.nonzero(dense)
    indptr = numpy.concatenate([[0], numpy.cumsum((dense != 0).sum(axis=1))])
    return indptr, columns, dense[rows, columns]


def dcsr(dense):
    indptr, indices, data = csr(dense)
    listed = numpy.flatnonzero(numpy.diff(indptr))
    return listed, numpy.concatenate([[0], indptr[listed + 1]]), indices, data


def laplacian_2d(n):
    """The 5-point Laplacian of an n x n grid (Dirichlet boundary) in CSR: symmetric positive definite,
    4 on the diagonal and -1 for each grid neighbour."""
    i, j = numpy.divmod(numpy.arange(n * n), n)
    neighbours = [(i, j, 4.0), (i - 1, j, -1.0), (i + 1, j, -1.0), (i, j - 1, -1.0), (i, j + 1, -1.0)]
    row_parts, column_parts, value_parts = [], [], []
    for ni, nj, value in neighbours:
        inside = (ni >= 0) & (ni < n) & (nj >= 0) & (nj < n)
        row_parts.append((i * n + j)[inside])
        column_parts.append((ni * n + nj)[inside])
        value_parts.append(numpy.full(inside.sum(), value))
    rows, columns, values = map(numpy.concatenate, (row_parts, column_parts, value_parts))
    order = numpy.lexsort((columns, rows))
    indptr = numpy.concatenate([[0], numpy.cumsum(numpy.bincount(rows, minlength=n * n))])
    return indptr, columns[order], values[order]


def csr_matvec(indptr, indices, data, x):
    """A x in numpy, for checking."""
    rows = numpy.repeat(numpy.arange(len(indptr) - 1), numpy.diff(indptr))
    return numpy.bincount(rows, weights=data * x[indices], minlength=len(indptr) - 1)
